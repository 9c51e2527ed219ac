#include "deltaguard/expr/parser.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "deltaguard/expr/printer.h"

namespace deltaguard {
namespace {

std::string Canon(const std::string& sql) {
  auto e = ParseExpression(sql);
  EXPECT_TRUE(e) << sql << ": " << e.error().ToString();
  return e ? ToSql(**e) : "<error>";
}

Error ParseErr(const std::string& sql) {
  auto e = ParseExpression(sql);
  EXPECT_FALSE(e) << sql << " parsed as " << (e ? ToSql(**e) : "");
  return e ? Error{ErrorCode::kInternal, ""} : e.error();
}

const std::vector<std::string> kRoundTrip = {
    "1",
    "-1",
    "2147483647",
    "2147483648",
    "-2147483648",
    "9223372036854775807",
    "99999999999999999999",
    "1.5",
    "0.05",
    "-0.5",
    "1.5D",
    "1e3",
    "1.5E-3",
    "2F",
    "3L",
    "4S",
    "5Y",
    "7BD",
    "'abc'",
    "'it''s'",
    "'a\\'b'",
    "'tab\\there'",
    "'line\\nnext'",
    "'back\\\\slash'",
    "'50\\%'",
    "\"double\"",
    "'a' 'b'",
    "X'0A1b'",
    "TRUE",
    "false",
    "NULL",
    "DATE '2024-01-01'",
    "TIMESTAMP '2024-01-01 10:00:00'",
    "TIMESTAMP '2024-01-01T10:00:00.123456Z'",
    "TIMESTAMP_NTZ '2024-02-29 23:59:59'",
    "a",
    "A.b.C",
    "`weird name`.x",
    "`a.b`",
    "`back``tick`",
    "`select`",
    "`and`",
    "`1a`",
    "`current_date`",
    "a + b",
    "a - b - c",
    "a - (b - c)",
    "a * b + c",
    "a * (b + c)",
    "a / b % c",
    "a DIV b",
    "-a",
    "- -a",
    "-(1)",
    "-(-1)",
    "a - -1",
    "-(a + b)",
    "+a",
    "a || b || 'x'",
    "a = 1",
    "a == 1",
    "a <> 1",
    "a != 1",
    "a < 1",
    "a <= 1",
    "a > 1",
    "a >= 1",
    "a <=> NULL",
    "a = b = c",
    "a AND b OR c",
    "a AND (b OR c)",
    "(a OR b) AND c",
    "NOT a",
    "NOT NOT a",
    "NOT a = b",
    "NOT (a AND b)",
    "a IN (1, 2, 3)",
    "a NOT IN ('x', 'y')",
    "(a IN (1)) IN (TRUE)",
    "a BETWEEN 1 AND 10",
    "a NOT BETWEEN b + 1 AND c * 2",
    "a BETWEEN 1 AND 2 AND b",
    "name LIKE 'a%'",
    "name NOT LIKE '\\_x%'",
    "name ILIKE 'A%'",
    "name RLIKE '^a.*$'",
    "name REGEXP 'b+'",
    "a IS NULL",
    "a IS NOT NULL",
    "a IS TRUE",
    "a IS NOT FALSE",
    "(a IS NULL) = b",
    "a IS DISTINCT FROM b",
    "a IS NOT DISTINCT FROM b",
    "CASE WHEN a > 1 THEN 'big' ELSE 'small' END",
    "CASE a WHEN 1 THEN 'one' END",
    "CASE WHEN a THEN 1 WHEN b THEN 2 ELSE 3 END",
    "CAST(a AS INT)",
    "CAST(a AS decimal(10, 2))",
    "TRY_CAST(s AS DATE)",
    "CAST(x AS ARRAY<STRING>)",
    "CAST(x AS STRUCT<a: INT, `b c`: MAP<STRING, BIGINT>>)",
    "coalesce(a, b, 0)",
    "length(name) > 3",
    "lower(upper(trim(s)))",
    "substring(s, 2, 3)",
    "substr(s, -2)",
    "concat(a, '-', b)",
    "abs(x) + round(y, 2)",
    "current_date()",
    "current_timestamp",
    "date_add(d, 1) > current_date",
    "year(ts) = 2024",
    "to_date('2024-01-01')",
    "count(*)",
    "count(DISTINCT a)",
    "sum(x) / count(x)",
    "COUNT(*) > 0",
    "a.b.c IS NOT NULL AND `x y`.z IN (1, 2)",
    "((a))",
    "a -- comment\n + 1",
    "a /* block */ + 1",
    "concat ( num , text ) != '9i'",
    "price * quantity <= 1000.00 OR discount IS NULL",
    "row_number() OVER (PARTITION BY k ORDER BY v DESC NULLS LAST)",
    "rank() OVER (ORDER BY a, b DESC)",
    "sum(x) OVER (PARTITION BY a, b)",
    "sum(x) OVER ()",
    "avg(x) OVER (ORDER BY d ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)",
    "max(x) OVER (ORDER BY d RANGE BETWEEN UNBOUNDED PRECEDING AND 1.5 FOLLOWING)",
    "lag(x, 2, 0) IGNORE NULLS OVER (ORDER BY t) + 1",
    "count(*) OVER (PARTITION BY k ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)"};

TEST(ParserTest, InvalidUtf8IsASyntaxErrorAtItsPosition) {
  for (const std::string sql : {"s = 'a\xFF'", "`c\xC3` = 1", "x = 1 -- \xED\xA0\x80"}) {
    auto e = ParseExpression(sql);
    ASSERT_FALSE(e) << sql;
    EXPECT_EQ(e.error().code, ErrorCode::kParseError);
    EXPECT_NE(e.error().message.find("invalid UTF-8"), std::string::npos);
    EXPECT_NE(e.error().message.find(
                  "at position " + std::to_string(sql.find_first_of("\xFF\xC3\xED") + 1)),
              std::string::npos)
        << e.error().message;
  }
}

TEST(ParserTest, SyntaxErrorsEscapeControlCharactersOfTheStatement) {
  auto e = ParseExpression("a = \x1b[31m");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().message.find('\x1b'), std::string::npos) << e.error().message;
}

TEST(ParserTest, RoundTripIsStable) {
  for (const auto& sql : kRoundTrip) {
    SCOPED_TRACE(sql);
    auto first = ParseExpression(sql);
    ASSERT_TRUE(first) << first.error().ToString();
    std::string printed = ToSql(**first);
    auto second = ParseExpression(printed);
    ASSERT_TRUE(second) << printed << ": " << second.error().ToString();
    EXPECT_TRUE(**first == **second) << printed << " vs " << ToSql(**second);
    EXPECT_EQ(ToSql(**second), printed);
  }
  EXPECT_GE(kRoundTrip.size(), 100u);
}

// A lambda's parameters shadow columns in its body, the innermost lambda first; a
// parameter's fields are field accesses on it; the printed form parses back to the
// same tree.
TEST(ParserTest, LambdasResolveTheirParametersBeforeColumns) {
  for (const std::string sql :
       {"transform(a, x -> x + y)", "filter(a, (x, i) -> i > 0 AND x IS NOT NULL)",
        "transform(a, x -> transform(x.items, x -> x.price * 2))",
        "aggregate(a, 0, (acc, x) -> acc + x, acc -> acc * 10)"}) {
    auto first = ParseExpression(sql);
    ASSERT_TRUE(first) << sql << ": " << first.error().ToString();
    auto second = ParseExpression(ToSql(**first));
    ASSERT_TRUE(second) << ToSql(**first);
    EXPECT_TRUE(**first == **second) << ToSql(**first);
  }
  auto e = ParseExpression("transform(a, X -> x + y + x.f)");
  ASSERT_TRUE(e);
  const Expr& lambda = *(*e)->children[1];
  ASSERT_EQ(lambda.kind, ExprKind::kLambda);
  EXPECT_EQ(lambda.path, std::vector<std::string>{"X"});
  // ((x + y) + x.f): x is the parameter (names ignore case), y a column.
  const Expr& body = *lambda.children[0];
  ASSERT_EQ(body.children.size(), 3u);
  EXPECT_EQ(body.children[0]->kind, ExprKind::kLambdaVar);
  EXPECT_EQ(body.children[1]->kind, ExprKind::kColumn);
  EXPECT_EQ(body.children[2]->kind, ExprKind::kFunction);
  EXPECT_EQ(body.children[2]->text, ".");
  EXPECT_EQ(body.children[2]->children[0]->kind, ExprKind::kLambdaVar);
  EXPECT_EQ(ToSql(**e), "transform(a, X -> X + y + X.f)");
  // Outside a function's arguments `->` is not an expression.
  EXPECT_FALSE(ParseExpression("x -> x"));
  EXPECT_FALSE(ParseExpression("transform(a, (x, x) -> x)"));
}

TEST(ParserTest, CanonicalForms) {
  EXPECT_EQ(Canon("a==1 and not b or c"), "a = 1 AND NOT b OR c");
  EXPECT_EQ(Canon("a != 1"), "a <> 1");
  EXPECT_EQ(Canon("(a + b) * c"), "(a + b) * c");
  EXPECT_EQ(Canon("a + (b * c)"), "a + b * c");
  EXPECT_EQ(Canon("a or (b and c)"), "a OR b AND c");
  EXPECT_EQ(Canon("3000000000"), "3000000000L");
  EXPECT_EQ(Canon("1.5d"), "1.5D");
  EXPECT_EQ(Canon("x'ab'"), "X'AB'");
  EXPECT_EQ(Canon("'a' 'b'"), "'ab'");
  EXPECT_EQ(Canon("'it''s'"), "'it\\'s'");
  EXPECT_EQ(Canon("`a`.`b`"), "a.b");
  EXPECT_EQ(Canon("`weird name`"), "`weird name`");
  EXPECT_EQ(Canon("COALESCE(A, 1)"), "coalesce(A, 1)");
  EXPECT_EQ(Canon("cast(a as bigint)"), "CAST(a AS BIGINT)");
  EXPECT_EQ(Canon("a is distinct from b"), "NOT a <=> b");
  EXPECT_EQ(Canon("- 5"), "-5");
  EXPECT_EQ(Canon("date '2024-1-5'"), "DATE '2024-1-5'");
}

TEST(ParserTest, PrecedenceShapesTheTree) {
  auto e = ParseExpression("a OR b AND c");
  ASSERT_TRUE(e);
  EXPECT_EQ((*e)->op, ExprOp::kOr);
  EXPECT_EQ((*e)->children[1]->op, ExprOp::kAnd);

  e = ParseExpression("NOT a = b");
  ASSERT_TRUE(e);
  EXPECT_EQ((*e)->op, ExprOp::kNot);
  EXPECT_EQ((*e)->children[0]->op, ExprOp::kEq);

  e = ParseExpression("a BETWEEN 1 AND 2 AND c");
  ASSERT_TRUE(e);
  EXPECT_EQ((*e)->op, ExprOp::kAnd);
  EXPECT_EQ((*e)->children[0]->kind, ExprKind::kBetween);

  e = ParseExpression("1 + 2 * 3 - 4");
  ASSERT_TRUE(e);
  EXPECT_EQ((*e)->op, ExprOp::kSubtract);
  EXPECT_EQ((*e)->children[0]->op, ExprOp::kAdd);
  EXPECT_EQ((*e)->children[0]->children[1]->op, ExprOp::kMultiply);
}

TEST(ParserTest, LiteralKindsFollowSpark) {
  auto kind = [](const std::string& sql) {
    auto e = ParseExpression(sql);
    EXPECT_TRUE(e) << sql;
    return e ? (*e)->literal_kind : LiteralKind::kNull;
  };
  EXPECT_EQ(kind("1"), LiteralKind::kInteger);
  EXPECT_EQ(kind("-2147483648"), LiteralKind::kInteger);
  EXPECT_EQ(kind("2147483648"), LiteralKind::kLong);
  EXPECT_EQ(kind("9223372036854775808"), LiteralKind::kDecimal);
  EXPECT_EQ(kind("1.5"), LiteralKind::kDecimal);
  EXPECT_EQ(kind("1.5D"), LiteralKind::kDouble);
  EXPECT_EQ(kind("1e3"), LiteralKind::kDouble);
  EXPECT_EQ(kind("1Y"), LiteralKind::kByte);
  EXPECT_EQ(kind("'x'"), LiteralKind::kString);
  EXPECT_EQ(kind("X'00'"), LiteralKind::kBinary);
  EXPECT_EQ(kind("TIMESTAMP_NTZ '2024-01-01'"), LiteralKind::kTimestampNtz);
}

TEST(ParserTest, NamesAreCaseInsensitiveKeywords) {
  auto e = ParseExpression("a iS nOt NuLl");
  ASSERT_TRUE(e);
  EXPECT_EQ((*e)->kind, ExprKind::kIsNull);
  EXPECT_TRUE((*e)->negated);
  // DATE and YEAR stay usable as column names where they cannot be keywords.
  e = ParseExpression("date = DATE '2024-01-01' AND year(date) = 2024");
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_EQ(ToSql(**e), "date = DATE '2024-01-01' AND year(date) = 2024");
}

TEST(ParserTest, ErrorsShowPositionAndCaret) {
  Error err = ParseErr("a + (b * 2");
  EXPECT_EQ(err.code, ErrorCode::kParseError);
  EXPECT_EQ(err.message,
            "expected ')' but found end of input at position 11\n"
            "  a + (b * 2\n"
            "            ^");
  err = ParseErr("a = = 1");
  EXPECT_NE(err.message.find("expected an expression but found '=' at position 5"),
            std::string::npos)
      << err.message;
  EXPECT_NE(err.message.find("\n  a = = 1\n      ^"), std::string::npos) << err.message;
  err = ParseErr("a IN 1");
  EXPECT_NE(err.message.find("expected '('"), std::string::npos) << err.message;
  err = ParseErr("CASE WHEN a THEN 1");
  EXPECT_NE(err.message.find("expected END"), std::string::npos) << err.message;
  err = ParseErr("a b");
  EXPECT_NE(err.message.find("expected end of expression but found 'b' at position 3"),
            std::string::npos)
      << err.message;
}

TEST(ParserTest, RejectsBadInput) {
  for (const char* bad : {"",
                          "(",
                          ")",
                          "a +",
                          "'unterminated",
                          "`x",
                          "1.2.3",
                          "12abc",
                          "x'0'",
                          "x'zz'",
                          "DATE '2024-13-01'",
                          "DATE 'nope'",
                          "TIMESTAMP '2024-01-01 25:00:00'",
                          "TIMESTAMP_NTZ '2024-01-01 00:00:00Z'",
                          "CAST(a AS nosuchtype)",
                          "CAST(a)",
                          "a NOT",
                          "a IS 5",
                          "f(",
                          "f(*, 1)",
                          "f() OVER",
                          "f() OVER 1",
                          "f() OVER (ORDER BY)",
                          "f() OVER (ROWS BETWEEN 1 AND 2)",
                          "f() OVER (ROWS UNBOUNDED)",
                          "f() OVER (PARTITION a)",
                          "f() IGNORE NULLS",
                          "(SELECT 1)",
                          "EXISTS (SELECT 1)",
                          "a.b(1)",
                          "a.1",
                          "1e",
                          "128Y",
                          "a $ b",
                          "/* open",
                          "99999999999999999999999999999999999999999",
                          "INTERVAL '1' DAY",
                          "a BETWEEN 1",
                          "CASE END",
                          "'\\u12'"}) {
    SCOPED_TRACE(bad);
    auto e = ParseExpression(bad);
    ASSERT_FALSE(e) << ToSql(**e);
    EXPECT_EQ(e.error().code, ErrorCode::kParseError);
    EXPECT_NE(e.error().message.find("position"), std::string::npos) << e.error().message;
  }
}

TEST(ParserTest, DeepNestingIsAnErrorNotACrash) {
  std::string deep(5000, '(');
  deep += "1";
  deep += std::string(5000, ')');
  auto e = ParseExpression(deep);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("nested too deeply"), std::string::npos);
  std::string nots;
  for (int i = 0; i < 5000; ++i) nots += "NOT ";
  EXPECT_FALSE(ParseExpression(nots + "a"));
  std::string minus(5000, '-');
  EXPECT_FALSE(ParseExpression("- " + std::string(3000, ' ') + minus));
}

// `OVER w` names a window of the query's WINDOW clause; it prints back as written.
TEST(ParserTest, NamedWindowReference) {
  auto e = ParseExpression("sum(x) OVER w");
  ASSERT_TRUE(e) << e.error().ToString();
  ASSERT_EQ((*e)->kind, ExprKind::kWindow);
  EXPECT_EQ((*e)->window->name, "w");
  EXPECT_EQ(ToSql(**e), "sum(x) OVER w");
  auto again = ParseExpression(ToSql(**e));
  ASSERT_TRUE(again);
  EXPECT_TRUE(**again == **e);
}

// Random token soup: must never crash; whatever parses must round-trip.
TEST(ParserTest, TokenSoupNeverCrashes) {
  const std::vector<std::string> tokens = {
      "a",    "b.c",  "`x y`",    "1",     "2.5",   "1e3",  "'s'",
      "NULL", "TRUE", "(",        ")",     ",",     "+",    "-",
      "*",    "/",    "%",        "=",     "<>",    "<=>",  "<",
      ">=",   "AND",  "OR",       "NOT",   "IN",    "IS",   "BETWEEN",
      "LIKE", "CASE", "WHEN",     "THEN",  "ELSE",  "END",  "CAST",
      "AS",   "INT",  "f",        "count", "*",     "DATE", "'2024-01-01'",
      "DIV",  "||",   "DISTINCT", "FROM",  "X'0A'", "--",   "\n",
      ".",    "[",    "]"};
  std::mt19937 rng(42);
  int parsed = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string sql;
    int n = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) sql += tokens[rng() % tokens.size()] + " ";
    auto e = ParseExpression(sql);
    if (!e) {
      ASSERT_EQ(e.error().code, ErrorCode::kParseError) << sql;
      continue;
    }
    ++parsed;
    std::string printed = ToSql(**e);
    auto again = ParseExpression(printed);
    ASSERT_TRUE(again) << sql << " -> " << printed << ": " << again.error().ToString();
    ASSERT_TRUE(**again == **e) << sql << " -> " << printed;
  }
  EXPECT_GT(parsed, 100);
}

}  // namespace
}  // namespace deltaguard
