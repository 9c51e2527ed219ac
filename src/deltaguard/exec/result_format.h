/// \file deltaguard/exec/result_format.h
/// Render Arrow record batches for people and tools: an aligned text table, CSV, or
/// JSON lines. One canonical JSON rendering of every Delta value is used everywhere
/// (CLI, SQL results, interop tests):
///   decimal -> string "123.45"; timestamp -> "2024-01-01T12:00:00.000000Z";
///   timestamp_ntz -> "2024-01-01T12:00:00.000000"; date -> "2024-01-01";
///   binary -> base64 string; float/double -> number, or "NaN"/"Infinity"/"-Infinity";
///   struct -> object; array -> list; map -> list of {"key":k,"value":v}; null -> null.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "deltaguard/util/result.h"

namespace deltaguard {

enum class OutputFormat : uint8_t { kTable, kCsv, kJsonLines };

/// Parse "table" | "csv" | "jsonl" (also "json" = jsonl).
Result<OutputFormat> ParseOutputFormat(std::string_view name);

/// Append the canonical JSON of `array[row]` to `out`.
void AppendJsonValue(const arrow::Array& array, int64_t row, std::string* out);

/// Append the plain-text rendering used in tables and CSV (strings unquoted, nested
/// values as JSON, null as `NULL` for tables and empty for CSV).
void AppendTextValue(const arrow::Array& array, int64_t row, bool csv, std::string* out);

/// Streams batches to an ostream in one format. The text table buffers rows to align
/// columns (at most `max_table_rows` are buffered; a note says when rows were cut).
class ResultWriter {
 public:
  ResultWriter(std::ostream& out, OutputFormat format,
               std::shared_ptr<arrow::Schema> schema);
  Status Write(const arrow::RecordBatch& batch);
  Status Finish();
  int64_t rows_written() const { return rows_; }

 private:
  std::ostream& out_;
  OutputFormat format_;
  std::shared_ptr<arrow::Schema> schema_;
  int64_t rows_ = 0;
  bool header_done_ = false;
  std::vector<std::vector<std::string>> table_cells_;
};

}  // namespace deltaguard
