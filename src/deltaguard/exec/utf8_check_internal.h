/// \file deltaguard/exec/utf8_check_internal.h
/// UTF-8 validation of write inputs (input_source.cc only). Delta stores STRING as
/// Parquet BINARY annotated UTF8, which other engines decode strictly, so a write never
/// stores bytes that are not UTF-8 (docs/behaviour.md "CSV and JSON input").
#pragma once

#include <arrow/array.h>
#include <arrow/record_batch.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "deltaguard/util/result.h"

namespace deltaguard {

/// The offset of the first ill-formed UTF-8 sequence in `s`, or npos. Arrow's vectorised
/// validator answers the common (valid) case; the exact offset is found only on failure.
size_t FindInvalidUtf8(std::string_view s);

/// Every STRING value of `batch` (top-level columns and inside structs, lists and maps)
/// is valid UTF-8; otherwise kInvalidArgument naming `path`, the 1-based row (`first_row`
/// is the 0-based index of the batch's first row) and the column. Parquet and Arrow IPC
/// readers do not check the UTF8 annotation themselves.
Status CheckUtf8Columns(const arrow::RecordBatch& batch, const std::string& path,
                        int64_t first_row);

}  // namespace deltaguard
