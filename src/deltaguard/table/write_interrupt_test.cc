// SessionSettings::interrupt_check (front ends' Ctrl-C): asked before every staged batch
// and right before the commit; a refusal at any of those points commits nothing and
// leaves no data file behind.

#include <arrow/record_batch.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "deltaguard/table/table.h"
#include "deltaguard/table/write.h"
#include "testing/table_fixture.h"
#include "testing/temp_dir.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

using testing::Ddl;
using ::testing::HasSubstr;
using testing::Rows;
using testing::TempDir;

int CountDataFiles(const std::string& root) {
  return static_cast<int>(testing::ParquetFiles(root).size());
}

BatchSource ThreeBatches() {
  SchemaRef schema = Ddl("id BIGINT");
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches = {
      Rows(schema, R"([{"id":1}])"), Rows(schema, R"([{"id":2}])"),
      Rows(schema, R"([{"id":3}])")};
  auto reader = arrow::RecordBatchReader::Make(batches, batches[0]->schema());
  EXPECT_TRUE(reader.ok());
  return SourceFromReader("rows", *reader);
}

// Writes three batches into a one-version table, refusing at the `refuse_at`-th check
// (1-based; 0: never). Returns the write's result and the number of checks made.
Result<WriteResult> WriteWithCheck(const std::string& root, int refuse_at, int* calls) {
  SessionSettings session;
  session.interrupt_check = [=]() -> Status {
    ++*calls;
    if (*calls == refuse_at) return MakeError(ErrorCode::kIOError, "interrupted by test");
    return OkStatus();
  };
  std::vector<BatchSource> sources;
  sources.push_back(ThreeBatches());
  return WriteTable(MakeLocalFileSystem(), root, std::move(sources), WriteOptions{},
                    session);
}

TEST(WriteInterruptTest, AskedPerBatchAndBeforeTheCommit) {
  TempDir dir;
  const std::string root = dir.Join("t");
  int calls = 0;
  auto first = WriteWithCheck(root, 0, &calls);
  ASSERT_TRUE(first) << first.error().ToString();
  // The reader may merge small batches; at least one per staged batch plus the commit.
  EXPECT_GE(calls, 2);
  const int checks_per_write = calls;

  for (int refuse_at = 1; refuse_at <= checks_per_write; ++refuse_at) {
    SCOPED_TRACE("refused at check " + std::to_string(refuse_at));
    int n = 0;
    auto r = WriteWithCheck(root, refuse_at, &n);
    ASSERT_FALSE(r);
    EXPECT_THAT(r.error().message, HasSubstr("interrupted by test"));
    auto snap = OpenSnapshot(root);
    ASSERT_TRUE(snap);
    EXPECT_EQ((*snap)->version(), 0);
    EXPECT_EQ(CountDataFiles(root), static_cast<int>((*snap)->files().size()));
  }
}

}  // namespace
}  // namespace deltaguard
