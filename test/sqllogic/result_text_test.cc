#include "sqllogic/result_text.h"

#include <arrow/api.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace deltaguard::sqllogic {
namespace {

std::shared_ptr<arrow::Table> SampleTable() {
  arrow::Int64Builder ids;
  EXPECT_TRUE(ids.AppendValues({2, 1}).ok());
  EXPECT_TRUE(ids.AppendNull().ok());
  arrow::StringBuilder names;
  EXPECT_TRUE(names.Append("b").ok());
  EXPECT_TRUE(names.Append("").ok());
  EXPECT_TRUE(names.AppendNull().ok());
  auto schema = arrow::schema(
      {arrow::field("id", arrow::int64()), arrow::field("name", arrow::utf8())});
  return arrow::Table::Make(schema,
                            {ids.Finish().ValueOrDie(), names.Finish().ValueOrDie()});
}

Record Query(std::string types, SortMode sort) {
  Record r;
  r.kind = Record::Kind::kQuery;
  r.types = std::move(types);
  r.sort = sort;
  return r;
}

TEST(RenderRows, NullAndEmptyString) {
  auto rows = RenderRows(*SampleTable());
  ASSERT_TRUE(rows.has_value());
  EXPECT_EQ(*rows, (TextRows{{"2", "b"}, {"1", "(empty)"}, {"NULL", "NULL"}}));
  EXPECT_EQ(FormatRows(*rows), "2\tb\n1\t(empty)\nNULL\tNULL\n");
}

TEST(CompareQueryResult, NoSortNeedsOrder) {
  TextRows actual{{"2", "b"}, {"1", "a"}};
  EXPECT_FALSE(
      CompareQueryResult(Query("IT", SortMode::kNoSort), {"2\tb", "1\ta"}, 2, actual));
  auto diff =
      CompareQueryResult(Query("IT", SortMode::kNoSort), {"1\ta", "2\tb"}, 2, actual);
  ASSERT_TRUE(diff);
  EXPECT_THAT(*diff, HasSubstr("row 1 differs"));
  EXPECT_THAT(*diff, HasSubstr("expected:\n1\ta\n2\tb\nactual:\n2\tb\n1\ta\n"));
}

TEST(CompareQueryResult, RowSortSortsBoth) {
  TextRows actual{{"2", "b"}, {"1", "a"}};
  EXPECT_FALSE(
      CompareQueryResult(Query("IT", SortMode::kRowSort), {"1\ta", "2\tb"}, 2, actual));
  EXPECT_TRUE(
      CompareQueryResult(Query("IT", SortMode::kRowSort), {"1\tb", "2\ta"}, 2, actual));
}

TEST(CompareQueryResult, ValueSortSortsValues) {
  TextRows actual{{"2", "b"}, {"1", "a"}};
  // Value-sorted, the rows are (1, 2), (a, b): any layout with the same values matches.
  EXPECT_FALSE(
      CompareQueryResult(Query("IT", SortMode::kValueSort), {"a\t1", "b\t2"}, 2, actual));
  EXPECT_TRUE(
      CompareQueryResult(Query("IT", SortMode::kValueSort), {"a\t1", "c\t2"}, 2, actual));
}

TEST(CompareQueryResult, OneValuePerLine) {
  TextRows actual{{"1", "a"}, {"2", "b"}};
  EXPECT_FALSE(CompareQueryResult(Query("IT", SortMode::kNoSort), {"1", "a", "2", "b"}, 2,
                                  actual));
}

TEST(CompareQueryResult, TypeCountMustMatchColumns) {
  auto diff =
      CompareQueryResult(Query("I", SortMode::kNoSort), {"1\ta"}, 2, {{"1", "a"}});
  ASSERT_TRUE(diff);
  EXPECT_THAT(*diff, HasSubstr("declares 1 column(s) ('I') but the result has 2"));
}

TEST(CompareQueryResult, RowCountDiffers) {
  auto diff = CompareQueryResult(Query("I", SortMode::kNoSort), {"1", "2"}, 1, {{"1"}});
  ASSERT_TRUE(diff);
  EXPECT_THAT(*diff, HasSubstr("expected 2 row(s) but got 1"));
}

TEST(CompareQueryResult, MalformedExpectedRows) {
  auto diff =
      CompareQueryResult(Query("IT", SortMode::kNoSort), {"1\ta\tx"}, 2, {{"1", "a"}});
  ASSERT_TRUE(diff);
  EXPECT_THAT(*diff, HasSubstr("do not have 2 tab-separated values"));
}

TEST(CompareQueryResult, RegexValues) {
  TextRows actual{{"0", "2024-05-01 10:11:12.123"}};
  EXPECT_FALSE(CompareQueryResult(Query("IT", SortMode::kNoSort),
                                  {"0\t<REGEX>:2024-\\d\\d-.*"}, 2, actual));
  EXPECT_TRUE(CompareQueryResult(Query("IT", SortMode::kNoSort), {"0\t<REGEX>:2025.*"}, 2,
                                 actual));
  // The pattern must match the whole value.
  EXPECT_TRUE(
      CompareQueryResult(Query("IT", SortMode::kNoSort), {"0\t<REGEX>:2024"}, 2, actual));
}

TEST(CompareQueryResult, EmptyResult) {
  EXPECT_FALSE(CompareQueryResult(Query("I", SortMode::kNoSort), {}, 1, {}));
}

}  // namespace
}  // namespace deltaguard::sqllogic
