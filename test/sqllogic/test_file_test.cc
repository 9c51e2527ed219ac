#include "sqllogic/test_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace deltaguard::sqllogic {
namespace {

TestFile MustParse(std::string_view text) {
  auto file = ParseTestFile(text, "t.test");
  EXPECT_TRUE(file.has_value()) << (file ? "" : file.error().ToString());
  return file ? *file : TestFile{};
}

std::string ParseErrorOf(std::string_view text) {
  auto file = ParseTestFile(text, "t.test");
  EXPECT_FALSE(file.has_value());
  if (file) return "";
  EXPECT_EQ(file.error().code, ErrorCode::kParseError);
  return file.error().message;
}

TEST(ParseTestFile, HeaderComments) {
  auto f = MustParse(
      "# name: test/sql/select/basic.test\n"
      "# description: a simple select\n"
      "# group: [select]\n"
      "# another comment\n");
  EXPECT_EQ(f.name, "test/sql/select/basic.test");
  EXPECT_EQ(f.description, "a simple select");
  EXPECT_EQ(f.group, "[select]");
  EXPECT_TRUE(f.records.empty());
}

TEST(ParseTestFile, StatementOkMultiLine) {
  auto f = MustParse("statement ok\nCREATE TABLE t\n  (a INT)\n\nstatement ok\nSELECT 1");
  ASSERT_EQ(f.records.size(), 2u);
  EXPECT_EQ(f.records[0].kind, Record::Kind::kStatementOk);
  EXPECT_EQ(f.records[0].sql, "CREATE TABLE t\n  (a INT)");
  EXPECT_EQ(f.records[0].line, 1);
  EXPECT_EQ(f.records[0].connection, "");
  EXPECT_EQ(f.records[1].sql, "SELECT 1");
  EXPECT_EQ(f.records[1].line, 5);
}

TEST(ParseTestFile, StatementErrorWithAndWithoutMessage) {
  auto f = MustParse(
      "statement error\nINSERT t VALUES (1)\n----\nsyntax error at line 1\n"
      "  INSERT t VALUES (1)\n         ^\n\n"
      "statement error\nSELECT x\n\n"
      "statement error con2\nSELECT y\n----\n<REGEX>:col.*y\n");
  ASSERT_EQ(f.records.size(), 3u);
  EXPECT_EQ(f.records[0].kind, Record::Kind::kStatementError);
  EXPECT_TRUE(f.records[0].has_expected_error);
  EXPECT_EQ(f.records[0].expected_error,
            "syntax error at line 1\n  INSERT t VALUES (1)\n         ^");
  EXPECT_FALSE(f.records[1].has_expected_error);
  EXPECT_EQ(f.records[2].connection, "con2");
  EXPECT_EQ(f.records[2].expected_error, "<REGEX>:col.*y");
}

TEST(ParseTestFile, StatementOkWithResultIsAnError) {
  EXPECT_THAT(ParseErrorOf("statement ok\nSELECT 1\n----\n1\n"),
              HasSubstr("t.test:3: 'statement ok' takes no '----'"));
}

TEST(ParseTestFile, StatementNeedsOkOrErrorAndSql) {
  EXPECT_THAT(ParseErrorOf("statement maybe\nSELECT 1\n"),
              HasSubstr("expected 'statement ok' or 'statement error'"));
  EXPECT_THAT(ParseErrorOf("statement ok\n\nSELECT 1\n"),
              HasSubstr("t.test:1: statement without SQL"));
  EXPECT_THAT(ParseErrorOf("statement ok con1 extra\nSELECT 1\n"),
              HasSubstr("too many arguments"));
}

TEST(ParseTestFile, QueryTypesSortAndConnection) {
  auto f = MustParse(
      "query IT\nSELECT 1, 'a'\n----\n1\ta\n\n"
      "query I rowsort\nSELECT 1\n----\n1\n\n"
      "query I valuesort con1\nSELECT 1\n----\n1\n\n"
      "query T con2\nSELECT 'x'\n----\nx\n\n"
      "query R nosort\nSELECT 1.5\n----\n1.5\n");
  ASSERT_EQ(f.records.size(), 5u);
  EXPECT_EQ(f.records[0].kind, Record::Kind::kQuery);
  EXPECT_EQ(f.records[0].types, "IT");
  EXPECT_EQ(f.records[0].sort, SortMode::kNoSort);
  EXPECT_THAT(f.records[0].expected_lines, ElementsAre("1\ta"));
  EXPECT_EQ(f.records[1].sort, SortMode::kRowSort);
  EXPECT_EQ(f.records[2].sort, SortMode::kValueSort);
  EXPECT_EQ(f.records[2].connection, "con1");
  EXPECT_EQ(f.records[3].sort, SortMode::kNoSort);
  EXPECT_EQ(f.records[3].connection, "con2");
  EXPECT_EQ(f.records[4].types, "R");
}

TEST(ParseTestFile, QueryWithEmptyResult) {
  auto f = MustParse("query I\nSELECT 1 WHERE false\n----\n\nstatement ok\nSELECT 2\n");
  ASSERT_EQ(f.records.size(), 2u);
  EXPECT_TRUE(f.records[0].expected_lines.empty());
}

TEST(ParseTestFile, QueryErrors) {
  EXPECT_THAT(ParseErrorOf("query\nSELECT 1\n----\n1\n"), HasSubstr("column types"));
  EXPECT_THAT(ParseErrorOf("query IX\nSELECT 1\n----\n1\n"),
              HasSubstr("bad type letter 'X'"));
  EXPECT_THAT(ParseErrorOf("query I\nSELECT 1\n\n"),
              HasSubstr("t.test:1: query without '----'"));
  EXPECT_THAT(ParseErrorOf("query I rowsort con1 x\nSELECT 1\n----\n1\n"),
              HasSubstr("too many arguments to query"));
}

TEST(ParseTestFile, RestartRequireMode) {
  auto f = MustParse(
      "restart\n\nrequire corpora\n\nmode output_result\n\nmode skip\n"
      "\nmode unskip\n");
  ASSERT_EQ(f.records.size(), 5u);
  EXPECT_EQ(f.records[0].kind, Record::Kind::kRestart);
  EXPECT_EQ(f.records[1].kind, Record::Kind::kRequire);
  EXPECT_EQ(f.records[1].argument, "corpora");
  EXPECT_EQ(f.records[2].kind, Record::Kind::kMode);
  EXPECT_EQ(f.records[2].argument, "output_result");
  EXPECT_EQ(f.records[3].argument, "skip");
  EXPECT_EQ(f.records[4].argument, "unskip");
  EXPECT_THAT(ParseErrorOf("restart now\n"), HasSubstr("restart takes no arguments"));
  EXPECT_THAT(ParseErrorOf("require\n"), HasSubstr("expected 'require NAME'"));
  EXPECT_THAT(ParseErrorOf("mode fast\n"), HasSubstr("expected 'mode output_result"));
}

TEST(ParseTestFile, LoopAndForeachNest) {
  auto f = MustParse(
      "loop i 0 3\n"
      "foreach x a b\n"
      "statement ok\nINSERT INTO t VALUES (${i}, '${x}')\n\n"
      "endloop\n"
      "endloop\n\n"
      "query I\nSELECT count(*) FROM t\n----\n6\n");
  ASSERT_EQ(f.records.size(), 2u);
  const Record& loop = f.records[0];
  EXPECT_EQ(loop.kind, Record::Kind::kLoop);
  EXPECT_EQ(loop.loop_var, "i");
  EXPECT_THAT(loop.loop_values, ElementsAre("0", "1", "2"));
  ASSERT_EQ(loop.body.size(), 1u);
  const Record& inner = loop.body[0];
  EXPECT_EQ(inner.kind, Record::Kind::kLoop);
  EXPECT_EQ(inner.loop_var, "x");
  EXPECT_THAT(inner.loop_values, ElementsAre("a", "b"));
  ASSERT_EQ(inner.body.size(), 1u);
  EXPECT_EQ(inner.body[0].sql, "INSERT INTO t VALUES (${i}, '${x}')");
  EXPECT_EQ(f.records[1].kind, Record::Kind::kQuery);
}

TEST(ParseTestFile, LoopErrors) {
  EXPECT_THAT(ParseErrorOf("endloop\n"), HasSubstr("t.test:1: endloop without loop"));
  EXPECT_THAT(ParseErrorOf("loop i 0 2\nrestart\n"),
              HasSubstr("t.test:1: loop without endloop"));
  EXPECT_THAT(ParseErrorOf("loop i 3 1\nendloop\n"), HasSubstr("BEGIN <= END"));
  EXPECT_THAT(ParseErrorOf("loop i a 1\nendloop\n"), HasSubstr("loop VAR BEGIN END"));
  EXPECT_THAT(ParseErrorOf("foreach x\nendloop\n"), HasSubstr("foreach VAR VALUE"));
}

TEST(ParseTestFile, UnknownDirectiveIsAnError) {
  EXPECT_THAT(ParseErrorOf("statement ok\nSELECT 1\n\nhalt\n"),
              HasSubstr("t.test:4: unknown directive 'halt'"));
}

TEST(ParseTestFile, CarriageReturnsAreDropped) {
  auto f = MustParse("query I\r\nSELECT 1\r\n----\r\n1\r\n");
  ASSERT_EQ(f.records.size(), 1u);
  EXPECT_EQ(f.records[0].sql, "SELECT 1");
  EXPECT_THAT(f.records[0].expected_lines, ElementsAre("1"));
}

TEST(SubstituteVariables, ReplacesKnownOnly) {
  std::map<std::string, std::string> vars{{"i", "7"}, {"x", "b"}};
  EXPECT_EQ(SubstituteVariables("v${i}_${x}_${y}_{TEMP_DIR}", vars),
            "v7_b_${y}_{TEMP_DIR}");
  EXPECT_EQ(SubstituteVariables("${i", vars), "${i");
}

TEST(SplitTabs, KeepsEmptyValues) {
  EXPECT_THAT(SplitTabs("a\t\tNULL"), ElementsAre("a", "", "NULL"));
}

}  // namespace
}  // namespace deltaguard::sqllogic
