// The packed-key sort (query_sort.cc) against Arrow's stable multi-key sort, on inputs
// large enough for its radix passes and both threads.

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <gtest/gtest.h>

#include <random>

#include "deltaguard/io/parquet/parquet_file.h"
#include "deltaguard/sql/query_internal.h"

namespace deltaguard::query_internal {
namespace {

std::shared_ptr<arrow::Array> Ints(const std::vector<int64_t>& v,
                                   const std::shared_ptr<arrow::DataType>& type) {
  arrow::Int64Builder b;
  EXPECT_TRUE(b.AppendValues(v).ok());
  auto a = b.Finish().ValueOrDie();
  if (type->id() == arrow::Type::DATE32) {  // no direct cast: through int32
    a = arrow::compute::Cast(a, arrow::int32()).ValueOrDie().make_array();
    auto data = a->data()->Copy();
    data->type = type;
    return arrow::MakeArray(data);
  }
  return arrow::compute::Cast(a, type).ValueOrDie().make_array();
}

std::vector<uint64_t> ArrowOrder(const std::shared_ptr<arrow::Table>& t,
                                 const std::vector<SortKeySpec>& keys) {
  std::vector<arrow::compute::SortKey> sort_keys;
  for (const auto& k : keys) {
    sort_keys.emplace_back(arrow::FieldRef(k.column),
                           k.descending ? arrow::compute::SortOrder::Descending
                                        : arrow::compute::SortOrder::Ascending);
  }
  auto idx =
      arrow::compute::SortIndices(t, arrow::compute::SortOptions(sort_keys)).ValueOrDie();
  const auto& u = static_cast<const arrow::UInt64Array&>(*idx);
  return {u.raw_values(), u.raw_values() + u.length()};
}

TEST(PackedSortTest, MatchesArrowsStableSortOnLargeInputs) {
  ASSERT_TRUE(InitializeArrowCompute());
  std::mt19937_64 rng(23);
  const int64_t n = 300000;
  struct Case {
    int64_t key_range, second_range;
    std::shared_ptr<arrow::DataType> first, second;
    bool desc_first, desc_second;
  };
  // Dense and sparse first keys (radix passes over different bit widths), negative
  // values, ties decided by the second key or by the row, DESC either way, a constant
  // first key (the second word sorts).
  const std::vector<Case> cases = {
      {1'100'000, 365, arrow::int32(), arrow::int32(), false, false},
      {50, 1'000'000'000'000, arrow::int16(), arrow::int64(), true, false},
      {INT64_MAX / 4, 3, arrow::int64(), arrow::int8(), false, true},
      {1, 100000, arrow::date32(), arrow::int32(), false, false},
      {3, 2, arrow::int8(), arrow::int8(), true, true},
  };
  for (const auto& c : cases) {
    std::vector<int64_t> a(n), b(n);
    for (int64_t i = 0; i < n; ++i) {
      a[i] = static_cast<int64_t>(rng() % static_cast<uint64_t>(c.key_range)) -
             c.key_range / 2;
      b[i] = static_cast<int64_t>(rng() % static_cast<uint64_t>(c.second_range)) -
             c.second_range / 3;
    }
    auto table = arrow::Table::Make(
        arrow::schema({arrow::field("a", c.first), arrow::field("b", c.second)}),
        {Ints(a, c.first), Ints(b, c.second)});
    std::vector<SortKeySpec> keys = {{0, c.desc_first, !c.desc_first},
                                     {1, c.desc_second, !c.desc_second}};
    auto packed = PackedSortIndices(table, keys);
    ASSERT_TRUE(packed) << packed.error().ToString();
    ASSERT_NE(*packed, nullptr) << c.first->ToString();
    const auto& u = static_cast<const arrow::UInt64Array&>(**packed);
    std::vector<uint64_t> ours(u.raw_values(), u.raw_values() + u.length());
    EXPECT_EQ(ours, ArrowOrder(table, keys)) << c.first->ToString() << " " << c.key_range;
  }
}

}  // namespace
}  // namespace deltaguard::query_internal
