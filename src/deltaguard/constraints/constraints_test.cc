#include "deltaguard/constraints/constraints.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "deltaguard/schema/ddl.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

using Path = std::vector<std::string>;

SchemaRef Schema(const std::string& ddl) {
  auto s = ParseDdlSchema(ddl);
  EXPECT_TRUE(s) << s.error().ToString();
  return s ? *s : nullptr;
}

Metadata WithConfig(StringMap config) {
  Metadata m;
  m.configuration = std::move(config);
  return m;
}

// A field carrying a delta.invariants metadata value (raw JSON string text).
StructField WithInvariant(StructField f, const std::string& sql) {
  std::string inner = "{\"expression\":{\"expression\":\"" + sql + "\"}}";
  f.metadata = f.metadata.With(kInvariantsKey, JsonQuote(inner));
  return f;
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(ConstraintsTest, PropertyKeyIsLowerCased) {
  EXPECT_EQ(ConstraintPropertyKey("Amount_Positive"),
            "delta.constraints.amount_positive");
}

TEST(ConstraintsTest, ReadsCheckConstraintsCaseInsensitively) {
  Metadata m = WithConfig({{"delta.appendOnly", "false"},
                           {"delta.constraints.a_pos", "a > 0"},
                           {"Delta.Constraints.B_Short", "length(b) < 5"}});
  auto all = CheckConstraints(m);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "a_pos");
  EXPECT_EQ(all[0].expression, "a > 0");
  EXPECT_EQ(all[0].kind, ConstraintKind::kCheck);
  EXPECT_EQ(all[1].name, "B_Short");
  auto found = FindCheckConstraint(m, "b_SHORT");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->expression, "length(b) < 5");
  EXPECT_FALSE(FindCheckConstraint(m, "nope"));
  EXPECT_EQ(all[0].Describe(), "CHECK constraint a_pos");
}

TEST(ConstraintsTest, ReadsLegacyInvariantsAtEveryStructDepth) {
  auto inner = std::make_shared<StructType>(std::vector<StructField>{
      WithInvariant(StructField{"x", DataType::Integer()}, "s.x > 3")});
  StructType schema({WithInvariant(StructField{"a", DataType::Long()}, "a < 10"),
                     StructField{"s", inner}});
  auto inv = Invariants(schema);
  ASSERT_TRUE(inv) << inv.error().ToString();
  ASSERT_EQ(inv->size(), 2u);
  EXPECT_EQ((*inv)[0].kind, ConstraintKind::kInvariant);
  EXPECT_EQ((*inv)[0].name, "a");
  EXPECT_EQ((*inv)[0].expression, "a < 10");
  EXPECT_EQ((*inv)[1].name, "s.x");
  EXPECT_EQ((*inv)[1].expression, "s.x > 3");
  EXPECT_EQ((*inv)[1].Describe(), "invariant on column s.x");
  auto bound =
      BindAllConstraints(WithConfig({{"delta.constraints.c", "a <> 5"}}), schema);
  ASSERT_TRUE(bound) << bound.error().ToString();
  ASSERT_EQ(bound->size(), 3u);
  EXPECT_EQ((*bound)[0].constraint.name, "c");  // CHECK constraints first
  EXPECT_EQ((*bound)[2].columns, (std::vector<Path>{{"s", "x"}}));
}

TEST(ConstraintsTest, MalformedInvariantIsCorruptLogNamingTheColumn) {
  StructField f{"a", DataType::Integer()};
  f.metadata = f.metadata.With(kInvariantsKey, JsonQuote("{\"expr\": 1}"));
  auto inv = Invariants(StructType({f}));
  ASSERT_FALSE(inv);
  EXPECT_EQ(inv.error().code, ErrorCode::kCorruptLog);
  EXPECT_TRUE(Contains(inv.error().message, "column 'a'")) << inv.error().message;
  f.metadata = FieldMetadata().With(kInvariantsKey, "42");
  EXPECT_FALSE(Invariants(StructType({f})));
}

TEST(ConstraintsTest, InvariantInsideArrayIsRefused) {
  auto elem = std::make_shared<StructType>(std::vector<StructField>{
      WithInvariant(StructField{"x", DataType::Integer()}, "x>0")});
  StructType schema({StructField{"arr", std::make_shared<ArrayType>(elem, true)}});
  auto inv = Invariants(schema);
  ASSERT_FALSE(inv);
  EXPECT_EQ(inv.error().code, ErrorCode::kUnsupportedFeature);
  EXPECT_TRUE(Contains(inv.error().message, "arr.x")) << inv.error().message;
}

TEST(ConstraintsTest, ValidateNewConstraintStoresLowerNameAndTrimmedText) {
  auto schema = Schema("amount INT, name STRING, s STRUCT<x: INT>");
  auto c = ValidateNewCheckConstraint(Metadata{}, *schema, "Amount_Positive",
                                      "  amount   >  0 and s.x is not null ");
  ASSERT_TRUE(c) << c.error().ToString();
  EXPECT_EQ(c->constraint.name, "amount_positive");
  EXPECT_EQ(c->constraint.expression, "amount   >  0 and s.x is not null");
  // Spark's token-joined form parses too.
  EXPECT_TRUE(ValidateNewCheckConstraint(Metadata{}, *schema, "t",
                                         "concat ( name , 'x' ) != '9i'"));
  EXPECT_EQ(c->columns, (std::vector<Path>{{"amount"}, {"s", "x"}}));
  EXPECT_EQ(c->predicate->type->kind(), TypeKind::kBoolean);
}

TEST(ConstraintsTest, ValidateRefusesDuplicateNamesCaseInsensitively) {
  auto schema = Schema("a INT");
  Metadata m = WithConfig({{"delta.constraints.pos", "a > 0"}});
  auto c = ValidateNewCheckConstraint(m, *schema, "POS", "a > 1");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, ErrorCode::kAlreadyExists);
  EXPECT_TRUE(Contains(c.error().message, "DELTA_CONSTRAINT_ALREADY_EXISTS"));
  EXPECT_TRUE(Contains(c.error().message, "Old constraint: a > 0")) << c.error().message;
}

TEST(ConstraintsTest, ValidateRefusesBadNames) {
  auto schema = Schema("a INT");
  for (std::string name : {std::string(""), std::string("a\nb"),
                           std::string("__char_varchar_string_length_check__")}) {
    auto c = ValidateNewCheckConstraint(Metadata{}, *schema, name, "a > 0");
    ASSERT_FALSE(c) << name;
    EXPECT_EQ(c.error().code, ErrorCode::kInvalidArgument);
    EXPECT_TRUE(Contains(c.error().message, "DELTA_INVALID_CONSTRAINT_NAME"));
  }
  EXPECT_TRUE(ValidateNewCheckConstraint(Metadata{}, *schema, "with-dash", "a > 0"));
}

TEST(ConstraintsTest, ValidateRefusesBadExpressionsNamingTheConstraint) {
  auto schema = Schema("a INT, b STRING, d DATE");
  struct Case {
    std::string sql;
    ErrorCode code;
    std::string fragment;
  };
  std::vector<Case> cases = {
      {"a >", ErrorCode::kParseError, "CHECK constraint c (a >)"},
      {"a + 1", ErrorCode::kSchemaMismatch, "DELTA_NON_BOOLEAN_CHECK_CONSTRAINT"},
      {"missing > 1", ErrorCode::kNotFound, "DELTA_INVALID_CHECK_CONSTRAINT_REFERENCES"},
      {"sum(a) > 1", ErrorCode::kInvalidArgument, "DELTA_AGGREGATE_IN_CHECK_CONSTRAINT"},
      {"d < current_date()", ErrorCode::kInvalidArgument,
       "DELTA_NON_DETERMINISTIC_EXPRESSION_IN_CHECK_CONSTRAINT"},
      {"b > 1.5", ErrorCode::kSchemaMismatch, "CHECK constraint c"},
      {"  ", ErrorCode::kInvalidArgument, "empty"},
  };
  for (const auto& tc : cases) {
    auto c = ValidateNewCheckConstraint(Metadata{}, *schema, "c", tc.sql);
    ASSERT_FALSE(c) << tc.sql;
    EXPECT_EQ(c.error().code, tc.code) << tc.sql << ": " << c.error().ToString();
    EXPECT_TRUE(Contains(c.error().message, tc.fragment))
        << tc.sql << ": " << c.error().message;
    EXPECT_TRUE(Contains(c.error().message, "c")) << c.error().message;
  }
}

TEST(ConstraintsTest, BindAllConstraintsNamesAConstraintThatNoLongerBinds) {
  auto schema = Schema("a INT");
  auto b = BindAllConstraints(WithConfig({{"delta.constraints.gone", "dropped > 0"}}),
                              *schema);
  ASSERT_FALSE(b);
  EXPECT_TRUE(Contains(b.error().message, "CHECK constraint gone (dropped > 0)"))
      << b.error().message;
}

TEST(ConstraintsTest, ConstraintsReferencingFindsDependentsUpAndDownThePath) {
  auto schema = Schema("a INT, b INT, s STRUCT<x: INT, y: INT>");
  Metadata m = WithConfig({{"delta.constraints.a_pos", "a > 0"},
                           {"delta.constraints.sx", "s.x > b"},
                           {"delta.constraints.whole", "s IS NOT NULL"}});
  auto names = [&](const Path& col) {
    auto deps = ConstraintsReferencing(m, *schema, col);
    EXPECT_TRUE(deps) << deps.error().ToString();
    std::vector<std::string> out;
    if (deps) {
      for (auto& d : *deps) out.push_back(d.constraint.name);
    }
    return out;
  };
  EXPECT_EQ(names({"A"}), (std::vector<std::string>{"a_pos"}));
  EXPECT_EQ(names({"b"}), (std::vector<std::string>{"sx"}));
  EXPECT_EQ(names({"s"}), (std::vector<std::string>{"sx", "whole"}));
  EXPECT_EQ(names({"s", "x"}), (std::vector<std::string>{"sx", "whole"}));
  EXPECT_EQ(names({"s", "y"}), (std::vector<std::string>{"whole"}));
  auto deps = ConstraintsReferencing(m, *schema, {"s", "X"});
  ASSERT_TRUE(deps);
  EXPECT_EQ((*deps)[0].column, (Path{"s", "x"}));
}

}  // namespace
}  // namespace deltaguard

namespace deltaguard {
namespace {

TEST(NotNullConstraintsTest, OnePerTopLevelNotNullColumnAndBinds) {
  auto schema = ParseDdlSchema("id BIGINT NOT NULL, `odd name` STRING NOT NULL, x INT");
  ASSERT_TRUE(schema) << schema.error().ToString();
  auto constraints = NotNullConstraints(**schema);
  ASSERT_EQ(constraints.size(), 2u);
  EXPECT_EQ(constraints[0].kind, ConstraintKind::kNotNull);
  EXPECT_EQ(constraints[0].expression, "`id` IS NOT NULL");
  EXPECT_EQ(constraints[1].Describe(), "NOT NULL column odd name");
  for (const auto& c : constraints) {
    auto bound = BindConstraint(c, **schema);
    EXPECT_TRUE(bound) << bound.error().ToString();
  }
}

TEST(NotNullConstraintsTest, NestedStructFieldsEachAfterTheirParent) {
  auto schema = ParseDdlSchema(
      "s STRUCT<a: INT NOT NULL, `b``c`: STRUCT<d: STRING NOT NULL>> NOT NULL, "
      "tags ARRAY<STRUCT<e: INT NOT NULL>>, m MAP<STRING, STRUCT<f: INT NOT NULL>>, "
      "z INT NOT NULL");
  ASSERT_TRUE(schema) << schema.error().ToString();
  auto constraints = NotNullConstraints(**schema);
  std::vector<std::string> names, expressions;
  for (const auto& c : constraints) {
    names.push_back(c.name);
    expressions.push_back(c.expression);
    auto bound = BindConstraint(c, **schema);
    EXPECT_TRUE(bound) << c.expression << ": " << bound.error().ToString();
  }
  // Fields inside the array and the map have no such expression and are left out.
  EXPECT_THAT(names, ::testing::ElementsAre("s", "s.a", "s.b`c.d", "z"));
  EXPECT_THAT(expressions,
              ::testing::ElementsAre("`s` IS NOT NULL", "`s`.`a` IS NOT NULL",
                                     "`s`.`b``c`.`d` IS NOT NULL", "`z` IS NOT NULL"));
}

}  // namespace
}  // namespace deltaguard
