/// \file deltaguard/exec/spark_cast_internal.h
/// Casts whose Spark ANSI semantics Arrow's cast kernels do not have: to DECIMAL
/// (HALF_UP rounding to the target scale, NUMERIC_VALUE_OUT_OF_RANGE when the digits
/// do not fit), STRING -> BOOLEAN (Spark's t/true/y/yes/1 and f/false/n/no/0),
/// FLOAT/DOUBLE -> integers (truncated toward zero; NaN, infinities and values out of
/// range are CAST_OVERFLOW), TIMESTAMP -> STRING ("2024-01-02 03:04:05.12", UTC, no
/// zone, trailing fraction zeros cut), and decimal division rounded HALF_UP to Spark's
/// result scale.
///
/// Invariants: inputs are Arrow arrays of the Arrow type of a Delta type
/// (arrow/schema.h); a NULL input row is a NULL output row; with `try_cast`
/// a failing row is NULL instead of an error (Spark's TRY_CAST / try_divide are not the
/// same thing: division errors are never turned into NULL here).
#pragma once

#include <arrow/array.h>

#include <memory>

#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard::internal {

/// True when SparkCast (not Arrow's cast kernel) must convert `from` to `to`.
bool NeedsSparkCast(const arrow::DataType& from, const DataType& to);

/// Cast `input` to `to` (a DECIMAL, or BOOLEAN from STRING). STRING input must be trimmed
/// by the caller. Errors: kInvalidArgument "NUMERIC_VALUE_OUT_OF_RANGE: <value> cannot
/// be represented as DECIMAL(p,s)" or "CAST_INVALID_INPUT: The value '<text>' of the
/// type STRING cannot be cast to <type> because it is malformed".
Result<std::shared_ptr<arrow::Array>> SparkCast(const arrow::Array& input,
                                                const DataType& to, bool try_cast);

/// `a / b` for decimal arrays of types `ta` and `tb` (equal lengths), rounded HALF_UP to
/// `result`'s scale (Spark's Divide on decimals). DIVIDE_BY_ZERO for a zero divisor,
/// NUMERIC_VALUE_OUT_OF_RANGE when the quotient has more digits than `result` holds.
Result<std::shared_ptr<arrow::Array>> DecimalDivide(const arrow::Array& a,
                                                    const DecimalType& ta,
                                                    const arrow::Array& b,
                                                    const DecimalType& tb,
                                                    const DecimalType& result);

}  // namespace deltaguard::internal
