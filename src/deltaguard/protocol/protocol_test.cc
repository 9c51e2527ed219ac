#include "deltaguard/protocol/protocol.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/protocol/table_feature.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

Protocol Make(int r, int w, std::optional<std::vector<std::string>> rf = std::nullopt,
              std::optional<std::vector<std::string>> wf = std::nullopt) {
  return Protocol{r, w, std::move(rf), std::move(wf)};
}

TEST(ReaderGatingTest, LegacyVersionsAreSupported) {
  EXPECT_TRUE(CheckReadSupported(Make(1, 1), "/t").has_value());
  EXPECT_TRUE(CheckReadSupported(Make(1, 6), "/t").has_value());
  EXPECT_TRUE(CheckReadSupported(Make(2, 5), "/t").has_value());
  // Reader 2 + writer 7 (legacy columnMapping reader, explicit writer features).
  EXPECT_TRUE(
      CheckReadSupported(Make(2, 7, std::nullopt, {{"columnMapping", "foo"}}), "/t")
          .has_value());
  // Reader features listed with a legacy reader version are not consulted.
  EXPECT_TRUE(CheckReadSupported(Make(1, 2, {{"nonsense"}}), "/t").has_value());
}

TEST(ReaderGatingTest, ReaderVersionAboveThreeIsUnsupported) {
  Status st = CheckReadSupported(Make(4, 7, {{}}, {{}}), "/data/t");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().code, ErrorCode::kUnsupportedFeature);
  EXPECT_THAT(st.error().message, HasSubstr("table '/data/t' requires reader version 4"));
  Status zero = CheckReadSupported(Make(0, 2), "/t");
  ASSERT_FALSE(zero.has_value());
  EXPECT_EQ(zero.error().code, ErrorCode::kCorruptLog);
  EXPECT_EQ(CheckReadSupported(Make(1, 0), "/t").error().code, ErrorCode::kCorruptLog);
}

TEST(ReaderGatingTest, ReaderThreeNeedsFeatureList) {
  Status st = CheckReadSupported(Make(3, 7, std::nullopt, {{}}), "/t");
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().code, ErrorCode::kCorruptLog);
  EXPECT_THAT(st.error().message, HasSubstr("no readerFeatures"));
  EXPECT_TRUE(CheckReadSupported(Make(3, 7, {{}}, {{}}), "/t").has_value());
}

TEST(ReaderGatingTest, SupportedReaderFeatures) {
  std::vector<std::string> all = {"columnMapping",
                                  "deletionVectors",
                                  "timestampNtz",
                                  "typeWidening",
                                  "typeWidening-preview",
                                  "v2Checkpoint",
                                  "vacuumProtocolCheck",
                                  "variantType",
                                  "variantType-preview",
                                  "variantShredding",
                                  "variantShredding-preview"};
  EXPECT_TRUE(CheckReadSupported(Make(3, 7, all, all), "/t").has_value());
  // Case-insensitive, as Spark's featureNameToFeature.
  EXPECT_TRUE(
      CheckReadSupported(Make(3, 7, {{"DELETIONVECTORS"}}, {{}}), "/t").has_value());
}

TEST(ReaderGatingTest, UnknownOrUnsupportedReaderFeature) {
  for (const char* name : {"blahabl", "catalogManaged", "catalogOwned-preview",
                           "geospatial", "appendOnlyX"}) {
    Status st =
        CheckReadSupported(Make(3, 7, {{"deletionVectors", name}}, {{}}), "/data/t");
    ASSERT_FALSE(st.has_value()) << name;
    EXPECT_EQ(st.error().code, ErrorCode::kUnsupportedFeature);
    EXPECT_EQ(st.error().message,
              fmt::format("table '/data/t' requires reader feature '{}' which deltaguard "
                          "does not support",
                          name));
  }
}

TEST(ReaderGatingTest, WriterFeaturesNeverBlockReading) {
  EXPECT_TRUE(
      CheckReadSupported(
          Make(1, 7, std::nullopt, {{"someFutureWriterFeature", "catalogManaged"}}), "/t")
          .has_value());
  // A writer-only feature listed as a reader feature is still readable.
  EXPECT_TRUE(CheckReadSupported(Make(3, 7, {{"appendOnly"}}, {{}}), "/t").has_value());
}

TEST(FeatureSupportTest, LegacyVersionsImplyFeatures) {
  Protocol p12 = Make(1, 2);
  EXPECT_TRUE(IsFeatureSupported(p12, "appendOnly"));
  EXPECT_TRUE(IsFeatureSupported(p12, "INVARIANTS"));
  EXPECT_FALSE(IsFeatureSupported(p12, "checkConstraints"));
  EXPECT_FALSE(IsFeatureSupported(p12, "columnMapping"));
  Protocol p14 = Make(1, 4);
  EXPECT_TRUE(IsFeatureSupported(p14, "checkConstraints"));
  EXPECT_TRUE(IsFeatureSupported(p14, "changeDataFeed"));
  EXPECT_TRUE(IsFeatureSupported(p14, "generatedColumns"));
  EXPECT_FALSE(IsFeatureSupported(p14, "identityColumns"));
  EXPECT_FALSE(IsFeatureSupported(Make(1, 5), "columnMapping"));  // needs reader 2
  EXPECT_TRUE(IsFeatureSupported(Make(2, 5), "columnMapping"));
  EXPECT_TRUE(IsFeatureSupported(Make(2, 6), "identityColumns"));
  EXPECT_TRUE(IsFeatureSupported(Make(2, 7, std::nullopt, {{}}), "columnMapping"));
  EXPECT_FALSE(IsFeatureSupported(Make(1, 6), "deletionVectors"));
}

TEST(FeatureSupportTest, ExplicitListsReplaceLegacyImplication) {
  Protocol p = Make(3, 7, {{"deletionVectors"}}, {{"deletionVectors", "appendOnly"}});
  EXPECT_TRUE(IsFeatureSupported(p, "deletionVectors"));
  EXPECT_TRUE(IsFeatureSupported(p, "appendonly"));
  EXPECT_FALSE(IsFeatureSupported(p, "invariants"));  // writer 7 implies nothing
  EXPECT_FALSE(IsFeatureSupported(p, "columnMapping"));
  EXPECT_TRUE(IsFeatureSupported(Make(1, 7, std::nullopt, {{"myFeature"}}), "MYFEATURE"));
}

TEST(FeatureSupportTest, EffectiveFeatures) {
  EXPECT_THAT(EffectiveFeatures(Make(1, 2)), ElementsAre("appendOnly", "invariants"));
  EXPECT_THAT(EffectiveFeatures(Make(2, 5)),
              ElementsAre("appendOnly", "invariants", "checkConstraints",
                          "changeDataFeed", "generatedColumns", "columnMapping"));
  EXPECT_THAT(EffectiveFeatures(Make(3, 7, {{"DeletionVectors", "zzz"}},
                                     {{"deletionVectors", "zzz", "rowTracking", "ZZZ"}})),
              ElementsAre("rowTracking", "deletionVectors", "zzz"));
  EXPECT_TRUE(EffectiveFeatures(Make(1, 1)).empty());
}

}  // namespace
}  // namespace deltaguard
