#include "deltaguard/io/parquet/read_convert.h"

#include <arrow/util/key_value_metadata.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/io/parquet/parquet_file.h"
#include "testing/matchers.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

using testing::Field;
using testing::Mapping;

std::shared_ptr<arrow::Field> IdField(const std::string& name,
                                      std::shared_ptr<arrow::DataType> type, int id) {
  return arrow::field(
      name, std::move(type), true,
      arrow::key_value_metadata({kParquetFieldIdKey}, {std::to_string(id)}));
}

class ReadConvertTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(InitializeArrowCompute()); }

  // Convert and compare with the expected JSON in the target's Arrow type.
  void ExpectConverts(const std::shared_ptr<arrow::DataType>& file_type,
                      const std::string& file_json, const DataTypeRef& table_type,
                      const std::string& expected_json,
                      ColumnMappingMode mode = ColumnMappingMode::kNone) {
    auto in = ArrayFromJson(file_type, file_json);
    ASSERT_NE(in, nullptr);
    auto out = ConvertArray(in, *table_type, mode, "c");
    ASSERT_TRUE(out) << out.error().ToString();
    auto target = ToArrowType(*table_type);
    ASSERT_TRUE(target);
    auto expected = ArrayFromJson(*target, expected_json);
    ASSERT_TRUE((*out)->ValidateFull().ok()) << (*out)->ValidateFull().ToString();
    EXPECT_TRUE((*out)->Equals(*expected))
        << "got " << (*out)->ToString() << "\nwant " << expected->ToString();
  }
};

TEST_F(ReadConvertTest, IntegerWideningAndDrift) {
  ExpectConverts(arrow::int32(), "[1, null, -3]", DataType::Long(), "[1, null, -3]");
  ExpectConverts(arrow::int8(), "[1, 2]", DataType::Integer(), "[1, 2]");
  ExpectConverts(arrow::int16(), "[7]", DataType::Long(), "[7]");
  // INT32 annotated wider than the table type (DFv1 drift): values that fit are fine.
  ExpectConverts(arrow::int32(), "[100, -100]", DataType::Byte(), "[100, -100]");
  auto overflow = ConvertArray(ArrayFromJson(arrow::int32(), "[300]"), *DataType::Byte(),
                               ColumnMappingMode::kNone, "c");
  ASSERT_FALSE(overflow);
  EXPECT_EQ(overflow.error().code, ErrorCode::kCorruptData);
  // long -> integer is not a widening.
  auto narrowing = ConvertArray(ArrayFromJson(arrow::int64(), "[1]"),
                                *DataType::Integer(), ColumnMappingMode::kNone, "col_x");
  ASSERT_FALSE(narrowing);
  EXPECT_EQ(narrowing.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(narrowing.error().message, HasSubstr("col_x"));
  EXPECT_THAT(narrowing.error().message, HasSubstr("int64"));
  EXPECT_THAT(narrowing.error().message, HasSubstr("integer"));
}

TEST_F(ReadConvertTest, FloatingAndDecimalWidening) {
  ExpectConverts(arrow::float32(), "[1.5, null]", DataType::Double(), "[1.5, null]");
  ExpectConverts(arrow::int32(), "[2]", DataType::Double(), "[2.0]");
  ExpectConverts(arrow::int32(), "[12, -3]", std::make_shared<DecimalType>(12, 2),
                 R"(["12.00", "-3.00"])");
  ExpectConverts(arrow::decimal128(5, 2), R"(["1.25"])",
                 std::make_shared<DecimalType>(8, 3), R"(["1.250"])");
  auto lossy =
      ConvertArray(ArrayFromJson(arrow::decimal128(5, 2), R"(["999.99"])"),
                   *std::make_shared<DecimalType>(4, 2), ColumnMappingMode::kNone, "c");
  EXPECT_FALSE(lossy);
}

TEST_F(ReadConvertTest, DatesAndTimestamps) {
  // date -> timestamp_ntz at midnight (type widening).
  ExpectConverts(arrow::date32(), "[1, null]", DataType::TimestampNtz(),
                 "[86400000000, null]");
  // INT96 / ns / ms timestamps and missing UTC flag -> timestamp(us, UTC).
  ExpectConverts(arrow::timestamp(arrow::TimeUnit::NANO), "[1000000001]",
                 DataType::Timestamp(), "[1000000]");
  ExpectConverts(arrow::timestamp(arrow::TimeUnit::MILLI, "UTC"), "[5]",
                 DataType::Timestamp(), "[5000]");
  ExpectConverts(arrow::timestamp(arrow::TimeUnit::MICRO), "[5]",
                 DataType::TimestampNtz(), "[5]");
  auto bad = ConvertArray(ArrayFromJson(arrow::utf8(), R"(["x"])"), *DataType::Date(),
                          ColumnMappingMode::kNone, "c");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kSchemaMismatch);
}

TEST_F(ReadConvertTest, StringsAndBinary) {
  ExpectConverts(arrow::binary(), R"(["abc"])", DataType::String(), R"(["abc"])");
  ExpectConverts(arrow::large_utf8(), R"(["abc", null])", DataType::String(),
                 R"(["abc", null])");
  ExpectConverts(arrow::utf8(), R"(["abc"])", DataType::Binary(), R"(["abc"])");
  ExpectConverts(arrow::utf8(), R"(["x"])", DataType::Void(), "[null]");
}

TEST_F(ReadConvertTest, StructFieldsByNameCaseInsensitivelyWithMissingAndExtra) {
  auto file_type = arrow::struct_(
      {arrow::field("B", arrow::int32()), arrow::field("extra", arrow::utf8())});
  auto table_type = std::make_shared<StructType>(std::vector<StructField>{
      Field("a", DataType::String()), Field("b", DataType::Long())});
  ExpectConverts(file_type, R"([{"B": 1, "extra": "x"}, null])", table_type,
                 R"([{"a": null, "b": 1}, null])");
}

TEST_F(ReadConvertTest, StructFieldsByPhysicalName) {
  auto file_type = arrow::struct_(
      {arrow::field("col-b", arrow::int64()), arrow::field("b", arrow::int64())});
  auto table_type = std::make_shared<StructType>(
      std::vector<StructField>{Field("b", DataType::Long(), true, Mapping(7, "col-b"))});
  ExpectConverts(file_type, R"([{"col-b": 1, "b": 99}])", table_type, R"([{"b": 1}])",
                 ColumnMappingMode::kName);
}

TEST_F(ReadConvertTest, StructFieldsByFieldId) {
  auto file_type = arrow::struct_(
      {IdField("renamed", arrow::int64(), 7), IdField("col-b", arrow::int64(), 8)});
  auto table_type = std::make_shared<StructType>(
      std::vector<StructField>{Field("b", DataType::Long(), true, Mapping(7, "col-b"))});
  ExpectConverts(file_type, R"([{"renamed": 1, "col-b": 2}])", table_type,
                 R"([{"b": 1}])", ColumnMappingMode::kId);
}

TEST_F(ReadConvertTest, ListsAndMapsConvertTheirChildren) {
  auto file_list = arrow::list(arrow::field("item", arrow::int32()));
  ExpectConverts(file_list, "[[1, 2], null, []]",
                 std::make_shared<ArrayType>(DataType::Long(), true),
                 "[[1, 2], null, []]");
  auto file_map = arrow::map(arrow::utf8(), arrow::float32());
  ExpectConverts(file_map, R"([[["k", 1.5]], null])",
                 std::make_shared<MapType>(DataType::String(), DataType::Double(), true),
                 R"([[["k", 1.5]], null])");
  auto not_a_list = ConvertArray(ArrayFromJson(arrow::int32(), "[1]"),
                                 *std::make_shared<ArrayType>(DataType::Long(), true),
                                 ColumnMappingMode::kNone, "c");
  ASSERT_FALSE(not_a_list);
  EXPECT_EQ(not_a_list.error().code, ErrorCode::kSchemaMismatch);
}

TEST_F(ReadConvertTest, SlicedStructKeepsAlignment) {
  auto file_type = arrow::struct_({arrow::field("x", arrow::int32())});
  auto in =
      ArrayFromJson(file_type, R"([{"x": 1}, {"x": 2}, null, {"x": 4}])")->Slice(1, 3);
  auto table_type = std::make_shared<StructType>(std::vector<StructField>{
      Field("x", DataType::Long()), Field("y", DataType::String())});
  auto out = ConvertArray(in, *table_type, ColumnMappingMode::kNone, "c");
  ASSERT_TRUE(out) << out.error().ToString();
  ASSERT_TRUE((*out)->ValidateFull().ok());
  auto expected = ArrayFromJson(*ToArrowType(*table_type),
                                R"([{"x": 2, "y": null}, null, {"x": 4, "y": null}])");
  EXPECT_TRUE((*out)->Equals(*expected)) << (*out)->ToString();
}

TEST_F(ReadConvertTest, VariantIsUnsupported) {
  auto file_type = arrow::struct_({arrow::field("metadata", arrow::binary()),
                                   arrow::field("value", arrow::binary())});
  auto out = ConvertArray(ArrayFromJson(file_type, "[null]"), *DataType::Variant(),
                          ColumnMappingMode::kNone, "v");
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::kUnsupportedFeature);
  EXPECT_THAT(out.error().message, HasSubstr("scanning variant column 'v'"));
}

}  // namespace
}  // namespace deltaguard
