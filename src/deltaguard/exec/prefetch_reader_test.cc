#include "deltaguard/exec/prefetch_reader.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace deltaguard {
namespace {

std::shared_ptr<arrow::RecordBatch> Batch(int64_t value) {
  arrow::Int64Builder builder;
  EXPECT_TRUE(builder.Append(value).ok());
  std::shared_ptr<arrow::Array> array;
  EXPECT_TRUE(builder.Finish(&array).ok());
  return arrow::RecordBatch::Make(arrow::schema({arrow::field("v", arrow::int64())}), 1,
                                  {array});
}

// Yields `n` batches, then fails with `error` (if set) or ends.
class CountingReader final : public arrow::RecordBatchReader {
 public:
  CountingReader(int n, bool fail) : n_(n), fail_(fail) {}
  std::shared_ptr<arrow::Schema> schema() const override {
    return arrow::schema({arrow::field("v", arrow::int64())});
  }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    if (next_ < n_) {
      *out = Batch(next_++);
      return arrow::Status::OK();
    }
    out->reset();
    return fail_ ? arrow::Status::IOError("disk on fire") : arrow::Status::OK();
  }
  int next_ = 0;

 private:
  int n_;
  bool fail_;
};

int64_t Value(const arrow::RecordBatch& b) {
  return std::static_pointer_cast<arrow::Int64Array>(b.column(0))->Value(0);
}

TEST(PrefetchReaderTest, KeepsOrderAndEnds) {
  auto reader = MakePrefetchingReader(std::make_shared<CountingReader>(50, false), 3);
  EXPECT_EQ(reader->schema()->field(0)->name(), "v");
  std::vector<int64_t> seen;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> b;
    ASSERT_TRUE(reader->ReadNext(&b).ok());
    if (!b) break;
    seen.push_back(Value(*b));
  }
  ASSERT_EQ(seen.size(), 50u);
  for (int64_t i = 0; i < 50; ++i) EXPECT_EQ(seen[static_cast<size_t>(i)], i);
  std::shared_ptr<arrow::RecordBatch> again;
  EXPECT_TRUE(reader->ReadNext(&again).ok());
  EXPECT_EQ(again, nullptr);
}

TEST(PrefetchReaderTest, ErrorComesAfterEarlierBatches) {
  auto reader = MakePrefetchingReader(std::make_shared<CountingReader>(2, true));
  std::shared_ptr<arrow::RecordBatch> b;
  ASSERT_TRUE(reader->ReadNext(&b).ok());
  EXPECT_EQ(Value(*b), 0);
  ASSERT_TRUE(reader->ReadNext(&b).ok());
  EXPECT_EQ(Value(*b), 1);
  auto st = reader->ReadNext(&b);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("disk on fire"), std::string::npos);
}

TEST(PrefetchReaderTest, ReadsAheadAtMostDepthAndStopsOnDestruction) {
  auto inner = std::make_shared<CountingReader>(1000, false);
  {
    auto reader = MakePrefetchingReader(inner, 2);
    std::shared_ptr<arrow::RecordBatch> b;
    ASSERT_TRUE(reader->ReadNext(&b).ok());
    // One batch consumed; the thread may hold at most `depth` more plus one in flight.
    for (int i = 0; i < 100 && inner->next_ < 3; ++i) std::this_thread::yield();
  }
  EXPECT_LE(inner->next_, 4);
}

}  // namespace
}  // namespace deltaguard
