// Session: CREATE [OR REPLACE] TABLE [AS SELECT], REPLACE TABLE, external and path
// tables, adopting an existing table, DROP TABLE.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "deltaguard/sql/session_test_util_internal.h"
#include "deltaguard/table/constraints_ddl.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

class SessionDdlTest : public testing::SessionFixture {
 protected:
  // commitInfo.operation of every version, newest first.
  std::vector<std::string> HistoryOperations(const std::string& table) {
    return Column("DESCRIBE HISTORY " + table, "operation");
  }
};

TEST_F(SessionDdlTest, CreateManagedTable) {
  StatementResult result =
      Run("CREATE TABLE orders (id BIGINT NOT NULL, amount DECIMAL(10,2)) USING DELTA");
  ASSERT_TRUE(result.write);
  EXPECT_EQ(result.write->version, 0);
  EXPECT_TRUE(std::filesystem::exists(Warehouse() + "/orders/_delta_log"));
  EXPECT_THAT(HistoryOperations("orders"), ElementsAre("CREATE TABLE"));
  EXPECT_THAT(Rows("DESCRIBE orders"),
              ElementsAre("id|bigint|NULL|false", "amount|decimal(10,2)|NULL|true"));
  EXPECT_THAT(Rows("SHOW TABLES"), ElementsAre("default|orders|false"));
}

TEST_F(SessionDdlTest, CreateExistingTableFailsUnlessIfNotExists) {
  Run("CREATE TABLE orders (id BIGINT)");
  Error e = Fail("CREATE TABLE Orders (id BIGINT)");
  EXPECT_EQ(e.code, ErrorCode::kAlreadyExists);
  EXPECT_THAT(e.message, HasSubstr("'Orders' already exists"));
  StatementResult skipped = Run("CREATE TABLE IF NOT EXISTS orders (x STRING)");
  ASSERT_TRUE(skipped.write);
  EXPECT_TRUE(skipped.write->skipped);
  EXPECT_EQ(Version(Warehouse() + "/orders"), 0);
  EXPECT_THAT(Rows("SHOW COLUMNS IN orders"), ElementsAre("id"));
}

TEST_F(SessionDdlTest, UsingOtherThanDeltaIsUnsupported) {
  Error e = Fail("CREATE TABLE t (id INT) USING parquet");
  EXPECT_EQ(e.code, ErrorCode::kUnsupportedFeature);
  EXPECT_THAT(e.message, HasSubstr("parquet"));
  EXPECT_FALSE(std::filesystem::exists(Warehouse() + "/t"));
}

TEST_F(SessionDdlTest, CreateNeedsColumnsOrQuery) {
  Error e = Fail("CREATE TABLE t USING DELTA");
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(e.message, HasSubstr("column list"));
}

TEST_F(SessionDdlTest, PathTable) {
  const std::string path = dir_.Join("data/events");
  // id is the only column: a table cannot be partitioned by all its columns.
  EXPECT_EQ(
      Fail("CREATE TABLE delta.`" + path + "` (id BIGINT) PARTITIONED BY (id)").code,
      ErrorCode::kInvalidArgument);
  Run("CREATE TABLE delta.`" + path + "` (id BIGINT, day DATE) PARTITIONED BY (day)");
  Run("INSERT INTO delta.`" + path + "` VALUES (1, DATE'2024-01-02')");
  EXPECT_THAT(Rows("SELECT id, day FROM delta.`" + path + "`"),
              ElementsAre("1|2024-01-02"));
  EXPECT_EQ(Fail("CREATE TABLE delta.`" + path + "` (id BIGINT)").code,
            ErrorCode::kAlreadyExists);
  Error drop = Fail("DROP TABLE delta.`" + path + "`");
  EXPECT_EQ(drop.code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(std::filesystem::exists(path + "/_delta_log"));
}

TEST_F(SessionDdlTest, ExternalTableIsRegisteredAndDropKeepsData) {
  const std::string location = dir_.Join("ext/orders");
  Run("CREATE TABLE orders (id BIGINT) LOCATION '" + location + "'");
  EXPECT_TRUE(std::filesystem::exists(location + "/_delta_log"));
  EXPECT_FALSE(std::filesystem::exists(Warehouse() + "/orders/_delta_log"));
  Run("INSERT INTO orders VALUES (7)");
  EXPECT_THAT(Rows("SELECT id FROM orders"), ElementsAre("7"));
  EXPECT_THAT(Rows("SHOW TABLES"), ElementsAre("default|orders|false"));
  StatementResult dropped = Run("DROP TABLE orders");
  EXPECT_THAT(dropped.message, HasSubstr("kept"));
  EXPECT_TRUE(std::filesystem::exists(location + "/_delta_log"));
  EXPECT_EQ(Fail("SELECT * FROM orders").code, ErrorCode::kNotFound);
  EXPECT_EQ(Version(location), 1);
}

TEST_F(SessionDdlTest, LocationWithoutColumnsAdoptsExistingTable) {
  const std::string location = dir_.Join("ext/events");
  Run("CREATE TABLE delta.`" + location + "` (id BIGINT, name STRING)");
  Run("INSERT INTO delta.`" + location + "` VALUES (1, 'a'), (2, 'b')");
  StatementResult adopted = Run("CREATE TABLE events LOCATION '" + location + "'");
  EXPECT_THAT(adopted.message, HasSubstr("Registered"));
  EXPECT_EQ(Version(location), 1);  // nothing committed
  EXPECT_THAT(Rows("SELECT count(*) FROM events"), ElementsAre("2"));
  // With a matching column list, too.
  Run("CREATE TABLE events2 (id BIGINT, name STRING) LOCATION '" + location + "'");
  EXPECT_THAT(Rows("SELECT count(*) FROM events2"), ElementsAre("2"));
}

TEST_F(SessionDdlTest, LocationWithDifferentColumnsFailsNamingBoth) {
  const std::string location = dir_.Join("ext/events");
  Run("CREATE TABLE delta.`" + location + "` (id BIGINT, name STRING)");
  Error e = Fail("CREATE TABLE events (id INT, name STRING) LOCATION '" + location + "'");
  EXPECT_EQ(e.code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(e.message, HasSubstr("DELTA_CREATE_TABLE_SCHEMA_MISMATCH"));
  EXPECT_THAT(e.message, HasSubstr("existing"));
  EXPECT_THAT(e.message, HasSubstr("specified"));
  EXPECT_THAT(e.message, HasSubstr("integer"));
  EXPECT_THAT(e.message, HasSubstr("long"));
  EXPECT_EQ(Fail("SELECT * FROM events").code, ErrorCode::kNotFound);  // not registered
  Error parts =
      Fail("CREATE TABLE events PARTITIONED BY (name) LOCATION '" + location + "'");
  EXPECT_THAT(parts.message, HasSubstr("DIFFERENT_PARTITIONING"));
}

TEST_F(SessionDdlTest, NonEmptyNonDeltaLocationIsRefused) {
  const std::string location = dir_.Join("junk");
  std::filesystem::create_directories(location);
  std::ofstream(location + "/readme.txt") << "not a table";
  Error e = Fail("CREATE TABLE t (id INT) LOCATION '" + location + "'");
  EXPECT_EQ(e.code, ErrorCode::kAlreadyExists);
  EXPECT_THAT(e.message, HasSubstr("NON_EMPTY_LOCATION"));
}

TEST_F(SessionDdlTest, CreateOrReplaceKeepsHistoryWithNewSchema) {
  Run("CREATE TABLE t (id BIGINT, name STRING) TBLPROPERTIES ('delta.appendOnly' = "
      "'true', 'owner.team' = 'a')");
  Run("INSERT INTO t VALUES (1, 'a')");
  StatementResult replaced = Run(
      "CREATE OR REPLACE TABLE t (code STRING NOT NULL, day DATE) PARTITIONED BY (day) "
      "COMMENT 'v2' TBLPROPERTIES ('owner.team' = 'b')");
  ASSERT_TRUE(replaced.write);
  EXPECT_EQ(replaced.write->version, 2);
  EXPECT_EQ(replaced.write->files_removed, 1);
  EXPECT_EQ(replaced.message, "Replaced table t (version 2)");
  EXPECT_THAT(Rows("DESCRIBE t"),
              ElementsAre("code|string|NULL|false", "day|date|NULL|true",
                          "# Partition Information|||NULL",
                          "# col_name|data_type|comment|NULL", "day|date|NULL|true"));
  EXPECT_THAT(Rows("SELECT count(*) FROM t"), ElementsAre("0"));
  // The old properties are gone, the new ones set.
  EXPECT_THAT(Rows("SHOW TBLPROPERTIES t ('owner.team')"), ElementsAre("owner.team|b"));
  EXPECT_THAT(Rows("SHOW TBLPROPERTIES t ('delta.appendOnly')"),
              ElementsAre(HasSubstr("does not have property")));
  EXPECT_THAT(HistoryOperations("t"),
              ElementsAre("CREATE OR REPLACE TABLE", "WRITE", "CREATE TABLE"));
  EXPECT_THAT(Rows("SELECT id, name FROM t VERSION AS OF 1"), ElementsAre("1|a"));
  EXPECT_THAT(Column("DESCRIBE DETAIL t", "description"), ElementsAre("v2"));
}

TEST_F(SessionDdlTest, ReplaceDropsOldConstraints) {
  Run("CREATE TABLE t (id BIGINT)");
  auto added =
      AddConstraint(MakeLocalFileSystem(), Warehouse() + "/t", "positive", "id > 0");
  ASSERT_TRUE(added) << added.error().ToString();
  EXPECT_EQ(Fail("INSERT INTO t VALUES (-1)").code, ErrorCode::kConstraintViolation);
  Run("CREATE OR REPLACE TABLE t AS SELECT CAST(-5 AS BIGINT) AS id");
  EXPECT_THAT(Rows("SELECT id FROM t"), ElementsAre("-5"));
  EXPECT_THAT(Rows("SHOW TBLPROPERTIES t ('delta.constraints.positive')"),
              ElementsAre(HasSubstr("does not have property")));
}

TEST_F(SessionDdlTest, ReplaceTableNeedsAnExistingTable) {
  Error e = Fail("REPLACE TABLE t (id INT)");
  EXPECT_EQ(e.code, ErrorCode::kNotFound);
  EXPECT_THAT(e.message, HasSubstr("'t'"));
  Run("CREATE OR REPLACE TABLE t (id INT)");  // creates
  EXPECT_THAT(HistoryOperations("t"), ElementsAre("CREATE OR REPLACE TABLE"));
  Run("REPLACE TABLE t (id BIGINT)");
  EXPECT_THAT(HistoryOperations("t"),
              ElementsAre("REPLACE TABLE", "CREATE OR REPLACE TABLE"));
  EXPECT_THAT(Rows("DESCRIBE t"), ElementsAre("id|bigint|NULL|true"));
}

TEST_F(SessionDdlTest, CreateTableAsSelect) {
  Run("CREATE TABLE src (id BIGINT, name STRING)");
  Run("INSERT INTO src VALUES (1, 'a'), (2, 'b'), (3, 'c')");
  StatementResult result = Run(
      "CREATE TABLE big PARTITIONED BY (name) AS SELECT id * 10 AS id10, name FROM src "
      "WHERE id > 1");
  ASSERT_TRUE(result.write);
  EXPECT_EQ(result.write->version, 0);
  EXPECT_EQ(result.write->rows, 2);
  EXPECT_EQ(result.message, "Created table big with 2 rows (version 0)");
  EXPECT_THAT(Rows("SELECT id10, name FROM big ORDER BY id10"),
              ElementsAre("20|b", "30|c"));
  EXPECT_THAT(HistoryOperations("big"), ElementsAre("CREATE TABLE AS SELECT"));
  EXPECT_THAT(Column("DESCRIBE DETAIL big", "partitionColumns"),
              ElementsAre("[\"name\"]"));
  EXPECT_EQ(Fail("CREATE TABLE big AS SELECT 1 AS x").code, ErrorCode::kAlreadyExists);
  EXPECT_EQ(Fail("CREATE TABLE c (x INT) AS SELECT 1 AS x").code,
            ErrorCode::kInvalidArgument);
}

TEST_F(SessionDdlTest, CreateTableAsSelectWithComment) {
  StatementResult result = Run("CREATE TABLE t COMMENT 'daily' AS SELECT 1 AS x");
  ASSERT_TRUE(result.write);
  EXPECT_EQ(result.write->version, 0);
  EXPECT_THAT(Column("DESCRIBE DETAIL t", "description"), ElementsAre("daily"));
  EXPECT_THAT(HistoryOperations("t"), ElementsAre("CREATE TABLE AS SELECT"));
  EXPECT_THAT(Rows("SELECT x FROM t"), ElementsAre("1"));
}

TEST_F(SessionDdlTest, CreateOrReplaceAsSelect) {
  Run("CREATE TABLE t (id BIGINT)");
  Run("INSERT INTO t VALUES (1), (2)");
  StatementResult result =
      Run("CREATE OR REPLACE TABLE t AS SELECT 'x' AS code, id FROM t WHERE id = 2");
  ASSERT_TRUE(result.write);
  EXPECT_EQ(result.write->version, 2);
  EXPECT_THAT(Rows("SELECT code, id FROM t"), ElementsAre("x|2"));
  EXPECT_THAT(HistoryOperations("t"),
              ElementsAre("CREATE OR REPLACE TABLE AS SELECT", "WRITE", "CREATE TABLE"));
  EXPECT_THAT(Rows("SELECT count(*) FROM t VERSION AS OF 1"), ElementsAre("2"));
}

TEST_F(SessionDdlTest, FailedReplaceOrCtasLeavesNothingBehind) {
  Run("CREATE TABLE src (name STRING)");
  Run("INSERT INTO src VALUES ('1'), ('abc')");
  Run("CREATE TABLE t (id BIGINT)");
  Run("INSERT INTO t VALUES (1)");
  // The query fails while rows are written (ANSI cast of 'abc').
  Fail("CREATE OR REPLACE TABLE t AS SELECT CAST(name AS INT) AS n FROM src");
  EXPECT_EQ(Version(Warehouse() + "/t"), 1);
  EXPECT_THAT(Rows("SELECT id FROM t"), ElementsAre("1"));
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(Warehouse() + "/t")) {
    if (entry.is_regular_file()) ++files;
  }
  EXPECT_EQ(files, 1u);  // only the data file of version 1
  Fail("CREATE TABLE u AS SELECT CAST(name AS INT) AS n FROM src");
  EXPECT_EQ(Fail("SELECT * FROM u").code, ErrorCode::kNotFound);
  Fail("CREATE TABLE w COMMENT 'c' AS SELECT CAST(name AS INT) AS n FROM src");
  EXPECT_FALSE(
      std::filesystem::exists(Warehouse() + "/w/_delta_log/00000000000000000000.json"));
}

TEST_F(SessionDdlTest, DropManagedTableDeletesData) {
  Run("CREATE TABLE t (id BIGINT)");
  StatementResult result = Run("DROP TABLE t");
  EXPECT_THAT(result.message, HasSubstr("deleted"));
  EXPECT_FALSE(std::filesystem::exists(Warehouse() + "/t/_delta_log"));
  Error e = Fail("DROP TABLE t");
  EXPECT_EQ(e.code, ErrorCode::kNotFound);
  EXPECT_THAT(e.message, HasSubstr("'t'"));
  Run("DROP TABLE IF EXISTS t");
}

TEST_F(SessionDdlTest, TablesInOtherDatabases) {
  Run("CREATE DATABASE silver");
  Run("CREATE TABLE silver.orders (id BIGINT)");
  EXPECT_TRUE(std::filesystem::exists(Warehouse() + "/silver.db/orders/_delta_log"));
  Run("INSERT INTO silver.orders VALUES (5)");
  EXPECT_THAT(Rows("SELECT id FROM silver.orders"), ElementsAre("5"));
  EXPECT_THAT(Rows("SHOW TABLES IN silver"), ElementsAre("silver|orders|false"));
  EXPECT_THAT(Rows("SHOW TABLES IN silver LIKE 'x*'"), ElementsAre());
  EXPECT_EQ(Fail("CREATE TABLE bronze.orders (id INT)").code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace deltaguard
