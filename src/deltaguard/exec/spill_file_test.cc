#include "deltaguard/exec/spill_file.h"

#include <arrow/api.h>
#include <arrow/json/from_string.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "deltaguard/exec/expr_eval.h"
#include "deltaguard/exec/query_memory.h"
#include "deltaguard/exec/spill_partitions.h"

namespace deltaguard {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<arrow::Schema> Schema() {
  return arrow::schema(
      {arrow::field("k", arrow::int64()), arrow::field("v", arrow::utf8())});
}

std::shared_ptr<arrow::RecordBatch> Batch(int64_t from, int64_t n) {
  arrow::Int64Builder k;
  arrow::StringBuilder v;
  for (int64_t i = from; i < from + n; ++i) {
    EXPECT_TRUE(k.Append(i % 10).ok());
    EXPECT_TRUE(v.Append("row" + std::to_string(i)).ok());
  }
  return arrow::RecordBatch::Make(Schema(), n,
                                  {k.Finish().ValueOrDie(), v.Finish().ValueOrDie()});
}

// A directory of its own, so a test can see what the spill left on disk.
class SpillFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("deltaguard-spill-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  bool DirEmpty() const { return std::filesystem::is_empty(dir_); }
  std::filesystem::path dir_;
};

TEST_F(SpillFileTest, BatchesComeBackInOrderAndNothingStaysOnDisk) {
  auto file = SpillFile::Open(Schema(), "test operator", dir_.string());
  ASSERT_TRUE(file) << file.error().ToString();
  EXPECT_TRUE(DirEmpty());  // unlinked at once
  ASSERT_TRUE((*file)->Append(*Batch(0, 100)));
  ASSERT_TRUE((*file)->Append(*Batch(100, 50)));
  EXPECT_EQ((*file)->num_rows(), 150);
  EXPECT_GT((*file)->bytes(), 150 * 8);
  auto back = (*file)->ReadBack();
  ASSERT_TRUE(back) << back.error().ToString();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_TRUE((*back)[0]->Equals(*Batch(0, 100)));
  EXPECT_TRUE((*back)[1]->Equals(*Batch(100, 50)));
  file->reset();  // the mapping outlives the file object
  EXPECT_TRUE((*back)[1]->Equals(*Batch(100, 50)));
  EXPECT_TRUE(DirEmpty());
}

TEST_F(SpillFileTest, ReadingBackTwiceOrAppendingAfterIsAnError) {
  auto file = SpillFile::Open(Schema(), "test operator", dir_.string());
  ASSERT_TRUE(file);
  ASSERT_TRUE((*file)->ReadBack());
  auto again = (*file)->ReadBack();
  ASSERT_FALSE(again);
  EXPECT_THAT(again.error().message, HasSubstr("test operator"));
  EXPECT_FALSE((*file)->Append(*Batch(0, 1)));
}

TEST_F(SpillFileTest, AMissingDirectoryIsAnIoErrorNamingIt) {
  auto file = SpillFile::Open(Schema(), "JOIN right side", "/nonexistent/spill");
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().code, ErrorCode::kIOError);
  EXPECT_THAT(file.error().message, HasSubstr("JOIN right side"));
  EXPECT_THAT(file.error().message, HasSubstr("/nonexistent/spill"));
}

TEST_F(SpillFileTest, PartitionsKeepEveryRowAndEqualKeysTogether) {
  QueryMemory memory(1 << 20, dir_.string());
  auto parts = SpillPartitions::Make(Schema(), 3, "window input", memory);
  ASSERT_TRUE(parts) << parts.error().ToString();
  for (int64_t from : {0, 1000}) {
    auto batch = Batch(from, 1000);
    auto hashes = HashRows({batch->column(0)}, batch->num_rows());
    ASSERT_TRUE(hashes) << hashes.error().ToString();
    ASSERT_TRUE((*parts)->Append(batch, *hashes));
  }
  EXPECT_TRUE(DirEmpty());
  int64_t rows = 0;
  std::vector<int> partition_of(10, -1);
  for (int p = 0; p < 3; ++p) {
    auto read = (*parts)->Read(p, 1500);
    ASSERT_TRUE(read) << read.error().ToString();
    for (const auto& b : *read) {
      rows += b->num_rows();
      const auto& k = static_cast<const arrow::Int64Array&>(*b->column(0));
      for (int64_t i = 0; i < k.length(); ++i) {
        int& seen = partition_of[static_cast<size_t>(k.Value(i))];
        EXPECT_TRUE(seen == -1 || seen == p) << "key " << k.Value(i) << " split";
        seen = p;
      }
    }
    if (!read->empty()) {  // the two dealt slices are joined into one batch
      EXPECT_EQ(read->size(), 1u);
    }
  }
  EXPECT_EQ(rows, 2000);
  EXPECT_EQ(memory.spill_files(), 3);
  EXPECT_GT(memory.spilled_bytes(), 2000 * 8);
  EXPECT_FALSE((*parts)->Read(0));  // once per partition
}

TEST(SpillPartitionsTest, PartitionCountHalvesTheLimit) {
  EXPECT_EQ(SpillPartitions::PartitionsFor(100, 1000), 2);
  EXPECT_EQ(SpillPartitions::PartitionsFor(5000, 1000), 10);
  EXPECT_EQ(SpillPartitions::PartitionsFor(int64_t{1} << 40, 1000), 64);
}

TEST(HashRowsTest, EqualValuesHashEqualAcrossBatches) {
  auto a =
      arrow::json::ArrayFromJSONString(arrow::float64(), "[0.0, -0.0, NaN, 1.5, null]")
          .ValueOrDie();
  auto h = HashRows({a}, 5);
  ASSERT_TRUE(h);
  EXPECT_EQ((*h)[0], (*h)[1]);  // -0.0 is 0.0
  EXPECT_NE((*h)[0], (*h)[3]);
  auto s1 = arrow::json::ArrayFromJSONString(arrow::utf8(), R"(["x", "y"])").ValueOrDie();
  auto s2 = arrow::json::ArrayFromJSONString(arrow::utf8(), R"(["y"])").ValueOrDie();
  EXPECT_EQ((*HashRows({s1}, 2))[1], (*HashRows({s2}, 1))[0]);
  auto m = arrow::json::ArrayFromJSONString(arrow::map(arrow::utf8(), arrow::int32()),
                                            R"([[["a", 1]]])")
               .ValueOrDie();
  EXPECT_FALSE(HashRows({m}, 1));
}

TEST(QueryMemoryTest, ReservationsStayWithinTheLimit) {
  QueryMemory memory(100, "/tmp");
  EXPECT_TRUE(memory.TryReserve(60));
  EXPECT_FALSE(memory.TryReserve(50));  // takes nothing
  EXPECT_EQ(memory.held(), 60);
  { MemoryReservation r(std::make_shared<QueryMemory>(10, "/tmp"), 5); }
  memory.Release(60);
  EXPECT_TRUE(memory.TryReserve(100));
  QueryMemory unlimited(-1, "/tmp");
  EXPECT_TRUE(unlimited.TryReserve(int64_t{1} << 50));
  EXPECT_GT(DefaultQueryMemoryLimit(), 0);
}

}  // namespace
}  // namespace deltaguard
