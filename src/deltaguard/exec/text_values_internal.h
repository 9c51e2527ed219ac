/// \file deltaguard/exec/text_values_internal.h
/// Turning text columns of CSV/JSON inputs into table types (input_source.cc only).
///
/// Invariant: a value that does not parse as the column's type is an error naming the
/// file, the 1-based row and the column; it never becomes NULL (docs/decisions.md §2).
/// Timestamps accept "yyyy-MM-dd[( |T)HH:mm[:ss[.f{1,9}]]][Z|+HH[:mm]|-HH[:mm]]";
/// without a zone a `timestamp` value is read as UTC, and a zone on a `timestamp_ntz`
/// value is an error. Digits below a microsecond must be zero (no silent truncation).
#pragma once

#include <arrow/record_batch.h>
#include <arrow/status.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// Convert column `index` (read as utf8) into `output_type` (the table's type).
struct TextColumnConversion {
  int index = 0;
  std::string name;
  DataTypeRef target;
  std::shared_ptr<arrow::DataType> output_type;
};

/// The conversion for a CSV column read as text into table type `target` (primitive);
/// nullopt when text is already the table's representation (string).
Result<std::optional<TextColumnConversion>> MakeTextConversion(int index,
                                                               const std::string& name,
                                                               const DataTypeRef& target);

/// How to read a JSON key matched to a table column of type `target`.
struct JsonColumnRead {
  /// The explicit Arrow type to read with; nullptr keeps the inferred type (types the
  /// JSON reader cannot produce, such as maps; the conformer then decides).
  std::shared_ptr<arrow::DataType> read_type;
  /// After reading: temporals (read as text) and decimals (read as a wider decimal,
  /// then checked against the table's precision and scale).
  std::optional<TextColumnConversion> conversion;
};
Result<JsonColumnRead> JsonReadType(int index, const std::string& name,
                                    const DataTypeRef& target);

/// Apply `conversions` to `batch`, giving a batch in `schema`. `first_row` is the
/// 0-based index of the batch's first row in the file `path`.
Result<std::shared_ptr<arrow::RecordBatch>> ConvertTextColumns(
    const std::shared_ptr<arrow::RecordBatch>& batch,
    const std::vector<TextColumnConversion>& conversions,
    const std::shared_ptr<arrow::Schema>& schema, const std::string& path,
    int64_t first_row);

/// Name the column in an Arrow CSV error ("In CSV column #2: ..."), given the names.
arrow::Status NameCsvColumn(const arrow::Status& status,
                            const std::vector<std::string>& names);

/// Turn "... in row N" of an Arrow JSON error (N counts from 0 in the current block)
/// into "... at line M" of an NDJSON file whose block starts after `rows_before` rows.
arrow::Status NameJsonLine(const arrow::Status& status, int64_t rows_before);

/// Parse one timestamp cell of a CSV/JSON input to microseconds since the epoch (UTC for
/// zoned input), strictly (the form in the file comment; unlike the SQL literal parser
/// expr/literal.h ParseTimestampLiteral, no trailing text). `allow_zone` false: a zone
/// offset is an error. Returns the error text or nullopt.
std::optional<std::string> ParseInputTimestamp(std::string_view text, bool allow_zone,
                                               int64_t* micros);
/// Parse a date cell of a CSV/JSON input, "yyyy-MM-dd", to days since the epoch; returns
/// the error text or nullopt.
std::optional<std::string> ParseInputDate(std::string_view text, int32_t* days);

}  // namespace deltaguard
