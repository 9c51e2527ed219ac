// Session: SET/RESET, USE, databases, temp views, scripts and result collection.

#include "deltaguard/sql/session.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "deltaguard/schema/ddl.h"
#include "deltaguard/sql/session_internal.h"
#include "deltaguard/sql/session_test_util_internal.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

class SessionTest : public testing::SessionFixture {};

constexpr const char* kAutoMerge = "spark.databricks.delta.schema.autoMerge.enabled";

TEST_F(SessionTest, SetKnownSettingChangesSessionSettings) {
  EXPECT_FALSE(session_.settings().auto_merge);
  EXPECT_THAT(Rows("SET spark.databricks.delta.schema.autoMerge.enabled = true"),
              ElementsAre(std::string(kAutoMerge) + "|true"));
  EXPECT_TRUE(session_.settings().auto_merge);
  EXPECT_THAT(Rows("SET spark.databricks.delta.schema.autoMerge.enabled"),
              ElementsAre(std::string(kAutoMerge) + "|true"));
  Error e = Fail("SET spark.databricks.delta.schema.autoMerge.enabled = maybe");
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(e.message, HasSubstr("maybe"));
  EXPECT_TRUE(session_.settings().auto_merge);  // unchanged by the failed SET
}

TEST_F(SessionTest, SetUnknownKeyIsStoredAndShown) {
  EXPECT_THAT(Rows("SET spark.sql.shuffle.partitions = 8"),
              ElementsAre("spark.sql.shuffle.partitions|8"));
  EXPECT_THAT(Rows("SET spark.sql.shuffle.partitions"),
              ElementsAre("spark.sql.shuffle.partitions|8"));
  EXPECT_THAT(Rows("SET spark.sql.never.set"),
              ElementsAre("spark.sql.never.set|<undefined>"));
  EXPECT_THAT(Rows("SET"),
              ElementsAre("deltaguard.check|", "deltaguard.check.baseline|",
                          "deltaguard.check.onFailure|fail", "deltaguard.contract|",
                          "deltaguard.merge.ignoreUnmatchedSourceColumns|false",
                          "deltaguard.merge.sourceMemoryLimit|1073741824",
                          "deltaguard.query.memoryLimit|" +
                              std::to_string(DefaultQueryMemoryLimit()),
                          "spark.databricks.delta.retentionDurationCheck.enabled|true",
                          std::string(kAutoMerge) + "|false",
                          "spark.databricks.delta.vacuum.logging.enabled|true",
                          "spark.sql.shuffle.partitions|8"));
}

TEST_F(SessionTest, QueryMemoryLimitTakesByteSizes) {
  EXPECT_THAT(Rows("SET deltaguard.query.memoryLimit = 256m"),
              ElementsAre("deltaguard.query.memoryLimit|268435456"));
  EXPECT_EQ(session_.settings().query_memory_limit, 256 << 20);
  EXPECT_THAT(Rows("SET deltaguard.query.memoryLimit = -1"),
              ElementsAre("deltaguard.query.memoryLimit|-1"));
  Error e = Fail("SET deltaguard.query.memoryLimit = lots");
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(e.message, HasSubstr("lots"));
  Run("RESET deltaguard.query.memoryLimit");
  EXPECT_EQ(session_.settings().query_memory_limit, DefaultQueryMemoryLimit());
}

TEST_F(SessionTest, ResetRestoresDefaults) {
  Run("SET spark.databricks.delta.schema.autoMerge.enabled = true");
  Run("SET my.key = 1");
  Run("RESET spark.databricks.delta.schema.autoMerge.enabled");
  EXPECT_FALSE(session_.settings().auto_merge);
  EXPECT_THAT(Rows("SET my.key"), ElementsAre("my.key|1"));
  Run("SET spark.databricks.delta.schema.autoMerge.enabled = true");
  Run("RESET");
  EXPECT_FALSE(session_.settings().auto_merge);
  EXPECT_THAT(Rows("SET my.key"), ElementsAre("my.key|<undefined>"));
}

TEST_F(SessionTest, UseNeedsAnExistingDatabase) {
  Error e = Fail("USE sales");
  EXPECT_EQ(e.code, ErrorCode::kNotFound);
  EXPECT_THAT(e.message, HasSubstr("'sales'"));
  EXPECT_EQ(session_.current_database(), "default");
  Run("CREATE DATABASE Sales");
  Run("USE sales");
  EXPECT_EQ(session_.current_database(), "sales");
  Run("CREATE TABLE orders (id BIGINT)");
  EXPECT_TRUE(std::filesystem::exists(Warehouse() + "/sales.db/orders/_delta_log"));
  EXPECT_THAT(Rows("SHOW TABLES"), ElementsAre("sales|orders|false"));
}

TEST_F(SessionTest, CreateAndDropDatabase) {
  Run("CREATE DATABASE silver");
  EXPECT_EQ(Fail("CREATE DATABASE silver").code, ErrorCode::kAlreadyExists);
  Run("CREATE DATABASE IF NOT EXISTS silver");
  Run("CREATE SCHEMA gold");
  EXPECT_THAT(Rows("SHOW DATABASES"), ElementsAre("default", "gold", "silver"));
  EXPECT_THAT(Rows("SHOW DATABASES LIKE 's*'"), ElementsAre("silver"));
  EXPECT_THAT(Rows("SHOW DATABASES LIKE 'g*|s*'"), ElementsAre("gold", "silver"));
  Run("USE silver");
  Run("DROP DATABASE silver");
  EXPECT_EQ(session_.current_database(), "default");
  EXPECT_THAT(Rows("SHOW DATABASES"), ElementsAre("default", "gold"));
  EXPECT_EQ(Fail("DROP DATABASE silver").code, ErrorCode::kNotFound);
  Run("DROP DATABASE IF EXISTS silver");
}

TEST_F(SessionTest, TempViewsArePlannedAtUse) {
  Run("CREATE TABLE t (id BIGINT, name STRING)");
  Run("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
  Run("CREATE TEMP VIEW big AS SELECT id, name FROM t WHERE id > 1");
  EXPECT_THAT(Rows("SELECT * FROM big"), ElementsAre("2|b"));
  Run("INSERT INTO t VALUES (3, 'c')");
  // The view reads the table's latest version at each use.
  EXPECT_THAT(Rows("SELECT id FROM big ORDER BY id"), ElementsAre("2", "3"));
  EXPECT_EQ(Fail("CREATE TEMP VIEW big AS SELECT 1").code, ErrorCode::kAlreadyExists);
  Run("CREATE OR REPLACE TEMP VIEW big AS SELECT id FROM t WHERE id = 1");
  EXPECT_THAT(Rows("SELECT * FROM big"), ElementsAre("1"));
  EXPECT_THAT(Rows("SHOW TABLES"), ElementsAre("default|t|false", "|big|true"));
  EXPECT_THAT(Rows("SHOW COLUMNS IN big"), ElementsAre("id"));
  EXPECT_THAT(Rows("DESCRIBE big"), ElementsAre("id|bigint|NULL|true"));
  Run("DROP VIEW big");
  EXPECT_EQ(Fail("DROP VIEW big").code, ErrorCode::kNotFound);
  Run("DROP VIEW IF EXISTS big");
  EXPECT_EQ(Fail("SELECT * FROM big").code, ErrorCode::kNotFound);
}

TEST_F(SessionTest, ViewOverMissingTableFailsAtCreation) {
  Error e = Fail("CREATE TEMP VIEW v AS SELECT * FROM missing");
  EXPECT_EQ(e.code, ErrorCode::kNotFound);
  EXPECT_THAT(e.message, HasSubstr("view 'v'"));
  EXPECT_THAT(e.message, HasSubstr("missing"));
}

TEST_F(SessionTest, InsertIntoViewIsRefused) {
  Run("CREATE TABLE t (id BIGINT)");
  Run("CREATE TEMP VIEW v AS SELECT id FROM t");
  Error e = Fail("INSERT INTO v VALUES (1)");
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(e.message, HasSubstr("temporary view 'v'"));
}

TEST_F(SessionTest, ScriptRunsStatementsInOrderAndPrefixesErrors) {
  std::vector<std::string> kinds;
  auto st = session_.ExecuteScript(
      "CREATE TABLE t (id BIGINT);\n"
      "INSERT INTO t VALUES (1);\n"
      "SELECT * FROM t;\n",
      [&](const Statement&, StatementResult& result) -> Status {
        kinds.push_back(result.kind);
        if (result.rows) {
          auto rows = CollectRows(result);
          if (!rows) return rows.error();
        }
        return OkStatus();
      });
  ASSERT_TRUE(st) << st.error().ToString();
  EXPECT_THAT(kinds, ElementsAre("CREATE TABLE", "INSERT", "SELECT"));

  kinds.clear();
  st = session_.ExecuteScript(
      "INSERT INTO t VALUES (2);\n\n"
      "INSERT INTO missing VALUES (3);\n"
      "INSERT INTO t VALUES (4);",
      [&](const Statement&, StatementResult& result) -> Status {
        kinds.push_back(result.kind);
        return OkStatus();
      });
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(st.error().message, StartsWith("statement 2 (line 3): "));
  EXPECT_THAT(st.error().message, HasSubstr("missing"));
  EXPECT_EQ(kinds.size(), 1u);  // the third statement never ran
  EXPECT_THAT(Rows("SELECT id FROM t ORDER BY id"), ElementsAre("1", "2"));
}

TEST_F(SessionTest, ScriptCallbackErrorStopsTheScript) {
  int calls = 0;
  auto st = session_.ExecuteScript(
      "SET a = 1; SET b = 2", [&](const Statement&, StatementResult&) -> Status {
        ++calls;
        return MakeError(ErrorCode::kIOError, "output closed");
      });
  ASSERT_FALSE(st);
  EXPECT_EQ(calls, 1);
  EXPECT_THAT(st.error().message, StartsWith("statement 1 (line 1): output closed"));
}

TEST_F(SessionTest, SyntaxErrorRunsNothing) {
  auto st =
      session_.ExecuteScript("CREATE TABLE t (id BIGINT);\nINSERT t VALUES (1)", nullptr);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::kParseError);
  EXPECT_FALSE(std::filesystem::exists(Warehouse() + "/t"));
}

TEST_F(SessionTest, CollectRowsOfStatementWithoutRowsIsNull) {
  StatementResult result = Run("CREATE TABLE t (id BIGINT)");
  EXPECT_EQ(result.kind, "CREATE TABLE");
  EXPECT_EQ(result.schema, nullptr);
  auto rows = CollectRows(result);
  ASSERT_TRUE(rows);
  EXPECT_EQ(*rows, nullptr);
  EXPECT_EQ(result.message, "Created table t (version 0)");
}

TEST_F(SessionTest, CurrentTimestampIsTheSessionClock) {
  EXPECT_THAT(Rows("SELECT current_date() AS d"), ElementsAre("2023-11-14"));
}

TEST(SessionHelpersTest, LikePattern) {
  EXPECT_TRUE(internal::MatchesLikePattern("ord*", "orders"));
  EXPECT_TRUE(internal::MatchesLikePattern("ORD*", "orders"));
  EXPECT_TRUE(internal::MatchesLikePattern("*ers", "orders"));
  EXPECT_TRUE(internal::MatchesLikePattern("x|orders", "orders"));
  EXPECT_FALSE(internal::MatchesLikePattern("ord", "orders"));
  EXPECT_FALSE(internal::MatchesLikePattern("*x*", "orders"));
}

TEST(SessionHelpersTest, SparkTypeStrings) {
  auto schema = ParseDdlSchema(
      "a TINYINT, b SMALLINT, c INT, d BIGINT, e DECIMAL(18,2), f ARRAY<STRING>, "
      "g STRUCT<x: INT, y: MAP<STRING, DOUBLE>>, h TIMESTAMP_NTZ, i BOOLEAN");
  ASSERT_TRUE(schema) << schema.error().ToString();
  std::vector<std::string> types;
  for (const auto& f : (*schema)->fields())
    types.push_back(internal::SparkTypeString(*f.type));
  EXPECT_THAT(types, ElementsAre("tinyint", "smallint", "int", "bigint", "decimal(18,2)",
                                 "array<string>", "struct<x:int,y:map<string,double>>",
                                 "timestamp_ntz", "boolean"));
}

}  // namespace
}  // namespace deltaguard
