#include "deltaguard/exec/expr_eval.h"

#include <arrow/json/from_string.h>
#include <arrow/scalar.h>
#include <gtest/gtest.h>

#include <string>

#include "deltaguard/expr/parser.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

class ExprEvalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ =
        Ddl("a BOOLEAN, b BOOLEAN, i INT, j INT, l BIGINT, x DOUBLE, p DECIMAL(10,2), "
            "s STRING, d DATE, ts TIMESTAMP, st STRUCT<Inner: INT>");
    // Row 2 holds every Kleene combination with NULL; row 3 is mostly NULL.
    batch_ = Rows(schema_, R"([
      {"a": true,  "b": true,  "i": 1,    "j": 2,    "l": 9223372036854775807,
       "x": 1.5, "p": "12.34", "s": "Apple ", "d": 19723, "ts": 1704103200000000,
       "st": {"Inner": 7}},
      {"a": true,  "b": false, "i": -7,   "j": 0,    "l": 1, "x": -2.5, "p": "-0.05",
       "s": "banana", "d": 0, "ts": 0, "st": null},
      {"a": false, "b": null,  "i": null, "j": 3,    "l": null, "x": null, "p": null,
       "s": null, "d": null, "ts": null, "st": {"Inner": null}},
      {"a": null,  "b": null,  "i": 2147483647, "j": 1, "l": 5, "x": 0.0, "p": "1.00",
       "s": "cherry", "d": 1, "ts": 1, "st": {"Inner": 1}}
    ])");
  }

  Result<std::shared_ptr<arrow::Array>> Eval(const std::string& sql) {
    auto e = ParseExpression(sql);
    if (!e) return e.error();
    DELTA_ASSIGN_OR_RETURN(auto bound, Bind(**e, *schema_));
    EvalOptions opts;
    opts.now_micros = 1704103200000000;  // 2024-01-01 10:00:00 UTC
    return Evaluate(*bound, *batch_, opts);
  }

  // The result rendered as Arrow's JSON-ish text: [1, null, ...].
  std::string Show(const std::string& sql) {
    auto r = Eval(sql);
    if (!r) return "ERROR: " + r.error().ToString();
    std::string out = "[";
    for (int64_t k = 0; k < (*r)->length(); ++k) {
      auto sc = (*r)->GetScalar(k);
      if (k) out += ", ";
      out += sc.ok() ? (*sc)->ToString() : "?";
    }
    return out + "]";
  }

  Error EvalError(const std::string& sql) {
    auto r = Eval(sql);
    EXPECT_FALSE(r) << sql;
    return r ? Error{ErrorCode::kInternal, ""} : r.error();
  }

  SchemaRef schema_;
  std::shared_ptr<arrow::RecordBatch> batch_;
};

TEST_F(ExprEvalTest, KleeneLogicTables) {
  // a: T T F N ; b: T F N N
  EXPECT_EQ(Show("a AND b"), "[true, false, false, null]");
  EXPECT_EQ(Show("a OR b"), "[true, true, null, null]");
  EXPECT_EQ(Show("NOT b"), "[false, true, null, null]");
  EXPECT_EQ(Show("a AND NULL"), "[null, null, false, null]");
  EXPECT_EQ(Show("a OR NULL"), "[true, true, null, null]");
  EXPECT_EQ(Show("b IS TRUE"), "[true, false, false, false]");
  EXPECT_EQ(Show("b IS NOT FALSE"), "[true, false, true, true]");
  EXPECT_EQ(Show("b IS NULL"), "[false, false, true, true]");
  EXPECT_EQ(Show("b IS NOT NULL"), "[true, true, false, false]");
}

TEST_F(ExprEvalTest, ComparisonsPropagateNull) {
  EXPECT_EQ(Show("i < j"), "[true, true, null, false]");
  EXPECT_EQ(Show("i = 1"), "[true, false, null, false]");
  EXPECT_EQ(Show("i <> 1"), "[false, true, null, true]");
  EXPECT_EQ(Show("i <=> NULL"), "[false, false, true, false]");
  EXPECT_EQ(Show("i <=> 1"), "[true, false, false, false]");
  EXPECT_EQ(Show("x >= -2.5"), "[true, true, null, true]");
  EXPECT_EQ(Show("p > 1"), "[true, false, null, false]");
  EXPECT_EQ(Show("s = 'banana'"), "[false, true, null, false]");
  EXPECT_EQ(Show("d = '2024-01-01'"), "[true, false, null, false]");
  EXPECT_EQ(Show("ts > '2024-01-01 09:59:59'"), "[true, false, null, false]");
  EXPECT_EQ(Show("d < ts"), "[true, false, null, false]");
}

TEST_F(ExprEvalTest, InAndBetween) {
  EXPECT_EQ(Show("j IN (1, 2)"), "[true, false, false, true]");
  EXPECT_EQ(Show("j IN (1, NULL)"), "[null, null, null, true]");
  EXPECT_EQ(Show("j NOT IN (1, 2)"), "[false, true, true, false]");
  EXPECT_EQ(Show("i IN (1)"), "[true, false, null, false]");
  EXPECT_EQ(Show("j BETWEEN 1 AND 2"), "[true, false, false, true]");
  EXPECT_EQ(Show("j NOT BETWEEN 1 AND 2"), "[false, true, true, false]");
}

TEST_F(ExprEvalTest, ArithmeticWithoutOverflow) {
  EXPECT_EQ(Show("j * 2 - 1"), "[3, -1, 5, 1]");
  EXPECT_EQ(Show("CAST(i AS BIGINT) + j"), "[3, -7, null, 2147483648]");
  EXPECT_EQ(Show("j / 2"), "[1, 0, 1.5, 0.5]");
  EXPECT_EQ(Show("-j"), "[-2, 0, -3, -1]");
  EXPECT_EQ(Show("j DIV 2"), "[1, 0, 1, 0]");
  EXPECT_EQ(Show("i % 3"), "[1, -1, null, 1]");
  EXPECT_EQ(Show("x % 2"), "[1.5, -0.5, null, 0]");
  EXPECT_EQ(Show("p + 1"), "[13.34, 0.95, null, 2.00]");
  EXPECT_EQ(Show("p * p"), "[152.2756, 0.0025, null, 1.0000]");
  // DECIMAL(10,2) / DECIMAL(1,0) (the literal's digits) is DECIMAL(14,6), rounded
  // HALF_UP.
  EXPECT_EQ(Show("p / 3"), "[4.113333, -0.016667, null, 0.333333]");
  EXPECT_EQ(Show("p / i"), "[12.3400000000000, 0.0071428571429, null, 4.657E-10]");
  EXPECT_EQ(Show("p % 1"), "[0.34, -0.05, null, 0.00]");
}

TEST_F(ExprEvalTest, AnsiErrors) {
  Error e = EvalError("i + j");
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_NE(e.message.find("ARITHMETIC_OVERFLOW: '+' overflows INT"), std::string::npos)
      << e.message;
  e = EvalError("l + 1");
  EXPECT_NE(e.message.find("ARITHMETIC_OVERFLOW"), std::string::npos) << e.message;
  e = EvalError("i / j");
  EXPECT_NE(e.message.find("DIVIDE_BY_ZERO"), std::string::npos) << e.message;
  e = EvalError("i DIV j");
  EXPECT_NE(e.message.find("DIVIDE_BY_ZERO"), std::string::npos) << e.message;
  e = EvalError("i % j");
  EXPECT_NE(e.message.find("DIVIDE_BY_ZERO"), std::string::npos) << e.message;
  e = EvalError("CAST(s AS INT)");
  EXPECT_NE(e.message.find("CAST_INVALID_INPUT"), std::string::npos) << e.message;
  e = EvalError("count(*) > 0");
  EXPECT_EQ(e.code, ErrorCode::kUnsupportedFeature);
}

TEST_F(ExprEvalTest, Casts) {
  EXPECT_EQ(Show("TRY_CAST(s AS INT)"), "[null, null, null, null]");
  EXPECT_EQ(Show("TRY_CAST(concat(j, '') AS INT) + 1"), "[3, 1, 4, 2]");
  EXPECT_EQ(Show("CAST(x AS INT)"), "[1, -2, null, 0]");
  EXPECT_EQ(Show("CAST(j AS STRING)"), "[2, 0, 3, 1]");
  EXPECT_EQ(Show("CAST('2024-01-02' AS DATE) > d"), "[true, true, null, true]");
  EXPECT_EQ(Show("TRY_CAST(CAST(j AS STRING) AS BOOLEAN)"), "[null, false, null, true]");
}

TEST_F(ExprEvalTest, CaseAndCoalesce) {
  EXPECT_EQ(Show("CASE WHEN b THEN 'yes' WHEN a THEN 'a' ELSE 'no' END"),
            "[yes, a, no, no]");
  EXPECT_EQ(Show("CASE j WHEN 1 THEN 10 WHEN 2 THEN 20 END"), "[20, null, null, 10]");
  EXPECT_EQ(Show("coalesce(i, j, 0)"), "[1, -7, 3, 2147483647]");
  EXPECT_EQ(Show("coalesce(NULL, NULL)"), "[null, null, null, null]");
}

TEST_F(ExprEvalTest, StringFunctions) {
  EXPECT_EQ(Show("s LIKE '%an%'"), "[false, true, null, false]");
  EXPECT_EQ(Show("s NOT LIKE 'b_n%'"), "[true, false, null, true]");
  EXPECT_EQ(Show("s ILIKE 'APPLE%'"), "[true, false, null, false]");
  EXPECT_EQ(Show("s RLIKE 'an+a$'"), "[false, true, null, false]");
  EXPECT_EQ(Show("length(s)"), "[6, 6, null, 6]");
  EXPECT_EQ(Show("upper(trim(s))"), "[APPLE, BANANA, null, CHERRY]");
  EXPECT_EQ(Show("concat(s, '-', j)"), "[Apple -2, banana-0, null, cherry-1]");
  EXPECT_EQ(Show("s || '!'"), "[Apple !, banana!, null, cherry!]");
  EXPECT_EQ(Show("substring(s, 2, 3)"), "[ppl, ana, null, her]");
  EXPECT_EQ(Show("substr(s, -3)"), "[le , ana, null, rry]");
  EXPECT_EQ(Show("substr(s, 0, 2)"), "[Ap, ba, null, ch]");
}

TEST_F(ExprEvalTest, NumericAndDateFunctions) {
  EXPECT_EQ(Show("abs(i)"), "[1, 7, null, 2147483647]");
  EXPECT_EQ(Show("round(x)"), "[2, -3, null, 0]");
  EXPECT_EQ(Show("round(p, 1)"), "[12.3, -0.1, null, 1.0]");
  EXPECT_EQ(Show("round(j * 7, -1)"), "[10, 0, 20, 10]");
  EXPECT_EQ(Show("year(d)"), "[2024, 1970, null, 1970]");
  EXPECT_EQ(Show("month(ts) + day(ts)"), "[2, 2, null, 2]");
  EXPECT_EQ(Show("date_add(d, 1) = '2024-01-02'"), "[true, false, null, false]");
  EXPECT_EQ(Show("d - 1"), "[2023-12-31, 1969-12-31, null, 1970-01-01]");
  EXPECT_EQ(Show("to_date('2024-03-01') > current_date()"), "[true, true, true, true]");
  EXPECT_EQ(Show("current_date()"), "[2024-01-01, 2024-01-01, 2024-01-01, 2024-01-01]");
}

TEST_F(ExprEvalTest, NestedColumnsAndPredicate) {
  EXPECT_EQ(Show("st.inner + 1"), "[8, null, null, 2]");
  auto e = ParseExpression("ST.INNER IS NULL");
  ASSERT_TRUE(e);
  auto bound = BindPredicate(**e, *schema_);
  ASSERT_TRUE(bound) << bound.error().ToString();
  auto mask = EvaluatePredicate(**bound, *batch_);
  ASSERT_TRUE(mask) << mask.error().ToString();
  EXPECT_EQ((*mask)->length(), 4);
  EXPECT_EQ((*mask)->true_count(), 2);

  auto lit = ParseExpression("1 + 1");
  auto lit_bound = Bind(**lit, *schema_);
  ASSERT_TRUE(lit_bound);
  auto not_bool = EvaluatePredicate(**lit_bound, *batch_);
  ASSERT_FALSE(not_bool);
  EXPECT_EQ(not_bool.error().code, ErrorCode::kSchemaMismatch);
  auto constant = Evaluate(**lit_bound, *batch_);
  ASSERT_TRUE(constant);
  EXPECT_EQ((*constant)->length(), 4);
}

// Collections cast part by part with the scalar rules (string elements are trimmed and
// parsed as Spark does); a slice casts only the values its own rows reference, so a bad
// value in a row outside it raises nothing.
TEST_F(ExprEvalTest, NestedCastsConvertPartByPartWithinTheSlice) {
  auto schema =
      Ddl("a ARRAY<STRING>, m MAP<STRING, STRING>, t STRUCT<u: STRING, v: INT>");
  auto batch = Rows(schema, R"([
    {"a": ["x"], "m": [["k", "x"]], "t": {"u": "x", "v": 1}},
    {"a": [" 1", null, "2 "], "m": [["k", "3"]], "t": null},
    {"a": null, "m": null, "t": {"u": "4", "v": null}},
    {"a": ["5"], "m": [], "t": {"u": "6", "v": 7}},
    {"a": ["y"], "m": [["j", "y"]], "t": {"u": "y", "v": 0}}
  ])");
  auto slice = batch->Slice(1, 3);
  auto eval = [&](const std::string& sql) -> std::string {
    auto e = ParseExpression(sql);
    if (!e) return "PARSE";
    auto bound = Bind(**e, *schema);
    if (!bound) return "BIND: " + bound.error().message;
    auto r = Evaluate(**bound, *slice);
    if (!r) return "ERROR: " + r.error().message;
    return (*r)->ToString();
  };
  std::string a = eval("CAST(a AS ARRAY<BIGINT>)");
  EXPECT_NE(a.find("1,\n    null,\n    2"), std::string::npos) << a;
  EXPECT_NE(a.find("5"), std::string::npos) << a;
  std::string m = eval("CAST(m AS MAP<STRING, INT>)");
  EXPECT_NE(m.find("3"), std::string::npos) << m;
  EXPECT_EQ(m.find("\"x\""), std::string::npos) << m;
  // By position: the target's names, each field cast on its own.
  std::string t = eval("CAST(t AS STRUCT<p: INT, q: STRING>)");
  EXPECT_NE(t.find("-- child 0 type: int32"), std::string::npos) << t;
  EXPECT_NE(t.find("4"), std::string::npos) << t;
  EXPECT_EQ(t.find("\"x\""), std::string::npos) << t;
  // The whole batch holds 'x', which is not a number.
  auto e = ParseExpression("CAST(a AS ARRAY<INT>)");
  auto bound = Bind(**e, *schema);
  ASSERT_TRUE(bound) << bound.error().ToString();
  auto whole = Evaluate(**bound, *batch);
  ASSERT_FALSE(whole);
  EXPECT_NE(whole.error().message.find("CAST_INVALID_INPUT"), std::string::npos);
  EXPECT_EQ(eval("TRY_CAST(t AS STRUCT<p: INT, q: INT>)").find("ERROR"),
            std::string::npos);
  EXPECT_NE(eval("CAST(t AS STRUCT<p: INT>)").find("cannot cast"), std::string::npos);
}

TEST_F(ExprEvalTest, MissingBatchColumnIsNotFound) {
  auto e = ParseExpression("i > 0");
  auto bound = Bind(**e, *schema_);
  ASSERT_TRUE(bound);
  auto other = Rows(Ddl("k INT"), R"([{"k": 1}])");
  auto r = Evaluate(**bound, *other);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
  EXPECT_NE(r.error().message.find("column 'i' is not in the batch"), std::string::npos);
}

TEST_F(ExprEvalTest, NullComparisons) {
  EXPECT_EQ(Show("NULL = NULL"), "[null, null, null, null]");
  EXPECT_EQ(Show("NULL <=> NULL"), "[true, true, true, true]");
  EXPECT_EQ(Show("NULL < 1"), "[null, null, null, null]");
  EXPECT_EQ(Show("1 = NULL"), "[null, null, null, null]");
  EXPECT_EQ(Show("i <=> NULL"), "[false, false, true, false]");
}

TEST_F(ExprEvalTest, CastToDecimalRoundsHalfUpAndChecksRange) {
  EXPECT_EQ(Show("CAST(7 AS DECIMAL(5,2))"), "[7.00, 7.00, 7.00, 7.00]");
  EXPECT_EQ(Show("CAST(3.999 AS DECIMAL(4,2))"), "[4.00, 4.00, 4.00, 4.00]");
  EXPECT_EQ(Show("CAST(-2.345 AS DECIMAL(4,2))"), "[-2.35, -2.35, -2.35, -2.35]");
  EXPECT_EQ(Show("CAST(2.344 AS DECIMAL(4,2))"), "[2.34, 2.34, 2.34, 2.34]");
  EXPECT_EQ(Show("CAST(x AS DECIMAL(4,0))"), "[2, -3, null, 0]");
  // DOUBLE by its shortest digits (1.005, not 1.00499...); FLOAT widened to DOUBLE.
  EXPECT_EQ(Show("CAST(CAST(1.005 AS DOUBLE) AS DECIMAL(4,2))"),
            "[1.01, 1.01, 1.01, 1.01]");
  EXPECT_EQ(Show("CAST(CAST(0.1 AS FLOAT) AS DECIMAL(10,9))"),
            "[0.100000001, 0.100000001, 0.100000001, 0.100000001]");
  EXPECT_EQ(Show("CAST(p AS DECIMAL(4,1))"), "[12.3, -0.1, null, 1.0]");
  EXPECT_EQ(Show("CAST(i AS DECIMAL(12,1))"), "[1.0, -7.0, null, 2147483647.0]");
  EXPECT_EQ(Show("CAST(' 1.25 ' AS DECIMAL(3,1))"), "[1.3, 1.3, 1.3, 1.3]");
  Error e = EvalError("CAST(12345 AS DECIMAL(5,2))");
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_NE(e.message.find("NUMERIC_VALUE_OUT_OF_RANGE: 12345 cannot be represented as "
                           "DECIMAL(5,2)"),
            std::string::npos)
      << e.message;
  EXPECT_EQ(Show("TRY_CAST(12345 AS DECIMAL(5,2))"), "[null, null, null, null]");
  EXPECT_EQ(Show("TRY_CAST(i AS DECIMAL(3,0))"), "[1, -7, null, null]");
  EXPECT_NE(EvalError("CAST(i AS DECIMAL(3,0))").message.find("2147483647"),
            std::string::npos);
  EXPECT_NE(EvalError("CAST('x1' AS DECIMAL(3,0))").message.find("CAST_INVALID_INPUT"),
            std::string::npos);
}

TEST_F(ExprEvalTest, DecimalDivisionRoundsHalfUp) {
  EXPECT_EQ(Show("CAST(1 AS DECIMAL(10,0)) / CAST(3 AS DECIMAL(10,0))"),
            "[0.33333333333, 0.33333333333, 0.33333333333, 0.33333333333]");
  EXPECT_EQ(Show("CAST(2 AS DECIMAL(10,0)) / CAST(3 AS DECIMAL(10,0))"),
            "[0.66666666667, 0.66666666667, 0.66666666667, 0.66666666667]");
  EXPECT_EQ(Show("CAST(-2 AS DECIMAL(10,0)) / CAST(3 AS DECIMAL(10,0))"),
            "[-0.66666666667, -0.66666666667, -0.66666666667, -0.66666666667]");
  // Column / literal: DECIMAL(10,2) / DECIMAL(1,0) -> DECIMAL(14,4)... rounded.
  EXPECT_EQ(Show("p / 3"), "[4.113333, -0.016667, null, 0.333333]");
  Error e = EvalError("p / CAST(0 AS DECIMAL(3,0))");
  EXPECT_NE(e.message.find("DIVIDE_BY_ZERO"), std::string::npos) << e.message;
}

TEST_F(ExprEvalTest, StringCastsTrimAndReadSparkBooleans) {
  EXPECT_EQ(Show("CAST(' 42 ' AS INT)"), "[42, 42, 42, 42]");
  EXPECT_EQ(Show("CAST('\t7\n' AS BIGINT)"), "[7, 7, 7, 7]");
  EXPECT_EQ(Show("CAST(' 1.5 ' AS DOUBLE)"), "[1.5, 1.5, 1.5, 1.5]");
  EXPECT_EQ(Show("CAST(' 2024-01-02 ' AS DATE)"),
            "[2024-01-02, 2024-01-02, 2024-01-02, 2024-01-02]");
  for (const char* yes : {"'t'", "' TRUE '", "'y'", "'Yes'", "'1'"}) {
    EXPECT_EQ(Show(fmt::format("CAST({} AS BOOLEAN)", yes)), "[true, true, true, true]")
        << yes;
  }
  for (const char* no : {"'F'", "'false'", "'n'", "' no'", "'0'"}) {
    EXPECT_EQ(Show(fmt::format("CAST({} AS BOOLEAN)", no)),
              "[false, false, false, false]")
        << no;
  }
  Error e = EvalError("CAST('maybe' AS BOOLEAN)");
  EXPECT_NE(e.message.find("CAST_INVALID_INPUT: The value 'maybe' of the type STRING "
                           "cannot be cast to BOOLEAN"),
            std::string::npos)
      << e.message;
  EXPECT_EQ(Show("TRY_CAST(s AS BOOLEAN)"), "[null, null, null, null]");
  EXPECT_EQ(Show("TRY_CAST('2' AS BOOLEAN)"), "[null, null, null, null]");
}

TEST_F(ExprEvalTest, ToDateAndToTimestampWithPatterns) {
  EXPECT_EQ(Show("to_date('05/02/2024', 'dd/MM/yyyy')"),
            "[2024-02-05, 2024-02-05, 2024-02-05, 2024-02-05]");
  EXPECT_EQ(Show("to_timestamp('2024-02-05T10:11:12.345', "
                 "'yyyy-MM-dd\\'T\\'HH:mm:ss.SSS') = TIMESTAMP'2024-02-05 10:11:12.345'"),
            "[true, true, true, true]");
  EXPECT_EQ(
      Show("to_timestamp('at 07:08 on 1-2-2024', '\\'at\\' HH:mm \\'on\\' d-M-yyyy') "
           "= TIMESTAMP'2024-02-01 07:08:00'"),
      "[true, true, true, true]");
  EXPECT_EQ(Show("to_date(NULL, 'yyyy')"), "[null, null, null, null]");
  EXPECT_EQ(Show("to_date('20240229', 'yyyyMMdd')"),
            "[2024-02-29, 2024-02-29, 2024-02-29, 2024-02-29]");
  Error e = EvalError("to_date('2024-13-01', 'yyyy-MM-dd')");
  EXPECT_NE(e.message.find("CANNOT_PARSE_TIMESTAMP: Text '2024-13-01'"),
            std::string::npos)
      << e.message;
  EXPECT_NE(EvalError("to_date('2023-02-29', 'yyyy-MM-dd')").message.find("2023-02-29"),
            std::string::npos);
  EXPECT_NE(EvalError("to_date('2024-01-01x', 'yyyy-MM-dd')").message.find("unparsed"),
            std::string::npos);
  EXPECT_EQ(Show("try_to_timestamp('nope', 'yyyy')"), "[null, null, null, null]");
  EXPECT_NE(EvalError("to_date('2024', 'yyyy QQ')").message.find("'Q'"),
            std::string::npos);
}
}  // namespace
}  // namespace deltaguard

namespace deltaguard {
namespace {

// Spark ANSI: fractions truncate toward zero, anything out of range (or NaN) overflows;
// Arrow's kernel with truncation allowed would wrap (3e9 -> -2147483648) silently.
TEST_F(ExprEvalTest, FloatingToIntegerCastsTruncateAndCheckOverflow) {
  EXPECT_EQ(Show("CAST(x AS INT)"), Show("CAST(x AS BIGINT)"));
  EXPECT_EQ(Show("CAST(x * 1 AS SMALLINT)").substr(0, 7), "[1, -2,");
  EXPECT_EQ(Show("CAST(CAST(2147483647.9 AS DOUBLE) AS INT)"),
            "[2147483647, 2147483647, 2147483647, 2147483647]");
  EXPECT_EQ(Show("CAST(CAST(-128.9 AS FLOAT) AS TINYINT)"), "[-128, -128, -128, -128]");
  for (const char* sql :
       {"CAST(CAST(3e9 AS DOUBLE) AS INT)", "CAST(CAST(1e19 AS DOUBLE) AS BIGINT)",
        "CAST(CAST(-129 AS DOUBLE) AS TINYINT)", "CAST(CAST('NaN' AS DOUBLE) AS INT)",
        "CAST(CAST('Infinity' AS FLOAT) AS SMALLINT)"}) {
    Error e = EvalError(sql);
    EXPECT_EQ(e.code, ErrorCode::kInvalidArgument) << sql;
    EXPECT_NE(e.message.find("CAST_OVERFLOW"), std::string::npos) << sql << e.message;
  }
  EXPECT_NE(EvalError("CAST(CAST(3e9 AS DOUBLE) AS INT)")
                .message.find("The value 3.0E9D of the type \"DOUBLE\" cannot be cast to "
                              "\"INT\" due to an overflow"),
            std::string::npos);
  EXPECT_EQ(Show("TRY_CAST(CAST(3e9 AS DOUBLE) AS INT)"), "[null, null, null, null]");
  // Values Spark prints in Double.toString form (not C's "1e+40").
  EXPECT_NE(EvalError("CAST(CAST(1e40 AS DOUBLE) AS DECIMAL(10,2))")
                .message.find("NUMERIC_VALUE_OUT_OF_RANGE: 1.0E40 cannot be represented"),
            std::string::npos);
}

}  // namespace
}  // namespace deltaguard

namespace deltaguard {
namespace {

TEST_F(ExprEvalTest, TimestampToStringIsSparksSpelling) {
  // ts holds 2024-01-01T10:00:00Z, 0, NULL and 1 microsecond after the epoch.
  EXPECT_EQ(Show("CAST(ts AS STRING)"),
            "[2024-01-01 10:00:00, 1970-01-01 00:00:00, null, "
            "1970-01-01 00:00:00.000001]");
  EXPECT_EQ(Show("CAST(TIMESTAMP'2024-01-02 03:04:05.120' AS STRING)").substr(0, 24),
            "[2024-01-02 03:04:05.12,");
  EXPECT_EQ(Show("concat('at ', TIMESTAMP_NTZ'2024-01-02 03:04:05.5')").substr(0, 26),
            "[at 2024-01-02 03:04:05.5,");
}

TEST_F(ExprEvalTest, FlatChainsOf100kTermsEvaluateAsFolds) {
  auto chain = [](const std::string& term, const std::string& op, int n) {
    std::string out = term;
    for (int k = 1; k < n; ++k) out += " " + op + " " + term;
    return out;
  };
  EXPECT_EQ(Show(chain("j", "+", 100000)), "[200000, 0, 300000, 100000]");
  EXPECT_EQ(Show("l + " + chain("1", "-", 100000)),
            "ERROR: Invalid Input Error: ARITHMETIC_OVERFLOW: '+' overflows BIGINT "
            "(overflow)");
  EXPECT_EQ(Show(chain("a", "AND", 100000)), "[true, true, false, null]");
  EXPECT_EQ(Show(chain("b", "OR", 100000)), "[true, false, null, null]");
  EXPECT_EQ(Show("length(" + chain("s", "||", 100000) + ")"),
            "[600000, 600000, null, 600000]");
  // INT + INT overflows as INT even when a BIGINT follows (the fold keeps each step).
  EXPECT_EQ(EvalError("i + i + l").code, ErrorCode::kInvalidArgument);
}

TEST_F(ExprEvalTest, InListOf100kValuesIsASetLookupWithSqlNulls) {
  std::string values;
  for (int k = 0; k < 100000; ++k) values += (k ? ", " : "") + std::to_string(k * 3);
  EXPECT_EQ(Show("j IN (" + values + ")"), "[false, true, true, false]");
  EXPECT_EQ(Show("j NOT IN (" + values + ")"), "[true, false, false, true]");
  EXPECT_EQ(Show("i IN (" + values + ", NULL)"), "[null, null, null, null]");
  EXPECT_EQ(Show("j IN (" + values + ", NULL)"), "[null, true, true, null]");
  EXPECT_EQ(Show("j IN (5, i - 3, 1)"), "[false, false, null, true]");
  EXPECT_EQ(Show("s IN ('banana', 'cherry', 'x')"), "[false, true, null, true]");
}

TEST_F(ExprEvalTest, LibraryKernelsMixColumnsAndConstants) {
  // s: "Apple ", "banana", null, "cherry"; i: 1, -7, null, 2147483647
  EXPECT_EQ(Show("lpad(s, 8, '*')"), "[**Apple , **banana, null, **cherry]");
  EXPECT_EQ(Show("concat_ws('/', s, 'x')"), "[Apple /x, banana/x, x, cherry/x]");
  EXPECT_EQ(Show("instr(s, 'an')"), "[0, 2, null, 0]");
  // a constant call over a batch still gives one value per row
  EXPECT_EQ(Show("upper(initcap('ab cd'))"), "[AB CD, AB CD, AB CD, AB CD]");
  EXPECT_EQ(Show("left(s, i)"), "[A, , null, cherry]");
  EXPECT_EQ(Show("greatest(i, j, 0)"), "[2, 0, 3, 2147483647]");
  EXPECT_EQ(Show("floor(x)"), "[1, -3, null, 0]");
  EXPECT_EQ(Show("hour(ts)"), "[10, 0, null, 0]");
  EXPECT_EQ(Show("date_format(d, 'yyyy-MM-dd EEE')"),
            "[2024-01-01 Mon, 1970-01-01 Thu, null, 1970-01-02 Fri]");
}

TEST_F(ExprEvalTest, JsonAndStructKernels) {
  EXPECT_EQ(Show("get_json_object(concat('{\"v\":', i, '}'), '$.v')"),
            "[1, -7, null, 2147483647]");
  EXPECT_EQ(Show("get_json_object(s, '$.a')"), "[null, null, null, null]");  // not JSON
  EXPECT_EQ(
      Show("to_json(named_struct('s', s, 'x', x))"),
      R"([{"s":"Apple ","x":1.5}, {"s":"banana","x":-2.5}, {}, {"s":"cherry","x":0.0}])");
  EXPECT_EQ(Show("to_json(from_json(concat('{\"n\":', j, '}'), 'n INT, m STRING'))"),
            R"([{"n":2}, {"n":0}, {"n":3}, {"n":1}])");
  // doubles become text as Java writes them, as Spark's cast does
  EXPECT_EQ(Show("CAST(x AS STRING)"), "[1.5, -2.5, null, 0.0]");
}

TEST_F(ExprEvalTest, LibraryKernelErrorsNameTheFunction) {
  // Rows with a part number 0 fail as Spark's INVALID_INDEX_OF_ZERO.
  Error e = EvalError("split_part(s, 'a', j - 2)");
  EXPECT_NE(e.message.find("INVALID_INDEX_OF_ZERO"), std::string::npos) << e.message;
  e = EvalError("make_date(2023, j, 31)");
  EXPECT_NE(e.message.find("DATETIME_FIELD_OUT_OF_BOUNDS"), std::string::npos)
      << e.message;
  e = EvalError("regexp_replace(s, '(', 'x')");
  EXPECT_NE(e.message.find("regexp_replace"), std::string::npos) << e.message;
}

}  // namespace
}  // namespace deltaguard
