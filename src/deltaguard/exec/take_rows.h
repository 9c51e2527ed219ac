/// \file deltaguard/exec/take_rows.h
/// Gathering rows of an array by position, as a join's output takes the rows of both
/// sides (docs/sql.md "Joins").
///
/// Arrow's Take builds an index array and appends value by value; a join's output is
/// mostly the same rows in the same order (every left row matched once) or short
/// strings of a small dimension repeated millions of times. So: positions 0..n-1 of an
/// n-row array give the array itself, a contiguous run gives a slice (no copy), and
/// fixed-width and string/binary columns are gathered directly. Other types (nested,
/// boolean, dictionary) go through Arrow's Take.
///
/// Invariant: the result equals Arrow's Take with the same positions as an int64 index
/// array whose -1 entries are NULL (a NULL row), value for value and validity for
/// validity; only whether it shares the input's buffers differs.
#pragma once

#include <arrow/array.h>

#include <cstdint>
#include <memory>
#include <span>

#include "deltaguard/util/result.h"

namespace deltaguard {

/// The rows `rows` of `values`, in that order; -1 gives a NULL row. Every other
/// position must be in [0, values->length()): a position outside is an internal error,
/// never a read out of bounds.
Result<std::shared_ptr<arrow::Array>> TakeRows(
    const std::shared_ptr<arrow::Array>& values, std::span<const int64_t> rows);

}  // namespace deltaguard
