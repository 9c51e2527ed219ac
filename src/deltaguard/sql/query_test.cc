// SELECT engine: projections, names, WHERE, qualifiers, ORDER BY, LIMIT, VALUES.

#include "deltaguard/sql/query.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/sql/query_test_util_internal.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

class QueryTest : public testing::QueryFixture {};

TEST_F(QueryTest, SelectWithoutFromIsOneRowNamedAsSpark) {
  auto t = Run("SELECT 1 AS one, 'x', 1 + 2, count(*), upper('a')");
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_THAT(Names(**t), ElementsAre("one", "x", "(1 + 2)", "count(1)", "upper(a)"));
  EXPECT_THAT(Rows(**t), ElementsAre("1|x|3|1|A"));
}

TEST_F(QueryTest, ProjectionWhereAndOutputNames) {
  CreateOrders();
  auto t = Run("SELECT id, amount * 2, upper(name) AS n FROM orders WHERE qty >= 2");
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_THAT(Names(**t), ElementsAre("id", "(amount * 2)", "n"));
  EXPECT_THAT(Rows(**t), ElementsAre("1|21.00|ANN", "2|6.50|BOB", "5|4.00|EVE"));
  // The column keeps the table's spelling; the plan's schema has Delta types.
  auto plan = Plan("SELECT ID, amount FROM orders");
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->schema->field(0).name, "id");
  EXPECT_EQ(plan->schema->field(1).type->ToString(), "decimal(10,2)");
  EXPECT_EQ(plan->source_name, "orders version 1");
}

TEST_F(QueryTest, WhereWithNullIsFalse) {
  CreateOrders();
  EXPECT_THAT(Query("SELECT id FROM orders WHERE region = 'east' OR qty > 4"),
              ElementsAre("1", "2", "3"));
  EXPECT_THAT(Query("SELECT id FROM orders WHERE region <> 'east'"),
              ElementsAre("2", "5"));  // NULL region: neither = nor <>
}

TEST_F(QueryTest, QualifiedColumnsByAliasTableAndDatabase) {
  CreateOrders();
  EXPECT_THAT(Query("SELECT o.id FROM orders o WHERE o.qty = 5"), ElementsAre("2"));
  EXPECT_THAT(Query("SELECT orders.id FROM orders WHERE orders.id = 4"),
              ElementsAre("4"));
  EXPECT_THAT(Query("SELECT default.orders.id FROM default.orders WHERE id = 3"),
              ElementsAre("3"));
  Error e = QueryError("SELECT x.id FROM orders o");
  EXPECT_EQ(e.code, ErrorCode::kNotFound) << e.ToString();
}

TEST_F(QueryTest, StarAndStarExcept) {
  CreateOrders();
  auto t = Run("SELECT * EXCEPT (amount, NAME) FROM orders WHERE id = 1");
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_THAT(Names(**t), ElementsAre("id", "region", "qty"));
  EXPECT_THAT(Rows(**t), ElementsAre("1|east|2"));
  EXPECT_THAT(Query("SELECT o.* FROM orders o WHERE id = 2"),
              ElementsAre("2|west|5|3.25|bob"));
  Error e = QueryError("SELECT * EXCEPT (nope) FROM orders");
  EXPECT_EQ(e.code, ErrorCode::kNotFound);
  EXPECT_THAT(e.message, HasSubstr("nope"));
}

TEST_F(QueryTest, SemanticErrorsNameColumnAndTypes) {
  CreateOrders();
  Error missing = QueryError("SELECT nope FROM orders");
  EXPECT_EQ(missing.code, ErrorCode::kNotFound);
  EXPECT_THAT(missing.message, HasSubstr("nope"));
  Error types = QueryError("SELECT id FROM orders WHERE name > DATE '2024-01-01'");
  EXPECT_EQ(types.code, ErrorCode::kSchemaMismatch) << types.ToString();
  EXPECT_THAT(types.message, HasSubstr("name"));
  Error table = QueryError("SELECT * FROM no_such_table");
  EXPECT_EQ(table.code, ErrorCode::kNotFound);
  EXPECT_THAT(table.message, HasSubstr("no_such_table"));
  Error db = QueryError("SELECT * FROM nodb.t");
  EXPECT_EQ(db.code, ErrorCode::kNotFound);
  EXPECT_THAT(db.message, HasSubstr("nodb"));
  Error agg = QueryError("SELECT id FROM orders WHERE count(*) > 1");
  EXPECT_EQ(agg.code, ErrorCode::kInvalidArgument);
}

TEST_F(QueryTest, PlanningReadsNoData) {
  std::string path = CreateOrders();
  // Delete the data files: planning still succeeds (schema from the log), running
  // fails naming the file.
  for (const auto& entry : std::filesystem::directory_iterator(path)) {
    if (entry.path().extension() == ".parquet") std::filesystem::remove(entry.path());
  }
  auto plan = Plan("SELECT id FROM orders");
  ASSERT_TRUE(plan) << plan.error().ToString();
  EXPECT_EQ(plan->schema->num_fields(), 1u);
  auto rows = CollectQuery(*plan);
  ASSERT_FALSE(rows);
  EXPECT_THAT(rows.error().message, HasSubstr(".parquet"));
}

TEST_F(QueryTest, OrderByNullsDefaultFirstForAscLastForDesc) {
  CreateOrders();
  EXPECT_THAT(Query("SELECT qty FROM orders ORDER BY qty"),
              ElementsAre("NULL", "1", "2", "3", "5"));
  EXPECT_THAT(Query("SELECT qty FROM orders ORDER BY qty DESC"),
              ElementsAre("5", "3", "2", "1", "NULL"));
  EXPECT_THAT(Query("SELECT qty FROM orders ORDER BY qty ASC NULLS LAST"),
              ElementsAre("1", "2", "3", "5", "NULL"));
  EXPECT_THAT(Query("SELECT qty FROM orders ORDER BY qty DESC NULLS FIRST"),
              ElementsAre("NULL", "5", "3", "2", "1"));
}

TEST_F(QueryTest, OrderByPositionAliasHiddenExpressionAndSeveralKeys) {
  CreateOrders();
  EXPECT_THAT(Query("SELECT name, id FROM orders ORDER BY 2 DESC LIMIT 2"),
              ElementsAre("eve|5", "dee|4"));
  EXPECT_THAT(Query("SELECT id AS k FROM orders ORDER BY k DESC LIMIT 1"),
              ElementsAre("5"));
  // ORDER BY a column that is not selected.
  EXPECT_THAT(Query("SELECT name FROM orders ORDER BY amount"),
              ElementsAre("dee", "eve", "bob", "cid", "ann"));
  EXPECT_THAT(Query("SELECT region, id FROM orders ORDER BY region DESC, id DESC"),
              ElementsAre("west|5", "west|2", "east|3", "east|1", "NULL|4"));
  Error e = QueryError("SELECT id FROM orders ORDER BY 3");
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(e.message, HasSubstr("position 3"));
}

TEST_F(QueryTest, OrderByNaNIsLargest) {
  EXPECT_THAT(Query("SELECT * FROM VALUES (CAST('NaN' AS DOUBLE)), (1.5D), (NULL), (-2D) "
                    "ORDER BY col1"),
              ElementsAre("NULL", "-2", "1.5", "NaN"));
  EXPECT_THAT(Query("SELECT * FROM VALUES (CAST('NaN' AS DOUBLE)), (1.5D), (NULL), (-2D) "
                    "ORDER BY col1 DESC"),
              ElementsAre("NaN", "1.5", "-2", "NULL"));
}

TEST_F(QueryTest, LimitAndDistinct) {
  CreateOrders();
  EXPECT_EQ(Query("SELECT id FROM orders LIMIT 2").size(), 2u);
  EXPECT_TRUE(Query("SELECT id FROM orders LIMIT 0").empty());
  EXPECT_THAT(Query("SELECT DISTINCT region FROM orders ORDER BY region"),
              ElementsAre("NULL", "east", "west"));
  EXPECT_THAT(Query("SELECT DISTINCT region FROM orders ORDER BY region LIMIT 1"),
              ElementsAre("NULL"));
  Error e = QueryError("SELECT DISTINCT region FROM orders ORDER BY id");
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
}

TEST_F(QueryTest, ValuesCommonTypesAndNames) {
  auto t = Run("VALUES (1, 2, NULL, 'a'), (2147483648, 3, 4, 'b')");
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_THAT(Names(**t), ElementsAre("col1", "col2", "col3", "col4"));
  EXPECT_EQ((*t)->schema()->field(0)->type()->ToString(), "int64");  // INT, BIGINT
  EXPECT_EQ((*t)->schema()->field(1)->type()->ToString(), "int32");
  EXPECT_EQ((*t)->schema()->field(2)->type()->ToString(), "int32");  // NULL, INT
  EXPECT_THAT(Rows(**t), ElementsAre("1|2|NULL|a", "2147483648|3|4|b"));
  auto aliased =
      Run("SELECT b, a FROM VALUES (1, 'x'), (2, 'y') AS t(a, b) WHERE t.a = 2");
  ASSERT_TRUE(aliased) << aliased.error().ToString();
  EXPECT_THAT(Names(**aliased), ElementsAre("b", "a"));
  EXPECT_THAT(Rows(**aliased), ElementsAre("y|2"));
  Error arity = QueryError("VALUES (1, 2), (3)");
  EXPECT_EQ(arity.code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(arity.message, HasSubstr("row 2"));
  Error aliases = QueryError("SELECT * FROM VALUES (1, 2) AS t(a)");
  EXPECT_EQ(aliases.code, ErrorCode::kInvalidArgument);
}

TEST_F(QueryTest, ValuesTypedByInsertTarget) {
  auto target =
      ParseDdlSchema("b TINYINT, d DATE, x DECIMAL(5,2), ts TIMESTAMP, s STRING");
  ASSERT_TRUE(target);
  PlanOptions options;
  options.values_target = target->get();
  auto t =
      Run("VALUES (1, '2024-01-02', '1.5', '2024-01-02 03:04:05', 'x'), "
          "(NULL, NULL, 2, NULL, NULL)",
          options);
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_EQ((*t)->schema()->ToString(),
            "col1: int8\ncol2: date32[day]\ncol3: decimal128(5, 2)\n"
            "col4: timestamp[us, tz=UTC]\ncol5: string");
  EXPECT_THAT(Rows(**t), ElementsAre("1|2024-01-02|1.50|2024-01-02T03:04:05.000000Z|x",
                                     "NULL|NULL|2.00|NULL|NULL"));
  // SELECT * over VALUES is typed the same way.
  auto star = Run("SELECT * FROM VALUES (7, '2024-01-02', 1, NULL, 'y')", options);
  ASSERT_TRUE(star) << star.error().ToString();
  EXPECT_EQ((*star)->schema()->field(0)->type()->ToString(), "int8");
  // Values that do not fit are errors naming row, column and both types, never NULL.
  auto too_big =
      Run("VALUES (1, NULL, 1, NULL, 'a'), (300, NULL, 1, NULL, 'b')", options);
  ASSERT_FALSE(too_big);
  EXPECT_EQ(too_big.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(too_big.error().message, HasSubstr("row 2, column 1 ('b')"));
  EXPECT_THAT(too_big.error().message, HasSubstr("300 (integer)"));
  EXPECT_THAT(too_big.error().message, HasSubstr("byte"));
  auto scale = Run("VALUES (1, NULL, 1.234, NULL, 'a')", options);
  ASSERT_FALSE(scale);
  EXPECT_THAT(scale.error().message, HasSubstr("column 3 ('x')"));
  auto date = Run("VALUES (1, 'not a date', 1, NULL, 'a')", options);
  ASSERT_FALSE(date);
  EXPECT_THAT(date.error().message, HasSubstr("column 2 ('d')"));
}

TEST_F(QueryTest, CurrentTimestampIsTheStatementInstant) {
  EXPECT_THAT(Query("SELECT current_timestamp(), current_date()"),
              ElementsAre("2023-11-14T22:13:20.000000Z|2023-11-14"));
}

TEST_F(QueryTest, SubqueryAndTempView) {
  CreateOrders();
  EXPECT_THAT(Query("SELECT s.k FROM (SELECT id * 10 AS k FROM orders WHERE qty > 2) s "
                    "ORDER BY k"),
              ElementsAre("20", "50"));
  views_["orders"] = std::make_shared<SelectStmt>(ParseSelect("SELECT 42 AS answer"));
  EXPECT_THAT(Query("SELECT answer FROM ORDERS"), ElementsAre("42"));  // view wins
  EXPECT_THAT(Query("SELECT count(*) FROM default.orders"), ElementsAre("5"));
  views_["loop"] = std::make_shared<SelectStmt>(ParseSelect("SELECT * FROM loop"));
  Error e = QueryError("SELECT * FROM loop");
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
}

TEST_F(QueryTest, JoinedColumnsAreNamedAsShownInsideExpressions) {
  auto t =
      Run("SELECT sum(a.id + b.id), a.id + 1, max(b.id), b.id FROM range(3) a JOIN "
          "range(3) b "
          "ON a.id = b.id GROUP BY a.id + 1, b.id");
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_THAT(Names(**t), ElementsAre("sum((id + id))", "(id + 1)", "max(id)", "id"));
}

TEST_F(QueryTest, CorrelatedScalarSubqueriesAreNamedAfterTheirOuterReferences) {
  auto t =
      Run("SELECT (SELECT sum(x) FROM VALUES (1, 5), (1, 6) AS o(k, x) WHERE o.k = c.k), "
          "(SELECT count(*) FROM VALUES (1, 5) AS o(k, x) WHERE c.k = o.k) + 0 "
          "FROM VALUES (1), (2) AS c(k) ORDER BY 2");
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_THAT(Names(**t), ElementsAre("scalarsubquery(k)", "(scalarsubquery(k) + 0)"));
  EXPECT_THAT(Rows(**t), ElementsAre("NULL|0", "11|1"));
}

}  // namespace
}  // namespace deltaguard
