#include "deltaguard/constraints/char_varchar.h"

#include <gtest/gtest.h>

#include <string>

#include "deltaguard/schema/ddl.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

TEST(CharVarcharLimitsTest, ReadsTopLevelMetadataInSchemaOrder) {
  auto schema = ParseDdlSchema(
      "id INT, code CHAR(3), s STRUCT<a: VARCHAR(5), b: INT>, tags ARRAY<VARCHAR(2)>, "
      "plain STRING");
  ASSERT_TRUE(schema) << schema.error().ToString();
  auto limits = CharVarcharLimits(**schema);
  ASSERT_TRUE(limits) << limits.error().ToString();
  ASSERT_EQ(limits->size(), 3u);
  const auto& code = (*limits)[0];
  EXPECT_EQ(code.column, "code");
  EXPECT_EQ(code.Path(), "code");
  EXPECT_EQ(code.TypeName(), "char(3)");
  EXPECT_EQ(code.CheckText(), "((code IS NULL) OR (length(code) <= 3))");
  EXPECT_EQ(code.Describe(), "length of column code char(3)");
  EXPECT_EQ((*limits)[1].Path(), "s.a");
  EXPECT_EQ((*limits)[1].raw_type, "struct<a:varchar(5),b:int>");
  EXPECT_EQ((*limits)[1].CheckText(), "((s.a IS NULL) OR (length(s.a) <= 5))");
  EXPECT_EQ((*limits)[2].Path(), "tags.element");
  EXPECT_EQ((*limits)[2].CheckText(),
            "every tags.element is NULL or at most 2 characters");
}

TEST(CharVarcharLimitsTest, MalformedMetadataIsACorruptLogNamingTheColumn) {
  for (const std::string raw : {"\"varchar(\"", "42"}) {
    StructField f{"v", DataType::String(), true,
                  FieldMetadata({{std::string(kCharVarcharTypeKey), raw}})};
    StructType schema({f});
    auto limits = CharVarcharLimits(schema);
    ASSERT_FALSE(limits) << raw;
    EXPECT_EQ(limits.error().code, ErrorCode::kCorruptLog);
    EXPECT_NE(limits.error().message.find("column 'v'"), std::string::npos)
        << limits.error().message;
  }
}

}  // namespace
}  // namespace deltaguard
