// ParquetCheckpointReader skips columns that footer statistics prove null in every row;
// these tests check that skipping never changes what is read.

#include <gtest/gtest.h>

#include "deltaguard/io/parquet/checkpoint_reader.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

// Structs with a required field, as Delta writers declare them: the reader may then
// prove a whole struct null from the required field's null count.
std::shared_ptr<arrow::DataType> DvType() {
  return arrow::struct_({arrow::field("storageType", arrow::utf8(), false),
                         arrow::field("pathOrInlineDv", arrow::utf8(), false),
                         arrow::field("sizeInBytes", arrow::int32(), false),
                         arrow::field("cardinality", arrow::int64(), false)});
}

std::shared_ptr<arrow::DataType> AddType() {
  return arrow::struct_({arrow::field("path", arrow::utf8(), false),
                         arrow::field("size", arrow::int64(), false),
                         arrow::field("deletionVector", DvType()),
                         arrow::field("baseRowId", arrow::int64())});
}

std::shared_ptr<arrow::DataType> RemoveType() {
  return arrow::struct_({arrow::field("path", arrow::utf8(), false),
                         arrow::field("deletionTimestamp", arrow::int64())});
}

std::shared_ptr<arrow::RecordBatch> Batch(const std::string& adds,
                                          const std::string& removes) {
  return arrow::RecordBatch::Make(
      arrow::schema(
          {arrow::field("add", AddType()), arrow::field("remove", RemoveType())}),
      3, {ArrayFromJson(AddType(), adds), ArrayFromJson(RemoveType(), removes)});
}

TEST(CheckpointReaderStatsTest, AllNullColumnsReadAsNull) {
  TempDir dir;
  std::string path = dir.Join("cp.parquet");
  WriteParquet(path,
               Batch(R"([{"path": "a", "size": 1}, {"path": "b", "size": 2}, null])",
                     "[null, null, null]"));
  auto split = ParquetCheckpointReader(MakeLocalFileSystem()).ReadCheckpointSplit(path);
  ASSERT_TRUE(split) << split.error().ToString();
  ASSERT_EQ(split->adds.size(), 2u);
  EXPECT_EQ(split->adds[1].path, "b");
  EXPECT_EQ(split->adds[1].size, 2);
  EXPECT_FALSE(split->adds[1].deletion_vector.has_value());
  EXPECT_FALSE(split->adds[1].base_row_id.has_value());
  EXPECT_TRUE(split->removes.empty());
}

// Statistics are per row group: a struct null in one row group but not in another is
// read, and so is a nested struct with a single non-null row.
TEST(CheckpointReaderStatsTest, ColumnsNullInSomeRowGroupsOnlyAreRead) {
  TempDir dir;
  std::string path = dir.Join("cp.parquet");
  WriteParquet(path,
               Batch(R"([{"path": "a", "size": 1}, null,
                         {"path": "c", "size": 3, "baseRowId": 7,
                          "deletionVector": {"storageType": "u", "pathOrInlineDv": "x",
                                             "sizeInBytes": 4, "cardinality": 2}}])",
                     R"([null, {"path": "b", "deletionTimestamp": 9}, null])"),
               /*int96=*/false, /*row_group_size=*/1);
  auto split = ParquetCheckpointReader(MakeLocalFileSystem()).ReadCheckpointSplit(path);
  ASSERT_TRUE(split) << split.error().ToString();
  ASSERT_EQ(split->adds.size(), 2u);
  ASSERT_TRUE(split->adds[1].deletion_vector.has_value());
  EXPECT_EQ(split->adds[1].deletion_vector->path_or_inline_dv, "x");
  EXPECT_EQ(split->adds[1].deletion_vector->cardinality, 2);
  EXPECT_EQ(split->adds[1].base_row_id, 7);
  ASSERT_EQ(split->removes.size(), 1u);
  EXPECT_EQ(split->removes[0].path, "b");
  EXPECT_EQ(split->removes[0].deletion_timestamp, 9);
}

}  // namespace
}  // namespace deltaguard
