// Errors, scripts, the shell's completeness check, the depth guard and a fuzz-style
// robustness test of the SQL parser.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "deltaguard/expr/parser.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/sql/parse/parser_test_util_internal.h"
#include "deltaguard/sql/parse/sql_parser.h"

namespace deltaguard {
namespace {

using testing::ErrorOf;
using testing::Headline;

TEST(SqlParserErrors, ExactCaretForAMissingKeyword) {
  EXPECT_EQ(ErrorOf("INSERT t VALUES (1)"),
            "syntax error at line 1, column 8: expected 'INTO' or 'OVERWRITE' but "
            "found 't'\n"
            "  INSERT t VALUES (1)\n"
            "         ^");
}

TEST(SqlParserErrors, ExactCaretInsideAnExpressionOnLaterLine) {
  EXPECT_EQ(ErrorOf("SELECT 1;\nSELECT a FROM t WHERE a = = 1;"),
            "syntax error at line 2, column 27: expected an expression but found '='\n"
            "  SELECT a FROM t WHERE a = = 1;\n"
            "                            ^");
}

TEST(SqlParserErrors, ExactCaretForABadColumnType) {
  EXPECT_EQ(ErrorOf("CREATE TABLE t (\n  id INT,\n  name STRNG\n)"),
            "syntax error at line 3, column 8: invalid type 'STRNG' for column 'name'\n"
            "    name STRNG\n"
            "         ^");
}

TEST(SqlParserErrors, ColumnsCountCodePoints) {
  // 'é' is two bytes but one column.
  std::string message = ErrorOf("SELECT 'h\xc3\xa9llo' FRM t");
  EXPECT_EQ(message.substr(0, message.find('\n')),
            "syntax error at line 1, column 20: expected end of statement but found 't'");
  EXPECT_EQ(message.substr(message.rfind('\n') + 1), std::string(21, ' ') + "^");
}

TEST(SqlParserErrors, LexerErrorsUseScriptLines) {
  EXPECT_EQ(Headline("SELECT 1;\nSELECT 'oops"),
            "syntax error at line 2, column 8: unterminated string literal");
  EXPECT_EQ(Headline("SELECT 1 /* never closed"),
            "syntax error at line 1, column 10: unterminated comment");
  EXPECT_EQ(Headline("SELECT a ? b"),
            "syntax error at line 1, column 10: unexpected character '?'");
}

TEST(SqlParserErrors, Syntax) {
  EXPECT_NE(Headline("FROBNICATE t").find("expected a statement"), std::string::npos);
  EXPECT_NE(Headline("SELECT a, FROM t").find("expected an expression but found 'FROM'"),
            std::string::npos);
  EXPECT_NE(Headline("SELECT 1 2").find("expected end of statement but found '2'"),
            std::string::npos);
  EXPECT_NE(Headline("SELECT * FROM t LIMIT x")
                .find("expected a row count after LIMIT (a non-negative integer) but "
                      "found 'x'"),
            std::string::npos);
  EXPECT_NE(Headline("SELECT * FROM t LIMIT -1").find("non-negative"), std::string::npos);
  EXPECT_NE(
      Headline("SELECT * FROM t ORDER BY a NULLS").find("expected 'FIRST' or 'LAST'"),
      std::string::npos);
  EXPECT_NE(Headline("SELECT * FROM t VERSION AS OF 'abc'").find("table version"),
            std::string::npos);
  EXPECT_NE(Headline("VALUES (1, 2").find("expected ')' but found end of input"),
            std::string::npos);
  EXPECT_NE(
      Headline("SELECT * FROM read_csv('x', header => )").find("expected an expression"),
      std::string::npos);
  EXPECT_NE(Headline("SELECT * FROM db.").find("expected a name after '.'"),
            std::string::npos);
  EXPECT_NE(Headline("INSERT INTO t").find("expected a column list, 'BY NAME', 'VALUES'"),
            std::string::npos);
  EXPECT_NE(Headline("INSERT OVERWRITE t REPLACE WHERE a = 1 SELECT 1")
                .find("REPLACE WHERE goes with INSERT INTO"),
            std::string::npos);
  EXPECT_NE(Headline("SHOW COLUMNS IN a.t IN b").find("names two databases"),
            std::string::npos);
  EXPECT_NE(Headline("SHOW COLUMNS t").find("expected 'IN' or 'FROM'"),
            std::string::npos);
  EXPECT_NE(Headline("SET = 1").find("expected a setting name before '='"),
            std::string::npos);
  EXPECT_NE(Headline("DROP").find("expected 'TABLE', 'VIEW', 'DATABASE' or 'SCHEMA'"),
            std::string::npos);
  EXPECT_NE(Headline("CREATE TEMP VIEW v SELECT 1").find("expected 'AS'"),
            std::string::npos);
}

TEST(SqlParserErrors, CreateTable) {
  EXPECT_NE(Headline("CREATE TABLE t (a INT) LOCATION '/a' LOCATION '/b'")
                .find("column 38: duplicate LOCATION clause"),
            std::string::npos);
  EXPECT_NE(Headline("CREATE TABLE t (a INT, A STRING)")
                .find("duplicate column name 'A': conflicts case-insensitively with 'a'"),
            std::string::npos);
  EXPECT_NE(Headline("CREATE TABLE t (a INT NOT NULL NOT NULL)")
                .find("duplicate NOT NULL clause"),
            std::string::npos);
  EXPECT_NE(Headline("CREATE TABLE t (a INT) TBLPROPERTIES ('k' = '1', k = '2')")
                .find("duplicate table property 'k'"),
            std::string::npos);
  EXPECT_NE(Headline("CREATE OR REPLACE TABLE IF NOT EXISTS t (a INT)")
                .find("IF NOT EXISTS cannot be combined with OR REPLACE"),
            std::string::npos);
  EXPECT_NE(Headline("CREATE TABLE t ()").find("expected a column name but found ')'"),
            std::string::npos);
  EXPECT_NE(Headline("CREATE TABLE t (a INT b INT)")
                .find("expected ',' or ')' in the column list but found 'b'"),
            std::string::npos);
  EXPECT_NE(Headline("CREATE TABLE t (a ARRAY<INT").find("expected the end of column"),
            std::string::npos);
  EXPECT_NE(Headline("CREATE TABLE t (a ARRAY<INT)").find("invalid type 'ARRAY<INT)'"),
            std::string::npos);
  EXPECT_NE(Headline("CREATE TABLE t (a INT) TBLPROPERTIES (k = x)")
                .find("expected a property value"),
            std::string::npos);
}

TEST(SqlParserErrors, UnsupportedStatementsAndFeatures) {
  struct Case {
    const char* sql;
    const char* message;
  };
  const Case cases[] = {
      {"ALTER VIEW v RENAME TO w", "ALTER VIEW is not supported yet"},
      {"ALTER TABLE t SET LOCATION '/x'", "ALTER TABLE SET LOCATION is not supported"},
      {"OPTIMIZE t", "OPTIMIZE is not supported yet"},
      {"VACUUM t LITE", "VACUUM LITE is not supported yet"},
      {"CACHE TABLE t", "CACHE TABLE is not supported yet"},
      {"WITH RECURSIVE x AS (SELECT 1) SELECT * FROM x",
       "WITH RECURSIVE is not supported"},
      {"SELECT * FROM a LATERAL (SELECT 1)",
       "LATERAL (other than LATERAL VIEW) is not supported yet"},
      {"SELECT * FROM t LIMIT 1 OFFSET 2", "OFFSET is not supported yet"},
      {"SELECT * FROM parquet.`/x`", "parquet.`path` (use read_parquet('path'))"},
      {"CREATE TABLE t (a INT) CLUSTER BY (a)", "CLUSTER BY (liquid clustering)"},
      {"CREATE TABLE t (a INT GENERATED ALWAYS AS (1))",
       "column option GENERATED (column 'a') is not supported yet"},
      {"CREATE TABLE t (a INT DEFAULT 1)", "column option DEFAULT (column 'a')"},
      {"CREATE TABLE t (a INT CONSTRAINT c CHECK (a > 0))",
       "column option CONSTRAINT (column 'a')"},
      {"CREATE TABLE t (a INT, CONSTRAINT c CHECK (a > 0))",
       "table constraints in CREATE TABLE"},
      {"CREATE VIEW v AS SELECT 1", "CREATE VIEW (only TEMP views)"},
      {"CREATE FUNCTION f AS 'x'", "CREATE FUNCTION is not supported yet"},
      {"CREATE TABLE t SHALLOW CLONE s", "CREATE TABLE CLONE"},
      {"SHOW CREATE TABLE t", "SHOW CREATE TABLE is not supported yet"},
      {"DROP FUNCTION f", "DROP FUNCTION is not supported yet"},
      {"DESCRIBE t a", "DESCRIBE of a single column"},
      {"INSERT INTO t PARTITION (p = 1) VALUES (1)", "INSERT with a PARTITION clause"},
  };
  for (const Case& c : cases) {
    std::string message = ErrorOf(c.sql, ErrorCode::kUnsupportedFeature);
    EXPECT_NE(message.find(c.message), std::string::npos) << c.sql << "\n" << message;
  }
}

TEST(SqlParserErrors, JoinSyntax) {
  const std::pair<const char*, const char*> cases[] = {
      {"SELECT * FROM a NATURAL b", "expected a join after NATURAL"},
      {"SELECT * FROM a CROSS JOIN b ON true", "a CROSS join takes no ON or USING"},
      {"SELECT * FROM a NATURAL JOIN b USING (x)", "a NATURAL join takes no ON or USING"},
      {"SELECT * FROM a LEFT b", "expected JOIN"},
      {"SELECT * FROM a JOIN b USING ()", "expected a column name"},
  };
  for (const auto& [sql, message] : cases) {
    std::string got = ErrorOf(sql, ErrorCode::kParseError);
    EXPECT_NE(got.find(message), std::string::npos) << sql << "\n" << got;
  }
}

TEST(SqlParserScript, SplitsStatementsWithTextOffsetAndLine) {
  std::string script =
      "-- header\nSELECT 1;;\n  /* c */ INSERT INTO t VALUES (';');\nSET a = b -- x\n";
  auto r = ParseSql(script);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].text, "SELECT 1");
  EXPECT_EQ((*r)[0].line, 2);
  EXPECT_EQ((*r)[0].offset, 10);
  EXPECT_EQ((*r)[1].text, "INSERT INTO t VALUES (';')");
  EXPECT_EQ((*r)[1].line, 3);
  EXPECT_EQ(script.substr((*r)[1].offset, (*r)[1].text.size()), (*r)[1].text);
  EXPECT_EQ((*r)[2].text, "SET a = b");
  EXPECT_EQ(std::get<SetStmt>((*r)[2].body).value, std::optional<std::string>("b"));
  auto empty = ParseSql(" ; -- nothing\n;");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

TEST(SqlParserScript, PositionsAreRelativeToTheStatementText) {
  auto r = ParseSql("SELECT 1;\nSELECT a FROM t WHERE b = 1");
  ASSERT_TRUE(r) << r.error().message;
  const auto& select = std::get<SelectStmt>((*r)[1].body);
  EXPECT_EQ(select.from.table.position, 14);
  EXPECT_EQ(select.where->children[0]->position, 22);
  EXPECT_EQ(select.from.position, 14);
}

TEST(SqlParserScript, ParseStatementWantsExactlyOne) {
  auto one = ParseStatement("  SELECT 1 ;  ");
  ASSERT_TRUE(one) << one.error().message;
  EXPECT_EQ(one->text, "SELECT 1");
  auto two = ParseStatement("SELECT 1; SELECT 2");
  ASSERT_FALSE(two);
  EXPECT_NE(two.error().message.find(
                "column 11: expected one statement but found another starting with "
                "'SELECT'"),
            std::string::npos);
  auto none = ParseStatement("-- only a comment");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("expected a statement but found end of input"),
            std::string::npos);
}

TEST(SqlParserScript, EndsWithCompleteStatement) {
  EXPECT_TRUE(EndsWithCompleteStatement("SELECT 1;"));
  EXPECT_TRUE(EndsWithCompleteStatement("SELECT 1;\n\n  "));
  EXPECT_TRUE(EndsWithCompleteStatement("SELECT 1; -- done"));
  EXPECT_TRUE(EndsWithCompleteStatement("SELECT 1; /* done */"));
  EXPECT_TRUE(EndsWithCompleteStatement("SELECT 'it''s';"));
  EXPECT_TRUE(EndsWithCompleteStatement("SELECT 'a\\'b';"));
  EXPECT_TRUE(EndsWithCompleteStatement("SELECT `a``b`;"));
  EXPECT_FALSE(EndsWithCompleteStatement(""));
  EXPECT_FALSE(EndsWithCompleteStatement("SELECT 1"));
  EXPECT_FALSE(EndsWithCompleteStatement("SELECT ';'"));
  EXPECT_FALSE(EndsWithCompleteStatement("SELECT \"x;\""));
  EXPECT_FALSE(EndsWithCompleteStatement("SELECT 'a\\';"));
  EXPECT_FALSE(EndsWithCompleteStatement("SELECT `a;`"));
  EXPECT_FALSE(EndsWithCompleteStatement("SELECT 1 -- ;"));
  EXPECT_FALSE(EndsWithCompleteStatement("SELECT 1 /* ; */"));
  EXPECT_FALSE(EndsWithCompleteStatement("SELECT 1; /* open"));
  EXPECT_FALSE(EndsWithCompleteStatement("SELECT 1;\nSELECT 2"));
}

TEST(SqlParserLimits, NestedSubqueriesAreGuarded) {
  auto nested = [](int depth) {
    std::string sql;
    for (int i = 0; i < depth; ++i) sql += "SELECT * FROM (";
    sql += "SELECT 1";
    sql += std::string(depth, ')');
    return sql;
  };
  auto ok = ParseSql(nested(30));
  EXPECT_TRUE(ok) << ok.error().message;
  EXPECT_NE(ErrorOf(nested(100)).find("queries nested deeper than 64 levels"),
            std::string::npos);
  EXPECT_NE(ErrorOf(nested(100000)).find("nested deeper"), std::string::npos);
  EXPECT_NE(ErrorOf(std::string(100000, '(')).find("nested deeper"), std::string::npos);
  EXPECT_NE(ErrorOf("SELECT " + std::string(100000, '(') + "1").find("nested too deeply"),
            std::string::npos);
}

TEST(SqlParserExprEntry, ParsesOneExpressionAndStops) {
  std::string_view sql = "a + 1 FROM t";
  auto tokens = internal::Tokenize(sql);
  ASSERT_TRUE(tokens);
  internal::SyntaxErrorFn error = [sql](int32_t pos, std::string_view what) {
    return internal::ExprSyntaxError(sql, pos, what);
  };
  size_t index = 0;
  auto e = internal::ParseExpressionAt(sql, *tokens, &index, error);
  ASSERT_TRUE(e) << e.error().message;
  EXPECT_EQ(ToSql(**e), "a + 1");
  EXPECT_EQ(index, 3u);
  EXPECT_EQ((*tokens)[index].text, "FROM");
  size_t at_end = tokens->size() - 1;
  EXPECT_FALSE(internal::ParseExpressionAt(sql, *tokens, &at_end, error));
  EXPECT_EQ(at_end, tokens->size() - 1);  // unchanged on error
}

TEST(SqlParserExprEntry, LexerKnowsArrowAndSemicolon) {
  auto tokens = internal::Tokenize("f(x => 1);");
  ASSERT_TRUE(tokens);
  ASSERT_EQ(tokens->size(), 8u);
  EXPECT_EQ((*tokens)[3].text, "=>");
  EXPECT_EQ((*tokens)[6].text, ";");
  // Comparison operators still lex as before.
  auto cmp = internal::Tokenize("a>=b<=>c");
  ASSERT_TRUE(cmp);
  EXPECT_EQ((*cmp)[1].text, ">=");
  EXPECT_EQ((*cmp)[3].text, "<=>");
}

// Every prefix of every statement and random byte mutations: the parser must return
// (an Ok or a parse/unsupported error), never crash or report an internal error.
TEST(SqlParserFuzz, PrefixesAndMutationsNeverCrash) {
  const std::vector<std::string> corpus = {
      "SELECT DISTINCT a + 1 AS x, t.*, * EXCEPT (b) FROM t AS o WHERE a IN (1, 2) "
      "GROUP BY a HAVING count(*) > 1 ORDER BY x DESC NULLS LAST LIMIT 3;",
      "SELECT * FROM delta.`/d` FOR VERSION AS OF 2 x;",
      "SELECT * FROM t TIMESTAMP AS OF '2024-01-01';",
      "SELECT * FROM read_csv('a/*.csv', header => true, delimiter => ';');",
      "SELECT s.a FROM (SELECT a FROM (VALUES (1), (2)) AS v(a)) s;",
      "VALUES (1, 'a'), (2, 'b') AS t(x, y);",
      "INSERT WITH SCHEMA EVOLUTION INTO TABLE t (a, b) VALUES (1, CAST('2' AS INT));",
      "INSERT INTO t BY NAME REPLACE WHERE d = DATE'2024-01-01' SELECT * FROM s;",
      "INSERT OVERWRITE t TABLE s;",
      "CREATE OR REPLACE TABLE s.t (id BIGINT NOT NULL COMMENT 'k', m "
      "MAP<STRING, STRUCT<a: INT>>, v VARCHAR(3)) USING DELTA PARTITIONED BY (id) "
      "LOCATION '/x' COMMENT 'c' TBLPROPERTIES ('a.b' = 'c', d.e = 1, f = true);",
      "CREATE TABLE t AS SELECT 1 AS a;",
      "CREATE SCHEMA IF NOT EXISTS s LOCATION '/w';",
      "CREATE TEMP VIEW v AS SELECT * FROM t;",
      "DROP VIEW IF EXISTS v; DROP DATABASE s CASCADE; DROP TABLE IF EXISTS t PURGE;",
      "DESCRIBE TABLE EXTENDED t; DESCRIBE HISTORY t LIMIT 1; DESCRIBE DETAIL '/p';",
      "SHOW TBLPROPERTIES t ('k'); SHOW COLUMNS IN t IN s; SHOW TABLES IN s LIKE 'x';",
      "SHOW DATABASES; SET a.b = 'c'; SET a; SET; RESET a; RESET; USE DATABASE s;",
      "/* c */ SELECT 'it''s', `q``b`, X'0A', -1.5e3, 2L -- end\n;",
      "ALTER TABLE t ADD COLUMNS (c INT NOT NULL COMMENT 'x' FIRST, s.`d e` "
      "ARRAY<STRUCT<f: INT>> AFTER c); ALTER TABLE t ADD COLUMN c VARCHAR(3);",
      "ALTER TABLE delta.`/p` RENAME COLUMN a.b TO c; ALTER TABLE t RENAME TO u;",
      "ALTER TABLE t DROP COLUMNS IF EXISTS (a, b.c); ALTER TABLE t DROP COLUMN a;",
      "ALTER TABLE t ALTER COLUMN s.n TYPE DECIMAL(12, 2); ALTER TABLE t ALTER c SET "
      "NOT NULL; ALTER TABLE t CHANGE COLUMN c DROP NOT NULL; ALTER TABLE t ALTER "
      "COLUMN c COMMENT 'x'; ALTER TABLE t CHANGE c AFTER d;",
      "ALTER TABLE t CHANGE COLUMN c c BIGINT COMMENT 'k' FIRST;",
      "ALTER TABLE t SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name', a.b = 1); "
      "ALTER TABLE t UNSET TBLPROPERTIES IF EXISTS ('a', b.c);",
      "ALTER TABLE t ADD CONSTRAINT c CHECK (a > 0 AND b IN ('x', 'y')); ALTER TABLE t "
      "DROP CONSTRAINT IF EXISTS c;",
      "MERGE WITH SCHEMA EVOLUTION INTO db.t AS t USING (SELECT * FROM s) AS s ON "
      "t.k = s.k WHEN MATCHED AND s.d THEN DELETE WHEN MATCHED THEN UPDATE SET t.a = "
      "s.a, t.b.c = 1 WHEN NOT MATCHED AND s.x > 0 THEN INSERT (k, a) VALUES (s.k, "
      "s.a) WHEN NOT MATCHED BY TARGET THEN INSERT * EXCEPT (x) WHEN NOT MATCHED BY "
      "SOURCE THEN UPDATE SET old = true;",
      "MERGE INTO t USING read_parquet('s/*.parquet') s ON t.k = s.k WHEN MATCHED "
      "THEN UPDATE SET * EXCEPT (c);",
      "UPDATE t AS x SET x.a = x.a + 1, b.c = 'z' WHERE x.k = 1; DELETE FROM t y "
      "WHERE y.k IS NULL; DELETE FROM t;",
  };
  auto check = [](std::string_view sql) {
    auto r = ParseSql(sql);
    if (!r) {
      ErrorCode code = r.error().code;
      EXPECT_TRUE(code == ErrorCode::kParseError ||
                  code == ErrorCode::kUnsupportedFeature)
          << sql << "\n"
          << r.error().message;
    }
    (void)EndsWithCompleteStatement(sql);
  };
  for (const std::string& sql : corpus) {
    auto full = ParseSql(sql);
    EXPECT_TRUE(full || full.error().code == ErrorCode::kUnsupportedFeature)
        << sql << "\n"
        << full.error().message;
    for (size_t n = 0; n <= sql.size(); ++n) check(std::string_view(sql).substr(0, n));
  }
  std::mt19937 rng(20240601);
  const std::string interesting =
      "'`\"();,.*=<>-/ \n\\\xc3\xa9"
      "aZ9_";
  for (int round = 0; round < 3000; ++round) {
    std::string sql = corpus[rng() % corpus.size()];
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits && !sql.empty(); ++k) {
      size_t at = rng() % sql.size();
      char c = rng() % 2 ? interesting[rng() % interesting.size()]
                         : static_cast<char>(rng() % 256);
      switch (rng() % 3) {
        case 0:
          sql[at] = c;
          break;
        case 1:
          sql.insert(sql.begin() + static_cast<std::ptrdiff_t>(at), c);
          break;
        default:
          sql.erase(at, 1);
      }
    }
    check(sql);
  }
}

}  // namespace
}  // namespace deltaguard
