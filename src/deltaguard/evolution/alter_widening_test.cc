// Every type widening Delta 4.x allows (docs/spark_semantics.md §4.2) is accepted by
// ALTER COLUMN TYPE and recorded in delta.typeChanges; a sample of other changes is
// refused naming both types.

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "deltaguard/evolution/alter_schema.h"
#include "deltaguard/schema/ddl.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

DataTypeRef Type(const std::string& ddl) {
  auto type = ParseDdlType(ddl);
  EXPECT_TRUE(type) << type.error().ToString();
  return type ? *type : nullptr;
}

// ---- type widening pairs -------------------------------------------------------------

struct WideningCase {
  const char* label;
  const char* from;
  const char* to;
  bool allowed;
};

void PrintTo(const WideningCase& c, std::ostream* os) { *os << c.label; }

class AlterWideningPairTest : public ::testing::TestWithParam<WideningCase> {};

TEST_P(AlterWideningPairTest, AllowedExactlyAsDelta4) {
  const WideningCase& c = GetParam();
  auto schema = ParseDdlSchema(std::string("c ") + c.from);
  ASSERT_TRUE(schema) << schema.error().ToString();
  AlterContext context;
  context.table_name = "t";
  context.type_widening_enabled = true;
  ChangeColumnSpec spec;
  spec.type = Type(c.to);
  auto result = ChangeColumnInSchema(**schema, {"c"}, spec, context);
  if (!c.allowed) {
    ASSERT_FALSE(result) << c.label << " was accepted";
    EXPECT_EQ(result.error().code, ErrorCode::kSchemaMismatch);
    EXPECT_THAT(result.error().message,
                HasSubstr(fmt::format("from {} to {}", Type(c.from)->ToString(),
                                      Type(c.to)->ToString())));
    return;
  }
  ASSERT_TRUE(result) << result.error().ToString();
  const StructField& f = result->schema->field(0);
  EXPECT_TRUE(f.type->Equals(*Type(c.to)));
  EXPECT_EQ(*f.metadata.FindRaw(kTypeChangesKey),
            fmt::format(R"([{{"toType":"{}","fromType":"{}"}}])", Type(c.to)->TypeName(),
                        Type(c.from)->TypeName()));
}

INSTANTIATE_TEST_SUITE_P(
    Pairs, AlterWideningPairTest,
    ::testing::Values(
        // Every widening Delta 4.x allows (docs/spark_semantics.md §4.2).
        WideningCase{"byte_short", "TINYINT", "SMALLINT", true},
        WideningCase{"byte_int", "TINYINT", "INT", true},
        WideningCase{"byte_long", "TINYINT", "BIGINT", true},
        WideningCase{"short_int", "SMALLINT", "INT", true},
        WideningCase{"short_long", "SMALLINT", "BIGINT", true},
        WideningCase{"int_long", "INT", "BIGINT", true},
        WideningCase{"float_double", "FLOAT", "DOUBLE", true},
        WideningCase{"byte_double", "TINYINT", "DOUBLE", true},
        WideningCase{"short_double", "SMALLINT", "DOUBLE", true},
        WideningCase{"int_double", "INT", "DOUBLE", true},
        WideningCase{"date_timestamp_ntz", "DATE", "TIMESTAMP_NTZ", true},
        WideningCase{"decimal_precision", "DECIMAL(10,2)", "DECIMAL(12,2)", true},
        WideningCase{"decimal_precision_and_scale", "DECIMAL(10,2)", "DECIMAL(13,5)",
                     true},
        WideningCase{"decimal_to_max", "DECIMAL(5,0)", "DECIMAL(38,10)", true},
        WideningCase{"byte_decimal", "TINYINT", "DECIMAL(10,0)", true},
        WideningCase{"short_decimal", "SMALLINT", "DECIMAL(11,1)", true},
        WideningCase{"int_decimal", "INT", "DECIMAL(10,0)", true},
        WideningCase{"int_decimal_scaled", "INT", "DECIMAL(14,4)", true},
        WideningCase{"long_decimal", "BIGINT", "DECIMAL(20,0)", true},
        WideningCase{"long_decimal_scaled", "BIGINT", "DECIMAL(23,3)", true},
        // A sample of refused changes.
        WideningCase{"long_int", "BIGINT", "INT", false},
        WideningCase{"int_short", "INT", "SMALLINT", false},
        WideningCase{"double_float", "DOUBLE", "FLOAT", false},
        WideningCase{"long_double", "BIGINT", "DOUBLE", false},
        WideningCase{"int_float", "INT", "FLOAT", false},
        WideningCase{"int_string", "INT", "STRING", false},
        WideningCase{"string_int", "STRING", "INT", false},
        WideningCase{"boolean_int", "BOOLEAN", "INT", false},
        WideningCase{"int_decimal_too_narrow", "INT", "DECIMAL(9,0)", false},
        WideningCase{"long_decimal_19", "BIGINT", "DECIMAL(19,0)", false},
        WideningCase{"decimal_scale_eats_integer_digits", "DECIMAL(10,2)",
                     "DECIMAL(10,3)", false},
        WideningCase{"decimal_precision_down", "DECIMAL(12,2)", "DECIMAL(10,2)", false},
        WideningCase{"decimal_scale_down", "DECIMAL(10,4)", "DECIMAL(12,2)", false},
        WideningCase{"decimal_double", "DECIMAL(10,2)", "DOUBLE", false},
        WideningCase{"timestamp_ntz_date", "TIMESTAMP_NTZ", "DATE", false},
        WideningCase{"date_timestamp", "DATE", "TIMESTAMP", false},
        WideningCase{"timestamp_timestamp_ntz", "TIMESTAMP", "TIMESTAMP_NTZ", false},
        WideningCase{"string_binary", "STRING", "BINARY", false}),
    [](const ::testing::TestParamInfo<WideningCase>& info) { return info.param.label; });

}  // namespace
}  // namespace deltaguard
