// The packed-key sort (query_sort_packed.cc) against Arrow's stable multi-key sort, on
// inputs large enough for its radix passes and both threads.

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
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

// Keys with NULLs, placed first or last per key, against a stable sort written out
// here; also the partition and peer boundaries of the sorted codes. The cases cover the
// three entry widths: codes and row in one word, codes in one word beside the row, and
// codes over two words.
TEST(PackedSortTest, NullsAndBoundariesMatchAStableSort) {
  ASSERT_TRUE(InitializeArrowCompute());
  std::mt19937_64 rng(7);
  const int64_t n = 200000;
  struct Case {
    int64_t range_a, range_b;
    std::shared_ptr<arrow::DataType> type_a, type_b;
    bool desc_a, nulls_first_a, desc_b, nulls_first_b;
  };
  const std::vector<Case> cases = {
      {1000, 4, arrow::int32(), arrow::int8(), false, true, true, false},
      {INT64_MAX / 2, 10, arrow::int64(), arrow::int32(), true, false, false, true},
      {INT64_MAX / 2, INT64_MAX / 2, arrow::int64(),
       arrow::timestamp(arrow::TimeUnit::MICRO), false, false, true, true},
      {1, 1, arrow::int16(), arrow::int16(), false, true, false, false},
  };
  for (const auto& c : cases) {
    std::vector<std::optional<int64_t>> a(n), b(n);
    auto draw = [&](int64_t range) -> std::optional<int64_t> {
      if (rng() % 10 == 0) return std::nullopt;
      return static_cast<int64_t>(rng() % static_cast<uint64_t>(range)) - range / 2;
    };
    for (int64_t i = 0; i < n; ++i) {
      a[i] = draw(c.range_a);
      b[i] = draw(c.range_b);
    }
    auto build = [](const std::vector<std::optional<int64_t>>& v,
                    const std::shared_ptr<arrow::DataType>& type) {
      arrow::Int64Builder builder;
      for (const auto& x : v) {
        EXPECT_TRUE((x ? builder.Append(*x) : builder.AppendNull()).ok());
      }
      auto data = builder.Finish().ValueOrDie()->data()->Copy();
      if (type->id() == arrow::Type::INT64 || type->id() == arrow::Type::TIMESTAMP) {
        data->type = type;
        return arrow::MakeArray(data);
      }
      return arrow::compute::Cast(arrow::MakeArray(data), type).ValueOrDie().make_array();
    };
    auto table = arrow::Table::Make(
        arrow::schema({arrow::field("a", c.type_a), arrow::field("b", c.type_b)}),
        {build(a, c.type_a), build(b, c.type_b)});
    std::vector<SortKeySpec> keys = {{0, c.desc_a, c.nulls_first_a},
                                     {1, c.desc_b, c.nulls_first_b}};
    // -1, 0, 1 in the key's order.
    auto compare = [](const std::optional<int64_t>& x, const std::optional<int64_t>& y,
                      const SortKeySpec& k) {
      if (!x || !y) {
        if (!x && !y) return 0;
        return (!x) == k.nulls_first ? -1 : 1;
      }
      if (*x == *y) return 0;
      return (*x < *y) != k.descending ? -1 : 1;
    };
    std::vector<uint64_t> want(n);
    for (int64_t i = 0; i < n; ++i) want[i] = static_cast<uint64_t>(i);
    std::stable_sort(want.begin(), want.end(), [&](uint64_t x, uint64_t y) {
      int r = compare(a[x], a[y], keys[0]);
      if (r == 0) r = compare(b[x], b[y], keys[1]);
      return r < 0;
    });
    std::vector<int64_t> want_leading, want_all;
    for (int64_t i = 0; i < n; ++i) {
      const bool new_a = i == 0 || compare(a[want[i - 1]], a[want[i]], keys[0]) != 0;
      const bool new_b = i == 0 || compare(b[want[i - 1]], b[want[i]], keys[1]) != 0;
      if (new_a) want_leading.push_back(i);
      if (new_a || new_b) want_all.push_back(i);
    }
    want_leading.push_back(n);
    want_all.push_back(n);

    SortBoundaries bounds;
    auto packed = PackedSortIndices(table, keys, 1, &bounds);
    ASSERT_TRUE(packed) << packed.error().ToString();
    ASSERT_NE(*packed, nullptr) << c.type_a->ToString();
    const auto& u = static_cast<const arrow::UInt64Array&>(**packed);
    std::vector<uint64_t> ours(u.raw_values(), u.raw_values() + u.length());
    EXPECT_EQ(ours, want) << c.type_a->ToString() << " " << c.range_a;
    EXPECT_EQ(bounds.leading, want_leading) << c.range_a;
    EXPECT_EQ(bounds.all, want_all) << c.range_a;
  }
}

// Keys that cannot pack (strings; two full 64-bit ranges and a third key) fall back.
TEST(PackedSortTest, KeysThatDoNotPackFallBack) {
  arrow::StringBuilder sb;
  ASSERT_TRUE(sb.AppendValues({"b", "a"}).ok());
  auto strings = arrow::Table::Make(arrow::schema({arrow::field("s", arrow::utf8())}),
                                    {sb.Finish().ValueOrDie()});
  auto r = PackedSortIndices(strings, {{0, false, true}});
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, nullptr);
  auto wide = Ints({INT64_MIN, INT64_MAX}, arrow::int64());
  auto three = arrow::Table::Make(
      arrow::schema({arrow::field("a", arrow::int64()), arrow::field("b", arrow::int64()),
                     arrow::field("c", arrow::int64())}),
      {wide, wide, wide});
  r = PackedSortIndices(three, {{0, false, true}, {1, false, true}, {2, false, true}});
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, nullptr);
}

}  // namespace
}  // namespace deltaguard::query_internal
