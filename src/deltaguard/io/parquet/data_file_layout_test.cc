// DataFileWriter's layout decisions (data_file_layout_internal.h): the distinct-count
// estimate behind the dictionary choice, and the split of the last rows over the
// streams.

#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/record_batch.h>
#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "deltaguard/io/parquet/data_file_layout_internal.h"

namespace deltaguard::internal {
namespace {

TEST(EstimateDistinctTest, RecoversUniformPopulationsAndSaturates) {
  // 65,536 draws from 100,000 uniform values show about 48,070 distinct ones.
  EXPECT_NEAR(EstimateDistinct(65536, 48070, 1000000), 100000, 1500);
  // 65,536 draws from 1,000 values show all of them: a row group holds the same 1,000.
  EXPECT_NEAR(EstimateDistinct(65536, 1000, 1000000), 1000, 1);
  // Nothing repeats in the sample: no estimate beyond it (the 90% rule decides).
  EXPECT_EQ(EstimateDistinct(1000, 1000, 1000000), 1000);
  // The sample is the whole row group.
  EXPECT_EQ(EstimateDistinct(50000, 123, 50000), 123);
  EXPECT_EQ(EstimateDistinct(100, 0, 1000), 0);
}

int64_t Sum(const std::vector<int64_t>& v) {
  return std::accumulate(v.begin(), v.end(), 0L);
}

TEST(SplitLastRowsTest, EvenWhenNoRowGroupWasDealt) {
  EXPECT_EQ(SplitLastRows(0, 0, 200000, 2, 65536),
            (std::vector<int64_t>{100000, 100000}));
  EXPECT_EQ(Sum(SplitLastRows(0, 0, 200001, 3, 65536)), 200001);
  // Parts too small for a row group of their own: fewer streams share.
  EXPECT_EQ(SplitLastRows(0, 0, 150000, 3, 65536),
            (std::vector<int64_t>{75000, 75000, 0}));
  EXPECT_EQ(SplitLastRows(0, 0, 100000, 2, 65536), (std::vector<int64_t>{100000, 0}));
  EXPECT_EQ(SplitLastRows(0, 0, 200000, 1, 65536), (std::vector<int64_t>{200000}));
}

TEST(SplitLastRowsTest, TheStreamThatGotTheLastRowGroupGetsLess) {
  // Ten 1M-row row groups: stream 1 got the last (9), stream 0 is half a row group
  // ahead, so 500k rows all go to stream 0.
  EXPECT_EQ(SplitLastRows(10, 10000000, 500000, 2, 65536),
            (std::vector<int64_t>{500000, 0}));
  // 1.5M rows: stream 0 catches up with 500k, the other 1M is shared.
  EXPECT_EQ(SplitLastRows(10, 10000000, 1500000, 2, 65536),
            (std::vector<int64_t>{1000000, 500000}));
  // Three streams after 4 row groups (stream 0 got the last): streams 1 and 2 are 2/3
  // and 1/3 of a row group ahead of it.
  auto rows = SplitLastRows(4, 400000, 100000, 3, 10000);
  EXPECT_EQ(Sum(rows), 100000);
  EXPECT_EQ(rows[0], 0);
  EXPECT_GT(rows[1], rows[2]);
  // Nothing left: nothing to split.
  EXPECT_EQ(SplitLastRows(3, 300, 0, 2, 1), (std::vector<int64_t>{0, 0}));
}

// A dictionary-encoded STRING column is sampled by its values, not its indices: 1,000
// distinct values of 2 KB make a 2 MB dictionary (PLAIN), 1,000 distinct 4-byte
// indices would not.
TEST(WriterPropertiesForTest, DictionaryInputIsSampledByItsValues) {
  constexpr int64_t kRows = 64 * 1024;
  auto make = [](size_t value_size) {
    arrow::StringBuilder values;
    for (int v = 0; v < 1000; ++v) {
      std::string text = std::to_string(v);
      text.resize(value_size, 'x');
      EXPECT_TRUE(values.Append(text).ok());
    }
    arrow::Int32Builder indices;
    for (int64_t i = 0; i < kRows; ++i) {
      EXPECT_TRUE(indices.Append(static_cast<int32_t>(i % 1000)).ok());
    }
    auto dict = arrow::DictionaryArray::FromArrays(
        arrow::dictionary(arrow::int32(), arrow::utf8()), *indices.Finish(),
        *values.Finish());
    EXPECT_TRUE(dict.ok());
    return arrow::RecordBatch::Make(arrow::schema({arrow::field("s", (*dict)->type())}),
                                    kRows, {*dict});
  };
  auto path = parquet::schema::ColumnPath::FromDotString("s");
  auto long_values =
      WriterPropertiesFor(parquet::Compression::SNAPPY, *make(2048), kRows);
  EXPECT_FALSE(long_values->dictionary_enabled(path));
  auto short_values = WriterPropertiesFor(parquet::Compression::SNAPPY, *make(8), kRows);
  EXPECT_TRUE(short_values->dictionary_enabled(path));
}

}  // namespace
}  // namespace deltaguard::internal
