#include "deltaguard/io/parquet/table_scan.h"

#include <arrow/compute/cast.h>
#include <arrow/io/file.h>
#include <arrow/table.h>
#include <arrow/util/key_value_metadata.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <parquet/arrow/writer.h>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/io/parquet/checkpoint_reader.h"
#include "deltaguard/io/parquet/deletion_vector.h"
#include "deltaguard/io/parquet/z85.h"
#include "testing/matchers.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

using testing::AddAction;
using testing::MetadataAction;
using testing::ProtocolAction;
using testing::WriteCommit;

std::string F(const std::string& name, const std::string& type_json, bool nullable = true,
              const std::string& metadata_json = "{}") {
  return R"({"name":")" + name + R"(","type":)" + type_json + R"(,"nullable":)" +
         (nullable ? "true" : "false") + R"(,"metadata":)" + metadata_json + "}";
}
std::string Q(const std::string& s) { return "\"" + s + "\""; }
std::string Schema(const std::vector<std::string>& fields) {
  std::string out = R"({"type":"struct","fields":[)";
  for (size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + fields[i];
  return out + "]}";
}
std::string Mapping(int id, const std::string& physical) {
  return R"({"delta.columnMapping.id":)" + std::to_string(id) +
         R"(,"delta.columnMapping.physicalName":")" + physical + R"("})";
}

std::shared_ptr<arrow::RecordBatch> Batch(
    const std::vector<std::pair<std::shared_ptr<arrow::Field>, std::string>>& cols) {
  arrow::FieldVector fields;
  arrow::ArrayVector arrays;
  for (const auto& [field, json] : cols) {
    fields.push_back(field);
    arrays.push_back(ArrayFromJson(field->type(), json));
  }
  return arrow::RecordBatch::Make(arrow::schema(fields), arrays[0]->length(), arrays);
}

class TableScanTest : public ::testing::Test {
 protected:
  const std::string& root() const { return dir_.path(); }

  Result<SnapshotRef> Load() {
    ParquetCheckpointReader reader(fs_);
    return Snapshot::Load(fs_, root(), reader);
  }

  // Scan everything into one table (chunks combined).
  Result<std::shared_ptr<arrow::Table>> ScanAll(const ScanOptions& options = {}) {
    DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot, Load());
    DELTA_ASSIGN_OR_RETURN(auto scan, TableScan::Make(snapshot, options));
    std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
    while (true) {
      DELTA_ASSIGN_OR_RETURN(auto batch, scan->Next());
      if (batch == nullptr) break;
      EXPECT_TRUE(batch->ValidateFull().ok()) << batch->ValidateFull().ToString();
      EXPECT_GT(batch->num_rows(), 0);
      batches.push_back(batch);
    }
    auto table = arrow::Table::FromRecordBatches(scan->output_schema(), batches);
    EXPECT_TRUE(table.ok());
    auto combined = (*table)->CombineChunks();
    EXPECT_TRUE(combined.ok());
    return *combined;
  }

  void ExpectColumn(const arrow::Table& table, const std::string& name,
                    const std::string& json) {
    auto column = table.GetColumnByName(name);
    ASSERT_NE(column, nullptr) << name;
    auto expected = ArrayFromJson(column->type(), json);
    ASSERT_EQ(column->num_chunks(), 1);
    EXPECT_TRUE(column->chunk(0)->Equals(*expected))
        << name << ": got " << column->chunk(0)->ToString() << "\nwant "
        << expected->ToString();
  }

  TempDir dir_;
  FileSystemRef fs_ = MakeLocalFileSystem();
};

TEST_F(TableScanTest, ScansFilesInSnapshotOrderWithLogicalSchema) {
  WriteParquet(dir_.Join("a.parquet"),
               Batch({{arrow::field("id", arrow::int64()), "[1, 2]"},
                      {arrow::field("name", arrow::utf8()), R"(["x", null])"}}));
  WriteParquet(dir_.Join("b.parquet"),
               Batch({{arrow::field("id", arrow::int64()), "[3]"},
                      {arrow::field("name", arrow::utf8()), R"(["z"])"}}));
  WriteCommit(
      root(), 0,
      {ProtocolAction(1, 2),
       MetadataAction(Schema({F("id", Q("long"), false), F("name", Q("string"))})),
       AddAction("a.parquet"), AddAction("b.parquet")});
  auto table = ScanAll();
  ASSERT_TRUE(table) << table.error().ToString();
  EXPECT_EQ((*table)->schema()->ToString(), "id: int64 not null\nname: string");
  ExpectColumn(**table, "id", "[1, 2, 3]");
  ExpectColumn(**table, "name", R"(["x", null, "z"])");
  // Each batch knows its data file (the `_metadata` of SQL table scans).
  auto snapshot = Load();
  ASSERT_TRUE(snapshot) << snapshot.error().ToString();
  auto scan = TableScan::Make(*snapshot, {});
  ASSERT_TRUE(scan) << scan.error().ToString();
  EXPECT_EQ((*scan)->current_file(), nullptr);
  std::vector<std::string> files;
  while (true) {
    auto batch = (*scan)->Next();
    ASSERT_TRUE(batch) << batch.error().ToString();
    if (*batch == nullptr) break;
    ASSERT_NE((*scan)->current_file(), nullptr);
    files.push_back((*scan)->current_file()->path);
  }
  EXPECT_EQ(files, (std::vector<std::string>{"a.parquet", "b.parquet"}));
}

// ScanOptions::dictionary_columns: a listed STRING column stays dictionary-encoded in
// the batches of files that store every page of it so; other files and other columns
// are decoded as usual.
TEST_F(TableScanTest, DictionaryColumnsStayEncodedWhereTheFileHasThem) {
  auto batch = [](const std::string& ids, const std::string& names) {
    return Batch({{arrow::field("id", arrow::int64()), ids},
                  {arrow::field("name", arrow::utf8()), names},
                  {arrow::field("note", arrow::utf8()), names}});
  };
  WriteParquet(dir_.Join("a.parquet"), batch("[1, 2, 3]", R"(["x", null, "x"])"));
  {  // b.parquet: PLAIN strings
    auto out = arrow::io::FileOutputStream::Open(dir_.Join("b.parquet"));
    ASSERT_TRUE(out.ok());
    auto props = parquet::WriterProperties::Builder().disable_dictionary()->build();
    auto table = arrow::Table::FromRecordBatches({batch("[4]", R"(["z"])")});
    ASSERT_TRUE(parquet::arrow::WriteTable(**table, arrow::default_memory_pool(), *out,
                                           1024, props)
                    .ok());
    ASSERT_TRUE((*out)->Close().ok());
  }
  WriteCommit(root(), 0,
              {ProtocolAction(1, 2),
               MetadataAction(Schema(
                   {F("id", Q("long")), F("name", Q("string")), F("note", Q("string"))})),
               AddAction("a.parquet"), AddAction("b.parquet")});
  auto snapshot = Load();
  ASSERT_TRUE(snapshot) << snapshot.error().ToString();
  auto dict_type = arrow::dictionary(arrow::int32(), arrow::utf8());
  for (bool listed : {true, false}) {
    ScanOptions options;
    if (listed) options.dictionary_columns = {"name", "id"};  // id: not a STRING
    auto scan = TableScan::Make(*snapshot, options);
    ASSERT_TRUE(scan) << scan.error().ToString();
    EXPECT_EQ((*scan)->output_schema()->field(1)->type()->ToString(), "string");
    std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
    while (true) {
      auto next = (*scan)->Next();
      ASSERT_TRUE(next) << next.error().ToString();
      if (*next == nullptr) break;
      ASSERT_TRUE((*next)->ValidateFull().ok());
      batches.push_back(*next);
    }
    ASSERT_EQ(batches.size(), 2u);
    // The batch schema shows the encoding; the values are the same.
    const auto& a = *batches[0];
    EXPECT_EQ(a.schema()->field(1)->type()->Equals(*dict_type), listed);
    EXPECT_TRUE(a.column(1)->type()->Equals(*a.schema()->field(1)->type()));
    EXPECT_EQ(a.column(2)->type()->ToString(), "string");
    EXPECT_EQ(a.column(0)->type()->ToString(), "int64");
    auto decoded = arrow::compute::Cast(*a.column(1), arrow::utf8());
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ((*decoded)->ToString(), a.column(2)->ToString());
    EXPECT_EQ(batches[1]->column(1)->type()->ToString(), "string");
    EXPECT_EQ(batches[1]->schema()->field(1)->type()->ToString(), "string");
  }
}

// A dictionary page that holds fewer values than the data pages index (a corrupt
// file) fails the scan naming the file and column; it is never handed on.
TEST_F(TableScanTest, DictionaryIndexPastTheDictionaryIsCorruptData) {
  std::string rows = "[";
  for (int i = 0; i < 128; ++i)
    rows += std::string(i ? "," : "") + (i % 2 ? "\"b\"" : "\"a\"");
  rows += "]";
  auto batch = Batch({{arrow::field("name", arrow::utf8(), false), rows}});
  {
    auto out = arrow::io::FileOutputStream::Open(dir_.Join("a.parquet"));
    ASSERT_TRUE(out.ok());
    auto props = parquet::WriterProperties::Builder()
                     .compression(parquet::Compression::UNCOMPRESSED)
                     ->build();
    auto table = arrow::Table::FromRecordBatches({batch});
    ASSERT_TRUE(parquet::arrow::WriteTable(**table, arrow::default_memory_pool(), *out,
                                           1024, props)
                    .ok());
    ASSERT_TRUE((*out)->Close().ok());
  }
  // The dictionary page header's num_values (Thrift compact: field 1, i32, zigzag 2),
  // then its encoding PLAIN: 0x15 0x04 0x15 0x00. One value instead of two.
  std::string bytes = testing::ReadTextFile(dir_.Join("a.parquet"));
  const std::string pattern("\x15\x04\x15\x00", 4);
  const size_t at = bytes.find(pattern);
  ASSERT_NE(at, std::string::npos);
  ASSERT_LT(at, 64u);  // the first page, right after "PAR1": the dictionary page
  bytes[at + 1] = '\x02';
  testing::WriteTextFile(dir_.Join("a.parquet"), bytes);
  WriteCommit(root(), 0,
              {ProtocolAction(1, 2), MetadataAction(Schema({F("name", Q("string"))})),
               AddAction("a.parquet")});
  auto snapshot = Load();
  ASSERT_TRUE(snapshot) << snapshot.error().ToString();
  ScanOptions options;
  options.dictionary_columns = {"name"};
  auto scan = TableScan::Make(*snapshot, options);
  ASSERT_TRUE(scan) << scan.error().ToString();
  auto next = (*scan)->Next();
  ASSERT_FALSE(next);
  EXPECT_EQ(next.error().code, ErrorCode::kCorruptData);
  EXPECT_THAT(next.error().message, HasSubstr("a.parquet"));
}

TEST_F(TableScanTest, ProjectsTopLevelAndNestedColumns) {
  auto s_type = arrow::struct_(
      {arrow::field("b", arrow::int32()), arrow::field("c", arrow::utf8())});
  WriteParquet(dir_.Join("a.parquet"),
               Batch({{arrow::field("id", arrow::int64()), "[1, 2, 3]"},
                      {arrow::field("s", s_type),
                       R"([{"b": 10, "c": "u"}, null, {"b": null, "c": "w"}])"}}));
  std::string s_json = R"({"type":"struct","fields":[)" + F("b", Q("integer")) + "," +
                       F("c", Q("string")) + "]}";
  WriteCommit(
      root(), 0,
      {ProtocolAction(1, 2), MetadataAction(Schema({F("id", Q("long")), F("s", s_json)})),
       AddAction("a.parquet")});
  ScanOptions options;
  options.columns = {"S.b", "id"};
  auto table = ScanAll(options);
  ASSERT_TRUE(table) << table.error().ToString();
  EXPECT_EQ((*table)->schema()->ToString(), "s.b: int32\nid: int64");
  ExpectColumn(**table, "s.b", "[10, null, null]");
  ExpectColumn(**table, "id", "[1, 2, 3]");
}

TEST_F(TableScanTest, UnknownColumnListsTheAvailableOnes) {
  WriteCommit(root(), 0,
              {ProtocolAction(1, 2),
               MetadataAction(Schema({F("id", Q("long")), F("name", Q("string"))}))});
  ScanOptions options;
  options.columns = {"nope"};
  auto table = ScanAll(options);
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(table.error().message, HasSubstr("'nope'"));
  EXPECT_THAT(table.error().message, HasSubstr("id, name"));
  options.columns = {"id.x"};
  auto nested = ScanAll(options);
  ASSERT_FALSE(nested);
  EXPECT_EQ(nested.error().code, ErrorCode::kInvalidArgument);
}

TEST_F(TableScanTest, EmptyTableHasNoBatches) {
  WriteCommit(root(), 0,
              {ProtocolAction(1, 2), MetadataAction(Schema({F("id", Q("long"))}))});
  auto table = ScanAll();
  ASSERT_TRUE(table) << table.error().ToString();
  EXPECT_EQ((*table)->num_rows(), 0);
  EXPECT_EQ((*table)->num_columns(), 1);
}

TEST_F(TableScanTest, PartitionValuesComeFromTheLog) {
  // The file also (wrongly) holds a stale "p": the log value is authoritative.
  WriteParquet(dir_.Join("p=1/a.parquet"),
               Batch({{arrow::field("v", arrow::int32()), "[1, 2]"},
                      {arrow::field("p", arrow::int32()), "[7, 7]"}}));
  WriteParquet(dir_.Join("p=2/b.parquet"),
               Batch({{arrow::field("v", arrow::int32()), "[3]"}}));
  WriteCommit(
      root(), 0,
      {ProtocolAction(1, 2),
       MetadataAction(
           Schema({F("v", Q("integer")), F("p", Q("integer")), F("d", Q("date")),
                   F("s", Q("string")), F("t", Q("timestamp"))}),
           R"(["p","d","s","t"])"),
       AddAction("p=1/a.parquet",
                 R"({"p":"1","d":"2021-01-02","s":"null","t":"2021-09-08 11:11:11"})"),
       AddAction("p=2/b.parquet",
                 R"({"p":null,"d":"","s":null,"t":"2024-01-01T12:00:00.000000Z"})")});
  auto table = ScanAll();
  ASSERT_TRUE(table) << table.error().ToString();
  ExpectColumn(**table, "v", "[1, 2, 3]");
  ExpectColumn(**table, "p", "[1, 1, null]");
  ExpectColumn(**table, "d", "[18629, 18629, null]");
  ExpectColumn(**table, "s", R"(["null", "null", null])");
  ExpectColumn(**table, "t", "[1631099471000000, 1631099471000000, 1704110400000000]");

  ScanOptions only_partition;
  only_partition.columns = {"p"};
  auto p_only = ScanAll(only_partition);
  ASSERT_TRUE(p_only) << p_only.error().ToString();
  ExpectColumn(**p_only, "p", "[1, 1, null]");
}

TEST_F(TableScanTest, BadPartitionValueNamesFileColumnAndValue) {
  WriteParquet(dir_.Join("a.parquet"),
               Batch({{arrow::field("v", arrow::int32()), "[1]"}}));
  WriteCommit(
      root(), 0,
      {ProtocolAction(1, 2),
       MetadataAction(Schema({F("v", Q("integer")), F("p", Q("integer"))}), R"(["p"])"),
       AddAction("a.parquet", R"({"p":"one"})")});
  auto table = ScanAll();
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error().code, ErrorCode::kCorruptLog);
  EXPECT_THAT(table.error().message, HasSubstr("a.parquet"));
  EXPECT_THAT(table.error().message, HasSubstr("'p'"));
  EXPECT_THAT(table.error().message, HasSubstr("'one'"));
}

TEST_F(TableScanTest, ColumnMappingNameModeUsesPhysicalNamesEverywhere) {
  auto inner = arrow::struct_({arrow::field("col-inner", arrow::int64())});
  WriteParquet(
      dir_.Join("a.parquet"),
      Batch({{arrow::field("col-a", arrow::int64()), "[1, 2]"},
             {arrow::field("a", arrow::int64()), "[98, 99]"},  // a dropped column
             {arrow::field("col-s", inner), R"([{"col-inner": 5}, null])"}}));
  std::string s_json = R"({"type":"struct","fields":[)" +
                       F("inner", Q("long"), true, Mapping(3, "col-inner")) + "]}";
  WriteCommit(
      root(), 0,
      {ProtocolAction(2, 5),
       MetadataAction(Schema({F("a", Q("long"), true, Mapping(1, "col-a")),
                              F("s", s_json, true, Mapping(2, "col-s")),
                              F("part", Q("string"), true, Mapping(4, "col-part"))}),
                      R"(["part"])", R"({"delta.columnMapping.mode":"name"})"),
       AddAction("a.parquet", R"({"col-part":"x"})")});
  auto table = ScanAll();
  ASSERT_TRUE(table) << table.error().ToString();
  EXPECT_EQ((*table)->schema()->field_names(),
            (std::vector<std::string>{"a", "s", "part"}));
  ExpectColumn(**table, "a", "[1, 2]");
  ExpectColumn(**table, "s", R"([{"inner": 5}, null])");
  ExpectColumn(**table, "part", R"(["x", "x"])");
}

TEST_F(TableScanTest, ColumnMappingIdModeUsesFieldIds) {
  auto id_field = [](const std::string& name, std::shared_ptr<arrow::DataType> t,
                     int id) {
    return arrow::field(
        name, std::move(t), true,
        arrow::key_value_metadata({kParquetFieldIdKey}, {std::to_string(id)}));
  };
  WriteParquet(dir_.Join("a.parquet"),
               Batch({{id_field("old-name", arrow::int64(), 1), "[1, 2]"},
                      {id_field("col-b", arrow::int64(), 9), "[5, 6]"}}));
  WriteCommit(root(), 0,
              {ProtocolAction(2, 5),
               MetadataAction(Schema({F("a", Q("long"), true, Mapping(1, "col-a")),
                                      F("b", Q("long"), true, Mapping(2, "col-b"))}),
                              "[]", R"({"delta.columnMapping.mode":"id"})"),
               AddAction("a.parquet")});
  auto table = ScanAll();
  ASSERT_TRUE(table) << table.error().ToString();
  ExpectColumn(**table, "a", "[1, 2]");
  // b's id 2 is not in the file (the file's col-b has id 9): NULL, not by name.
  ExpectColumn(**table, "b", "[null, null]");
}

TEST_F(TableScanTest, MissingColumnsAreNullAndNamesMatchCaseInsensitively) {
  WriteParquet(dir_.Join("a.parquet"),
               Batch({{arrow::field("ID", arrow::int64()), "[1]"},
                      {arrow::field("extra", arrow::utf8()), R"(["e"])"}}));
  WriteCommit(root(), 0,
              {ProtocolAction(1, 2),
               MetadataAction(Schema({F("id", Q("long")), F("added", Q("string")),
                                      F("nothing", Q("void"))})),
               AddAction("a.parquet")});
  auto table = ScanAll();
  ASSERT_TRUE(table) << table.error().ToString();
  ExpectColumn(**table, "id", "[1]");
  ExpectColumn(**table, "added", "[null]");
  ExpectColumn(**table, "nothing", "[null]");
}

TEST_F(TableScanTest, WidensNarrowerFileTypes) {
  WriteParquet(
      dir_.Join("a_old.parquet"),
      Batch({{arrow::field("i", arrow::int32()), "[1]"},
             {arrow::field("f", arrow::float32()), "[1.5]"},
             {arrow::field("dec", arrow::int32()), "[7]"},
             {arrow::field("d", arrow::date32()), "[1]"},
             {arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO)), "[3]"}}),
      /*int96=*/true);
  WriteParquet(
      dir_.Join("b_new.parquet"),
      Batch({{arrow::field("i", arrow::int64()), "[2]"},
             {arrow::field("f", arrow::float64()), "[2.5]"},
             {arrow::field("dec", arrow::decimal128(12, 2)), R"(["8.25"])"},
             {arrow::field("d", arrow::timestamp(arrow::TimeUnit::MICRO)), "[5]"},
             {arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")),
              "[4]"}}));
  WriteCommit(root(), 0,
              {ProtocolAction(3, 7, R"(["typeWidening","timestampNtz"])"),
               MetadataAction(Schema(
                   {F("i", Q("long")), F("f", Q("double")), F("dec", Q("decimal(12,2)")),
                    F("d", Q("timestamp_ntz")), F("ts", Q("timestamp"))})),
               AddAction("a_old.parquet"), AddAction("b_new.parquet")});
  auto table = ScanAll();
  ASSERT_TRUE(table) << table.error().ToString();
  ExpectColumn(**table, "i", "[1, 2]");
  ExpectColumn(**table, "f", "[1.5, 2.5]");
  ExpectColumn(**table, "dec", R"(["7.00", "8.25"])");
  ExpectColumn(**table, "d", "[86400000000, 5]");
  ExpectColumn(**table, "ts", "[3, 4]");
}

TEST_F(TableScanTest, IncompatibleFileTypeIsSchemaMismatchNamingTheFile) {
  WriteParquet(dir_.Join("a.parquet"),
               Batch({{arrow::field("i", arrow::utf8()), R"(["x"])"}}));
  WriteCommit(root(), 0,
              {ProtocolAction(1, 2), MetadataAction(Schema({F("i", Q("long"))})),
               AddAction("a.parquet")});
  auto table = ScanAll();
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(table.error().message, HasSubstr("a.parquet"));
  EXPECT_THAT(table.error().message, HasSubstr("'i'"));
}

TEST_F(TableScanTest, DeletionVectorsRemoveRowsByPosition) {
  WriteParquet(dir_.Join("a.parquet"),
               Batch({{arrow::field("id", arrow::int64()), "[0,1,2,3,4,5,6,7,8,9]"}}),
               false, /*row_group_size=*/3);
  WriteParquet(dir_.Join("b.parquet"),
               Batch({{arrow::field("id", arrow::int64()), "[10,11,12]"}}));
  DeletionVector inline_dv;
  for (uint64_t r : {1, 5, 9}) inline_dv.Add(r);
  std::string inline_bytes = inline_dv.Serialize();
  DeletionVector file_dv;
  file_dv.Add(0);
  file_dv.Add(2);
  std::string file_bytes = file_dv.Serialize();
  const std::string uuid_bytes(16, '\x11');
  testing::WriteTextFile(
      dir_.Join("deletion_vector_11111111-1111-1111-1111-111111111111.bin"),
      EncodeDeletionVectorFile(file_bytes));
  std::string dv_a = R"("deletionVector":{"storageType":"i","pathOrInlineDv":")" +
                     Z85Encode(inline_bytes) + R"(","sizeInBytes":)" +
                     std::to_string(inline_bytes.size()) + R"(,"cardinality":3})";
  std::string dv_b = R"("deletionVector":{"storageType":"u","pathOrInlineDv":")" +
                     Z85Encode(uuid_bytes) + R"(","offset":1,"sizeInBytes":)" +
                     std::to_string(file_bytes.size()) + R"(,"cardinality":2})";
  WriteCommit(root(), 0,
              {ProtocolAction(3, 7, R"(["deletionVectors"])"),
               MetadataAction(Schema({F("id", Q("long"))})),
               AddAction("a.parquet", "{}", dv_a), AddAction("b.parquet", "{}", dv_b)});
  ScanOptions options;
  options.batch_size = 4;  // DV positions must carry across batches
  auto table = ScanAll(options);
  ASSERT_TRUE(table) << table.error().ToString();
  ExpectColumn(**table, "id", "[0, 2, 3, 4, 6, 7, 8, 11]");
}

TEST_F(TableScanTest, LimitStopsEarly) {
  WriteParquet(dir_.Join("a.parquet"),
               Batch({{arrow::field("id", arrow::int64()), "[1, 2]"}}));
  WriteParquet(dir_.Join("b.parquet"),
               Batch({{arrow::field("id", arrow::int64()), "[3, 4]"}}));
  WriteCommit(
      root(), 0,
      {ProtocolAction(1, 2), MetadataAction(Schema({F("id", Q("long"))})),
       AddAction("a.parquet"), AddAction("b.parquet"), AddAction("missing.parquet")});
  ScanOptions options;
  options.limit = 3;
  auto table = ScanAll(options);  // never reaches missing.parquet
  ASSERT_TRUE(table) << table.error().ToString();
  ExpectColumn(**table, "id", "[1, 2, 3]");
  options.limit = 0;
  auto none = ScanAll(options);
  ASSERT_TRUE(none) << none.error().ToString();
  EXPECT_EQ((*none)->num_rows(), 0);
}

TEST_F(TableScanTest, MissingAndCorruptDataFilesNameTheFile) {
  WriteCommit(root(), 0,
              {ProtocolAction(1, 2), MetadataAction(Schema({F("id", Q("long"))})),
               AddAction("gone.parquet")});
  auto missing = ScanAll();
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(missing.error().message, HasSubstr("gone.parquet"));

  // Errors are sticky: the scan does not skip the bad file and go on.
  auto snapshot = Load();
  ASSERT_TRUE(snapshot);
  auto scan = TableScan::Make(*snapshot, {});
  ASSERT_TRUE(scan);
  auto first = (*scan)->Next();
  ASSERT_FALSE(first);
  auto second = (*scan)->Next();
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().message, first.error().message);

  testing::WriteTextFile(dir_.Join("gone.parquet"), "not parquet");
  auto corrupt = ScanAll();
  ASSERT_FALSE(corrupt);
  EXPECT_EQ(corrupt.error().code, ErrorCode::kCorruptData);
  EXPECT_THAT(corrupt.error().message, HasSubstr("gone.parquet"));
}

TEST_F(TableScanTest, VariantColumnsCannotBeScannedYet) {
  WriteParquet(dir_.Join("a.parquet"),
               Batch({{arrow::field("id", arrow::int64()), "[1]"}}));
  WriteCommit(root(), 0,
              {ProtocolAction(3, 7, R"(["variantType"])"),
               MetadataAction(Schema({F("id", Q("long")), F("v", Q("variant"))})),
               AddAction("a.parquet")});
  auto all = ScanAll();
  ASSERT_FALSE(all);
  EXPECT_EQ(all.error().code, ErrorCode::kUnsupportedFeature);
  EXPECT_THAT(all.error().message,
              HasSubstr("scanning variant column 'v' is not supported yet"));
  ScanOptions options;
  options.columns = {"id"};
  auto id_only = ScanAll(options);
  ASSERT_TRUE(id_only) << id_only.error().ToString();
  ExpectColumn(**id_only, "id", "[1]");
}

// A FileSystem whose ReadRange fails: the FileSystem's error code must reach the caller.
class FailingReadFileSystem final : public FileSystem {
 public:
  explicit FailingReadFileSystem(FileSystemRef base) : base_(std::move(base)) {}
  Result<std::vector<FileInfo>> List(const std::string& d,
                                     std::string_view s) const override {
    return base_->List(d, s);
  }
  Result<std::string> ReadFile(const std::string& p) const override {
    return base_->ReadFile(p);
  }
  Result<std::string> ReadRange(const std::string& p, int64_t, int64_t) const override {
    return MakeError(ErrorCode::kIOError, "injected read failure on '{}'", p);
  }
  Result<FileInfo> Stat(const std::string& p) const override { return base_->Stat(p); }
  Result<bool> Exists(const std::string& p) const override { return base_->Exists(p); }
  Status PutIfAbsent(const std::string& p, std::string_view d) override {
    return base_->PutIfAbsent(p, d);
  }
  Status Write(const std::string& p, std::string_view d) override {
    return base_->Write(p, d);
  }
  Status Delete(const std::string& p) override { return base_->Delete(p); }
  Status CreateDirs(const std::string& d) override { return base_->CreateDirs(d); }

 private:
  FileSystemRef base_;
};

TEST_F(TableScanTest, FileSystemErrorsKeepTheirCode) {
  WriteParquet(dir_.Join("a.parquet"),
               Batch({{arrow::field("id", arrow::int64()), "[1]"}}));
  WriteCommit(root(), 0,
              {ProtocolAction(1, 2), MetadataAction(Schema({F("id", Q("long"))})),
               AddAction("a.parquet")});
  fs_ = std::make_shared<FailingReadFileSystem>(MakeLocalFileSystem());
  auto table = ScanAll();
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error().code, ErrorCode::kIOError);
  EXPECT_THAT(table.error().message, HasSubstr("injected read failure"));
}

}  // namespace
}  // namespace deltaguard
