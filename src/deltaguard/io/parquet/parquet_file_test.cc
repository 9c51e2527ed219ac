#include "deltaguard/io/parquet/parquet_file.h"

#include <arrow/buffer.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/io/fs/fault_injection_file_system.h"
#include "testing/matchers.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

std::shared_ptr<arrow::RecordBatch> Ints(const std::string& json) {
  auto field = arrow::field("x", arrow::int32());
  auto array = ArrayFromJson(field->type(), json);
  return arrow::RecordBatch::Make(arrow::schema({field}), array->length(), {array});
}

TEST(FileSystemRandomAccessFileTest, ReadsSeeksAndClampsAtTheEnd) {
  TempDir dir;
  WriteTextFile(dir.Join("f"), "0123456789");
  auto file = FileSystemRandomAccessFile::Open(MakeLocalFileSystem(), dir.Join("f"));
  ASSERT_TRUE(file) << file.error().ToString();
  EXPECT_EQ(*(*file)->GetSize(), 10);
  auto at = (*file)->ReadAt(7, 10);  // past the end: the 3 bytes that exist
  ASSERT_TRUE(at.ok());
  EXPECT_EQ((*at)->ToString(), "789");
  EXPECT_EQ((*(*file)->ReadAt(12, 4))->size(), 0);
  ASSERT_TRUE((*file)->Seek(2).ok());
  EXPECT_EQ((*(*file)->Read(3))->ToString(), "234");
  EXPECT_EQ(*(*file)->Tell(), 5);
  char buf[4];
  EXPECT_EQ(*(*file)->Read(4, buf), 4);
  EXPECT_EQ(std::string(buf, 4), "5678");
  EXPECT_FALSE((*file)->ReadAt(-1, 2).ok());
  EXPECT_FALSE((*file)->closed());
  ASSERT_TRUE((*file)->Close().ok());
  EXPECT_TRUE((*file)->closed());

  auto missing =
      FileSystemRandomAccessFile::Open(MakeLocalFileSystem(), dir.Join("nope"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
}

// The local file system maps the file (zero-copy reads); a wrapper is read through
// ReadRange; both read the same bytes.
TEST(FileSystemRandomAccessFileTest, MappedAndReadPathsAgree) {
  TempDir dir;
  WriteTextFile(dir.Join("f"), "0123456789");
  auto mapped = FileSystemRandomAccessFile::Open(MakeLocalFileSystem(), dir.Join("f"));
  ASSERT_TRUE(mapped) << mapped.error().ToString();
  EXPECT_TRUE((*mapped)->supports_zero_copy());
  auto faulty = std::make_shared<FaultInjectionFileSystem>(MakeLocalFileSystem());
  auto read = FileSystemRandomAccessFile::Open(faulty, dir.Join("f"));
  ASSERT_TRUE(read) << read.error().ToString();
  EXPECT_FALSE((*read)->supports_zero_copy());
  for (auto [pos, n] : {std::pair{0, 10}, {3, 4}, {8, 5}, {10, 1}}) {
    auto a = (*mapped)->ReadAt(pos, n);
    auto b = (*read)->ReadAt(pos, n);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ((*a)->ToString(), (*b)->ToString()) << pos << "+" << n;
  }
  // A buffer outlives the file object that produced it (it holds the mapping).
  auto kept = (*mapped)->ReadAt(2, 3);
  ASSERT_TRUE(kept.ok());
  mapped = Result<std::shared_ptr<FileSystemRandomAccessFile>>(nullptr);
  EXPECT_EQ((*kept)->ToString(), "234");
}

TEST(ParquetFileTest, FooterRowCountAndFullScan) {
  TempDir dir;
  WriteParquet(dir.Join("a.parquet"), Ints("[1, 2, null, 4, 5]"), false, 2);
  auto fs = MakeLocalFileSystem();
  auto footer = ReadParquetFooterRowCount(fs, dir.Join("a.parquet"));
  ASSERT_TRUE(footer) << footer.error().ToString();
  EXPECT_EQ(*footer, 5);
  auto scanned = ScanParquetFile(dir.Join("a.parquet"));
  ASSERT_TRUE(scanned) << scanned.error().ToString();
  EXPECT_EQ(*scanned, 5);
}

TEST(ParquetFileTest, CorruptFilesAreErrorsNamingTheFile) {
  TempDir dir;
  WriteParquet(dir.Join("a.parquet"), Ints("[1, 2, 3]"));
  std::string bytes = testing::ReadTextFile(dir.Join("a.parquet"));
  WriteTextFile(dir.Join("cut.parquet"), bytes.substr(0, bytes.size() - 10));
  auto cut = ScanParquetFile(dir.Join("cut.parquet"));
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().code, ErrorCode::kCorruptData);
  EXPECT_THAT(cut.error().message, HasSubstr("cut.parquet"));

  WriteTextFile(dir.Join("empty.parquet"), "");
  auto empty =
      ReadParquetFooterRowCount(MakeLocalFileSystem(), dir.Join("empty.parquet"));
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code, ErrorCode::kCorruptData);
  EXPECT_THAT(empty.error().message, HasSubstr("empty.parquet"));

  auto as_log =
      OpenParquetFile(MakeLocalFileSystem(), dir.Join("cut.parquet"),
                      DefaultArrowReaderProperties(false, 10), ErrorCode::kCorruptLog);
  ASSERT_FALSE(as_log);
  EXPECT_EQ(as_log.error().code, ErrorCode::kCorruptLog);
}

TEST(ParquetFileTest, ArrowComputeInitializesOnce) {
  EXPECT_TRUE(InitializeArrowCompute());
  EXPECT_TRUE(InitializeArrowCompute());
}

}  // namespace
}  // namespace deltaguard
