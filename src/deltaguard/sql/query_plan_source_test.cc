// QueryPlanSource: a planned query as the input of a write (CTAS, REPLACE AS SELECT,
// INSERT, the MERGE source) carries the plan's Delta schema when the Arrow schema
// carries it exactly, renamed like the Arrow one for INSERT.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/sql/query_test_util_internal.h"
#include "deltaguard/sql/session_internal.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

class QueryPlanSourceTest : public testing::QueryFixture {
 protected:
  QueryPlan MustPlan(const std::string& sql) {
    auto plan = Plan(sql);
    EXPECT_TRUE(plan) << sql << ": " << plan.error().ToString();
    return plan ? std::move(*plan) : QueryPlan{};
  }
};

TEST_F(QueryPlanSourceTest, CarriesThePlansDeltaSchema) {
  QueryPlan plan = MustPlan(
      "SELECT CAST(1 AS BIGINT) AS id, CAST('2024-01-01' AS TIMESTAMP_NTZ) AS at, "
      "CAST(1.5 AS DECIMAL(9,2)) AS amount");
  BatchSource source = internal::QueryPlanSource(plan, "q");
  EXPECT_EQ(source.name, "q");
  EXPECT_EQ(source.schema, plan.arrow_schema);
  ASSERT_NE(source.delta_schema, nullptr);
  EXPECT_EQ(source.delta_schema, plan.schema);
  EXPECT_EQ(source.delta_schema->ToString(),
            "struct<id: long, at: timestamp_ntz, amount: decimal(9,2)>");
  // What the write would have derived from the Arrow schema.
  auto derived = FromArrowSchema(*source.schema);
  ASSERT_TRUE(derived) << derived.error().ToString();
  EXPECT_EQ(SchemaToJson(**derived), SchemaToJson(*source.delta_schema));
}

TEST_F(QueryPlanSourceTest, RenamesTheDeltaSchemaLikeTheArrowOne) {
  QueryPlan plan = MustPlan("SELECT CAST(1 AS INT) AS a, 'x' AS b");
  BatchSource source = internal::QueryPlanSource(plan, "q", {"id", "name"});
  EXPECT_THAT(source.schema->field_names(), ElementsAre("id", "name"));
  ASSERT_NE(source.delta_schema, nullptr);
  EXPECT_EQ(source.delta_schema->ToString(),
            "struct<id: integer, name: string NOT NULL>");
  auto reader = source.open();
  ASSERT_TRUE(reader) << reader.error().ToString();
  EXPECT_THAT((*reader)->schema()->field_names(), ElementsAre("id", "name"));
}

TEST_F(QueryPlanSourceTest, LeavesTheSchemaToBeDerivedWhereArrowDropsPartOfIt) {
  // A nested comment comes with the source table's column type; a write derives the
  // schema without it, as before.
  CreateTableNamed("nested", "s STRUCT<a: INT COMMENT 'inner'>, v VARIANT");
  EXPECT_EQ(internal::QueryPlanSource(MustPlan("SELECT s FROM nested"), "q").delta_schema,
            nullptr);
  EXPECT_EQ(internal::QueryPlanSource(MustPlan("SELECT v FROM nested"), "q").delta_schema,
            nullptr);
  EXPECT_NE(
      internal::QueryPlanSource(MustPlan("SELECT s.a FROM nested"), "q").delta_schema,
      nullptr);
}

}  // namespace
}  // namespace deltaguard
