#include "deltaguard/log/add_stats.h"

#include <gtest/gtest.h>

#include <string>

namespace deltaguard {
namespace {

TEST(ParseAddStatsTest, ReadsEverySection) {
  auto s =
      ParseAddStats(R"({"numRecords":3,"minValues":{"id":1,"name":"a","s":{"x":1.5}},)"
                    R"("maxValues":{"id":9,"name":"z","s":{"x":2.5}},)"
                    R"("nullCount":{"id":0,"name":1,"s":{"x":2}},"tightBounds":true})");
  ASSERT_TRUE(s.has_value()) << s.error().ToString();
  EXPECT_EQ(s->num_records, 3);
  EXPECT_EQ(s->tight_bounds, true);
  const ColumnStats* id = s->Find({"id"});
  ASSERT_NE(id, nullptr);
  EXPECT_EQ(ColumnStats::Int(id->min), 1);
  EXPECT_EQ(ColumnStats::Int(id->max), 9);
  EXPECT_EQ(ColumnStats::Int(id->null_count), 0);
  const ColumnStats* name = s->Find({"name"});
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(name->min, StatValue(std::string("a")));
  EXPECT_EQ(ColumnStats::Int(name->min), std::nullopt);
  // A struct column: the object itself is StatNested, its fields have longer paths.
  const ColumnStats* st = s->Find({"s"});
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->min, StatValue(StatNested{}));
  const ColumnStats* x = s->Find({"s", "x"});
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->min, StatValue(1.5));
  EXPECT_EQ(ColumnStats::Int(x->null_count), 2);
  EXPECT_EQ(s->Find({"x"}), nullptr);
}

TEST(ParseAddStatsTest, OnlyTheTopLevelNumRecordsCounts) {
  auto s = ParseAddStats(R"({"minValues":{"numRecords":5},"numRecords":null})");
  ASSERT_TRUE(s.has_value());
  EXPECT_FALSE(s->num_records.has_value());
  EXPECT_EQ(ColumnStats::Int(s->Find({"numRecords"})->min), 5);
  s = ParseAddStats(R"({"nullCount":{"x":[1,{"numRecords":3}]},"numRecords":7})");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->num_records, 7);
  EXPECT_EQ(s->Find({"x"})->null_count, StatValue(StatNested{}));  // array: not walked
}

TEST(ParseAddStatsTest, IllTypedValuesAreUnknown) {
  auto s = ParseAddStats(
      R"({"numRecords":1.0,"tightBounds":"yes","minValues":[1],"maxValues":{"a":null}})");
  ASSERT_TRUE(s.has_value());
  EXPECT_FALSE(s->num_records.has_value());
  EXPECT_FALSE(s->tight_bounds.has_value());
  ASSERT_NE(s->Find({"a"}), nullptr);
  EXPECT_FALSE(s->Find({"a"})->min.has_value());  // minValues is not an object
  EXPECT_EQ(s->Find({"a"})->max, StatValue(StatNull{}));
  // Beyond int64: a double, never a wrapped integer.
  s = ParseAddStats(R"({"numRecords":18446744073709551615,"minValues":{"a":-5}})");
  ASSERT_TRUE(s.has_value());
  EXPECT_FALSE(s->num_records.has_value());
  EXPECT_EQ(ColumnStats::Int(s->Find({"a"})->min), -5);
}

TEST(ParseAddStatsTest, FirstOccurrenceWins) {
  auto s = ParseAddStats(
      R"({"numRecords":"x","numRecords":4,"minValues":{"a":1,"a":2,"b":{"c":1},"b":3},)"
      R"("minValues":{"z":1},"nullCount":{"a":"n","a":0}})");
  ASSERT_TRUE(s.has_value());
  EXPECT_FALSE(s->num_records.has_value());
  EXPECT_EQ(ColumnStats::Int(s->Find({"a"})->min), 1);
  EXPECT_EQ(s->Find({"b"})->min, StatValue(StatNested{}));
  EXPECT_EQ(ColumnStats::Int(s->Find({"b", "c"})->min), 1);
  EXPECT_EQ(s->Find({"z"}), nullptr);  // the repeated section is ignored
  EXPECT_FALSE(ColumnStats::Int(s->Find({"a"})->null_count).has_value());
}

TEST(ParseAddStatsTest, CorruptTextIsAnError) {
  for (const char* bad : {"", "{\"numRecords\":", "[1]", "5", "{\"a\":1} x", "{'a':1}"}) {
    auto s = ParseAddStats(bad);
    ASSERT_FALSE(s.has_value()) << bad;
    EXPECT_EQ(s.error().code, ErrorCode::kCorruptLog) << bad;
  }
  std::string deep =
      "{\"minValues\":" + std::string(1000, '[') + std::string(1000, ']') + "}";
  auto s = ParseAddStats(deep);
  ASSERT_FALSE(s.has_value());
  EXPECT_NE(s.error().message.find("deeper than 1000"), std::string::npos);
}

TEST(ParseAddStatsTest, NumRecordsScopeStopsThere) {
  // What follows numRecords is not read, so a truncated tail does not matter.
  auto s =
      ParseAddStats(R"({"numRecords":12,"minValues":{"a":)", StatsScope::kNumRecords);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->num_records, 12);
  EXPECT_TRUE(s->columns.empty());
  s = ParseAddStats(R"({"numRecords":{"a":1},"x":)", StatsScope::kNumRecords);
  ASSERT_TRUE(s.has_value());
  EXPECT_FALSE(s->num_records.has_value());
  s = ParseAddStats(R"({"minValues":{"a":1}})", StatsScope::kNumRecords);
  ASSERT_TRUE(s.has_value());
  EXPECT_FALSE(s->num_records.has_value());
  EXPECT_FALSE(ParseAddStats("{\"numRecords\":", StatsScope::kNumRecords).has_value());
}

}  // namespace
}  // namespace deltaguard
