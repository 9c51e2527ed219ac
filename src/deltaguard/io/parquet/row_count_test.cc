#include "deltaguard/io/parquet/row_count.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/io/parquet/checkpoint_reader.h"
#include "testing/matchers.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

using testing::AddAction;
using testing::MetadataAction;
using testing::ProtocolAction;
using testing::WriteCommit;

const char kSchema[] = R"({"type":"struct","fields":[)"
                       R"({"name":"id","type":"long","nullable":true,"metadata":{}}]})";

std::shared_ptr<arrow::RecordBatch> Ids(int n) {
  std::string json = "[";
  for (int i = 0; i < n; ++i) json += (i ? "," : "") + std::to_string(i);
  auto field = arrow::field("id", arrow::int64());
  return arrow::RecordBatch::Make(arrow::schema({field}), n,
                                  {ArrayFromJson(field->type(), json + "]")});
}

Result<RowCountResult> Count(const std::string& root,
                             const RowCountOptions& options = {}) {
  auto fs = MakeLocalFileSystem();
  ParquetCheckpointReader reader(fs);
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot, Snapshot::Load(fs, root, reader));
  return CountRows(*snapshot, options);
}

TEST(RowCountTest, UsesStatsThenFootersMinusDeletionVectors) {
  TempDir dir;
  WriteParquet(dir.Join("footer.parquet"), Ids(7));
  WriteParquet(dir.Join("stats.parquet"), Ids(2));  // stats say 5: stats win, file unread
  WriteCommit(dir.path(), 0,
              {ProtocolAction(3, 7, R"(["deletionVectors"])"), MetadataAction(kSchema),
               AddAction("footer.parquet", "{}",
                         R"("deletionVector":{"storageType":"i","pathOrInlineDv":"x",)"
                         R"("sizeInBytes":1,"cardinality":2})"),
               AddAction("stats.parquet", "{}", R"("stats":"{\"numRecords\":5}")"),
               AddAction("absent.parquet", "{}", R"("stats":"{\"numRecords\":10}")")});
  auto counted = Count(dir.path());
  ASSERT_TRUE(counted) << counted.error().ToString();
  EXPECT_EQ(counted->num_files, 3);
  EXPECT_EQ(counted->files_from_stats, 2);
  EXPECT_EQ(counted->files_from_footers, 1);
  EXPECT_EQ(counted->deleted_rows, 2);
  EXPECT_EQ(counted->missing_files, 1);
  EXPECT_EQ(counted->num_rows, 7 - 2 + 5 + 10);

  RowCountOptions no_check;
  no_check.check_files_exist = false;
  auto unchecked = Count(dir.path(), no_check);
  ASSERT_TRUE(unchecked);
  EXPECT_EQ(unchecked->missing_files, 0);
  EXPECT_EQ(unchecked->num_rows, counted->num_rows);
}

TEST(RowCountTest, MissingFileWithoutStatsIsNotFoundNamingIt) {
  TempDir dir;
  WriteCommit(
      dir.path(), 0,
      {ProtocolAction(1, 2), MetadataAction(kSchema), AddAction("nostats.parquet")});
  auto counted = Count(dir.path());
  ASSERT_FALSE(counted);
  EXPECT_EQ(counted.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(counted.error().message, HasSubstr("nostats.parquet"));
}

TEST(RowCountTest, CorruptFooterIsCorruptData) {
  TempDir dir;
  testing::WriteTextFile(dir.Join("bad.parquet"), "PAR1 definitely not a footer");
  WriteCommit(dir.path(), 0,
              {ProtocolAction(1, 2), MetadataAction(kSchema), AddAction("bad.parquet")});
  auto counted = Count(dir.path());
  ASSERT_FALSE(counted);
  EXPECT_EQ(counted.error().code, ErrorCode::kCorruptData);
  EXPECT_THAT(counted.error().message, HasSubstr("bad.parquet"));
}

}  // namespace
}  // namespace deltaguard
