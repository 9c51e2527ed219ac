// Tests for FromArrowType / FromArrowSchema (Arrow -> Delta, the input side of writes).
#include <arrow/type.h>
#include <arrow/util/key_value_metadata.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/util/depth_guard.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

TEST(FromArrowTypeTest, PrimitiveMapping) {
  const std::vector<std::pair<std::shared_ptr<arrow::DataType>, std::string>> cases = {
      {arrow::int8(), "byte"},
      {arrow::int16(), "short"},
      {arrow::int32(), "integer"},
      {arrow::int64(), "long"},
      {arrow::uint8(), "short"},
      {arrow::uint16(), "integer"},
      {arrow::uint32(), "long"},
      {arrow::uint64(), "long"},
      {arrow::float16(), "float"},
      {arrow::float32(), "float"},
      {arrow::float64(), "double"},
      {arrow::decimal32(9, 2), "decimal(9,2)"},
      {arrow::decimal64(18, 3), "decimal(18,3)"},
      {arrow::decimal128(38, 10), "decimal(38,10)"},
      {arrow::decimal256(20, 0), "decimal(20,0)"},
      {arrow::utf8(), "string"},
      {arrow::large_utf8(), "string"},
      {arrow::utf8_view(), "string"},
      {arrow::binary(), "binary"},
      {arrow::large_binary(), "binary"},
      {arrow::fixed_size_binary(4), "binary"},
      {arrow::binary_view(), "binary"},
      {arrow::boolean(), "boolean"},
      {arrow::date32(), "date"},
      {arrow::date64(), "date"},
      {arrow::timestamp(arrow::TimeUnit::NANO, "Europe/Paris"), "timestamp"},
      {arrow::timestamp(arrow::TimeUnit::SECOND), "timestamp_ntz"},
      {arrow::null(), "void"},
      {arrow::dictionary(arrow::int32(), arrow::utf8()), "string"},
  };
  for (const auto& [arrow_type, expected] : cases) {
    auto t = FromArrowType(*arrow_type);
    ASSERT_TRUE(t) << arrow_type->ToString() << ": " << t.error().ToString();
    EXPECT_EQ((*t)->TypeName(), expected) << arrow_type->ToString();
  }
}

TEST(FromArrowTypeTest, ListKindsBecomeArrays) {
  for (const auto& type :
       {arrow::list(arrow::field("item", arrow::int32(), false)),
        arrow::large_list(arrow::field("x", arrow::int32(), false)),
        arrow::fixed_size_list(arrow::field("x", arrow::int32(), false), 3),
        arrow::list_view(arrow::field("x", arrow::int32(), false))}) {
    auto t = FromArrowType(*type);
    ASSERT_TRUE(t) << type->ToString();
    ASSERT_EQ((*t)->kind(), TypeKind::kArray) << type->ToString();
    const auto& array = static_cast<const ArrayType&>(**t);
    EXPECT_EQ(array.element_type()->kind(), TypeKind::kInteger);
    EXPECT_FALSE(array.contains_null()) << type->ToString();
  }
  auto nullable = FromArrowType(*arrow::list(arrow::utf8()));
  ASSERT_TRUE(nullable);
  EXPECT_TRUE(static_cast<const ArrayType&>(**nullable).contains_null());
}

TEST(FromArrowTypeTest, NestedSchemaKeepsNullabilityAndIgnoresFieldIds) {
  auto md = arrow::key_value_metadata({"PARQUET:field_id"}, {"7"});
  arrow::Schema schema({
      arrow::field("id", arrow::int64(), false, md),
      arrow::field("s", arrow::struct_({arrow::field("a", arrow::utf8(), false),
                                        arrow::field("b", arrow::float64())})),
      arrow::field("m",
                   arrow::map(arrow::utf8(), arrow::field("v", arrow::int16(), false))),
  });
  auto delta = FromArrowSchema(schema);
  ASSERT_TRUE(delta) << delta.error().ToString();
  EXPECT_EQ((*delta)->ToString(),
            "struct<id: long NOT NULL, s: struct<a: string NOT NULL, b: double>, "
            "m: map<string,short>>")
      << (*delta)->ToString();
  EXPECT_TRUE((*delta)->field(0).metadata.empty());
  EXPECT_FALSE((*delta)->field(0).nullable);
  const auto& map = static_cast<const MapType&>(*(*delta)->field(2).type);
  EXPECT_FALSE(map.value_contains_null());
}

TEST(FromArrowTypeTest, UnsupportedTypesNameTheColumn) {
  for (const auto& type :
       {arrow::time32(arrow::TimeUnit::MILLI), arrow::duration(arrow::TimeUnit::SECOND),
        arrow::month_interval(), arrow::decimal256(40, 2)}) {
    arrow::Schema schema({arrow::field(
        "outer", arrow::struct_({arrow::field("inner", arrow::list(type))}))});
    auto delta = FromArrowSchema(schema);
    ASSERT_FALSE(delta) << type->ToString();
    EXPECT_EQ(delta.error().code, ErrorCode::kUnsupportedFeature);
    EXPECT_THAT(delta.error().message, HasSubstr("outer.inner.element"));
    EXPECT_THAT(delta.error().message, HasSubstr(type->ToString()));
  }
  auto anonymous =
      FromArrowType(*arrow::sparse_union({arrow::field("a", arrow::int8())}));
  ASSERT_FALSE(anonymous);
  EXPECT_EQ(anonymous.error().code, ErrorCode::kUnsupportedFeature);
}

TEST(FromArrowTypeTest, NestingDeeperThanDeltaTypesIsRefused) {
  auto nest = [](int n) {
    std::shared_ptr<arrow::DataType> t = arrow::int32();
    for (int i = 0; i < n; ++i) {
      t = i % 2 ? arrow::list(t) : arrow::struct_({arrow::field("a", t)});
    }
    return arrow::schema({arrow::field("c", t)});
  };
  EXPECT_TRUE(FromArrowSchema(*nest(kMaxTypeDepth)));
  auto deep = FromArrowSchema(*nest(kMaxTypeDepth + 1));
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().code, ErrorCode::kUnsupportedFeature);
  EXPECT_THAT(deep.error().message, ::testing::HasSubstr("deeper than 64 levels"));
  EXPECT_FALSE(FromArrowSchema(*nest(10000)));
}

// RoundTripsThroughArrow is exactly "FromArrowSchema(ToArrowSchema(s)) == s": checked
// against the round trip itself for schemas on both sides of the line.
TEST(RoundTripsThroughArrowTest, AgreesWithTheRoundTrip) {
  struct Case {
    const char* ddl;
    bool round_trips;
  };
  const Case cases[] = {
      {"id BIGINT NOT NULL, d DECIMAL(12,3), t TIMESTAMP, n TIMESTAMP_NTZ, x DATE", true},
      {"s STRUCT<a: INT NOT NULL, b: ARRAY<STRING>>, m MAP<STRING, BINARY>", true},
      {"v VARCHAR(3)", false},                      // top-level metadata
      {"c STRING COMMENT 'note'", false},           // top-level comment
      {"s STRUCT<a: INT COMMENT 'inner'>", false},  // nested comment
      {"m MAP<STRING, STRUCT<a: INT COMMENT 'x'>>", false},
      {"v VARIANT", false},  // travels as struct<metadata, value>
      {"a ARRAY<VARIANT>", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.ddl);
    auto schema = ParseDdlSchema(c.ddl);
    ASSERT_TRUE(schema) << schema.error().ToString();
    auto arrow_schema = ToArrowSchema(**schema);
    ASSERT_TRUE(arrow_schema) << arrow_schema.error().ToString();
    auto back = FromArrowSchema(**arrow_schema);
    ASSERT_TRUE(back) << back.error().ToString();
    EXPECT_EQ(SchemaToJson(**back) == SchemaToJson(**schema), c.round_trips);
    EXPECT_EQ(RoundTripsThroughArrow(**schema), c.round_trips);
  }
}

}  // namespace
}  // namespace deltaguard
