// IntegralKeyIndex (merge_internal.h): dense (bitmap + ranks) and sparse (hash) key
// sets find the same first rows and chains; NULLs and keys out of range miss.

#include <arrow/array/builder_primitive.h>
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "deltaguard/dml/dml_internal.h"
#include "deltaguard/dml/merge_internal.h"
#include "testing/test_util.h"

namespace deltaguard::dml_internal {
namespace {

// Every row with key `value`, in chain order, as Match() walks it.
std::vector<int64_t> Rows(const IntegralKeyIndex& index, const std::vector<int64_t>& next,
                          int64_t value) {
  std::vector<int64_t> out;
  const int64_t found = index.Find(value);
  if (found < 0) return out;
  int64_t s = found & ~IntegralKeyIndex::kMore;
  out.push_back(s);
  if (found & IntegralKeyIndex::kMore) {
    for (s = next[static_cast<size_t>(s)]; s >= 0; s = next[static_cast<size_t>(s)]) {
      out.push_back(s);
    }
  }
  return out;
}

// Checks the index of `keys` (nullopt = NULL) against a map of key -> rows in order.
void Check(const std::vector<std::optional<int64_t>>& keys,
           const std::vector<int64_t>& probes) {
  arrow::Int64Builder builder;
  std::map<int64_t, std::vector<int64_t>> expected;
  for (size_t r = 0; r < keys.size(); ++r) {
    if (keys[r]) {
      ASSERT_TRUE(builder.Append(*keys[r]).ok());
      expected[*keys[r]].push_back(static_cast<int64_t>(r));
    } else {
      ASSERT_TRUE(builder.AppendNull().ok());
    }
  }
  std::shared_ptr<arrow::Array> column;
  ASSERT_TRUE(builder.Finish(&column).ok());
  IntegralKeyIndex index;
  std::vector<int64_t> next;
  index.Build(*column, &next);
  for (const auto& [key, rows] : expected) EXPECT_EQ(Rows(index, next, key), rows) << key;
  for (int64_t p : probes) {
    auto it = expected.find(p);
    EXPECT_EQ(Rows(index, next, p),
              it == expected.end() ? std::vector<int64_t>{} : it->second)
        << p;
  }
}

TEST(IntegralKeyIndexTest, DenseKeysFindFirstRowsAndChains) {
  // Keys 100..199 with gaps and duplicates: a dense range (bitmap path).
  std::vector<std::optional<int64_t>> keys;
  for (int64_t i = 0; i < 300; ++i) {
    if (i % 7 == 0) {
      keys.push_back(std::nullopt);
    } else {
      keys.push_back(100 + (i * 37) % 100);
    }
  }
  keys.push_back(199);
  keys.push_back(100);
  Check(keys, {-5, 0, 99, 100, 150, 199, 200, 1000, INT64_MIN, INT64_MAX});
}

TEST(IntegralKeyIndexTest, SparseKeysUseTheHashTableWithTheSameResults) {
  std::mt19937_64 rng(7);
  std::vector<std::optional<int64_t>> keys;
  std::vector<int64_t> probes = {0, -1, INT64_MIN, INT64_MAX};
  for (int i = 0; i < 2000; ++i) {
    const auto v = static_cast<int64_t>(rng());  // spread over the whole int64 range
    keys.push_back(v);
    if (i % 3 == 0) keys.push_back(v);  // a duplicate later
    if (i % 11 == 0) keys.push_back(std::nullopt);
    probes.push_back(v + 1);
  }
  keys.push_back(INT64_MIN);
  keys.push_back(INT64_MAX);
  Check(keys, probes);
}

TEST(IntegralKeyIndexTest, NegativeAndExtremeDenseRangesAndEmptyColumns) {
  Check({-3, -1, -3, std::nullopt, -2}, {-4, -3, -2, -1, 0});
  Check({INT64_MAX - 2, INT64_MAX, INT64_MAX}, {INT64_MAX - 1, INT64_MAX, INT64_MAX - 2});
  Check({INT64_MIN, INT64_MIN + 1}, {INT64_MIN, INT64_MIN + 1, INT64_MIN + 2});
  Check({}, {0, 1});
  Check({std::nullopt, std::nullopt}, {0});
}

// TakeRows gathers every column at the same rows; -1 gives NULL in every column.
TEST(TakeRowsTest, GathersColumnsAndMissingRowsAreNull) {
  using deltaguard::testing::ArrayFromJson;
  auto batch =
      arrow::RecordBatch::Make(arrow::schema({arrow::field("i", arrow::int64()),
                                              arrow::field("s", arrow::utf8())}),
                               3,
                               {ArrayFromJson(arrow::int64(), "[10, null, 30]"),
                                ArrayFromJson(arrow::utf8(), R"(["a", "b", "c"])")});
  auto all = TakeRows(*batch, {2, 0, 2});
  ASSERT_TRUE(all) << all.error().ToString();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_TRUE((*all)[0]->Equals(*ArrayFromJson(arrow::int64(), "[30, 10, 30]")));
  EXPECT_TRUE((*all)[1]->Equals(*ArrayFromJson(arrow::utf8(), R"(["c", "a", "c"])")));
  auto some = TakeRows(*batch, {-1, 1, 0, -1});
  ASSERT_TRUE(some) << some.error().ToString();
  EXPECT_TRUE(
      (*some)[0]->Equals(*ArrayFromJson(arrow::int64(), "[null, null, 10, null]")))
      << (*some)[0]->ToString();
  EXPECT_TRUE(
      (*some)[1]->Equals(*ArrayFromJson(arrow::utf8(), R"([null, "b", "a", null])")));
  auto none = TakeRows(*batch, {});
  ASSERT_TRUE(none);
  EXPECT_EQ((*none)[1]->length(), 0);
}

// FileMayMatch reads add.stats: only integral min/max prune; corrupt or ill-typed stats
// never prune (the file is read, as Spark would).
TEST(FileMayMatchTest, StatsPruneOnlyWhenCertain) {
  StructField id{"id", nullptr};
  const KeyRange range{10, 20};
  auto may = [&](const char* stats) {
    AddFile f;
    f.stats = stats;
    return FileMayMatch(f, id, false, ColumnMappingMode::kNone, range);
  };
  EXPECT_TRUE(may(R"({"numRecords":2,"minValues":{"id":5},"maxValues":{"id":10}})"));
  EXPECT_FALSE(may(R"({"numRecords":2,"minValues":{"id":21},"maxValues":{"id":30}})"));
  EXPECT_FALSE(may(R"({"numRecords":2,"minValues":{"id":1},"maxValues":{"id":9}})"));
  EXPECT_TRUE(may(R"({"numRecords":2,"minValues":{"id":1.5},"maxValues":{"id":9}})"));
  EXPECT_TRUE(may(R"({"numRecords":2,"minValues":{"id":1},"maxValues":{"id":9})"));
  EXPECT_TRUE(may(R"({"numRecords":2,"minValues":{"id":1},"maxValues":{"id":9}} x)"));
  // All NULL (no bounds, nullCount == numRecords) cannot match; anything less can.
  EXPECT_FALSE(may(R"({"numRecords":2,"nullCount":{"id":2}})"));
  EXPECT_TRUE(may(R"({"numRecords":3,"nullCount":{"id":2}})"));
  EXPECT_TRUE(may(R"({"nullCount":{"id":2}})"));
  // A bound that is present but not an integer (here an object) keeps the file.
  EXPECT_TRUE(may(R"({"numRecords":2,"minValues":{"id":{"x":1}},"nullCount":{"id":2}})"));
  EXPECT_TRUE(may(R"({"numRecords":2,"maxValues":{"id":null},"nullCount":{"id":2}})"));
  // The first of repeated keys wins.
  EXPECT_FALSE(
      may(R"({"numRecords":2,"minValues":{"id":1,"id":15},"maxValues":{"id":9}})"));
  AddFile no_stats;
  EXPECT_TRUE(FileMayMatch(no_stats, id, false, ColumnMappingMode::kNone, range));
  EXPECT_FALSE(FileMayMatch(no_stats, id, false, ColumnMappingMode::kNone, std::nullopt));
}

}  // namespace
}  // namespace deltaguard::dml_internal
