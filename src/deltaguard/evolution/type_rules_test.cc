#include "deltaguard/evolution/type_rules.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace deltaguard {
namespace {

// Every primitive type plus decimals chosen around the digit boundaries of the
// integral types (byte 3, short 5, integer 10, long 19 digits; widening asks 10 / 20).
const std::vector<std::string>& AllTypeNames() {
  static const std::vector<std::string> kNames = {
      "byte",          "short",         "integer",       "long",
      "float",         "double",        "string",        "binary",
      "boolean",       "date",          "timestamp",     "timestamp_ntz",
      "variant",       "void",          "decimal(3,0)",  "decimal(5,2)",
      "decimal(10,0)", "decimal(10,2)", "decimal(12,2)", "decimal(12,4)",
      "decimal(19,0)", "decimal(20,0)", "decimal(21,1)", "decimal(38,18)",
  };
  return kNames;
}

DataTypeRef Type(const std::string& name) {
  auto t = DataType::FromTypeName(name);
  EXPECT_TRUE(t) << name;
  return *t;
}

// Pairs "from->to" that differ (equal types are checked separately).
const std::set<std::string>& ExpectedStrictWidenings() {
  static const std::set<std::string> kPairs = {
      // Integral upwards.
      "byte->short",
      "byte->integer",
      "byte->long",
      "short->integer",
      "short->long",
      "integer->long",
      // Floating point.
      "float->double",
      "byte->double",
      "short->double",
      "integer->double",
      // Dates.
      "date->timestamp_ntz",
      // Decimal -> decimal: scale and integer digits never shrink.
      "decimal(3,0)->decimal(5,2)",
      "decimal(3,0)->decimal(10,0)",
      "decimal(3,0)->decimal(10,2)",
      "decimal(3,0)->decimal(12,2)",
      "decimal(3,0)->decimal(12,4)",
      "decimal(3,0)->decimal(19,0)",
      "decimal(3,0)->decimal(20,0)",
      "decimal(3,0)->decimal(21,1)",
      "decimal(3,0)->decimal(38,18)",
      "decimal(5,2)->decimal(10,2)",
      "decimal(5,2)->decimal(12,2)",
      "decimal(5,2)->decimal(12,4)",
      "decimal(5,2)->decimal(38,18)",
      "decimal(10,0)->decimal(12,2)",
      "decimal(10,0)->decimal(19,0)",
      "decimal(10,0)->decimal(20,0)",
      "decimal(10,0)->decimal(21,1)",
      "decimal(10,0)->decimal(38,18)",
      "decimal(10,2)->decimal(12,2)",
      "decimal(10,2)->decimal(12,4)",
      "decimal(10,2)->decimal(38,18)",
      "decimal(12,2)->decimal(38,18)",
      "decimal(12,4)->decimal(38,18)",
      "decimal(19,0)->decimal(20,0)",
      "decimal(19,0)->decimal(21,1)",
      "decimal(19,0)->decimal(38,18)",
      "decimal(20,0)->decimal(21,1)",
      "decimal(20,0)->decimal(38,18)",
      "decimal(21,1)->decimal(38,18)",
  };
  return kPairs;
}

// Integral -> decimal with enough integer digits for every value (lossless casts).
const std::set<std::string>& ExpectedLosslessIntegralToDecimal() {
  static const std::set<std::string> kPairs = {
      "byte->decimal(3,0)",     "byte->decimal(5,2)",     "byte->decimal(10,0)",
      "byte->decimal(10,2)",    "byte->decimal(12,2)",    "byte->decimal(12,4)",
      "byte->decimal(19,0)",    "byte->decimal(20,0)",    "byte->decimal(21,1)",
      "byte->decimal(38,18)",   "short->decimal(10,0)",   "short->decimal(10,2)",
      "short->decimal(12,2)",   "short->decimal(12,4)",   "short->decimal(19,0)",
      "short->decimal(20,0)",   "short->decimal(21,1)",   "short->decimal(38,18)",
      "integer->decimal(10,0)", "integer->decimal(12,2)", "integer->decimal(19,0)",
      "integer->decimal(20,0)", "integer->decimal(21,1)", "integer->decimal(38,18)",
      "long->decimal(19,0)",    "long->decimal(20,0)",    "long->decimal(21,1)",
      "long->decimal(38,18)",
  };
  return kPairs;
}

// Integral -> decimal as Delta's type widening lists it: decimal(10 + k1, k2) from
// byte/short/integer, decimal(20 + k1, k2) from long.
const std::set<std::string>& ExpectedWideningIntegralToDecimal() {
  static const std::set<std::string> kPairs = {
      "byte->decimal(10,0)",    "byte->decimal(12,2)",    "byte->decimal(19,0)",
      "byte->decimal(20,0)",    "byte->decimal(21,1)",    "byte->decimal(38,18)",
      "short->decimal(10,0)",   "short->decimal(12,2)",   "short->decimal(19,0)",
      "short->decimal(20,0)",   "short->decimal(21,1)",   "short->decimal(38,18)",
      "integer->decimal(10,0)", "integer->decimal(12,2)", "integer->decimal(19,0)",
      "integer->decimal(20,0)", "integer->decimal(21,1)", "integer->decimal(38,18)",
      "long->decimal(20,0)",    "long->decimal(21,1)",    "long->decimal(38,18)",
  };
  return kPairs;
}

TEST(TypeRulesTest, LosslessWriteCastOverEveryPairOfPrimitives) {
  int accepted = 0;
  for (const std::string& from : AllTypeNames()) {
    for (const std::string& to : AllTypeNames()) {
      const std::string pair = from + "->" + to;
      const bool expected = from == to || from == "void" ||
                            ExpectedStrictWidenings().count(pair) > 0 ||
                            ExpectedLosslessIntegralToDecimal().count(pair) > 0;
      EXPECT_EQ(IsLosslessWriteCast(*Type(from), *Type(to)), expected) << pair;
      accepted += expected ? 1 : 0;
    }
  }
  // 24 equal pairs + 23 void sources + 40 strict widenings + 28 integral->decimal.
  EXPECT_EQ(accepted, 24 + 23 + 40 + 28);
}

TEST(TypeRulesTest, TypeWideningOverEveryPairOfPrimitives) {
  for (const std::string& from : AllTypeNames()) {
    for (const std::string& to : AllTypeNames()) {
      const std::string pair = from + "->" + to;
      const bool expected = ExpectedStrictWidenings().count(pair) > 0 ||
                            ExpectedWideningIntegralToDecimal().count(pair) > 0;
      EXPECT_EQ(IsTypeWideningSupported(*Type(from), *Type(to)), expected) << pair;
    }
  }
}

TEST(TypeRulesTest, EveryTypeWideningIsALosslessCast) {
  for (const std::string& from : AllTypeNames()) {
    for (const std::string& to : AllTypeNames()) {
      if (IsTypeWideningSupported(*Type(from), *Type(to))) {
        EXPECT_TRUE(IsLosslessWriteCast(*Type(from), *Type(to))) << from << "->" << to;
      }
    }
  }
}

TEST(TypeRulesTest, NestedTypesAreNeverCastHere) {
  auto arr_int = std::make_shared<ArrayType>(DataType::Integer(), true);
  auto arr_long = std::make_shared<ArrayType>(DataType::Long(), true);
  auto strct = std::make_shared<StructType>(
      std::vector<StructField>{StructField{"a", DataType::Integer(), true, {}}});
  EXPECT_FALSE(IsLosslessWriteCast(*arr_int, *arr_long));
  EXPECT_FALSE(IsLosslessWriteCast(*arr_int, *arr_int));
  EXPECT_FALSE(IsLosslessWriteCast(*DataType::Void(), *strct));
  EXPECT_FALSE(IsTypeWideningSupported(*arr_int, *arr_long));
  EXPECT_FALSE(IsTypeWideningSupported(*DataType::Integer(), *strct));
}

TEST(TypeRulesTest, IntegralDigits) {
  EXPECT_EQ(IntegralDigits(TypeKind::kByte), 3);
  EXPECT_EQ(IntegralDigits(TypeKind::kShort), 5);
  EXPECT_EQ(IntegralDigits(TypeKind::kInteger), 10);
  EXPECT_EQ(IntegralDigits(TypeKind::kLong), 19);
  EXPECT_EQ(IntegralDigits(TypeKind::kDouble), 0);
  EXPECT_EQ(IntegralDigits(TypeKind::kDecimal), 0);
}

}  // namespace
}  // namespace deltaguard
