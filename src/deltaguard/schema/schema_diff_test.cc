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

}  // namespace
}  // namespace deltaguard
