#include <gtest/gtest.h>

#include <string>

#include "deltaguard/expr/binder.h"
#include "deltaguard/expr/parser.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/schema/ddl.h"

namespace deltaguard {
namespace {

// The function library's signatures (binder_library.cc): implicit casts, literal
// arguments, result types and the errors for what does not fit.
class BinderLibraryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = ParseDdlSchema(
        "id INT, big BIGINT, price DECIMAL(10,2), rate DOUBLE, name STRING, d DATE, "
        "ts TIMESTAMP, ok BOOLEAN, bin BINARY, tags ARRAY<STRING>");
    ASSERT_TRUE(s) << s.error().ToString();
    schema_ = *s;
  }

  Result<BoundExprRef> BindSql(const std::string& sql) {
    auto e = ParseExpression(sql);
    if (!e) return e.error();
    return Bind(**e, *schema_);
  }

  std::string TypeOf(const std::string& sql) {
    auto b = BindSql(sql);
    EXPECT_TRUE(b) << sql << ": " << b.error().ToString();
    return b ? TypeToSql(*(*b)->type) : "<error>";
  }

  std::string ErrorOf(const std::string& sql) {
    auto b = BindSql(sql);
    EXPECT_FALSE(b) << sql;
    return b ? "" : b.error().message;
  }

  SchemaRef schema_;
};

TEST_F(BinderLibraryTest, ResultTypesFollowTheSignature) {
  EXPECT_EQ(TypeOf("lpad(name, 5, 'x')"), "STRING");
  EXPECT_EQ(TypeOf("instr(name, 'a')"), "INT");
  EXPECT_EQ(TypeOf("pow(id, 2)"), "DOUBLE");
  EXPECT_EQ(TypeOf("datediff(ts, d)"), "INT");
  EXPECT_EQ(TypeOf("date_trunc('month', d)"), "TIMESTAMP");
  EXPECT_EQ(TypeOf("unix_timestamp()"), "BIGINT");
  EXPECT_EQ(TypeOf("crc32(bin)"), "BIGINT");
  EXPECT_EQ(TypeOf("startswith(name, 'a')"), "BOOLEAN");
  // floor/ceil: BIGINT, or an exact DECIMAL with one more integer digit
  EXPECT_EQ(TypeOf("floor(rate)"), "BIGINT");
  EXPECT_EQ(TypeOf("ceil(price)"), "DECIMAL(9,0)");
  EXPECT_EQ(TypeOf("greatest(id, big, 1)"), "BIGINT");
  EXPECT_EQ(TypeOf("mod(big, id)"), "BIGINT");
}

TEST_F(BinderLibraryTest, ArgumentsAreCastAsSparkCastsThem) {
  // numbers and dates where a string is expected; strings where a date is
  auto b = BindSql("concat_ws('-', id, d)");
  ASSERT_TRUE(b) << b.error().ToString();
  EXPECT_EQ((*b)->fn, BoundFn::kLibrary);
  EXPECT_EQ((*b)->name, "concat_ws");
  EXPECT_EQ((*b)->args[1]->kind, BoundKind::kCast);
  EXPECT_EQ(TypeToSql(*(*b)->args[1]->type), "STRING");
  b = BindSql("add_months(name, 1)");
  ASSERT_TRUE(b) << b.error().ToString();
  EXPECT_EQ(TypeToSql(*(*b)->args[0]->type), "DATE");
  // aliases share the canonical kernel name
  b = BindSql("position('a', name)");
  ASSERT_TRUE(b);
  EXPECT_EQ((*b)->name, "locate");
}

TEST_F(BinderLibraryTest, LiteralArgumentsMustBeLiterals) {
  EXPECT_NE(ErrorOf("regexp_replace(name, name, 'x')").find("must be a string literal"),
            std::string::npos);
  EXPECT_NE(ErrorOf("date_format(ts, name)").find("argument 2 must be a string literal"),
            std::string::npos);
  EXPECT_NE(ErrorOf("regexp_extract(name, 'a', id)").find("an integer literal"),
            std::string::npos);
}

TEST_F(BinderLibraryTest, ErrorsNameTheFunctionAndTheMismatch) {
  std::string e = ErrorOf("lpad(name, 'x')");
  EXPECT_NE(e.find("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"), std::string::npos) << e;
  EXPECT_NE(e.find("lpad(): argument 2 must be an integer"), std::string::npos) << e;
  e = ErrorOf("hour(tags)");
  EXPECT_NE(e.find("argument 1 must be TIMESTAMP"), std::string::npos) << e;
  e = ErrorOf("translate(name, 'a')");
  EXPECT_NE(e.find("WRONG_NUM_ARGS: function translate() takes 3 arguments, got 2"),
            std::string::npos)
      << e;
  e = ErrorOf("sha2(name, 100)");
  EXPECT_NE(e.find("bit length must be"), std::string::npos) << e;
  e = ErrorOf("trunc(d, 'hour')");
  EXPECT_NE(e.find("unknown unit 'hour'"), std::string::npos) << e;
  e = ErrorOf("regexp_extract(name, '(a)', -1)");
  EXPECT_NE(e.find("REGEX_GROUP_INDEX"), std::string::npos) << e;
  e = ErrorOf("md5(id)");
  EXPECT_NE(e.find("argument 1 must be BINARY"), std::string::npos) << e;
  e = ErrorOf("no_such_fn(1)");
  EXPECT_NE(e.find("UNRESOLVED_ROUTINE"), std::string::npos) << e;
  EXPECT_NE(e.find("regexp_extract"), std::string::npos) << e;  // lists the library
}

TEST_F(BinderLibraryTest, TruncUnits) {
  EXPECT_EQ(TruncUnitOf("yyyy", false), kTruncYear);
  EXPECT_EQ(TruncUnitOf("Mon", false), kTruncMonth);
  EXPECT_EQ(TruncUnitOf("week", false), kTruncWeek);
  EXPECT_EQ(TruncUnitOf("day", false), -1);
  EXPECT_EQ(TruncUnitOf("DD", true), kTruncDay);
  EXPECT_EQ(TruncUnitOf("millisecond", true), kTruncMillisecond);
  EXPECT_EQ(TruncUnitOf("fortnight", true), -1);
}

TEST_F(BinderLibraryTest, DeterminismAndTypeof) {
  auto b = BindSql("unix_timestamp()");
  ASSERT_TRUE(b);
  EXPECT_FALSE(IsDeterministic(**b));
  b = BindSql("unix_timestamp(ts)");
  ASSERT_TRUE(b);
  EXPECT_TRUE(IsDeterministic(**b));
  b = BindSql("typeof(price)");
  ASSERT_TRUE(b);
  ASSERT_EQ((*b)->kind, BoundKind::kLiteral);
  EXPECT_EQ(std::get<std::string>((*b)->literal.value), "decimal(10,2)");
}

TEST_F(BinderLibraryTest, AggregatesAndArrays) {
  EXPECT_EQ(TypeOf("stddev(id)"), "DOUBLE");
  EXPECT_EQ(TypeOf("count_if(ok)"), "BIGINT");
  EXPECT_EQ(TypeOf("max_by(name, price)"), "STRING");
  EXPECT_EQ(TypeOf("percentile_approx(price, 0.5)"), "DECIMAL(10,2)");
  EXPECT_EQ(TypeOf("median(id)"), "DOUBLE");
  EXPECT_EQ(TypeOf("collect_list(d)"), "ARRAY<DATE>");
  EXPECT_EQ(TypeOf("element_at(tags, 1)"), "STRING");
  EXPECT_EQ(TypeOf("array(id, big)"), "ARRAY<BIGINT>");
  auto b = BindSql("variance(id)");
  ASSERT_TRUE(b);
  EXPECT_EQ((*b)->fn, BoundFn::kAggregate);
  EXPECT_EQ((*b)->name, "var_samp");  // the accumulator's canonical name
  EXPECT_TRUE(ContainsAggregate(**b));
  std::string e = ErrorOf("percentile(id, 2)");
  EXPECT_NE(e.find("VALUE_OUT_OF_RANGE"), std::string::npos) << e;
  e = ErrorOf("first(id, name)");
  EXPECT_NE(e.find("a boolean literal (ignoreNulls)"), std::string::npos) << e;
  e = ErrorOf("array_contains(tags, 1)");
  EXPECT_NE(e.find("(the element type)"), std::string::npos) << e;
}

}  // namespace
}  // namespace deltaguard
