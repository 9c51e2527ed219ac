#include "deltaguard/schema/schema_tree.h"

#include <gtest/gtest.h>

#include "deltaguard/schema/ddl.h"

namespace deltaguard {
namespace {

SchemaRef Parse(const char* ddl) {
  auto s = ParseDdlSchema(ddl);
  EXPECT_TRUE(s) << s.error().ToString();
  return *s;
}

TEST(SchemaTreeTest, NestedTypesAndNotes) {
  SchemaRef s = Parse(
      "id BIGINT NOT NULL COMMENT 'key', addr STRUCT<city: STRING, zip: INT>, "
      "tags ARRAY<STRUCT<k: STRING>>, m MAP<STRING, ARRAY<INT>>");
  EXPECT_EQ(FormatSchemaTree(*s),
            "  id: long not null  -- key\n"
            "  addr: struct\n"
            "    city: string\n"
            "    zip: integer\n"
            "  tags: array<struct<k: string>>\n"
            "    element: struct\n"
            "      k: string\n"
            "  m: map<string,array<integer>>\n"
            "    value: array\n");
  EXPECT_EQ(FormatSchemaTree(StructType({})), "");
}

TEST(SchemaToDdlTest, RoundTripsThroughTheParser) {
  for (const char* ddl :
       {"id BIGINT NOT NULL, name STRING COMMENT 'it\\'s a \\\\ here'",
        "`weird name` INT, d DECIMAL(10,2), ts TIMESTAMP, ntz TIMESTAMP_NTZ",
        "v VARCHAR(10), c CHAR(3) NOT NULL, a ARRAY<STRING>, s STRUCT<`x y`: INT>",
        "m MAP<STRING, STRUCT<a: BIGINT>>, b BINARY, dt DATE, f FLOAT, bool BOOLEAN"}) {
    SCOPED_TRACE(ddl);
    SchemaRef s = Parse(ddl);
    std::string printed = SchemaToDdl(*s);
    SchemaRef again = Parse(printed.c_str());
    EXPECT_EQ(*again, *s) << printed;
  }
  EXPECT_EQ(SchemaToDdl(*Parse("v VARCHAR(10) NOT NULL")), "v varchar(10) NOT NULL");
}

}  // namespace
}  // namespace deltaguard
