// Tests for input_source: formats, type hints, bad values, globs and directories.
#include "deltaguard/exec/input_source.h"

#include <arrow/array.h>
#include <arrow/io/file.h>
#include <arrow/ipc/writer.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/input_test_util_internal.h"
#include "deltaguard/exec/text_values_internal.h"
#include "deltaguard/io/fs/fault_injection_file_system.h"
#include "testing/matchers.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

using ::testing::ElementsAre;
using testing::ReadAll;

std::shared_ptr<arrow::RecordBatch> SampleBatch() {
  auto schema = arrow::schema(
      {arrow::field("id", arrow::int64()), arrow::field("name", arrow::utf8())});
  return arrow::RecordBatch::Make(schema, 3,
                                  {ArrayFromJson(arrow::int64(), "[1, 2, 3]"),
                                   ArrayFromJson(arrow::utf8(), R"(["a", null, "c"])")});
}

TEST(InputFormatTest, ParseAndResolve) {
  EXPECT_EQ(*ParseInputFormat("NDJSON"), InputFormat::kJson);
  EXPECT_EQ(*ParseInputFormat("jsonl"), InputFormat::kJson);
  EXPECT_EQ(*ParseInputFormat("feather"), InputFormat::kArrowIpc);
  EXPECT_EQ(*ParseInputFormat("parquet"), InputFormat::kParquet);
  EXPECT_EQ(ParseInputFormat("xlsx").error().code, ErrorCode::kInvalidArgument);
  InputOptions auto_options;
  EXPECT_EQ(*ResolveInputFormat("x/a.PQ", auto_options), InputFormat::kParquet);
  EXPECT_EQ(*ResolveInputFormat("a.tsv", auto_options), InputFormat::kCsv);
  EXPECT_EQ(*ResolveInputFormat("a.ipc", auto_options), InputFormat::kArrowIpc);
  auto unknown = ResolveInputFormat("data.txt", auto_options);
  ASSERT_FALSE(unknown);
  EXPECT_THAT(unknown.error().message, HasSubstr("data.txt"));
  InputOptions forced;
  forced.format = InputFormat::kCsv;
  EXPECT_EQ(*ResolveInputFormat("data.txt", forced), InputFormat::kCsv);
}

TEST(InputSourceTest, ParquetStreamsRowGroupsInBatchRows) {
  TempDir dir;
  std::string path = dir.Join("in.parquet");
  WriteParquet(path, SampleBatch(), false, /*row_group_size=*/2);
  InputOptions options;
  options.batch_rows = 2;
  InputFile file;
  auto batches = ReadAll(path, options, &file);
  ASSERT_TRUE(batches) << batches.error().ToString();
  EXPECT_EQ(file.format, InputFormat::kParquet);
  EXPECT_EQ(file.schema->field(0)->name(), "id");
  ASSERT_EQ(batches->size(), 2u);
  EXPECT_EQ((*batches)[0]->num_rows(), 2);
  EXPECT_EQ((*batches)[1]->num_rows(), 1);
}

TEST(InputSourceTest, ParquetDecodesOnlyTheColumnsAsked) {
  TempDir dir;
  std::string path = dir.Join("in.parquet");
  auto s_type = arrow::struct_(
      {arrow::field("a", arrow::int32()), arrow::field("b", arrow::utf8())});
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64()),
                     arrow::field("name", arrow::utf8()), arrow::field("s", s_type)});
  auto batch =
      arrow::RecordBatch::Make(schema, 2,
                               {ArrayFromJson(arrow::int64(), "[1, 2]"),
                                ArrayFromJson(arrow::utf8(), R"(["a", null])"),
                                ArrayFromJson(s_type, R"([{"a": 1, "b": "x"}, null])")});
  WriteParquet(path, batch);
  auto names = [&](std::optional<std::vector<std::string>> columns) {
    InputOptions options;
    options.columns = std::move(columns);
    auto batches = ReadAll(path, options);
    EXPECT_TRUE(batches) << batches.error().ToString();
    std::vector<std::string> out;
    if (!batches || batches->empty()) return out;
    EXPECT_EQ((*batches)[0]->num_rows(), 2);
    for (const auto& f : (*batches)[0]->schema()->fields()) out.push_back(f->name());
    return out;
  };
  // In the file's order, case-insensitive; a struct keeps every field.
  EXPECT_THAT(names(std::vector<std::string>{"S", "id"}), ElementsAre("id", "s"));
  EXPECT_THAT(names(std::vector<std::string>{"NAME"}), ElementsAre("name"));
  // No column (count(*)): the first, for the rows.
  EXPECT_THAT(names(std::vector<std::string>{}), ElementsAre("id"));
  // A name that is not a column, or no projection: everything.
  EXPECT_THAT(names(std::vector<std::string>{"id", "nope"}),
              ElementsAre("id", "name", "s"));
  EXPECT_THAT(names(std::nullopt), ElementsAre("id", "name", "s"));
  // The values are the file's.
  InputOptions options;
  options.columns = std::vector<std::string>{"s"};
  auto batches = ReadAll(path, options);
  ASSERT_TRUE(batches);
  EXPECT_TRUE((*batches)[0]->column(0)->Equals(*batch->column(2)));
}

TEST(InputSourceTest, TruncatedParquetIsCorruptData) {
  TempDir dir;
  std::string path = dir.Join("bad.parquet");
  WriteParquet(path, SampleBatch());
  std::string bytes = testing::ReadTextFile(path);
  WriteTextFile(path, bytes.substr(0, bytes.size() / 2));
  auto file = InspectInput(path, {});
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().code, ErrorCode::kCorruptData);
  EXPECT_THAT(file.error().message, HasSubstr("bad.parquet"));
}

TEST(InputSourceTest, ArrowIpcFileAndStream) {
  TempDir dir;
  auto batch = SampleBatch();
  for (bool stream : {false, true}) {
    std::string path = dir.Join(stream ? "s.arrow" : "f.feather");
    auto out = arrow::io::FileOutputStream::Open(path).ValueOrDie();
    auto writer = stream ? arrow::ipc::MakeStreamWriter(out, batch->schema()).ValueOrDie()
                         : arrow::ipc::MakeFileWriter(out, batch->schema()).ValueOrDie();
    ASSERT_TRUE(writer->WriteRecordBatch(*batch).ok());
    ASSERT_TRUE(writer->WriteRecordBatch(*batch).ok());
    ASSERT_TRUE(writer->Close().ok());
    ASSERT_TRUE(out->Close().ok());
    InputOptions options;
    options.batch_rows = 2;
    auto batches = ReadAll(path, options);
    ASSERT_TRUE(batches) << batches.error().ToString();
    int64_t rows = 0;
    for (const auto& b : *batches) {
      EXPECT_LE(b->num_rows(), 2);
      rows += b->num_rows();
    }
    EXPECT_EQ(rows, 6) << path;
  }
  std::string garbage = dir.Join("g.arrow");
  WriteTextFile(garbage, "not arrow at all");
  auto bad = InspectInput(garbage, {});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kCorruptData);
  EXPECT_THAT(bad.error().message, HasSubstr("g.arrow"));
}

TEST(InputSourceTest, CsvWithHeaderUsesTableTypes) {
  TempDir dir;
  std::string path = dir.Join("in.csv");
  WriteTextFile(path,
                "ID,Zip,amount,day,at,local,flag,note\n"
                "1,007,12.30,2024-02-29,2024-01-01T10:00:00+02:00,2024-01-01 10:00:00.5,"
                "true,\"\"\n"
                "2,,1,2024-03-01,2024-01-01 00:00:00,2024-01-01,false,\n");
  InputOptions options;
  options.type_hint =
      Ddl("id INT, zip STRING, amount DECIMAL(10,2), day DATE, at TIMESTAMP, "
          "local TIMESTAMP_NTZ, flag BOOLEAN");
  InputFile file;
  auto batches = ReadAll(path, options, &file);
  ASSERT_TRUE(batches) << batches.error().ToString();
  ASSERT_EQ(batches->size(), 1u);
  const auto& b = *(*batches)[0];
  EXPECT_TRUE(b.schema()->Equals(*file.schema));
  EXPECT_EQ(b.schema()->field(0)->name(), "ID");  // header names as given
  EXPECT_TRUE(b.column(0)->Equals(*ArrayFromJson(arrow::int32(), "[1, 2]")));
  EXPECT_TRUE(b.column(1)->Equals(*ArrayFromJson(arrow::utf8(), R"(["007", null])")));
  EXPECT_TRUE(b.column(2)->Equals(
      *ArrayFromJson(arrow::decimal128(10, 2), R"(["12.30", "1.00"])")));
  EXPECT_TRUE(b.column(3)->Equals(*ArrayFromJson(arrow::date32(), "[19782, 19783]")));
  EXPECT_TRUE(
      b.column(4)->Equals(*ArrayFromJson(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
                                         "[1704096000000000, 1704067200000000]")))
      << b.column(4)->ToString();
  EXPECT_TRUE(b.column(5)->Equals(*ArrayFromJson(arrow::timestamp(arrow::TimeUnit::MICRO),
                                                 "[1704103200500000, 1704067200000000]")))
      << b.column(5)->ToString();
  EXPECT_TRUE(b.column(6)->Equals(*ArrayFromJson(arrow::boolean(), "[true, false]")));
  // Unmatched column: inferred; "" quoted is the empty string, unquoted empty is NULL.
  EXPECT_TRUE(b.column(7)->Equals(*ArrayFromJson(arrow::utf8(), R"(["", null])")))
      << b.column(7)->ToString();
}

TEST(InputSourceTest, CsvBadValueNamesFileRowAndColumn) {
  TempDir dir;
  std::string path = dir.Join("bad.csv");
  WriteTextFile(path, "id,name\n1,a\n2,b\nabc,c\n");
  InputOptions options;
  options.type_hint = Ddl("id INT, name STRING");
  auto batches = ReadAll(path, options);
  ASSERT_FALSE(batches);
  EXPECT_EQ(batches.error().code, ErrorCode::kParseError);
  EXPECT_THAT(batches.error().message, HasSubstr("bad.csv"));
  EXPECT_THAT(batches.error().message, HasSubstr("row 3"));
  EXPECT_THAT(batches.error().message, HasSubstr("column 'id'"));
  EXPECT_THAT(batches.error().message, HasSubstr("'abc'"));

  std::string overflow = dir.Join("overflow.csv");
  WriteTextFile(overflow, "id\n99999999999\n");
  auto too_big = ReadAll(overflow, options);
  ASSERT_FALSE(too_big);
  EXPECT_THAT(too_big.error().message, HasSubstr("99999999999"));

  std::string lossy = dir.Join("lossy.csv");
  WriteTextFile(lossy, "t\n2024-01-01 00:00:00.1234567\n");
  InputOptions ts_options;
  ts_options.type_hint = Ddl("t TIMESTAMP_NTZ");
  auto truncated = ReadAll(lossy, ts_options);
  ASSERT_FALSE(truncated);
  EXPECT_THAT(truncated.error().message, HasSubstr("sub-microsecond"));
}

TEST(InputSourceTest, HeaderlessCsv) {
  TempDir dir;
  std::string path = dir.Join("nohdr.csv");
  WriteTextFile(path, "1,x\n2,y\n");
  InputOptions options;
  options.csv_header = false;
  auto plain = ReadAll(path, options);
  ASSERT_TRUE(plain) << plain.error().ToString();
  EXPECT_EQ((*plain)[0]->schema()->field(0)->name(), "_c0");
  EXPECT_EQ((*plain)[0]->schema()->field(1)->name(), "_c1");
  EXPECT_EQ((*plain)[0]->num_rows(), 2);  // the first line is data

  options.type_hint = Ddl("n SMALLINT, s STRING");
  auto hinted = ReadAll(path, options);
  ASSERT_TRUE(hinted) << hinted.error().ToString();
  EXPECT_EQ((*hinted)[0]->schema()->field(0)->name(), "n");
  EXPECT_TRUE((*hinted)[0]->column(0)->Equals(*ArrayFromJson(arrow::int16(), "[1, 2]")));

  options.type_hint = Ddl("n SMALLINT, s STRING, extra INT");
  auto mismatch = InspectInput(path, options);
  ASSERT_FALSE(mismatch);
  EXPECT_THAT(mismatch.error().message, HasSubstr("2 columns but the table has 3"));
}

TEST(InputSourceTest, TsvByExtension) {
  TempDir dir;
  std::string path = dir.Join("in.tsv");
  WriteTextFile(path, "a\tb\n1\thello, world\n");
  auto batches = ReadAll(path, {});
  ASSERT_TRUE(batches) << batches.error().ToString();
  EXPECT_EQ((*batches)[0]->num_columns(), 2);
}

TEST(InputSourceTest, JsonWithHintsAndMalformedLine) {
  TempDir dir;
  std::string path = dir.Join("in.ndjson");
  WriteTextFile(
      path,
      R"({"Id": 1, "zip": "007", "at": "2024-01-01T00:00:00Z", "s": {"b": "x", "a": 2}, "other": 1.5})"
      "\n"
      R"({"Id": 2, "zip": null, "at": null, "s": null, "other": null})"
      "\n");
  InputOptions options;
  options.type_hint =
      Ddl("id SMALLINT, zip STRING, at TIMESTAMP, s STRUCT<a: INT, b: STRING>");
  auto batches = ReadAll(path, options);
  ASSERT_TRUE(batches) << batches.error().ToString();
  const auto& b = *(*batches)[0];
  EXPECT_TRUE(b.GetColumnByName("Id")->Equals(*ArrayFromJson(arrow::int16(), "[1, 2]")));
  EXPECT_TRUE(b.GetColumnByName("zip")->Equals(
      *ArrayFromJson(arrow::utf8(), R"(["007", null])")));
  EXPECT_TRUE(b.GetColumnByName("at")->Equals(*ArrayFromJson(
      arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"), "[1704067200000000, null]")));
  EXPECT_EQ(b.GetColumnByName("other")->type_id(), arrow::Type::DOUBLE);
  EXPECT_EQ(b.GetColumnByName("s")->type()->field(0)->name(), "a");

  std::string bad = dir.Join("bad.jsonl");
  WriteTextFile(bad, "{\"id\": 1}\n{\"id\": 2,,}\n");
  auto malformed = ReadAll(bad, {});
  ASSERT_FALSE(malformed);
  EXPECT_EQ(malformed.error().code, ErrorCode::kParseError);
  EXPECT_THAT(malformed.error().message, HasSubstr("bad.jsonl"));
  EXPECT_THAT(malformed.error().message, HasSubstr("line 2, column 10"));

  std::string wrong = dir.Join("wrong.json");
  WriteTextFile(wrong, "{\"id\": \"abc\"}\n");
  InputOptions int_hint;
  int_hint.type_hint = Ddl("id INT");
  auto wrong_type = ReadAll(wrong, int_hint);
  ASSERT_FALSE(wrong_type);
  EXPECT_THAT(wrong_type.error().message, HasSubstr("wrong.json"));
  // An error in the first block names its line as well.
  EXPECT_THAT(wrong_type.error().message, HasSubstr("at line 1"));
}

TEST(InputSourceTest, JsonDecimalsAreCheckedNamingRowAndColumn) {
  TempDir dir;
  InputOptions options;
  options.type_hint = Ddl("id INT, amount DECIMAL(10,2), big DECIMAL(38,0)");
  std::string good = dir.Join("good.json");
  WriteTextFile(good,
                "{\"id\": 1, \"amount\": 1.20, \"big\": "
                "12345678901234567890123456789012345678}\n"
                "{\"id\": 2, \"amount\": -99999999.99, \"big\": -1}\n"
                "{\"id\": 3, \"amount\": 7, \"big\": null}\n"
                "{\"id\": 4, \"amount\": null, \"big\": 0}\n");
  auto batches = ReadAll(good, options);
  ASSERT_TRUE(batches) << batches.error().ToString();
  const auto& b = *(*batches)[0];
  EXPECT_TRUE(b.GetColumnByName("amount")->Equals(*ArrayFromJson(
      arrow::decimal128(10, 2), R"(["1.20", "-99999999.99", "7.00", null])")))
      << b.GetColumnByName("amount")->ToString();
  EXPECT_TRUE(b.GetColumnByName("big")->Equals(
      *ArrayFromJson(arrow::decimal128(38, 0),
                     R"(["12345678901234567890123456789012345678", "-1", null, "0"])")))
      << b.GetColumnByName("big")->ToString();

  // Too many fractional digits, or too many integer digits: never rounded, an error
  // naming the file, the row, the column and the value.
  std::string scale = dir.Join("scale.json");
  WriteTextFile(scale, "{\"id\": 1, \"amount\": 1.5}\n{\"id\": 2, \"amount\": 1.234}\n");
  auto rounded = ReadAll(scale, options);
  ASSERT_FALSE(rounded);
  EXPECT_EQ(rounded.error().code, ErrorCode::kParseError);
  EXPECT_THAT(rounded.error().message,
              HasSubstr("input file '" + scale +
                        "', row 2, column 'amount': 1.234 does not fit decimal(10,2)"));
  std::string precision = dir.Join("precision.json");
  WriteTextFile(precision, "{\"id\": 1, \"amount\": 12345678901.5}\n");
  auto overflow = ReadAll(precision, options);
  ASSERT_FALSE(overflow);
  EXPECT_THAT(
      overflow.error().message,
      HasSubstr("row 1, column 'amount': 12345678901.5 does not fit decimal(10,2)"));
}

TEST(InputSourceTest, ExpandPathsGlobsAndDirectories) {
  TempDir dir;
  WriteTextFile(dir.Join("d/b.csv"), "a\n1\n");
  WriteTextFile(dir.Join("d/a.csv"), "a\n1\n");
  WriteTextFile(dir.Join("d/_SUCCESS"), "");
  WriteTextFile(dir.Join("d/.a.csv.crc"), "");
  WriteTextFile(dir.Join("d/sub/c.csv"), "a\n1\n");
  WriteTextFile(dir.Join("d/_tmp/x.csv"), "a\n1\n");
  WriteTextFile(dir.Join("g/x1.json"), "{}\n");
  WriteTextFile(dir.Join("g/x2.json"), "{}\n");
  WriteTextFile(dir.Join("g/y.json"), "{}\n");

  auto from_dir = ExpandInputPaths({dir.Join("d")});
  ASSERT_TRUE(from_dir) << from_dir.error().ToString();
  EXPECT_THAT(*from_dir, ElementsAre(dir.Join("d/a.csv"), dir.Join("d/b.csv"),
                                     dir.Join("d/sub/c.csv")));

  auto from_glob = ExpandInputPaths({dir.Join("g/x?.json"), dir.Join("d/a.csv")});
  ASSERT_TRUE(from_glob) << from_glob.error().ToString();
  EXPECT_THAT(*from_glob, ElementsAre(dir.Join("g/x1.json"), dir.Join("g/x2.json"),
                                      dir.Join("d/a.csv")));

  auto none = ExpandInputPaths({dir.Join("g/*.parquet")});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(none.error().message, HasSubstr("*.parquet"));

  auto missing = ExpandInputPaths({dir.Join("nope.csv")});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
}

TEST(InputSourceTest, InputsAreReadThroughTheirFileSystem) {
  // Expansion and every read of an input go through InputOptions::fs, so a fault there
  // is the read's error (and another storage needs only another FileSystem).
  TempDir dir;
  WriteTextFile(dir.Join("in/a.csv"), "a\n1\n2\n");
  WriteTextFile(dir.Join("in/b.json"), "{\"a\": 3}\n");
  auto fault = std::make_shared<FaultInjectionFileSystem>(MakeLocalFileSystem(),
                                                          /*count_reads=*/true);
  InputOptions options;
  options.fs = fault;
  auto paths = ExpandInputPaths({dir.Join("in")}, fault);
  ASSERT_TRUE(paths) << paths.error().ToString();
  EXPECT_THAT(*paths, ElementsAre(dir.Join("in/a.csv"), dir.Join("in/b.json")));
  int64_t rows = 0;
  for (const std::string& path : *paths) {
    auto batches = ReadAll(path, options);
    ASSERT_TRUE(batches) << batches.error().ToString();
    for (const auto& b : *batches) rows += b->num_rows();
  }
  EXPECT_EQ(rows, 3);
  const std::vector<std::string> ops = fault->ops();
  EXPECT_THAT(ops, ::testing::Contains("list " + dir.Join("in")));
  EXPECT_THAT(ops, ::testing::Contains("read_range " + dir.Join("in/b.json")));

  fault->FailNextMatching("a.csv", Fault::kError);
  auto failed = ReadAll(dir.Join("in/a.csv"), options);
  ASSERT_FALSE(failed);
  EXPECT_THAT(failed.error().message, HasSubstr("injected"));
  EXPECT_THAT(failed.error().message, HasSubstr("a.csv"));
  fault->FailNextMatching("in", Fault::kError);
  auto unlisted = ExpandInputPaths({dir.Join("in")}, fault);
  ASSERT_FALSE(unlisted);
  EXPECT_THAT(unlisted.error().message, HasSubstr("injected"));
}

TEST(TextValuesTest, ArrowMessagesGetColumnNamesAndLines) {
  auto csv = NameCsvColumn(
      arrow::Status::Invalid("In CSV column #1: CSV conversion error to int64: invalid "
                             "value 'x'"),
      {"a", "amount"});
  EXPECT_THAT(csv.message(), HasSubstr("column 'amount'"));
  EXPECT_TRUE(csv.IsInvalid());
  auto json =
      NameJsonLine(arrow::Status::Invalid("JSON parse error: bad. in row 3"), 100);
  EXPECT_EQ(json.message(), "JSON parse error: bad. at line 104");
}

TEST(TextValuesTest, TimestampAndDateForms) {
  int64_t us = 0;
  EXPECT_FALSE(ParseInputTimestamp("1970-01-01T00:00:01.000001Z", true, &us));
  EXPECT_EQ(us, 1000001);
  EXPECT_FALSE(ParseInputTimestamp("1970-01-01 01:00:00+0100", true, &us));
  EXPECT_EQ(us, 0);
  EXPECT_FALSE(ParseInputTimestamp("1970-01-02", true, &us));
  EXPECT_EQ(us, 86400000000);
  EXPECT_FALSE(ParseInputTimestamp("1969-12-31 23:59:59.5", false, &us));
  EXPECT_EQ(us, -500000);
  EXPECT_TRUE(ParseInputTimestamp("1970-01-01T00:00:00Z", false, &us));  // zone on ntz
  EXPECT_TRUE(ParseInputTimestamp("1970-01-01T25:00:00", true, &us));
  EXPECT_TRUE(ParseInputTimestamp("1970-01-01T00:00:00 junk", true, &us));
  int32_t days = 0;
  EXPECT_FALSE(ParseInputDate("2000-03-01", &days));
  EXPECT_EQ(days, 11017);
  EXPECT_TRUE(ParseInputDate("2023-02-29", &days));
  EXPECT_TRUE(ParseInputDate("2023-02-01 10:00", &days));
}

}  // namespace
}  // namespace deltaguard
