#include "deltaguard/arrow/schema.h"

#include <arrow/util/key_value_metadata.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/schema_util.h"

namespace deltaguard {
namespace {

using testing::Field;
using testing::Mapping;

TEST(ArrowSchemaTest, PrimitiveTypes) {
  const std::vector<std::pair<DataTypeRef, std::shared_ptr<arrow::DataType>>> cases = {
      {DataType::Byte(), arrow::int8()},
      {DataType::Short(), arrow::int16()},
      {DataType::Integer(), arrow::int32()},
      {DataType::Long(), arrow::int64()},
      {DataType::Float(), arrow::float32()},
      {DataType::Double(), arrow::float64()},
      {std::make_shared<DecimalType>(38, 18), arrow::decimal128(38, 18)},
      {DataType::String(), arrow::utf8()},
      {DataType::Binary(), arrow::binary()},
      {DataType::Boolean(), arrow::boolean()},
      {DataType::Date(), arrow::date32()},
      {DataType::Timestamp(), arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")},
      {DataType::TimestampNtz(), arrow::timestamp(arrow::TimeUnit::MICRO)},
      {DataType::Void(), arrow::null()},
  };
  for (const auto& [delta, expected] : cases) {
    auto t = ToArrowType(*delta);
    ASSERT_TRUE(t) << delta->ToString();
    EXPECT_TRUE((*t)->Equals(*expected))
        << delta->ToString() << " -> " << (*t)->ToString() << ", want "
        << expected->ToString();
  }
}

TEST(ArrowSchemaTest, NestedTypesAndNullability) {
  auto inner = std::make_shared<StructType>(std::vector<StructField>{
      Field("x", DataType::Integer(), false), Field("y", DataType::String())});
  auto list = std::make_shared<ArrayType>(DataType::Long(), false);
  auto map = std::make_shared<MapType>(DataType::String(), inner, true);
  StructType schema({Field("s", inner, false), Field("l", list), Field("m", map)});
  auto arrow_schema = ToArrowSchema(schema);
  ASSERT_TRUE(arrow_schema);
  const auto& s = **arrow_schema;
  ASSERT_EQ(s.num_fields(), 3);
  EXPECT_FALSE(s.field(0)->nullable());
  EXPECT_TRUE(s.field(0)->type()->Equals(*arrow::struct_(
      {arrow::field("x", arrow::int32(), false), arrow::field("y", arrow::utf8())})));
  EXPECT_TRUE(s.field(1)->type()->Equals(
      *arrow::list(arrow::field("element", arrow::int64(), false))));
  ASSERT_EQ(s.field(2)->type()->id(), arrow::Type::MAP);
  const auto& m = static_cast<const arrow::MapType&>(*s.field(2)->type());
  EXPECT_FALSE(m.key_field()->nullable());
  EXPECT_TRUE(m.item_field()->nullable());
  EXPECT_TRUE(m.key_type()->Equals(*arrow::utf8()));
  EXPECT_EQ(m.item_type()->id(), arrow::Type::STRUCT);
}

TEST(ArrowSchemaTest, VariantIsItsUnshreddedLayout) {
  auto t = ToArrowType(*DataType::Variant());
  ASSERT_TRUE(t);
  EXPECT_TRUE(
      (*t)->Equals(*arrow::struct_({arrow::field("metadata", arrow::binary(), false),
                                    arrow::field("value", arrow::binary(), false)})));
}

TEST(ArrowSchemaTest, LogicalViewKeepsDisplayNamesAndComments) {
  FieldMetadata md = Mapping(3, "col-abc").With(kCommentKey, "\"the id\"");
  StructType schema({Field("id", DataType::Long(), true, md)});
  auto s = ToArrowSchema(schema);
  ASSERT_TRUE(s);
  EXPECT_EQ((*s)->field(0)->name(), "id");
  ASSERT_NE((*s)->field(0)->metadata(), nullptr);
  EXPECT_EQ((*s)->field(0)->metadata()->Get("comment").ValueOr(""), "the id");
  EXPECT_FALSE((*s)->field(0)->metadata()->Contains(kParquetFieldIdKey));
}

TEST(ArrowSchemaTest, PhysicalViewUsesPhysicalNamesAndFieldIdsAtEveryLevel) {
  auto inner = std::make_shared<StructType>(std::vector<StructField>{
      Field("b", DataType::Integer(), true, Mapping(2, "col-b"))});
  StructType schema(
      {Field("a", inner, true, Mapping(1, "col-a")), Field("plain", DataType::String())});
  auto s = ToArrowSchema(schema, ArrowSchemaView::kPhysical);
  ASSERT_TRUE(s);
  const auto& a = (*s)->field(0);
  EXPECT_EQ(a->name(), "col-a");
  EXPECT_EQ(a->metadata()->Get(kParquetFieldIdKey).ValueOr(""), "1");
  const auto& b = a->type()->field(0);
  EXPECT_EQ(b->name(), "col-b");
  EXPECT_EQ(b->metadata()->Get(kParquetFieldIdKey).ValueOr(""), "2");
  // A field without mapping metadata keeps its name and gets no id.
  EXPECT_EQ((*s)->field(1)->name(), "plain");
  EXPECT_EQ((*s)->field(1)->metadata(), nullptr);
}

}  // namespace
}  // namespace deltaguard
