#include "deltaguard/schema/ddl.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/schema/schema_json.h"
#include "deltaguard/util/depth_guard.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

std::string TypeString(std::string_view ddl) {
  auto t = ParseDdlType(ddl);
  if (!t) return "ERROR: " + t.error().ToString();
  return (*t)->ToString();
}

Error TypeError(std::string_view ddl) {
  auto t = ParseDdlType(ddl);
  EXPECT_FALSE(t) << "unexpectedly parsed: " << ddl;
  return t ? Error{ErrorCode::kInternal, "parsed"} : t.error();
}

TEST(DdlTypeTest, SparkTypeNamesAndSynonyms) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"INT", "integer"},
      {"integer", "integer"},
      {"BIGINT", "long"},
      {"long", "long"},
      {"SMALLINT", "short"},
      {"Short", "short"},
      {"TINYINT", "byte"},
      {"byte", "byte"},
      {"FLOAT", "float"},
      {"REAL", "float"},
      {"DOUBLE", "double"},
      {"STRING", "string"},
      {"VARCHAR(10)", "string"},
      {"char(3)", "string"},
      {"BINARY", "binary"},
      {"BOOLEAN", "boolean"},
      {"DATE", "date"},
      {"TIMESTAMP", "timestamp"},
      {"TIMESTAMP_LTZ", "timestamp"},
      {"timestamp_ntz", "timestamp_ntz"},
      {"VARIANT", "variant"},
      {"void", "void"},
      {"DECIMAL(18,2)", "decimal(18,2)"},
      {"decimal( 5 , 1 )", "decimal(5,1)"},
      {"DECIMAL", "decimal(10,0)"},
      {"DEC(7)", "decimal(7,0)"},
      {"NUMERIC(38, 38)", "decimal(38,38)"},
      {"  int  ", "integer"},
  };
  for (const auto& [ddl, expected] : cases) EXPECT_EQ(TypeString(ddl), expected) << ddl;
}

TEST(DdlTypeTest, NestedTypes) {
  EXPECT_EQ(TypeString("ARRAY<STRING>"), "array<string>");
  EXPECT_EQ(TypeString("array < array<int> >"), "array<array<integer>>");
  EXPECT_EQ(TypeString("MAP<STRING, BIGINT>"), "map<string,long>");
  EXPECT_EQ(TypeString("map<int,map<string,array<decimal(5,2)>>>"),
            "map<integer,map<string,array<decimal(5,2)>>>");
  EXPECT_EQ(TypeString("STRUCT<a: INT, b STRING NOT NULL COMMENT 'the b', "
                       "`c d`: ARRAY<STRUCT<x: DATE>>>"),
            "struct<a: integer, b: string NOT NULL, `c d`: array<struct<x: date>>>");
  EXPECT_EQ(TypeString("STRUCT<>"), "struct<>");
  auto arr = ParseDdlType("ARRAY<INT>");
  ASSERT_TRUE(arr);
  EXPECT_TRUE(static_cast<const ArrayType&>(**arr).contains_null());
  auto map = ParseDdlType("MAP<INT,INT>");
  ASSERT_TRUE(map);
  EXPECT_TRUE(static_cast<const MapType&>(**map).value_contains_null());
}

TEST(DdlTypeTest, StructFieldCommentBecomesMetadata) {
  auto t = ParseDdlType("STRUCT<b: STRING COMMENT 'it''s \\'x\\'\\n'>");
  ASSERT_TRUE(t) << t.error().ToString();
  const auto& st = static_cast<const StructType&>(**t);
  EXPECT_EQ(st.field(0).comment(), "it's 'x'\n");
  EXPECT_EQ(*st.field(0).metadata.FindRaw("comment"), R"j("it's 'x'\n")j");
}

TEST(DdlTypeTest, ToStringOfNestedTypesParsesBack) {
  for (std::string ddl :
       {"STRUCT<a: INT NOT NULL, `we``ird`: MAP<STRING,ARRAY<DECIMAL(3,1)>>, "
        "c: STRUCT<d: TIMESTAMP_NTZ>>",
        "ARRAY<MAP<DATE,BINARY>>"}) {
    auto first = ParseDdlType(ddl);
    ASSERT_TRUE(first) << first.error().ToString();
    auto second = ParseDdlType((*first)->ToString());
    ASSERT_TRUE(second) << (*first)->ToString() << ": " << second.error().ToString();
    EXPECT_EQ(**first, **second) << (*first)->ToString();
  }
}

TEST(DdlTypeTest, ErrorsGivePositionAndInput) {
  struct Case {
    std::string ddl;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"", "position 0"},
      {"INTEGR", "position 0"},
      {"ARRAY<INT", "position 9"},
      {"ARRAY INT", "'<' after ARRAY"},
      {"MAP<INT>", "position 7"},
      {"MAP<INT, >", "a type name"},
      {"DECIMAL(40,2)", "between 1 and 38"},
      {"DECIMAL(5,6)", "scale"},
      {"DECIMAL(x)", "a decimal precision"},
      {"VARCHAR", "'(' after VARCHAR"},
      {"STRUCT<a INT", "or ','"},
      {"STRUCT<a INT NOT>", "NULL after NOT"},
      {"STRUCT<a INT COMMENT x>", "quoted string"},
      {"STRUCT<a INT COMMENT 'x>", "closing quote"},
      {"STRUCT<`a INT>", "closing '`'"},
      {"STRUCT<a: INT, A: STRING>", "duplicate STRUCT field name 'A'"},
      {"INT INT", "end of input"},
      {"INT, x", "position 3"},
  };
  for (const Case& c : cases) {
    Error e = TypeError(c.ddl);
    EXPECT_EQ(e.code, ErrorCode::kParseError) << c.ddl;
    EXPECT_THAT(e.message, HasSubstr(c.expected)) << c.ddl;
    EXPECT_THAT(e.message, HasSubstr("\"" + c.ddl + "\"")) << c.ddl;
  }
}

TEST(DdlTypeTest, MalformedUtf8IsRejectedWithItsPosition) {
  Error e = TypeError("STRUCT<`a\xff`: INT>");
  EXPECT_EQ(e.code, ErrorCode::kParseError);
  EXPECT_THAT(e.message, HasSubstr("UTF-8 at position 9"));
  // Valid UTF-8 names are fine, and error snippets never split a character.
  EXPECT_EQ(TypeString("STRUCT<`caf\xc3\xa9`: INT>"), "struct<`caf\xc3\xa9`: integer>");
  // 12 bytes from 'x' would end inside the fourth 3-byte character: stop before it.
  const std::string zhong = "\xe4\xb8\xad";
  Error snippet = TypeError("STRUCT<a: INT x" + zhong + zhong + zhong + zhong + ">");
  EXPECT_THAT(snippet.message, HasSubstr("found 'x" + zhong + zhong + zhong + "'"));
}

TEST(DdlTypeTest, DeepNestingIsAnErrorNotACrash) {
  std::string deep;
  for (int i = 0; i < 10000; ++i) deep += "ARRAY<";
  Error e = TypeError(deep);
  EXPECT_THAT(e.message, HasSubstr("levels of nested types"));
}

TEST(DdlTypeTest, NestingStopsAtTheSharedTypeLimit) {
  auto nest = [](int n) {
    std::string t = "INT";
    for (int i = 0; i < n; ++i) t = (i % 2 ? "ARRAY<" : "STRUCT<a: ") + t + ">";
    return t;
  };
  auto ok = ParseDdlType(nest(kMaxTypeDepth));
  EXPECT_TRUE(ok) << ok.error().ToString();
  Error e = TypeError(nest(kMaxTypeDepth + 1));
  EXPECT_EQ(e.code, ErrorCode::kParseError);
  EXPECT_THAT(e.message, HasSubstr("at most 64 levels of nested types"));
}

TEST(DdlSchemaTest, ColumnListWithConstraintsCommentsAndQuotedNames) {
  auto schema = ParseDdlSchema(
      "order_id BIGINT NOT NULL, amount DECIMAL(18,2), tags ARRAY<STRING>, "
      "`weird name` INT COMMENT 'x', addr STRUCT<city: STRING, zip: INT NOT NULL>");
  ASSERT_TRUE(schema) << schema.error().ToString();
  const StructType& st = **schema;
  ASSERT_EQ(st.num_fields(), 5u);
  EXPECT_EQ(st.field(0).name, "order_id");
  EXPECT_FALSE(st.field(0).nullable);
  EXPECT_EQ(*st.field(0).type, *DataType::Long());
  EXPECT_TRUE(st.field(1).nullable);
  EXPECT_EQ(st.field(1).type->ToString(), "decimal(18,2)");
  EXPECT_EQ(st.field(2).type->ToString(), "array<string>");
  EXPECT_EQ(st.field(3).name, "weird name");
  EXPECT_EQ(st.field(3).comment(), "x");
  EXPECT_EQ(st.FindPath({"addr", "zip"})->nullable, false);
  EXPECT_EQ(SchemaToJson(st),
            R"j({"type":"struct","fields":[)j"
            R"j({"name":"order_id","type":"long","nullable":false,"metadata":{}},)j"
            R"j({"name":"amount","type":"decimal(18,2)","nullable":true,"metadata":{}},)j"
            R"j({"name":"tags","type":{"type":"array","elementType":"string",)j"
            R"j("containsNull":true},"nullable":true,"metadata":{}},)j"
            R"j({"name":"weird name","type":"integer","nullable":true,)j"
            R"j("metadata":{"comment":"x"}},)j"
            R"j({"name":"addr","type":{"type":"struct","fields":[)j"
            R"j({"name":"city","type":"string","nullable":true,"metadata":{}},)j"
            R"j({"name":"zip","type":"integer","nullable":false,"metadata":{}}]},)j"
            R"j("nullable":true,"metadata":{}}]})j");
}

TEST(DdlSchemaTest, CharAndVarcharColumnsCarrySparkMetadata) {
  auto schema = ParseDdlSchema(
      "code CHAR(3) COMMENT 'iso', name VARCHAR(10), "
      "s STRUCT<a: VARCHAR(5), b: INT>, plain STRING");
  ASSERT_TRUE(schema) << schema.error().ToString();
  const StructType& st = **schema;
  ASSERT_EQ(st.field(0).metadata.entries().size(), 2u);
  EXPECT_EQ(st.field(0).metadata.entries()[0].first, "comment");
  EXPECT_EQ(st.field(0).metadata.GetString("__CHAR_VARCHAR_TYPE_STRING"), "char(3)");
  EXPECT_EQ(st.field(1).metadata.GetString("__CHAR_VARCHAR_TYPE_STRING"), "varchar(10)");
  EXPECT_EQ(st.field(2).metadata.GetString("__CHAR_VARCHAR_TYPE_STRING"),
            "struct<a:varchar(5),b:int>");
  // Spark marks only the top-level column; the nested field is a plain string.
  EXPECT_TRUE(st.FindPath({"s", "a"})->metadata.empty());
  EXPECT_EQ(*st.FindPath({"s", "a"})->type, *DataType::String());
  EXPECT_TRUE(st.field(3).metadata.empty());
}

TEST(DdlSchemaTest, ErrorsInColumnLists) {
  struct Case {
    std::string ddl;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"", "a column name"},
      {"a", "a type name"},
      {"a INT,", "a column name"},
      {"a INT b INT", "end of input"},
      {"id INT, ID BIGINT", "duplicate column name 'ID'"},
      {"a INT DEFAULT 1", "position 6"},
      {"a STRUCT<x: INT, X: INT>", "duplicate STRUCT field name 'X'"},
      {"a INT COMMENT 'x' NOT NULL COMMENT 'y'", "position 27: duplicate COMMENT clause"},
      {"a INT NOT NULL NOT NULL", "duplicate NOT NULL clause for 'a'"},
      {"a STRUCT<b: INT COMMENT 'x' COMMENT 'y'>", "duplicate COMMENT clause for 'b'"},
  };
  for (const Case& c : cases) {
    auto schema = ParseDdlSchema(c.ddl);
    ASSERT_FALSE(schema) << c.ddl;
    EXPECT_EQ(schema.error().code, ErrorCode::kParseError) << c.ddl;
    EXPECT_THAT(schema.error().message, HasSubstr(c.expected)) << c.ddl;
  }
}

}  // namespace
}  // namespace deltaguard

namespace deltaguard {
namespace {

std::string Steps(const CharVarcharLeaf& leaf) {
  std::string out;
  for (const TypeStep& s : leaf.steps) {
    if (!out.empty()) out += ".";
    switch (s.kind) {
      case TypeStep::Kind::kField:
        out += "f:" + s.field;
        break;
      case TypeStep::Kind::kElement:
        out += "element";
        break;
      case TypeStep::Kind::kKey:
        out += "key";
        break;
      case TypeStep::Kind::kValue:
        out += "value";
        break;
    }
  }
  return out;
}

TEST(CharVarcharLeavesTest, ListsEveryCharAndVarcharWithItsPath) {
  auto leaves = ParseCharVarcharLeaves(
      "struct<a:varchar(5),b:int,c:array<char(2)>,d:map<char(1),struct<e:varchar(3)>>>");
  ASSERT_TRUE(leaves) << leaves.error().ToString();
  ASSERT_EQ(leaves->size(), 4u);
  EXPECT_EQ(Steps((*leaves)[0]), "f:a");
  EXPECT_FALSE((*leaves)[0].is_char);
  EXPECT_EQ((*leaves)[0].length, 5);
  EXPECT_EQ(Steps((*leaves)[1]), "f:c.element");
  EXPECT_TRUE((*leaves)[1].is_char);
  EXPECT_EQ(Steps((*leaves)[2]), "f:d.key");
  EXPECT_EQ(Steps((*leaves)[3]), "f:d.value.f:e");
  EXPECT_EQ((*leaves)[3].length, 3);

  auto plain = ParseCharVarcharLeaves("VARCHAR(10)");
  ASSERT_TRUE(plain);
  ASSERT_EQ(plain->size(), 1u);
  EXPECT_TRUE(plain->front().steps.empty());
  EXPECT_EQ(plain->front().length, 10);
  auto none = ParseCharVarcharLeaves("map<string,int>");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(ParseCharVarcharLeaves("varchar(x)"));
  EXPECT_FALSE(ParseCharVarcharLeaves("varchar(3) trailing"));
}

TEST(CharVarcharLeavesTest, TypeStringIsSparksLowerCaseSpelling) {
  auto s = CharVarcharTypeString("Array< VarChar(3) >");
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(*s, "array<varchar(3)>");
  auto none = CharVarcharTypeString("BIGINT");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());
  EXPECT_FALSE(CharVarcharTypeString("CHAR("));
}

TEST(CharVarcharLeavesTest, CatalogStringRebuildsTheRawType) {
  auto type = ParseDdlType(
      "STRUCT<x: STRING, `odd name`: BIGINT, l: ARRAY<STRUCT<y: STRING>>, "
      "m: MAP<STRING, SMALLINT>, d: DECIMAL(10,2)>");
  ASSERT_TRUE(type) << type.error().ToString();
  auto leaves = ParseCharVarcharLeaves("struct<x:varchar(2),l:array<struct<y:char(4)>>>");
  ASSERT_TRUE(leaves);
  EXPECT_EQ(CatalogTypeString(**type, *leaves),
            "struct<x:varchar(2),`odd name`:bigint,l:array<struct<y:char(4)>>,"
            "m:map<string,smallint>,d:decimal(10,2)>");
  // The rebuilt string parses back to the same leaves.
  auto again = ParseCharVarcharLeaves(CatalogTypeString(**type, *leaves));
  ASSERT_TRUE(again) << again.error().ToString();
  ASSERT_EQ(again->size(), 2u);
  EXPECT_EQ((*again)[1].length, 4);
  // A leaf whose path is not a string in the type is left out.
  auto stale = ParseCharVarcharLeaves("struct<d:varchar(3),gone:char(1)>");
  ASSERT_TRUE(stale);
  EXPECT_EQ(CatalogTypeString(**type, *stale),
            "struct<x:string,`odd name`:bigint,l:array<struct<y:string>>,"
            "m:map<string,smallint>,d:decimal(10,2)>");
}

}  // namespace
}  // namespace deltaguard
