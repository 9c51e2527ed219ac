#include "deltaguard/protocol/table_properties.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace deltaguard {
namespace {

Metadata WithConfig(StringMap config) {
  Metadata m;
  m.configuration = std::move(config);
  return m;
}

TEST(TablePropertiesTest, GetConfigIsCaseInsensitive) {
  Metadata m = WithConfig({{"delta.appendOnly", "true"}, {"Other", "x"}});
  EXPECT_EQ(m.GetConfig("DELTA.APPENDONLY"), "true");
  EXPECT_EQ(m.GetConfig("other"), "x");
  EXPECT_FALSE(m.GetConfig("delta.append").has_value());
  EXPECT_EQ(FindIgnoreCase(m.configuration, "OTHER"), "x");
  EXPECT_EQ(StringMapToJson({{"a", "1"}, {"q\"k", "v"}}), R"({"a":"1","q\"k":"v"})");
  EXPECT_EQ(StringMapToJson({}), "{}");
}

TEST(TablePropertiesTest, ColumnMappingMode) {
  EXPECT_EQ(*GetColumnMappingMode(WithConfig({})), ColumnMappingMode::kNone);
  EXPECT_EQ(*GetColumnMappingMode(WithConfig({{"delta.columnMapping.mode", "name"}})),
            ColumnMappingMode::kName);
  EXPECT_EQ(*GetColumnMappingMode(WithConfig({{"Delta.ColumnMapping.Mode", "ID"}})),
            ColumnMappingMode::kId);
  EXPECT_EQ(*GetColumnMappingMode(WithConfig({{"delta.columnMapping.mode", " none "}})),
            ColumnMappingMode::kNone);
  auto bad = GetColumnMappingMode(WithConfig({{"delta.columnMapping.mode", "names"}}));
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::kCorruptLog);
  EXPECT_THAT(bad.error().message, HasSubstr("'names'"));
  EXPECT_EQ(ColumnMappingModeName(ColumnMappingMode::kId), "id");
  EXPECT_EQ(ColumnMappingModeName(ColumnMappingMode::kName), "name");
  EXPECT_EQ(ColumnMappingModeName(ColumnMappingMode::kNone), "none");
}

TEST(TablePropertiesTest, InCommitTimestampConfig) {
  auto off = GetInCommitTimestampConfig(WithConfig({}));
  ASSERT_TRUE(off.has_value());
  EXPECT_FALSE(off->enabled);
  EXPECT_FALSE(off->AppliesTo(100));

  auto on = GetInCommitTimestampConfig(
      WithConfig({{"delta.enableInCommitTimestamps", "TRUE"},
                  {"delta.inCommitTimestampEnablementVersion", "5"},
                  {"delta.inCommitTimestampEnablementTimestamp", "1700000000000"}}));
  ASSERT_TRUE(on.has_value()) << on.error().message;
  EXPECT_TRUE(on->enabled);
  EXPECT_EQ(on->enablement_version, 5);
  EXPECT_EQ(on->enablement_timestamp, 1700000000000);
  EXPECT_FALSE(on->AppliesTo(4));
  EXPECT_TRUE(on->AppliesTo(5));

  auto from_start = GetInCommitTimestampConfig(
      WithConfig({{"delta.enableInCommitTimestamps", "true"}}));
  ASSERT_TRUE(from_start.has_value());
  EXPECT_TRUE(from_start->AppliesTo(0));

  auto bad_bool =
      GetInCommitTimestampConfig(WithConfig({{"delta.enableInCommitTimestamps", "yes"}}));
  ASSERT_FALSE(bad_bool.has_value());
  EXPECT_EQ(bad_bool.error().code, ErrorCode::kCorruptLog);
  auto bad_long = GetInCommitTimestampConfig(
      WithConfig({{"delta.enableInCommitTimestamps", "true"},
                  {"delta.inCommitTimestampEnablementVersion", "5x"}}));
  ASSERT_FALSE(bad_long.has_value());
  EXPECT_THAT(bad_long.error().message, HasSubstr("'5x'"));
}

TEST(TablePropertiesTest, ParseBool) {
  EXPECT_EQ(*ParseBoolProperty("k", "true"), true);
  EXPECT_EQ(*ParseBoolProperty("k", " False"), false);
  EXPECT_EQ(ParseBoolProperty("k", "1").error().code, ErrorCode::kCorruptLog);
}

}  // namespace
}  // namespace deltaguard
