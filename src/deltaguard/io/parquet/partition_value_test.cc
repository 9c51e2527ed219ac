#include "deltaguard/io/parquet/partition_value.h"

#include <arrow/util/decimal.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "testing/matchers.h"

namespace deltaguard {
namespace {

std::shared_ptr<arrow::Scalar> Parse(std::optional<std::string> text,
                                     const DataTypeRef& type) {
  auto s = ParsePartitionValue(text, *type);
  EXPECT_TRUE(s) << (s ? "" : s.error().ToString());
  return s ? *s : nullptr;
}

Error ParseError(std::string text, const DataTypeRef& type) {
  auto s = ParsePartitionValue(text, *type);
  EXPECT_FALSE(s) << "'" << text << "' parsed as " << (s ? (*s)->ToString() : "");
  return s ? Error{ErrorCode::kInternal, ""} : s.error();
}

template <typename ScalarT>
auto Value(const std::shared_ptr<arrow::Scalar>& s) {
  EXPECT_TRUE(s->is_valid);
  return static_cast<const ScalarT&>(*s).value;
}

DataTypeRef Decimal(int p, int s) { return std::make_shared<DecimalType>(p, s); }

TEST(PartitionValueTest, NullAndEmptyAreNullForEveryType) {
  for (const auto& type :
       {DataType::Integer(), DataType::String(), DataType::Date(), DataType::Timestamp(),
        DataType::Boolean(), Decimal(5, 2), DataType::Binary(), DataType::Double()}) {
    auto null = Parse(std::nullopt, type);
    ASSERT_NE(null, nullptr);
    EXPECT_FALSE(null->is_valid) << type->ToString();
    auto empty = Parse("", type);
    ASSERT_NE(empty, nullptr);
    EXPECT_FALSE(empty->is_valid) << type->ToString();
  }
}

TEST(PartitionValueTest, TheStringNullIsARealString) {
  auto s = Parse("null", DataType::String());
  ASSERT_TRUE(s->is_valid);
  EXPECT_EQ(s->ToString(), "null");
  EXPECT_EQ(static_cast<const arrow::StringScalar&>(*s).view(), "null");
}

TEST(PartitionValueTest, Integers) {
  EXPECT_EQ(Value<arrow::Int8Scalar>(Parse("-128", DataType::Byte())), -128);
  EXPECT_EQ(Value<arrow::Int16Scalar>(Parse("32767", DataType::Short())), 32767);
  EXPECT_EQ(Value<arrow::Int32Scalar>(Parse("-7", DataType::Integer())), -7);
  EXPECT_EQ(Value<arrow::Int64Scalar>(Parse("9223372036854775807", DataType::Long())),
            INT64_MAX);
  EXPECT_EQ(Value<arrow::Int32Scalar>(Parse("+5", DataType::Integer())), 5);
  EXPECT_THAT(ParseError("128", DataType::Byte()).message, HasSubstr("out of range"));
  EXPECT_THAT(ParseError("1.5", DataType::Integer()).message,
              HasSubstr("not an integer"));
  EXPECT_THAT(ParseError("abc", DataType::Long()).message, HasSubstr("'abc'"));
  EXPECT_EQ(ParseError("99999999999999999999", DataType::Long()).code,
            ErrorCode::kCorruptLog);
}

TEST(PartitionValueTest, FloatingPointIncludingSparkForms) {
  EXPECT_DOUBLE_EQ(Value<arrow::DoubleScalar>(Parse("1.0E10", DataType::Double())), 1e10);
  EXPECT_DOUBLE_EQ(Value<arrow::DoubleScalar>(Parse("-0.5", DataType::Double())), -0.5);
  EXPECT_FLOAT_EQ(Value<arrow::FloatScalar>(Parse("3.25", DataType::Float())), 3.25f);
  EXPECT_TRUE(std::isnan(Value<arrow::DoubleScalar>(Parse("NaN", DataType::Double()))));
  EXPECT_EQ(Value<arrow::DoubleScalar>(Parse("-Infinity", DataType::Double())),
            -INFINITY);
  EXPECT_EQ(Value<arrow::FloatScalar>(Parse("Infinity", DataType::Float())), INFINITY);
  EXPECT_THAT(ParseError("1.0.0", DataType::Double()).message, HasSubstr("not a number"));
}

TEST(PartitionValueTest, DecimalsArePlainOrScientificAndRescaled) {
  auto s = Parse("123.45", Decimal(10, 2));
  EXPECT_EQ(s->ToString(), "123.45");
  EXPECT_TRUE(s->type->Equals(*arrow::decimal128(10, 2)));
  EXPECT_EQ(Parse("7", Decimal(5, 3))->ToString(), "7.000");
  EXPECT_EQ(Parse("-1.5E+2", Decimal(6, 1))->ToString(), "-150.0");
  EXPECT_EQ(Parse("0", Decimal(1, 0))->ToString(), "0");
  EXPECT_THAT(ParseError("1.234", Decimal(5, 2)).message, HasSubstr("scale"));
  EXPECT_THAT(ParseError("123456", Decimal(5, 0)).message, HasSubstr("too many digits"));
  EXPECT_THAT(ParseError("x1", Decimal(5, 0)).message, HasSubstr("not a decimal"));
}

TEST(PartitionValueTest, BooleansStringsAndBinary) {
  EXPECT_TRUE(Value<arrow::BooleanScalar>(Parse("true", DataType::Boolean())));
  EXPECT_FALSE(Value<arrow::BooleanScalar>(Parse("FALSE", DataType::Boolean())));
  EXPECT_THAT(ParseError("yes", DataType::Boolean()).message, HasSubstr("true or false"));
  auto str = Parse("a b/c=d", DataType::String());
  EXPECT_EQ(static_cast<const arrow::StringScalar&>(*str).view(), "a b/c=d");
  auto bin = Parse(std::string("\x01\x02", 2), DataType::Binary());
  EXPECT_TRUE(bin->type->Equals(*arrow::binary()));
  EXPECT_EQ(static_cast<const arrow::BinaryScalar&>(*bin).view(),
            std::string("\x01\x02", 2));
}

TEST(PartitionValueTest, Dates) {
  EXPECT_EQ(Value<arrow::Date32Scalar>(Parse("1970-01-01", DataType::Date())), 0);
  EXPECT_EQ(Value<arrow::Date32Scalar>(Parse("2017-12-10", DataType::Date())), 17510);
  EXPECT_EQ(Value<arrow::Date32Scalar>(Parse("1969-12-31", DataType::Date())), -1);
  EXPECT_EQ(Value<arrow::Date32Scalar>(Parse("2000-02-29", DataType::Date())), 11016);
  EXPECT_THAT(ParseError("2001-02-29", DataType::Date()).message,
              HasSubstr("day out of range"));
  EXPECT_THAT(ParseError("2001-13-01", DataType::Date()).message, HasSubstr("month"));
  EXPECT_THAT(ParseError("2001/01/01", DataType::Date()).message,
              HasSubstr("yyyy-MM-dd"));
  EXPECT_EQ(ParseError("2001-01-01x", DataType::Date()).code, ErrorCode::kCorruptLog);
}

TEST(PartitionValueTest, TimestampsInBothFormats) {
  const int64_t base = 1631099471LL * 1000000;  // 2021-09-08 11:11:11 UTC
  auto legacy = Parse("2021-09-08 11:11:11", DataType::Timestamp());
  EXPECT_EQ(Value<arrow::TimestampScalar>(legacy), base);
  EXPECT_TRUE(legacy->type->Equals(*arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")));
  EXPECT_EQ(Value<arrow::TimestampScalar>(
                Parse("2021-09-08 11:11:11.123456", DataType::Timestamp())),
            base + 123456);
  EXPECT_EQ(Value<arrow::TimestampScalar>(
                Parse("2021-09-08 11:11:11.5", DataType::Timestamp())),
            base + 500000);
  EXPECT_EQ(Value<arrow::TimestampScalar>(
                Parse("2021-09-08T11:11:11.000000Z", DataType::Timestamp())),
            base);
  EXPECT_EQ(Value<arrow::TimestampScalar>(
                Parse("2021-09-08T13:11:11+02:00", DataType::Timestamp())),
            base);
  EXPECT_EQ(Value<arrow::TimestampScalar>(
                Parse("2021-09-08T11:11:11.123456789Z", DataType::Timestamp())),
            base + 123456);
  EXPECT_EQ(Value<arrow::TimestampScalar>(Parse("1970-01-01", DataType::Timestamp())), 0);
  EXPECT_THAT(ParseError("2021-09-08 25:00:00", DataType::Timestamp()).message,
              HasSubstr("out of range"));
  EXPECT_THAT(ParseError("2021-09-08 11:11:11 UTC", DataType::Timestamp()).message,
              HasSubstr("unexpected text"));
}

TEST(PartitionValueTest, TimestampNtz) {
  auto ntz = Parse("2021-11-18 02:30:00.123456", DataType::TimestampNtz());
  EXPECT_TRUE(ntz->type->Equals(*arrow::timestamp(arrow::TimeUnit::MICRO)));
  EXPECT_EQ(Value<arrow::TimestampScalar>(ntz), 1637202600LL * 1000000 + 123456);
  // A date partition value of a column widened date -> timestamp_ntz: midnight.
  EXPECT_EQ(Value<arrow::TimestampScalar>(Parse("2021-01-01", DataType::TimestampNtz())),
            1609459200LL * 1000000);
  EXPECT_THAT(ParseError("2021-11-18T02:30:00Z", DataType::TimestampNtz()).message,
              HasSubstr("time zone"));
}

TEST(PartitionValueTest, VoidIsAlwaysNullAndNestedTypesAreRejected) {
  auto v = Parse("anything", DataType::Void());
  EXPECT_FALSE(v->is_valid);
  auto arr = std::make_shared<ArrayType>(DataType::Integer(), true);
  EXPECT_EQ(ParseError("[1]", arr).code, ErrorCode::kCorruptLog);
}

}  // namespace
}  // namespace deltaguard
