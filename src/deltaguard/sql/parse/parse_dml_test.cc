// MERGE, UPDATE and DELETE forms of the SQL parser, Spark's MERGE clause rules, and
// the errors.

#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "deltaguard/expr/printer.h"
#include "deltaguard/sql/parse/parser_test_util_internal.h"
#include "deltaguard/sql/parse/sql_parser.h"

namespace deltaguard {
namespace {

using testing::ErrorOf;
using testing::Headline;
using testing::ParseAs;
using testing::Sql;

using Path = std::vector<std::string>;
using Kind = MergeClause::Kind;
using Action = MergeClause::Action;

TEST(SqlParserMerge, EveryClauseKind) {
  auto m = ParseAs<MergeStmt>(
      "MERGE INTO silver.orders AS t USING updates s ON t.id = s.id AND t.day = s.day\n"
      "WHEN MATCHED AND s.deleted THEN DELETE\n"
      "WHEN MATCHED AND s.v > t.v THEN UPDATE SET t.v = s.v, t.info.note = 'x' || s.n\n"
      "WHEN MATCHED THEN UPDATE SET *\n"
      "WHEN NOT MATCHED AND s.v > 0 THEN INSERT (id, info.note, v) VALUES (s.id, "
      "NULL, s.v + 1)\n"
      "WHEN NOT MATCHED BY TARGET THEN INSERT *\n"
      "WHEN NOT MATCHED BY SOURCE AND t.day < DATE'2024-01-01' THEN DELETE\n"
      "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET stale = true");
  EXPECT_FALSE(m.schema_evolution);
  EXPECT_EQ(m.target.parts, (Path{"silver", "orders"}));
  EXPECT_EQ(m.target_alias, "t");
  EXPECT_EQ(m.source.kind, FromClause::Kind::kTable);
  EXPECT_EQ(m.source.table.parts, (Path{"updates"}));
  EXPECT_EQ(m.source.alias, "s");
  EXPECT_EQ(Sql(m.on), "t.id = s.id AND t.day = s.day");
  ASSERT_EQ(m.clauses.size(), 7u);

  const MergeClause& del = m.clauses[0];
  EXPECT_EQ(del.kind, Kind::kMatched);
  EXPECT_EQ(del.action, Action::kDelete);
  EXPECT_EQ(Sql(del.condition), "s.deleted");
  EXPECT_EQ(del.position, 79);

  const MergeClause& update = m.clauses[1];
  EXPECT_EQ(update.action, Action::kUpdate);
  EXPECT_EQ(Sql(update.condition), "s.v > t.v");
  ASSERT_EQ(update.assignments.size(), 2u);
  EXPECT_EQ(update.assignments[0].column, (Path{"t", "v"}));
  EXPECT_EQ(Sql(update.assignments[0].value), "s.v");
  EXPECT_EQ(update.assignments[1].column, (Path{"t", "info", "note"}));
  EXPECT_EQ(Sql(update.assignments[1].value), "'x' || s.n");

  EXPECT_EQ(m.clauses[2].action, Action::kUpdateAll);
  EXPECT_FALSE(m.clauses[2].condition);
  EXPECT_TRUE(m.clauses[2].except.empty());

  const MergeClause& insert = m.clauses[3];
  EXPECT_EQ(insert.kind, Kind::kNotMatched);
  EXPECT_EQ(insert.action, Action::kInsert);
  EXPECT_EQ(insert.insert_columns, (std::vector<Path>{{"id"}, {"info", "note"}, {"v"}}));
  ASSERT_EQ(insert.insert_values.size(), 3u);
  EXPECT_EQ(Sql(insert.insert_values[2]), "s.v + 1");

  EXPECT_EQ(m.clauses[4].kind, Kind::kNotMatched);
  EXPECT_EQ(m.clauses[4].action, Action::kInsertAll);

  EXPECT_EQ(m.clauses[5].kind, Kind::kNotMatchedBySource);
  EXPECT_EQ(m.clauses[5].action, Action::kDelete);
  EXPECT_EQ(Sql(m.clauses[5].condition), "t.day < DATE '2024-01-01'");
  EXPECT_EQ(m.clauses[6].kind, Kind::kNotMatchedBySource);
  EXPECT_EQ(m.clauses[6].action, Action::kUpdate);
  EXPECT_EQ(m.clauses[6].assignments[0].column, (Path{"stale"}));
}

TEST(SqlParserMerge, SchemaEvolutionAndStarExcept) {
  auto m = ParseAs<MergeStmt>(
      "merge with schema evolution into orders using new_orders on orders.id = "
      "new_orders.id when matched then update set * except (coupon, `x y`.z) "
      "when not matched then insert * except (coupon)");
  EXPECT_TRUE(m.schema_evolution);
  EXPECT_EQ(m.target_alias, "");
  EXPECT_EQ(m.source.alias, "");
  ASSERT_EQ(m.clauses.size(), 2u);
  EXPECT_EQ(m.clauses[0].action, Action::kUpdateAll);
  EXPECT_EQ(m.clauses[0].except, (std::vector<Path>{{"coupon"}, {"x y", "z"}}));
  EXPECT_EQ(m.clauses[1].action, Action::kInsertAll);
  EXPECT_EQ(m.clauses[1].except, (std::vector<Path>{{"coupon"}}));
}

TEST(SqlParserMerge, SourceKinds) {
  auto travel = ParseAs<MergeStmt>(
      "MERGE INTO t USING delta.`/src` VERSION AS OF 3 AS s ON t.k = s.k "
      "WHEN MATCHED THEN DELETE");
  EXPECT_EQ(travel.source.table.kind, TableRef::Kind::kPath);
  ASSERT_TRUE(travel.source.time_travel);
  EXPECT_EQ(travel.source.time_travel->version, std::optional<int64_t>(3));
  EXPECT_EQ(travel.source.alias, "s");

  auto file = ParseAs<MergeStmt>(
      "MERGE INTO t USING read_parquet('in/*.parquet') s ON t.k = s.k "
      "WHEN NOT MATCHED THEN INSERT *");
  EXPECT_EQ(file.source.kind, FromClause::Kind::kFunction);
  EXPECT_EQ(file.source.function, "read_parquet");
  EXPECT_EQ(file.source.alias, "s");

  auto query = ParseAs<MergeStmt>(
      "MERGE INTO t tt USING (SELECT k, max(v) AS v FROM src GROUP BY k) AS s "
      "ON tt.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v");
  EXPECT_EQ(query.target_alias, "tt");
  EXPECT_EQ(query.source.kind, FromClause::Kind::kSubquery);
  ASSERT_TRUE(query.source.subquery);
  EXPECT_EQ(query.source.subquery->group_by.size(), 1u);
  EXPECT_EQ(query.source.alias, "s");
}

TEST(SqlParserMerge, KindsMayInterleaveAndKeepTheirOrder) {
  auto m = ParseAs<MergeStmt>(
      "MERGE INTO t USING s ON t.k = s.k "
      "WHEN NOT MATCHED AND s.a THEN INSERT * "
      "WHEN MATCHED THEN DELETE "
      "WHEN NOT MATCHED THEN INSERT (k) VALUES (s.k)");
  ASSERT_EQ(m.clauses.size(), 3u);
  EXPECT_EQ(m.clauses[0].kind, Kind::kNotMatched);
  EXPECT_EQ(m.clauses[1].kind, Kind::kMatched);
  EXPECT_EQ(m.clauses[2].kind, Kind::kNotMatched);
  auto r = ParseStatement("MERGE INTO t USING s ON a = b WHEN MATCHED THEN DELETE");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(StatementKindName(r->body), "MERGE");
}

TEST(SqlParserMergeErrors, ClauseRules) {
  struct Case {
    const char* sql;
    const char* message;
  };
  const Case cases[] = {
      {"MERGE INTO t USING s ON t.k = s.k",
       "column 34: there must be at least one WHEN clause in a MERGE statement"},
      {"MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN DELETE "
       "WHEN MATCHED AND s.x THEN UPDATE SET *",
       "column 35: when there are more than one MATCHED clauses in a MERGE statement, "
       "only the last MATCHED clause can omit the condition"},
      {"MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED THEN INSERT * "
       "WHEN MATCHED THEN DELETE WHEN NOT MATCHED BY TARGET THEN INSERT *",
       "only the last NOT MATCHED [BY TARGET] clause can omit the condition"},
      {"MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED BY SOURCE THEN DELETE "
       "WHEN NOT MATCHED BY SOURCE THEN DELETE",
       "only the last NOT MATCHED BY SOURCE clause can omit the condition"},
      {"MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN INSERT *",
       "column 53: INSERT is not allowed in a WHEN MATCHED clause; only in WHEN NOT "
       "MATCHED [BY TARGET]"},
      {"MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED BY SOURCE THEN INSERT *",
       "INSERT is not allowed in a WHEN NOT MATCHED BY SOURCE clause"},
      {"MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED THEN UPDATE SET *",
       "UPDATE is not allowed in a WHEN NOT MATCHED [BY TARGET] clause (there is no "
       "target row); only INSERT is"},
      {"MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED THEN DELETE",
       "DELETE is not allowed in a WHEN NOT MATCHED [BY TARGET] clause"},
      {"MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED BY SOURCE THEN UPDATE SET *",
       "UPDATE SET * is not allowed in a WHEN NOT MATCHED BY SOURCE clause"},
      {"MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED THEN INSERT (a, b) VALUES "
       "(1)",
       "INSERT lists 2 column(s) but 1 value(s)"},
  };
  for (const Case& c : cases) {
    std::string headline = Headline(c.sql);
    EXPECT_NE(headline.find(c.message), std::string::npos) << c.sql << "\n" << headline;
  }
}

TEST(SqlParserMergeErrors, ExactCaretForAMissingThen) {
  EXPECT_EQ(ErrorOf("MERGE INTO t USING s ON t.k = s.k\n"
                    "WHEN MATCHED AND s.v > 1 UPDATE SET *"),
            "syntax error at line 2, column 26: expected 'THEN' but found 'UPDATE'\n"
            "  WHEN MATCHED AND s.v > 1 UPDATE SET *\n"
            "                           ^");
}

TEST(SqlParserMergeErrors, Syntax) {
  struct Case {
    const char* sql;
    const char* message;
  };
  const Case cases[] = {
      {"MERGE t USING s ON a = b WHEN MATCHED THEN DELETE", "expected 'INTO' but found"},
      {"MERGE INTO t s2 ON a = b WHEN MATCHED THEN DELETE",
       "expected 'USING' but found "
       "'ON'"},
      {"MERGE INTO t USING s WHEN MATCHED THEN DELETE", "expected 'ON' but found 'WHEN'"},
      {"MERGE INTO t USING s ON a = b WHEN MATCHED DELETE", "expected 'THEN'"},
      {"MERGE INTO t USING s ON a = b WHEN FOUND THEN DELETE",
       "expected 'MATCHED' or 'NOT MATCHED' but found 'FOUND'"},
      {"MERGE INTO t USING s ON a = b WHEN NOT MATCHED BY ME THEN INSERT *",
       "expected 'TARGET' or 'SOURCE' but found 'ME'"},
      {"MERGE INTO t USING s ON a = b WHEN MATCHED THEN UPSERT",
       "expected 'UPDATE' or 'DELETE' but found 'UPSERT'"},
      {"MERGE INTO t USING s ON a = b WHEN NOT MATCHED THEN INSERT VALUES (1)",
       "expected '*' or '(' and a column list but found 'VALUES'"},
      {"MERGE INTO t USING s ON a = b WHEN MATCHED THEN UPDATE SET a = ",
       "expected an expression but found end of input"},
      {"MERGE INTO t USING s ON a = b WHEN MATCHED THEN UPDATE SET a 1",
       "expected '=' but found '1'"},
      {"MERGE INTO t USING s ON a = b WHEN MATCHED THEN UPDATE SET * EXCEPT a",
       "expected '(' but found 'a'"},
      {"MERGE INTO t USING s ON a = b WHEN MATCHED THEN DELETE ELSE",
       "expected 'WHEN' or end of statement but found 'ELSE'"},
      {"MERGE INTO t VERSION AS OF 1 USING s ON a = b WHEN MATCHED THEN DELETE",
       "the target of MERGE cannot be read with time travel"},
  };
  for (const Case& c : cases) {
    std::string headline = Headline(c.sql);
    EXPECT_NE(headline.find(c.message), std::string::npos) << c.sql << "\n" << headline;
  }
}

TEST(SqlParserUpdate, AssignmentsAliasAndWhere) {
  auto u = ParseAs<UpdateStmt>(
      "UPDATE silver.orders AS o SET o.status = 'late', info.flag = NOT info.flag "
      "WHERE o.due < current_date()");
  EXPECT_EQ(u.table.parts, (Path{"silver", "orders"}));
  EXPECT_EQ(u.alias, "o");
  ASSERT_EQ(u.assignments.size(), 2u);
  EXPECT_EQ(u.assignments[0].column, (Path{"o", "status"}));
  EXPECT_EQ(Sql(u.assignments[0].value), "'late'");
  EXPECT_EQ(u.assignments[0].position, 30);
  EXPECT_EQ(u.assignments[1].column, (Path{"info", "flag"}));
  EXPECT_EQ(Sql(u.assignments[1].value), "NOT info.flag");
  EXPECT_EQ(Sql(u.where), "o.due < current_date()");
  // A bare alias, no alias, no WHERE; SET is not taken for an alias.
  EXPECT_EQ(ParseAs<UpdateStmt>("UPDATE t x SET a = 1").alias, "x");
  auto plain = ParseAs<UpdateStmt>("update delta.`/p` set a = a + 1");
  EXPECT_EQ(plain.alias, "");
  EXPECT_EQ(plain.table.kind, TableRef::Kind::kPath);
  EXPECT_FALSE(plain.where);
  auto r = ParseStatement("UPDATE t SET a = 1");
  ASSERT_TRUE(r);
  EXPECT_EQ(StatementKindName(r->body), "UPDATE");
}

TEST(SqlParserDelete, AliasAndWhere) {
  auto d = ParseAs<DeleteStmt>("DELETE FROM events e WHERE e.day < '2024-01-01'");
  EXPECT_EQ(d.table.parts, (Path{"events"}));
  EXPECT_EQ(d.alias, "e");
  EXPECT_EQ(Sql(d.where), "e.day < '2024-01-01'");
  auto all = ParseAs<DeleteStmt>("delete from db.events");
  EXPECT_EQ(all.alias, "");
  EXPECT_FALSE(all.where);
  EXPECT_EQ(ParseAs<DeleteStmt>("DELETE FROM t AS x").alias, "x");
  auto r = ParseStatement("DELETE FROM t");
  ASSERT_TRUE(r);
  EXPECT_EQ(StatementKindName(r->body), "DELETE");
}

TEST(SqlParserUpdateDeleteErrors, Syntax) {
  struct Case {
    const char* sql;
    const char* message;
  };
  const Case cases[] = {
      {"UPDATE t", "expected 'SET' but found end of input"},
      {"UPDATE t SET", "expected a column name but found end of input"},
      {"UPDATE t SET * ", "expected a column name but found '*'"},
      {"UPDATE t SET a = 1 WHERE", "expected an expression"},
      {"UPDATE t SET a = 1, WHERE b", "expected '=' but found 'b'"},
      {"UPDATE t VERSION AS OF 2 SET a = 1",
       "column 10: the target of UPDATE cannot be read with time travel"},
      {"DELETE t WHERE a = 1", "expected 'FROM' but found 't'"},
      {"DELETE FROM t WHERE", "expected an expression but found end of input"},
      {"DELETE FROM t WHERE a = 1 LIMIT 3",
       "expected end of statement but found 'LIMIT'"},
      {"DELETE FROM t TIMESTAMP AS OF '2024-01-01'",
       "the target of DELETE cannot be read with time travel"},
  };
  for (const Case& c : cases) {
    std::string headline = Headline(c.sql);
    EXPECT_NE(headline.find(c.message), std::string::npos) << c.sql << "\n" << headline;
  }
}

}  // namespace
}  // namespace deltaguard
