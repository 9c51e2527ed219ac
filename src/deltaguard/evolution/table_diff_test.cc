// DiffCommitActions (table_diff.h): the first schema, column changes, partitioning,
// properties and protocol of a commit against the state before it.

#include "deltaguard/evolution/table_diff.h"

#include <gtest/gtest.h>

namespace deltaguard {
namespace {

using Lines = std::vector<std::string>;

Metadata Md(const std::string& columns_json, std::vector<std::string> partitions = {},
            StringMap config = {}) {
  Metadata md;
  md.schema_string = R"({"type":"struct","fields":[)" + columns_json + "]}";
  md.partition_columns = std::move(partitions);
  md.configuration = std::move(config);
  return md;
}

const char* kId = R"({"name":"id","type":"long","nullable":true,"metadata":{}})";
const char* kP = R"({"name":"p","type":"string","nullable":true,"metadata":{}})";

TEST(DiffCommitActionsTest, FirstCommitSetsSchemaAndProtocol) {
  LoggedTableState state;
  Protocol protocol;
  auto c = DiffCommitActions(state, Md(kId), protocol, &state);
  ASSERT_TRUE(c) << c.error().ToString();
  EXPECT_EQ(c->schema_set_columns, 1u);
  EXPECT_EQ(c->SchemaLines(), Lines{"schema set: 1 column"});
  EXPECT_EQ(c->TableLines(), Lines{"protocol reader 1 writer 2"});
  ASSERT_NE(state.schema, nullptr);
  EXPECT_EQ(state.schema->num_fields(), 1u);
  // The same protocol again is no change; a commit without actions changes nothing.
  c = DiffCommitActions(state, std::nullopt, protocol, &state);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->empty());
}

TEST(DiffCommitActionsTest, ColumnsPartitioningAndProperties) {
  LoggedTableState state;
  ASSERT_TRUE(DiffCommitActions(state, Md(kId, {}, {{"a", "1"}, {"b", "2"}}),
                                std::nullopt, &state));
  auto c = DiffCommitActions(
      state, Md(std::string(kId) + "," + kP, {"p"}, {{"b", "3"}, {"c", ""}, {"d", "4"}}),
      std::nullopt, &state);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->SchemaLines(), Lines{"added column 'p' (string)"});
  ASSERT_EQ(c->columns.size(), 1u);
  EXPECT_EQ(c->columns[0].kind, SchemaDiffEntry::Kind::kAdded);
  // "c" is new but empty: an absent property reads as "", so it is no change.
  EXPECT_EQ(c->TableLines(),
            (Lines{"partitioning changed from [] to [p]", "set property b=3",
                   "set property d=4", "unset property a"}));
  EXPECT_EQ(state.metadata->partition_columns, std::vector<std::string>{"p"});
}

TEST(DiffCommitActionsTest, MetadataWithoutSchemaKeepsThePreviousState) {
  LoggedTableState state;
  ASSERT_TRUE(DiffCommitActions(state, Md(kId), std::nullopt, &state));
  Metadata empty;
  empty.partition_columns = {"x"};
  auto c = DiffCommitActions(state, empty, std::nullopt, &state);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->metadata_without_schema);
  EXPECT_EQ(c->TableLines(), Lines{"metadata without a schema"});
  EXPECT_TRUE(state.metadata->partition_columns.empty());
}

TEST(DiffCommitActionsTest, ProtocolChangeListsWriterFeatures) {
  LoggedTableState state;
  Protocol p1;
  ASSERT_TRUE(DiffCommitActions(state, std::nullopt, p1, &state));
  Protocol p2;
  p2.min_reader_version = 3;
  p2.min_writer_version = 7;
  p2.reader_features = std::vector<std::string>{"columnMapping"};
  p2.writer_features = std::vector<std::string>{"columnMapping", "appendOnly"};
  auto c = DiffCommitActions(state, std::nullopt, p2, &state);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->TableLines(),
            Lines{"protocol reader 3 writer 7 [columnMapping, appendOnly]"});
}

TEST(DiffCommitActionsTest, UnreadableSchemaIsCorruptLog) {
  LoggedTableState state;
  Metadata md;
  md.schema_string = "{not json";
  auto c = DiffCommitActions(state, md, std::nullopt, &state);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, ErrorCode::kCorruptLog);
  EXPECT_EQ(state.schema, nullptr);
}

}  // namespace
}  // namespace deltaguard
