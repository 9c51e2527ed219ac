// CAST and TRY_CAST (exec/expr_eval.h rules 2, 5 and 6): Arrow's safe casts where they
// agree with Spark's ANSI CAST, spark_cast_internal.h where they do not; TRY_CAST falls
// back to value by value, NULL where a value does not convert.

#include <arrow/builder.h>
#include <arrow/compute/api.h>

#include <memory>
#include <utility>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/expr_eval_internal.h"
#include "deltaguard/exec/spark_cast_internal.h"
#include "deltaguard/expr/printer.h"

namespace deltaguard::internal {

namespace cp = arrow::compute;
using arrow::Datum;

Result<Datum> Evaluator::CastOnce(const Datum& arg,
                                  const std::shared_ptr<arrow::DataType>& to,
                                  const DataType& target) {
  cp::CastOptions opts = cp::CastOptions::Safe(to);
  // Spark's ANSI CAST truncates fractions toward zero when going to an integer.
  opts.allow_float_truncate = true;
  if (target.is_integral()) opts.allow_decimal_truncate = true;
  auto r = cp::Cast(arg, opts);
  if (!r.ok()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "CAST_INVALID_INPUT: cannot cast {} to {}: {}",
                     arg.type()->ToString(), TypeToSql(target), r.status().message());
  }
  return std::move(r).ValueUnsafe();
}

// `d` as an array: scalars are repeated `length` times.
Result<std::shared_ptr<arrow::Array>> Evaluator::AsArray(const Datum& d, int64_t length) {
  if (d.is_array()) return d.make_array();
  DELTA_ARROW_ASSIGN_OR_RETURN(auto array,
                               arrow::MakeArrayFromScalar(*d.scalar(), length),
                               ErrorCode::kInternal, "expanding a constant");
  return array;
}

// Back to a scalar when the inputs were all scalars (`length` 1 arrays).
Result<Datum> Evaluator::Like(const std::shared_ptr<arrow::Array>& out, bool scalar) {
  if (!scalar) return Datum(out);
  DELTA_ARROW_ASSIGN_OR_RETURN(auto value, out->GetScalar(0), ErrorCode::kInternal,
                               "reading a constant");
  return Datum(value);
}

// Casts Arrow's kernels do not do as Spark does (spark_cast_internal.h).
Result<Datum> Evaluator::SparkCastDatum(const Datum& arg, const DataType& target,
                                        bool try_cast) {
  DELTA_ASSIGN_OR_RETURN(auto array, AsArray(arg, 1));
  DELTA_ASSIGN_OR_RETURN(auto out, internal::SparkCast(*array, target, try_cast));
  return Like(out, arg.is_scalar());
}

Result<Datum> Evaluator::Cast(const Datum& arg_in, const DataType& target,
                              bool try_cast) {
  DELTA_ASSIGN_OR_RETURN(auto to, ArrowTypeOf(target));
  if (arg_in.type()->Equals(*to)) return arg_in;
  Datum arg = arg_in;
  if (arg.type()->id() == arrow::Type::STRING && target.kind() != TypeKind::kBinary) {
    // Spark trims whitespace before parsing a string as a number, boolean or date.
    auto trimmed = cp::CallFunction("utf8_trim_whitespace", {arg});
    if (!trimmed.ok()) return EvalError(trimmed.status(), "CAST", target);
    arg = std::move(trimmed).ValueUnsafe();
  }
  if (internal::NeedsSparkCast(*arg.type(), target)) {
    return SparkCastDatum(arg, target, try_cast);
  }
  auto whole = CastOnce(arg, to, target);
  if (whole || !try_cast) return whole;
  // TRY_CAST: cast value by value, NULL where a value does not convert.
  std::shared_ptr<arrow::Array> array;
  if (arg.is_scalar()) {
    return Datum(arrow::MakeNullScalar(to));
  }
  array = arg.make_array();
  std::unique_ptr<arrow::ArrayBuilder> builder;
  DELTA_ARROW_ASSIGN_OR_RETURN(builder, arrow::MakeBuilder(to), ErrorCode::kInternal,
                               "TRY_CAST builder");
  for (int64_t i = 0; i < array->length(); ++i) {
    auto one = CastOnce(Datum(array->Slice(i, 1)), to, target);
    if (one) {
      DELTA_ARROW_RETURN_NOT_OK(builder->AppendArraySlice(*one->array(), 0, 1),
                                ErrorCode::kInternal, "TRY_CAST");
    } else {
      DELTA_ARROW_RETURN_NOT_OK(builder->AppendNull(), ErrorCode::kInternal, "TRY_CAST");
    }
  }
  std::shared_ptr<arrow::Array> out;
  DELTA_ARROW_RETURN_NOT_OK(builder->Finish(&out), ErrorCode::kInternal, "TRY_CAST");
  return Datum(out);
}

}  // namespace deltaguard::internal
