// WriteWithQuarantine: the in-memory form of quarantine (Python's write_table with
// on_violation=Quarantine): rows are routed as they stream from one source.

#include <arrow/record_batch.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/table/quarantine.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/write.h"
#include "testing/temp_dir.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

using testing::Ddl;
using ::testing::ElementsAre;
using ::testing::Pair;
using testing::Rows;
using testing::TempDir;

std::vector<BatchSource> Source(const std::string& json) {
  auto batch = Rows(Ddl("id BIGINT, amount DOUBLE"), json);
  auto reader = arrow::RecordBatchReader::Make({batch}, batch->schema());
  EXPECT_TRUE(reader.ok());
  std::vector<BatchSource> out;
  out.push_back(SourceFromReader("rows", *reader));
  return out;
}

int64_t Version(const std::string& root) {
  auto snap = OpenSnapshot(root);
  return snap ? (*snap)->version() : -1;
}

TEST(QuarantineSourcesTest, RoutesViolatingRowsOfAStream) {
  TempDir dir;
  const std::string table = dir.Join("t"), quarantine = dir.Join("q");
  CreateTableOptions create;
  create.schema = Ddl("id BIGINT NOT NULL, amount DOUBLE");
  ASSERT_TRUE(CreateTable(MakeLocalFileSystem(), table, create));
  auto r = WriteWithQuarantine(
      MakeLocalFileSystem(), table,
      Source(R"([{"id":1,"amount":1.0},{"id":null,"amount":2.0},{"id":3,"amount":3.0}])"),
      WriteOptions{}, quarantine, SessionSettings{}, /*now_micros=*/1'000'000);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->good_rows, 2);
  EXPECT_EQ(r->quarantined_rows, 1);
  EXPECT_TRUE(r->quarantine_created);
  EXPECT_THAT(r->by_constraint, ElementsAre(Pair("NOT NULL column id", 1)));
  EXPECT_EQ(Version(table), 1);
  ASSERT_TRUE(r->quarantine.has_value());
  EXPECT_EQ(Version(quarantine), r->quarantine->version);
}

TEST(QuarantineSourcesTest, NewTableHasNothingToQuarantine) {
  TempDir dir;
  auto r = WriteWithQuarantine(MakeLocalFileSystem(), dir.Join("t"),
                               Source(R"([{"id":null,"amount":2.0}])"), WriteOptions{},
                               dir.Join("q"));
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->good_rows, 1);
  EXPECT_FALSE(r->quarantine.has_value());
  EXPECT_EQ(Version(dir.Join("q")), -1);
}

TEST(QuarantineSourcesTest, SameTableOrEvolutionIsRefused) {
  TempDir dir;
  auto same = WriteWithQuarantine(MakeLocalFileSystem(), dir.Join("t"),
                                  Source(R"([{"id":1,"amount":2.0}])"), WriteOptions{},
                                  dir.Join("t"));
  ASSERT_FALSE(same);
  EXPECT_EQ(same.error().code, ErrorCode::kInvalidArgument);
  WriteOptions merge;
  merge.merge_schema = true;
  auto evolve =
      WriteWithQuarantine(MakeLocalFileSystem(), dir.Join("t"),
                          Source(R"([{"id":1,"amount":2.0}])"), merge, dir.Join("q"));
  ASSERT_FALSE(evolve);
  EXPECT_EQ(evolve.error().code, ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace deltaguard
