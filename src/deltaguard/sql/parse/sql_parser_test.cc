// Statement forms of the SQL parser: one test per statement (errors, scripts and the
// fuzz test are in sql_parser_error_test.cc).

#include "deltaguard/sql/parse/sql_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "deltaguard/expr/printer.h"
#include "deltaguard/sql/parse/parser_test_util_internal.h"

namespace deltaguard {
namespace {

using testing::ParseAs;
using testing::Sql;

TEST(SqlParserSelect, ItemsRoundTripThroughToSql) {
  auto s = ParseAs<SelectStmt>(
      "select a + 1 AS x, lower(name) n, `weird col`, "
      "CASE WHEN a > 1 THEN 'big' ELSE 'small' END size, cast(a as bigint), "
      "count(DISTINCT b), amount * (1 - discount) net FROM t");
  ASSERT_EQ(s.items.size(), 7u);
  EXPECT_EQ(Sql(s.items[0].expr), "a + 1");
  EXPECT_EQ(s.items[0].alias, "x");
  EXPECT_EQ(s.items[0].text, "a + 1");
  EXPECT_EQ(Sql(s.items[1].expr), "lower(name)");
  EXPECT_EQ(s.items[1].alias, "n");
  EXPECT_EQ(Sql(s.items[2].expr), "`weird col`");
  EXPECT_EQ(s.items[2].alias, "");
  EXPECT_EQ(Sql(s.items[3].expr), "CASE WHEN a > 1 THEN 'big' ELSE 'small' END");
  EXPECT_EQ(s.items[3].alias, "size");
  EXPECT_EQ(Sql(s.items[4].expr), "CAST(a AS BIGINT)");
  EXPECT_EQ(s.items[4].text, "cast(a as bigint)");
  EXPECT_EQ(Sql(s.items[5].expr), "count(DISTINCT b)");
  EXPECT_EQ(Sql(s.items[6].expr), "amount * (1 - discount)");
  EXPECT_EQ(s.items[6].alias, "net");
  EXPECT_EQ(s.from.kind, FromClause::Kind::kTable);
  EXPECT_EQ(s.from.table.parts, std::vector<std::string>{"t"});
}

TEST(SqlParserSelect, StarForms) {
  auto s = ParseAs<SelectStmt>("SELECT *, o.*, * EXCEPT (a, `b c`), db.o.* FROM t o");
  ASSERT_EQ(s.items.size(), 4u);
  EXPECT_TRUE(s.items[0].star);
  EXPECT_EQ(s.items[0].star_qualifier, "");
  EXPECT_TRUE(s.items[1].star);
  EXPECT_EQ(s.items[1].star_qualifier, "o");
  EXPECT_TRUE(s.items[2].star);
  EXPECT_EQ(s.items[2].star_except, (std::vector<std::string>{"a", "b c"}));
  EXPECT_EQ(s.items[2].text, "* EXCEPT (a, `b c`)");
  EXPECT_EQ(s.items[3].star_qualifier, "db.o");
  EXPECT_EQ(s.from.alias, "o");
  // `a * b` is a product, not a star.
  auto p = ParseAs<SelectStmt>("SELECT a * b FROM t");
  ASSERT_EQ(p.items.size(), 1u);
  EXPECT_FALSE(p.items[0].star);
  EXPECT_EQ(Sql(p.items[0].expr), "a * b");
}

TEST(SqlParserSelect, AllClauses) {
  auto s = ParseAs<SelectStmt>(
      "SELECT DISTINCT region, sum(amount) AS total FROM sales WHERE amount > 0 AND "
      "region IS NOT NULL GROUP BY region, year(d) HAVING sum(amount) > 10 ORDER BY "
      "total DESC NULLS FIRST, region ASC, 2 NULLS LAST LIMIT 5");
  EXPECT_TRUE(s.distinct);
  EXPECT_EQ(Sql(s.where), "amount > 0 AND region IS NOT NULL");
  ASSERT_EQ(s.group_by.size(), 2u);
  EXPECT_EQ(Sql(s.group_by[1]), "year(d)");
  EXPECT_EQ(Sql(s.having), "sum(amount) > 10");
  ASSERT_EQ(s.order_by.size(), 3u);
  EXPECT_TRUE(s.order_by[0].descending);
  EXPECT_EQ(s.order_by[0].nulls_first, std::optional<bool>(true));
  EXPECT_FALSE(s.order_by[1].descending);
  EXPECT_EQ(s.order_by[1].nulls_first, std::nullopt);
  EXPECT_EQ(s.order_by[2].nulls_first, std::optional<bool>(false));
  EXPECT_EQ(s.limit, std::optional<int64_t>(5));
}

TEST(SqlParserSelect, WithoutFrom) {
  auto s = ParseAs<SelectStmt>("SELECT 1, 'a' AS s");
  EXPECT_EQ(s.from.kind, FromClause::Kind::kNone);
  EXPECT_EQ(s.items.size(), 2u);
  EXPECT_EQ(s.items[1].alias, "s");
}

TEST(SqlParserSelect, TableReferences) {
  auto a = ParseAs<SelectStmt>("SELECT * FROM silver.Orders");
  EXPECT_EQ(a.from.table.kind, TableRef::Kind::kName);
  EXPECT_EQ(a.from.table.parts, (std::vector<std::string>{"silver", "Orders"}));
  EXPECT_EQ(a.from.table.position, 14);
  EXPECT_EQ(a.from.table.ToString(), "silver.Orders");
  auto b = ParseAs<SelectStmt>("SELECT * FROM delta.`/data/orders`");
  EXPECT_EQ(b.from.table.kind, TableRef::Kind::kPath);
  EXPECT_EQ(b.from.table.path, "/data/orders");
  EXPECT_EQ(b.from.table.ToString(), "delta.`/data/orders`");
  auto c = ParseAs<SelectStmt>("SELECT * FROM '/data/t' x");
  EXPECT_EQ(c.from.table.kind, TableRef::Kind::kPath);
  EXPECT_EQ(c.from.table.path, "/data/t");
  EXPECT_EQ(c.from.alias, "x");
  auto d = ParseAs<SelectStmt>("SELECT * FROM spark_catalog.default.t");
  EXPECT_EQ(d.from.table.parts, (std::vector<std::string>{"default", "t"}));
  // delta.orders (unquoted) is the database `delta`.
  auto e = ParseAs<SelectStmt>("SELECT * FROM delta.orders");
  EXPECT_EQ(e.from.table.kind, TableRef::Kind::kName);
  auto f = ParseAs<SelectStmt>("SELECT * FROM `my db`.`x-y`");
  EXPECT_EQ(f.from.table.parts, (std::vector<std::string>{"my db", "x-y"}));
  EXPECT_EQ(f.from.table.ToString(), "`my db`.`x-y`");
}

TEST(SqlParserSelect, TimeTravel) {
  auto a = ParseAs<SelectStmt>("SELECT * FROM t VERSION AS OF 3");
  ASSERT_TRUE(a.from.time_travel.has_value());
  EXPECT_EQ(a.from.time_travel->version, std::optional<int64_t>(3));
  auto b = ParseAs<SelectStmt>("SELECT * FROM t FOR VERSION AS OF '12' AS old");
  EXPECT_EQ(b.from.time_travel->version, std::optional<int64_t>(12));
  EXPECT_EQ(b.from.alias, "old");
  auto c = ParseAs<SelectStmt>(
      "SELECT * FROM delta.`/p` TIMESTAMP AS OF '2024-01-01 00:00:00' WHERE a = 1");
  ASSERT_TRUE(c.from.time_travel.has_value());
  EXPECT_FALSE(c.from.time_travel->version.has_value());
  EXPECT_EQ(Sql(c.from.time_travel->timestamp), "'2024-01-01 00:00:00'");
  EXPECT_EQ(Sql(c.where), "a = 1");
  auto d = ParseAs<SelectStmt>(
      "SELECT * FROM t FOR SYSTEM_TIME AS OF TIMESTAMP'2024-01-01' x");
  EXPECT_EQ(Sql(d.from.time_travel->timestamp), "TIMESTAMP '2024-01-01'");
  EXPECT_EQ(d.from.alias, "x");
  // Without AS OF, `version` is just an alias.
  auto e = ParseAs<SelectStmt>("SELECT * FROM t version");
  EXPECT_FALSE(e.from.time_travel.has_value());
  EXPECT_EQ(e.from.alias, "version");
}

TEST(SqlParserSelect, Joins) {
  auto a = ParseAs<SelectStmt>(
      "SELECT * FROM orders o LEFT OUTER JOIN customers c ON o.cust_id = c.id "
      "JOIN regions USING (region_id), extra x");
  // Left-deep: ((orders LEFT JOIN customers) JOIN regions) CROSS JOIN extra.
  ASSERT_EQ(a.from.kind, FromClause::Kind::kJoin);
  const JoinClause& cross = *a.from.join;
  EXPECT_EQ(cross.type, JoinClause::Type::kCross);
  EXPECT_EQ(cross.right.table.ToString(), "extra");
  EXPECT_EQ(cross.right.alias, "x");
  ASSERT_EQ(cross.left.kind, FromClause::Kind::kJoin);
  const JoinClause& using_join = *cross.left.join;
  EXPECT_EQ(using_join.type, JoinClause::Type::kInner);
  EXPECT_EQ(using_join.using_columns, std::vector<std::string>{"region_id"});
  EXPECT_EQ(using_join.on, nullptr);
  const JoinClause& left = *using_join.left.join;
  EXPECT_EQ(left.type, JoinClause::Type::kLeft);
  EXPECT_EQ(left.left.alias, "o");
  EXPECT_EQ(left.right.alias, "c");
  EXPECT_EQ(Sql(left.on), "o.cust_id = c.id");
  struct Case {
    const char* sql;
    JoinClause::Type type;
    bool natural;
  };
  for (const Case& c :
       {Case{"SELECT * FROM a INNER JOIN b ON a.x = b.x", JoinClause::Type::kInner,
             false},
        Case{"SELECT * FROM a CROSS JOIN b", JoinClause::Type::kCross, false},
        Case{"SELECT * FROM a RIGHT JOIN b ON true", JoinClause::Type::kRight, false},
        Case{"SELECT * FROM a FULL OUTER JOIN b USING (x)", JoinClause::Type::kFull,
             false},
        Case{"SELECT * FROM a LEFT SEMI JOIN b ON a.x = b.x", JoinClause::Type::kLeftSemi,
             false},
        Case{"SELECT * FROM a ANTI JOIN b ON a.x = b.x", JoinClause::Type::kLeftAnti,
             false},
        Case{"SELECT * FROM a NATURAL LEFT JOIN b", JoinClause::Type::kLeft, true}}) {
    auto s = ParseAs<SelectStmt>(c.sql);
    ASSERT_EQ(s.from.kind, FromClause::Kind::kJoin) << c.sql;
    EXPECT_EQ(s.from.join->type, c.type) << c.sql;
    EXPECT_EQ(s.from.join->natural, c.natural) << c.sql;
  }
}

TEST(SqlParserSelect, StreamSources) {
  auto a = ParseAs<SelectStmt>(
      "SELECT * FROM STREAM read_files('in', format => 'json') AS src");
  EXPECT_TRUE(a.from.stream);
  EXPECT_EQ(a.from.kind, FromClause::Kind::kFunction);
  EXPECT_EQ(a.from.function, "read_files");
  EXPECT_EQ(a.from.alias, "src");
  auto b = ParseAs<SelectStmt>("SELECT * FROM stream(read_files('in')) s");
  EXPECT_TRUE(b.from.stream);
  EXPECT_EQ(b.from.function, "read_files");
  EXPECT_EQ(b.from.alias, "s");
  auto c = ParseAs<SelectStmt>("SELECT * FROM STREAM(bronze.orders)");
  EXPECT_TRUE(c.from.stream);
  EXPECT_EQ(c.from.kind, FromClause::Kind::kTable);
  EXPECT_EQ(c.from.table.ToString(), "bronze.orders");
  // A table named `stream` (with or without an alias) stays a table.
  for (const char* sql : {"SELECT * FROM stream", "SELECT * FROM stream s"}) {
    auto d = ParseAs<SelectStmt>(sql);
    EXPECT_FALSE(d.from.stream) << sql;
    EXPECT_EQ(d.from.kind, FromClause::Kind::kTable) << sql;
    EXPECT_EQ(d.from.table.ToString(), "stream") << sql;
  }
}

TEST(SqlParserSelect, FileFunctions) {
  auto a = ParseAs<SelectStmt>(
      "SELECT * FROM READ_CSV('in/*.csv', header => true, Delimiter => ';') AS src");
  EXPECT_EQ(a.from.kind, FromClause::Kind::kFunction);
  EXPECT_EQ(a.from.function, "read_csv");
  ASSERT_EQ(a.from.args.size(), 1u);
  EXPECT_EQ(Sql(a.from.args[0]), "'in/*.csv'");
  ASSERT_EQ(a.from.named_args.size(), 2u);
  EXPECT_EQ(a.from.named_args[0].first, "header");
  EXPECT_EQ(Sql(a.from.named_args[0].second), "TRUE");
  EXPECT_EQ(a.from.named_args[1].first, "delimiter");
  EXPECT_EQ(Sql(a.from.named_args[1].second), "';'");
  EXPECT_EQ(a.from.alias, "src");
  auto b = ParseAs<SelectStmt>("SELECT count(*) FROM read_parquet('x.parquet')");
  EXPECT_EQ(b.from.function, "read_parquet");
  auto c = ParseAs<SelectStmt>("SELECT * FROM delta_log('orders', 3)");
  EXPECT_EQ(c.from.function, "delta_log");
  ASSERT_EQ(c.from.args.size(), 2u);
  EXPECT_EQ(Sql(c.from.args[1]), "3");
  auto d = ParseAs<SelectStmt>("SELECT * FROM read_json()");
  EXPECT_TRUE(d.from.args.empty());
}

TEST(SqlParserSelect, ValuesSources) {
  auto a = ParseAs<SelectStmt>("SELECT x FROM VALUES (1, 'a'), (2, 'b') AS t(x, y)");
  EXPECT_EQ(a.from.kind, FromClause::Kind::kValues);
  ASSERT_EQ(a.from.rows.size(), 2u);
  EXPECT_EQ(Sql(a.from.rows[1][1]), "'b'");
  EXPECT_EQ(a.from.alias, "t");
  EXPECT_EQ(a.from.column_aliases, (std::vector<std::string>{"x", "y"}));
  // A bare VALUES statement is SELECT * over the rows.
  auto b = ParseAs<SelectStmt>("VALUES (1, 'a'), (2, NULL)");
  ASSERT_EQ(b.items.size(), 1u);
  EXPECT_TRUE(b.items[0].star);
  EXPECT_EQ(b.from.kind, FromClause::Kind::kValues);
  EXPECT_EQ(b.from.rows.size(), 2u);
  auto c = ParseAs<SelectStmt>("VALUES 1, 2, 3");
  ASSERT_EQ(c.from.rows.size(), 3u);
  EXPECT_EQ(c.from.rows[2].size(), 1u);
}

TEST(SqlParserSelect, Subqueries) {
  auto a = ParseAs<SelectStmt>(
      "SELECT s.a FROM (SELECT a FROM (VALUES (1), (2)) AS v(a) WHERE a > 1) s");
  EXPECT_EQ(a.from.kind, FromClause::Kind::kSubquery);
  EXPECT_EQ(a.from.alias, "s");
  ASSERT_NE(a.from.subquery, nullptr);
  EXPECT_EQ(Sql(a.from.subquery->where), "a > 1");
  const FromClause& inner = a.from.subquery->from;
  EXPECT_EQ(inner.kind, FromClause::Kind::kSubquery);
  EXPECT_EQ(inner.column_aliases, std::vector<std::string>{"a"});
  EXPECT_EQ(inner.subquery->from.kind, FromClause::Kind::kValues);
  // A parenthesised query statement; with ORDER BY it becomes SELECT * FROM (query).
  auto b = ParseAs<SelectStmt>("(SELECT 1 AS x)");
  EXPECT_EQ(b.items[0].alias, "x");
  auto c = ParseAs<SelectStmt>("(SELECT a FROM t) ORDER BY a LIMIT 1");
  EXPECT_EQ(c.from.kind, FromClause::Kind::kSubquery);
  EXPECT_EQ(c.limit, std::optional<int64_t>(1));
  auto d = ParseAs<SelectStmt>("TABLE silver.orders");
  EXPECT_EQ(d.from.kind, FromClause::Kind::kTable);
  EXPECT_EQ(d.from.table.ToString(), "silver.orders");
}

TEST(SqlParserSelect, ExpressionSubqueries) {
  auto a = ParseAs<SelectStmt>(
      "SELECT (SELECT max(x) FROM t) AS m FROM u WHERE EXISTS (SELECT 1 FROM v WHERE "
      "v.k = u.k) AND u.a NOT IN (SELECT a FROM w WHERE a IN (SELECT b FROM z))");
  const Expr& scalar = *a.items[0].expr;
  ASSERT_EQ(scalar.kind, ExprKind::kSubquery);
  EXPECT_EQ(scalar.subquery_kind, SubqueryKind::kScalar);
  EXPECT_EQ(scalar.subquery->text(), "SELECT max(x) FROM t");
  const auto& query = static_cast<const QuerySubquery&>(*scalar.subquery).query;
  EXPECT_EQ(query->from.table.ToString(), "t");
  ASSERT_EQ(a.where->kind, ExprKind::kBinary);
  const Expr& exists = *a.where->children[0];
  EXPECT_EQ(exists.subquery_kind, SubqueryKind::kExists);
  const Expr& not_in = *a.where->children[1];
  EXPECT_EQ(not_in.subquery_kind, SubqueryKind::kIn);
  EXPECT_TRUE(not_in.negated);
  EXPECT_EQ(Sql(not_in.children[0]), "u.a");
  EXPECT_EQ(Sql(a.where),
            "EXISTS (SELECT 1 FROM v WHERE v.k = u.k) AND u.a NOT IN (SELECT a FROM w "
            "WHERE a IN (SELECT b FROM z))");
}

TEST(SqlParserSelect, WindowsAndQualify) {
  auto a = ParseAs<SelectStmt>(
      "SELECT k, row_number() OVER (PARTITION BY k ORDER BY t DESC) AS rn FROM e "
      "QUALIFY rn = 1 ORDER BY k");
  const Expr& w = *a.items[1].expr;
  ASSERT_EQ(w.kind, ExprKind::kWindow);
  EXPECT_EQ(w.children[0]->text, "row_number");
  ASSERT_EQ(w.window->order_by.size(), 1u);
  EXPECT_TRUE(w.window->order_by[0].descending);
  EXPECT_FALSE(w.window->order_by[0].nulls_first);  // Spark: DESC puts NULLs last
  EXPECT_FALSE(w.window->has_frame);
  EXPECT_EQ(Sql(a.qualify), "rn = 1");
  EXPECT_EQ(a.order_by.size(), 1u);
  auto b = ParseAs<SelectStmt>(
      "SELECT sum(x) OVER (ORDER BY d RANGE BETWEEN 3 PRECEDING AND CURRENT ROW) FROM e");
  const WindowSpec& spec = *b.items[0].expr->window;
  EXPECT_TRUE(spec.has_frame);
  EXPECT_TRUE(spec.range);
  EXPECT_EQ(spec.start.kind, FrameBoundKind::kPreceding);
  EXPECT_EQ(Sql(spec.start.offset), "3");
  EXPECT_EQ(spec.end.kind, FrameBoundKind::kCurrentRow);
}

TEST(SqlParserInsert, IntoValues) {
  auto s = ParseAs<InsertStmt>("insert into orders values (1, 'a'), (2, 'b')");
  EXPECT_FALSE(s.overwrite);
  EXPECT_EQ(s.table.parts, std::vector<std::string>{"orders"});
  ASSERT_NE(s.query, nullptr);
  EXPECT_EQ(s.query->from.kind, FromClause::Kind::kValues);
  EXPECT_EQ(s.query->from.rows.size(), 2u);
}

TEST(SqlParserInsert, OverwriteSelectWithColumns) {
  auto s = ParseAs<InsertStmt>(
      "INSERT OVERWRITE TABLE delta.`/t` (id, name) SELECT id, name FROM src");
  EXPECT_TRUE(s.overwrite);
  EXPECT_EQ(s.table.kind, TableRef::Kind::kPath);
  EXPECT_EQ(s.columns, (std::vector<std::string>{"id", "name"}));
  EXPECT_EQ(s.query->items.size(), 2u);
}

TEST(SqlParserInsert, ByNameAndSchemaEvolution) {
  auto a = ParseAs<InsertStmt>("INSERT INTO t BY NAME SELECT * FROM s");
  EXPECT_TRUE(a.by_name);
  EXPECT_FALSE(a.schema_evolution);
  auto b = ParseAs<InsertStmt>("INSERT WITH SCHEMA EVOLUTION INTO t SELECT * FROM s");
  EXPECT_TRUE(b.schema_evolution);
  auto c = ParseAs<InsertStmt>("INSERT INTO t WITH SCHEMA EVOLUTION BY NAME TABLE s");
  EXPECT_TRUE(c.schema_evolution);
  EXPECT_TRUE(c.by_name);
  EXPECT_EQ(c.query->from.table.parts, std::vector<std::string>{"s"});
  auto d = ParseAs<InsertStmt>("INSERT INTO t (a) WITH SCHEMA EVOLUTION VALUES (1)");
  EXPECT_TRUE(d.schema_evolution);
  EXPECT_EQ(d.columns, std::vector<std::string>{"a"});
}

TEST(SqlParserInsert, ReplaceWhereKeepsPredicateText) {
  auto s = ParseAs<InsertStmt>(
      "INSERT INTO t REPLACE WHERE d >= '2024-01-01'  AND d < '2024-02-01' SELECT * "
      "FROM s");
  EXPECT_EQ(Sql(s.replace_where), "d >= '2024-01-01' AND d < '2024-02-01'");
  EXPECT_EQ(s.replace_where_text, "d >= '2024-01-01'  AND d < '2024-02-01'");
  EXPECT_EQ(s.query->from.table.parts, std::vector<std::string>{"s"});
}

TEST(SqlParserInsert, ParenthesisedQueryIsNotAColumnList) {
  auto s = ParseAs<InsertStmt>("INSERT INTO t (SELECT a FROM s)");
  EXPECT_TRUE(s.columns.empty());
  ASSERT_NE(s.query, nullptr);
  EXPECT_EQ(s.query->from.table.parts, std::vector<std::string>{"s"});
}

TEST(SqlParserCreate, TableWithEveryClause) {
  auto s = ParseAs<CreateTableStmt>(
      "CREATE TABLE IF NOT EXISTS silver.orders (\n"
      "  id BIGINT NOT NULL COMMENT 'the key',\n"
      "  `order date` DATE,\n"
      "  amount DECIMAL(10, 2),\n"
      "  tags ARRAY<STRING>, -- a comment in the list\n"
      "  attrs MAP<STRING, STRUCT<a: INT, b: ARRAY<INT>>>,\n"
      "  code VARCHAR(3)\n"
      ") TBLPROPERTIES ('delta.appendOnly' = 'true', delta.logRetentionDuration = "
      "'interval 7 days', n 5, flag = false, neg = -1)\n"
      "USING DELTA COMMENT 'orders table' PARTITIONED BY (`order date`)\n"
      "LOCATION '/data/orders'");
  EXPECT_TRUE(s.if_not_exists);
  EXPECT_FALSE(s.or_replace);
  EXPECT_EQ(s.table.ToString(), "silver.orders");
  ASSERT_NE(s.schema, nullptr);
  const auto& f = s.schema->fields();
  ASSERT_EQ(f.size(), 6u);
  EXPECT_EQ(f[0].name, "id");
  EXPECT_FALSE(f[0].nullable);
  EXPECT_EQ(f[0].comment(), std::optional<std::string>("the key"));
  EXPECT_EQ(TypeToSql(*f[0].type), "BIGINT");
  EXPECT_EQ(f[1].name, "order date");
  EXPECT_TRUE(f[1].nullable);
  EXPECT_EQ(TypeToSql(*f[2].type), "DECIMAL(10,2)");
  EXPECT_EQ(TypeToSql(*f[3].type), "ARRAY<STRING>");
  EXPECT_EQ(TypeToSql(*f[4].type), "MAP<STRING, STRUCT<a: INT, b: ARRAY<INT>>>");
  EXPECT_EQ(TypeToSql(*f[5].type), "STRING");
  EXPECT_NE(f[5].metadata.FindRaw("__CHAR_VARCHAR_TYPE_STRING"), nullptr);
  EXPECT_EQ(s.using_format, "delta");
  EXPECT_EQ(s.partitioned_by, std::vector<std::string>{"order date"});
  EXPECT_EQ(s.location, std::optional<std::string>("/data/orders"));
  EXPECT_EQ(s.comment, std::optional<std::string>("orders table"));
  using P = std::pair<std::string, std::string>;
  EXPECT_EQ(s.properties,
            (std::vector<P>{{"delta.appendOnly", "true"},
                            {"delta.logRetentionDuration", "interval 7 days"},
                            {"n", "5"},
                            {"flag", "false"},
                            {"neg", "-1"}}));
  EXPECT_EQ(s.as_select, nullptr);
}

TEST(SqlParserCreate, CommentWithQuotesSurvivesTheDdlRoundTrip) {
  auto s = ParseAs<CreateTableStmt>(R"(CREATE TABLE t (a INT COMMENT 'it''s a \\ "x"'))");
  ASSERT_NE(s.schema, nullptr);
  EXPECT_EQ(s.schema->fields()[0].comment(),
            std::optional<std::string>(R"(it's a \ "x")"));
}

TEST(SqlParserCreate, AsSelectAndReplace) {
  auto a = ParseAs<CreateTableStmt>(
      "CREATE OR REPLACE TABLE t USING parquet PARTITIONED BY (p) AS SELECT * FROM s");
  EXPECT_TRUE(a.or_replace);
  EXPECT_FALSE(a.replace_only);
  EXPECT_EQ(a.using_format, "parquet");
  EXPECT_EQ(a.schema, nullptr);
  ASSERT_NE(a.as_select, nullptr);
  EXPECT_EQ(a.as_select->from.table.parts, std::vector<std::string>{"s"});
  auto b = ParseAs<CreateTableStmt>("REPLACE TABLE t (a INT) USING DELTA");
  EXPECT_TRUE(b.or_replace);
  EXPECT_TRUE(b.replace_only);
  EXPECT_NE(ParseAs<CreateTableStmt>("CREATE TABLE t AS VALUES (1)").as_select, nullptr);
  auto c = ParseAs<CreateTableStmt>("CREATE EXTERNAL TABLE t LOCATION '/x'");
  EXPECT_EQ(c.location, std::optional<std::string>("/x"));
  auto d = ParseAs<CreateTableStmt>("CREATE TABLE delta.`/tmp/t` (a INT)");
  EXPECT_EQ(d.table.kind, TableRef::Kind::kPath);
}

TEST(SqlParserCreate, DatabaseAndView) {
  auto a = ParseAs<CreateDatabaseStmt>(
      "CREATE SCHEMA IF NOT EXISTS silver COMMENT 'x' LOCATION '/w/silver'");
  EXPECT_EQ(a.name, "silver");
  EXPECT_TRUE(a.if_not_exists);
  EXPECT_EQ(a.comment, std::optional<std::string>("x"));
  EXPECT_EQ(a.location, std::optional<std::string>("/w/silver"));
  auto b = ParseAs<CreateDatabaseStmt>("create database gold");
  EXPECT_FALSE(b.if_not_exists);
  auto c = ParseAs<DropDatabaseStmt>("DROP DATABASE IF EXISTS gold CASCADE");
  EXPECT_TRUE(c.if_exists);
  EXPECT_TRUE(c.cascade);
  auto d = ParseAs<DropDatabaseStmt>("DROP SCHEMA gold RESTRICT");
  EXPECT_FALSE(d.cascade);
  auto e = ParseAs<CreateViewStmt>(
      "CREATE OR REPLACE TEMPORARY VIEW v AS SELECT a FROM t WHERE a > 1");
  EXPECT_TRUE(e.or_replace);
  EXPECT_EQ(e.name, "v");
  EXPECT_EQ(Sql(e.query->where), "a > 1");
  auto f = ParseAs<CreateViewStmt>("CREATE TEMP VIEW v AS VALUES (1)");
  EXPECT_FALSE(f.or_replace);
  auto g = ParseAs<DropViewStmt>("DROP VIEW IF EXISTS v");
  EXPECT_TRUE(g.if_exists);
  EXPECT_EQ(g.name, "v");
}

TEST(SqlParserDescribe, Forms) {
  auto a = ParseAs<DescribeTableStmt>("DESCRIBE orders");
  EXPECT_FALSE(a.extended);
  EXPECT_EQ(a.table.parts, std::vector<std::string>{"orders"});
  EXPECT_TRUE(ParseAs<DescribeTableStmt>("DESC TABLE EXTENDED s.t").extended);
  EXPECT_TRUE(ParseAs<DescribeTableStmt>("describe formatted t").extended);
  auto b = ParseAs<DescribeHistoryStmt>("DESCRIBE HISTORY silver.orders LIMIT 2");
  EXPECT_EQ(b.table.ToString(), "silver.orders");
  EXPECT_EQ(b.limit, std::optional<int64_t>(2));
  auto c = ParseAs<DescribeHistoryStmt>("DESC HISTORY '/data/t'");
  EXPECT_EQ(c.table.kind, TableRef::Kind::kPath);
  auto d = ParseAs<DescribeDetailStmt>("DESCRIBE DETAIL delta.`/data/t`");
  EXPECT_EQ(d.table.path, "/data/t");
  // A table named `history`.
  auto e = ParseAs<DescribeTableStmt>("DESCRIBE history");
  EXPECT_EQ(e.table.parts, std::vector<std::string>{"history"});
}

TEST(SqlParserDescribe, Drift) {
  auto a = ParseAs<DescribeDriftStmt>("DESCRIBE DRIFT orders USING staged");
  EXPECT_EQ(a.table.parts, std::vector<std::string>{"orders"});
  EXPECT_EQ(a.source.kind, FromClause::Kind::kTable);
  EXPECT_TRUE(a.mode.empty());
  // MODE after a bare source is the clause, not the source's alias.
  auto b = ParseAs<DescribeDriftStmt>(
      "DESC DRIFT t USING read_parquet('in/*.parquet') MODE full");
  EXPECT_EQ(b.source.kind, FromClause::Kind::kFunction);
  EXPECT_EQ(b.source.alias, "");
  EXPECT_EQ(b.mode, "full");
  auto c = ParseAs<DescribeDriftStmt>(
      "DESCRIBE DRIFT t USING (SELECT 1 AS a) AS s MODE BACKWARD");
  EXPECT_EQ(c.source.kind, FromClause::Kind::kSubquery);
  EXPECT_EQ(c.source.alias, "s");
  EXPECT_EQ(c.mode, "BACKWARD");
  // A source aliased `mode` with nothing after it keeps its alias.
  auto d = ParseAs<DescribeDriftStmt>("DESCRIBE DRIFT t USING s mode");
  EXPECT_EQ(d.source.alias, "mode");
  EXPECT_TRUE(d.mode.empty());
  // A table named `drift`.
  auto e = ParseAs<DescribeTableStmt>("DESCRIBE drift");
  EXPECT_EQ(e.table.parts, std::vector<std::string>{"drift"});
}

TEST(SqlParserShow, Forms) {
  auto a = ParseAs<ShowTblPropertiesStmt>("SHOW TBLPROPERTIES t");
  EXPECT_FALSE(a.key.has_value());
  auto b = ParseAs<ShowTblPropertiesStmt>("SHOW TBLPROPERTIES t ('delta.appendOnly')");
  EXPECT_EQ(b.key, std::optional<std::string>("delta.appendOnly"));
  auto c =
      ParseAs<ShowTblPropertiesStmt>("SHOW TBLPROPERTIES t (delta.minReaderVersion)");
  EXPECT_EQ(c.key, std::optional<std::string>("delta.minReaderVersion"));
  auto d = ParseAs<ShowColumnsStmt>("SHOW COLUMNS IN orders IN silver");
  EXPECT_EQ(d.table.parts, (std::vector<std::string>{"silver", "orders"}));
  auto e = ParseAs<ShowColumnsStmt>("SHOW COLUMNS FROM silver.orders FROM SILVER");
  EXPECT_EQ(e.table.parts, (std::vector<std::string>{"silver", "orders"}));
  auto f = ParseAs<ShowTablesStmt>("SHOW TABLES IN silver LIKE 'ord*'");
  EXPECT_EQ(f.database, std::optional<std::string>("silver"));
  EXPECT_EQ(f.pattern, std::optional<std::string>("ord*"));
  auto g = ParseAs<ShowTablesStmt>("SHOW TABLES 'x*'");
  EXPECT_FALSE(g.database.has_value());
  EXPECT_EQ(g.pattern, std::optional<std::string>("x*"));
  EXPECT_FALSE(ParseAs<ShowTablesStmt>("show tables").pattern.has_value());
  auto h = ParseAs<ShowDatabasesStmt>("SHOW SCHEMAS LIKE 's*'");
  EXPECT_EQ(h.pattern, std::optional<std::string>("s*"));
  EXPECT_FALSE(ParseAs<ShowDatabasesStmt>("SHOW DATABASES").pattern.has_value());
}

TEST(SqlParserSet, Forms) {
  auto a = ParseAs<SetStmt>("SET spark.databricks.delta.schema.autoMerge.enabled = true");
  EXPECT_EQ(a.key, std::optional<std::string>(
                       "spark.databricks.delta.schema.autoMerge.enabled"));
  EXPECT_EQ(a.value, std::optional<std::string>("true"));
  EXPECT_FALSE(a.reset);
  auto b = ParseAs<SetStmt>("SET `my.key` = 'a b;c'");
  EXPECT_EQ(b.key, std::optional<std::string>("my.key"));
  EXPECT_EQ(b.value, std::optional<std::string>("a b;c"));
  auto c = ParseAs<SetStmt>("SET spark.sql.shuffle.partitions=  8 ");
  EXPECT_EQ(c.value, std::optional<std::string>("8"));
  auto d = ParseAs<SetStmt>("SET spark.sql.ansi.enabled");
  EXPECT_EQ(d.key, std::optional<std::string>("spark.sql.ansi.enabled"));
  EXPECT_FALSE(d.value.has_value());
  auto e = ParseAs<SetStmt>("SET");
  EXPECT_FALSE(e.key.has_value());
  auto f = ParseAs<SetStmt>("RESET spark.sql.ansi.enabled");
  EXPECT_TRUE(f.reset);
  EXPECT_EQ(f.key, std::optional<std::string>("spark.sql.ansi.enabled"));
  auto g = ParseAs<SetStmt>("RESET");
  EXPECT_TRUE(g.reset);
  EXPECT_FALSE(g.key.has_value());
  auto h = ParseAs<SetStmt>("SET TIME ZONE 'UTC'");
  EXPECT_EQ(h.key, std::optional<std::string>("spark.sql.session.timeZone"));
  EXPECT_EQ(h.value, std::optional<std::string>("UTC"));
}

TEST(SqlParserMisc, UseAndDropTable) {
  EXPECT_EQ(ParseAs<UseStmt>("USE silver").database, "silver");
  EXPECT_EQ(ParseAs<UseStmt>("use database `gold`").database, "gold");
  EXPECT_EQ(ParseAs<UseStmt>("USE SCHEMA s").database, "s");
  auto a = ParseAs<DropTableStmt>("DROP TABLE IF EXISTS silver.orders PURGE");
  EXPECT_TRUE(a.if_exists);
  EXPECT_EQ(a.table.ToString(), "silver.orders");
  EXPECT_FALSE(ParseAs<DropTableStmt>("DROP TABLE t").if_exists);
}

TEST(SqlParserMisc, Vacuum) {
  auto plain = ParseAs<VacuumStmt>("VACUUM silver.orders");
  EXPECT_EQ(plain.table.ToString(), "silver.orders");
  EXPECT_FALSE(plain.retain_hours.has_value());
  EXPECT_FALSE(plain.dry_run);
  auto all = ParseAs<VacuumStmt>("vacuum '/data/t' FULL retain 1.5 hours dry run");
  EXPECT_EQ(all.table.ToString(), "delta.`/data/t`");
  EXPECT_EQ(all.retain_hours, 1.5);
  EXPECT_TRUE(all.dry_run);
  EXPECT_EQ(ParseAs<VacuumStmt>("VACUUM delta.`/t` RETAIN -1 HOURS").retain_hours, -1.0);
  EXPECT_EQ(ParseAs<VacuumStmt>("VACUUM t RETAIN 0 HOURS").retain_hours, 0.0);
}

TEST(SqlParserMisc, ArticleStyleScript) {
  // Statements shaped like the source articles' (multi-line, typed literals, Spark's
  // long-integer suffix, a temp view feeding an insert).
  auto r = ParseSql(R"(
    CREATE OR REPLACE TEMP VIEW changes AS
    SELECT 2001L AS order_id, 'C07' AS customer_id, 'shipped' AS status,
           CAST(42.50 AS DECIMAL(10,2)) AS amount,
           TIMESTAMP'2026-01-02 03:04:05' AS updated_at, 'app' AS channel;
    SET spark.databricks.delta.schema.autoMerge.enabled = true;
    INSERT INTO silver.orders BY NAME SELECT * FROM changes;
    SELECT order_id, status, channel FROM silver.orders ORDER BY order_id;
  )");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 4u);
  const auto& view = std::get<CreateViewStmt>((*r)[0].body);
  ASSERT_EQ(view.query->items.size(), 6u);
  EXPECT_EQ(Sql(view.query->items[0].expr), "2001L");
  EXPECT_EQ(Sql(view.query->items[3].expr), "CAST(42.50 AS DECIMAL(10,2))");
  EXPECT_EQ(view.query->items[4].alias, "updated_at");
  EXPECT_EQ((*r)[1].line, 6);
  EXPECT_TRUE(std::get<InsertStmt>((*r)[2].body).by_name);
  EXPECT_EQ(std::get<SelectStmt>((*r)[3].body).order_by.size(), 1u);
}

TEST(SqlParserMisc, StatementKindNames) {
  EXPECT_EQ(StatementKindName(ParseStatement("SELECT 1")->body), "SELECT");
  EXPECT_EQ(StatementKindName(ParseStatement("INSERT INTO t VALUES (1)")->body),
            "INSERT");
  EXPECT_EQ(StatementKindName(ParseStatement("CREATE TABLE t (a INT)")->body),
            "CREATE TABLE");
  EXPECT_EQ(StatementKindName(ParseStatement("RESET")->body), "RESET");
  EXPECT_EQ(StatementKindName(ParseStatement("DESCRIBE HISTORY t")->body),
            "DESCRIBE HISTORY");
}

}  // namespace
}  // namespace deltaguard
