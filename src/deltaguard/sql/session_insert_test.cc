// Session: INSERT INTO/OVERWRITE (positional, column list, BY NAME), schema evolution,
// REPLACE WHERE, all-or-nothing failures, and SELECT with time travel.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/sql/session_test_util_internal.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

class SessionInsertTest : public testing::SessionFixture {
 protected:
  void SetUp() override {
    Run("CREATE TABLE orders (id BIGINT NOT NULL, name STRING, amount DOUBLE)");
    path_ = Warehouse() + "/orders";
  }
  std::string path_;
};

TEST_F(SessionInsertTest, InsertValuesReturnsSparkMetrics) {
  StatementResult result = Run("INSERT INTO orders VALUES (1, 'a', 1.5), (2, 'b', 2)");
  EXPECT_EQ(result.kind, "INSERT");
  EXPECT_EQ(result.message, "Inserted 2 rows into orders (version 1)");
  ASSERT_TRUE(result.write);
  EXPECT_EQ(result.write->version, 1);
  EXPECT_THAT(TextRows(result), ElementsAre("2|2"));
  EXPECT_THAT(ColumnNames("INSERT INTO orders VALUES (3, 'c', 0)"),
              ElementsAre("num_affected_rows", "num_inserted_rows"));
  EXPECT_THAT(Rows("SELECT id, name, amount FROM orders ORDER BY id"),
              ElementsAre("1|a|1.5", "2|b|2", "3|c|0"));
  EXPECT_THAT(Column("DESCRIBE HISTORY orders LIMIT 1", "operation"),
              ElementsAre("WRITE"));
  EXPECT_THAT(Column("DESCRIBE HISTORY orders LIMIT 1", "operationParameters"),
              ElementsAre(HasSubstr("\"mode\":\"Append\"")));
}

TEST_F(SessionInsertTest, FailedInsertLeavesTableUnchanged) {
  Run("INSERT INTO orders VALUES (1, 'a', 1.0)");
  Error e = Fail("INSERT INTO orders VALUES (2, 'b', 2.0), (NULL, 'c', 3.0)");
  EXPECT_EQ(e.code, ErrorCode::kConstraintViolation);
  EXPECT_THAT(e.message, HasSubstr("id"));
  EXPECT_THAT(e.message, Not(HasSubstr(path_)));  // named as written
  EXPECT_EQ(Version(path_), 1);
  EXPECT_THAT(Rows("SELECT id FROM orders"), ElementsAre("1"));
}

TEST_F(SessionInsertTest, InsertIntoMissingTableNamesIt) {
  Error e = Fail("INSERT INTO nope VALUES (1)");
  EXPECT_EQ(e.code, ErrorCode::kNotFound);
  EXPECT_THAT(e.message, HasSubstr("'nope'"));
}

TEST_F(SessionInsertTest, PositionalSwapFailsAndSuggestsByName) {
  Run("CREATE TABLE src (name STRING, id BIGINT, amount DOUBLE)");
  Run("INSERT INTO src VALUES ('x', 9, 1.0)");
  // docs/decisions.md §5: the table's names in another order.
  Error e = Fail("INSERT INTO orders SELECT * FROM src");
  EXPECT_EQ(e.code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(e.message, HasSubstr("BY NAME"));
  EXPECT_THAT(e.message, HasSubstr("'orders'"));
  EXPECT_EQ(Version(path_), 0);
  Run("INSERT INTO orders BY NAME SELECT * FROM src");
  EXPECT_THAT(Rows("SELECT id, name FROM orders"), ElementsAre("9|x"));
}

TEST_F(SessionInsertTest, PositionalInsertRenamesToTableColumns) {
  // Names that are not the table's carry no meaning: matched by position.
  Run("INSERT INTO orders SELECT 4 AS a, 'd' AS b, CAST(1.5 AS DOUBLE) AS c");
  EXPECT_THAT(Rows("SELECT id, name, amount FROM orders"), ElementsAre("4|d|1.5"));
}

TEST_F(SessionInsertTest, PositionalArityMismatch) {
  Error e = Fail("INSERT INTO orders VALUES (1, 'a')");
  EXPECT_EQ(e.code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(e.message, HasSubstr("DELTA_INSERT_COLUMN_ARITY_MISMATCH"));
  EXPECT_THAT(e.message, HasSubstr("not enough"));
  Error more = Fail("INSERT INTO orders VALUES (1, 'a', 1.0, 'extra')");
  EXPECT_THAT(more.message, HasSubstr("too many"));
}

TEST_F(SessionInsertTest, ColumnListFillsMissingColumnsWithNull) {
  StatementResult result = Run("INSERT INTO orders (name, id) VALUES ('z', 5)");
  ASSERT_TRUE(result.write);
  EXPECT_THAT(Rows("SELECT id, name, amount FROM orders"), ElementsAre("5|z|NULL"));
  Error e = Fail("INSERT INTO orders (name) VALUES ('no id')");
  EXPECT_EQ(e.code, ErrorCode::kConstraintViolation);
  EXPECT_THAT(e.message, HasSubstr("id"));
  Error unknown = Fail("INSERT INTO orders (id, colour) VALUES (1, 'red')");
  EXPECT_EQ(unknown.code, ErrorCode::kNotFound);
  EXPECT_THAT(unknown.message, HasSubstr("colour"));
  Error twice = Fail("INSERT INTO orders (id, ID) VALUES (1, 2)");
  EXPECT_EQ(twice.code, ErrorCode::kInvalidArgument);
  Error arity = Fail("INSERT INTO orders (id, name) VALUES (1)");
  EXPECT_THAT(arity.message, HasSubstr("DELTA_INSERT_COLUMN_ARITY_MISMATCH"));
  EXPECT_EQ(Version(path_), 1);
}

TEST_F(SessionInsertTest, ValuesAreTypedToTheTable) {
  Run("CREATE TABLE typed (d DATE, price DECIMAL(10,2))");
  Run("INSERT INTO typed VALUES ('2024-01-31', 12.5)");
  EXPECT_THAT(Rows("SELECT d, price FROM typed"), ElementsAre("2024-01-31|12.50"));
}

TEST_F(SessionInsertTest, NewColumnNeedsSchemaEvolution) {
  Run("INSERT INTO orders VALUES (1, 'a', 1.0)");
  Error e = Fail("INSERT INTO orders BY NAME SELECT 2 AS id, 'web' AS channel");
  EXPECT_EQ(e.code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(e.message, HasSubstr("channel"));
  EXPECT_THAT(e.message, HasSubstr("WITH SCHEMA EVOLUTION"));
  EXPECT_EQ(Version(path_), 1);
  StatementResult ok =
      Run("INSERT INTO orders WITH SCHEMA EVOLUTION BY NAME SELECT 2 AS id, 'web' AS "
          "channel");
  ASSERT_TRUE(ok.write);
  EXPECT_TRUE(ok.write->schema_changed);
  EXPECT_THAT(Rows("SHOW COLUMNS IN orders"),
              ElementsAre("id", "name", "amount", "channel"));
  EXPECT_THAT(Rows("SELECT id, channel FROM orders ORDER BY id"),
              ElementsAre("1|NULL", "2|web"));
}

TEST_F(SessionInsertTest, PositionalSchemaEvolutionAppendsExtraColumns) {
  Run("INSERT INTO orders WITH SCHEMA EVOLUTION VALUES (1, 'a', 1.0, 'web')");
  EXPECT_THAT(Rows("SHOW COLUMNS IN orders"),
              ElementsAre("id", "name", "amount", "col4"));
}

TEST_F(SessionInsertTest, AutoMergeSettingEnablesEvolution) {
  Run("SET spark.databricks.delta.schema.autoMerge.enabled = true");
  Run("INSERT INTO orders BY NAME SELECT 3 AS id, 'app' AS channel");
  EXPECT_THAT(Rows("SHOW COLUMNS IN orders"),
              ElementsAre("id", "name", "amount", "channel"));
  Run("SET spark.databricks.delta.schema.autoMerge.enabled = false");
  EXPECT_EQ(Fail("INSERT INTO orders BY NAME SELECT 4 AS id, 1 AS other").code,
            ErrorCode::kSchemaMismatch);
}

TEST_F(SessionInsertTest, InsertOverwriteReplacesRowsButNotSchema) {
  Run("INSERT INTO orders VALUES (1, 'a', 1.0), (2, 'b', 2.0)");
  StatementResult result = Run("INSERT OVERWRITE orders VALUES (3, 'c', 3.0)");
  ASSERT_TRUE(result.write);
  EXPECT_EQ(result.write->files_removed, 1);
  EXPECT_THAT(Rows("SELECT id FROM orders"), ElementsAre("3"));
  EXPECT_THAT(Column("DESCRIBE HISTORY orders LIMIT 1", "operationParameters"),
              ElementsAre(HasSubstr("Overwrite")));
  // overwriteSchema is no SQL concept: a different schema fails; CREATE OR REPLACE
  // is the way to change it.
  Error e = Fail("INSERT OVERWRITE orders BY NAME SELECT 4 AS id, 'x' AS code");
  EXPECT_THAT(e.message, HasSubstr("code"));
  EXPECT_EQ(e.code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(Rows("SELECT id FROM orders"), ElementsAre("3"));
}

TEST_F(SessionInsertTest, ReplaceWhereReplacesMatchingRows) {
  Run("INSERT INTO orders VALUES (1, 'a', 1.0), (2, 'b', 2.0), (3, 'c', 3.0)");
  Run("INSERT INTO orders REPLACE WHERE id >= 2 SELECT 20 AS id, 'bb' AS name, "
      "CAST(0.5 AS DOUBLE) AS x");
  EXPECT_THAT(Rows("SELECT id, name FROM orders ORDER BY id"),
              ElementsAre("1|a", "20|bb"));
  EXPECT_THAT(Column("DESCRIBE HISTORY orders LIMIT 1", "operationParameters"),
              ElementsAre(HasSubstr("predicate")));
  // Rows that do not satisfy the predicate are refused.
  Error e = Fail("INSERT INTO orders REPLACE WHERE id >= 2 VALUES (1, 'bad', 0)");
  EXPECT_EQ(Version(path_), 2);
  EXPECT_THAT(e.message, HasSubstr("id"));
}

TEST_F(SessionInsertTest, ReplaceWhereErrorNamesTheTable) {
  Run("INSERT INTO orders VALUES (1, 'a', 1.0)");
  // The predicate fails while the rows are checked: the message names the target table,
  // not the query's source ("no table" for a SELECT without FROM).
  Error e = Fail(
      "INSERT INTO orders REPLACE WHERE id / 0 > 1 SELECT 2 AS id, 'b' AS name, "
      "CAST(1 AS DOUBLE) AS amount");
  EXPECT_THAT(e.ToString(), HasSubstr("INSERT INTO orders"));
  EXPECT_THAT(e.ToString(), Not(HasSubstr("no table")));
  EXPECT_THAT(e.ToString(), HasSubstr("DIVIDE_BY_ZERO"));
  EXPECT_EQ(Version(path_), 1);
}

TEST_F(SessionInsertTest, SelectErrorsNameTableAndColumn) {
  Error missing = Fail("SELECT * FROM no_such_table");
  EXPECT_EQ(missing.code, ErrorCode::kNotFound);
  EXPECT_THAT(missing.message, HasSubstr("TABLE_OR_VIEW_NOT_FOUND"));
  EXPECT_THAT(missing.message, HasSubstr("no_such_table"));
  Error column = Fail("SELECT nope FROM orders");
  EXPECT_EQ(column.code, ErrorCode::kNotFound);
  EXPECT_THAT(column.message,
              HasSubstr("UNRESOLVED_COLUMN: column 'nope' does not exist in table "
                        "`orders`; available: id, name, amount"));
}

TEST_F(SessionInsertTest, TimestampAsOfAfterLatestCommitFails) {
  Run("INSERT INTO orders VALUES (1, 'a', 1.0)");
  Error e = Fail("SELECT id FROM orders TIMESTAMP AS OF '2999-01-01'");
  EXPECT_THAT(e.message, HasSubstr("DELTA_TIMESTAMP_GREATER_THAN_COMMIT"));
  Error early = Fail("SELECT id FROM orders TIMESTAMP AS OF '2001-01-01'");
  EXPECT_THAT(early.message, HasSubstr("DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION"));
}

TEST_F(SessionInsertTest, TimeTravelSelectAfterInserts) {
  Run("INSERT INTO orders VALUES (1, 'a', 1.0)");
  Run("INSERT INTO orders VALUES (2, 'b', 2.0)");
  EXPECT_THAT(Rows("SELECT id FROM orders VERSION AS OF 1"), ElementsAre("1"));
  EXPECT_THAT(Rows("SELECT id FROM orders VERSION AS OF 2 ORDER BY id"),
              ElementsAre("1", "2"));
  EXPECT_THAT(Rows("SELECT count(*) FROM orders VERSION AS OF 0"), ElementsAre("0"));
  EXPECT_EQ(Fail("SELECT id FROM orders VERSION AS OF 9").code, ErrorCode::kNotFound);
}

TEST_F(SessionInsertTest, InsertFromAnotherTableAndPathReference) {
  Run("INSERT INTO orders VALUES (1, 'a', 1.0), (2, 'b', 2.0)");
  const std::string copy = dir_.Join("copy");
  Run("CREATE TABLE delta.`" + copy + "` (id BIGINT, name STRING, amount DOUBLE)");
  StatementResult result =
      Run("INSERT INTO delta.`" + copy + "` SELECT * FROM orders WHERE id = 2");
  EXPECT_EQ(result.message, "Inserted 1 rows into delta.`" + copy + "` (version 1)");
  EXPECT_THAT(Rows("SELECT name FROM delta.`" + copy + "`"), ElementsAre("b"));
}

}  // namespace
}  // namespace deltaguard
