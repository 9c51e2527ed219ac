#include "deltaguard/exec/result_format.h"

#include <arrow/array.h>
#include <arrow/scalar.h>
#include <arrow/type.h>
#include <arrow/util/checked_cast.h>

#include <chrono>
#include <cmath>

#include "deltaguard/util/civil_date.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

using arrow::internal::checked_cast;

constexpr char kBase64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void AppendBase64(std::string_view in, std::string* out) {
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    out->push_back(kBase64[(n >> 18) & 63]);
    out->push_back(kBase64[(n >> 12) & 63]);
    out->push_back(kBase64[(n >> 6) & 63]);
    out->push_back(kBase64[n & 63]);
  }
  if (i + 1 == in.size()) {
    uint32_t n = uint8_t(in[i]) << 16;
    out->push_back(kBase64[(n >> 18) & 63]);
    out->push_back(kBase64[(n >> 12) & 63]);
    out->append("==");
  } else if (i + 2 == in.size()) {
    uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    out->push_back(kBase64[(n >> 18) & 63]);
    out->push_back(kBase64[(n >> 12) & 63]);
    out->push_back(kBase64[(n >> 6) & 63]);
    out->push_back('=');
  }
}

void AppendDate(int64_t days, std::string* out) {
  const CivilDate c = CivilFromDays(days);
  fmt::format_to(std::back_inserter(*out), "{:04d}-{:02d}-{:02d}", c.year, c.month,
                 c.day);
}

void AppendTimestamp(int64_t value, arrow::TimeUnit::type unit, bool utc,
                     std::string* out) {
  // Normalise to microseconds, the Delta timestamp precision.
  int64_t micros = value;
  switch (unit) {
    case arrow::TimeUnit::SECOND:
      micros = value * 1000000;
      break;
    case arrow::TimeUnit::MILLI:
      micros = value * 1000;
      break;
    case arrow::TimeUnit::MICRO:
      break;
    case arrow::TimeUnit::NANO:
      micros = value / 1000 - (value % 1000 < 0 ? 1 : 0);
      break;
  }
  int64_t days = micros / 86400000000LL;
  int64_t rem = micros % 86400000000LL;
  if (rem < 0) {
    rem += 86400000000LL;
    --days;
  }
  AppendDate(days, out);
  int64_t secs = rem / 1000000;
  fmt::format_to(std::back_inserter(*out), "T{:02d}:{:02d}:{:02d}.{:06d}", secs / 3600,
                 (secs / 60) % 60, secs % 60, rem % 1000000);
  if (utc) out->push_back('Z');
}

template <typename T>
void AppendFloat(T v, std::string* out, bool quote_special) {
  if (std::isnan(v)) {
    out->append(quote_special ? "\"NaN\"" : "NaN");
  } else if (std::isinf(v)) {
    out->append(v > 0 ? (quote_special ? "\"Infinity\"" : "Infinity")
                      : (quote_special ? "\"-Infinity\"" : "-Infinity"));
  } else {
    fmt::format_to(std::back_inserter(*out), "{}", v);
  }
}

// Render one value; `json` selects JSON (quoted strings) vs plain text for scalars.
void AppendValue(const arrow::Array& array, int64_t row, bool json, std::string* out) {
  if (array.IsNull(row)) {
    out->append("null");
    return;
  }
  auto quoted = [&](std::string_view s) {
    if (json) {
      AppendJsonString(out, s);
    } else {
      out->append(s);
    }
  };
  switch (array.type_id()) {
    case arrow::Type::NA:
      out->append("null");
      return;
    case arrow::Type::BOOL:
      out->append(checked_cast<const arrow::BooleanArray&>(array).Value(row) ? "true"
                                                                             : "false");
      return;
    case arrow::Type::INT8:
      fmt::format_to(std::back_inserter(*out), "{}",
                     checked_cast<const arrow::Int8Array&>(array).Value(row));
      return;
    case arrow::Type::INT16:
      fmt::format_to(std::back_inserter(*out), "{}",
                     checked_cast<const arrow::Int16Array&>(array).Value(row));
      return;
    case arrow::Type::INT32:
      fmt::format_to(std::back_inserter(*out), "{}",
                     checked_cast<const arrow::Int32Array&>(array).Value(row));
      return;
    case arrow::Type::INT64:
      fmt::format_to(std::back_inserter(*out), "{}",
                     checked_cast<const arrow::Int64Array&>(array).Value(row));
      return;
    case arrow::Type::UINT8:
    case arrow::Type::UINT16:
    case arrow::Type::UINT32:
    case arrow::Type::UINT64: {
      auto scalar = array.GetScalar(row);
      out->append(scalar.ok() ? (*scalar)->ToString() : "null");
      return;
    }
    case arrow::Type::FLOAT:
      AppendFloat(checked_cast<const arrow::FloatArray&>(array).Value(row), out, json);
      return;
    case arrow::Type::DOUBLE:
      AppendFloat(checked_cast<const arrow::DoubleArray&>(array).Value(row), out, json);
      return;
    case arrow::Type::DECIMAL128:
      quoted(checked_cast<const arrow::Decimal128Array&>(array).FormatValue(row));
      return;
    case arrow::Type::DECIMAL256:
      quoted(checked_cast<const arrow::Decimal256Array&>(array).FormatValue(row));
      return;
    case arrow::Type::STRING:
      quoted(checked_cast<const arrow::StringArray&>(array).GetView(row));
      return;
    case arrow::Type::LARGE_STRING:
      quoted(checked_cast<const arrow::LargeStringArray&>(array).GetView(row));
      return;
    case arrow::Type::STRING_VIEW:
      quoted(checked_cast<const arrow::StringViewArray&>(array).GetView(row));
      return;
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::FIXED_SIZE_BINARY:
    case arrow::Type::BINARY_VIEW: {
      std::string_view v;
      if (array.type_id() == arrow::Type::BINARY) {
        v = checked_cast<const arrow::BinaryArray&>(array).GetView(row);
      } else if (array.type_id() == arrow::Type::LARGE_BINARY) {
        v = checked_cast<const arrow::LargeBinaryArray&>(array).GetView(row);
      } else if (array.type_id() == arrow::Type::FIXED_SIZE_BINARY) {
        v = checked_cast<const arrow::FixedSizeBinaryArray&>(array).GetView(row);
      } else {
        v = checked_cast<const arrow::BinaryViewArray&>(array).GetView(row);
      }
      std::string b64;
      AppendBase64(v, &b64);
      quoted(b64);
      return;
    }
    case arrow::Type::DATE32: {
      std::string s;
      AppendDate(checked_cast<const arrow::Date32Array&>(array).Value(row), &s);
      quoted(s);
      return;
    }
    case arrow::Type::DATE64: {
      std::string s;
      AppendDate(checked_cast<const arrow::Date64Array&>(array).Value(row) / 86400000,
                 &s);
      quoted(s);
      return;
    }
    case arrow::Type::TIMESTAMP: {
      const auto& ts_type = checked_cast<const arrow::TimestampType&>(*array.type());
      std::string s;
      AppendTimestamp(checked_cast<const arrow::TimestampArray&>(array).Value(row),
                      ts_type.unit(), !ts_type.timezone().empty(), &s);
      quoted(s);
      return;
    }
    case arrow::Type::STRUCT: {
      const auto& st = checked_cast<const arrow::StructArray&>(array);
      const auto& type = checked_cast<const arrow::StructType&>(*array.type());
      out->push_back('{');
      for (int i = 0; i < type.num_fields(); ++i) {
        if (i > 0) out->push_back(',');
        AppendJsonString(out, type.field(i)->name());
        out->push_back(':');
        AppendValue(*st.field(i), row, /*json=*/true, out);
      }
      out->push_back('}');
      return;
    }
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST:
    case arrow::Type::FIXED_SIZE_LIST: {
      std::shared_ptr<arrow::Array> values;
      int64_t begin = 0, end = 0;
      if (array.type_id() == arrow::Type::LIST) {
        const auto& list = checked_cast<const arrow::ListArray&>(array);
        values = list.values();
        begin = list.value_offset(row);
        end = begin + list.value_length(row);
      } else if (array.type_id() == arrow::Type::LARGE_LIST) {
        const auto& list = checked_cast<const arrow::LargeListArray&>(array);
        values = list.values();
        begin = list.value_offset(row);
        end = begin + list.value_length(row);
      } else {
        const auto& list = checked_cast<const arrow::FixedSizeListArray&>(array);
        values = list.values();
        begin = list.value_offset(row);
        end = begin + list.value_length(row);
      }
      out->push_back('[');
      for (int64_t i = begin; i < end; ++i) {
        if (i > begin) out->push_back(',');
        AppendValue(*values, i, /*json=*/true, out);
      }
      out->push_back(']');
      return;
    }
    case arrow::Type::MAP: {
      const auto& map = checked_cast<const arrow::MapArray&>(array);
      int64_t begin = map.value_offset(row);
      int64_t end = begin + map.value_length(row);
      out->push_back('[');
      for (int64_t i = begin; i < end; ++i) {
        if (i > begin) out->push_back(',');
        out->append("{\"key\":");
        AppendValue(*map.keys(), i, /*json=*/true, out);
        out->append(",\"value\":");
        AppendValue(*map.items(), i, /*json=*/true, out);
        out->push_back('}');
      }
      out->push_back(']');
      return;
    }
    case arrow::Type::DICTIONARY: {
      const auto& dict = checked_cast<const arrow::DictionaryArray&>(array);
      AppendValue(*dict.dictionary(), dict.GetValueIndex(row), json, out);
      return;
    }
    default: {
      auto scalar = array.GetScalar(row);
      quoted(scalar.ok() ? (*scalar)->ToString() : std::string("?"));
      return;
    }
  }
}

bool IsNestedType(arrow::Type::type id) {
  return id == arrow::Type::STRUCT || id == arrow::Type::LIST ||
         id == arrow::Type::LARGE_LIST || id == arrow::Type::MAP ||
         id == arrow::Type::FIXED_SIZE_LIST;
}

void AppendCsvField(std::string_view s, std::string* out) {
  bool needs_quote = s.find_first_of(",\"\n\r") != std::string_view::npos;
  if (!needs_quote) {
    out->append(s);
    return;
  }
  out->push_back('"');
  for (char c : s) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

// Display width in code points (good enough for alignment of UTF-8 text).
size_t DisplayWidth(std::string_view s) { return static_cast<size_t>(Utf8CodePoints(s)); }

}  // namespace

Result<OutputFormat> ParseOutputFormat(std::string_view name) {
  std::string lower = AsciiToLower(name);
  if (lower == "table" || lower == "text") return OutputFormat::kTable;
  if (lower == "csv") return OutputFormat::kCsv;
  if (lower == "jsonl" || lower == "json") return OutputFormat::kJsonLines;
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown output format '{}' (expected table, csv or jsonl)", name);
}

void AppendJsonValue(const arrow::Array& array, int64_t row, std::string* out) {
  AppendValue(array, row, /*json=*/true, out);
}

void AppendTextValue(const arrow::Array& array, int64_t row, bool csv, std::string* out) {
  if (array.IsNull(row)) {
    if (!csv) out->append("NULL");
    return;
  }
  // Nested values render as JSON; scalars as plain text.
  AppendValue(array, row, /*json=*/IsNestedType(array.type_id()), out);
}

ResultWriter::ResultWriter(std::ostream& out, OutputFormat format,
                           std::shared_ptr<arrow::Schema> schema)
    : out_(out), format_(format), schema_(std::move(schema)) {}

Status ResultWriter::Write(const arrow::RecordBatch& batch) {
  const int ncols = batch.num_columns();
  std::string line;
  if (format_ == OutputFormat::kCsv && !header_done_) {
    for (int c = 0; c < ncols; ++c) {
      if (c > 0) line.push_back(',');
      AppendCsvField(schema_->field(c)->name(), &line);
    }
    out_ << line << '\n';
    header_done_ = true;
  }
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    line.clear();
    if (format_ == OutputFormat::kJsonLines) {
      line.push_back('{');
      for (int c = 0; c < ncols; ++c) {
        if (c > 0) line.push_back(',');
        AppendJsonString(&line, schema_->field(c)->name());
        line.push_back(':');
        AppendJsonValue(*batch.column(c), r, &line);
      }
      line.push_back('}');
      out_ << line << '\n';
    } else if (format_ == OutputFormat::kCsv) {
      for (int c = 0; c < ncols; ++c) {
        if (c > 0) line.push_back(',');
        std::string cell;
        AppendTextValue(*batch.column(c), r, /*csv=*/true, &cell);
        AppendCsvField(cell, &line);
      }
      out_ << line << '\n';
    } else {
      std::vector<std::string> cells(ncols);
      for (int c = 0; c < ncols; ++c) {
        AppendTextValue(*batch.column(c), r, /*csv=*/false, &cells[c]);
      }
      table_cells_.push_back(std::move(cells));
    }
    ++rows_;
  }
  if (!out_) return MakeError(ErrorCode::kIOError, "cannot write output");
  return OkStatus();
}

Status ResultWriter::Finish() {
  if (format_ == OutputFormat::kCsv && !header_done_) {
    std::string line;
    for (int c = 0; c < schema_->num_fields(); ++c) {
      if (c > 0) line.push_back(',');
      AppendCsvField(schema_->field(c)->name(), &line);
    }
    out_ << line << '\n';
  }
  if (format_ == OutputFormat::kTable) {
    const int ncols = schema_->num_fields();
    std::vector<size_t> width(ncols);
    for (int c = 0; c < ncols; ++c) width[c] = DisplayWidth(schema_->field(c)->name());
    for (const auto& row : table_cells_) {
      for (int c = 0; c < ncols; ++c) width[c] = std::max(width[c], DisplayWidth(row[c]));
    }
    auto emit_row = [&](const std::vector<std::string>& cells) {
      std::string line;
      for (int c = 0; c < ncols; ++c) {
        line.append(c == 0 ? "| " : " | ");
        line.append(cells[c]);
        line.append(width[c] - DisplayWidth(cells[c]), ' ');
      }
      line.append(" |");
      out_ << line << '\n';
    };
    std::string sep = "+";
    for (int c = 0; c < ncols; ++c) sep.append(std::string(width[c] + 2, '-') + "+");
    std::vector<std::string> header;
    for (int c = 0; c < ncols; ++c) header.push_back(schema_->field(c)->name());
    out_ << sep << '\n';
    emit_row(header);
    out_ << sep << '\n';
    for (const auto& row : table_cells_) emit_row(row);
    out_ << sep << '\n';
    out_ << fmt::format("({} row{})", rows_, rows_ == 1 ? "" : "s") << '\n';
  }
  out_.flush();
  if (!out_) return MakeError(ErrorCode::kIOError, "cannot write output");
  return OkStatus();
}

}  // namespace deltaguard
