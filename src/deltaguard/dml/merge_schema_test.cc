// MERGE schema rules (docs/decisions.md §3): the coupon case, EXCEPT, the downgrade
// setting, evolution of top-level and nested columns, type widening, casts and NOT NULL.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/dml/merge.h"
#include "testing/matchers.h"
#include "testing/table_fixture.h"

namespace deltaguard {
namespace {

constexpr char kOrders[] = "order_id BIGINT, status STRING, channel STRING";
constexpr char kChanges[] =
    "order_id BIGINT, status STRING, channel STRING, coupon STRING";

std::string Orders(const TempDir& dir) {
  std::string path = dir.Join("orders");
  MakeTable(path, kOrders,
            {R"([{"order_id":1006,"status":"placed","channel":"web"},)"
             R"({"order_id":1008,"status":"placed","channel":"web"}])"});
  return path;
}

MergeBuilder Coupon(const std::string& path, int64_t id) {
  return std::move(
      MergeBuilder(
          MakeLocalFileSystem(), path,
          JsonSource(kChanges, fmt::format(R"([{{"order_id":{},"status":"delivered",)"
                                           R"("channel":"web","coupon":"AUTUMN10"}}])",
                                           id)),
          "t.order_id = s.order_id", "t", "s")
          .WhenMatchedUpdateAll()
          .WhenNotMatchedInsertAll());
}

TEST(MergeSchemaTest, CouponFailsByDefaultListingTheWaysOut) {
  TempDir dir;
  std::string path = Orders(dir);
  auto files = testing::ParquetFiles(path);
  auto r = Coupon(path, 1006).Execute();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(r.error().message, HasSubstr("[coupon]"));
  EXPECT_THAT(r.error().message, HasSubstr("WITH SCHEMA EVOLUTION"));
  EXPECT_THAT(r.error().message, HasSubstr("EXCEPT (coupon)"));
  EXPECT_THAT(r.error().message, HasSubstr(kMergeIgnoreUnmatchedSourceColumnsSetting));
  EXPECT_EQ(testing::Version(path), 1);
  EXPECT_EQ(testing::ParquetFiles(path), files);
}

TEST(MergeSchemaTest, CouponWithEvolutionAddsTheColumn) {
  TempDir dir;
  std::string path = Orders(dir);
  auto r = Coupon(path, 1007).WithSchemaEvolution().Execute();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_THAT(r->added_columns, ElementsAre("coupon"));
  EXPECT_THAT(Dump(path),
              ElementsAre("order_id,status,channel,coupon", "1006|placed|web|null",
                          "1007|delivered|web|AUTUMN10", "1008|placed|web|null"));
  // The session's autoMerge setting turns evolution on too.
  SessionSettings session;
  session.auto_merge = true;
  TempDir dir2;
  std::string path2 = Orders(dir2);
  auto r2 = Coupon(path2, 1006).Execute(session);
  ASSERT_TRUE(r2) << r2.error().ToString();
  EXPECT_THAT(Dump(path2),
              ElementsAre("order_id,status,channel,coupon", "1006|delivered|web|AUTUMN10",
                          "1008|placed|web|null"));
}

TEST(MergeSchemaTest, CouponWithExceptDropsItDeliberately) {
  TempDir dir;
  std::string path = Orders(dir);
  auto r =
      MergeBuilder(MakeLocalFileSystem(), path,
                   JsonSource(kChanges,
                              R"([{"order_id":1006,"status":"delivered","channel":"app",)"
                              R"("coupon":"X"}])"),
                   "t.order_id = s.order_id", "t", "s")
          .WhenMatchedUpdateAll("", {"coupon"})
          .WhenNotMatchedInsertAll("", {"s.coupon"})
          .Execute();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_TRUE(r->ignored_source_columns.empty());
  EXPECT_THAT(Dump(path), ElementsAre("order_id,status,channel", "1006|delivered|app",
                                      "1008|placed|web"));
}

TEST(MergeSchemaTest, CouponWithDowngradeSettingWarns) {
  TempDir dir;
  std::string path = Orders(dir);
  auto r = Coupon(path, 1006).IgnoreUnmatchedSourceColumns().Execute();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_THAT(r->ignored_source_columns, ElementsAre("coupon"));
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_THAT(r->warnings[0], HasSubstr("coupon"));
  EXPECT_EQ(r->num_target_rows_updated, 1);
  EXPECT_THAT(Dump(path), ElementsAre("order_id,status,channel", "1006|delivered|web",
                                      "1008|placed|web"));
  EXPECT_THAT(testing::CommitInfo(path, r->version),
              HasSubstr(R"("ignoredSourceColumns":"[\"coupon\"]")"));
}

TEST(MergeSchemaTest, StarWithoutEvolutionNeedsEveryTargetColumn) {
  TempDir dir;
  std::string path = Orders(dir);
  auto r = MergeBuilder(MakeLocalFileSystem(), path,
                        JsonSource("order_id BIGINT, status STRING",
                                   R"([{"order_id":1006,"status":"x"}])"),
                        "t.order_id = s.order_id", "t", "s")
               .WhenMatchedUpdateAll()
               .Execute();
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("DELTA_MERGE_UNRESOLVED_EXPRESSION"));
  EXPECT_THAT(r.error().message, HasSubstr("channel"));
  // With evolution an UPDATE SET * keeps the target-only column.
  auto ok =
      MergeBuilder(
          MakeLocalFileSystem(), path,
          JsonSource("order_id BIGINT, status STRING",
                     R"([{"order_id":1006,"status":"x"},{"order_id":1,"status":"n"}])"),
          "t.order_id = s.order_id", "t", "s")
          .WhenMatchedUpdateAll()
          .WhenNotMatchedInsertAll()
          .WithSchemaEvolution()
          .Execute();
  ASSERT_TRUE(ok) << ok.error().ToString();
  EXPECT_THAT(Dump(path), ElementsAre("order_id,status,channel", "1006|x|web",
                                      "1008|placed|web", "1|n|null"));
}

TEST(MergeSchemaTest, NestedStructFieldsEvolveAlsoInsideArrays) {
  TempDir dir;
  std::string path = dir.Join("t");
  MakeTable(path,
            "id BIGINT, customer STRUCT<name: STRING>, items ARRAY<STRUCT<sku: STRING>>",
            {R"([{"id":1,"customer":{"name":"ann"},"items":[{"sku":"a"}]}])"});
  constexpr char kSource[] =
      "id BIGINT, customer STRUCT<name: STRING, tier: STRING>, "
      "items ARRAY<STRUCT<sku: STRING, qty: INT>>";
  const std::string rows =
      R"([{"id":1,"customer":{"name":"ann","tier":"gold"},)"
      R"("items":[{"sku":"a","qty":2}]},)"
      R"({"id":2,"customer":{"name":"bob","tier":"std"},"items":[]}])";
  auto refused = MergeBuilder(MakeLocalFileSystem(), path, JsonSource(kSource, rows),
                              "t.id = s.id", "t", "s")
                     .WhenMatchedUpdateAll()
                     .WhenNotMatchedInsertAll()
                     .Execute();
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message, HasSubstr("customer.tier"));
  EXPECT_THAT(refused.error().message, HasSubstr("items.element.qty"));

  auto r = MergeBuilder(MakeLocalFileSystem(), path, JsonSource(kSource, rows),
                        "t.id = s.id", "t", "s")
               .WhenMatchedUpdateAll()
               .WhenNotMatchedInsertAll()
               .WithSchemaEvolution()
               .Execute();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_THAT(r->added_columns, ElementsAre("customer.tier", "items.element.qty"));
  auto snapshot = OpenSnapshot(path);
  ASSERT_TRUE(snapshot);
  EXPECT_EQ((*snapshot)->schema()->ToString(),
            "struct<id: long, customer: struct<name: string, tier: string>, items: "
            "array<struct<sku: string, qty: integer>>>");
  auto dump = Dump(path);
  ASSERT_EQ(dump.size(), 3u);
  EXPECT_THAT(dump[1], HasSubstr("gold"));
  EXPECT_THAT(dump[2], HasSubstr("bob"));

  // The downgrade setting drops the nested field it cannot store.
  TempDir dir2;
  std::string path2 = dir2.Join("t");
  MakeTable(path2, "id BIGINT, customer STRUCT<name: STRING>",
            {R"([{"id":1,"customer":{"name":"ann"}}])"});
  auto ignored =
      MergeBuilder(MakeLocalFileSystem(), path2,
                   JsonSource("id BIGINT, customer STRUCT<name: STRING, tier: STRING>",
                              R"([{"id":1,"customer":{"name":"eve","tier":"x"}}])"),
                   "t.id = s.id", "t", "s")
          .WhenMatchedUpdateAll()
          .IgnoreUnmatchedSourceColumns()
          .Execute();
  ASSERT_TRUE(ignored) << ignored.error().ToString();
  EXPECT_THAT(ignored->ignored_source_columns, ElementsAre("customer.tier"));
  auto dump2 = Dump(path2);
  ASSERT_EQ(dump2.size(), 2u);
  EXPECT_THAT(dump2[1], HasSubstr("eve"));
}

TEST(MergeSchemaTest, TypeWideningThroughMerge) {
  constexpr char kSource[] = "id BIGINT, qty BIGINT";
  const std::string rows = R"([{"id":1,"qty":5000000000}])";
  TempDir dir;
  std::string path = dir.Join("t");
  MakeTable(path, "id BIGINT, qty INT", {R"([{"id":1,"qty":1},{"id":2,"qty":2}])"}, {},
            {{"delta.enableTypeWidening", "true"}});
  // Without evolution a long does not fit an int column: refused before writing.
  auto refused = MergeBuilder(MakeLocalFileSystem(), path, JsonSource(kSource, rows),
                              "t.id = s.id", "t", "s")
                     .WhenMatchedUpdateAll()
                     .Execute();
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message, HasSubstr("qty"));
  auto r = MergeBuilder(MakeLocalFileSystem(), path, JsonSource(kSource, rows),
                        "t.id = s.id", "t", "s")
               .WhenMatchedUpdateAll()
               .WithSchemaEvolution()
               .Execute();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_THAT(r->widened_columns, ElementsAre(HasSubstr("qty")));
  EXPECT_THAT(Dump(path), ElementsAre("id,qty", "1|5000000000", "2|2"));
  auto snapshot = OpenSnapshot(path);
  ASSERT_TRUE(snapshot);
  EXPECT_EQ((*snapshot)->schema()->field(1).type->kind(), TypeKind::kLong);
  // Lossless casts need no evolution: an int source into a long target.
  auto narrow = MergeBuilder(MakeLocalFileSystem(), path,
                             JsonSource("id BIGINT, qty INT", R"([{"id":2,"qty":7}])"),
                             "t.id = s.id", "t", "s")
                    .WhenMatchedUpdateAll()
                    .Execute();
  ASSERT_TRUE(narrow) << narrow.error().ToString();
  EXPECT_THAT(Dump(path), ElementsAre("id,qty", "1|5000000000", "2|7"));
}

TEST(MergeSchemaTest, TypeChangeWithoutWideningPropertyFails) {
  TempDir dir;
  std::string path = dir.Join("t");
  MakeTable(path, "id BIGINT, qty INT", {R"([{"id":1,"qty":1}])"});
  auto r = MergeBuilder(MakeLocalFileSystem(), path,
                        JsonSource("id BIGINT, qty BIGINT", R"([{"id":1,"qty":5}])"),
                        "t.id = s.id", "t", "s")
               .WhenMatchedUpdateAll()
               .WithSchemaEvolution()
               .Execute();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(r.error().message, HasSubstr("DELTA_FAILED_TO_MERGE_FIELDS"));
}

TEST(MergeSchemaTest, ExplicitNumericAssignmentIsACheckedCast) {
  TempDir dir;
  std::string path = dir.Join("t");
  MakeTable(path, "id BIGINT, small SMALLINT",
            {R"([{"id":1,"small":1},{"id":2,"small":2}])"});
  auto ok = MergeBuilder(MakeLocalFileSystem(), path,
                         JsonSource("id BIGINT, big BIGINT", R"([{"id":1,"big":300}])"),
                         "t.id = s.id", "t", "s")
                .WhenMatchedUpdate("", {{"small", "s.big"}})
                .Execute();
  ASSERT_TRUE(ok) << ok.error().ToString();
  EXPECT_THAT(Dump(path), ElementsAre("id,small", "1|300", "2|2"));
  auto overflow =
      MergeBuilder(MakeLocalFileSystem(), path,
                   JsonSource("id BIGINT, big BIGINT", R"([{"id":2,"big":70000}])"),
                   "t.id = s.id", "t", "s")
          .WhenMatchedUpdate("", {{"small", "s.big"}})
          .Execute();
  ASSERT_FALSE(overflow);
  EXPECT_THAT(Dump(path), ElementsAre("id,small", "1|300", "2|2"));
  // A string cannot become a number.
  auto text = MergeBuilder(MakeLocalFileSystem(), path,
                           JsonSource("id BIGINT, s STRING", R"([{"id":2,"s":"7"}])"),
                           "t.id = src.id", "t", "src")
                  .WhenMatchedUpdate("", {{"small", "src.s"}})
                  .Execute();
  ASSERT_FALSE(text);
  EXPECT_THAT(text.error().message, HasSubstr("small"));
}

TEST(MergeSchemaTest, NotNullViolatedByUpdateCommitsNothing) {
  TempDir dir;
  std::string path = dir.Join("t");
  MakeTable(path, "id BIGINT NOT NULL, name STRING NOT NULL",
            {R"([{"id":1,"name":"a"},{"id":2,"name":"b"}])"});
  auto files = testing::ParquetFiles(path);
  auto r = MergeBuilder(MakeLocalFileSystem(), path,
                        JsonSource("id BIGINT, name STRING",
                                   R"([{"id":1,"name":"x"},{"id":2,"name":null}])"),
                        "t.id = s.id", "t", "s")
               .WhenMatchedUpdate("", {{"name", "s.name"}})
               .Execute();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kConstraintViolation);
  EXPECT_THAT(r.error().message, HasSubstr("name"));
  EXPECT_EQ(testing::Version(path), 1);
  EXPECT_EQ(testing::ParquetFiles(path), files);
  // An INSERT that leaves a NOT NULL column out fails the same way.
  auto insert =
      MergeBuilder(MakeLocalFileSystem(), path,
                   JsonSource("id BIGINT, name STRING", R"([{"id":3,"name":"c"}])"),
                   "t.id = s.id", "t", "s")
          .WhenNotMatchedInsert("", {{"id", "s.id"}})
          .Execute();
  ASSERT_FALSE(insert);
  EXPECT_EQ(insert.error().code, ErrorCode::kConstraintViolation);
  EXPECT_EQ(testing::ParquetFiles(path), files);
}

TEST(MergeSchemaTest, ExplicitAssignmentToNewColumnNeedsEvolution) {
  TempDir dir;
  std::string path = dir.Join("t");
  MakeTable(path, "id BIGINT", {R"([{"id":1}])"});
  auto source = [] {
    return JsonSource("id BIGINT, note STRING", R"([{"id":1,"note":"n"}])");
  };
  auto refused =
      MergeBuilder(MakeLocalFileSystem(), path, source(), "t.id = s.id", "t", "s")
          .WhenMatchedUpdate("", {{"note", "s.note"}})
          .Execute();
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kNotFound);
  auto r = MergeBuilder(MakeLocalFileSystem(), path, source(), "t.id = s.id", "t", "s")
               .WhenMatchedUpdate("", {{"t.note", "s.note"}})
               .WithSchemaEvolution()
               .Execute();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_THAT(Dump(path), ElementsAre("id,note", "1|n"));
}

}  // namespace
}  // namespace deltaguard

namespace deltaguard {
namespace {

// Spark (docs/spark_semantics.md §5.6, with evolution): UPDATE SET * keeps the current
// value of a nested field only the target has; INSERT * leaves it NULL.
TEST(MergeSchemaTest, UpdateAllKeepsTargetOnlyNestedFields) {
  TempDir dir;
  std::string path = dir.Join("t");
  MakeTable(path, "id BIGINT, customer STRUCT<name: STRING, vip: BOOLEAN>",
            {R"([{"id":1,"customer":{"name":"ann","vip":true}}])"});
  auto r =
      MergeBuilder(MakeLocalFileSystem(), path,
                   JsonSource("id BIGINT, customer STRUCT<name: STRING, tier: STRING>",
                              R"([{"id":1,"customer":{"name":"eve","tier":"gold"}},)"
                              R"({"id":2,"customer":{"name":"bob","tier":"std"}}])"),
                   "t.id = s.id", "t", "s")
          .WhenMatchedUpdateAll()
          .WhenNotMatchedInsertAll()
          .WithSchemaEvolution()
          .Execute();
  ASSERT_TRUE(r) << r.error().ToString();
  auto dump = Dump(path);
  ASSERT_EQ(dump.size(), 3u) << ::testing::PrintToString(dump);  // header + 2
  EXPECT_EQ(dump[1], "1|{name:string = eve, vip:bool = true, tier:string = gold}");
  EXPECT_EQ(dump[2], "2|{name:string = bob, vip:bool = null, tier:string = std}");
}

// SET t.s.f = s.x replaces one nested field and keeps the others (Spark).
TEST(MergeSchemaTest, NestedFieldAssignmentInMatchedUpdate) {
  TempDir dir;
  std::string path = dir.Join("t");
  MakeTable(
      path, "id BIGINT, customer STRUCT<name: STRING, vip: BOOLEAN>",
      {R"([{"id":1,"customer":{"name":"ann","vip":true}},{"id":2,"customer":null}])"});
  auto source = [] {
    return JsonSource("id BIGINT, name STRING",
                      R"([{"id":1,"name":"eve"},{"id":2,"name":"bob"}])");
  };
  auto r = MergeBuilder(MakeLocalFileSystem(), path, source(), "t.id = s.id", "t", "s")
               .WhenMatchedUpdate("", {{"t.customer.name", "upper(s.name)"}})
               .Execute();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->num_target_rows_updated, 2);
  auto dump = Dump(path);
  ASSERT_EQ(dump.size(), 3u) << ::testing::PrintToString(dump);
  EXPECT_EQ(dump[1], "1|{name:string = EVE, vip:bool = true}");
  EXPECT_EQ(dump[2], "2|{name:string = BOB, vip:bool = null}");

  auto missing =
      MergeBuilder(MakeLocalFileSystem(), path, source(), "t.id = s.id", "t", "s")
          .WhenMatchedUpdate("", {{"customer.tier", "s.name"}})
          .Execute();
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(missing.error().message, HasSubstr("customer.tier"));
  auto both = MergeBuilder(MakeLocalFileSystem(), path, source(), "t.id = s.id", "t", "s")
                  .WhenMatchedUpdate(
                      "", {{"customer", "t.customer"}, {"customer.name", "s.name"}})
                  .Execute();
  ASSERT_FALSE(both);
  EXPECT_THAT(both.error().message, HasSubstr("both as a whole"));
}

// The source's Delta schema, when its producer supplies one, is the MERGE source schema
// (the batches are conformed to it): a column added by evolution takes its type from
// there, not from the Arrow batches (INT here, declared BIGINT).
TEST(MergeSchemaTest, EvolutionTakesTheSuppliedSourceSchema) {
  TempDir dir;
  std::string path = Orders(dir);
  BatchSource source =
      JsonSource("order_id BIGINT, status STRING, channel STRING, points INT",
                 R"([{"order_id":1007,"status":"placed","channel":"web","points":5}])");
  source.delta_schema =
      testing::Ddl("order_id BIGINT, status STRING, channel STRING, points BIGINT");
  auto r = MergeBuilder(MakeLocalFileSystem(), path, std::move(source),
                        "t.order_id = s.order_id", "t", "s")
               .WhenNotMatchedInsertAll()
               .WithSchemaEvolution()
               .Execute();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_THAT(r->added_columns, ElementsAre("points"));
  auto snapshot = OpenSnapshot(path);
  ASSERT_TRUE(snapshot) << snapshot.error().ToString();
  EXPECT_EQ((*snapshot)->schema()->field(3).type->ToString(), "long");
  EXPECT_THAT(Dump(path),
              ElementsAre("order_id,status,channel,points", "1006|placed|web|null",
                          "1007|placed|web|5", "1008|placed|web|null"));
}

}  // namespace
}  // namespace deltaguard
