#include "deltaguard/exec/spark_cast_internal.h"

#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/util/decimal.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/io/parquet/file_stats.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {
namespace {

using arrow::Decimal128;
using arrow::Decimal256;

// Decimal256 holds every intermediate: a 38-digit value scaled up by at most 38 more
// digits stays below 10^76.
constexpr int kMaxScaleUp = 76;

// An Arrow builder call's status as ours (a builder fails only when memory runs out).
Status Built(const arrow::Status& st) {
  if (st.ok()) return OkStatus();
  return FromArrowStatus(st, ErrorCode::kInternal, "building a cast result");
}

Error OutOfRange(std::string_view value, const DecimalType& to) {
  return MakeError(ErrorCode::kInvalidArgument,
                   "NUMERIC_VALUE_OUT_OF_RANGE: {} cannot be represented as {}. If "
                   "necessary use try_cast to tolerate it and return NULL instead",
                   value, TypeToSql(to));
}

Error Malformed(std::string_view text, const DataType& to) {
  return MakeError(ErrorCode::kInvalidArgument,
                   "CAST_INVALID_INPUT: The value '{}' of the type STRING cannot be cast "
                   "to {} because it is malformed. Use try_cast to tolerate malformed "
                   "input and return NULL instead",
                   text, TypeToSql(to));
}

// `v` with scale `from` as a value with scale `to`, rounding HALF_UP (away from zero at
// .5, Java's RoundingMode.HALF_UP) when digits are dropped; false when the result does
// not fit `precision` digits.
bool Rescale(const Decimal256& v, int from, int to, int precision, Decimal256* out) {
  Decimal256 r = v;
  if (to > from) {
    // v * 10^(to - from) fits `precision` digits iff v fits precision - (to - from).
    const int room = precision - (to - from);
    if (room <= 0) {
      if (v != Decimal256(0)) return false;
    } else {
      if (!v.FitsInPrecision(room)) return false;
      r = v.IncreaseScaleBy(to - from);
    }
  } else if (to < from) {
    if (from - to > kMaxScaleUp) {
      r = Decimal256(0);
    } else {
      r = v.ReduceScaleBy(from - to, /*round=*/true);
    }
  }
  if (!r.FitsInPrecision(precision)) return false;
  *out = r;
  return true;
}

Decimal128 Narrow(const Decimal256& v) {
  uint8_t bytes[32];
  v.ToBytes(bytes);
  return Decimal128(bytes);  // little-endian: the low 16 bytes, sign already extended
}

// Parse decimal text ("1.5", "-2", "1e3", ".5") into value and scale.
bool ParseDecimalText(std::string_view text, Decimal256* value, int32_t* scale) {
  if (text.empty()) return false;
  int32_t precision = 0;
  auto st = Decimal256::FromString(text, value, &precision, scale);
  return st.ok();
}

// Shortest text that reads back as `x` (what Java's Double.toString feeds BigDecimal).
std::string ShortestText(double x) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, res.ptr);
}

class DecimalCaster {
 public:
  DecimalCaster(const DecimalType& to, bool try_cast) : to_(to), try_cast_(try_cast) {}

  Status Init() {
    DELTA_ASSIGN_OR_RETURN(auto type, ToArrowType(to_));
    builder_ = std::make_unique<arrow::Decimal128Builder>(type);
    return OkStatus();
  }

  // Append `v` (scale `scale`), `shown` naming it in an error.
  Status Append(const Decimal256& v, int scale, const std::string& shown) {
    Decimal256 out;
    if (!Rescale(v, scale, to_.scale(), to_.precision(), &out)) {
      if (try_cast_) return AppendNull();
      return OutOfRange(shown, to_);
    }
    return Wrap(builder_->Append(Narrow(out)));
  }
  Status AppendNull() { return Wrap(builder_->AppendNull()); }
  Status Fail(Error e) {
    if (try_cast_) return AppendNull();
    return e;
  }

  Result<std::shared_ptr<arrow::Array>> Finish() {
    std::shared_ptr<arrow::Array> out;
    DELTA_RETURN_IF_ERROR(Wrap(builder_->Finish(&out)));
    return out;
  }

 private:
  static Status Wrap(const arrow::Status& st) {
    if (st.ok()) return OkStatus();
    return FromArrowStatus(st, ErrorCode::kInternal, "building a DECIMAL column");
  }

  const DecimalType& to_;
  bool try_cast_;
  std::unique_ptr<arrow::Decimal128Builder> builder_;
};

Result<std::shared_ptr<arrow::Array>> ArrowCast(const arrow::Array& input,
                                                std::shared_ptr<arrow::DataType> to) {
  DELTA_ARROW_ASSIGN_OR_RETURN(auto out, arrow::compute::Cast(input, to),
                               ErrorCode::kInternal, "widening a cast input");
  return out;
}

Result<std::shared_ptr<arrow::Array>> ToDecimal(const arrow::Array& input,
                                                const DecimalType& to, bool try_cast) {
  DecimalCaster caster(to, try_cast);
  DELTA_RETURN_IF_ERROR(caster.Init());
  const int64_t n = input.length();
  switch (input.type_id()) {
    case arrow::Type::DECIMAL128: {
      const auto& arr = static_cast<const arrow::Decimal128Array&>(input);
      const int scale = static_cast<const arrow::Decimal128Type&>(*input.type()).scale();
      for (int64_t i = 0; i < n; ++i) {
        if (arr.IsNull(i)) {
          DELTA_RETURN_IF_ERROR(caster.AppendNull());
          continue;
        }
        Decimal128 v(arr.GetValue(i));
        DELTA_RETURN_IF_ERROR(caster.Append(Decimal256(v), scale, v.ToString(scale)));
      }
      break;
    }
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
    case arrow::Type::BOOL: {
      DELTA_ASSIGN_OR_RETURN(auto wide, ArrowCast(input, arrow::int64()));
      const auto& arr = static_cast<const arrow::Int64Array&>(*wide);
      for (int64_t i = 0; i < n; ++i) {
        if (arr.IsNull(i)) {
          DELTA_RETURN_IF_ERROR(caster.AppendNull());
          continue;
        }
        DELTA_RETURN_IF_ERROR(
            caster.Append(Decimal256(arr.Value(i)), 0, std::to_string(arr.Value(i))));
      }
      break;
    }
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE: {
      const bool is_float = input.type_id() == arrow::Type::FLOAT;
      for (int64_t i = 0; i < n; ++i) {
        if (input.IsNull(i)) {
          DELTA_RETURN_IF_ERROR(caster.AppendNull());
          continue;
        }
        double d = is_float ? static_cast<const arrow::FloatArray&>(input).Value(i)
                            : static_cast<const arrow::DoubleArray&>(input).Value(i);
        // Spark widens FLOAT to DOUBLE first, then reads Double.toString's digits.
        std::string text = ShortestText(d);
        Decimal256 v;
        int32_t scale = 0;
        if (!std::isfinite(d) || !ParseDecimalText(text, &v, &scale)) {
          // The message spells the value as Spark does (Double.toString: "1.0E40").
          DELTA_RETURN_IF_ERROR(caster.Fail(OutOfRange(FormatJavaDouble(d), to)));
          continue;
        }
        DELTA_RETURN_IF_ERROR(caster.Append(v, scale, FormatJavaDouble(d)));
      }
      break;
    }
    case arrow::Type::STRING: {
      const auto& arr = static_cast<const arrow::StringArray&>(input);
      for (int64_t i = 0; i < n; ++i) {
        if (arr.IsNull(i)) {
          DELTA_RETURN_IF_ERROR(caster.AppendNull());
          continue;
        }
        std::string_view text = arr.GetView(i);
        Decimal256 v;
        int32_t scale = 0;
        if (!ParseDecimalText(text, &v, &scale)) {
          DELTA_RETURN_IF_ERROR(caster.Fail(Malformed(text, to)));
          continue;
        }
        DELTA_RETURN_IF_ERROR(caster.Append(v, scale, std::string(text)));
      }
      break;
    }
    default:
      return MakeError(ErrorCode::kSchemaMismatch, "cannot cast {} to {}",
                       input.type()->ToString(), TypeToSql(to));
  }
  return caster.Finish();
}

Result<std::shared_ptr<arrow::Array>> StringToBoolean(const arrow::Array& input,
                                                      bool try_cast) {
  const auto& arr = static_cast<const arrow::StringArray&>(input);
  arrow::BooleanBuilder builder;
  for (int64_t i = 0; i < arr.length(); ++i) {
    if (arr.IsNull(i)) {
      DELTA_RETURN_IF_ERROR(Built(builder.AppendNull()));
      continue;
    }
    std::string_view text = arr.GetView(i);
    std::string lower = AsciiToLower(text);
    if (lower == "t" || lower == "true" || lower == "y" || lower == "yes" ||
        lower == "1") {
      DELTA_RETURN_IF_ERROR(Built(builder.Append(true)));
    } else if (lower == "f" || lower == "false" || lower == "n" || lower == "no" ||
               lower == "0") {
      DELTA_RETURN_IF_ERROR(Built(builder.Append(false)));
    } else if (try_cast) {
      DELTA_RETURN_IF_ERROR(Built(builder.AppendNull()));
    } else {
      return Malformed(text, *DataType::Boolean());
    }
  }
  std::shared_ptr<arrow::Array> out;
  DELTA_RETURN_IF_ERROR(Built(builder.Finish(&out)));
  return out;
}

// FLOAT/DOUBLE -> TINYINT/SMALLINT/INT/BIGINT as Spark's ANSI cast: the fraction is
// truncated toward zero; NaN, an infinity or a value whose integral part does not fit
// is CAST_OVERFLOW (NULL with try_cast). Arrow's kernel with float truncation allowed
// would wrap such values silently.
template <typename OutType>
Result<std::shared_ptr<arrow::Array>> FloatToIntegral(const arrow::Array& input,
                                                      const DataType& to, bool try_cast) {
  using Out = typename OutType::c_type;
  const bool is_float = input.type_id() == arrow::Type::FLOAT;
  // Both bounds are exact doubles: -2^(bits-1) and 2^(bits-1).
  const double lower = static_cast<double>(std::numeric_limits<Out>::min());
  const double upper = -lower;
  arrow::NumericBuilder<OutType> builder;
  DELTA_RETURN_IF_ERROR(Built(builder.Reserve(input.length())));
  for (int64_t i = 0; i < input.length(); ++i) {
    if (input.IsNull(i)) {
      DELTA_RETURN_IF_ERROR(Built(builder.AppendNull()));
      continue;
    }
    const double d = is_float ? static_cast<const arrow::FloatArray&>(input).Value(i)
                              : static_cast<const arrow::DoubleArray&>(input).Value(i);
    const double t = std::trunc(d);
    if (std::isnan(t) || t < lower || t >= upper) {
      if (try_cast) {
        DELTA_RETURN_IF_ERROR(Built(builder.AppendNull()));
        continue;
      }
      return MakeError(
          ErrorCode::kInvalidArgument,
          "CAST_OVERFLOW: The value {}{} of the type \"{}\" cannot be cast "
          "to \"{}\" due to an overflow. Use try_cast to tolerate overflow "
          "and return NULL instead",
          is_float ? FormatJavaFloat(static_cast<float>(d)) : FormatJavaDouble(d),
          is_float ? "F" : "D", is_float ? "FLOAT" : "DOUBLE", TypeToSql(to));
    }
    builder.UnsafeAppend(static_cast<Out>(t));
  }
  std::shared_ptr<arrow::Array> out;
  DELTA_RETURN_IF_ERROR(Built(builder.Finish(&out)));
  return out;
}

// TIMESTAMP / TIMESTAMP_NTZ -> STRING as Spark renders it: "yyyy-MM-dd HH:mm:ss" in the
// session time zone (always UTC here), then the fraction with its trailing zeros cut
// ("...05.12", none when whole seconds).
Result<std::shared_ptr<arrow::Array>> TimestampToString(const arrow::Array& input) {
  const auto& arr = static_cast<const arrow::TimestampArray&>(input);
  arrow::StringBuilder builder;
  for (int64_t i = 0; i < arr.length(); ++i) {
    if (arr.IsNull(i)) {
      DELTA_RETURN_IF_ERROR(Built(builder.AppendNull()));
      continue;
    }
    const int64_t micros = arr.Value(i);
    std::string text = FormatTimestampMicros(micros, 6);
    if (const size_t t = text.find('T'); t != std::string::npos) text[t] = ' ';
    DELTA_RETURN_IF_ERROR(Built(builder.Append(TrimFractionZeros(std::move(text)))));
  }
  std::shared_ptr<arrow::Array> out;
  DELTA_RETURN_IF_ERROR(Built(builder.Finish(&out)));
  return out;
}

bool IsFloating(const arrow::DataType& type) {
  return type.id() == arrow::Type::FLOAT || type.id() == arrow::Type::DOUBLE;
}

}  // namespace

bool NeedsSparkCast(const arrow::DataType& from, const DataType& to) {
  if (to.kind() == TypeKind::kDecimal) {
    switch (from.id()) {
      case arrow::Type::DECIMAL128:
      case arrow::Type::INT8:
      case arrow::Type::INT16:
      case arrow::Type::INT32:
      case arrow::Type::INT64:
      case arrow::Type::BOOL:
      case arrow::Type::FLOAT:
      case arrow::Type::DOUBLE:
      case arrow::Type::STRING:
        return true;
      default:
        return false;
    }
  }
  if (to.is_integral() && IsFloating(from)) return true;
  if (to.kind() == TypeKind::kString && from.id() == arrow::Type::TIMESTAMP) return true;
  if (to.kind() == TypeKind::kString && IsFloating(from)) return true;
  return to.kind() == TypeKind::kBoolean && from.id() == arrow::Type::STRING;
}

// DOUBLE and FLOAT as Java's Double.toString / Float.toString write them ("100.0",
// "1.0E20", "NaN"), which is what Spark's cast to STRING gives (Arrow would write
// "100" and "1e+20").
Result<std::shared_ptr<arrow::Array>> FloatingToString(const arrow::Array& input) {
  arrow::StringBuilder b;
  DELTA_ARROW_RETURN_NOT_OK(b.Reserve(input.length()), ErrorCode::kInternal, "cast");
  const bool is_float = input.type_id() == arrow::Type::FLOAT;
  for (int64_t i = 0; i < input.length(); ++i) {
    if (input.IsNull(i)) {
      DELTA_ARROW_RETURN_NOT_OK(b.AppendNull(), ErrorCode::kInternal, "cast");
      continue;
    }
    std::string text =
        is_float
            ? FormatJavaFloat(static_cast<const arrow::FloatArray&>(input).Value(i))
            : FormatJavaDouble(static_cast<const arrow::DoubleArray&>(input).Value(i));
    DELTA_ARROW_RETURN_NOT_OK(b.Append(text), ErrorCode::kInternal, "cast");
  }
  std::shared_ptr<arrow::Array> out;
  DELTA_ARROW_RETURN_NOT_OK(b.Finish(&out), ErrorCode::kInternal, "cast");
  return out;
}

Result<std::shared_ptr<arrow::Array>> SparkCast(const arrow::Array& input,
                                                const DataType& to, bool try_cast) {
  if (to.kind() == TypeKind::kDecimal) {
    return ToDecimal(input, static_cast<const DecimalType&>(to), try_cast);
  }
  if (to.kind() == TypeKind::kBoolean && input.type_id() == arrow::Type::STRING) {
    return StringToBoolean(input, try_cast);
  }
  if (to.kind() == TypeKind::kString && input.type_id() == arrow::Type::TIMESTAMP) {
    return TimestampToString(input);
  }
  if (to.kind() == TypeKind::kString && IsFloating(*input.type())) {
    return FloatingToString(input);
  }
  if (IsFloating(*input.type())) {
    switch (to.kind()) {
      case TypeKind::kByte:
        return FloatToIntegral<arrow::Int8Type>(input, to, try_cast);
      case TypeKind::kShort:
        return FloatToIntegral<arrow::Int16Type>(input, to, try_cast);
      case TypeKind::kInteger:
        return FloatToIntegral<arrow::Int32Type>(input, to, try_cast);
      case TypeKind::kLong:
        return FloatToIntegral<arrow::Int64Type>(input, to, try_cast);
      default:
        break;
    }
  }
  return MakeError(ErrorCode::kInternal, "no Spark cast from {} to {}",
                   input.type()->ToString(), TypeToSql(to));
}

Result<std::shared_ptr<arrow::Array>> DecimalDivide(const arrow::Array& a,
                                                    const DecimalType& ta,
                                                    const arrow::Array& b,
                                                    const DecimalType& tb,
                                                    const DecimalType& result) {
  if (a.type_id() != arrow::Type::DECIMAL128 || b.type_id() != arrow::Type::DECIMAL128 ||
      a.length() != b.length()) {
    return MakeError(ErrorCode::kInternal, "decimal division of {} and {}",
                     a.type()->ToString(), b.type()->ToString());
  }
  const auto& x = static_cast<const arrow::Decimal128Array&>(a);
  const auto& y = static_cast<const arrow::Decimal128Array&>(b);
  // x/10^s1 / (y/10^s2) at scale s, one digit more, then rounded: the quotient
  // trunc(x * 10^(s - s1 + s2 + 1) / y) decides HALF_UP exactly by its last digit.
  const int shift = result.scale() - ta.scale() + tb.scale() + 1;
  DecimalCaster caster(result, /*try_cast=*/false);
  DELTA_RETURN_IF_ERROR(caster.Init());
  for (int64_t i = 0; i < a.length(); ++i) {
    if (x.IsNull(i) || y.IsNull(i)) {
      DELTA_RETURN_IF_ERROR(caster.AppendNull());
      continue;
    }
    Decimal256 num{Decimal128(x.GetValue(i))};
    Decimal256 den{Decimal128(y.GetValue(i))};
    if (den == Decimal256(0)) {
      return MakeError(
          ErrorCode::kInvalidArgument,
          "DIVIDE_BY_ZERO: Division by zero in '/' ({} / {}). Use try_divide "
          "to tolerate divisor being 0 and return NULL instead",
          TypeToSql(ta), TypeToSql(tb));
    }
    if (shift > 0) {
      if (shift > kMaxScaleUp || !num.FitsInPrecision(kMaxScaleUp - shift)) {
        return MakeError(ErrorCode::kUnsupportedFeature,
                         "decimal division {} / {} needs more than 76 digits",
                         TypeToSql(ta), TypeToSql(tb));
      }
      num = num.IncreaseScaleBy(shift);
    } else if (shift < 0) {
      den = den.IncreaseScaleBy(-shift);
    }
    auto qr = num.Divide(den);
    if (!qr.ok()) {
      return FromArrowStatus(qr.status(), ErrorCode::kInvalidArgument, "decimal '/'");
    }
    Decimal256 q = qr->first;
    DELTA_RETURN_IF_ERROR(
        caster.Append(q, result.scale() + 1, q.ToString(result.scale() + 1)));
  }
  return caster.Finish();
}

}  // namespace deltaguard::internal
