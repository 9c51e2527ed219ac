#include "deltaguard/exec/char_varchar_check.h"

#include <arrow/array.h>
#include <arrow/compute/api.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "deltaguard/exec/constraint_checker.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

std::vector<CharVarcharLimit> Limits(const SchemaRef& schema) {
  auto limits = CharVarcharLimits(*schema);
  EXPECT_TRUE(limits) << limits.error().ToString();
  return limits ? *limits : std::vector<CharVarcharLimit>{};
}

std::vector<int> Marked(const TooLongRows& rows) {
  return std::vector<int>(rows.rows.begin(), rows.rows.end());
}

TEST(CharVarcharCheckTest, TopLevelCountsCodePointsAndSkipsNulls) {
  auto schema = Ddl("c CHAR(3), v VARCHAR(2)");
  auto batch = Rows(schema, R"([
    {"c": "abc", "v": "éé"},
    {"c": "abcd", "v": null},
    {"c": null, "v": "€€€"},
    {"c": "ab ", "v": "x "},
    {"c": "ab  ", "v": ""}
  ])");
  auto limits = Limits(schema);
  ASSERT_EQ(limits.size(), 2u);
  auto c = FindTooLong(limits[0], *batch);
  ASSERT_TRUE(c) << c.error().ToString();
  // Trailing spaces count, as in Spark's length(c) <= n check.
  EXPECT_EQ(Marked(*c), (std::vector<int>{0, 1, 0, 0, 1}));
  EXPECT_EQ(c->count, 2);
  EXPECT_EQ(c->longest, 4);
  auto v = FindTooLong(limits[1], *batch);
  ASSERT_TRUE(v) << v.error().ToString();
  // "éé" is 4 bytes but 2 code points; "€€€" is 3 code points.
  EXPECT_EQ(Marked(*v), (std::vector<int>{0, 0, 1, 0, 0}));
  EXPECT_EQ(v->longest, 3);
}

TEST(CharVarcharCheckTest, NestedStructArrayAndMapLeaves) {
  auto schema =
      Ddl("s STRUCT<x: VARCHAR(2), y: INT>, a ARRAY<VARCHAR(2)>, "
          "m MAP<CHAR(1), VARCHAR(2)>");
  auto batch = Rows(schema, R"([
    {"s": {"x": "ok", "y": 1}, "a": ["a", null, "bb"], "m": [["k", "vv"]]},
    {"s": {"x": "long", "y": 2}, "a": null, "m": null},
    {"s": null, "a": ["a", "abc"], "m": [["kk", "v"]]},
    {"s": {"x": null, "y": 3}, "a": [], "m": [["k", "vvv"], ["j", null]]}
  ])");
  auto limits = Limits(schema);
  ASSERT_EQ(limits.size(), 4u);
  EXPECT_EQ(limits[0].Path(), "s.x");
  EXPECT_EQ(limits[1].Path(), "a.element");
  EXPECT_EQ(limits[2].Path(), "m.key");
  EXPECT_EQ(limits[3].Path(), "m.value");
  std::vector<std::vector<int>> expected = {
      {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
  for (size_t i = 0; i < limits.size(); ++i) {
    auto rows = FindTooLong(limits[i], *batch);
    ASSERT_TRUE(rows) << rows.error().ToString();
    EXPECT_EQ(Marked(*rows), expected[i]) << limits[i].Path();
  }
  // A slice keeps the row numbering of the slice (offsets of lists and structs).
  auto sliced = batch->Slice(1, 3);
  auto rows = FindTooLong(limits[1], *sliced);
  ASSERT_TRUE(rows) << rows.error().ToString();
  EXPECT_EQ(Marked(*rows), (std::vector<int>{0, 1, 0}));
  rows = FindTooLong(limits[0], *sliced);
  ASSERT_TRUE(rows) << rows.error().ToString();
  EXPECT_EQ(Marked(*rows), (std::vector<int>{1, 0, 0}));
}

TEST(CharVarcharCheckTest, MissingColumnLimitsNothingAndWrongTypeIsAnError) {
  auto schema = Ddl("v VARCHAR(2)");
  auto limits = Limits(schema);
  auto other = Rows(Ddl("w STRING"), R"([{"w": "long value"}])");
  auto rows = FindTooLong(limits[0], *other);
  ASSERT_TRUE(rows) << rows.error().ToString();
  EXPECT_EQ(rows->count, 0);
  EXPECT_EQ(rows->rows.size(), 1u);
  auto ints = Rows(Ddl("v INT"), R"([{"v": 12345}])");
  auto wrong = FindTooLong(limits[0], *ints);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_NE(wrong.error().message.find("column v"), std::string::npos)
      << wrong.error().message;
}

TEST(CharVarcharCheckTest, LargeStringsAreChecked) {
  auto limits = Limits(Ddl("v VARCHAR(1)"));
  auto array = arrow::json::ArrayFromJSONString(arrow::large_utf8(), R"(["a", "bc"])");
  ASSERT_TRUE(array.ok());
  auto batch = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("V", arrow::large_utf8())}), 2, {*array});
  auto rows = FindTooLong(limits[0], *batch);
  ASSERT_TRUE(rows) << rows.error().ToString();
  EXPECT_EQ(Marked(*rows), (std::vector<int>{0, 1}));
}

TEST(CharVarcharCheckTest, CheckerFailsNamingColumnLimitAndWayOut) {
  auto schema = Ddl("id INT, v VARCHAR(3)");
  auto checker = ConstraintChecker::Make(Metadata(), *schema, "silver.customers");
  ASSERT_TRUE(checker) << checker.error().ToString();
  EXPECT_FALSE(checker->empty());
  auto ok = Rows(schema, R"([{"id": 1, "v": "abc"}, {"id": 2, "v": null}])");
  EXPECT_TRUE(checker->Check(*ok));
  auto bad = Rows(schema, R"([{"id": 1, "v": "abcd"}, {"id": 2, "v": "abcdef"}])");
  auto st = checker->Check(*bad);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::kConstraintViolation);
  const std::string& m = st.error().message;
  for (const char* part :
       {"DELTA_EXCEED_CHAR_VARCHAR_LIMIT", "table 'silver.customers'",
        "column v is varchar(3)", "2 rows", "up to 6 characters", "{v: \"abcd\"}",
        "((v IS NULL) OR (length(v) <= 3))", "never truncated",
        "ALTER TABLE silver.customers ALTER COLUMN v TYPE VARCHAR(6)"}) {
    EXPECT_NE(m.find(part), std::string::npos) << part << " in " << m;
  }
  auto first = checker->FirstViolation(*bad);
  ASSERT_TRUE(first) << first.error().ToString();
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ((*first)->constraint, kReservedConstraintName);
  EXPECT_EQ((*first)->count, 2);
}

TEST(CharVarcharCheckTest, SplitRoutesTooLongRowsAfterCheckConstraints) {
  auto schema = Ddl("id INT, v VARCHAR(2)");
  Metadata metadata;
  metadata.configuration = {{"delta.constraints.positive", "id > 0"}};
  auto checker = ConstraintChecker::Make(metadata, *schema, "t");
  ASSERT_TRUE(checker) << checker.error().ToString();
  auto batch = Rows(schema, R"([
    {"id": 1, "v": "ok"}, {"id": -1, "v": "long"}, {"id": 2, "v": "long"}
  ])");
  auto split = checker->Split(batch, 0);
  ASSERT_TRUE(split) << split.error().ToString();
  EXPECT_EQ(split->good->num_rows(), 1);
  ASSERT_EQ(split->num_violating, 2);
  auto names = std::static_pointer_cast<arrow::StringArray>(
      split->violating->GetColumnByName("_violated_constraint"));
  ASSERT_NE(names, nullptr);
  EXPECT_EQ(names->GetString(0), "CHECK constraint positive");
  EXPECT_EQ(names->GetString(1), "length of column v varchar(2)");
}

}  // namespace
}  // namespace deltaguard
