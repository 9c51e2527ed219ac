// DataFileWriter's file streams (data_file_stream_internal.h): row groups dealt to
// parallel streams give the same files as encoding them one by one on the caller's
// thread; a failing stream aborts the write and leaves no file behind; nearly-unique
// columns skip dictionary encoding.

#include <arrow/array.h>
#include <arrow/array/builder_binary.h>
#include <arrow/array/builder_decimal.h>
#include <arrow/array/builder_primitive.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "deltaguard/io/fs/fault_injection_file_system.h"
#include "deltaguard/io/parquet/data_file_writer.h"
#include "deltaguard/io/parquet/parquet_file.h"
#include "deltaguard/util/string_util.h"
#include "testing/matchers.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

const char kSchema[] =
    "x BIGINT, k INT, s STRING, d DOUBLE, st STRUCT<u: BIGINT, c: STRING>";

// Rows start..start+n: x, d and st.u unique; k, s and st.c repeat.
std::shared_ptr<arrow::RecordBatch> Batch(int64_t start, int64_t n) {
  arrow::Int64Builder x, u;
  arrow::Int32Builder k;
  arrow::StringBuilder s, c;
  arrow::DoubleBuilder d;
  for (int64_t i = start; i < start + n; ++i) {
    EXPECT_TRUE(x.Append(i).ok());
    EXPECT_TRUE(k.Append(static_cast<int32_t>(i % 10)).ok());
    EXPECT_TRUE(
        (i % 7 == 0 ? s.AppendNull() : s.Append("s" + std::to_string(i % 50))).ok());
    EXPECT_TRUE(d.Append(static_cast<double>(i) * 0.5).ok());
    EXPECT_TRUE(u.Append(i * 3).ok());
    EXPECT_TRUE(c.Append("c" + std::to_string(i % 3)).ok());
  }
  auto finish = [](arrow::ArrayBuilder& b) {
    std::shared_ptr<arrow::Array> out;
    EXPECT_TRUE(b.Finish(&out).ok());
    return out;
  };
  auto schema = ToArrowSchema(*Ddl(kSchema));
  EXPECT_TRUE(schema);
  auto st = arrow::StructArray::Make({finish(u), finish(c)},
                                     (*schema)->field(4)->type()->fields());
  EXPECT_TRUE(st.ok());
  return arrow::RecordBatch::Make(*schema, n,
                                  {finish(x), finish(k), finish(s), finish(d), *st});
}

class DataFileStreamTest : public ::testing::Test {
 protected:
  // Writes rows 0..rows in batches of `batch_rows` into a fresh directory.
  Result<std::vector<WrittenFile>> Write(const std::string& root,
                                         const DataFileWriterOptions& options,
                                         int64_t rows, int64_t batch_rows,
                                         FileSystemRef fs = MakeLocalFileSystem()) {
    DELTA_ASSIGN_OR_RETURN(auto writer,
                           DataFileWriter::Make(fs, root, Ddl(kSchema),
                                                ColumnMappingMode::kNone, {}, options));
    for (int64_t start = 0; start < rows; start += batch_rows) {
      Status st = writer->Write(*Batch(start, std::min(batch_rows, rows - start)));
      if (!st) {
        writer->Abort();  // as PartitionedWriter does for a failed write
        return st.error();
      }
    }
    return writer->Finish();
  }

  static std::string FilePath(const std::string& root, const WrittenFile& f) {
    return root + "/" + *PercentDecode(f.relative_path);
  }

  // "part-00003" of "part-00003-<uuid>.c000.snappy.parquet".
  static std::string Number(const WrittenFile& f) {
    return f.relative_path.substr(0, 10);
  }

  static int ParquetFileCount(const std::string& root) {
    int n = 0;
    if (!std::filesystem::exists(root)) return 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
      // Temporary files of abandoned writes count too: none may be left.
      if (e.is_regular_file()) ++n;
    }
    return n;
  }

  // x of every row, file by file in the listed order.
  std::vector<int64_t> Xs(const std::string& root,
                          const std::vector<WrittenFile>& files) {
    std::vector<int64_t> xs;
    for (const auto& f : files) {
      auto reader = OpenParquetFile(fs_, FilePath(root, f),
                                    DefaultArrowReaderProperties(false, 4096),
                                    ErrorCode::kCorruptData);
      EXPECT_TRUE(reader);
      if (!reader) continue;
      std::shared_ptr<arrow::Table> table;
      EXPECT_TRUE((*reader)->ReadTable({0}, &table).ok());
      for (const auto& chunk : table->column(0)->chunks()) {
        const auto& a = static_cast<const arrow::Int64Array&>(*chunk);
        for (int64_t i = 0; i < a.length(); ++i) xs.push_back(a.Value(i));
      }
    }
    return xs;
  }

  TempDir dir_;
  FileSystemRef fs_ = MakeLocalFileSystem();
};

TEST_F(DataFileStreamTest, ThreadedStreamsWriteTheSameFilesAsTheSequentialPath) {
  for (int streams : {1, 2, 3}) {
    SCOPED_TRACE("file_streams " + std::to_string(streams));
    DataFileWriterOptions options;
    options.row_group_rows = 3000;
    options.target_file_size_bytes = 60 * 1024;  // a few row groups per file
    options.file_streams = streams;
    options.threads = false;
    const std::string seq_root = dir_.Join("seq" + std::to_string(streams));
    auto sequential = Write(seq_root, options, 40000, 2500);
    ASSERT_TRUE(sequential) << sequential.error().ToString();
    options.threads = true;
    const std::string par_root = dir_.Join("par" + std::to_string(streams));
    auto threaded = Write(par_root, options, 40000, 2500);
    ASSERT_TRUE(threaded) << threaded.error().ToString();

    ASSERT_EQ(sequential->size(), threaded->size());
    EXPECT_GT(sequential->size(), static_cast<size_t>(streams));
    int64_t records = 0;
    for (size_t i = 0; i < sequential->size(); ++i) {
      const WrittenFile& a = (*sequential)[i];
      const WrittenFile& b = (*threaded)[i];
      EXPECT_EQ(Number(a), Number(b));  // names differ only by their UUID
      EXPECT_EQ(a.size, b.size);
      EXPECT_EQ(a.num_records, b.num_records);
      EXPECT_EQ(a.stats_json, b.stats_json);
      EXPECT_TRUE(ReadTextFile(FilePath(seq_root, a)) ==
                  ReadTextFile(FilePath(par_root, b)))
          << "file " << i << " differs";
      records += a.num_records;
    }
    EXPECT_EQ(records, 40000);
    // Every row exactly once, whatever the number of streams.
    std::vector<int64_t> xs = Xs(par_root, *threaded);
    std::sort(xs.begin(), xs.end());
    ASSERT_EQ(xs.size(), 40000u);
    for (int64_t i = 0; i < 40000; ++i) ASSERT_EQ(xs[static_cast<size_t>(i)], i);
  }
}

TEST_F(DataFileStreamTest, RowGroupsAreDealtRoundRobinAndFilesListedByFirstRowGroup) {
  DataFileWriterOptions options;
  options.row_group_rows = 100;
  options.file_streams = 2;
  const std::string root = dir_.Join("t");
  auto files = Write(root, options, 500, 60);  // row groups 0..4
  ASSERT_TRUE(files) << files.error().ToString();
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ(Number((*files)[0]), "part-00000");
  EXPECT_EQ(Number((*files)[1]), "part-00001");
  EXPECT_EQ((*files)[0].num_records, 300);  // row groups 0, 2, 4
  EXPECT_EQ((*files)[1].num_records, 200);  // row groups 1, 3
  std::vector<int64_t> expected;
  for (int64_t rg : {0, 2, 4, 1, 3}) {
    for (int64_t i = rg * 100; i < rg * 100 + 100; ++i) expected.push_back(i);
  }
  EXPECT_EQ(Xs(root, *files), expected);
  EXPECT_THAT((*files)[0].stats_json, HasSubstr(R"("minValues":{"x":0,)"));
  EXPECT_THAT((*files)[0].stats_json, HasSubstr(R"("maxValues":{"x":499,)"));
  EXPECT_THAT((*files)[1].stats_json, HasSubstr(R"("minValues":{"x":100,)"));
  EXPECT_THAT((*files)[1].stats_json, HasSubstr(R"("maxValues":{"x":399,)"));
}

TEST_F(DataFileStreamTest, FileStreamsMustBePositive) {
  DataFileWriterOptions options;
  options.file_streams = 0;
  auto writer = DataFileWriter::Make(fs_, dir_.path(), Ddl(kSchema),
                                     ColumnMappingMode::kNone, {}, options);
  ASSERT_FALSE(writer);
  EXPECT_THAT(writer.error().ToString(), HasSubstr("file streams (0)"));
}

// Storage fails while one stream publishes a file: the write fails, and neither that
// stream's nor the other stream's files remain.
TEST_F(DataFileStreamTest, AFailingStreamAbortsTheWriteAndDeletesEveryFile) {
  for (const char* victim : {"part-00001-", "part-00002-", "part-00005-"}) {
    for (bool threads : {true, false}) {
      SCOPED_TRACE(std::string(victim) + (threads ? " threaded" : " inline"));
      auto faulty = std::make_shared<FaultInjectionFileSystem>(MakeLocalFileSystem());
      faulty->FailNextMatching(victim, Fault::kError);
      DataFileWriterOptions options;
      options.row_group_rows = 1000;
      options.target_file_size_bytes = 1;  // every row group is a file
      options.threads = threads;
      const std::string root =
          dir_.Join(std::string("fail") + victim + (threads ? "t" : "i"));
      auto files = Write(root, options, 8000, 700, faulty);
      ASSERT_FALSE(files);
      EXPECT_THAT(files.error().ToString(), HasSubstr("injected"));
      EXPECT_EQ(ParquetFileCount(root), 0);
    }
  }
}

TEST_F(DataFileStreamTest, AbortDeletesPublishedFilesAndStopsTheStreams) {
  DataFileWriterOptions options;
  options.row_group_rows = 3000;
  options.target_file_size_bytes = 1;  // three published files, one more pending
  const std::string root = dir_.Join("abort");
  auto writer = DataFileWriter::Make(fs_, root, Ddl(kSchema), ColumnMappingMode::kNone,
                                     {}, options);
  ASSERT_TRUE(writer);
  for (int64_t start = 0; start < 9500; start += 500)
    ASSERT_TRUE((*writer)->Write(*Batch(start, 500)));
  (*writer)->Abort();
  EXPECT_EQ(ParquetFileCount(root), 0);
  EXPECT_FALSE((*writer)->Finish());
}

TEST_F(DataFileStreamTest, NearlyUniqueColumnsOfTheFirstBatchAreWrittenPlain) {
  auto has_dictionary = [&](int64_t rows) {
    const std::string root = dir_.Join("dict" + std::to_string(rows));
    auto files = Write(root, {}, rows, rows);
    EXPECT_TRUE(files);
    std::map<std::string, bool> out;
    if (!files || files->empty()) return out;
    auto reader = parquet::ParquetFileReader::OpenFile(FilePath(root, (*files)[0]));
    auto rg = reader->metadata()->RowGroup(0);
    for (int i = 0; i < rg->num_columns(); ++i) {
      out[rg->ColumnChunk(i)->path_in_schema()->ToDotString()] =
          rg->ColumnChunk(i)->has_dictionary_page();
    }
    return out;
  };
  // 20,000 rows: x, d and st.u are unique, so they skip the dictionary.
  EXPECT_EQ(has_dictionary(20000), (std::map<std::string, bool>{{"x", false},
                                                                {"k", true},
                                                                {"s", true},
                                                                {"d", false},
                                                                {"st.u", false},
                                                                {"st.c", true}}));
  // Too few rows to judge: the Parquet default (dictionary) everywhere.
  for (const auto& [column, dictionary] : has_dictionary(5000))
    EXPECT_TRUE(dictionary) << column;
}

TEST_F(DataFileStreamTest, ColumnsWhoseDictionaryWouldOutgrowItsPageAreWrittenPlain) {
  // `wide`: 80,000 distinct 16-byte codes in pseudo-random order, so the 64k-row sample
  // repeats some (about 44,000 distinct: not "nearly unique"), but a row group's
  // dictionary would pass Parquet's 1 MiB page limit and fall back to PLAIN anyway.
  // `narrow`: 100 codes, dictionary-encoded as before. `fee`: 100,000 distinct 8-byte
  // values, the same shape as `wide` in the sample, but 800 KB of dictionary: kept;
  // `price` too (DECIMAL(12,4) is 16 bytes in Arrow but an 8-byte INT64 in the file).
  const int64_t n = 200000;
  arrow::StringBuilder wide, narrow;
  arrow::Int64Builder fee;
  arrow::Decimal128Builder price(arrow::decimal128(12, 4));
  for (int64_t i = 0; i < n; ++i) {
    uint64_t h = static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ULL;  // pseudo-random
    h ^= h >> 29;
    const auto code = (h * 0xBF58476D1CE4E5B9ULL >> 32) % 80000;
    ASSERT_TRUE(wide.Append(fmt::format("customer-{:07d}", code)).ok());
    ASSERT_TRUE(narrow.Append(fmt::format("status-{}", code % 100)).ok());
    const auto cents = static_cast<int64_t>((h * 0x94D049BB133111EBULL >> 32) % 100000);
    ASSERT_TRUE(fee.Append(cents).ok());
    ASSERT_TRUE(price.Append(arrow::Decimal128(cents)).ok());
  }
  std::shared_ptr<arrow::Array> a, b, c, e;
  ASSERT_TRUE(wide.Finish(&a).ok());
  ASSERT_TRUE(narrow.Finish(&b).ok());
  ASSERT_TRUE(fee.Finish(&c).ok());
  ASSERT_TRUE(price.Finish(&e).ok());
  const char kColumns[] = "wide STRING, narrow STRING, fee BIGINT, price DECIMAL(12,4)";
  auto schema = ToArrowSchema(*Ddl(kColumns));
  ASSERT_TRUE(schema);
  const std::string root = dir_.Join("wide");
  auto writer =
      DataFileWriter::Make(fs_, root, Ddl(kColumns), ColumnMappingMode::kNone, {}, {});
  ASSERT_TRUE(writer) << writer.error().ToString();
  ASSERT_TRUE((*writer)->Write(*arrow::RecordBatch::Make(*schema, n, {a, b, c, e})));
  auto files = (*writer)->Finish();
  ASSERT_TRUE(files) << files.error().ToString();
  ASSERT_FALSE(files->empty());
  auto reader = parquet::ParquetFileReader::OpenFile(FilePath(root, (*files)[0]));
  auto rg = reader->metadata()->RowGroup(0);
  EXPECT_FALSE(rg->ColumnChunk(0)->has_dictionary_page());
  EXPECT_TRUE(rg->ColumnChunk(1)->has_dictionary_page());
  EXPECT_TRUE(rg->ColumnChunk(2)->has_dictionary_page());
  EXPECT_TRUE(rg->ColumnChunk(3)->has_dictionary_page());
}

TEST_F(DataFileStreamTest, TheLastRowsAreSplitBetweenTheStreams) {
  // 200,000 rows, less than one row group: with two streams, two row groups (files) of
  // 100,000 rows that encode in parallel; with one stream, or under 2 x 65,536 rows,
  // one.
  struct Case {
    int streams;
    int64_t rows;
    std::vector<int64_t> files;
  };
  for (const Case& c :
       {Case{2, 200000, {100000, 100000}}, Case{3, 200001, {66667, 66667, 66667}},
        Case{3, 150000, {75000, 75000}}, Case{1, 200000, {200000}},
        Case{2, 100000, {100000}}}) {
    SCOPED_TRACE(std::to_string(c.streams) + " streams, " + std::to_string(c.rows));
    DataFileWriterOptions options;
    options.file_streams = c.streams;
    const std::string root =
        dir_.Join("split" + std::to_string(c.streams) + "_" + std::to_string(c.rows));
    auto files = Write(root, options, c.rows, 30000);
    ASSERT_TRUE(files) << files.error().ToString();
    std::vector<int64_t> rows;
    for (const auto& f : *files) rows.push_back(f.num_records);
    EXPECT_EQ(rows, c.files);
    // Every row once, in order within each file.
    std::vector<int64_t> xs = Xs(root, *files);
    ASSERT_EQ(static_cast<int64_t>(xs.size()), c.rows);
    for (int64_t i = 0; i < c.rows; ++i) ASSERT_EQ(xs[static_cast<size_t>(i)], i);
  }
}

TEST_F(DataFileStreamTest, TheLastRowsGoFirstToTheStreamThatWillBeFreeFirst) {
  // Row groups of 300,000 rows: 0 and 2 to stream 0, 1 to stream 1, which will finish
  // half a row group earlier; the last 200,000 rows are water-filled from there: stream
  // 1 would get 175,000 and stream 0 25,000, too few for a row group of its own, so
  // stream 1 gets all of them (an even split would give each 100,000).
  DataFileWriterOptions options;
  options.row_group_rows = 300000;
  options.file_streams = 2;
  const std::string root = dir_.Join("fill");
  auto files = Write(root, options, 1100000, 100000);
  ASSERT_TRUE(files) << files.error().ToString();
  std::vector<int64_t> rows;
  for (const auto& f : *files) rows.push_back(f.num_records);
  EXPECT_EQ(rows, (std::vector<int64_t>{600000, 500000}));
  EXPECT_EQ(static_cast<int64_t>(Xs(root, *files).size()), 1100000);
}

TEST_F(DataFileStreamTest, FilesCloseNearestTheirTargetSize) {
  DataFileWriterOptions options;
  options.row_group_rows = 2000;
  options.file_streams = 1;
  options.threads = false;
  // The size of one row group: ten of them in one file (they vary by a few %).
  auto one = Write(dir_.Join("one"), options, 20000, 2000);
  ASSERT_TRUE(one) << one.error().ToString();
  ASSERT_EQ(one->size(), 1u);
  const int64_t row_group = (*one)[0].size / 10;
  // Target 3.3 row groups (row groups stay cut by rows: the in-memory data of one is
  // about 2.5 of its encoded size). Three row groups end 0.3 short, a fourth would end
  // 0.7 over, so every file holds three (closing only past the target gave four).
  options.target_file_size_bytes = row_group * 33 / 10;
  auto files = Write(dir_.Join("near"), options, 20000, 2000);
  ASSERT_TRUE(files) << files.error().ToString();
  ASSERT_EQ(files->size(), 4u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ((*files)[i].num_records, 6000) << i;
  EXPECT_EQ((*files)[3].num_records, 2000);
}

}  // namespace
}  // namespace deltaguard
