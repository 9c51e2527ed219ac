// Session: DESCRIBE [EXTENDED], DESCRIBE HISTORY, DESCRIBE DETAIL, SHOW TBLPROPERTIES,
// SHOW COLUMNS.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/sql/session_test_util_internal.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

class SessionDescribeTest : public testing::SessionFixture {};

TEST_F(SessionDescribeTest, DescribeShowsSparkTypesNullabilityAndComments) {
  Run("CREATE TABLE t (id BIGINT NOT NULL COMMENT 'key', price DECIMAL(18,2), "
      "tags ARRAY<STRING>, s STRUCT<a: INT, b: STRING>, m MAP<STRING, BIGINT>)");
  EXPECT_THAT(ColumnNames("DESCRIBE t"),
              ElementsAre("col_name", "data_type", "comment", "nullable"));
  EXPECT_THAT(
      Rows("DESCRIBE t"),
      ElementsAre("id|bigint|key|false", "price|decimal(18,2)|NULL|true",
                  "tags|array<string>|NULL|true", "s|struct<a:int,b:string>|NULL|true",
                  "m|map<string,bigint>|NULL|true"));
}

TEST_F(SessionDescribeTest, DescribeMissingTableNamesIt) {
  Error e = Fail("DESCRIBE silver_orders");
  EXPECT_EQ(e.code, ErrorCode::kNotFound);
  EXPECT_THAT(e.message, HasSubstr("'silver_orders'"));
}

TEST_F(SessionDescribeTest, DescribeExtendedAddsTableInformation) {
  Run("CREATE TABLE t (id BIGINT, day DATE) PARTITIONED BY (day) COMMENT 'events' "
      "TBLPROPERTIES ('delta.appendOnly' = 'true')");
  std::vector<std::string> rows = Rows("DESCRIBE EXTENDED t");
  ASSERT_GE(rows.size(), 8u);
  EXPECT_EQ(rows[2], "# Partition Information|||NULL");
  EXPECT_EQ(rows[4], "day|date|NULL|true");
  EXPECT_EQ(rows[5], "|||NULL");
  EXPECT_EQ(rows[6], "# Detailed Table Information|||NULL");
  EXPECT_THAT(rows, Contains("Name|default.t||NULL"));
  EXPECT_THAT(rows, Contains("Type|MANAGED||NULL"));
  EXPECT_THAT(rows, Contains("Provider|delta||NULL"));
  EXPECT_THAT(rows, Contains("Version|0||NULL"));
  EXPECT_THAT(rows, Contains("Comment|events||NULL"));
  EXPECT_THAT(rows, Contains(StartsWith("Location|file:" + Warehouse() + "/t")));
  EXPECT_THAT(rows, Contains("Table Properties|[delta.appendOnly=true,"
                             "delta.minReaderVersion=1,delta.minWriterVersion=2,"
                             "deltaguard.profiles=true]||NULL"));
}

TEST_F(SessionDescribeTest, DescribeHistoryNewestFirstWithLimit) {
  Run("CREATE TABLE t (id BIGINT)");
  Run("INSERT INTO t VALUES (1)");
  Run("INSERT OVERWRITE t VALUES (2)");
  EXPECT_THAT(ColumnNames("DESCRIBE HISTORY t"),
              ElementsAre("version", "timestamp", "userId", "userName", "operation",
                          "operationParameters", "job", "notebook", "clusterId",
                          "readVersion", "isolationLevel", "isBlindAppend",
                          "operationMetrics", "userMetadata", "engineInfo"));
  EXPECT_THAT(Column("DESCRIBE HISTORY t", "version"), ElementsAre("2", "1", "0"));
  EXPECT_THAT(Column("DESCRIBE HISTORY t", "readVersion"), ElementsAre("1", "0", "NULL"));
  EXPECT_THAT(Column("DESCRIBE HISTORY t", "isBlindAppend"),
              ElementsAre("false", "true", "true"));
  EXPECT_THAT(Column("DESCRIBE HISTORY t LIMIT 1", "operationMetrics"),
              ElementsAre(HasSubstr("\"numOutputRows\":\"1\"")));
  EXPECT_THAT(Column("DESCRIBE HISTORY t LIMIT 1", "engineInfo"),
              ElementsAre(StartsWith("deltaguard")));
  EXPECT_THAT(Column("DESCRIBE HISTORY t LIMIT 2", "operation"),
              ElementsAre("WRITE", "WRITE"));
  EXPECT_EQ(Fail("DESCRIBE HISTORY missing").code, ErrorCode::kNotFound);
}

TEST_F(SessionDescribeTest, DescribeDetail) {
  Run("CREATE TABLE t (id BIGINT, p STRING) PARTITIONED BY (p) COMMENT 'c' "
      "TBLPROPERTIES ('owner.team' = 'x')");
  Run("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
  EXPECT_THAT(ColumnNames("DESCRIBE DETAIL t"),
              ElementsAre("format", "id", "name", "description", "location", "createdAt",
                          "lastModified", "partitionColumns", "clusteringColumns",
                          "numFiles", "sizeInBytes", "properties", "minReaderVersion",
                          "minWriterVersion", "tableFeatures"));
  EXPECT_THAT(Column("DESCRIBE DETAIL t", "format"), ElementsAre("delta"));
  EXPECT_THAT(Column("DESCRIBE DETAIL t", "name"), ElementsAre("default.t"));
  EXPECT_THAT(Column("DESCRIBE DETAIL t", "numFiles"), ElementsAre("2"));
  EXPECT_THAT(Column("DESCRIBE DETAIL t", "partitionColumns"), ElementsAre("[\"p\"]"));
  EXPECT_THAT(Column("DESCRIBE DETAIL t", "clusteringColumns"), ElementsAre("[]"));
  EXPECT_THAT(Column("DESCRIBE DETAIL t", "properties"),
              ElementsAre("{\"owner.team\":\"x\",\"deltaguard.profiles\":\"true\"}"));
  EXPECT_THAT(Column("DESCRIBE DETAIL t", "minReaderVersion"), ElementsAre("1"));
  EXPECT_THAT(Column("DESCRIBE DETAIL t", "minWriterVersion"), ElementsAre("2"));
  EXPECT_THAT(Column("DESCRIBE DETAIL t", "tableFeatures"),
              ElementsAre("[\"appendOnly\",\"invariants\"]"));
  std::vector<std::string> size = Column("DESCRIBE DETAIL t", "sizeInBytes");
  ASSERT_EQ(size.size(), 1u);
  EXPECT_GT(std::stoll(size[0]), 0);
}

TEST_F(SessionDescribeTest, DescribeDetailOfPathHasNoName) {
  const std::string path = dir_.Join("p");
  Run("CREATE TABLE delta.`" + path + "` (id INT)");
  EXPECT_THAT(Column("DESCRIBE DETAIL delta.`" + path + "`", "name"),
              ElementsAre("NULL"));
  EXPECT_THAT(Column("DESCRIBE DETAIL delta.`" + path + "`", "location"),
              ElementsAre("file:" + path));
}

TEST_F(SessionDescribeTest, ShowTblProperties) {
  Run("CREATE TABLE t (id BIGINT) TBLPROPERTIES ('delta.appendOnly' = 'true', "
      "'owner' = 'me')");
  EXPECT_THAT(Rows("SHOW TBLPROPERTIES t"),
              ElementsAre("delta.appendOnly|true", "owner|me", "deltaguard.profiles|true",
                          "delta.minReaderVersion|1", "delta.minWriterVersion|2"));
  EXPECT_THAT(Rows("SHOW TBLPROPERTIES t ('owner')"), ElementsAre("owner|me"));
  EXPECT_THAT(Rows("SHOW TBLPROPERTIES t ('nope')"),
              ElementsAre("nope|Table default.t does not have property: nope"));
}

TEST_F(SessionDescribeTest, ShowTblPropertiesListsExplicitFeatures) {
  Run("CREATE TABLE t (id BIGINT) TBLPROPERTIES ('delta.enableDeletionVectors' = "
      "'true')");
  std::vector<std::string> rows = Rows("SHOW TBLPROPERTIES t");
  EXPECT_THAT(rows, Contains("delta.feature.deletionVectors|supported"));
  EXPECT_THAT(rows, Contains("delta.minReaderVersion|3"));
  EXPECT_THAT(rows, Contains("delta.minWriterVersion|7"));
}

TEST_F(SessionDescribeTest, ShowColumns) {
  Run("CREATE DATABASE silver");
  Run("CREATE TABLE silver.orders (id BIGINT, name STRING)");
  EXPECT_THAT(Rows("SHOW COLUMNS IN silver.orders"), ElementsAre("id", "name"));
  EXPECT_THAT(Rows("SHOW COLUMNS IN orders IN silver"), ElementsAre("id", "name"));
  EXPECT_EQ(Fail("SHOW COLUMNS IN orders").code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace deltaguard
