#include <arrow/array/builder_primitive.h>
#include <arrow/scalar.h>
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "deltaguard/io/parquet/checkpoint_reader.h"
#include "deltaguard/io/parquet/scan_read_ahead_internal.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

using parquet_internal::MakeReadAheadScan;
using testing::AddAction;
using testing::MetadataAction;
using testing::ProtocolAction;
using testing::WriteCommit;

std::shared_ptr<arrow::Schema> IdSchema() {
  return arrow::schema({arrow::field("id", arrow::int64())});
}

std::shared_ptr<arrow::RecordBatch> IdBatch(int64_t first, int64_t n) {
  arrow::Int64Builder b;
  for (int64_t i = 0; i < n; ++i) EXPECT_TRUE(b.Append(first + i).ok());
  return arrow::RecordBatch::Make(IdSchema(), n, {*b.Finish()});
}

// A file scan whose batches are ids file*100 + 0, 1, ...; counts how many such scans
// are alive at once; fails at batch `fail_at` when set.
struct FakeFiles {
  std::atomic<int> open{0};
  std::atomic<int> max_open{0};
  std::map<std::string, int> fail_at;  // file path -> batch index that fails
  std::map<std::string, bool> fail_open;

  class Scan final : public TableScan {
   public:
    Scan(FakeFiles* owner, int file, int batches, int fail_at)
        : owner_(owner), file_(file), batches_(batches), fail_at_(fail_at) {
      const int now = ++owner_->open;
      int seen = owner_->max_open.load();
      while (now > seen && !owner_->max_open.compare_exchange_weak(seen, now)) {
      }
    }
    ~Scan() override { --owner_->open; }
    const std::shared_ptr<arrow::Schema>& output_schema() const override {
      return schema_;
    }
    Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
      if (next_ == fail_at_) {
        return MakeError(ErrorCode::kCorruptData, "data file 'f{}': bad page", file_);
      }
      if (next_ == batches_) return nullptr;
      return IdBatch(file_ * 100 + 10 * next_++, 10);
    }

   private:
    FakeFiles* owner_;
    int file_, batches_, fail_at_, next_ = 0;
    std::shared_ptr<arrow::Schema> schema_ = IdSchema();
  };

  parquet_internal::OpenFileScan Opener(int batches_per_file) {
    return
        [this, batches_per_file](const AddFile& f) -> Result<std::unique_ptr<TableScan>> {
          if (fail_open.count(f.path)) {
            return MakeError(ErrorCode::kNotFound, "data file '{}' is missing", f.path);
          }
          auto it = fail_at.find(f.path);
          return std::unique_ptr<TableScan>(
              new Scan(this, std::stoi(f.path.substr(1)), batches_per_file,
                       it == fail_at.end() ? -1 : it->second));
        };
  }
};

std::vector<AddFile> Files(int n) {
  std::vector<AddFile> files(n);
  for (int i = 0; i < n; ++i) files[i].path = "f" + std::to_string(i);
  return files;
}

std::vector<const AddFile*> Pointers(const std::vector<AddFile>& files) {
  std::vector<const AddFile*> out;
  for (const auto& f : files) out.push_back(&f);
  return out;
}

// Drains the scan: the ids in order, or the first error.
Result<std::vector<int64_t>> Drain(TableScan& scan) {
  std::vector<int64_t> ids;
  while (true) {
    DELTA_ASSIGN_OR_RETURN(auto batch, scan.Next());
    if (batch == nullptr) return ids;
    const auto& a = static_cast<const arrow::Int64Array&>(*batch->column(0));
    for (int64_t i = 0; i < a.length(); ++i) ids.push_back(a.Value(i));
  }
}

std::vector<int64_t> Expected(int files, int batches) {
  std::vector<int64_t> ids;
  for (int f = 0; f < files; ++f) {
    for (int b = 0; b < batches; ++b) {
      for (int i = 0; i < 10; ++i) ids.push_back(f * 100 + 10 * b + i);
    }
  }
  return ids;
}

TEST(ReadAheadScanTest, BatchesComeInFileOrderWithABoundedWindow) {
  for (size_t window : {1u, 2u, 3u, 8u}) {
    FakeFiles fake;
    auto files = Files(7);
    auto scan = MakeReadAheadScan(IdSchema(), Pointers(files), fake.Opener(5), window, 2);
    ASSERT_NE(scan, nullptr);
    auto ids = Drain(*scan);
    ASSERT_TRUE(ids) << ids.error().ToString();
    EXPECT_EQ(*ids, Expected(7, 5)) << "window " << window;
    EXPECT_LE(fake.max_open.load(), static_cast<int>(window)) << "window " << window;
    EXPECT_EQ(fake.open.load(), 0);
    auto end = scan->Next();  // the end stays the end
    ASSERT_TRUE(end);
    EXPECT_EQ(*end, nullptr);
  }
}

TEST(ReadAheadScanTest, AnErrorComesAfterTheEarlierFilesAndSticks) {
  FakeFiles fake;
  fake.fail_at["f2"] = 1;  // f2's first batch is fine, its second fails
  auto files = Files(5);
  auto scan = MakeReadAheadScan(IdSchema(), Pointers(files), fake.Opener(3), 3, 2);
  ASSERT_NE(scan, nullptr);
  std::vector<int64_t> seen;
  Error error{ErrorCode::kInternal, ""};
  while (true) {
    auto batch = scan->Next();
    if (!batch) {
      error = batch.error();
      break;
    }
    ASSERT_NE(*batch, nullptr) << "the scan ended without the error";
    const auto& a = static_cast<const arrow::Int64Array&>(*(*batch)->column(0));
    for (int64_t i = 0; i < a.length(); ++i) seen.push_back(a.Value(i));
  }
  std::vector<int64_t> want = Expected(2, 3);
  for (int i = 0; i < 10; ++i) want.push_back(200 + i);
  EXPECT_EQ(seen, want);
  EXPECT_EQ(error.code, ErrorCode::kCorruptData);
  EXPECT_NE(error.message.find("'f2'"), std::string::npos) << error.message;
  auto again = scan->Next();
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().message, error.message);
}

TEST(ReadAheadScanTest, AFileThatCannotBeOpenedFailsWhenReached) {
  FakeFiles fake;
  fake.fail_open["f1"] = true;
  auto files = Files(4);
  auto scan = MakeReadAheadScan(IdSchema(), Pointers(files), fake.Opener(2), 2, 1);
  ASSERT_NE(scan, nullptr);
  auto first = scan->Next();
  ASSERT_TRUE(first);
  ASSERT_NE(*first, nullptr);
  auto second = scan->Next();
  ASSERT_TRUE(second);
  ASSERT_NE(*second, nullptr);
  auto third = scan->Next();
  ASSERT_FALSE(third);
  EXPECT_EQ(third.error().code, ErrorCode::kNotFound);
  EXPECT_NE(third.error().message.find("'f1'"), std::string::npos);
}

TEST(ReadAheadScanTest, GivingUpEarlyStopsTheWorkers) {
  FakeFiles fake;
  auto files = Files(50);
  {
    auto scan = MakeReadAheadScan(IdSchema(), Pointers(files), fake.Opener(100), 4, 2);
    ASSERT_NE(scan, nullptr);
    auto batch = scan->Next();
    ASSERT_TRUE(batch);
    ASSERT_NE(*batch, nullptr);
  }  // workers blocked on full queues must wake, stop and be joined
  EXPECT_EQ(fake.open.load(), 0);
  EXPECT_LE(fake.max_open.load(), 4);
}

// Through TableScan::Make: the same rows as the sequential scan, partition values and
// deletion vectors included; a limit keeps the scan sequential, so no file past the
// limit is opened.
class TableScanReadAheadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<std::string> actions = {
        ProtocolAction(1, 2),
        MetadataAction(R"({"type":"struct","fields":[)"
                       R"({"name":"id","type":"long","nullable":true,"metadata":{}},)"
                       R"({"name":"p","type":"string","nullable":true,"metadata":{}}]})",
                       R"(["p"])")};
    for (int f = 0; f < 6; ++f) {
      const std::string name = "f" + std::to_string(f) + ".parquet";
      testing::WriteParquet(dir_.Join(name), IdBatch(f * 1000, 300));
      actions.push_back(AddAction(name, R"({"p":"v)" + std::to_string(f) + R"("})"));
    }
    WriteCommit(dir_.path(), 0, actions);
  }

  Result<std::vector<std::string>> Rows(const ScanOptions& options) {
    ParquetCheckpointReader reader(fs_);
    DELTA_ASSIGN_OR_RETURN(auto snapshot, Snapshot::Load(fs_, dir_.path(), reader));
    DELTA_ASSIGN_OR_RETURN(auto scan, TableScan::Make(snapshot, options));
    std::vector<std::string> rows;
    while (true) {
      DELTA_ASSIGN_OR_RETURN(auto batch, scan->Next());
      if (batch == nullptr) return rows;
      for (int64_t i = 0; i < batch->num_rows(); ++i) {
        rows.push_back(batch->column(0)->GetScalar(i).ValueOrDie()->ToString() + "/" +
                       batch->column(1)->GetScalar(i).ValueOrDie()->ToString());
      }
    }
  }

  testing::TempDir dir_;
  FileSystemRef fs_ = MakeLocalFileSystem();
};

TEST_F(TableScanReadAheadTest, SameRowsAsTheSequentialScan) {
  ScanOptions sequential;
  sequential.batch_size = 64;
  auto want = Rows(sequential);
  ASSERT_TRUE(want) << want.error().ToString();
  ASSERT_EQ(want->size(), 1800u);
  EXPECT_EQ(want->front(), "0/v0");
  EXPECT_EQ(want->back(), "5299/v5");
  for (size_t files : {2u, 3u, 6u}) {
    for (size_t depth : {0u, 1u, 4u}) {  // 0: no bound (to_arrow)
      ScanOptions ahead = sequential;
      ahead.read_ahead_files = files;
      ahead.read_ahead_batches = depth;
      auto got = Rows(ahead);
      ASSERT_TRUE(got) << got.error().ToString();
      EXPECT_EQ(*got, *want) << files << " files at once, depth " << depth;
    }
  }
}

TEST_F(TableScanReadAheadTest, ACorruptFileFailsNamingItAndALimitStaysSequential) {
  testing::WriteTextFile(dir_.Join("f3.parquet"), "not parquet");
  ScanOptions ahead;
  ahead.read_ahead_files = 4;
  auto rows = Rows(ahead);
  ASSERT_FALSE(rows);
  EXPECT_NE(rows.error().message.find("f3.parquet"), std::string::npos)
      << rows.error().message;
  // Within the limit every row comes from f0..f2: f3 is never opened.
  ahead.limit = 900;
  rows = Rows(ahead);
  ASSERT_TRUE(rows) << rows.error().ToString();
  EXPECT_EQ(rows->size(), 900u);
}

}  // namespace
}  // namespace deltaguard
