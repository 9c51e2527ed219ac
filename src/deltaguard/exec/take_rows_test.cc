#include "deltaguard/exec/take_rows.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/json/from_string.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace deltaguard {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<arrow::Array> FromJson(const std::shared_ptr<arrow::DataType>& type,
                                       const std::string& json) {
  return arrow::json::ArrayFromJSONString(type, json).ValueOrDie();
}

// Arrow's Take with the same positions, -1 as a NULL index: what TakeRows must equal.
std::shared_ptr<arrow::Array> Expected(const std::shared_ptr<arrow::Array>& values,
                                       const std::vector<int64_t>& rows) {
  arrow::Int64Builder b;
  for (const int64_t r : rows) {
    EXPECT_TRUE((r < 0 ? b.AppendNull() : b.Append(r)).ok());
  }
  auto idx = b.Finish().ValueOrDie();
  return arrow::compute::Take(values, idx).ValueOrDie().make_array();
}

void ExpectSame(const std::shared_ptr<arrow::Array>& values,
                const std::vector<int64_t>& rows) {
  auto got = TakeRows(values, rows);
  ASSERT_TRUE(got.has_value()) << got.error().ToString();
  ASSERT_TRUE((*got)->ValidateFull().ok());
  const auto want = Expected(values, rows);
  EXPECT_TRUE((*got)->Equals(*want, arrow::EqualOptions().nans_equal(true)))
      << values->type()->ToString() << "\n got " << (*got)->ToString() << "\n want "
      << want->ToString();
  EXPECT_EQ((*got)->null_count(), want->null_count());
}

// Columns of every path: fixed widths 1 to 16 bytes, strings short and long, binary,
// large strings, and types that go through Arrow (boolean, list, struct).
std::vector<std::shared_ptr<arrow::Array>> Columns() {
  return {
      FromJson(arrow::int8(), "[1, null, -3, 4, 5, null, 7]"),
      FromJson(arrow::int16(), "[100, 200, null, 400, 500, 600, 700]"),
      FromJson(arrow::int32(), "[1, 2, 3, null, 5, 6, 7]"),
      FromJson(arrow::int64(), "[10, 20, 30, 40, null, 60, 70]"),
      FromJson(arrow::float64(), "[1.5, null, 2.5, 3.5, 4.5, 5.5, NaN]"),
      FromJson(arrow::date32(), "[0, 1, 2, null, 4, 5, 6]"),
      FromJson(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
               "[0, 1, 2, 3, 4, 5, null]"),
      FromJson(arrow::decimal128(20, 2), R"(["1.00", null, "-2.50", "3.25", "4.00",
               "5.55", "123456789012345678.90"])"),
      FromJson(arrow::fixed_size_binary(3), R"(["abc", "def", null, "ghi", "jkl", "mno",
               "pqr"])"),
      FromJson(arrow::utf8(), R"(["a", null, "", "a string longer than sixteen bytes",
               "east", "west", "é"])"),
      FromJson(arrow::binary(), R"(["x", "yy", null, "zzz", "", "0123456789abcdefXYZ",
               "q"])"),
      FromJson(arrow::large_utf8(), R"(["l1", "l2", null, "l4", "l5", "l6", "l7"])"),
      FromJson(arrow::boolean(), "[true, false, null, true, true, false, null]"),
      FromJson(arrow::list(arrow::int32()), "[[1], null, [], [2, 3], [4], [5], [6]]"),
      FromJson(
          arrow::struct_({arrow::field("a", arrow::int32())}),
          R"([{"a": 1}, null, {"a": 3}, {"a": null}, {"a": 5}, {"a": 6}, {"a": 7}])"),
  };
}

TEST(TakeRowsTest, EqualsArrowTakeForEveryPath) {
  const std::vector<std::vector<int64_t>> positions = {
      {6, 0, 3, 3, -1, 1, 2, 5, 4, -1}, {1, 1, 1}, {-1, -1}, {}, {4, 3, 2, 1, 0},
  };
  for (const auto& c : Columns()) {
    for (const auto& rows : positions) ExpectSame(c, rows);
  }
}

TEST(TakeRowsTest, SlicedInputsReadFromTheirOffset) {
  for (const auto& c : Columns()) {
    const auto sliced = c->Slice(2, 4);
    ExpectSame(sliced, {3, 0, -1, 2, 1, 1});
    ExpectSame(sliced, {0, 1, 2, 3});
  }
}

TEST(TakeRowsTest, IdentityAndRunsShareTheInput) {
  const auto c = FromJson(arrow::utf8(), R"(["a", "b", null, "d"])");
  auto same = TakeRows(c, std::vector<int64_t>{0, 1, 2, 3});
  ASSERT_TRUE(same.has_value());
  EXPECT_EQ(same->get(), c.get());
  auto run = TakeRows(c, std::vector<int64_t>{1, 2});
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ((*run)->data()->buffers[2], c->data()->buffers[2]);  // a slice, no copy
  ExpectSame(c, {1, 2});
  // A run that contains a NULL position is not a slice.
  ExpectSame(c, {0, -1});
}

TEST(TakeRowsTest, RandomPositionsOverManyRows) {
  std::mt19937_64 rng(23);
  arrow::StringBuilder s;
  arrow::Int64Builder i;
  for (int k = 0; k < 5000; ++k) {
    const bool null = rng() % 11 == 0;
    ASSERT_TRUE(
        (null ? s.AppendNull() : s.Append(std::string(rng() % 40, 'a' + k % 26))).ok());
    ASSERT_TRUE((null ? i.AppendNull() : i.Append(static_cast<int64_t>(rng()))).ok());
  }
  const auto strings = s.Finish().ValueOrDie();
  const auto ints = i.Finish().ValueOrDie();
  std::vector<int64_t> rows(20000);
  for (auto& r : rows) r = static_cast<int64_t>(rng() % 5001) - 1;
  ExpectSame(strings, rows);
  ExpectSame(ints, rows);
}

TEST(TakeRowsTest, PositionOutsideTheArrayIsAnError) {
  const auto c = FromJson(arrow::int32(), "[1, 2, 3]");
  for (const std::vector<int64_t>& rows :
       {std::vector<int64_t>{0, 3}, std::vector<int64_t>{-2}}) {
    auto got = TakeRows(c, rows);
    ASSERT_FALSE(got.has_value());
    EXPECT_THAT(got.error().ToString(),
                HasSubstr("outside the 3 rows of a int32 column"));
  }
}

}  // namespace
}  // namespace deltaguard
