// WriteTable through an injected file system: every storage failure leaves the table
// exactly as before or exactly as after the write, and a retry converges; concurrent
// writers follow the conflict rules.

#include "deltaguard/table/write.h"

#include <arrow/record_batch.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>

#include "deltaguard/io/fs/fault_injection_file_system.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/table/table.h"
#include "testing/matchers.h"
#include "testing/racing_file_system.h"
#include "testing/table_fixture.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

SchemaRef TableSchema() { return Ddl("id BIGINT NOT NULL, country STRING"); }

BatchSource Source(const std::vector<int64_t>& ids) {
  std::string json = "[";
  for (size_t i = 0; i < ids.size(); ++i) {
    json += (i ? "," : "") + std::string("{\"id\":") + std::to_string(ids[i]) +
            ",\"country\":\"" + (ids[i] % 2 ? "US" : "DE") + "\"}";
  }
  json += "]";
  return testing::BatchesSource("rows", {Rows(TableSchema(), json)});
}

// The table's ids, sorted; an unreadable table fails the test.
std::vector<int64_t> Ids(const std::string& path) {
  ScanOptions options;
  options.columns = {"id"};
  std::vector<int64_t> ids;
  for (const auto& batch : testing::ScanTable(path, options).batches) {
    auto column = std::static_pointer_cast<arrow::Int64Array>(batch->column(0));
    for (int64_t i = 0; i < column->length(); ++i) ids.push_back(column->Value(i));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<int64_t> Range(int64_t from, int64_t to) {
  std::vector<int64_t> out;
  for (int64_t i = from; i < to; ++i) out.push_back(i);
  return out;
}

// A partitioned table (id NOT NULL) at version 9 holding ids 10..99, so that the next
// commit (10) also writes a checkpoint.
void MakeBaseTable(const std::string& path) {
  CreateTableOptions create;
  create.schema = TableSchema();  // id NOT NULL
  create.partition_columns = {"country"};
  auto created = CreateTable(MakeLocalFileSystem(), path, create);
  ASSERT_TRUE(created) << created.error().ToString();
  for (int v = 1; v < 10; ++v) {
    std::vector<BatchSource> sources;
    sources.push_back(Source(Range(v * 10, v * 10 + 10)));
    auto result = WriteTable(MakeLocalFileSystem(), path, std::move(sources), {});
    ASSERT_TRUE(result) << result.error().ToString();
    ASSERT_EQ(result->version, v);
  }
}

std::vector<int64_t> Concat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  return a;
}

struct FaultCase {
  WriteMode mode;
  Fault fault;
};

class WriteFaultTest : public ::testing::TestWithParam<FaultCase> {};

// Fail at every mutating step of one write (data files, commit, checkpoint,
// _last_checkpoint): the table then reads exactly as before or as after, never in
// between; a retry with the same txn id then lands the write exactly once.
TEST_P(WriteFaultTest, EveryStepLeavesBeforeOrAfter) {
  const FaultCase param = GetParam();
  TempDir base;
  const std::string base_path = base.Join("t");
  MakeBaseTable(base_path);
  const std::vector<int64_t> before = Ids(base_path);
  const std::vector<int64_t> added = Range(1000, 1010);
  const std::vector<int64_t> after =
      param.mode == WriteMode::kOverwrite ? added : Concat(before, added);

  WriteOptions options;
  options.mode = param.mode;
  options.txn_app_id = "ingest";
  options.txn_version = 1;
  bool saw_success = false;
  int checked = 0;
  for (int64_t step = 0; step < 64 && !saw_success; ++step) {
    TempDir dir;
    const std::string path = dir.Join("t");
    std::filesystem::copy(base_path, path, std::filesystem::copy_options::recursive);
    auto faulty = std::make_shared<FaultInjectionFileSystem>(MakeLocalFileSystem());
    faulty->FailAt(step, param.fault);
    std::vector<BatchSource> sources;
    sources.push_back(Source(added));
    auto result = WriteTable(faulty, path, std::move(sources), options);
    if (faulty->num_mutations() <= step) {
      // The fault never fired: the write ran to the end.
      ASSERT_TRUE(result) << result.error().ToString();
      EXPECT_EQ(Ids(path), after);
      saw_success = true;
      continue;
    }
    ++checked;
    SCOPED_TRACE("fault at op " + std::to_string(step) + ": " + faulty->ops()[step]);
    std::vector<int64_t> now = Ids(path);
    if (result) {
      EXPECT_EQ(now, after);  // e.g. only the checkpoint failed
    } else {
      EXPECT_TRUE(now == before || now == after) << result.error().ToString();
    }
    // Retry on healthy storage: exactly once.
    std::vector<BatchSource> retry_sources;
    retry_sources.push_back(Source(added));
    auto retry =
        WriteTable(MakeLocalFileSystem(), path, std::move(retry_sources), options);
    ASSERT_TRUE(retry) << retry.error().ToString();
    EXPECT_EQ(Ids(path), after);
  }
  EXPECT_TRUE(saw_success);
  EXPECT_GE(checked, 4);  // data file(s), commit, checkpoint, _last_checkpoint
}

INSTANTIATE_TEST_SUITE_P(
    AllFaults, WriteFaultTest,
    ::testing::Values(FaultCase{WriteMode::kAppend, Fault::kError},
                      FaultCase{WriteMode::kAppend, Fault::kCrashBeforeWrite},
                      FaultCase{WriteMode::kAppend, Fault::kCrashAfterWrite},
                      FaultCase{WriteMode::kAppend, Fault::kTornWrite},
                      FaultCase{WriteMode::kOverwrite, Fault::kCrashAfterWrite},
                      FaultCase{WriteMode::kOverwrite, Fault::kTornWrite}));

TEST(WriteTableTest, FailedWriteDeletesItsDataFiles) {
  TempDir dir;
  const std::string path = dir.Join("t");
  MakeBaseTable(path);
  auto count_files = [&] {
    int n = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(path))
      n += e.path().extension() == ".parquet" &&
           e.path().string().find("_delta_log") == std::string::npos;
    return n;
  };
  const int files_before = count_files();
  // Row 2 violates NOT NULL after the first batch's rows were handed to the writer.
  auto good = Rows(TableSchema(), R"([{"id":1,"country":"US"}])");
  auto bad = Rows(Ddl("id BIGINT, country STRING"),
                  R"([{"id":2,"country":"US"},{"id":null,"country":"DE"}])");
  auto reader = arrow::RecordBatchReader::Make({good, bad}, bad->schema());
  std::vector<BatchSource> sources;
  sources.push_back(SourceFromReader("rows", *reader));
  auto result = WriteTable(MakeLocalFileSystem(), path, std::move(sources), {});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::kConstraintViolation);
  EXPECT_THAT(result.error().message, HasSubstr("id"));
  EXPECT_EQ(count_files(), files_before);
  EXPECT_EQ(Ids(path), Range(10, 100));
  EXPECT_EQ((*OpenSnapshot(path))->version(), 9);
}

TEST(WriteTableTest, ConcurrentBlindAppendsAllLand) {
  TempDir dir;
  const std::string path = dir.Join("t");
  MakeBaseTable(path);
  constexpr int kThreads = 4;
  constexpr int kWrites = 5;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int w = 0; w < kWrites; ++w) {
        int64_t id = 10000 + t * 100 + w;
        std::vector<BatchSource> sources;
        sources.push_back(Source({id}));
        auto result = WriteTable(MakeLocalFileSystem(), path, std::move(sources), {});
        if (!result) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  auto ids = Ids(path);
  EXPECT_EQ(ids.size(), 90u + kThreads * kWrites);
  EXPECT_EQ((*OpenSnapshot(path))->version(), 9 + kThreads * kWrites);
}

void ConcurrentAppend(const std::string& path, int64_t id) {
  std::vector<BatchSource> sources;
  sources.push_back(Source({id}));
  auto result = WriteTable(MakeLocalFileSystem(), path, std::move(sources), {});
  ASSERT_TRUE(result) << result.error().ToString();
}

TEST(WriteTableTest, AppendRacingAppendRetriesAndSucceeds) {
  TempDir dir;
  const std::string path = dir.Join("t");
  MakeBaseTable(path);
  auto fs = std::make_shared<testing::RacingFileSystem>(
      MakeLocalFileSystem(), [&] { ConcurrentAppend(path, 5000); });
  std::vector<BatchSource> sources;
  sources.push_back(Source({6000}));
  auto result = WriteTable(fs, path, std::move(sources), {});
  ASSERT_TRUE(result) << result.error().ToString();
  EXPECT_EQ(result->version, 11);
  EXPECT_EQ(result->commit_attempts, 2);
  auto ids = Ids(path);
  EXPECT_EQ(ids.size(), 92u);
  EXPECT_TRUE(std::binary_search(ids.begin(), ids.end(), 5000));
  EXPECT_TRUE(std::binary_search(ids.begin(), ids.end(), 6000));
}

TEST(WriteTableTest, OverwriteRacingAppendConflictsAndLeavesNoTrace) {
  TempDir dir;
  const std::string path = dir.Join("t");
  MakeBaseTable(path);
  auto fs = std::make_shared<testing::RacingFileSystem>(
      MakeLocalFileSystem(), [&] { ConcurrentAppend(path, 5000); });
  WriteOptions options;
  options.mode = WriteMode::kOverwrite;
  std::vector<BatchSource> sources;
  sources.push_back(Source({6000}));
  auto result = WriteTable(fs, path, std::move(sources), options);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::kCommitConflict);
  EXPECT_THAT(result.error().message, HasSubstr("DELTA_CONCURRENT_APPEND"));
  auto ids = Ids(path);
  EXPECT_EQ(ids.size(), 91u);  // base + the winner; the overwrite left nothing
  EXPECT_FALSE(std::binary_search(ids.begin(), ids.end(), 6000));
}

TEST(WriteTableTest, SchemaChangeRacingSchemaChangeConflicts) {
  TempDir dir;
  const std::string path = dir.Join("t");
  MakeBaseTable(path);
  auto with_column = [](const std::string& name, int64_t id) {
    auto schema = Ddl("id BIGINT, country STRING, " + name + " INT");
    return testing::BatchesSource("rows", {Rows(schema, "[{\"id\":" + std::to_string(id) +
                                                            ",\"" + name + "\":1}]")});
  };
  auto fs = std::make_shared<testing::RacingFileSystem>(MakeLocalFileSystem(), [&] {
    WriteOptions merge;
    merge.merge_schema = true;
    std::vector<BatchSource> sources;
    sources.push_back(with_column("a", 7000));
    ASSERT_TRUE(WriteTable(MakeLocalFileSystem(), path, std::move(sources), merge));
  });
  WriteOptions merge;
  merge.merge_schema = true;
  std::vector<BatchSource> sources;
  sources.push_back(with_column("b", 8000));
  auto result = WriteTable(fs, path, std::move(sources), merge);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::kCommitConflict);
  EXPECT_THAT(result.error().message, HasSubstr("DELTA_METADATA_CHANGED"));
}

}  // namespace
}  // namespace deltaguard
