// CheckWriteSupported and ValidateTableProperties (write_protocol.h).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "deltaguard/protocol/write_protocol.h"
#include "deltaguard/protocol/write_protocol_test_util_internal.h"
#include "deltaguard/schema/ddl.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

using testing::Legacy;
using testing::Names;
using testing::Tf;
using testing::WithMetadata;

Metadata WithConfig(StringMap config) {
  Metadata m;
  m.configuration = std::move(config);
  return m;
}

constexpr std::string_view kRoot = "/data/t1";

TEST(CheckWriteSupportedTest, AcceptsWritableTables) {
  const std::vector<Protocol> ok = {
      Legacy(1, 1),
      Legacy(1, 2),
      Legacy(1, 4),
      Legacy(2, 5),
      Legacy(2, 6),
      Tf(3, Names{"deletionVectors", "columnMapping", "timestampNtz", "typeWidening"},
         {"deletionVectors", "columnMapping", "timestampNtz", "typeWidening",
          "appendOnly", "invariants", "changeDataFeed", "inCommitTimestamp",
          "v2Checkpoint", "checkConstraints"}),
      Tf(1, std::nullopt, {"clustering", "domainMetadata", "vacuumProtocolCheck"}),
      Tf(3, Names{"typeWidening-preview"}, {"typeWidening-preview"})};
  for (const Protocol& p : ok) {
    auto st = CheckWriteSupported(p, WithConfig({}), *Ddl("a INT NOT NULL, b STRING"),
                                  kRoot, false);
    EXPECT_TRUE(st.has_value()) << st.error().message;
  }
}

struct Refusal {
  std::string label;
  Protocol protocol;
  StringMap config;
  SchemaRef schema;
  ErrorCode code;
  std::vector<std::string> needles;
};

TEST(CheckWriteSupportedTest, RefusesWithNames) {
  SchemaRef plain = Ddl("a INT");
  const std::vector<Refusal> cases = {
      {"reader 4",
       Legacy(4, 7),
       {},
       plain,
       ErrorCode::kUnsupportedFeature,
       {"reader version 4"}},
      {"writer 8",
       Legacy(1, 8),
       {},
       plain,
       ErrorCode::kUnsupportedFeature,
       {"writer version 8"}},
      {"writer 0", Legacy(1, 0), {}, plain, ErrorCode::kCorruptLog, {"writer 0"}},
      {"writer 7 without list",
       Legacy(1, 7),
       {},
       plain,
       ErrorCode::kCorruptLog,
       {"writerFeatures"}},
      {"unknown writer feature",
       Tf(1, std::nullopt, {"appendOnly", "fancyWrites"}),
       {},
       plain,
       ErrorCode::kUnsupportedFeature,
       {"writer feature 'fancyWrites'"}},
      {"unknown reader feature",
       Tf(3, Names{"blahabl"}, {"blahabl"}),
       {},
       plain,
       ErrorCode::kUnsupportedFeature,
       {"reader feature 'blahabl'"}},
      {"row tracking supported",
       Tf(1, std::nullopt, {"rowTracking", "domainMetadata"}),
       {},
       plain,
       ErrorCode::kUnsupportedFeature,
       {"'rowTracking'"}},
      {"row tracking enabled by property",
       Legacy(1, 2),
       {{"delta.enableRowTracking", "true"}},
       plain,
       ErrorCode::kUnsupportedFeature,
       {"delta.enableRowTracking"}},
      {"iceberg compat v1",
       Tf(2, std::nullopt, {"icebergCompatV1", "columnMapping"}),
       {},
       plain,
       ErrorCode::kUnsupportedFeature,
       {"'icebergCompatV1'"}},
      {"iceberg compat v2",
       Tf(2, std::nullopt, {"icebergCompatV2", "columnMapping"}),
       {},
       plain,
       ErrorCode::kUnsupportedFeature,
       {"'icebergCompatV2'"}},
      {"catalog managed",
       Tf(3, Names{"catalogManaged"}, {"catalogManaged", "inCommitTimestamp"}),
       {},
       plain,
       ErrorCode::kUnsupportedFeature,
       {"'catalogManaged'"}},
      {"generated column (legacy writer 4)",
       Legacy(1, 4),
       {},
       WithMetadata("delta.generationExpression", "\"a + 1\""),
       ErrorCode::kUnsupportedFeature,
       {"column 'c'", "generatedColumns"}},
      {"identity column",
       Legacy(1, 6),
       {},
       WithMetadata("delta.identity.start", "1"),
       ErrorCode::kUnsupportedFeature,
       {"column 'c'", "identityColumns"}},
      {"column default",
       Tf(1, std::nullopt, {"allowColumnDefaults"}),
       {},
       WithMetadata("CURRENT_DEFAULT", "\"7\""),
       ErrorCode::kUnsupportedFeature,
       {"column 'c'", "DEFAULT"}},
      {"variant column",
       Tf(3, Names{"variantType"}, {"variantType"}),
       {},
       Ddl("id INT, s STRUCT<v: VARIANT>"),
       ErrorCode::kUnsupportedFeature,
       {"column 's.v'", "variant"}},
      {"CHECK constraint",
       Legacy(1, 3),
       {{"delta.constraints.positive", "a > 0"}},
       plain,
       ErrorCode::kUnsupportedFeature,
       {"/data/t1", "CHECK constraint 'positive'", "a > 0", "cannot enforce"}},
      {"invariant",
       Legacy(1, 2),
       {},
       WithMetadata("delta.invariants", R"("{\"expression\":{\"expression\":\"c>0\"}}")"),
       ErrorCode::kUnsupportedFeature,
       {"column 'c'", "invariant"}},
  };
  for (const Refusal& c : cases) {
    auto st =
        CheckWriteSupported(c.protocol, WithConfig(c.config), *c.schema, kRoot, false);
    ASSERT_FALSE(st.has_value()) << c.label;
    EXPECT_EQ(st.error().code, c.code) << c.label << ": " << st.error().message;
    EXPECT_THAT(st.error().message, HasSubstr(std::string(kRoot))) << c.label;
    for (const std::string& n : c.needles) {
      EXPECT_THAT(st.error().message, HasSubstr(n)) << c.label;
    }
  }
}

TEST(CheckWriteSupportedTest, ConstraintsPassWhenTheWriterCanEvaluateThem) {
  Metadata md = WithConfig({{"delta.constraints.positive", "a > 0"}});
  EXPECT_FALSE(CheckWriteSupported(Legacy(1, 3), md, *Ddl("a INT"), kRoot, false));
  EXPECT_TRUE(CheckWriteSupported(Legacy(1, 3), md, *Ddl("a INT"), kRoot, true));
  SchemaRef inv =
      WithMetadata("delta.invariants", R"("{\"expression\":{\"expression\":\"c>0\"}}")");
  EXPECT_TRUE(CheckWriteSupported(Legacy(1, 2), WithConfig({}), *inv, kRoot, true));
  // Generated columns in a schema are inert when the protocol lacks the feature.
  EXPECT_TRUE(CheckWriteSupported(Legacy(1, 2), WithConfig({}),
                                  *WithMetadata("delta.generationExpression", "\"1\""),
                                  kRoot, false));
  // A malformed delta.enableRowTracking value is reported, not ignored.
  auto bad =
      CheckWriteSupported(Legacy(1, 2), WithConfig({{"delta.enableRowTracking", "si"}}),
                          *Ddl("a INT"), kRoot, false);
  ASSERT_FALSE(bad.has_value());
  EXPECT_THAT(bad.error().message, HasSubstr("'si'"));
}

// ---------------------------------------------------------------------------------------

TEST(ValidateTablePropertiesTest, AcceptsKnownPropertiesWithValidValues) {
  StringMap ok = {{"delta.appendOnly", "TRUE"},
                  {"delta.checkpointInterval", "10"},
                  {"delta.logRetentionDuration", "interval 30 days"},
                  {"delta.deletedFileRetentionDuration", "INTERVAL 1 WEEK"},
                  {"delta.setTransactionRetentionDuration", "interval 1 days 12 hours"},
                  {"delta.dataSkippingNumIndexedCols", "-1"},
                  {"delta.dataSkippingStatsColumns", "a,b.c"},
                  {"delta.columnMapping.mode", "Name"},
                  {"delta.enableChangeDataFeed", "false"},
                  {"delta.enableDeletionVectors", "true"},
                  {"delta.enableTypeWidening", "true"},
                  {"delta.enableInCommitTimestamps", "true"},
                  {"delta.isolationLevel", "Serializable"},
                  {"delta.checkpoint.writeStatsAsJson", "false"},
                  {"delta.checkpoint.writeStatsAsStruct", "true"},
                  {"delta.checkpointPolicy", "v2"},
                  {"delta.randomizeFilePrefixes", "true"},
                  {"delta.targetFileSize", "128mb"},
                  {"delta.tuneFileSizesForRewrites", "true"},
                  {"delta.enableRowTracking", "false"},
                  {"delta.minReaderVersion", "3"},
                  {"delta.minWriterVersion", "7"},
                  {"delta.feature.deletionVectors", "supported"},
                  {"delta.feature.v2checkpoint", "enabled"},
                  {"delta.compatibility.symlinkFormatManifest.enabled", "false"},
                  {"delta.universalFormat.enabledFormats", "iceberg"},
                  {"owner", "anything goes"},
                  {"spark.sql.whatever", "1"}};
  auto st = ValidateTableProperties(ok);
  EXPECT_TRUE(st.has_value()) << st.error().message;
  EXPECT_TRUE(ValidateTableProperties({}));
}

TEST(ValidateTablePropertiesTest, RefusesWithTheKeyNamed) {
  struct Bad {
    StringMap props;
    std::vector<std::string> needles;
  };
  const std::vector<Bad> cases = {
      {{{"delta.appendonly.typo", "true"}}, {"'delta.appendonly.typo'", "unknown"}},
      {{{"delta.enableDeletionVector", "true"}}, {"'delta.enableDeletionVector'"}},
      {{{"delta.appendOnly", "yes"}}, {"'delta.appendOnly'", "'yes'", "true or false"}},
      {{{"delta.checkpointInterval", "0"}}, {"positive integer", "'0'"}},
      {{{"delta.checkpointInterval", "10x"}}, {"'10x'"}},
      {{{"delta.logRetentionDuration", "30 days"}}, {}},  // valid: prefix optional
      {{{"delta.logRetentionDuration", "interval 1 month"}},
       {"interval", "'interval 1 month'"}},
      {{{"delta.logRetentionDuration", "interval -1 days"}}, {"'interval -1 days'"}},
      {{{"delta.logRetentionDuration", "forever"}}, {"'forever'"}},
      {{{"delta.dataSkippingNumIndexedCols", "-2"}}, {">= -1"}},
      {{{"delta.columnMapping.mode", "names"}}, {"none, name or id"}},
      {{{"delta.columnMapping.maxColumnId", "5"}},
       {"'delta.columnMapping.maxColumnId'", "cannot be set"}},
      {{{"delta.constraints.positive", "a > 0"}}, {"ADD CONSTRAINT"}},
      {{{"delta.checkpointPolicy", "v3"}}, {"classic or v2"}},
      {{{"delta.isolationLevel", "Snapshot"}}, {"Serializable"}},
      {{{"delta.minReaderVersion", "4"}}, {"from 1 to 3"}},
      {{{"delta.minWriterVersion", "8"}}, {"from 1 to 7"}},
      {{{"delta.feature.timeTravel", "supported"}},
       {"unknown table feature 'timeTravel'"}},
      {{{"delta.feature.appendOnly", "disabled"}}, {"'supported' or 'enabled'"}},
      {{{"delta.targetFileSize", "-5"}}, {"'-5'"}},
      {{{"delta.universalFormat.enabledFormats", "iceberg,orc"}}, {"iceberg, hudi"}},
      {{{"Owner", "a"}, {"owner", "b"}}, {"'Owner'", "'owner'", "case"}},
  };
  for (const Bad& c : cases) {
    auto st = ValidateTableProperties(c.props);
    if (c.needles.empty()) {
      EXPECT_TRUE(st.has_value()) << c.props[0].first << "=" << c.props[0].second;
      continue;
    }
    ASSERT_FALSE(st.has_value()) << c.props[0].first << "=" << c.props[0].second;
    EXPECT_EQ(st.error().code, ErrorCode::kInvalidArgument);
    for (const std::string& n : c.needles) {
      EXPECT_THAT(st.error().message, HasSubstr(n)) << c.props[0].first;
    }
  }
}

}  // namespace
}  // namespace deltaguard
