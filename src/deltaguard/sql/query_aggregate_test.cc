// SELECT engine: GROUP BY, aggregates and their Spark result types, HAVING.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/sql/query.h"
#include "deltaguard/sql/query_test_util_internal.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

class QueryAggregateTest : public testing::QueryFixture {};

TEST_F(QueryAggregateTest, GroupByWithEveryAggregate) {
  CreateOrders();
  auto t = Run(
      "SELECT region, count(*), count(qty), sum(qty), min(name), max(amount), avg(qty), "
      "sum(amount), avg(amount) FROM orders GROUP BY region ORDER BY region");
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_THAT(Names(**t),
              ElementsAre("region", "count(1)", "count(qty)", "sum(qty)", "min(name)",
                          "max(amount)", "avg(qty)", "sum(amount)", "avg(amount)"));
  EXPECT_THAT(Rows(**t), ElementsAre("NULL|1|1|1|dee|1.10|1|1.10|1.100000",
                                     "east|2|1|2|ann|10.50|2|17.50|8.750000",
                                     "west|2|2|8|bob|3.25|4|5.25|2.625000"));
}

TEST_F(QueryAggregateTest, ResultTypesFollowSpark) {
  CreateOrders();
  auto plan = Plan(
      "SELECT count(*), sum(qty), sum(amount), avg(qty), avg(amount), min(amount), "
      "sum(CAST(qty AS DOUBLE)) FROM orders");
  ASSERT_TRUE(plan) << plan.error().ToString();
  const auto& f = plan->schema->fields();
  EXPECT_EQ(f[0].type->ToString(), "long");
  EXPECT_FALSE(f[0].nullable);
  EXPECT_EQ(f[1].type->ToString(), "long");
  EXPECT_EQ(f[2].type->ToString(), "decimal(20,2)");
  EXPECT_EQ(f[3].type->ToString(), "double");
  EXPECT_EQ(f[4].type->ToString(), "decimal(14,6)");
  EXPECT_EQ(f[5].type->ToString(), "decimal(10,2)");
  EXPECT_EQ(f[6].type->ToString(), "double");
}

TEST_F(QueryAggregateTest, AggregatesWithoutGroupByOnEmptyInputGiveOneRow) {
  CreateOrders();
  EXPECT_THAT(Query("SELECT count(*), count(qty), sum(qty), min(name), avg(amount) "
                    "FROM orders WHERE id < 0"),
              ElementsAre("0|0|NULL|NULL|NULL"));
  // With GROUP BY, empty input has no groups.
  EXPECT_TRUE(
      Query("SELECT region, count(*) FROM orders WHERE id < 0 GROUP BY region").empty());
  EXPECT_THAT(Query("SELECT count(*), sum(qty), max(id) FROM orders"),
              ElementsAre("5|11|5"));
}

TEST_F(QueryAggregateTest, CountDistinctAndSumDistinct) {
  CreateOrders();
  EXPECT_THAT(Query("SELECT count(DISTINCT region), count(region), sum(DISTINCT qty % 2) "
                    "FROM orders"),
              ElementsAre("2|4|1"));
  EXPECT_THAT(Query("SELECT region, count(DISTINCT qty % 2) FROM orders "
                    "GROUP BY region ORDER BY region"),
              ElementsAre("NULL|1", "east|1", "west|1"));
}

TEST_F(QueryAggregateTest, HavingWithAggregateAndAlias) {
  CreateOrders();
  EXPECT_THAT(Query("SELECT region, count(*) AS c FROM orders GROUP BY region "
                    "HAVING c > 1 ORDER BY region"),
              ElementsAre("east|2", "west|2"));
  EXPECT_THAT(Query("SELECT region FROM orders GROUP BY region HAVING sum(qty) > 5"),
              ElementsAre("west"));
  // HAVING without GROUP BY: one group.
  EXPECT_TRUE(Query("SELECT count(*) FROM orders HAVING count(*) > 10").empty());
}

TEST_F(QueryAggregateTest, GroupByPositionAliasAndExpression) {
  CreateOrders();
  EXPECT_THAT(Query("SELECT upper(region) AS r, count(*) FROM orders GROUP BY 1 "
                    "ORDER BY 1"),
              ElementsAre("NULL|1", "EAST|2", "WEST|2"));
  EXPECT_THAT(Query("SELECT upper(region) AS r, count(*) FROM orders GROUP BY r "
                    "ORDER BY r DESC"),
              ElementsAre("WEST|2", "EAST|2", "NULL|1"));
  EXPECT_THAT(Query("SELECT id % 2, sum(qty) FROM orders GROUP BY id % 2 ORDER BY 1"),
              ElementsAre("0|6", "1|5"));
  // A group key inside a larger expression.
  EXPECT_THAT(Query("SELECT o.region || '!' AS r FROM orders o WHERE region IS NOT NULL "
                    "GROUP BY region ORDER BY r"),
              ElementsAre("east!", "west!"));
  // ORDER BY an aggregate that is not selected.
  EXPECT_THAT(Query("SELECT region FROM orders GROUP BY region ORDER BY sum(amount)"),
              ElementsAre("NULL", "west", "east"));
}

TEST_F(QueryAggregateTest, MissingAggregationNamesTheColumn) {
  CreateOrders();
  Error e = QueryError("SELECT name, count(*) FROM orders GROUP BY region");
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(e.message, HasSubstr("'name'"));
  EXPECT_THAT(e.message, HasSubstr("GROUP BY"));
  Error no_group = QueryError("SELECT id, count(*) FROM orders");
  EXPECT_EQ(no_group.code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(no_group.message, HasSubstr("'id'"));
  Error having = QueryError("SELECT region FROM orders GROUP BY region HAVING qty > 1");
  EXPECT_THAT(having.message, HasSubstr("'qty'"));
  Error nested = QueryError("SELECT sum(count(*)) FROM orders");
  EXPECT_EQ(nested.code, ErrorCode::kInvalidArgument);
  Error position = QueryError("SELECT count(*) FROM orders GROUP BY 1");
  EXPECT_EQ(position.code, ErrorCode::kInvalidArgument);
  Error range = QueryError("SELECT region FROM orders GROUP BY 2");
  EXPECT_THAT(range.message, HasSubstr("position 2"));
}

TEST_F(QueryAggregateTest, SumOverflowIsAnError) {
  Error e = QueryError("SELECT sum(col1) FROM VALUES (9223372036854775807), (1)");
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(e.message, HasSubstr("overflow"));
}

TEST_F(QueryAggregateTest, MinMaxOfStringsDatesAndDoubles) {
  EXPECT_THAT(Query("SELECT min(col1), max(col1), min(col2), max(col2), max(col3) FROM "
                    "VALUES ('b', DATE '2024-02-01', 1.5D), ('a', DATE '2024-01-01', "
                    "CAST('NaN' AS DOUBLE)), (NULL, NULL, 2D)"),
              ElementsAre("a|b|2024-01-01|2024-02-01|NaN"));
}

TEST_F(QueryAggregateTest, DistinctOverAggregates) {
  CreateOrders();
  EXPECT_THAT(Query("SELECT DISTINCT count(*) FROM orders GROUP BY region ORDER BY 1"),
              ElementsAre("1", "2"));
}

}  // namespace
}  // namespace deltaguard
