// Schema text (schema_input.h): DDL, Delta schema JSON, files, and clear errors.

#include "deltaguard/drift/schema_input.h"

#include <gtest/gtest.h>

#include "testing/temp_dir.h"

namespace deltaguard {
namespace {

TEST(SchemaInputTest, DdlAndJson) {
  auto ddl = ParseSchemaText("  id BIGINT NOT NULL, name STRING ");
  ASSERT_TRUE(ddl);
  EXPECT_EQ((*ddl)->num_fields(), 2u);
  auto json = ParseSchemaText(
      R"( {"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,)"
      R"("metadata":{}}]})");
  ASSERT_TRUE(json);
  EXPECT_EQ((*json)->field(0).name, "a");
}

TEST(SchemaInputTest, ErrorsSayWhichParserAndWhere) {
  auto empty = ParseSchemaText("   ");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code, ErrorCode::kInvalidArgument);
  auto bad_ddl = ParseSchemaText("id BIGINTEGER", "s.ddl");
  ASSERT_FALSE(bad_ddl);
  EXPECT_EQ(bad_ddl.error().code, ErrorCode::kParseError);
  EXPECT_NE(bad_ddl.error().message.find("schema text in 's.ddl' (DDL) does not parse"),
            std::string::npos)
      << bad_ddl.error().message;
  auto bad_json = ParseSchemaText("{\"type\":");
  ASSERT_FALSE(bad_json);
  EXPECT_NE(bad_json.error().message.find("(Delta schema JSON)"), std::string::npos);
}

TEST(SchemaInputTest, Files) {
  TempDir dir;
  auto fs = MakeLocalFileSystem();
  std::string path = dir.path() + "/s.ddl";
  ASSERT_TRUE(fs->Write(path, "id INT, v STRING\n").has_value());
  auto schema = ReadSchemaFile(*fs, path);
  ASSERT_TRUE(schema);
  EXPECT_EQ((*schema)->num_fields(), 2u);
  auto missing = ReadSchemaFile(*fs, dir.path() + "/nope.ddl");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  ASSERT_TRUE(fs->Write(path, std::string("id INT\xff")).has_value());
  auto binary = ReadSchemaFile(*fs, path);
  ASSERT_FALSE(binary);
  EXPECT_NE(binary.error().message.find("not UTF-8"), std::string::npos);
}

}  // namespace
}  // namespace deltaguard
