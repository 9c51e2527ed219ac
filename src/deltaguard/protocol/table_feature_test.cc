#include "deltaguard/protocol/table_feature.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

TEST(TableFeatureTest, NamesAreUniqueCaseInsensitively) {
  std::set<std::string> seen;
  for (const FeatureInfo& f : KnownTableFeatures()) {
    EXPECT_TRUE(seen.insert(AsciiToLower(f.name)).second) << f.name;
  }
  EXPECT_GE(seen.size(), 30u);
}

TEST(TableFeatureTest, LookupIsCaseInsensitive) {
  const FeatureInfo* f = FindTableFeature("COLUMNMAPPING");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->name, "columnMapping");
  EXPECT_EQ(f->kind, FeatureKind::kReaderWriter);
  EXPECT_EQ(f->legacy_reader_version, 2);
  EXPECT_EQ(f->legacy_writer_version, 5);
  EXPECT_EQ(FindTableFeature("noSuchFeature"), nullptr);
  EXPECT_EQ(FindTableFeature(""), nullptr);
}

TEST(TableFeatureTest, KindsAndReadSupport) {
  for (const char* w : {"appendOnly", "invariants", "checkConstraints", "rowTracking",
                        "domainMetadata", "inCommitTimestamp", "clustering",
                        "icebergCompatV2", "identityColumns", "allowColumnDefaults"}) {
    const FeatureInfo* f = FindTableFeature(w);
    ASSERT_NE(f, nullptr) << w;
    EXPECT_EQ(f->kind, FeatureKind::kWriterOnly) << w;
    EXPECT_TRUE(f->read_supported) << w;
  }
  for (const char* rw :
       {"deletionVectors", "timestampNtz", "v2Checkpoint", "typeWidening",
        "variantShredding-preview", "vacuumProtocolCheck"}) {
    const FeatureInfo* f = FindTableFeature(rw);
    ASSERT_NE(f, nullptr) << rw;
    EXPECT_EQ(f->kind, FeatureKind::kReaderWriter) << rw;
    EXPECT_TRUE(f->read_supported) << rw;
  }
  for (const char* no : {"catalogManaged", "geospatial"}) {
    const FeatureInfo* f = FindTableFeature(no);
    ASSERT_NE(f, nullptr) << no;
    EXPECT_FALSE(f->read_supported) << no;
  }
}

// The table is constexpr: usable in constant expressions.
static_assert(kTableFeatures[0].name == "appendOnly");
static_assert(kMaxSupportedReaderVersion == 3);

}  // namespace
}  // namespace deltaguard
