// HistoryDrift (the classified changes per version and its range checks) and the bound
// on input evidence; the CLI and SQL front ends are covered by test/cli/test_drift.py
// and test/sql/describe/schema_changes.test, describe_drift.test.

#include "deltaguard/table/table_drift.h"

#include <arrow/api.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/table/table.h"
#include "deltaguard/table/write.h"
#include "testing/temp_dir.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

using testing::Ddl;
using ::testing::HasSubstr;
using testing::TempDir;

TEST(TableDriftTest, HistoryDriftListsSchemaChangesInRange) {
  TempDir dir;
  const std::string root = dir.Join("t");
  CreateTableOptions create;
  create.schema = Ddl("id BIGINT NOT NULL");
  ASSERT_TRUE(CreateTable(MakeLocalFileSystem(), root, create));
  CreateTableOptions replace;
  replace.schema = Ddl("id BIGINT NOT NULL, note STRING");
  ASSERT_TRUE(ReplaceTable(MakeLocalFileSystem(), root, replace, std::nullopt,
                           "CREATE OR REPLACE TABLE"));
  auto fs = MakeLocalFileSystem();
  auto all = HistoryDrift(*fs, root);
  ASSERT_TRUE(all) << all.error().ToString();
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].version, 1);
  EXPECT_EQ((*all)[0].operation, "CREATE OR REPLACE TABLE");
  ASSERT_EQ((*all)[0].changes.size(), 1u);
  EXPECT_EQ((*all)[0].changes[0].cls, ChangeClass::kColumnAddedNullable);
  EXPECT_EQ((*all)[0].changes[0].path, "note");

  auto first = HistoryDrift(*fs, root, 0, 0);
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->empty());
  auto from_one = HistoryDrift(*fs, root, 1);
  ASSERT_TRUE(from_one);
  EXPECT_EQ(from_one->size(), 1u);

  auto reversed = HistoryDrift(*fs, root, 1, 0);
  ASSERT_FALSE(reversed);
  EXPECT_EQ(reversed.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(reversed.error().message,
              HasSubstr("from_version 1 is after to_version 0"));
  auto beyond = HistoryDrift(*fs, root, std::nullopt, 5);
  ASSERT_FALSE(beyond);
  EXPECT_THAT(beyond.error().message, HasSubstr("after the latest version 1"));
  auto negative = HistoryDrift(*fs, root, -1);
  ASSERT_FALSE(negative);
  EXPECT_THAT(negative.error().message, HasSubstr("got -1"));
}

TEST(TableDriftTest, BatchEvidenceReadsAtMostTheSampleRows) {
  arrow::Int64Builder ids;
  for (int64_t i = 0; i < 5000; ++i) ASSERT_TRUE(ids.Append(i).ok());
  std::shared_ptr<arrow::Array> array;
  ASSERT_TRUE(ids.Finish(&array).ok());
  auto batch = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("id", arrow::int64())}), array->length(), {array});
  auto evidence = BatchDriftEvidence(*batch);
  ASSERT_EQ(evidence.size(), 1u);
  EXPECT_EQ(evidence[0].path, "id");
  EXPECT_EQ(evidence[0].num_records, kDriftSampleRows);
  EXPECT_EQ(evidence[0].samples.size(), kDriftSampleValues);
  EXPECT_EQ(evidence[0].min, "0");
  EXPECT_EQ(evidence[0].max, std::to_string(kDriftSampleRows - 1));
}

}  // namespace
}  // namespace deltaguard
