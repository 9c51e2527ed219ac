#include "deltaguard/evolution/schema_format.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/schema/ddl.h"
#include "testing/matchers.h"
#include "testing/schema_util.h"

namespace deltaguard {
namespace {

TEST(FormatSchemaComparisonTest, MarksEachKindOfDifference) {
  SchemaRef table = Ddl("id BIGINT NOT NULL, qty INT, note STRING");
  SchemaRef input = Ddl("ID BIGINT, qty BIGINT, coupon STRING");
  EXPECT_EQ(FormatSchemaComparison(*table, *input),
            "  table             | input\n"
            "  ------------------+---------------\n"
            "  id: long NOT NULL | ID: long\n"
            "~ qty: integer      | qty: long\n"
            "- note: string      |\n"
            "+                   | coupon: string\n"
            "(~ type differs, - only in the table, + only in the input)");
}

TEST(FormatSchemaComparisonTest, ExpandsStructsArraysAndMapsOfStructs) {
  SchemaRef table =
      Ddl("c STRUCT<name: STRING, tier: STRING>, items ARRAY<STRUCT<qty: INT>>, "
          "m MAP<STRING, STRUCT<v: INT>>");
  SchemaRef input =
      Ddl("c STRUCT<name: STRING, vip: BOOLEAN>, items ARRAY<STRUCT<qty: SMALLINT>>, "
          "m MAP<STRING, STRUCT<v: INT>>");
  EXPECT_EQ(FormatSchemaComparison(*table, *input, "sales", "data.csv"),
            "  sales             | data.csv\n"
            "  ------------------+------------------\n"
            "  c: struct         | c: struct\n"
            "    name: string    |   name: string\n"
            "-   tier: string    |\n"
            "+                   |   vip: boolean\n"
            "  items: array      | items: array\n"
            "    element: struct |   element: struct\n"
            "~     qty: integer  |     qty: short\n"
            "  m: map            | m: map\n"
            "    key: string     |   key: string\n"
            "    value: struct   |   value: struct\n"
            "      v: integer    |     v: integer\n"
            "(~ type differs, - only in the sales, + only in the data.csv)");
}

TEST(FormatSchemaComparisonTest, DifferentKindsStayOnOneLine) {
  SchemaRef table = Ddl("s STRUCT<a: INT>");
  SchemaRef input = Ddl("s STRING");
  EXPECT_THAT(FormatSchemaComparison(*table, *input),
              HasSubstr("~ s: struct<a: integer> | s: string\n"));
}

}  // namespace
}  // namespace deltaguard
