#include "deltaguard/io/parquet/partition_value.h"

#include <arrow/util/decimal.h>
#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <limits>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/util/civil_date.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

Error Bad(std::string_view text, std::string_view type, std::string_view why) {
  return MakeError(ErrorCode::kCorruptLog, "invalid partition value '{}' for type {}: {}",
                   text, type, why);
}

// A small cursor over the text; every Parse* advances it or reports failure.
struct Cursor {
  std::string_view s;
  size_t pos = 0;

  bool done() const { return pos == s.size(); }
  bool Peek(char c) const { return pos < s.size() && s[pos] == c; }
  bool Eat(char c) {
    if (!Peek(c)) return false;
    ++pos;
    return true;
  }
  // Exactly `n` decimal digits.
  bool Digits(int n, int64_t* out) {
    int64_t v = 0;
    for (int i = 0; i < n; ++i) {
      if (pos >= s.size() || !std::isdigit(static_cast<unsigned char>(s[pos])))
        return false;
      v = v * 10 + (s[pos++] - '0');
    }
    *out = v;
    return true;
  }
};

// yyyy-MM-dd (optionally signed, 4+ digit year) at the cursor -> days.
Result<int64_t> ParseDatePart(Cursor& c, std::string_view type) {
  bool negative = false;
  if (c.Eat('-'))
    negative = true;
  else
    c.Eat('+');
  size_t start = c.pos;
  while (c.pos < c.s.size() && std::isdigit(static_cast<unsigned char>(c.s[c.pos])))
    ++c.pos;
  size_t ndigits = c.pos - start;
  if (ndigits < 4 || ndigits > 6) return Bad(c.s, type, "expected a yyyy-MM-dd date");
  int64_t year = 0;
  for (size_t i = start; i < c.pos; ++i) year = year * 10 + (c.s[i] - '0');
  if (negative) year = -year;
  int64_t month = 0;
  int64_t day = 0;
  if (!c.Eat('-') || !c.Digits(2, &month) || !c.Eat('-') || !c.Digits(2, &day)) {
    return Bad(c.s, type, "expected a yyyy-MM-dd date");
  }
  if (month < 1 || month > 12) return Bad(c.s, type, "month out of range");
  if (day < 1 || day > DaysInMonth(year, month))
    return Bad(c.s, type, "day out of range");
  return DaysFromCivil(year, month, day);
}

std::string_view TypeNameOf(bool allow_offset) {
  return allow_offset ? "timestamp" : "timestamp_ntz";
}

template <typename Int>
Result<Int> ParseInt(std::string_view text, std::string_view type) {
  std::string_view s = text;
  if (s.starts_with('+')) s.remove_prefix(1);
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec == std::errc::result_out_of_range) return Bad(text, type, "out of range");
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) {
    return Bad(text, type, "not an integer");
  }
  if (value < std::numeric_limits<Int>::min() ||
      value > std::numeric_limits<Int>::max()) {
    return Bad(text, type, "out of range");
  }
  return static_cast<Int>(value);
}

template <typename Float>
Result<Float> ParseFloat(std::string_view text, std::string_view type) {
  std::string_view s = text;
  if (s.starts_with('+')) s.remove_prefix(1);
  Float value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  // Out-of-range text saturates to +-inf / 0 like Java's parseDouble would; only
  // malformed text is an error.
  if ((ec != std::errc() && ec != std::errc::result_out_of_range) ||
      ptr != s.data() + s.size() || s.empty()) {
    return Bad(text, type, "not a number");
  }
  return value;
}

Result<bool> ParseBool(std::string_view text) {
  if (EqualsIgnoreCase(text, "true")) return true;
  if (EqualsIgnoreCase(text, "false")) return false;
  return Bad(text, "boolean", "expected true or false");
}

Result<std::shared_ptr<arrow::Scalar>> ParseDecimal(const std::string& text,
                                                    const DecimalType& dec) {
  arrow::Decimal128 value;
  int32_t precision = 0;
  int32_t scale = 0;
  std::string type = dec.TypeName();
  if (!arrow::Decimal128::FromString(text, &value, &precision, &scale).ok()) {
    return Bad(text, type, "not a decimal number");
  }
  if (scale != dec.scale()) {
    auto rescaled = value.Rescale(scale, dec.scale());
    if (!rescaled.ok()) return Bad(text, type, "does not fit the scale without rounding");
    value = *rescaled;
  }
  if (!value.FitsInPrecision(dec.precision())) return Bad(text, type, "too many digits");
  return std::make_shared<arrow::Decimal128Scalar>(
      value, arrow::decimal128(dec.precision(), dec.scale()));
}

}  // namespace

Result<int32_t> ParseDateDays(std::string_view text) {
  Cursor c{text};
  DELTA_ASSIGN_OR_RETURN(int64_t days, ParseDatePart(c, "date"));
  if (!c.done()) return Bad(text, "date", "unexpected text after the date");
  return static_cast<int32_t>(days);
}

Result<int64_t> ParseTimestampMicros(std::string_view text, bool allow_offset) {
  std::string_view type = TypeNameOf(allow_offset);
  Cursor c{text};
  DELTA_ASSIGN_OR_RETURN(int64_t days, ParseDatePart(c, type));
  int64_t seconds = days * 86400;
  int64_t micros = 0;
  if (c.done()) return seconds * 1000000;  // bare date: midnight
  if (!c.Eat(' ') && !c.Eat('T'))
    return Bad(text, type, "expected ' ' or 'T' after the date");
  int64_t hh = 0;
  int64_t mm = 0;
  int64_t ss = 0;
  if (!c.Digits(2, &hh) || !c.Eat(':') || !c.Digits(2, &mm)) {
    return Bad(text, type, "expected HH:mm[:ss[.ffffff]]");
  }
  if (c.Eat(':') && !c.Digits(2, &ss)) return Bad(text, type, "expected seconds");
  if (hh > 23 || mm > 59 || ss > 59) return Bad(text, type, "time of day out of range");
  if (c.Eat('.')) {
    int digits = 0;
    while (!c.done() && std::isdigit(static_cast<unsigned char>(c.s[c.pos]))) {
      if (digits < 6) micros = micros * 10 + (c.s[c.pos] - '0');
      ++digits;
      ++c.pos;
    }
    if (digits == 0) return Bad(text, type, "expected digits after '.'");
    for (int i = digits; i < 6; ++i) micros *= 10;
  }
  seconds += hh * 3600 + mm * 60 + ss;
  if (!c.done()) {
    if (!allow_offset) return Bad(text, type, "timestamp_ntz value carries a time zone");
    if (c.Eat('Z')) {
      // UTC
    } else if (c.Peek('+') || c.Peek('-')) {
      int64_t sign = c.s[c.pos++] == '-' ? -1 : 1;
      int64_t oh = 0;
      int64_t om = 0;
      if (!c.Digits(2, &oh)) return Bad(text, type, "bad zone offset");
      c.Eat(':');  // "+HH:MM", "+HHMM" or "+HH"
      if (!c.done() && !c.Digits(2, &om)) return Bad(text, type, "bad zone offset");
      if (oh > 18 || om > 59) return Bad(text, type, "zone offset out of range");
      seconds -= sign * (oh * 3600 + om * 60);
    } else {
      return Bad(text, type, "unexpected text after the time");
    }
    if (!c.done()) return Bad(text, type, "unexpected text after the time zone");
  }
  return seconds * 1000000 + micros;
}

Result<std::shared_ptr<arrow::Scalar>> ParsePartitionValue(
    const std::optional<std::string>& value, const DataType& type) {
  DELTA_ASSIGN_OR_RETURN(auto arrow_type, ToArrowType(type));
  // PROTOCOL.md "Partition Value Serialization": an empty string is null for every type.
  if (!value.has_value() || value->empty() || type.kind() == TypeKind::kVoid) {
    return arrow::MakeNullScalar(arrow_type);
  }
  const std::string& text = *value;
  std::string type_name = type.TypeName();
  switch (type.kind()) {
    case TypeKind::kByte: {
      DELTA_ASSIGN_OR_RETURN(int8_t v, ParseInt<int8_t>(text, type_name));
      return std::make_shared<arrow::Int8Scalar>(v);
    }
    case TypeKind::kShort: {
      DELTA_ASSIGN_OR_RETURN(int16_t v, ParseInt<int16_t>(text, type_name));
      return std::make_shared<arrow::Int16Scalar>(v);
    }
    case TypeKind::kInteger: {
      DELTA_ASSIGN_OR_RETURN(int32_t v, ParseInt<int32_t>(text, type_name));
      return std::make_shared<arrow::Int32Scalar>(v);
    }
    case TypeKind::kLong: {
      DELTA_ASSIGN_OR_RETURN(int64_t v, ParseInt<int64_t>(text, type_name));
      return std::make_shared<arrow::Int64Scalar>(v);
    }
    case TypeKind::kFloat: {
      DELTA_ASSIGN_OR_RETURN(float v, ParseFloat<float>(text, type_name));
      return std::make_shared<arrow::FloatScalar>(v);
    }
    case TypeKind::kDouble: {
      DELTA_ASSIGN_OR_RETURN(double v, ParseFloat<double>(text, type_name));
      return std::make_shared<arrow::DoubleScalar>(v);
    }
    case TypeKind::kDecimal:
      return ParseDecimal(text, static_cast<const DecimalType&>(type));
    case TypeKind::kString:
      return std::make_shared<arrow::StringScalar>(text);
    case TypeKind::kBinary:
      return std::make_shared<arrow::BinaryScalar>(text);
    case TypeKind::kBoolean: {
      DELTA_ASSIGN_OR_RETURN(bool v, ParseBool(text));
      return std::make_shared<arrow::BooleanScalar>(v);
    }
    case TypeKind::kDate: {
      DELTA_ASSIGN_OR_RETURN(int32_t days, ParseDateDays(text));
      return std::make_shared<arrow::Date32Scalar>(days);
    }
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz: {
      bool with_zone = type.kind() == TypeKind::kTimestamp;
      DELTA_ASSIGN_OR_RETURN(int64_t micros, ParseTimestampMicros(text, with_zone));
      return std::make_shared<arrow::TimestampScalar>(micros, arrow_type);
    }
    default:
      return MakeError(ErrorCode::kCorruptLog,
                       "partition value '{}': type {} cannot be a partition column", text,
                       type.ToString());
  }
}

}  // namespace deltaguard
