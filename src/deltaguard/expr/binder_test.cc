#include "deltaguard/expr/binder.h"

#include <gtest/gtest.h>

#include <string>

#include "deltaguard/expr/parser.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/schema/ddl.h"

namespace deltaguard {
namespace {

class BinderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = ParseDdlSchema(
        "id INT, big BIGINT, small SMALLINT, price DECIMAL(10,2), rate DOUBLE, f FLOAT, "
        "name STRING, d DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, ok BOOLEAN, bin BINARY, "
        "`Weird Col` INT, addr STRUCT<City: STRING, zip INT>, tags ARRAY<STRING>");
    ASSERT_TRUE(s) << s.error().ToString();
    schema_ = *s;
  }

  Result<BoundExprRef> BindSql(const std::string& sql) {
    auto e = ParseExpression(sql);
    EXPECT_TRUE(e) << sql << ": " << e.error().ToString();
    if (!e) return e.error();
    return Bind(**e, *schema_);
  }

  std::string TypeOf(const std::string& sql) {
    auto b = BindSql(sql);
    EXPECT_TRUE(b) << sql << ": " << b.error().ToString();
    return b ? TypeToSql(*(*b)->type) : "<error>";
  }

  Error BindError(const std::string& sql) {
    auto b = BindSql(sql);
    EXPECT_FALSE(b) << sql << " bound to " << (b ? TypeToSql(*(*b)->type) : "");
    return b ? Error{ErrorCode::kInternal, ""} : b.error();
  }

  SchemaRef schema_;
};

TEST_F(BinderTest, ColumnsResolveCaseInsensitively) {
  auto b = BindSql("ID + ADDR.city.x");
  ASSERT_FALSE(b);
  b = BindSql("ADDR.city");
  ASSERT_TRUE(b) << b.error().ToString();
  EXPECT_EQ((*b)->kind, BoundKind::kColumn);
  EXPECT_EQ((*b)->path, (std::vector<std::string>{"addr", "City"}));
  EXPECT_EQ(TypeOf("`weird col`"), "INT");
  EXPECT_EQ(TypeOf("Addr.ZIP"), "INT");
}

TEST_F(BinderTest, UnknownColumnNamesAlternatives) {
  Error e = BindError("nope > 1");
  EXPECT_EQ(e.code, ErrorCode::kNotFound);
  EXPECT_NE(e.message.find("column 'nope' does not exist"), std::string::npos)
      << e.message;
  EXPECT_NE(e.message.find("`Weird Col`"), std::string::npos) << e.message;
  e = BindError("addr.street = 'x'");
  EXPECT_EQ(e.code, ErrorCode::kNotFound);
  EXPECT_NE(e.message.find("in struct addr"), std::string::npos) << e.message;
  e = BindError("id.x = 1");
  EXPECT_EQ(e.code, ErrorCode::kSchemaMismatch);
}

TEST_F(BinderTest, NumericPromotion) {
  EXPECT_EQ(TypeOf("id + small"), "INT");
  EXPECT_EQ(TypeOf("id + big"), "BIGINT");
  EXPECT_EQ(TypeOf("id + f"), "FLOAT");
  EXPECT_EQ(TypeOf("price + f"), "DOUBLE");
  EXPECT_EQ(TypeOf("big * rate"), "DOUBLE");
  EXPECT_EQ(TypeOf("id / 2"), "DOUBLE");
  EXPECT_EQ(TypeOf("id DIV 2"), "BIGINT");
  EXPECT_EQ(TypeOf("id % 3"), "INT");
  EXPECT_EQ(TypeOf("-small"), "SMALLINT");
}

TEST_F(BinderTest, DecimalArithmeticFollowsSpark) {
  EXPECT_EQ(TypeOf("price + price"), "DECIMAL(11,2)");
  EXPECT_EQ(TypeOf("price * price"), "DECIMAL(21,4)");
  EXPECT_EQ(TypeOf("price / price"), "DECIMAL(23,13)");
  EXPECT_EQ(TypeOf("price + id"), "DECIMAL(13,2)");  // INT as DECIMAL(10,0)
  // min(p1 - s1, p2 - s2) + max(s1, s2): the literal 7 is DECIMAL(1,0) as in Spark.
  EXPECT_EQ(TypeOf("price % 7"), "DECIMAL(3,2)");
  EXPECT_EQ(TypeOf("price % id"), "DECIMAL(10,2)");
  EXPECT_EQ(TypeOf("price + 1.5"), "DECIMAL(11,2)");
  EXPECT_EQ(TypeOf("CAST(price AS DECIMAL(38,10)) * CAST(price AS DECIMAL(38,10))"),
            "DECIMAL(38,6)");
  EXPECT_EQ(TypeOf("round(price, 1)"), "DECIMAL(10,1)");
  EXPECT_EQ(TypeOf("round(price, 3)"), "DECIMAL(10,2)");
}

TEST_F(BinderTest, ComparisonsCoerceStringLiterals) {
  auto b = BindSql("d > '2024-01-01'");
  ASSERT_TRUE(b) << b.error().ToString();
  EXPECT_EQ((*b)->args[1]->kind, BoundKind::kLiteral);
  EXPECT_EQ((*b)->args[1]->type->kind(), TypeKind::kDate);
  b = BindSql("ts >= '2024-01-01 10:00:00'");
  ASSERT_TRUE(b) << b.error().ToString();
  EXPECT_EQ((*b)->args[1]->type->kind(), TypeKind::kTimestamp);
  // '1.5' against an INT compares as decimal, so nothing is truncated.
  b = BindSql("id = '1.5'");
  ASSERT_TRUE(b) << b.error().ToString();
  EXPECT_EQ((*b)->args[0]->type->kind(), TypeKind::kDecimal);
  EXPECT_EQ(TypeOf("d = ts"), "BOOLEAN");
  b = BindSql("d = ts");
  EXPECT_EQ((*b)->args[0]->kind, BoundKind::kCast);

  Error e = BindError("d > 'not a date'");
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_NE(e.message.find("cannot cast string 'not a date' to date"), std::string::npos)
      << e.message;
}

TEST_F(BinderTest, StringVersusNumberColumnIsAnError) {
  Error e = BindError("name = id");
  EXPECT_EQ(e.code, ErrorCode::kSchemaMismatch);
  EXPECT_NE(e.message.find("column 'name' (STRING)"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("column 'id' (INT)"), std::string::npos) << e.message;
  e = BindError("name + 1");
  EXPECT_EQ(e.code, ErrorCode::kSchemaMismatch);
  EXPECT_NE(e.message.find("operator '+' needs numbers"), std::string::npos) << e.message;
  e = BindError("ok AND id");
  EXPECT_NE(e.message.find("AND needs BOOLEAN operands, got column 'id' (INT)"),
            std::string::npos)
      << e.message;
  e = BindError("d = ok");
  EXPECT_EQ(e.code, ErrorCode::kSchemaMismatch);
  e = BindError("tags = tags");
  EXPECT_EQ(e.code, ErrorCode::kSchemaMismatch);
}

TEST_F(BinderTest, DesugaringAndNullability) {
  auto b = BindSql("id IN (1, 2)");
  ASSERT_TRUE(b);
  EXPECT_EQ((*b)->fn, BoundFn::kIn);  // a set lookup, not an OR of comparisons
  b = BindSql("id NOT BETWEEN 1 AND 5");
  ASSERT_TRUE(b);
  EXPECT_EQ((*b)->fn, BoundFn::kNot);
  EXPECT_EQ((*b)->args[0]->fn, BoundFn::kAnd);
  b = BindSql("CASE id WHEN 1 THEN 'a' END");
  ASSERT_TRUE(b);
  EXPECT_EQ((*b)->kind, BoundKind::kCase);
  EXPECT_EQ((*b)->args[0]->fn, BoundFn::kEq);
  b = BindSql("id IS NULL");
  ASSERT_TRUE(b);
  EXPECT_FALSE((*b)->nullable);
  EXPECT_EQ(TypeOf("CASE WHEN ok THEN 1 ELSE 2.5 END"), "DECIMAL(11,1)");
  EXPECT_EQ(TypeOf("coalesce(NULL, id, big)"), "BIGINT");
  EXPECT_EQ(TypeOf("coalesce(d, '2024-01-01')"), "DATE");
}

TEST_F(BinderTest, Functions) {
  EXPECT_EQ(TypeOf("length(name)"), "INT");
  EXPECT_EQ(TypeOf("upper(name) || lower(name)"), "STRING");
  EXPECT_EQ(TypeOf("concat(name, id)"), "STRING");
  EXPECT_EQ(TypeOf("substring(name, 1, 2)"), "STRING");
  EXPECT_EQ(TypeOf("abs(price)"), "DECIMAL(10,2)");
  EXPECT_EQ(TypeOf("date_add(d, 1)"), "DATE");
  EXPECT_EQ(TypeOf("d + 1"), "DATE");
  EXPECT_EQ(TypeOf("year(ts) + month(d) + day(ntz)"), "INT");
  EXPECT_EQ(TypeOf("to_date(name)"), "DATE");
  EXPECT_EQ(TypeOf("current_timestamp()"), "TIMESTAMP");
  EXPECT_EQ(TypeOf("count(*)"), "BIGINT");
  EXPECT_EQ(TypeOf("sum(id)"), "BIGINT");
  EXPECT_EQ(TypeOf("sum(price)"), "DECIMAL(20,2)");
  EXPECT_EQ(TypeOf("avg(price)"), "DECIMAL(14,6)");
  EXPECT_EQ(TypeOf("max(name)"), "STRING");

  Error e = BindError("nosuch(id)");
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_NE(e.message.find("unknown function nosuch()"), std::string::npos) << e.message;
  e = BindError("length(name, 2)");
  EXPECT_NE(e.message.find("length() takes 1 argument, got 2"), std::string::npos)
      << e.message;
  e = BindError("abs(name)");
  EXPECT_NE(e.message.find("abs(): argument 1 must be numeric, got column 'name'"),
            std::string::npos)
      << e.message;
  e = BindError("substring(name, id)");
  EXPECT_NE(e.message.find("must be an integer literal"), std::string::npos);
  e = BindError("name LIKE name");
  EXPECT_NE(e.message.find("LIKE pattern must be a string literal"), std::string::npos);
  e = BindError("lower(*)");
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
}

TEST_F(BinderTest, CastChecks) {
  EXPECT_EQ(TypeOf("CAST(name AS INT)"), "INT");
  EXPECT_EQ(TypeOf("TRY_CAST(name AS DATE)"), "DATE");
  EXPECT_EQ(TypeOf("CAST(d AS TIMESTAMP)"), "TIMESTAMP");
  Error e = BindError("CAST(d AS INT)");
  EXPECT_EQ(e.code, ErrorCode::kSchemaMismatch);
  EXPECT_EQ(e.message, "cannot cast DATE to INT");
  EXPECT_FALSE(BindSql("CAST(tags AS INT)"));
}

TEST_F(BinderTest, PredicateAndProperties) {
  auto e = ParseExpression("id + 1");
  ASSERT_TRUE(e);
  auto p = BindPredicate(**e, *schema_);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message, "expression 'id + 1' must be BOOLEAN, but it is INT");

  auto b = BindSql("d < current_date() AND addr.zip > id");
  ASSERT_TRUE(b);
  EXPECT_FALSE(IsDeterministic(**b));
  EXPECT_FALSE(ContainsAggregate(**b));
  auto cols = ReferencedColumns(**b);
  ASSERT_EQ(cols.size(), 3u);
  EXPECT_EQ(cols[1], (std::vector<std::string>{"addr", "zip"}));
  b = BindSql("sum(id) > 1");
  ASSERT_TRUE(b);
  EXPECT_TRUE(ContainsAggregate(**b));
  EXPECT_TRUE(IsDeterministic(**b));
}

TEST_F(BinderTest, NullComparedWithNullIsABooleanNull) {
  // Spark: the untyped NULL takes the other side's type; NULL vs NULL compares BOOLEANs.
  for (const char* sql : {"NULL = NULL", "NULL <=> NULL", "NULL < 1", "1 = NULL"}) {
    auto b = BindSql(sql);
    ASSERT_TRUE(b) << sql << ": " << b.error().ToString();
    EXPECT_EQ(TypeToSql(*(*b)->type), "BOOLEAN") << sql;
    ASSERT_EQ((*b)->args.size(), 2u) << sql;
    EXPECT_NE((*b)->args[0]->type->kind(), TypeKind::kVoid) << sql;
    EXPECT_TRUE((*b)->args[0]->type->Equals(*(*b)->args[1]->type)) << sql;
  }
  auto lt = BindSql("NULL < 1");
  ASSERT_TRUE(lt);
  EXPECT_EQ(TypeToSql(*(*lt)->args[0]->type), "INT");
}

TEST_F(BinderTest, IntegerLiteralWithDecimalHasItsOwnDigits) {
  // Spark's DecimalType.fromLiteral: 1 -> DECIMAL(1,0), 10 -> DECIMAL(2,0).
  EXPECT_EQ(TypeOf("1.50 + 1"), "DECIMAL(4,2)");
  EXPECT_EQ(TypeOf("price * 2"), "DECIMAL(12,2)");
  EXPECT_EQ(TypeOf("price * 10"), "DECIMAL(13,2)");
  EXPECT_EQ(TypeOf("price + -100"), "DECIMAL(11,2)");
  // Columns keep the decimal of their whole type: INT is DECIMAL(10,0).
  EXPECT_EQ(TypeOf("price * id"), "DECIMAL(21,2)");
  EXPECT_EQ(TypeOf("price + big"), "DECIMAL(23,2)");
}

TEST_F(BinderTest, DecimalDivisionTypeFollowsSpark) {
  // p1 - s1 + s2 + max(6, s1 + p2 + 1), scale max(6, s1 + p2 + 1), bounded to 38.
  EXPECT_EQ(TypeOf("CAST(1 AS DECIMAL(10,0)) / CAST(3 AS DECIMAL(10,0))"),
            "DECIMAL(21,11)");
  EXPECT_EQ(TypeOf("price / CAST(3 AS DECIMAL(5,1))"), "DECIMAL(17,8)");
  EXPECT_EQ(TypeOf("CAST(1 AS DECIMAL(38,10)) / CAST(3 AS DECIMAL(38,10))"),
            "DECIMAL(38,6)");
}

TEST_F(BinderTest, UnknownColumnNamesTheRelation) {
  auto e = ParseExpression("nope + 1");
  ASSERT_TRUE(e);
  BindOptions options;
  options.relation = "table `orders`";
  auto b = Bind(**e, *schema_, options);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().code, ErrorCode::kNotFound);
  EXPECT_NE(b.error().message.find("UNRESOLVED_COLUMN: column 'nope' does not exist in "
                                   "table `orders`; available: "),
            std::string::npos)
      << b.error().message;
  EXPECT_NE(b.error().message.find("`Weird Col`"), std::string::npos);
}

TEST_F(BinderTest, ToDateAndToTimestampWithFormat) {
  EXPECT_EQ(TypeOf("to_date(name, 'dd/MM/yyyy')"), "DATE");
  EXPECT_EQ(TypeOf("to_timestamp(name, 'yyyy-MM-dd HH:mm')"), "TIMESTAMP");
  EXPECT_EQ(TypeOf("try_to_timestamp(name, 'yyyy')"), "TIMESTAMP");
  EXPECT_EQ(TypeOf("to_timestamp(d)"), "TIMESTAMP");
  EXPECT_EQ(BindError("to_date(name, name)").code, ErrorCode::kSchemaMismatch);
  EXPECT_EQ(BindError("to_date(id, 'yyyy')").code, ErrorCode::kSchemaMismatch);
}

}  // namespace
}  // namespace deltaguard
