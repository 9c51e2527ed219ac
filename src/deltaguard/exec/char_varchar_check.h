/// \file deltaguard/exec/char_varchar_check.h
/// Evaluates one CHAR(n)/VARCHAR(n) length limit (constraints/char_varchar.h) over an
/// Arrow batch in the table's logical schema. Used by exec/constraint_checker.h, which
/// runs it on every write path after the table's CHECK constraints and invariants.
#pragma once

#include <arrow/record_batch.h>

#include <cstdint>
#include <vector>

#include "deltaguard/constraints/char_varchar.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// The rows of a batch holding a value longer than a limit allows.
struct TooLongRows {
  /// One entry per row: 1 when some value the limit covers in that row (the column, or
  /// any element / key / value / field below it on the limit's path) is non-NULL and
  /// longer than the limit; NULLs never violate.
  std::vector<uint8_t> rows;
  int64_t count = 0;    ///< rows with a 1
  int64_t longest = 0;  ///< the longest violating value, in characters
};

/// Length is counted in Unicode code points of the UTF-8 value, as Spark's length().
/// A column or struct field on the path that the batch does not have (matched
/// case-insensitively) limits nothing: the metadata can name a field a later schema
/// change removed. A value of a non-string type where the limit expects a string is
/// kSchemaMismatch naming the column.
Result<TooLongRows> FindTooLong(const CharVarcharLimit& limit,
                                const arrow::RecordBatch& batch);

}  // namespace deltaguard
