/// \file deltaguard/io/parquet/read_convert.h
/// Turning arrays read from a data file into the table's logical types: column-mapping
/// aware matching of file fields to table fields (PROTOCOL.md "Column Mapping"), NULLs
/// for fields a file lacks, and widening of narrower file types (PROTOCOL.md "Type
/// Widening"; digest §6.3-6.5: INT96/ms/ns timestamps, INT(8)/INT(16) drift).
#pragma once

#include <arrow/array.h>
#include <arrow/type.h>

#include <memory>
#include <string_view>

#include "deltaguard/log/snapshot.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// The Parquet field id parquet::arrow attached to `field`, or -1.
int64_t ParquetFieldId(const arrow::Field& field);

/// Index into `file_fields` of the file field that holds `table_field`, or -1.
///  - kNone: by name, exact first, then case-insensitively (Spark's default).
///  - kName: by `delta.columnMapping.physicalName` (the display name if absent).
///  - kId:   by Parquet field id == `delta.columnMapping.id`; when no field at this level
///           carries an id (files from writers that drop them) by physical name.
int FindFileField(const arrow::FieldVector& file_fields, const StructField& table_field,
                  ColumnMappingMode mode);

/// Convert `file_array` to ToArrowType(table_type), recursing into structs (fields
/// matched with FindFileField; missing ones all-NULL; extra ones dropped), lists and
/// maps. Accepted primitive conversions (others are kSchemaMismatch naming `column` and
/// both types): identity; byte/short/int from any 8/16/32-bit integer (overflow-checked,
/// the INT(8)/INT(16) drift of DFv1 writers); long from any integer; double from
/// float/byte/short/int; float from float16; decimal from any decimal or integer
/// (precision-checked); string from utf8/large/view/binary (UTF-8 checked); binary from
/// any binary/string; date from date32/date64; timestamp and timestamp_ntz from a
/// timestamp of any unit and zone (sub-microsecond digits truncated); timestamp_ntz from
/// date (midnight); void from anything (NULLs). Dictionary and extension arrays are
/// decoded first.
Result<std::shared_ptr<arrow::Array>> ConvertArray(
    const std::shared_ptr<arrow::Array>& file_array, const DataType& table_type,
    ColumnMappingMode mode, std::string_view column);

}  // namespace deltaguard
