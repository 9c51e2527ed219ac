#include "deltaguard/protocol/write_protocol.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "deltaguard/protocol/write_protocol_test_util_internal.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/util/string_util.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

using testing::Legacy;
using testing::Names;
using testing::Tf;
using testing::WithMetadata;

// Protocols compare with feature lists as sets.
void ExpectProtocol(const Protocol& got, const Protocol& want, const std::string& label) {
  SCOPED_TRACE(label);
  EXPECT_EQ(got.min_reader_version, want.min_reader_version);
  EXPECT_EQ(got.min_writer_version, want.min_writer_version);
  ASSERT_EQ(got.reader_features.has_value(), want.reader_features.has_value());
  ASSERT_EQ(got.writer_features.has_value(), want.writer_features.has_value());
  if (want.reader_features) {
    EXPECT_THAT(*got.reader_features, UnorderedElementsAreArray(*want.reader_features));
  }
  if (want.writer_features) {
    EXPECT_THAT(*got.writer_features, UnorderedElementsAreArray(*want.writer_features));
  }
}

struct NewTableCase {
  std::string label;
  StringMap config;
  std::string ddl;
  Protocol want;
};

TEST(ProtocolForNewTableTest, PropertiesAndSchemaToProtocol) {
  const Names kAoInv = {"appendOnly", "invariants"};
  auto with = [&](Names extra) {
    Names out = kAoInv;
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
  };
  const std::vector<NewTableCase> cases = {
      {"default", {}, "a INT", Legacy(1, 2)},
      {"appendOnly is legacy (1,2)",
       {{"delta.appendOnly", "true"}},
       "a INT",
       Legacy(1, 2)},
      {"appendOnly=false", {{"delta.appendOnly", "false"}}, "a INT", Legacy(1, 2)},
      {"NOT NULL", {}, "a INT NOT NULL", Legacy(1, 2)},
      {"CHECK constraint ⇒ (1,3)",
       {{"delta.constraints.positive", "a > 0"}},
       "a INT",
       Legacy(1, 3)},
      {"CDF ⇒ writer features (Spark 3.3+/4.x)",
       {{"delta.enableChangeDataFeed", "true"}},
       "a INT",
       Tf(1, std::nullopt, with({"changeDataFeed"}))},
      {"column mapping name ⇒ (2,7)",
       {{"delta.columnMapping.mode", "name"}},
       "a INT",
       Tf(2, std::nullopt, with({"columnMapping"}))},
      {"column mapping id",
       {{"delta.columnMapping.mode", "ID"}},
       "a INT",
       Tf(2, std::nullopt, with({"columnMapping"}))},
      {"column mapping none",
       {{"delta.columnMapping.mode", "none"}},
       "a INT",
       Legacy(1, 2)},
      {"timestamp_ntz nested in a map",
       {},
       "m MAP<STRING, ARRAY<TIMESTAMP_NTZ>>",
       Tf(3, Names{"timestampNtz"}, with({"timestampNtz"}))},
      {"deletion vectors",
       {{"delta.enableDeletionVectors", "true"}},
       "a INT",
       Tf(3, Names{"deletionVectors"}, with({"deletionVectors"}))},
      {"type widening",
       {{"delta.enableTypeWidening", "true"}},
       "a INT",
       Tf(3, Names{"typeWidening"}, with({"typeWidening"}))},
      {"in-commit timestamps",
       {{"delta.enableInCommitTimestamps", "true"}},
       "a INT",
       Tf(1, std::nullopt, with({"inCommitTimestamp"}))},
      {"row tracking brings domainMetadata",
       {{"delta.enableRowTracking", "true"}},
       "a INT",
       Tf(1, std::nullopt, with({"rowTracking", "domainMetadata"}))},
      {"v2 checkpoints",
       {{"delta.checkpointPolicy", "v2"}},
       "a INT",
       Tf(3, Names{"v2Checkpoint"}, with({"v2Checkpoint"}))},
      {"classic checkpoints",
       {{"delta.checkpointPolicy", "classic"}},
       "a INT",
       Legacy(1, 2)},
      {"variant", {}, "v VARIANT", Tf(3, Names{"variantType"}, with({"variantType"}))},
      {"column mapping + DVs: columnMapping joins readerFeatures",
       {{"delta.columnMapping.mode", "name"}, {"delta.enableDeletionVectors", "true"}},
       "a INT",
       Tf(3, Names{"columnMapping", "deletionVectors"},
          with({"columnMapping", "deletionVectors"}))},
      {"explicit feature",
       {{"delta.feature.v2Checkpoint", "supported"}},
       "a INT",
       Tf(3, Names{"v2Checkpoint"}, with({"v2Checkpoint"}))},
      {"explicit feature, any case, 'enabled'",
       {{"Delta.Feature.CLUSTERING", "Enabled"}},
       "a INT",
       Tf(1, std::nullopt, with({"clustering", "domainMetadata"}))},
      {"explicit legacy feature that makes a legacy set",
       {{"delta.feature.checkConstraints", "supported"}},
       "a INT",
       Legacy(1, 3)},
      {"explicit versions (2,5)",
       {{"delta.minReaderVersion", "2"}, {"delta.minWriterVersion", "5"}},
       "a INT",
       Legacy(2, 5)},
      {"explicit (1,4)", {{"delta.minWriterVersion", "4"}}, "a INT", Legacy(1, 4)},
      {"invalid legacy (2,3) normalizes to (1,3)",
       {{"delta.minReaderVersion", "2"}, {"delta.minWriterVersion", "3"}},
       "a INT",
       Legacy(1, 3)},
      {"explicit writer 7 replaces the default and implies nothing",
       {{"delta.minWriterVersion", "7"}, {"delta.enableDeletionVectors", "true"}},
       "a INT",
       Tf(3, Names{"deletionVectors"}, {"deletionVectors"})},
      {"ignoreProtocolDefaults",
       {{"delta.ignoreProtocolDefaults", "true"}},
       "a INT",
       Legacy(1, 1)},
      {"ignoreProtocolDefaults + NOT NULL",
       {{"delta.ignoreProtocolDefaults", "true"}},
       "a INT NOT NULL",
       Tf(1, std::nullopt, {"invariants"})},
      {"(1,6) explicit", {{"delta.minWriterVersion", "6"}}, "a INT", Legacy(1, 6)},
      {"explicit (2,5) + DVs",
       {{"delta.minReaderVersion", "2"},
        {"delta.minWriterVersion", "5"},
        {"delta.enableDeletionVectors", "true"}},
       "a INT",
       Tf(3, Names{"columnMapping", "deletionVectors"},
          with({"checkConstraints", "changeDataFeed", "generatedColumns", "columnMapping",
                "deletionVectors"}))},
      {"iceberg compat v2 brings column mapping",
       {{"delta.enableIcebergCompatV2", "true"}, {"delta.columnMapping.mode", "name"}},
       "a INT",
       Tf(2, std::nullopt, with({"icebergCompatV2", "columnMapping"}))},
      {"variant shredding (preview name, as Spark 4.0 / DBR write it)",
       {{"delta.enableVariantShredding", "true"}},
       "v VARIANT",
       Tf(3, Names{"variantType", "variantShredding-preview"},
          with({"variantType", "variantShredding-preview"}))},
  };
  for (const NewTableCase& c : cases) {
    auto got = ProtocolForNewTable(c.config, *Ddl(c.ddl));
    ASSERT_TRUE(got.has_value()) << c.label << ": " << got.error().message;
    ExpectProtocol(got->protocol, c.want, c.label);
  }
}

TEST(ProtocolForNewTableTest, SchemaMetadataFeatures) {
  auto gen =
      ProtocolForNewTable({}, *WithMetadata("delta.generationExpression", "\"a+1\""));
  ASSERT_TRUE(gen.has_value());
  // {appendOnly, invariants, generatedColumns} is no legacy set ((1,4) also implies
  // checkConstraints and changeDataFeed), so Spark 4.x writes table features.
  ExpectProtocol(gen->protocol,
                 Tf(1, std::nullopt, {"appendOnly", "invariants", "generatedColumns"}),
                 "generated column");
  auto ident = ProtocolForNewTable({}, *WithMetadata("delta.identity.start", "1"));
  ASSERT_TRUE(ident.has_value());
  ExpectProtocol(ident->protocol,
                 Tf(1, std::nullopt, {"appendOnly", "invariants", "identityColumns"}),
                 "identity column");
  auto inv = ProtocolForNewTable(
      {{"delta.ignoreProtocolDefaults", "true"}},
      *WithMetadata("delta.invariants",
                    R"("{\"expression\":{\"expression\":\"c>0\"}}")"));
  ASSERT_TRUE(inv.has_value());
  ExpectProtocol(inv->protocol, Tf(1, std::nullopt, {"invariants"}), "invariants");
  auto tc = ProtocolForNewTable(
      {},
      *WithMetadata("delta.typeChanges", R"([{"fromType":"integer","toType":"long"}])"));
  ASSERT_TRUE(tc.has_value());
  ExpectProtocol(
      tc->protocol,
      Tf(3, Names{"typeWidening"}, {"appendOnly", "invariants", "typeWidening"}),
      "type changes");
}

TEST(ProtocolForNewTableTest, ColumnDefaultsNeedExplicitFeature) {
  SchemaRef schema = WithMetadata("CURRENT_DEFAULT", "\"42\"");
  auto refused = ProtocolForNewTable({}, *schema);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(refused.error().message, HasSubstr("column 'c'"));
  EXPECT_THAT(refused.error().message, HasSubstr("delta.feature.allowColumnDefaults"));
  auto ok =
      ProtocolForNewTable({{"delta.feature.allowColumnDefaults", "supported"}}, *schema);
  ASSERT_TRUE(ok.has_value()) << ok.error().message;
  ExpectProtocol(ok->protocol,
                 Tf(1, std::nullopt, {"appendOnly", "invariants", "allowColumnDefaults"}),
                 "defaults");
}

TEST(ProtocolForNewTableTest, StripsProtocolPropertiesAndKeepsTheRest) {
  StringMap config = {{"delta.minReaderVersion", "1"},
                      {"delta.appendOnly", "true"},
                      {"DELTA.FEATURE.deletionVectors", "supported"},
                      {"delta.minWriterVersion", "2"},
                      {"delta.ignoreProtocolDefaults", "false"},
                      {"owner", "me"}};
  auto got = ProtocolForNewTable(config, *Ddl("a INT"));
  ASSERT_TRUE(got.has_value()) << got.error().message;
  EXPECT_EQ(got->configuration,
            (StringMap{{"delta.appendOnly", "true"}, {"owner", "me"}}));
  EXPECT_EQ(RemoveProtocolProperties(config), got->configuration);
  ExpectProtocol(
      got->protocol,
      Tf(3, Names{"deletionVectors"}, {"appendOnly", "invariants", "deletionVectors"}),
      "strip");
}

TEST(ProtocolForNewTableTest, RefusesMalformedProtocolInput) {
  struct Bad {
    StringMap config;
    std::string needle;
  };
  const std::vector<Bad> bad = {
      {{{"delta.minReaderVersion", "4"}}, "'delta.minReaderVersion'"},
      {{{"delta.minReaderVersion", "0"}}, "from 1 to 3"},
      {{{"delta.minWriterVersion", "8"}}, "from 1 to 7"},
      {{{"delta.minWriterVersion", "seven"}}, "'seven'"},
      {{{"delta.minReaderVersion", "3"}, {"delta.minWriterVersion", "5"}},
       "requires 'delta.minWriterVersion' = 7"},
      {{{"delta.feature.noSuchThing", "supported"}},
       "unknown table feature 'noSuchThing'"},
      {{{"delta.feature.deletionVectors", "on"}}, "'supported' or 'enabled'"},
      {{{"delta.enableDeletionVectors", "yes"}}, "'delta.enableDeletionVectors'"},
      {{{"delta.columnMapping.mode", "names"}}, "'names'"},
      {{{"delta.checkpointPolicy", "v3"}}, "'v3'"},
  };
  for (const Bad& b : bad) {
    auto got = ProtocolForNewTable(b.config, *Ddl("a INT"));
    ASSERT_FALSE(got.has_value()) << b.needle;
    EXPECT_EQ(got.error().code, ErrorCode::kInvalidArgument) << b.needle;
    EXPECT_THAT(got.error().message, HasSubstr(b.needle));
  }
}

// ---------------------------------------------------------------------------------------
// Upgrades of existing tables.

struct UpgradeCase {
  std::string label;
  Protocol current;
  StringMap config;
  std::string ddl;
  std::optional<Protocol> want;  // nullopt: current suffices
};

TEST(ProtocolUpgradeForTest, Table) {
  const std::vector<UpgradeCase> cases = {
      {"nothing new",
       Legacy(1, 2),
       {{"delta.appendOnly", "true"}},
       "a INT NOT NULL",
       std::nullopt},
      {"legacy (1,2) + CHECK ⇒ (1,3)",
       Legacy(1, 2),
       {{"delta.constraints.c", "a > 0"}},
       "a INT",
       Legacy(1, 3)},
      {"(1,2) + CDF lists the implied legacy features",
       Legacy(1, 2),
       {{"delta.enableChangeDataFeed", "true"}},
       "a INT",
       Tf(1, std::nullopt, {"appendOnly", "invariants", "changeDataFeed"})},
      {"(1,4) already has CDF",
       Legacy(1, 4),
       {{"delta.enableChangeDataFeed", "true"}},
       "a INT",
       std::nullopt},
      {"(1,4) + column mapping ⇒ (2,5)",
       Legacy(1, 4),
       {{"delta.columnMapping.mode", "name"}},
       "a INT",
       Legacy(2, 5)},
      {"(2,5) + DVs ⇒ (3,7) listing everything",
       Legacy(2, 5),
       {{"delta.enableDeletionVectors", "true"}},
       "a INT",
       Tf(3, Names{"columnMapping", "deletionVectors"},
          {"appendOnly", "invariants", "checkConstraints", "changeDataFeed",
           "generatedColumns", "columnMapping", "deletionVectors"})},
      {"table features stay table features (no (1,3) normalization)",
       Tf(1, std::nullopt, {"appendOnly", "invariants"}),
       {{"delta.constraints.c", "a > 0"}},
       "a INT",
       Tf(1, std::nullopt, {"appendOnly", "invariants", "checkConstraints"})},
      {"reader version never decreases",
       Tf(3, Names{}, {"appendOnly", "invariants"}),
       {{"delta.enableChangeDataFeed", "true"}},
       "a INT",
       Tf(3, Names{}, {"appendOnly", "invariants", "changeDataFeed"})},
      {"unknown features are preserved",
       Tf(3, Names{"futureRead"}, {"futureRead", "futureWrite"}),
       {{"delta.enableInCommitTimestamps", "true"}},
       "a INT",
       Tf(3, Names{"futureRead"}, {"futureRead", "futureWrite", "inCommitTimestamp"})},
      {"typeWidening-preview satisfies typeWidening",
       Tf(3, Names{"typeWidening-preview"}, {"typeWidening-preview"}),
       {{"delta.enableTypeWidening", "true"}},
       "a INT",
       std::nullopt},
      {"explicit (3,7) on (1,2) changes nothing (Spark 4.x normalizes)",
       Legacy(1, 2),
       {{"delta.minReaderVersion", "3"}, {"delta.minWriterVersion", "7"}},
       "a INT",
       std::nullopt},
      {"timestamp_ntz column added",
       Tf(3, Names{"deletionVectors"}, {"deletionVectors"}),
       {},
       "a INT, t STRUCT<x: TIMESTAMP_NTZ>",
       Tf(3, Names{"deletionVectors", "timestampNtz"},
          {"deletionVectors", "timestampNtz"})},
      {"explicit feature on legacy table",
       Legacy(1, 3),
       {{"delta.feature.inCommitTimestamp", "supported"}},
       "a INT",
       Tf(1, std::nullopt,
          {"appendOnly", "invariants", "checkConstraints", "inCommitTimestamp"})},
  };
  for (const UpgradeCase& c : cases) {
    auto got = ProtocolUpgradeFor(c.current, c.config, *Ddl(c.ddl));
    ASSERT_TRUE(got.has_value()) << c.label << ": " << got.error().message;
    ASSERT_EQ(got->has_value(), c.want.has_value()) << c.label;
    if (c.want) ExpectProtocol(**got, *c.want, c.label);
  }
}

TEST(ProtocolUpgradeForTest, UpgradeNeverDropsAFeature) {
  const std::vector<Protocol> currents = {
      Legacy(1, 1),
      Legacy(1, 2),
      Legacy(1, 3),
      Legacy(1, 4),
      Legacy(2, 5),
      Legacy(2, 6),
      Tf(1, std::nullopt, {"appendOnly"}),
      Tf(2, std::nullopt, {"columnMapping"}),
      Tf(3, Names{"deletionVectors"},
         {"deletionVectors", "rowTracking", "domainMetadata"})};
  const std::vector<StringMap> changes = {{{"delta.enableChangeDataFeed", "true"}},
                                          {{"delta.enableDeletionVectors", "true"}},
                                          {{"delta.columnMapping.mode", "name"}},
                                          {{"delta.constraints.x", "a > 0"}},
                                          {{"delta.enableInCommitTimestamps", "true"}}};
  for (const Protocol& cur : currents) {
    for (const StringMap& change : changes) {
      auto got = ProtocolUpgradeFor(cur, change, *Ddl("a INT"));
      ASSERT_TRUE(got.has_value()) << got.error().message;
      if (!got->has_value()) continue;
      const Protocol& up = **got;
      EXPECT_GE(up.min_reader_version, cur.min_reader_version);
      EXPECT_GE(up.min_writer_version, cur.min_writer_version);
      for (const std::string& f : EffectiveFeatures(cur)) {
        EXPECT_TRUE(IsFeatureSupported(up, f)) << f << " lost from " << change[0].first;
      }
      // The change itself is now supported.
      auto again = ProtocolUpgradeFor(up, change, *Ddl("a INT"));
      ASSERT_TRUE(again.has_value());
      EXPECT_FALSE(again->has_value()) << change[0].first;
    }
  }
}

TEST(ProtocolUpgradeForTest, ErrorsAreInvalidArgument) {
  auto bad =
      ProtocolUpgradeFor(Legacy(1, 2), {{"delta.appendOnly", "maybe"}}, *Ddl("a INT"));
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
  auto defaults =
      ProtocolUpgradeFor(Legacy(1, 2), {}, *WithMetadata("CURRENT_DEFAULT", "\"1\""));
  ASSERT_FALSE(defaults.has_value());
  EXPECT_THAT(defaults.error().message, HasSubstr("allowColumnDefaults"));
  auto defaults_ok = ProtocolUpgradeFor(Tf(1, std::nullopt, {"allowColumnDefaults"}), {},
                                        *WithMetadata("CURRENT_DEFAULT", "\"1\""));
  ASSERT_TRUE(defaults_ok.has_value());
  EXPECT_FALSE(defaults_ok->has_value());
}

}  // namespace
}  // namespace deltaguard
