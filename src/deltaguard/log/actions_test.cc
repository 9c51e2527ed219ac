#include "deltaguard/log/actions.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/log/log_test_util.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

template <typename T>
T ParseOne(const std::string& line) {
  auto r = ParseActionLine(line, "test.json", 1);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
  EXPECT_TRUE(r && r->has_value());
  const T* v = std::get_if<T>(&**r);
  EXPECT_NE(v, nullptr) << "wrong action type";
  return v ? *v : T{};
}

Error ParseError(const std::string& line, int64_t line_no = 7) {
  auto r = ParseActionLine(line, "/t/_delta_log/00000000000000000003.json", line_no);
  EXPECT_FALSE(r.has_value()) << "expected an error for: " << line;
  return r ? Error{ErrorCode::kInternal, "no error"} : r.error();
}

TEST(ParseActionTest, AddWithAllFields) {
  AddFile a = ParseOne<AddFile>(
      R"({"add":{"path":"a=1/part%20x.parquet","partitionValues":{"a":"1","b":null},)"
      R"("size":841,"modificationTime":1512909768000,"dataChange":false,)"
      R"("stats":"{\"numRecords\":42,\"minValues\":{\"numRecords\":1}}",)"
      R"("tags":{"INSERTION_TIME":"1","NULLTAG":null},"deletionVector":{"storageType":"u",)"
      R"("pathOrInlineDv":"ab^-aqEH.-t@S}K{vb[*k^","offset":4,"sizeInBytes":40,)"
      R"("cardinality":6,"maxRowIndex":99},"baseRowId":4071,"defaultRowCommitVersion":41,)"
      R"("clusteringProvider":"liquid","someFutureField":[1,2]}})");
  EXPECT_EQ(a.path, "a=1/part%20x.parquet");
  ASSERT_EQ(a.partition_values.size(), 2u);
  EXPECT_EQ(a.partition_values[0].first, "a");
  EXPECT_EQ(a.partition_values[0].second, "1");
  EXPECT_EQ(a.partition_values[1].first, "b");
  EXPECT_FALSE(a.partition_values[1].second.has_value());
  EXPECT_EQ(a.size, 841);
  EXPECT_EQ(a.modification_time, 1512909768000);
  EXPECT_FALSE(a.data_change);
  ASSERT_EQ(a.tags.size(), 1u);  // null tag values are dropped
  EXPECT_EQ(a.tags[0].second, "1");
  ASSERT_TRUE(a.deletion_vector.has_value());
  EXPECT_EQ(a.deletion_vector->storage_type, 'u');
  EXPECT_EQ(a.deletion_vector->offset, 4);
  EXPECT_EQ(a.deletion_vector->size_in_bytes, 40);
  EXPECT_EQ(a.deletion_vector->cardinality, 6);
  EXPECT_EQ(a.deletion_vector->max_row_index, 99);
  EXPECT_EQ(a.deletion_vector->UniqueId(), "uab^-aqEH.-t@S}K{vb[*k^@4");
  EXPECT_EQ(a.base_row_id, 4071);
  EXPECT_EQ(a.default_row_commit_version, 41);
  EXPECT_EQ(a.clustering_provider, "liquid");
  EXPECT_EQ(a.NumRecords(), 42);  // the nested "numRecords" key is not the top-level one
}

TEST(ParseActionTest, DvUniqueIdWithoutOffset) {
  DeletionVectorDescriptor dv;
  dv.storage_type = 'i';
  dv.path_or_inline_dv = "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L";
  EXPECT_EQ(dv.UniqueId(), "iwi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L");
}

TEST(ParseActionTest, NumRecordsAbsentOrMalformed) {
  AddFile a;
  EXPECT_FALSE(a.NumRecords().has_value());
  a.stats = R"({"minValues":{"numRecords":5},"numRecords":null})";
  EXPECT_FALSE(a.NumRecords().has_value());
  a.stats =
      R"({"nullCount":{"x":[1,{"numRecords":3}]},"numRecords":7,"tightBounds":true})";
  EXPECT_EQ(a.NumRecords(), 7);
  a.stats = "{\"numRecords\":";  // truncated
  EXPECT_FALSE(a.NumRecords().has_value());
}

TEST(ParseActionTest, RemoveMetadataProtocolTxnDomainCdc) {
  RemoveFile r = ParseOne<RemoveFile>(
      R"({"remove":{"path":"p","deletionTimestamp":5,"dataChange":true,)"
      R"("extendedFileMetadata":true,"partitionValues":{"x":null},"size":10,"tags":{"t":"v"}}})");
  EXPECT_EQ(r.path, "p");
  EXPECT_EQ(r.deletion_timestamp, 5);
  EXPECT_EQ(r.extended_file_metadata, true);
  ASSERT_TRUE(r.partition_values.has_value());
  EXPECT_FALSE((*r.partition_values)[0].second.has_value());
  EXPECT_EQ(r.size, 10);
  EXPECT_EQ(r.tags.size(), 1u);

  Metadata m = ParseOne<Metadata>(testing::MetadataLine(R"("Delta.AppendOnly":"true")"));
  EXPECT_EQ(m.id, "test-table-id");
  EXPECT_EQ(m.format.provider, "parquet");
  EXPECT_THAT(m.schema_string, HasSubstr("\"long\""));
  EXPECT_EQ(m.created_time, 1700000000000);
  EXPECT_EQ(m.GetConfig("delta.appendOnly"), "true");  // case-insensitive key
  EXPECT_EQ(m.GetConfig("DELTA.APPENDONLY"), "true");
  EXPECT_FALSE(m.GetConfig("delta.appendOnlyX").has_value());

  Protocol p =
      ParseOne<Protocol>(testing::ProtocolLine(3, 7, {"deletionVectors"}, {"x"}));
  EXPECT_EQ(p.min_reader_version, 3);
  EXPECT_EQ(p.min_writer_version, 7);
  ASSERT_TRUE(p.reader_features.has_value());
  EXPECT_EQ(p.reader_features->at(0), "deletionVectors");
  EXPECT_EQ(p.writer_features->at(0), "x");

  SetTransaction t = ParseOne<SetTransaction>(testing::TxnLine("app", 364475));
  EXPECT_EQ(t.app_id, "app");
  EXPECT_EQ(t.version, 364475);
  EXPECT_EQ(t.last_updated, 1);

  DomainMetadata d = ParseOne<DomainMetadata>(testing::DomainLine("delta.x", "{}", true));
  EXPECT_EQ(d.domain, "delta.x");
  EXPECT_TRUE(d.removed);

  AddCdcFile c = ParseOne<AddCdcFile>(
      R"({"cdc":{"path":"_change_data/c.parquet","partitionValues":{},"size":1155,"dataChange":false}})");
  EXPECT_EQ(c.path, "_change_data/c.parquet");
  EXPECT_EQ(c.size, 1155);
}

TEST(ParseActionTest, CommitInfoKeepsRawJson) {
  std::string raw =
      R"({"inCommitTimestamp":1700000000123,"timestamp":1,"operation":"WRITE",)"
      R"("operationParameters":{"mode":"Append","partitionBy":"[\"a\"]"},)"
      R"("engineInfo":"Apache-Spark/3.5","operationMetrics":{"numFiles":"1"}})";
  std::string line = "{\"commitInfo\": " + raw + " }";
  CommitInfo ci = ParseOne<CommitInfo>(line);
  EXPECT_EQ(ci.raw_json, raw);
  EXPECT_EQ(ci.timestamp, 1);
  EXPECT_EQ(ci.in_commit_timestamp, 1700000000123);
  EXPECT_EQ(ci.operation, "WRITE");
  EXPECT_EQ(ci.operation_parameters_json, R"({"mode":"Append","partitionBy":"[\"a\"]"})");
  EXPECT_EQ(ci.engine_info, "Apache-Spark/3.5");
  // Free-form: odd types are ignored rather than rejected.
  CommitInfo odd =
      ParseOne<CommitInfo>(R"({"commitInfo":{"timestamp":"soon","operation":3}})");
  EXPECT_FALSE(odd.timestamp.has_value());
  EXPECT_FALSE(odd.operation.has_value());
}

TEST(ParseActionTest, UnknownActionsAndFieldsAreTolerated) {
  UnknownAction u = ParseOne<UnknownAction>(R"({"some_new_action":{"a":[1,"x"]}})");
  EXPECT_EQ(u.name, "some_new_action");
  EXPECT_EQ(u.raw_json, R"({"a":[1,"x"]})");
  // An unknown member next to a known action: the known one is used.
  AddFile a = ParseOne<AddFile>(
      R"({"add":{"path":"x","partitionValues":{},"size":1,"modificationTime":2,)"
      R"("dataChange":true,"some_new_column_in_add_action":1},"some_new_action_alongside":["a"]})");
  EXPECT_EQ(a.path, "x");
  // A null action value is no action.
  auto none = ParseActionLine(R"({"add":null})", "f", 1);
  ASSERT_TRUE(none.has_value());
  EXPECT_FALSE(none->has_value());
}

TEST(ParseActionTest, MetadataWithoutSchemaStringIsTolerated) {
  Metadata m = ParseOne<Metadata>(
      R"({"metaData":{"id":"i","format":{"provider":"parquet","options":{}},)"
      R"("partitionColumns":[],"configuration":{}}})");
  EXPECT_TRUE(m.schema_string.empty());
}

TEST(ParseActionTest, PartitionValueNumbersKeptAsText) {
  AddFile a = ParseOne<AddFile>(
      R"({"add":{"path":"x","partitionValues":{"n":12,"b":true},"size":1,)"
      R"("modificationTime":2,"dataChange":true}})");
  EXPECT_EQ(a.partition_values[0].second, "12");
  EXPECT_EQ(a.partition_values[1].second, "true");
}

TEST(ParseActionTest, MissingRequiredFieldNamesFileLineAndField) {
  Error e = ParseError(
      R"({"add":{"partitionValues":{},"size":1,"modificationTime":2,"dataChange":true}})");
  EXPECT_EQ(e.code, ErrorCode::kCorruptLog);
  EXPECT_THAT(e.message, HasSubstr("00000000000000000003.json"));
  EXPECT_THAT(e.message, HasSubstr("line 7"));
  EXPECT_THAT(e.message, HasSubstr("add is missing required field 'path'"));

  EXPECT_THAT(
      ParseError(
          R"({"add":{"path":"x","partitionValues":{},"modificationTime":2,"dataChange":true}})")
          .message,
      HasSubstr("'size'"));
  EXPECT_THAT(ParseError(R"({"remove":{"path":"x"}})").message,
              HasSubstr("'dataChange'"));
  EXPECT_THAT(ParseError(R"({"protocol":{"minReaderVersion":1}})").message,
              HasSubstr("'minWriterVersion'"));
  EXPECT_THAT(
      ParseError(R"({"metaData":{"id":"i","partitionColumns":[],"configuration":{}}})")
          .message,
      HasSubstr("'format'"));
  EXPECT_THAT(ParseError(R"({"txn":{"appId":"a"}})").message, HasSubstr("'version'"));
  EXPECT_THAT(
      ParseError(R"({"domainMetadata":{"domain":"d","configuration":"{}"}})").message,
      HasSubstr("'removed'"));
  EXPECT_THAT(ParseError(R"({"sidecar":{"path":"p","sizeInBytes":1}})").message,
              HasSubstr("'modificationTime'"));
  EXPECT_THAT(ParseError(R"({"checkpointMetadata":{}})").message, HasSubstr("'version'"));
  EXPECT_THAT(
      ParseError(
          R"({"add":{"path":"x","partitionValues":{},"size":1,"modificationTime":2,"dataChange":true,"deletionVector":{"storageType":"u","pathOrInlineDv":"x","sizeInBytes":1}}})")
          .message,
      HasSubstr("'cardinality'"));
}

TEST(ParseActionTest, WrongTypesAreCorruptLog) {
  Error e = ParseError(
      R"({"add":{"path":"x","partitionValues":{},"size":"1","modificationTime":2,"dataChange":true}})");
  EXPECT_EQ(e.code, ErrorCode::kCorruptLog);
  EXPECT_THAT(e.message, HasSubstr("add.size must be a 64-bit integer, found string"));
  EXPECT_THAT(
      ParseError(
          R"({"add":{"path":"x","partitionValues":{},"size":1.5,"modificationTime":2,"dataChange":true}})")
          .message,
      HasSubstr("found 1.5"));
  EXPECT_THAT(
      ParseError(
          R"({"add":{"path":7,"partitionValues":{},"size":1,"modificationTime":2,"dataChange":true}})")
          .message,
      HasSubstr("add.path must be a string, found number"));
  EXPECT_THAT(
      ParseError(
          R"({"add":{"path":"x","partitionValues":[],"size":1,"modificationTime":2,"dataChange":true}})")
          .message,
      HasSubstr("add.partitionValues must be an object"));
  EXPECT_THAT(
      ParseError(
          R"({"protocol":{"minReaderVersion":1,"minWriterVersion":2,"readerFeatures":[1]}})")
          .message,
      HasSubstr("protocol.readerFeatures must be an array of strings"));
  EXPECT_THAT(ParseError(R"({"add":[]})").message, HasSubstr("add must be an object"));
}

TEST(ParseActionTest, MalformedJsonNamesFileAndLine) {
  Error e = ParseError(R"({"add":{"path":"x",)", 12);
  EXPECT_EQ(e.code, ErrorCode::kCorruptLog);
  EXPECT_THAT(e.message, HasSubstr("line 12"));
  EXPECT_THAT(e.message, HasSubstr("invalid JSON"));
  EXPECT_THAT(ParseError("[1,2]").message, HasSubstr("must be a JSON object"));
  EXPECT_THAT(ParseError("{}").message, HasSubstr("must hold an action"));
  EXPECT_THAT(ParseError(R"({"add":1} {"add":2})").message, HasSubstr("invalid JSON"));
}

TEST(ParseCommitFileTest, SkipsBlankLinesAndHandlesCrLf) {
  std::string content = testing::ProtocolLine() + "\r\n\r\n   \n" +
                        testing::AddLine("a") + "\r\n" + testing::AddLine("b");
  auto r = ParseCommitFile(content, "c.json");
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ(std::get<AddFile>((*r)[2]).path, "b");
}

TEST(ParseCommitFileTest, ErrorNamesOneBasedLine) {
  std::string content =
      testing::ProtocolLine() + "\n\n" + R"({"txn":{"appId":5,"version":1}})";
  auto r = ParseCommitFile(content, "/x/_delta_log/00000000000000000009.json");
  ASSERT_FALSE(r.has_value());
  EXPECT_THAT(r.error().message, HasSubstr("00000000000000000009.json' line 3"));
  EXPECT_THAT(r.error().message, HasSubstr("txn.appId must be a string"));
}

// Serialization: Spark's exact bytes for lines taken from Spark-written logs.
TEST(ActionToJsonTest, MatchesSparkOutput) {
  const std::vector<std::string> spark_lines = {
      R"({"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["deletionVectors"],"writerFeatures":["deletionVectors"]}})",
      R"({"metaData":{"id":"a","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[]}","partitionColumns":["p"],"configuration":{"delta.enableDeletionVectors":"true"},"createdTime":1677811175819}})",
      R"({"add":{"path":"part-00000-fae5310a-a37d-4e51-827b-c3d5516560ca-c000.snappy.parquet","partitionValues":{},"size":635,"modificationTime":1677811178336,"dataChange":true,"stats":"{\"numRecords\":10,\"minValues\":{\"value\":0},\"maxValues\":{\"value\":9},\"nullCount\":{\"value\":0},\"tightBounds\":false}","tags":{"INSERTION_TIME":"1677811178336000"},"deletionVector":{"storageType":"u","pathOrInlineDv":"vBn[lx{q8@P<9BNH/isA","offset":1,"sizeInBytes":36,"cardinality":2}}})",
      R"({"remove":{"path":"birthyear=1995/part-00002.c000.snappy.parquet","deletionTimestamp":1783874212151,"dataChange":true,"extendedFileMetadata":true,"partitionValues":{"birthyear":"1995"},"size":699}})",
      R"({"cdc":{"path":"_change_data/cdc-00000.c000.snappy.parquet","partitionValues":{},"size":1155,"dataChange":false}})",
      R"({"txn":{"appId":"3ba1","version":364475,"lastUpdated":1700000000000}})",
      R"({"domainMetadata":{"domain":"delta.rowTracking","configuration":"{\"rowIdHighWaterMark\":41}","removed":false}})",
      R"({"checkpointMetadata":{"version":1}})",
      R"({"sidecar":{"path":"00000000000000000001.checkpoint.0000000001.0000000001.bb24.parquet","sizeInBytes":9407,"modificationTime":1739329698918}})",
      R"({"commitInfo":{"timestamp":1623255724166,"operationMetrics":{"numFiles":"2"},"operation":"WRITE","isBlindAppend":true}})",
      R"({"some_new_action":{"x":[1,2,{"y":null}]}})",
  };
  for (const std::string& line : spark_lines) {
    auto parsed = ParseActionLine(line, "spark.json", 1);
    ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
    ASSERT_TRUE(parsed->has_value());
    EXPECT_EQ(ActionToJson(**parsed), line);
  }
}

// Round trip through every action type with all optional fields set.
TEST(ActionToJsonTest, RoundTripsEveryActionType) {
  AddFile add;
  add.path = "a b/c%20d.parquet";
  add.partition_values = {{"p", "x\"y"}, {"q", std::nullopt}};
  add.size = 1;
  add.modification_time = 2;
  add.data_change = false;
  add.stats = R"({"numRecords":3})";
  add.tags = {{"k", "v"}};
  add.deletion_vector = DeletionVectorDescriptor{'p', "file:///dv.bin", 9, 10, 11, 12};
  add.base_row_id = 5;
  add.default_row_commit_version = 6;
  add.clustering_provider = "liquid";
  RemoveFile rm;
  rm.path = "r";
  rm.deletion_timestamp = 3;
  rm.extended_file_metadata = false;
  rm.partition_values = PartitionValues{{"p", std::nullopt}};
  rm.size = 4;
  rm.stats = "{}";
  rm.tags = {{"a", "b"}};
  rm.deletion_vector = DeletionVectorDescriptor{'i', "inline", std::nullopt, 1, 2, {}};
  rm.base_row_id = 1;
  rm.default_row_commit_version = 2;
  Metadata md;
  md.id = "id";
  md.name = "n";
  md.description = "d\n";
  md.format.options = {{"o", "1"}};
  md.schema_string = "{}";
  md.partition_columns = {"a", "b"};
  md.configuration = {{"delta.x", "y"}};
  md.created_time = 7;
  Protocol proto{3, 7, std::vector<std::string>{"v2Checkpoint"},
                 std::vector<std::string>{"v2Checkpoint", "appendOnly"}};
  CommitInfo ci;
  ci.in_commit_timestamp = 10;
  ci.timestamp = 9;
  ci.operation = "MERGE";
  ci.operation_parameters_json = R"({"predicate":"[]"})";
  ci.engine_info = "deltaguard";
  SetTransaction txn{"app", 3, 4};
  DomainMetadata dm{"d", "{\"a\":1}", true};
  CheckpointMetadata cm{5, {{"sidecarNumActions", "1"}}};
  Sidecar sc{"s.parquet", 1, 2, {{"t", "u"}}};
  AddCdcFile cdc{"_change_data/x", {{"p", "1"}}, 8, false, {{"t", "v"}}};
  UnknownAction unk{"future", R"({"a":1})"};
  UnknownAction odd{"we\"ird\\name", "[1,2]"};  // found by fuzzing: name needs escaping
  std::vector<Action> all = {add, rm, md, proto, ci, txn, dm, cm, sc, cdc, unk, odd};
  for (const Action& a : all) {
    std::string json = ActionToJson(a);
    auto back = ParseActionLine(json, "roundtrip", 1);
    ASSERT_TRUE(back.has_value()) << json << ": " << back.error().message;
    ASSERT_TRUE(back->has_value());
    EXPECT_EQ(ActionName(**back), ActionName(a));
    EXPECT_EQ(ActionToJson(**back), json);
  }
  // Field-level checks for a couple of tricky values.
  auto back = ParseActionLine(ActionToJson(add), "rt", 1);
  const AddFile& a2 = std::get<AddFile>(**back);
  EXPECT_EQ(a2.partition_values[0].second, "x\"y");
  EXPECT_FALSE(a2.partition_values[1].second.has_value());
  EXPECT_EQ(a2.deletion_vector->UniqueId(), add.deletion_vector->UniqueId());
  EXPECT_EQ(a2.deletion_vector->max_row_index, 12);
  auto ci_back = ParseActionLine(ActionToJson(ci), "rt", 1);
  const CommitInfo& ci2 = std::get<CommitInfo>(**ci_back);
  EXPECT_EQ(ci2.in_commit_timestamp, 10);
  EXPECT_EQ(ci2.operation_parameters_json, ci.operation_parameters_json);
  EXPECT_EQ(ActionName(Action(unk)), "future");
  EXPECT_EQ(ActionName(Action(md)), "metaData");
}

}  // namespace
}  // namespace deltaguard
