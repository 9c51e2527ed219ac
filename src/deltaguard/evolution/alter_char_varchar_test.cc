// ALTER TABLE on CHAR(n)/VARCHAR(n) columns: only the __CHAR_VARCHAR_TYPE_STRING field
// metadata changes (the data stays `string`), under Spark's rules, which were checked
// against Spark 4.2 + Delta 4.4.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "deltaguard/evolution/alter_schema.h"
#include "deltaguard/schema/ddl.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

SchemaRef Schema(const std::string& ddl) {
  auto schema = ParseDdlSchema(ddl);
  EXPECT_TRUE(schema) << schema.error().ToString();
  return schema ? *schema : nullptr;
}

AlterContext Context() {
  AlterContext c;
  c.table_name = "t";
  return c;
}

std::optional<std::string> Raw(const StructType& schema, const std::string& column) {
  return schema.FindPath({column})->metadata.GetString(kCharVarcharTypeKey);
}

// ALTER COLUMN `column` TYPE `type_text`, as the SQL layer builds the spec.
Result<SchemaAlteration> Retype(const StructType& schema, const std::string& column,
                                const std::string& type_text) {
  ChangeColumnSpec spec;
  spec.type = *ParseDdlType(type_text);
  spec.char_varchar_type = *CharVarcharTypeString(type_text);
  return ChangeColumnInSchema(schema, {column}, spec, Context());
}

TEST(AlterCharVarcharTest, AllowedChangesRewriteOnlyTheMetadata) {
  auto schema = Schema("c CHAR(3), v VARCHAR(3), w VARCHAR(3)");
  struct Case {
    std::string column, to;
    std::optional<std::string> raw;
  };
  for (const Case& c : std::vector<Case>{{"v", "VARCHAR(10)", "varchar(10)"},
                                         {"c", "VARCHAR(3)", "varchar(3)"},
                                         {"c", "VARCHAR(8)", "varchar(8)"},
                                         {"v", "STRING", std::nullopt},
                                         {"c", "STRING", std::nullopt}}) {
    auto r = Retype(*schema, c.column, c.to);
    ASSERT_TRUE(r) << c.column << " -> " << c.to << ": " << r.error().ToString();
    EXPECT_EQ(Raw(*r->schema, c.column), c.raw) << c.column << " -> " << c.to;
    EXPECT_EQ(*r->schema->FindPath({c.column})->type, *DataType::String());
    ASSERT_EQ(r->changes.size(), 1u);
    EXPECT_THAT(r->changes[0], HasSubstr("changed the type of column"));
    // The other columns keep their limits.
    EXPECT_EQ(Raw(*r->schema, "w"), "varchar(3)");
  }
  // The same type is a no-op.
  auto same = Retype(*schema, "v", "varchar(3)");
  ASSERT_TRUE(same) << same.error().ToString();
  EXPECT_TRUE(same->schema->Equals(*schema));
  EXPECT_TRUE(same->changes.empty());
}

TEST(AlterCharVarcharTest, RefusedChangesNameBothTypes) {
  auto schema = Schema("c CHAR(3), v VARCHAR(5), p STRING, s STRUCT<x: STRING>");
  struct Case {
    std::string column, to, expected;
  };
  for (const Case& c : std::vector<Case>{
           {"v", "VARCHAR(2)", "from VARCHAR(5) to VARCHAR(2): that is a narrowing"},
           {"v", "CHAR(5)", "a VARCHAR column cannot become CHAR"},
           {"c", "CHAR(5)", "a CHAR column's length cannot change"},
           {"c", "VARCHAR(2)", "narrowing"},
           {"p", "VARCHAR(10)", "from STRING to VARCHAR(10)"}}) {
    auto r = Retype(*schema, c.column, c.to);
    ASSERT_FALSE(r) << c.column << " -> " << c.to;
    EXPECT_THAT(r.error().message, HasSubstr("NOT_SUPPORTED_CHANGE_COLUMN"));
    EXPECT_THAT(r.error().message, HasSubstr(c.expected)) << c.column << " -> " << c.to;
    EXPECT_THAT(r.error().message, HasSubstr("'" + c.column + "' of table 't'"));
  }
  ChangeColumnSpec nested;
  nested.type = DataType::String();
  nested.char_varchar_type = "varchar(3)";
  auto r = ChangeColumnInSchema(*schema, {"s", "x"}, nested, Context());
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("top-level column"));
}

TEST(AlterCharVarcharTest, AddColumnsKeepsTheLimitAtTopLevelAndNested) {
  auto schema =
      Schema("id INT, s STRUCT<x: VARCHAR(2), z: INT>, l ARRAY<STRUCT<a: INT>>");
  NewColumnSpec top;
  top.path = {"code"};
  top.type = DataType::String();
  top.char_varchar_type = "char(3)";
  NewColumnSpec in_struct;
  in_struct.path = {"s", "y"};
  in_struct.type = DataType::String();
  in_struct.char_varchar_type = "varchar(4)";
  NewColumnSpec in_array;
  in_array.path = {"l", "element", "b"};
  in_array.type = *ParseDdlType("ARRAY<STRING>");
  in_array.char_varchar_type = "array<varchar(1)>";
  auto r = AddColumnsToSchema(*schema, {top, in_struct, in_array}, Context());
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(Raw(*r->schema, "code"), "char(3)");
  // Spark keeps every limit of a column in the top-level column's raw type; the old
  // limit on s.x stays.
  EXPECT_EQ(Raw(*r->schema, "s"), "struct<x:varchar(2),z:int,y:varchar(4)>");
  EXPECT_TRUE(r->schema->FindPath({"s", "y"})->metadata.empty());
  EXPECT_EQ(Raw(*r->schema, "l"), "array<struct<a:int,b:array<varchar(1)>>>");
  EXPECT_FALSE(Raw(*r->schema, "id"));
}

}  // namespace
}  // namespace deltaguard
