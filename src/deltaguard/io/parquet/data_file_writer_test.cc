#include "deltaguard/io/parquet/data_file_writer.h"

#include <arrow/array.h>
#include <arrow/json/from_string.h>
#include <arrow/table.h>
#include <arrow/util/key_value_metadata.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>
#include <parquet/schema.h>

#include <filesystem>
#include <limits>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/io/parquet/parquet_file.h"
#include "deltaguard/io/parquet/partition_value.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/util/string_util.h"
#include "testing/matchers.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

// Struct children under a null struct are masked, so that arrays which only differ
// there (JSON-built input vs. Parquet read-back) print the same.
std::shared_ptr<arrow::Array> Canon(const std::shared_ptr<arrow::Array>& a) {
  if (a->type_id() != arrow::Type::STRUCT) return a;
  const auto& st = static_cast<const arrow::StructArray&>(*a);
  EXPECT_EQ(st.offset(), 0);
  arrow::ArrayVector children;
  for (int i = 0; i < st.num_fields(); ++i) {
    auto flat = st.GetFlattenedField(i);
    EXPECT_TRUE(flat.ok());
    children.push_back(Canon(*flat));
  }
  auto out = arrow::StructArray::Make(children, st.struct_type()->fields(),
                                      st.null_bitmap(), st.null_count());
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return *out;
}

std::string Show(const std::shared_ptr<arrow::Array>& a) { return Canon(a)->ToString(); }

class DataFileWriterTest : public ::testing::Test {
 protected:
  std::unique_ptr<DataFileWriter> MakeWriter(
      const SchemaRef& schema, DataFileWriterOptions options = {},
      PartitionValues partition = {}, ColumnMappingMode mode = ColumnMappingMode::kNone) {
    auto writer = DataFileWriter::Make(fs_, dir_.path(), schema, mode,
                                       std::move(partition), std::move(options));
    EXPECT_TRUE(writer) << writer.error().ToString();
    return writer ? std::move(*writer) : nullptr;
  }

  std::vector<WrittenFile> WriteAll(
      DataFileWriter& writer, const std::vector<std::shared_ptr<arrow::RecordBatch>>& b) {
    for (const auto& batch : b) {
      auto st = writer.Write(*batch);
      EXPECT_TRUE(st) << st.error().ToString();
    }
    auto files = writer.Finish();
    EXPECT_TRUE(files) << files.error().ToString();
    return files ? *files : std::vector<WrittenFile>{};
  }

  std::string FullPath(const WrittenFile& f) const {
    auto decoded = PercentDecode(f.relative_path);
    EXPECT_TRUE(decoded);
    return dir_.path() + "/" + *decoded;
  }

  std::unique_ptr<parquet::arrow::FileReader> Open(const WrittenFile& f) const {
    auto reader =
        OpenParquetFile(fs_, FullPath(f), DefaultArrowReaderProperties(false, 1024),
                        ErrorCode::kCorruptData);
    EXPECT_TRUE(reader) << reader.error().ToString();
    return reader ? std::move(*reader) : nullptr;
  }

  std::shared_ptr<arrow::Table> ReadBack(const WrittenFile& f) const {
    auto reader = Open(f);
    std::shared_ptr<arrow::Table> table;
    EXPECT_TRUE(reader->ReadTable(&table).ok());
    auto combined = table->CombineChunks();
    EXPECT_TRUE(combined.ok());
    return *combined;
  }

  TempDir dir_;
  FileSystemRef fs_ = MakeLocalFileSystem();
};

const char kAllTypes[] =
    "i INT, l BIGINT, by TINYINT, sh SMALLINT, f FLOAT, d DOUBLE, dec DECIMAL(5,2), "
    "big DECIMAL(30,3), s STRING, b BOOLEAN, bin BINARY, dt DATE, ts TIMESTAMP, "
    "ntz TIMESTAMP_NTZ, st STRUCT<a: INT, inner: STRUCT<z: STRING>>, "
    "arr ARRAY<STRING>, m MAP<STRING, ARRAY<INT>>";
const char kAllTypesRows[] = R"([
  {"i":1,"l":-5,"by":1,"sh":2,"f":1.5,"d":2.25,"dec":"12.30",
   "big":"123456789012345678901234567.891","s":"héllo","b":true,"bin":"\u0001x","dt":19723,
   "ts":1704110400123456,"ntz":-1,"st":{"a":1,"inner":{"z":"q"}},"arr":["a",null],
   "m":[["k",[1,null]],["j",null]]},
  {"i":null,"l":null,"by":null,"sh":null,"f":null,"d":null,"dec":null,"big":null,
   "s":null,"b":null,"bin":null,"dt":null,"ts":null,"ntz":null,"st":null,"arr":null,
   "m":null},
  {"i":3,"l":7,"by":-1,"sh":-2,"f":-0.5,"d":-1e300,"dec":"-0.01","big":"0.000","s":"",
   "b":false,"bin":"","dt":-1,"ts":0,"ntz":1704110400000000,"st":{"a":null,"inner":null},
   "arr":[],"m":[]}])";

TEST_F(DataFileWriterTest, RoundTripsEveryTypeThroughTheReader) {
  auto schema = Ddl(kAllTypes);
  auto batch = Rows(schema, kAllTypesRows);
  auto writer = MakeWriter(schema);
  auto files = WriteAll(*writer, {batch});
  ASSERT_EQ(files.size(), 1u);
  const WrittenFile& f = files[0];
  EXPECT_THAT(
      f.relative_path,
      MatchesRegex("part-00000-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                   "[0-9a-f]{12}\\.c000\\.snappy\\.parquet"));
  EXPECT_EQ(f.num_records, 3);
  EXPECT_TRUE(f.partition_values.empty());
  EXPECT_EQ(f.size, static_cast<int64_t>(std::filesystem::file_size(FullPath(f))));
  EXPECT_GT(f.modification_time, 0);
  auto rows = ScanParquetFile(fs_, FullPath(f));
  ASSERT_TRUE(rows) << rows.error().ToString();
  EXPECT_EQ(*rows, 3);

  auto table = ReadBack(f);
  ASSERT_EQ(table->num_columns(), batch->num_columns());
  for (int i = 0; i < batch->num_columns(); ++i) {
    EXPECT_EQ(table->field(i)->name(), batch->schema()->field(i)->name());
    EXPECT_EQ(Show(table->column(i)->chunk(0)), Show(batch->column(i)))
        << batch->schema()->field(i)->name();
  }
  EXPECT_THAT(f.stats_json, HasSubstr(R"("numRecords":3,"minValues":{"i":1,"l":-5,)"));
  EXPECT_THAT(f.stats_json, HasSubstr(R"("big":0.000,)"));
  EXPECT_THAT(f.stats_json, HasSubstr(R"("d":-1.0E300,)"));
  EXPECT_THAT(f.stats_json,
              HasSubstr(R"("nullCount":{"i":1,"l":1,"by":1,"sh":1,"f":1,"d":1,"dec":1,)"
                        R"("big":1,"s":1,"b":1,"bin":1,"dt":1,"ts":1,"ntz":1,)"
                        R"("st":{"a":2,"inner":{"z":2}},"arr":1,"m":1}})"));
}

TEST_F(DataFileWriterTest, ParquetTypesAndOptionalColumns) {
  auto schema = Ddl("ts TIMESTAMP, ntz TIMESTAMP_NTZ, id BIGINT NOT NULL, dt DATE");
  auto writer = MakeWriter(schema);
  auto files = WriteAll(*writer, {Rows(schema, R"([{"ts":1,"ntz":2,"id":3,"dt":4}])")});
  ASSERT_EQ(files.size(), 1u);
  auto reader = Open(files[0]);
  auto metadata = reader->parquet_reader()->metadata();
  const parquet::SchemaDescriptor* pschema = metadata->schema();
  EXPECT_EQ(pschema->Column(0)->physical_type(), parquet::Type::INT64);
  EXPECT_EQ(pschema->Column(0)->logical_type()->ToString(),
            "Timestamp(isAdjustedToUTC=true, timeUnit=microseconds, "
            "is_from_converted_type=false, force_set_converted_type=false)");
  EXPECT_THAT(pschema->Column(1)->logical_type()->ToString(),
              HasSubstr("isAdjustedToUTC=false, timeUnit=microseconds"));
  EXPECT_EQ(pschema->Column(3)->physical_type(), parquet::Type::INT32);
  EXPECT_TRUE(pschema->Column(3)->logical_type()->is_date());
  // Every column optional, as Spark writes them, even NOT NULL ones.
  EXPECT_TRUE(pschema->Column(2)->schema_node()->is_optional());
  // No embedded Arrow schema.
  auto kv = metadata->key_value_metadata();
  EXPECT_TRUE(kv == nullptr || kv->FindKey("ARROW:schema") < 0);
  EXPECT_EQ(metadata->RowGroup(0)->ColumnChunk(0)->compression(),
            parquet::Compression::SNAPPY);
}

TEST_F(DataFileWriterTest, ZstdCompression) {
  auto schema = Ddl("x BIGINT");
  DataFileWriterOptions options;
  options.compression = "ZSTD";
  auto writer = MakeWriter(schema, options);
  auto files = WriteAll(*writer, {Rows(schema, R"([{"x":1},{"x":2}])")});
  ASSERT_EQ(files.size(), 1u);
  EXPECT_THAT(files[0].relative_path,
              MatchesRegex("part-00000-.*\\.c000\\.zstd\\.parquet"));
  auto reader = Open(files[0]);
  EXPECT_EQ(
      reader->parquet_reader()->metadata()->RowGroup(0)->ColumnChunk(0)->compression(),
      parquet::Compression::ZSTD);
  EXPECT_EQ(ReadBack(files[0])->column(0)->chunk(0)->ToString(),
            Rows(schema, R"([{"x":1},{"x":2}])")->column(0)->ToString());
}

TEST_F(DataFileWriterTest, InvalidOptions) {
  auto schema = Ddl("x BIGINT");
  DataFileWriterOptions options;
  options.compression = "lzo2";
  auto writer = DataFileWriter::Make(fs_, dir_.path(), schema, ColumnMappingMode::kNone,
                                     {}, options);
  ASSERT_FALSE(writer);
  EXPECT_EQ(writer.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(writer.error().message, HasSubstr("lzo2"));
  DataFileWriterOptions zero_target;
  zero_target.target_file_size_bytes = 0;
  EXPECT_FALSE(DataFileWriter::Make(fs_, dir_.path(), schema, ColumnMappingMode::kNone,
                                    {}, zero_target));
  DataFileWriterOptions bad_stats;
  bad_stats.stats.num_indexed_cols = -5;
  EXPECT_FALSE(DataFileWriter::Make(fs_, dir_.path(), schema, ColumnMappingMode::kNone,
                                    {}, bad_stats));
}

TEST_F(DataFileWriterTest, RollsOverPastTargetSize) {
  auto schema = Ddl("x BIGINT, s STRING");
  DataFileWriterOptions options;
  options.target_file_size_bytes = 1;  // every row group closes its file
  options.row_group_rows = 2;
  auto writer = MakeWriter(schema, options);
  auto files = WriteAll(
      *writer, {Rows(schema, R"([{"x":1,"s":"a"},{"x":2,"s":"b"},{"x":3,"s":"c"}])"),
                Rows(schema, R"([{"x":4,"s":"d"},{"x":5,"s":null}])")});
  ASSERT_GE(files.size(), 3u);
  int64_t total = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    EXPECT_THAT(files[i].relative_path, MatchesRegex(fmt::format("part-{:05d}-.*", i)));
    auto rows = ScanParquetFile(fs_, FullPath(files[i]));
    ASSERT_TRUE(rows);
    EXPECT_EQ(*rows, files[i].num_records);
    EXPECT_THAT(files[i].stats_json,
                HasSubstr(fmt::format(R"({{"numRecords":{},)", files[i].num_records)));
    total += files[i].num_records;
  }
  EXPECT_EQ(total, 5);
  EXPECT_NE(files[0].relative_path, files[1].relative_path);
}

TEST_F(DataFileWriterTest, RowGroupsWithinOneFile) {
  auto schema = Ddl("x BIGINT");
  DataFileWriterOptions options;
  options.row_group_rows = 2;
  options.file_streams = 1;  // one stream: every row group in one file, in order
  auto writer = MakeWriter(schema, options);
  auto files = WriteAll(*writer, {Rows(schema, R"([{"x":1},{"x":2},{"x":3}])"),
                                  Rows(schema, R"([{"x":4},{"x":5}])")});
  ASSERT_EQ(files.size(), 1u);
  auto reader = Open(files[0]);
  EXPECT_EQ(reader->parquet_reader()->metadata()->num_row_groups(), 3);
  EXPECT_EQ(files[0].stats_json,
            R"({"numRecords":5,"minValues":{"x":1},"maxValues":{"x":5},)"
            R"("nullCount":{"x":0}})");
  EXPECT_EQ(ReadBack(files[0])->column(0)->chunk(0)->ToString(),
            Rows(schema, R"([{"x":1},{"x":2},{"x":3},{"x":4},{"x":5}])")
                ->column(0)
                ->ToString());
}

// dictionary<int32, utf8> over `values` with `indices` (JSON).
std::shared_ptr<arrow::Array> Dict(const std::string& values,
                                   const std::string& indices) {
  auto v = arrow::json::ArrayFromJSONString(arrow::utf8(), values);
  auto i = arrow::json::ArrayFromJSONString(arrow::int32(), indices);
  EXPECT_TRUE(v.ok() && i.ok());
  auto d = arrow::DictionaryArray::FromArrays(
      arrow::dictionary(arrow::int32(), arrow::utf8()), *i, *v);
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  return *d;
}

std::shared_ptr<arrow::RecordBatch> IdAndS(const std::string& ids,
                                           std::shared_ptr<arrow::Array> s) {
  auto id = arrow::json::ArrayFromJSONString(arrow::int32(), ids);
  EXPECT_TRUE(id.ok());
  return arrow::RecordBatch::Make(
      arrow::schema({arrow::field("id", arrow::int32()), arrow::field("s", s->type())}),
      s->length(), {*id, s});
}

bool HasDictionaryPages(const parquet::FileMetaData& md, int column) {
  for (int g = 0; g < md.num_row_groups(); ++g) {
    if (!md.RowGroup(g)->ColumnChunk(column)->has_dictionary_page()) return false;
  }
  return true;
}

// Batches of one row group may carry a STRING column dictionary-encoded over different
// dictionaries, or as plain values: the file holds the same values, dictionary-encoded
// with one dictionary, and the statistics count only the values the rows reference.
TEST_F(DataFileWriterTest, StringColumnsMayComeDictionaryEncoded) {
  auto schema = Ddl("id INT, s STRING");
  DataFileWriterOptions options;
  options.file_streams = 1;
  auto writer = MakeWriter(schema, options);
  auto plain = arrow::json::ArrayFromJSONString(arrow::utf8(), R"(["y", "w"])");
  ASSERT_TRUE(plain.ok());
  auto files = WriteAll(
      *writer,
      {IdAndS("[1, 2, 3]", Dict(R"(["x", "y", "zz-unused"])", "[1, 0, null]")),
       IdAndS("[4, 5]", *plain), IdAndS("[6, 7]", Dict(R"(["w", "a"])", "[0, 1]"))});
  ASSERT_EQ(files.size(), 1u);
  auto table = ReadBack(files[0]);
  EXPECT_EQ(table->column(1)->chunk(0)->ToString(),
            (*arrow::json::ArrayFromJSONString(arrow::utf8(),
                                               R"(["y", "x", null, "y", "w", "w", "a"])"))
                ->ToString());
  auto reader = Open(files[0]);
  const auto& md = *reader->parquet_reader()->metadata();
  EXPECT_EQ(md.num_row_groups(), 1);
  EXPECT_TRUE(HasDictionaryPages(md, 1));
  EXPECT_TRUE(AllPagesDictionaryEncoded(md, 1));
  EXPECT_EQ(
      files[0].stats_json,
      R"({"numRecords":7,"minValues":{"id":1,"s":"a"},"maxValues":{"id":7,"s":"y"},)"
      R"("nullCount":{"id":0,"s":1}})");
}

// A column the writer keeps PLAIN (nearly every value distinct) takes dictionary input
// as its values.
TEST_F(DataFileWriterTest, DictionaryInputOfAPlainColumnIsDecoded) {
  auto schema = Ddl("id INT, s STRING");
  constexpr int kRows = 10000;
  std::string values = "[";
  std::string indices = "[";
  std::string ids = "[";
  for (int i = 0; i < kRows; ++i) {
    const char* sep = i ? "," : "";
    values += fmt::format("{}\"v{:05d}\"", sep, i);
    indices += fmt::format("{}{}", sep, kRows - 1 - i);
    ids += fmt::format("{}{}", sep, i);
  }
  values += "]";
  indices += "]";
  ids += "]";
  auto writer = MakeWriter(schema);
  auto files = WriteAll(*writer, {IdAndS(ids, Dict(values, indices))});
  ASSERT_EQ(files.size(), 1u);
  auto reader = Open(files[0]);
  EXPECT_FALSE(HasDictionaryPages(*reader->parquet_reader()->metadata(), 1));
  auto s = ReadBack(files[0])->column(1)->chunk(0);
  ASSERT_EQ(s->length(), kRows);
  const auto& strings = static_cast<const arrow::StringArray&>(*s);
  EXPECT_EQ(strings.GetString(0), "v09999");
  EXPECT_EQ(strings.GetString(kRows - 1), "v00000");
  EXPECT_THAT(files[0].stats_json, HasSubstr(R"("s":"v00000"})"));
}

TEST_F(DataFileWriterTest, OnlyStringDictionariesAreAccepted) {
  auto schema = Ddl("id INT, s STRING");
  auto writer = MakeWriter(schema);
  auto v = arrow::json::ArrayFromJSONString(arrow::utf8(), R"(["a"])");
  auto i = arrow::json::ArrayFromJSONString(arrow::int8(), "[0]");
  auto small = arrow::DictionaryArray::FromArrays(
      arrow::dictionary(arrow::int8(), arrow::utf8()), *i, *v);
  ASSERT_TRUE(small.ok());
  auto st = writer->Write(*IdAndS("[1]", *small));
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(st.error().message, HasSubstr("dictionary<values=string, indices=int8"));
}

TEST_F(DataFileWriterTest, NoRowsWritesNoFile) {
  auto schema = Ddl("x BIGINT");
  auto writer = MakeWriter(schema);
  auto files = WriteAll(*writer, {Rows(schema, "[]")});
  EXPECT_TRUE(files.empty());
  EXPECT_TRUE(std::filesystem::is_empty(dir_.path()));
  EXPECT_FALSE(writer->Finish());  // only once
  EXPECT_FALSE(writer->Write(*Rows(schema, "[]")));
}

TEST_F(DataFileWriterTest, PartitionDirectoriesAreHiveEscapedAndUriEncoded) {
  auto schema = Ddl("x BIGINT");
  PartitionValues partition = {{"country", "US"},
                               {"ts", "2024-01-01T12:00:00.000000Z"},
                               {"n", std::nullopt},
                               {"e", ""},
                               {"sp", "a b"}};
  auto writer = MakeWriter(schema, {}, partition);
  auto files = WriteAll(*writer, {Rows(schema, R"([{"x":1}])")});
  ASSERT_EQ(files.size(), 1u);
  EXPECT_THAT(files[0].relative_path,
              MatchesRegex("country=US/ts=2024-01-01T12%253A00%253A00.000000Z/"
                           "n=__HIVE_DEFAULT_PARTITION__/e=__HIVE_DEFAULT_PARTITION__/"
                           "sp=a%20b/part-00000-.*\\.parquet"));
  EXPECT_TRUE(std::filesystem::is_directory(dir_.Join(
      "country=US/ts=2024-01-01T12%3A00%3A00.000000Z/n=__HIVE_DEFAULT_PARTITION__/"
      "e=__HIVE_DEFAULT_PARTITION__/sp=a b")));
  PartitionValues expected = partition;
  expected[3].second = std::nullopt;  // "" is null
  EXPECT_EQ(files[0].partition_values, expected);
  EXPECT_TRUE(ScanParquetFile(fs_, FullPath(files[0])));
}

TEST_F(DataFileWriterTest, RejectsBatchesThatDoNotMatchTheSchema) {
  auto schema = Ddl("x BIGINT, s STRUCT<a: INT>");
  auto writer = MakeWriter(schema);
  auto wrong_type = Rows(Ddl("x INT, s STRUCT<a: INT>"), R"([{"x":1,"s":null}])");
  auto st = writer->Write(*wrong_type);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(st.error().message, HasSubstr("column 'x': table has long"));
  EXPECT_THAT(st.error().message, HasSubstr("batch has int32"));
  auto wrong_name = Rows(Ddl("y BIGINT, s STRUCT<a: INT>"), R"([{"y":1,"s":null}])");
  EXPECT_THAT(writer->Write(*wrong_name).error().message,
              HasSubstr("'x' in the table, 'y'"));
  auto nested = Rows(Ddl("x BIGINT, s STRUCT<b: INT>"), R"([{"x":1,"s":null}])");
  EXPECT_EQ(writer->Write(*nested).error().code, ErrorCode::kSchemaMismatch);
  auto too_few = Rows(Ddl("x BIGINT"), R"([{"x":1}])");
  EXPECT_EQ(writer->Write(*too_few).error().code, ErrorCode::kSchemaMismatch);
  // Nullability, list child names and the time zone spelling are not compared.
  auto schema2 = Ddl("x BIGINT NOT NULL, a ARRAY<INT>, t TIMESTAMP");
  auto writer2 = MakeWriter(schema2);
  auto relaxed_schema = arrow::schema(
      {arrow::field("x", arrow::int64(), true),
       arrow::field("a", arrow::list(arrow::int32())),
       arrow::field("t", arrow::timestamp(arrow::TimeUnit::MICRO, "+00:00"))});
  auto relaxed = arrow::RecordBatch::Make(
      relaxed_schema, 1,
      {testing::ArrayFromJson(arrow::int64(), "[1]"),
       testing::ArrayFromJson(arrow::list(arrow::int32()), "[[1, 2]]"),
       testing::ArrayFromJson(arrow::timestamp(arrow::TimeUnit::MICRO, "+00:00"),
                              "[5]")});
  auto files = WriteAll(*writer2, {relaxed});
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(ReadBack(files[0])->column(1)->chunk(0)->ToString(),
            relaxed->column(1)->ToString());
}

const char kMappedSchema[] =
    R"({"type":"struct","fields":[)"
    R"({"name":"id","type":"long","nullable":true,"metadata":)"
    R"({"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-a1"}},)"
    R"({"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"string",)"
    R"("nullable":true,"metadata":{"delta.columnMapping.id":3,)"
    R"("delta.columnMapping.physicalName":"col-c3"}}]},"nullable":true,"metadata":)"
    R"({"delta.columnMapping.id":2,"delta.columnMapping.physicalName":"col-b2"}}]})";

TEST_F(DataFileWriterTest, ColumnMappingWritesPhysicalNamesAndFieldIds) {
  auto schema = ParseSchemaJson(kMappedSchema);
  ASSERT_TRUE(schema) << schema.error().ToString();
  for (ColumnMappingMode mode : {ColumnMappingMode::kName, ColumnMappingMode::kId}) {
    auto writer = MakeWriter(*schema, {}, {{"col-p9", "1"}}, mode);
    auto batch = Rows(*schema, R"([{"id":7,"s":{"x":"q"}},{"id":null,"s":null}])");
    auto files = WriteAll(*writer, {batch});
    ASSERT_EQ(files.size(), 1u);
    EXPECT_THAT(files[0].relative_path, MatchesRegex("col-p9=1/part-00000-.*"));
    auto reader = Open(files[0]);
    const parquet::schema::GroupNode* root =
        reader->parquet_reader()->metadata()->schema()->group_node();
    ASSERT_EQ(root->field_count(), 2);
    EXPECT_EQ(root->field(0)->name(), "col-a1");
    EXPECT_EQ(root->field(0)->field_id(), 1);
    EXPECT_EQ(root->field(1)->name(), "col-b2");
    EXPECT_EQ(root->field(1)->field_id(), 2);
    const auto& group = static_cast<const parquet::schema::GroupNode&>(*root->field(1));
    EXPECT_EQ(group.field(0)->name(), "col-c3");
    EXPECT_EQ(group.field(0)->field_id(), 3);
    EXPECT_EQ(files[0].stats_json,
              R"({"numRecords":2,"minValues":{"col-a1":7,"col-b2":{"col-c3":"q"}},)"
              R"("maxValues":{"col-a1":7,"col-b2":{"col-c3":"q"}},)"
              R"("nullCount":{"col-a1":1,"col-b2":{"col-c3":1}}})");
    auto table = ReadBack(files[0]);
    EXPECT_EQ(Show(table->column(1)->chunk(0)), Show(batch->column(1)));
  }
  // Without column mapping: display names, no field ids.
  auto writer = MakeWriter(*schema);
  auto files = WriteAll(*writer, {Rows(*schema, R"([{"id":7,"s":{"x":"q"}}])")});
  auto reader = Open(files[0]);
  const auto* root = reader->parquet_reader()->metadata()->schema()->group_node();
  EXPECT_EQ(root->field(0)->name(), "id");
  EXPECT_EQ(root->field(0)->field_id(), -1);
}

// ---------------------------------------------------------------------------------------
// Partition values.

std::optional<std::string> Encode(const std::shared_ptr<arrow::Scalar>& scalar,
                                  const DataTypeRef& type) {
  auto text = EncodePartitionValue(*scalar, *type);
  EXPECT_TRUE(text) << text.error().ToString();
  return text ? *text : std::optional<std::string>("<error>");
}

std::shared_ptr<arrow::Scalar> ScalarOf(const DataTypeRef& type,
                                        const std::string& json) {
  auto arrow_type = ToArrowType(*type);
  EXPECT_TRUE(arrow_type);
  auto scalar = arrow::json::ScalarFromJSONString(*arrow_type, json);
  EXPECT_TRUE(scalar.ok()) << scalar.status().ToString();
  return *scalar;
}

TEST(PartitionValueEncodingTest, GoldenStrings) {
  auto dec = *DecimalType::Make(5, 2);
  EXPECT_EQ(Encode(ScalarOf(DataType::Integer(), "-42"), DataType::Integer()), "-42");
  EXPECT_EQ(Encode(ScalarOf(DataType::Double(), "1e10"), DataType::Double()), "1.0E10");
  EXPECT_EQ(Encode(ScalarOf(DataType::Double(), "0"), DataType::Double()), "0.0");
  EXPECT_EQ(Encode(ScalarOf(DataType::Float(), "1.5"), DataType::Float()), "1.5");
  EXPECT_EQ(Encode(ScalarOf(dec, "\"12.30\""), dec), "12.30");
  EXPECT_EQ(Encode(ScalarOf(DataType::Boolean(), "true"), DataType::Boolean()), "true");
  EXPECT_EQ(Encode(ScalarOf(DataType::Date(), "19723"), DataType::Date()), "2024-01-01");
  EXPECT_EQ(
      Encode(ScalarOf(DataType::Timestamp(), "1704110400000000"), DataType::Timestamp()),
      "2024-01-01T12:00:00.000000Z");
  EXPECT_EQ(Encode(ScalarOf(DataType::TimestampNtz(), "1704110400500000"),
                   DataType::TimestampNtz()),
            "2024-01-01 12:00:00.5");
  EXPECT_EQ(Encode(ScalarOf(DataType::TimestampNtz(), "1704110400000000"),
                   DataType::TimestampNtz()),
            "2024-01-01 12:00:00");
  EXPECT_EQ(Encode(ScalarOf(DataType::String(), "\"null\""), DataType::String()), "null");
  EXPECT_EQ(Encode(ScalarOf(DataType::String(), "\"\""), DataType::String()),
            std::nullopt);
  EXPECT_EQ(Encode(ScalarOf(DataType::Long(), "null"), DataType::Long()), std::nullopt);
  auto wrong =
      EncodePartitionValue(*ScalarOf(DataType::Long(), "1"), *DataType::Integer());
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().code, ErrorCode::kInvalidArgument);
  auto nested = ParseDdlType("ARRAY<INT>");
  ASSERT_TRUE(nested);
  EXPECT_FALSE(EncodePartitionValue(*ScalarOf(*nested, "[1]"), **nested));
}

TEST(PartitionValueEncodingTest, RoundTripsThroughTheReaderParser) {
  auto dec = *DecimalType::Make(38, 10);
  std::vector<std::pair<DataTypeRef, std::vector<std::string>>> cases = {
      {DataType::Byte(), {"-128", "127", "0", "null"}},
      {DataType::Short(), {"-32768", "32767", "null"}},
      {DataType::Integer(), {"-2147483648", "2147483647", "null"}},
      {DataType::Long(), {"-9223372036854775808", "9223372036854775807", "null"}},
      {DataType::Float(), {"0.1", "-3.4028235e38", "1e-45", "1e7", "null"}},
      {DataType::Double(), {"0.1", "1.7976931348623157e308", "5e-324", "-1e-4", "null"}},
      {dec, {"\"1234567890123456789012345678.0123456789\"", "\"-0.5000000000\"", "null"}},
      {DataType::Boolean(), {"true", "false", "null"}},
      {DataType::Date(), {"0", "-719528", "2932896", "-1", "null"}},
      {DataType::Timestamp(),
       {"0", "-1", "1704110400123456", "-62135596800000000", "null"}},
      {DataType::TimestampNtz(), {"0", "-1", "1704110400123450", "null"}},
      {DataType::String(), {"\"a b/c:d=e%\"", "\"héllo\"", "\"null\"", "null"}},
      {DataType::Binary(), {"\"xyz\"", "null"}},
  };
  for (const auto& [type, values] : cases) {
    for (const auto& json : values) {
      auto scalar = ScalarOf(type, json);
      auto text = EncodePartitionValue(*scalar, *type);
      ASSERT_TRUE(text) << type->ToString() << " " << json << ": "
                        << text.error().ToString();
      auto parsed = ParsePartitionValue(*text, *type);
      ASSERT_TRUE(parsed) << type->ToString() << " " << json << " -> '"
                          << text->value_or("<null>")
                          << "': " << parsed.error().ToString();
      EXPECT_TRUE((*parsed)->Equals(*scalar))
          << type->ToString() << " " << json << " -> '" << text->value_or("<null>")
          << "' -> " << (*parsed)->ToString();
    }
  }
  // Special doubles.
  for (double v : {std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity()}) {
    arrow::DoubleScalar scalar(v);
    auto text = EncodePartitionValue(scalar, *DataType::Double());
    ASSERT_TRUE(text && *text);
    auto parsed = ParsePartitionValue(*text, *DataType::Double());
    ASSERT_TRUE(parsed) << **text;
    EXPECT_TRUE((*parsed)->Equals(scalar)) << **text;
  }
  auto nan = EncodePartitionValue(
      arrow::DoubleScalar(std::numeric_limits<double>::quiet_NaN()), *DataType::Double());
  ASSERT_TRUE(nan);
  EXPECT_EQ(*nan, "NaN");
  auto parsed_nan = ParsePartitionValue(*nan, *DataType::Double());
  ASSERT_TRUE(parsed_nan);
  EXPECT_TRUE(std::isnan(static_cast<const arrow::DoubleScalar&>(**parsed_nan).value));
}

TEST(PartitionValueEncodingTest, HivePathEscaping) {
  EXPECT_EQ(EscapePartitionPathName("a:b/c=d%e"), "a%3Ab%2Fc%3Dd%25e");
  EXPECT_EQ(EscapePartitionPathName("x\"#'*?\\{[]^\x7F\x01"),
            "x%22%23%27%2A%3F%5C%7B%5B%5D%5E%7F%01");
  EXPECT_EQ(EscapePartitionPathName("plain-text_1.0 é"), "plain-text_1.0 é");
  EXPECT_EQ(PartitionDirectory({}), "");
  EXPECT_EQ(PartitionDirectory({{"a", "1"}, {"b:c", std::nullopt}}),
            "a=1/b%3Ac=__HIVE_DEFAULT_PARTITION__");
}

}  // namespace
}  // namespace deltaguard
