// ALTER TABLE on real tables: every operation commits once with Spark's commitInfo, old
// and new files read correctly after each change, refusals leave the table unchanged,
// and a concurrent metadata change surfaces as kCommitConflict.

#include "deltaguard/table/alter.h"

#include <arrow/record_batch.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "deltaguard/exec/result_format.h"
#include "deltaguard/io/fs/fault_injection_file_system.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/protocol/write_protocol.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/write.h"
#include "deltaguard/txn/transaction.h"
#include "testing/matchers.h"
#include "testing/racing_file_system.h"
#include "testing/table_fixture.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

using testing::AppendJson;
using testing::CommitFile;
using testing::CreateDdlTable;
using testing::OpenTable;

FileSystemRef Fs() { return MakeLocalFileSystem(); }

// Every row as canonical JSON ({"a":1,...} in table column order), sorted.
std::vector<std::string> ReadRows(const std::string& path) {
  std::vector<std::string> rows;
  for (const auto& batch : testing::ScanTable(path).batches) {
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      std::string row = "{";
      for (int c = 0; c < batch->num_columns(); ++c) {
        if (c > 0) row += ",";
        row += "\"" + batch->schema()->field(c)->name() + "\":";
        AppendJsonValue(*batch->column(c), r, &row);
      }
      rows.push_back(row + "}");
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

// The table's version and schema JSON: equal before and after a refused ALTER.
std::string State(const std::string& path) {
  auto s = OpenTable(path);
  return s ? std::to_string(s->version()) + " " + s->metadata().schema_string + " " +
                 std::to_string(s->protocol().min_writer_version)
           : "";
}

void ExpectRefused(const Result<AlterResult>& result, const std::string& path,
                   const std::string& before, ErrorCode code,
                   const std::vector<std::string>& parts) {
  ASSERT_FALSE(result) << "accepted: " << result->message;
  EXPECT_EQ(result.error().code, code) << result.error().ToString();
  for (const auto& p : parts) EXPECT_THAT(result.error().message, HasSubstr(p));
  EXPECT_EQ(State(path), before);  // nothing committed
}

constexpr const char* kDdl = "id BIGINT, name STRING, country STRING";

// A table with two rows (id, name, country), partitioned by country, and optionally
// column-mapped from the start.
std::string MakeTable(const TempDir& dir, StringMap properties = {}) {
  const std::string path = dir.Join("t");
  CreateDdlTable(path, kDdl, std::move(properties), {"country"});
  AppendJson(
      path, kDdl,
      R"([{"id":1,"name":"a","country":"DE"},{"id":2,"name":null,"country":"US"}])");
  return path;
}

TEST(AlterTableTest, AddColumnsReadsOldFilesAsNullAndLogsSparkParameters) {
  TempDir dir;
  const std::string path = MakeTable(dir);
  NewColumnSpec first;
  first.path = {"tag"};
  first.type = DataType::String();
  first.comment = "a tag";
  first.position = ColumnPosition{true, ""};
  NewColumnSpec nested;
  nested.path = {"info"};
  nested.type = Ddl("x INT, y STRING");
  auto added = AddColumns(Fs(), path, {first, nested});
  ASSERT_TRUE(added) << added.error().ToString();
  EXPECT_EQ(added->version, 2);
  EXPECT_EQ(added->message,
            "added column 'tag' (string) first; added column 'info' "
            "(struct<x: integer, y: string>)");
  const std::string log = CommitFile(path, 2);
  EXPECT_THAT(log, HasSubstr(R"("operation":"ADD COLUMNS")"));
  EXPECT_THAT(log, HasSubstr(R"("columns":"[{\"column\":{\"name\":\"tag\",\"type\":)"
                             R"(\"string\",\"nullable\":true,\"metadata\":{\"comment\":)"
                             R"(\"a tag\"}},\"position\":\"FIRST\"})"));
  // Nested: add a field to the new struct, after x.
  NewColumnSpec field;
  field.path = {"info", "z"};
  field.type = DataType::Long();
  field.position = ColumnPosition{false, "x"};
  ASSERT_TRUE(AddColumns(Fs(), path, {field}));
  const std::string ddl =
      "tag STRING, id BIGINT, name STRING, country STRING, "
      "info STRUCT<x: INT, z: BIGINT, y: STRING>";
  AppendJson(
      path, ddl,
      R"([{"tag":"t","id":3,"name":"c","country":"DE","info":{"x":1,"z":9,"y":"q"}}])");
  EXPECT_THAT(ReadRows(path),
              UnorderedElementsAre(
                  R"({"tag":null,"id":1,"name":"a","country":"DE","info":null})",
                  R"({"tag":null,"id":2,"name":null,"country":"US","info":null})",
                  R"({"tag":"t","id":3,"name":"c","country":"DE",)"
                  R"("info":{"x":1,"z":9,"y":"q"}})"));
}

TEST(AlterTableTest, RenameAndDropNeedColumnMappingWhichEnablingKeepsFilesReadable) {
  TempDir dir;
  const std::string path = MakeTable(dir);
  const std::string before = State(path);
  ExpectRefused(RenameColumn(Fs(), path, {"name"}, "full_name"), path, before,
                ErrorCode::kInvalidArgument,
                {"DELTA_UNSUPPORTED_RENAME_COLUMN",
                 "SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name')"});
  ExpectRefused(DropColumns(Fs(), path, {{"name"}}, false), path, before,
                ErrorCode::kInvalidArgument, {"DELTA_UNSUPPORTED_DROP_COLUMN"});

  auto enabled = SetTableProperties(Fs(), path, {{"delta.columnMapping.mode", "name"}});
  ASSERT_TRUE(enabled) << enabled.error().ToString();
  ASSERT_TRUE(enabled->new_protocol);
  EXPECT_GE(enabled->new_protocol->min_reader_version, 2);
  EXPECT_TRUE(IsFeatureSupported(*enabled->new_protocol, "columnMapping"));
  auto snapshot = OpenTable(path);
  EXPECT_EQ(snapshot->column_mapping_mode(), ColumnMappingMode::kName);
  for (const auto& f : snapshot->schema()->fields()) {
    EXPECT_EQ(f.physical_name(), f.name);  // upgraded tables keep the old names
  }
  EXPECT_EQ(snapshot->metadata().GetConfig("delta.columnMapping.maxColumnId"), "3");
  EXPECT_THAT(CommitFile(path, 2), HasSubstr(R"("operation":"SET TBLPROPERTIES")"));

  auto renamed = RenameColumn(Fs(), path, {"NAME"}, "full_name");
  ASSERT_TRUE(renamed) << renamed.error().ToString();
  EXPECT_THAT(CommitFile(path, renamed->version),
              HasSubstr(R"("operationParameters":{"oldColumnPath":"name",)"
                        R"("newColumnPath":"full_name"})"));
  // The partition column may be renamed too; partitionColumns follows.
  auto region = RenameColumn(Fs(), path, {"country"}, "region");
  ASSERT_TRUE(region) << region.error().ToString();
  EXPECT_THAT(OpenTable(path)->metadata().partition_columns,
              UnorderedElementsAre("region"));
  AppendJson(path, "id BIGINT, full_name STRING, region STRING",
             R"([{"id":3,"full_name":"c","region":"FR"}])");
  EXPECT_THAT(ReadRows(path),
              UnorderedElementsAre(R"({"id":1,"full_name":"a","region":"DE"})",
                                   R"({"id":2,"full_name":null,"region":"US"})",
                                   R"({"id":3,"full_name":"c","region":"FR"})"));

  auto dropped = DropColumns(Fs(), path, {{"full_name"}, {"nope"}}, /*if_exists=*/true);
  ASSERT_TRUE(dropped) << dropped.error().ToString();
  EXPECT_THAT(CommitFile(path, dropped->version),
              HasSubstr(R"("operation":"DROP COLUMNS","operationParameters":)"
                        R"({"columns":"[\"full_name\"]"})"));
  // Re-adding the name gets a new physical name: the old data stays dropped.
  NewColumnSpec again;
  again.path = {"full_name"};
  again.type = DataType::String();
  ASSERT_TRUE(AddColumns(Fs(), path, {again}));
  auto reopened = OpenTable(path);
  auto readded = reopened->schema()->FindPath({"full_name"});
  ASSERT_NE(readded, nullptr);
  EXPECT_THAT(*readded->physical_name(), HasSubstr("col-"));
  EXPECT_EQ(readded->column_mapping_id(), 4);
  EXPECT_THAT(ReadRows(path),
              UnorderedElementsAre(R"({"id":1,"region":"DE","full_name":null})",
                                   R"({"id":2,"region":"US","full_name":null})",
                                   R"({"id":3,"region":"FR","full_name":null})"));
  auto no_op = DropColumns(Fs(), path, {{"nope"}}, true);
  ASSERT_TRUE(no_op) << no_op.error().ToString();
  EXPECT_EQ(no_op->version, -1);
}

TEST(AlterTableTest, TypeWideningReadsOldFilesInTheNewType) {
  TempDir dir;
  const std::string path = dir.Join("t");
  const std::string ddl = "id INT, d DATE, amount DECIMAL(5,2), f FLOAT";
  CreateDdlTable(path, ddl);
  AppendJson(path, ddl, R"([{"id":2147483647,"d":19753,"amount":"123.45","f":1.5}])");
  const std::string before = State(path);
  ChangeColumnSpec to_long;
  to_long.type = DataType::Long();
  ExpectRefused(ChangeColumn(Fs(), path, {"id"}, to_long), path, before,
                ErrorCode::kSchemaMismatch,
                {"from integer to long", "'delta.enableTypeWidening' = 'true'"});
  ChangeColumnSpec to_short;
  to_short.type = DataType::Short();
  ExpectRefused(ChangeColumn(Fs(), path, {"id"}, to_short), path, before,
                ErrorCode::kSchemaMismatch, {"from integer to short", "narrowing"});

  auto enabled = SetTableProperties(Fs(), path, {{"delta.enableTypeWidening", "true"}});
  ASSERT_TRUE(enabled) << enabled.error().ToString();
  ASSERT_TRUE(enabled->new_protocol);
  EXPECT_EQ(enabled->new_protocol->min_reader_version, 3);
  EXPECT_THAT(*enabled->new_protocol->reader_features,
              ::testing::Contains("typeWidening"));
  ASSERT_TRUE(ChangeColumn(Fs(), path, {"id"}, to_long));
  ChangeColumnSpec to_ntz;
  to_ntz.type = DataType::TimestampNtz();
  ASSERT_TRUE(ChangeColumn(Fs(), path, {"d"}, to_ntz));
  ChangeColumnSpec to_decimal;
  to_decimal.type = *DecimalType::Make(10, 4);
  ASSERT_TRUE(ChangeColumn(Fs(), path, {"amount"}, to_decimal));
  ChangeColumnSpec to_double;
  to_double.type = DataType::Double();
  auto changed = ChangeColumn(Fs(), path, {"f"}, to_double);
  ASSERT_TRUE(changed) << changed.error().ToString();
  EXPECT_THAT(CommitFile(path, changed->version),
              HasSubstr(R"("operation":"CHANGE COLUMN","operationParameters":{"column":)"
                        R"("{\"name\":\"f\",\"type\":\"double\",\"nullable\":true,)"
                        R"(\"metadata\":{\"delta.typeChanges\":[{\"toType\":\"double\",)"
                        R"(\"fromType\":\"float\"}]}}"})"));
  const std::string wide = "id BIGINT, d TIMESTAMP_NTZ, amount DECIMAL(10,4), f DOUBLE";
  AppendJson(
      path, wide,
      R"([{"id":9000000000,"d":1706781600000000,"amount":"123456.7890","f":0.1}])");
  EXPECT_THAT(ReadRows(path),
              UnorderedElementsAre(R"({"id":2147483647,"d":"2024-01-31T00:00:00.000000",)"
                                   R"("amount":"123.4500","f":1.5})",
                                   R"({"id":9000000000,"d":"2024-02-01T10:00:00.000000",)"
                                   R"("amount":"123456.7890","f":0.1})"));
}

TEST(AlterTableTest, SetNotNullScansAndRefusesWithCountAndSamples) {
  TempDir dir;
  const std::string path = MakeTable(dir);  // row 2 has name NULL
  const std::string before = State(path);
  ChangeColumnSpec not_null;
  not_null.nullable = false;
  ExpectRefused(ChangeColumn(Fs(), path, {"name"}, not_null), path, before,
                ErrorCode::kConstraintViolation,
                {"DELTA_NEW_NOT_NULL_VIOLATION", "1 row in table", "column 'name'",
                 "{id: 2, name: NULL, country: US}"});
  auto ok = ChangeColumn(Fs(), path, {"id"}, not_null);
  ASSERT_TRUE(ok) << ok.error().ToString();
  EXPECT_FALSE(OpenTable(path)->schema()->field(0).nullable);
  // The write path now refuses NULL ids.
  auto batch = Rows(Ddl(kDdl), R"([{"id":null,"name":"x","country":"DE"}])");
  std::vector<BatchSource> sources;
  sources.push_back(SourceFromReader(
      "rows", *arrow::RecordBatchReader::Make({batch}, batch->schema())));
  auto written = WriteTable(Fs(), path, std::move(sources), {});
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().code, ErrorCode::kConstraintViolation);
  ChangeColumnSpec nullable;
  nullable.nullable = true;
  ASSERT_TRUE(ChangeColumn(Fs(), path, {"id"}, nullable));
  EXPECT_TRUE(OpenTable(path)->schema()->field(0).nullable);
  // Unchanged definition: nothing committed.
  auto same = ChangeColumn(Fs(), path, {"id"}, nullable);
  ASSERT_TRUE(same) << same.error().ToString();
  EXPECT_EQ(same->version, -1);
}

TEST(AlterTableTest, SetNotNullOnNestedFieldCountsNullParents) {
  TempDir dir;
  const std::string path = dir.Join("t");
  const std::string ddl = "id INT, s STRUCT<a: INT, b: STRING>";
  CreateDdlTable(path, ddl);
  std::string rows = "[";
  for (int i = 0; i < 8; ++i) {
    rows += (i ? "," : "") + std::string("{\"id\":") + std::to_string(i) +
            (i % 2 ? ",\"s\":null}" : ",\"s\":{\"a\":1,\"b\":\"x\"}}");
  }
  AppendJson(path, ddl, rows + "]");
  ChangeColumnSpec not_null;
  not_null.nullable = false;
  auto refused = ChangeColumn(Fs(), path, {"s", "a"}, not_null);
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message, HasSubstr("4 rows in table"));
  EXPECT_THAT(refused.error().message, HasSubstr("column 's.a' (showing 4)"));
  EXPECT_THAT(refused.error().message, HasSubstr("{id: 1, s: NULL}"));
}

TEST(AlterTableTest, CommentAndReorderChangeOnlyTheSchema) {
  TempDir dir;
  const std::string path = MakeTable(dir);
  ChangeColumnSpec change;
  change.comment = "the country";
  change.position = ColumnPosition{true, ""};
  auto moved = ChangeColumn(Fs(), path, {"country"}, change);
  ASSERT_TRUE(moved) << moved.error().ToString();
  EXPECT_THAT(CommitFile(path, moved->version), HasSubstr(R"("position":"FIRST")"));
  ChangeColumnSpec after;
  after.position = ColumnPosition{false, "name"};
  ASSERT_TRUE(ChangeColumn(Fs(), path, {"id"}, after));
  auto snapshot = OpenTable(path);
  EXPECT_EQ(snapshot->schema()->field(0).comment(), "the country");
  EXPECT_THAT(ReadRows(path),
              UnorderedElementsAre(R"({"country":"DE","name":"a","id":1})",
                                   R"({"country":"US","name":null,"id":2})"));
}

// Adds a CHECK constraint by hand (ADD CONSTRAINT is another engineer's work).
void AddConstraintByHand(const std::string& path, const std::string& name,
                         const std::string& expression) {
  auto snapshot = OpenTable(path);
  auto txn = Transaction::Begin(Fs(), snapshot->table_root(), snapshot);
  ASSERT_TRUE(txn);
  Metadata md = snapshot->metadata();
  md.configuration.emplace_back("delta.constraints." + name, expression);
  auto upgrade =
      ProtocolUpgradeFor(snapshot->protocol(), md.configuration, *snapshot->schema());
  ASSERT_TRUE(upgrade) << upgrade.error().ToString();
  if (*upgrade) (*txn)->SetProtocol(**upgrade);
  (*txn)->SetMetadata(md);
  OperationInfo op;
  op.operation = "ADD CONSTRAINT";
  ASSERT_TRUE((*txn)->Commit(op));
}

TEST(AlterTableTest, DependentsAndPartitionColumnsAreProtected) {
  TempDir dir;
  const std::string path = MakeTable(
      dir, {{"delta.columnMapping.mode", "name"}, {"delta.enableTypeWidening", "true"}});
  AddConstraintByHand(path, "positive_id", "id > 0");
  const std::string before = State(path);
  ExpectRefused(DropColumns(Fs(), path, {{"id"}}, false), path, before,
                ErrorCode::kInvalidArgument,
                {"DELTA_CONSTRAINT_DEPENDENT_COLUMN_CHANGE", "'positive_id'", "id > 0"});
  ExpectRefused(RenameColumn(Fs(), path, {"id"}, "key"), path, before,
                ErrorCode::kInvalidArgument, {"'positive_id'"});
  ChangeColumnSpec retype;
  retype.type = *DecimalType::Make(22, 0);
  ExpectRefused(ChangeColumn(Fs(), path, {"id"}, retype), path, before,
                ErrorCode::kInvalidArgument, {"'positive_id'"});
  ExpectRefused(DropColumns(Fs(), path, {{"country"}}, false), path, before,
                ErrorCode::kInvalidArgument, {"DELTA_UNSUPPORTED_DROP_PARTITION_COLUMN"});
  ChangeColumnSpec country_type;
  country_type.type = DataType::Integer();
  ExpectRefused(ChangeColumn(Fs(), path, {"country"}, country_type), path, before,
                ErrorCode::kInvalidArgument, {"partition column 'country'"});
  ExpectRefused(DropColumns(Fs(), path, {{"name"}, {"id"}, {"country"}}, false), path,
                before, ErrorCode::kInvalidArgument, {});
  ExpectRefused(AddColumns(Fs(), path,
                           {NewColumnSpec{{"c"},
                                          DataType::Integer(),
                                          {},
                                          /*not_null=*/true,
                                          {}}}),
                path, before, ErrorCode::kInvalidArgument, {"NOT NULL"});
  ExpectRefused(RenameColumn(Fs(), path, {"nope"}, "x"), path, before,
                ErrorCode::kNotFound, {"available columns: id, name, country"});
}

TEST(AlterTableTest, SetAndUnsetPropertiesUpgradeTheProtocolAndRefuseWhatTheyMust) {
  TempDir dir;
  const std::string path = MakeTable(dir);
  std::string before = State(path);
  ExpectRefused(SetTableProperties(Fs(), path, {{"delta.constraints.c", "id > 0"}}), path,
                before, ErrorCode::kInvalidArgument,
                {"DELTA_ADD_CONSTRAINTS", "ADD CONSTRAINT c CHECK (id > 0)"});
  ExpectRefused(SetTableProperties(Fs(), path, {{"delta.noSuchThing", "1"}}), path,
                before, ErrorCode::kInvalidArgument, {"DELTA_UNKNOWN_CONFIGURATION"});
  ExpectRefused(SetTableProperties(Fs(), path, {{"delta.columnMapping.mode", "id"}}),
                path, before, ErrorCode::kInvalidArgument,
                {"DELTA_UNSUPPORTED_COLUMN_MAPPING_MODE_CHANGE", "field ids"});
  ExpectRefused(SetTableProperties(Fs(), path, {{"delta.enableRowTracking", "true"}}),
                path, before, ErrorCode::kUnsupportedFeature, {"rowTracking"});
  ExpectRefused(SetTableProperties(Fs(), path, {{"delta.minWriterVersion", "1"}}), path,
                before, ErrorCode::kInvalidArgument,
                {"DELTA_INVALID_PROTOCOL_DOWNGRADE"});
  ExpectRefused(UnsetTableProperties(Fs(), path, {"my.key"}, false), path, before,
                ErrorCode::kNotFound, {"UNSET_NONEXISTENT_PROPERTIES", "my.key"});

  auto set = SetTableProperties(Fs(), path,
                                {{"delta.appendOnly", "true"},
                                 {"delta.checkpointInterval", "4"},
                                 {"delta.feature.deletionVectors", "supported"},
                                 {"my.key", "v"}});
  ASSERT_TRUE(set) << set.error().ToString();
  EXPECT_EQ(set->version, 2);
  ASSERT_TRUE(set->new_protocol);
  EXPECT_EQ(set->new_protocol->min_writer_version, 7);
  EXPECT_THAT(*set->new_protocol->writer_features,
              ::testing::IsSupersetOf({"appendOnly", "invariants", "deletionVectors"}));
  auto snapshot = OpenTable(path);
  EXPECT_EQ(snapshot->metadata().GetConfig("delta.feature.deletionVectors"),
            std::nullopt);
  EXPECT_EQ(snapshot->metadata().GetConfig("my.key"), "v");
  EXPECT_THAT(CommitFile(path, 2),
              HasSubstr(R"("operation":"SET TBLPROPERTIES","operationParameters":)"
                        R"({"properties":"{\"delta.appendOnly\":\"true\",)"));
  // The checkpoint interval takes effect: version 4 gets a checkpoint.
  ASSERT_TRUE(UnsetTableProperties(Fs(), path, {"MY.KEY"}, false));
  auto unset = UnsetTableProperties(Fs(), path, {"delta.appendOnly", "gone"}, true);
  ASSERT_TRUE(unset) << unset.error().ToString();
  EXPECT_EQ(unset->version, 4);
  EXPECT_EQ(unset->checkpoint_version, 4);
  EXPECT_THAT(CommitFile(path, 4),
              HasSubstr(R"("operationParameters":{"properties":"[\"delta.appendOnly\"]",)"
                        R"("ifExists":"true"})"));
  auto nothing = UnsetTableProperties(Fs(), path, {"gone"}, true);
  ASSERT_TRUE(nothing);
  EXPECT_EQ(nothing->version, -1);

  before = State(path);
  ExpectRefused(UnsetTableProperties(Fs(), path, {"delta.constraints.x"}, true), path,
                before, ErrorCode::kInvalidArgument, {"DROP CONSTRAINT x"});
  ExpectRefused(UnsetTableProperties(Fs(), path, {"delta.feature.appendOnly"}, true),
                path, before, ErrorCode::kInvalidArgument, {"DROP FEATURE"});
  ASSERT_TRUE(SetTableProperties(Fs(), path, {{"delta.columnMapping.mode", "name"}}));
  before = State(path);
  ExpectRefused(UnsetTableProperties(Fs(), path, {"delta.columnMapping.mode"}, false),
                path, before, ErrorCode::kInvalidArgument,
                {"DELTA_UNSUPPORTED_COLUMN_MAPPING_MODE_CHANGE"});
  ExpectRefused(SetTableProperties(Fs(), path, {{"delta.columnMapping.mode", "none"}}),
                path, before, ErrorCode::kInvalidArgument,
                {"from 'name' to 'none'", "rewritten"});
  ExpectRefused(
      UnsetTableProperties(Fs(), path, {"delta.columnMapping.maxColumnId"}, false), path,
      before, ErrorCode::kInvalidArgument, {"maintained by the writer"});
}

TEST(AlterTableTest, IdModeOnlyOnATableWithoutFiles) {
  TempDir dir;
  const std::string path = dir.Join("t");
  CreateDdlTable(path, kDdl);
  auto set = SetTableProperties(Fs(), path, {{"delta.columnMapping.mode", "id"}});
  ASSERT_TRUE(set) << set.error().ToString();
  auto renamed = RenameColumn(Fs(), path, {"name"}, "n");
  ASSERT_TRUE(renamed) << renamed.error().ToString();
  AppendJson(path, "id BIGINT, n STRING, country STRING",
             R"([{"id":1,"n":"a","country":"DE"}])");
  EXPECT_THAT(ReadRows(path), UnorderedElementsAre(R"({"id":1,"n":"a","country":"DE"})"));
}

TEST(AlterTableTest, DescribesFeaturesAndShowsProperties) {
  TempDir dir;
  const std::string path = MakeTable(dir, {{"delta.enableTypeWidening", "true"}});
  ASSERT_TRUE(SetTableProperties(Fs(), path, {{"delta.appendOnly", "false"}}));
  auto snapshot = OpenTable(path);
  TableFeaturesInfo info = DescribeTableFeatures(*snapshot);
  EXPECT_EQ(info.min_reader_version, 3);
  EXPECT_EQ(info.min_writer_version, 7);
  EXPECT_TRUE(info.explicit_features);
  auto find = [&](const std::string& name) -> const TableFeatureStatus* {
    for (const auto& f : info.features) {
      if (f.name == name) return &f;
    }
    return nullptr;
  };
  ASSERT_NE(find("typeWidening"), nullptr);
  EXPECT_TRUE(find("typeWidening")->active);
  EXPECT_TRUE(find("typeWidening")->reader_writer);
  EXPECT_EQ(find("typeWidening")->reason, "delta.enableTypeWidening = true");
  ASSERT_NE(find("appendOnly"), nullptr);
  EXPECT_FALSE(find("appendOnly")->active);  // supported, not active
  StringMap shown = ShowTableProperties(*snapshot);
  EXPECT_THAT(shown, ::testing::Contains(std::pair<std::string, std::string>(
                         "delta.enableTypeWidening", "true")));
  EXPECT_THAT(shown, ::testing::Contains(std::pair<std::string, std::string>(
                         "delta.minReaderVersion", "3")));
  EXPECT_THAT(shown, ::testing::Contains(std::pair<std::string, std::string>(
                         "delta.feature.typeWidening", "supported")));
}

TEST(AlterTableTest, ConcurrentMetadataChangeIsACommitConflict) {
  TempDir dir;
  const std::string path = MakeTable(dir, {{"delta.columnMapping.mode", "name"}});
  auto racing = std::make_shared<testing::RacingFileSystem>(Fs(), [&] {
    NewColumnSpec spec;
    spec.path = {"winner"};
    spec.type = DataType::Integer();
    ASSERT_TRUE(AddColumns(Fs(), path, {spec}));
  });
  auto lost = RenameColumn(racing, path, {"name"}, "loser");
  ASSERT_FALSE(lost);
  EXPECT_EQ(lost.error().code, ErrorCode::kCommitConflict);
  EXPECT_THAT(lost.error().message, HasSubstr("DELTA_METADATA_CHANGED"));
  auto snapshot = OpenTable(path);
  EXPECT_EQ(snapshot->version(), 2);
  EXPECT_NE(snapshot->schema()->FindPath({"winner"}), nullptr);
  EXPECT_NE(snapshot->schema()->FindPath({"name"}), nullptr);  // rename did not land
}

TEST(AlterTableTest, SetNotNullConflictsWithAConcurrentAppend) {
  TempDir dir;
  const std::string path = dir.Join("t");
  CreateDdlTable(path, kDdl);
  AppendJson(path, kDdl, R"([{"id":1,"name":"a","country":"DE"}])");
  auto racing = std::make_shared<testing::RacingFileSystem>(
      Fs(), [&] { AppendJson(path, kDdl, R"([{"id":2,"name":null,"country":"DE"}])"); });
  ChangeColumnSpec not_null;
  not_null.nullable = false;
  auto lost = ChangeColumn(racing, path, {"name"}, not_null);
  ASSERT_FALSE(lost);
  EXPECT_EQ(lost.error().code, ErrorCode::kCommitConflict);
  EXPECT_TRUE(OpenTable(path)->schema()->FindPath({"name"})->nullable);
}

TEST(AlterTableTest, FailedCommitLeavesTheTableUnchangedAndARetryLands) {
  TempDir dir;
  const std::string path = MakeTable(dir);
  const std::string before = State(path);
  auto faulty = std::make_shared<FaultInjectionFileSystem>(Fs());
  faulty->FailNextMatching("_delta_log/00000000000000000002.json", Fault::kError);
  NewColumnSpec spec;
  spec.path = {"c"};
  spec.type = DataType::Integer();
  auto failed = AddColumns(faulty, path, {spec});
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, ErrorCode::kIOError);
  EXPECT_EQ(State(path), before);
  auto retried = AddColumns(Fs(), path, {spec});
  ASSERT_TRUE(retried) << retried.error().ToString();
  EXPECT_EQ(retried->version, 2);
}

TEST(AlterTableTest, MissingTableIsNotFound) {
  TempDir dir;
  auto result = SetTableProperties(Fs(), dir.Join("none"), {{"a", "b"}});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace deltaguard
