#include "deltaguard/exec/text_values_internal.h"

#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/compute/cast.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/evolution/write_schema.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {

namespace {

/// A cursor over the text being parsed.
struct Scanner {
  std::string_view s;
  size_t pos = 0;

  bool AtEnd() const { return pos >= s.size(); }
  char Peek() const { return AtEnd() ? '\0' : s[pos]; }
  bool Consume(char c) {
    if (Peek() != c) return false;
    ++pos;
    return true;
  }
  /// Read between `min` and `max` digits; false if fewer than `min`.
  bool Digits(int min, int max, int64_t* value, int* count = nullptr) {
    int n = 0;
    int64_t v = 0;
    while (n < max && !AtEnd() && s[pos] >= '0' && s[pos] <= '9') {
      v = v * 10 + (s[pos] - '0');
      ++pos;
      ++n;
    }
    if (count != nullptr) *count = n;
    *value = v;
    return n >= min;
  }
};

std::optional<std::string> ParseDatePart(Scanner* sc, int64_t* days) {
  int64_t y = 0, m = 0, d = 0;
  if (!sc->Digits(4, 4, &y) || !sc->Consume('-') || !sc->Digits(1, 2, &m) ||
      !sc->Consume('-') || !sc->Digits(1, 2, &d)) {
    return std::string("expected a date yyyy-MM-dd");
  }
  std::chrono::year_month_day ymd{std::chrono::year(static_cast<int>(y)),
                                  std::chrono::month(static_cast<unsigned>(m)),
                                  std::chrono::day(static_cast<unsigned>(d))};
  if (!ymd.ok()) return std::string("no such date");
  *days = std::chrono::sys_days(ymd).time_since_epoch().count();
  return std::nullopt;
}

Result<std::shared_ptr<arrow::Array>> ParseTemporalColumn(const arrow::StringArray& text,
                                                          const TextColumnConversion& c,
                                                          const std::string& path,
                                                          int64_t first_row) {
  const TypeKind kind = c.target->kind();
  DELTA_ARROW_ASSIGN_OR_RETURN(std::unique_ptr<arrow::ArrayBuilder> builder,
                               arrow::MakeBuilder(c.output_type), ErrorCode::kInternal,
                               "builder");
  DELTA_ARROW_RETURN_NOT_OK(builder->Reserve(text.length()), ErrorCode::kIOError,
                            "reserve");
  for (int64_t i = 0; i < text.length(); ++i) {
    if (text.IsNull(i)) {
      DELTA_ARROW_RETURN_NOT_OK(builder->AppendNull(), ErrorCode::kIOError, "append");
      continue;
    }
    std::string_view value = text.GetView(i);
    std::optional<std::string> problem;
    if (kind == TypeKind::kDate) {
      int32_t days = 0;
      problem = ParseInputDate(value, &days);
      if (!problem) static_cast<arrow::Date32Builder&>(*builder).UnsafeAppend(days);
    } else {
      int64_t micros = 0;
      problem = ParseInputTimestamp(value, kind == TypeKind::kTimestamp, &micros);
      if (!problem) static_cast<arrow::TimestampBuilder&>(*builder).UnsafeAppend(micros);
    }
    if (problem) {
      return MakeError(
          ErrorCode::kParseError,
          "input file '{}', row {}, column '{}': cannot parse '{}' as {}: {}",
          EscapeForMessage(path), first_row + i + 1, EscapeForMessage(c.name),
          EscapeForMessage(value), c.target->ToString(), *problem);
    }
  }
  std::shared_ptr<arrow::Array> out;
  DELTA_ARROW_RETURN_NOT_OK(builder->Finish(&out), ErrorCode::kIOError, "finish");
  return out;
}

bool CastFails(const std::shared_ptr<arrow::Array>& values,
               const std::shared_ptr<arrow::DataType>& type) {
  return !arrow::compute::Cast(*values, type, arrow::compute::CastOptions::Safe()).ok();
}

// A decimal value as the file wrote it: the read type's extra fractional zeros dropped.
std::string DecimalText(const arrow::Array& values, int64_t i) {
  return TrimFractionZeros(
      static_cast<const arrow::Decimal128Array&>(values).FormatValue(i));
}

// `text` (utf8, or decimal128 read wider from JSON) cast to the table's type; a value
// that does not fit is an error naming its row, column and text.
Result<std::shared_ptr<arrow::Array>> CastTextColumn(
    const std::shared_ptr<arrow::Array>& text, const TextColumnConversion& c,
    const std::string& path, int64_t first_row) {
  auto cast =
      arrow::compute::Cast(*text, c.output_type, arrow::compute::CastOptions::Safe());
  if (cast.ok()) return *cast;
  // Find the first value that does not parse: [lo, hi) always holds a failure.
  int64_t lo = 0, hi = text->length();
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (CastFails(text->Slice(lo, mid - lo), c.output_type)) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  if (text->type_id() == arrow::Type::DECIMAL128) {
    auto one = arrow::compute::Cast(*text->Slice(lo, 1), c.output_type,
                                    arrow::compute::CastOptions::Safe());
    return MakeError(ErrorCode::kParseError,
                     "input file '{}', row {}, column '{}': {} does not fit {} ({}); "
                     "values are never rounded or truncated",
                     EscapeForMessage(path), first_row + lo + 1, EscapeForMessage(c.name),
                     DecimalText(*text, lo), c.target->ToString(),
                     one.ok() ? cast.status().message() : one.status().message());
  }
  const auto& strings = static_cast<const arrow::StringArray&>(*text);
  return MakeError(ErrorCode::kParseError,
                   "input file '{}', row {}, column '{}': cannot parse '{}' as {} ({})",
                   EscapeForMessage(path), first_row + lo + 1, EscapeForMessage(c.name),
                   EscapeForMessage(strings.GetView(lo)), c.target->ToString(),
                   EscapeForMessage(cast.status().message()));
}

}  // namespace

std::optional<std::string> ParseInputDate(std::string_view text, int32_t* days) {
  Scanner sc{text};
  int64_t d = 0;
  if (auto problem = ParseDatePart(&sc, &d)) return problem;
  if (!sc.AtEnd()) return std::string("unexpected text after the date");
  *days = static_cast<int32_t>(d);
  return std::nullopt;
}

std::optional<std::string> ParseInputTimestamp(std::string_view text, bool allow_zone,
                                               int64_t* micros) {
  Scanner sc{text};
  int64_t days = 0;
  if (auto problem = ParseDatePart(&sc, &days)) return problem;
  int64_t h = 0, mi = 0, sec = 0, frac = 0;
  if (sc.Consume('T') || sc.Consume(' ')) {
    if (!sc.Digits(2, 2, &h) || !sc.Consume(':') || !sc.Digits(2, 2, &mi)) {
      return std::string("expected a time HH:mm[:ss[.ffffff]]");
    }
    if (sc.Consume(':')) {
      if (!sc.Digits(2, 2, &sec)) return std::string("expected seconds ss");
      if (sc.Consume('.')) {
        int n = 0;
        int64_t digits = 0;
        if (!sc.Digits(1, 9, &digits, &n)) return std::string("expected fraction digits");
        for (int k = n; k < 9; ++k) digits *= 10;  // nanoseconds
        if (digits % 1000 != 0) {
          return std::string("sub-microsecond digits would be lost");
        }
        frac = digits / 1000;
      }
    }
    if (h > 23 || mi > 59 || sec > 59) return std::string("time out of range");
  }
  int64_t offset_minutes = 0;
  if (!sc.AtEnd()) {
    char sign = sc.Peek();
    int64_t oh = 0, om = 0;
    if (sc.Consume('Z')) {
    } else if ((sign == '+' || sign == '-') && (++sc.pos, sc.Digits(2, 2, &oh))) {
      if (sc.Consume(':')) {
        if (!sc.Digits(2, 2, &om)) return std::string("bad zone offset");
      } else {
        sc.Digits(0, 2, &om);
      }
      if (oh > 18 || om > 59) return std::string("zone offset out of range");
      offset_minutes = (sign == '-' ? -1 : 1) * (oh * 60 + om);
    } else {
      return std::string("unexpected text after the timestamp");
    }
    if (!sc.AtEnd()) return std::string("unexpected text after the zone offset");
    if (!allow_zone) {
      return std::string("a timestamp_ntz value cannot carry a zone offset");
    }
  }
  int64_t seconds = days * 86400 + h * 3600 + mi * 60 + sec - offset_minutes * 60;
  *micros = seconds * 1000000 + frac;
  return std::nullopt;
}

Result<std::optional<TextColumnConversion>> MakeTextConversion(
    int index, const std::string& name, const DataTypeRef& target) {
  if (target->kind() == TypeKind::kString) return std::nullopt;
  TextColumnConversion c;
  c.index = index;
  c.name = name;
  if (!target->is_primitive() || target->kind() == TypeKind::kVoid ||
      target->kind() == TypeKind::kVariant) {
    return MakeError(ErrorCode::kSchemaMismatch,
                     "column '{}': a text input cannot hold the table's type {}", name,
                     target->ToString());
  }
  c.target = target;
  DELTA_ASSIGN_OR_RETURN(c.output_type, ToArrowType(*target));
  return std::optional<TextColumnConversion>(std::move(c));
}

Result<JsonColumnRead> JsonReadType(int index, const std::string& name,
                                    const DataTypeRef& target) {
  JsonColumnRead out;
  switch (target->kind()) {
    case TypeKind::kString:
      out.read_type = arrow::utf8();
      return out;
    case TypeKind::kDate:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
    case TypeKind::kBinary: {
      out.read_type = arrow::utf8();
      DELTA_ASSIGN_OR_RETURN(out.conversion, MakeTextConversion(index, name, target));
      return out;
    }
    case TypeKind::kDecimal: {
      // Arrow's own conversion to decimal(p, s) fails naming neither the row nor the
      // column ("1.234 requires scale 3"). So read with room for 18 more fractional
      // digits and at least 20 integer digits (every value of the table's type fits),
      // then cast with checks, naming the row of a value that does not fit.
      const auto& d = static_cast<const DecimalType&>(*target);
      const int integer_digits = std::max(d.precision() - d.scale(), 20);
      const int scale =
          std::max(d.scale(),
                   std::min(d.scale() + 18, DecimalType::kMaxPrecision - integer_digits));
      out.read_type = arrow::decimal128(DecimalType::kMaxPrecision, scale);
      TextColumnConversion c;
      c.index = index;
      c.name = name;
      c.target = target;
      DELTA_ASSIGN_OR_RETURN(c.output_type, ToArrowType(*target));
      out.conversion = std::move(c);
      return out;
    }
    case TypeKind::kVoid:
    case TypeKind::kVariant:
    case TypeKind::kMap:
      return out;  // keep the inferred type
    default:
      break;
  }
  // Numbers, booleans, structs and arrays: the JSON reader converts and checks them.
  // Read with every nested field nullable: NOT NULL is the conformer's to enforce, with
  // Delta's error naming the field (or quarantine's routing), where the JSON reader
  // would only say "a required field was null".
  DELTA_ASSIGN_OR_RETURN(out.read_type, ToArrowType(*MakeNullable(target)));
  return out;
}

Result<std::shared_ptr<arrow::RecordBatch>> ConvertTextColumns(
    const std::shared_ptr<arrow::RecordBatch>& batch,
    const std::vector<TextColumnConversion>& conversions,
    const std::shared_ptr<arrow::Schema>& schema, const std::string& path,
    int64_t first_row) {
  if (conversions.empty()) return batch;
  std::vector<std::shared_ptr<arrow::Array>> columns = batch->columns();
  for (const TextColumnConversion& c : conversions) {
    const auto& text = columns[static_cast<size_t>(c.index)];
    if (text->type_id() == arrow::Type::DECIMAL128 &&
        c.target->kind() == TypeKind::kDecimal) {
      DELTA_ASSIGN_OR_RETURN(columns[static_cast<size_t>(c.index)],
                             CastTextColumn(text, c, path, first_row));
      continue;
    }
    if (text->type_id() != arrow::Type::STRING) {
      return MakeError(ErrorCode::kInternal, "input file '{}': column '{}' read as {}",
                       path, c.name, text->type()->ToString());
    }
    TypeKind kind = c.target->kind();
    if (kind == TypeKind::kDate || kind == TypeKind::kTimestamp ||
        kind == TypeKind::kTimestampNtz) {
      DELTA_ASSIGN_OR_RETURN(
          columns[static_cast<size_t>(c.index)],
          ParseTemporalColumn(static_cast<const arrow::StringArray&>(*text), c, path,
                              first_row));
    } else {
      DELTA_ASSIGN_OR_RETURN(columns[static_cast<size_t>(c.index)],
                             CastTextColumn(text, c, path, first_row));
    }
  }
  return arrow::RecordBatch::Make(schema, batch->num_rows(), std::move(columns));
}

arrow::Status NameCsvColumn(const arrow::Status& status,
                            const std::vector<std::string>& names) {
  const std::string& msg = status.message();
  size_t at = msg.find("column #");
  if (at == std::string::npos) return status;
  size_t i = at + 8;
  size_t index = 0;
  bool any = false;
  while (i < msg.size() && msg[i] >= '0' && msg[i] <= '9') {
    index = index * 10 + static_cast<size_t>(msg[i++] - '0');
    any = true;
  }
  if (!any || index >= names.size()) return status;
  return status.WithMessage(
      fmt::format("column '{}': {}", EscapeForMessage(names[index]), msg));
}

arrow::Status NameJsonLine(const arrow::Status& status, int64_t rows_before) {
  const std::string& msg = status.message();
  size_t at = msg.rfind(" in row ");
  if (at == std::string::npos) return status;
  size_t i = at + 8;
  int64_t row = 0;
  bool any = false;
  while (i < msg.size() && msg[i] >= '0' && msg[i] <= '9') {
    row = row * 10 + (msg[i++] - '0');
    any = true;
  }
  if (!any) return status;
  return status.WithMessage(fmt::format("{} at line {}{}", msg.substr(0, at),
                                        rows_before + row + 1, msg.substr(i)));
}

}  // namespace deltaguard
