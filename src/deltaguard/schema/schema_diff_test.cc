// DiffSchemas (schema_diff.h): each kind of column change, matching by column-mapping id
// or by name, and nested fields through structs, arrays and maps.

#include "deltaguard/schema/schema_diff.h"

#include <gtest/gtest.h>

#include "deltaguard/schema/ddl.h"
#include "deltaguard/schema/schema_json.h"

namespace deltaguard {
namespace {

std::vector<std::string> Diff(std::string_view before, std::string_view after) {
  auto b = ParseDdlSchema(before);
  auto a = ParseDdlSchema(after);
  EXPECT_TRUE(b && a);
  std::vector<std::string> out;
  for (const auto& c : DiffSchemas(**b, **a)) out.push_back(c.ToString());
  return out;
}

using Lines = std::vector<std::string>;

Lines DiffWith(std::string_view before, std::string_view after,
               const SchemaDiffOptions& options) {
  auto b = ParseDdlSchema(before);
  auto a = ParseDdlSchema(after);
  EXPECT_TRUE(b && a);
  Lines out;
  for (const auto& c : DiffSchemas(**b, **a, options)) out.push_back(c.ToString());
  return out;
}

TEST(DiffSchemasTest, SameSchemaHasNoChanges) {
  EXPECT_EQ(Diff("id BIGINT, s STRUCT<a: INT>", "id BIGINT, s STRUCT<a: INT>"), Lines{});
  // Names match case-insensitively; a change of case is reported as a rename.
  EXPECT_EQ(Diff("id BIGINT", "ID BIGINT"), Lines{"renamed column 'id' to 'ID'"});
}

TEST(DiffSchemasTest, AddedDroppedTypeAndNullability) {
  EXPECT_EQ(Diff("id INT, name STRING, v INT NOT NULL", "id BIGINT, v INT, c DATE"),
            (Lines{"changed type of 'id' from integer to long",
                   "changed 'v' from not null to nullable", "added column 'c' (date)",
                   "dropped column 'name' (string)"}));
}

TEST(DiffSchemasTest, NestedFieldsByPath) {
  EXPECT_EQ(
      Diff("s STRUCT<a: INT>, l ARRAY<STRUCT<x: INT>>, m MAP<STRING, STRUCT<y: INT>>",
           "s STRUCT<a: INT, b: STRING>, l ARRAY<STRUCT<x: INT NOT NULL>>, "
           "m MAP<STRING, STRUCT<>>"),
      (Lines{"added column 's.b' (string)",
             "changed 'l.element.x' from nullable to not null",
             "dropped column 'm.value.y' (integer)"}));
  // A change of the container itself is a type change of the column, not nested.
  EXPECT_EQ(Diff("l ARRAY<INT>", "l ARRAY<BIGINT>"),
            Lines{"changed type of 'l' from array<integer> to array<long>"});
}

TEST(DiffSchemasTest, CommentChange) {
  EXPECT_EQ(Diff("id INT COMMENT 'old'", "id INT COMMENT 'new'"),
            Lines{"changed comment of 'id' from 'old' to 'new'"});
}

// With column-mapping ids on both sides a rename is one kRenamed, not drop + add.
TEST(DiffSchemasTest, RenameByColumnMappingId) {
  auto field = [](const char* name, int id) {
    return fmt::format(
        R"({{"name":"{}","type":"integer","nullable":true,"metadata":{{)"
        R"("delta.columnMapping.id":{},"delta.columnMapping.physicalName":"col-{}"}}}})",
        name, id, id);
  };
  auto schema = [](const std::string& fields) {
    return *ParseSchemaJson(R"({"type":"struct","fields":[)" + fields + "]}");
  };
  SchemaRef before = schema(field("a", 1) + "," + field("b", 2));
  SchemaRef after = schema(field("b", 2) + "," + field("c", 1));
  auto changes = DiffSchemas(*before, *after);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].kind, SchemaDiffEntry::Kind::kRenamed);
  EXPECT_EQ(changes[0].old_path, "a");
  EXPECT_EQ(changes[0].path, "c");
  EXPECT_EQ(changes[0].ToString(), "renamed column 'a' to 'c'");
  // Without ids, the same names are a drop and an add.
  EXPECT_EQ(Diff("a INT, b INT", "b INT, c INT"),
            (Lines{"added column 'c' (integer)", "dropped column 'a' (integer)"}));
}

// Moves are reported only on request, as the fewest fields that left their order (of
// two equally short answers, the one keeping the earliest run).
TEST(DiffSchemasTest, MovesOnRequest) {
  SchemaDiffOptions moves;
  moves.report_moves = true;
  EXPECT_EQ(Diff("a INT, b INT, c INT", "c INT, a INT, b INT"), Lines{});
  EXPECT_EQ(DiffWith("a INT, b INT, c INT", "c INT, a INT, b INT", moves),
            Lines{"moved column 'c' from position 3 to 1"});
  EXPECT_EQ(DiffWith("a INT, b INT", "b INT, a INT", moves),
            Lines{"moved column 'a' from position 1 to 2"});
  // Nested struct fields too; an added field does not count as a move.
  EXPECT_EQ(
      DiffWith("s STRUCT<x: INT, y: INT>", "s STRUCT<n: INT, y: INT, x: INT>", moves),
      (Lines{"added column 's.n' (integer)", "moved column 's.x' from position 1 to 2"}));
}

TEST(DiffSchemasTest, MetadataOnRequest) {
  auto schema = [](const char* metadata) {
    return *ParseSchemaJson(
        std::string(R"({"type":"struct","fields":[{"name":"a","type":"integer",)"
                    R"("nullable":true,"metadata":)") +
        metadata + "}]}");
  };
  SchemaRef before = schema(R"({"pii":true,"comment":"x"})");
  SchemaRef after = schema(R"({"pii":false,"comment":"x","delta.columnMapping.id":3})");
  EXPECT_TRUE(DiffSchemas(*before, *after).empty());
  SchemaDiffOptions options;
  options.report_metadata = true;
  auto changes = DiffSchemas(*before, *after, options);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].ToString(),
            "changed metadata of 'a' from 'pii=true' to 'pii=false'");
}

}  // namespace
}  // namespace deltaguard
