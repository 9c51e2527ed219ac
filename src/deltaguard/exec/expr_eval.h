/// \file deltaguard/exec/expr_eval.h
/// Vectorised evaluation of bound expressions (expr/binder.h) over Arrow record
/// batches, with Spark's ANSI semantics.
///
/// Semantics:
///  1. Three-valued logic: AND/OR are Kleene (FALSE AND NULL = FALSE, TRUE OR NULL =
///     TRUE); every other operator returns NULL when an input is NULL.
///  2. Integer overflow, division (or modulo) by zero, and a failed CAST are errors
///     (kInvalidArgument, naming the operator and type); TRY_CAST gives NULL instead.
///  3. CASE treats a NULL condition as false; IS TRUE/IS FALSE never return NULL.
///  4. Aggregate calls are kUnsupportedFeature here (evaluated by an aggregation layer).
///  5. Decimal results and casts to DECIMAL are rounded HALF_UP to the result scale
///     (Spark's Decimal.changePrecision); a value with too many digits is
///     NUMERIC_VALUE_OUT_OF_RANGE (NULL under TRY_CAST).
///  6. A STRING cast to a number, BOOLEAN, DATE or TIMESTAMP is trimmed of whitespace
///     first; STRING -> BOOLEAN accepts t/true/y/yes/1 and f/false/n/no/0 in any case.
#pragma once

#include <arrow/array.h>
#include <arrow/record_batch.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "deltaguard/expr/binder.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

struct EvalOptions {
  /// The instant current_date()/current_timestamp() return, in microseconds since the
  /// epoch (UTC); negative means "now" (read once per Evaluate call).
  int64_t now_micros = -1;
};

/// Evaluate `expr` over `batch`, whose top-level columns are matched to the bound
/// column paths by name, case-insensitively (nested paths descend struct columns).
/// Returns one value per row, in the Arrow type of `expr.type`
/// (arrow/schema.h). kNotFound when the batch lacks a referenced column.
Result<std::shared_ptr<arrow::Array>> Evaluate(const BoundExpr& expr,
                                               const arrow::RecordBatch& batch,
                                               const EvalOptions& options = {});

/// Evaluate a BOOLEAN expression. kSchemaMismatch if `expr` is not boolean.
Result<std::shared_ptr<arrow::BooleanArray>> EvaluatePredicate(
    const BoundExpr& expr, const arrow::RecordBatch& batch,
    const EvalOptions& options = {});

/// One 64-bit hash per row over `columns` (each `num_rows` long), folded column by
/// column as Spark's xxhash64: equal values hash equal whatever the batch (NaNs are one
/// value, -0.0 is 0.0), so rows can be dealt to spill partitions by key
/// (docs/sql.md "Memory and spilling"). kInternal for a MAP column.
Result<std::vector<uint64_t>> HashRows(
    const std::vector<std::shared_ptr<arrow::Array>>& columns, int64_t num_rows);

}  // namespace deltaguard
