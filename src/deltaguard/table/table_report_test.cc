// DescribeReport / HistoryReport: the JSON forms parse and carry what the CLI reference
// documents; the text forms are covered end to end by test/cli.

#include "deltaguard/table/table_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "deltaguard/table/table.h"
#include "deltaguard/table/write.h"
#include "testing/temp_dir.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

using testing::Ddl;
using ::testing::HasSubstr;
using testing::TempDir;

TEST(TableReportTest, DescribeAndHistoryOfATwoVersionTable) {
  TempDir dir;
  const std::string root = dir.Join("t");
  CreateTableOptions create;
  create.schema = Ddl("id BIGINT NOT NULL");
  create.name = "orders";
  ASSERT_TRUE(CreateTable(MakeLocalFileSystem(), root, create));
  StringMap props = {{"delta.appendOnly", "true"}};
  CreateTableOptions replace;
  replace.schema = Ddl("id BIGINT NOT NULL, note STRING");
  replace.properties = props;
  ASSERT_TRUE(ReplaceTable(MakeLocalFileSystem(), root, replace, std::nullopt,
                           "CREATE OR REPLACE TABLE"));
  auto snap = OpenSnapshot(root);
  ASSERT_TRUE(snap);

  auto json = DescribeReport(**snap, ReportFormat::kJson);
  ASSERT_TRUE(json) << json.error().ToString();
  rapidjson::Document doc;
  doc.Parse(json->c_str());
  ASSERT_FALSE(doc.HasParseError()) << *json;
  EXPECT_EQ(doc["version"].GetInt64(), 1);
  EXPECT_EQ(doc["num_rows"].GetInt64(), 0);
  EXPECT_STREQ(doc["properties"]["delta.appendOnly"].GetString(), "true");

  auto text = DescribeReport(**snap, ReportFormat::kText);
  ASSERT_TRUE(text);
  EXPECT_THAT(*text, HasSubstr("Schema:\n  id: long not null\n  note: string\n"));

  auto history =
      HistoryReport(*MakeLocalFileSystem(), (*snap)->table_root(), ReportFormat::kJson);
  ASSERT_TRUE(history) << history.error().ToString();
  rapidjson::Document h;
  h.Parse(history->c_str());
  ASSERT_TRUE(h.IsArray()) << *history;
  ASSERT_EQ(h.Size(), 2u);
  EXPECT_STREQ(h[1]["operation"].GetString(), "CREATE OR REPLACE TABLE");
  ASSERT_GE(h[1]["schema_changes"].Size(), 1u);
  EXPECT_THAT(h[1]["schema_changes"][0].GetString(), HasSubstr("note"));

  EXPECT_EQ(ParseReportFormat("JSON").value(), ReportFormat::kJson);
  EXPECT_EQ(ParseReportFormat("yaml").error().code, ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace deltaguard
