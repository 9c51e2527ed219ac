// Session: MERGE, UPDATE and DELETE statements through dml/ (session_dml.cc): aliases,
// sources, Spark's result rows, schema rules and settings, errors naming the table.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/sql/session_test_util_internal.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

class SessionDmlTest : public testing::SessionFixture {
 protected:
  void SetUp() override {
    Run("CREATE TABLE orders (id BIGINT, status STRING, amount INT)");
    Run("INSERT INTO orders VALUES (1, 'placed', 10), (2, 'placed', 20), "
        "(3, 'shipped', 30)");
    Run("CREATE TABLE changes (id BIGINT, status STRING, amount INT)");
    Run("INSERT INTO changes VALUES (2, 'shipped', 21), (4, 'placed', 40)");
    path_ = Warehouse() + "/orders";
  }
  std::string path_;
};

TEST_F(SessionDmlTest, MergeReturnsSparkMetricsAndCommits) {
  StatementResult r =
      Run("MERGE INTO orders AS t USING changes AS s ON t.id = s.id "
          "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *");
  EXPECT_EQ(r.kind, "MERGE");
  ASSERT_NE(r.schema, nullptr);
  EXPECT_THAT(r.schema->field_names(),
              ElementsAre("num_affected_rows", "num_updated_rows", "num_deleted_rows",
                          "num_inserted_rows"));
  EXPECT_THAT(r.message, HasSubstr("Merged into orders (version 2)"));
  EXPECT_THAT(r.warnings, IsEmpty());
  EXPECT_THAT(TextRows(r), ElementsAre("2|1|0|1"));
  EXPECT_EQ(Version(path_), 2);
  EXPECT_THAT(Rows("SELECT id, status, amount FROM orders ORDER BY id"),
              ElementsAre("1|placed|10", "2|shipped|21", "3|shipped|30", "4|placed|40"));
  EXPECT_THAT(Column("DESCRIBE HISTORY orders LIMIT 1", "operation"),
              ElementsAre("MERGE"));
}

TEST_F(SessionDmlTest, TableNamesAreTheDefaultAliases) {
  StatementResult r =
      Run("MERGE INTO orders USING changes ON orders.id = changes.id "
          "WHEN MATCHED THEN UPDATE SET orders.amount = changes.amount + 100");
  EXPECT_THAT(TextRows(r), ElementsAre("1|1|0|0"));
  EXPECT_THAT(Rows("SELECT amount FROM orders WHERE id = 2"), ElementsAre("121"));
  r = Run("UPDATE orders SET amount = orders.amount + 1 WHERE orders.id = 1");
  EXPECT_THAT(TextRows(r), ElementsAre("1"));
  r = Run("DELETE FROM orders WHERE orders.id = 3");
  EXPECT_THAT(TextRows(r), ElementsAre("1"));
  EXPECT_THAT(Rows("SELECT id, amount FROM orders ORDER BY id"),
              ElementsAre("1|11", "2|121"));
}

TEST_F(SessionDmlTest, SourceMayBeASubqueryOrView) {
  Run("CREATE TEMP VIEW v AS SELECT id, 'x' AS status, amount FROM changes WHERE id = 4");
  StatementResult r =
      Run("MERGE INTO orders t USING v ON t.id = v.id WHEN NOT MATCHED THEN INSERT *");
  EXPECT_THAT(TextRows(r), ElementsAre("1|0|0|1"));
  r =
      Run("MERGE INTO orders t USING (SELECT 1 AS id) s ON t.id = s.id "
          "WHEN MATCHED THEN DELETE");
  EXPECT_THAT(TextRows(r), ElementsAre("1|0|1|0"));
  EXPECT_THAT(Rows("SELECT id, status FROM orders ORDER BY id"),
              ElementsAre("2|placed", "3|shipped", "4|x"));
}

TEST_F(SessionDmlTest, NotMatchedBySourceClauses) {
  StatementResult r =
      Run("MERGE INTO orders t USING changes s ON t.id = s.id "
          "WHEN NOT MATCHED BY SOURCE AND t.status = 'shipped' THEN DELETE "
          "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET status = 'stale'");
  EXPECT_THAT(TextRows(r), ElementsAre("2|1|1|0"));
  EXPECT_THAT(Rows("SELECT id, status FROM orders ORDER BY id"),
              ElementsAre("1|stale", "2|placed"));
}

TEST_F(SessionDmlTest, UnmatchedSourceColumnFailsByDefaultNamingTable) {
  Run("CREATE TABLE wide AS SELECT CAST(2 AS BIGINT) AS id, 'done' AS status, "
      "22 AS amount, 'AUTUMN10' AS coupon");
  Error e = Fail(
      "MERGE INTO orders t USING wide s ON t.id = s.id "
      "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *");
  EXPECT_EQ(e.code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(e.message, HasSubstr("coupon"));
  EXPECT_THAT(e.message, HasSubstr("WITH SCHEMA EVOLUTION"));
  EXPECT_THAT(e.message, HasSubstr("EXCEPT (coupon)"));
  EXPECT_THAT(e.message, HasSubstr("deltaguard.merge.ignoreUnmatchedSourceColumns"));
  EXPECT_THAT(e.message, HasSubstr("'orders'"));
  EXPECT_THAT(e.message, Not(HasSubstr(path_)));
  EXPECT_EQ(Version(path_), 1);
}

TEST_F(SessionDmlTest, IgnoreSettingTurnsFailureIntoWarning) {
  Run("CREATE TABLE wide AS SELECT CAST(2 AS BIGINT) AS id, 'done' AS status, "
      "22 AS amount, 'AUTUMN10' AS coupon");
  EXPECT_THAT(Rows("SET deltaguard.merge.ignoreUnmatchedSourceColumns = true"),
              ElementsAre("deltaguard.merge.ignoreUnmatchedSourceColumns|true"));
  EXPECT_TRUE(session_.settings().merge_ignore_unmatched_source_columns);
  StatementResult r = Run(
      "MERGE INTO orders t USING wide s ON t.id = s.id WHEN MATCHED THEN UPDATE SET *");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_THAT(r.warnings[0], HasSubstr("coupon"));
  EXPECT_THAT(r.warnings[0], HasSubstr("'orders'"));
  EXPECT_THAT(r.warnings[0], Not(HasSubstr(path_)));
  EXPECT_THAT(r.message, HasSubstr("WARNING: "));
  EXPECT_THAT(TextRows(r), ElementsAre("1|1|0|0"));
  EXPECT_THAT(ColumnNames("SELECT * FROM orders"), ElementsAre("id", "status", "amount"));
  // RESET restores the failure.
  Run("RESET deltaguard.merge.ignoreUnmatchedSourceColumns");
  EXPECT_FALSE(session_.settings().merge_ignore_unmatched_source_columns);
  Fail("MERGE INTO orders t USING wide s ON t.id = s.id WHEN MATCHED THEN UPDATE SET *");
  Error bad = Fail("SET deltaguard.merge.ignoreUnmatchedSourceColumns = maybe");
  EXPECT_THAT(bad.message, HasSubstr("true or false"));
}

TEST_F(SessionDmlTest, EvolutionByClauseOrAutoMergeSetting) {
  Run("CREATE TABLE wide AS SELECT CAST(4 AS BIGINT) AS id, 'new' AS status, "
      "44 AS amount, 'AUTUMN10' AS coupon");
  StatementResult r =
      Run("MERGE WITH SCHEMA EVOLUTION INTO orders t USING wide s ON t.id = s.id "
          "WHEN NOT MATCHED THEN INSERT *");
  EXPECT_THAT(r.message, HasSubstr("added columns [coupon]"));
  EXPECT_THAT(Rows("SELECT id, coupon FROM orders ORDER BY id"),
              ElementsAre("1|NULL", "2|NULL", "3|NULL", "4|AUTUMN10"));

  Run("CREATE TABLE wider AS SELECT CAST(1 AS BIGINT) AS id, 'x' AS channel");
  Fail(
      "MERGE INTO orders t USING wider s ON t.id = s.id WHEN MATCHED THEN UPDATE SET *"
      " EXCEPT (id)");
  Run("SET spark.databricks.delta.schema.autoMerge.enabled = true");
  Run("MERGE INTO orders t USING wider s ON t.id = s.id WHEN MATCHED THEN "
      "UPDATE SET * EXCEPT (id)");
  EXPECT_THAT(Rows("SELECT id, status, channel FROM orders WHERE id = 1"),
              ElementsAre("1|placed|x"));
}

TEST_F(SessionDmlTest, MultipleSourceRowsMatchingOneTargetRowFails) {
  Run("INSERT INTO changes VALUES (2, 'again', 22)");
  Error e = Fail(
      "MERGE INTO orders t USING changes s ON t.id = s.id "
      "WHEN MATCHED THEN UPDATE SET *");
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(e.message, HasSubstr("MULTIPLE_SOURCE_ROW"));
  EXPECT_EQ(Version(path_), 1);
}

TEST_F(SessionDmlTest, UpdateAndDeleteWithoutWhere) {
  EXPECT_THAT(Rows("UPDATE orders SET amount = 0"), ElementsAre("3"));
  EXPECT_THAT(Rows("SELECT DISTINCT amount FROM orders"), ElementsAre("0"));
  StatementResult r = Run("DELETE FROM orders");
  EXPECT_EQ(r.kind, "DELETE");
  EXPECT_THAT(r.message, HasSubstr("from orders (version 3)"));
  EXPECT_THAT(TextRows(r), ElementsAre("3"));
  EXPECT_THAT(Rows("SELECT count(*) FROM orders"), ElementsAre("0"));
  EXPECT_THAT(Column("DESCRIBE HISTORY orders", "operation"),
              ElementsAre("DELETE", "UPDATE", "WRITE", "CREATE TABLE"));
}

TEST_F(SessionDmlTest, UpdateWithAliasAndWhere) {
  StatementResult r =
      Run("UPDATE orders AS o SET o.status = 'late', amount = amount * 2 "
          "WHERE o.status = 'placed'");
  EXPECT_EQ(r.kind, "UPDATE");
  EXPECT_THAT(TextRows(r), ElementsAre("2"));
  EXPECT_THAT(Rows("SELECT id, status, amount FROM orders ORDER BY id"),
              ElementsAre("1|late|20", "2|late|40", "3|shipped|30"));
}

TEST_F(SessionDmlTest, ErrorsNameTheTableAsWritten) {
  Error e = Fail("UPDATE nope SET a = 1");
  EXPECT_EQ(e.code, ErrorCode::kNotFound);
  EXPECT_THAT(e.message, HasSubstr("'nope'"));
  e = Fail("DELETE FROM orders WHERE missing = 1");
  EXPECT_THAT(e.message, HasSubstr("missing"));
  EXPECT_THAT(e.message, Not(HasSubstr(path_)));
  e = Fail("MERGE INTO orders t USING nosuch s ON t.id = s.id WHEN MATCHED THEN DELETE");
  EXPECT_EQ(e.code, ErrorCode::kNotFound);
  EXPECT_THAT(e.message, HasSubstr("nosuch"));
  Run("CREATE TEMP VIEW v AS SELECT 1 AS id");
  e = Fail("DELETE FROM v");
  EXPECT_THAT(e.message, HasSubstr("read-only"));
  EXPECT_EQ(Version(path_), 1);
}

TEST_F(SessionDmlTest, CheckConstraintViolatedByUpdateCommitsNothing) {
  Run("CREATE TABLE c (id INT, qty INT)");
  Run("INSERT INTO c VALUES (1, 5), (2, 6)");
  Run("ALTER TABLE c ADD CONSTRAINT pos CHECK (qty > 0)");
  const std::string c_path = Warehouse() + "/c";
  Error e = Fail("UPDATE c SET qty = qty - 6");
  EXPECT_EQ(e.code, ErrorCode::kConstraintViolation);
  EXPECT_THAT(e.message, HasSubstr("pos"));
  e = Fail(
      "MERGE INTO c USING (SELECT 3 AS id, -1 AS qty) s ON c.id = s.id "
      "WHEN NOT MATCHED THEN INSERT *");
  EXPECT_EQ(e.code, ErrorCode::kConstraintViolation);
  EXPECT_EQ(Version(c_path), 2);
  EXPECT_THAT(Rows("SELECT id, qty FROM c ORDER BY id"), ElementsAre("1|5", "2|6"));
}

}  // namespace
}  // namespace deltaguard
