#include "deltaguard/exec/expr_eval.h"

#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/util/decimal.h>

#include <chrono>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/datetime_format_internal.h"
#include "deltaguard/exec/spark_cast_internal.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/io/parquet/parquet_file.h"
#include "deltaguard/util/depth_guard.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

namespace cp = arrow::compute;
using arrow::Datum;

// Turn an Arrow failure of operator `what` into our error, with Spark's error-class
// names for the two ANSI runtime errors users meet most.
Error EvalError(const arrow::Status& st, std::string_view what, const DataType& type) {
  std::string msg = st.message();
  std::string lower = AsciiToLower(msg);
  if (lower.find("divide by zero") != std::string::npos ||
      lower.find("division by zero") != std::string::npos) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "DIVIDE_BY_ZERO: division by zero in '{}'", what);
  }
  if (lower.find("overflow") != std::string::npos) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "ARITHMETIC_OVERFLOW: '{}' overflows {} ({})", what, TypeToSql(type),
                     msg);
  }
  return internal::FromArrowStatus(
      st, ErrorCode::kInvalidArgument,
      fmt::format("evaluating '{}' ({})", what, TypeToSql(type)));
}

Result<std::shared_ptr<arrow::DataType>> ArrowTypeOf(const DataType& type) {
  return ToArrowType(type);
}

Result<std::shared_ptr<arrow::Scalar>> ToScalar(const LiteralValue& v) {
  DELTA_ASSIGN_OR_RETURN(auto type, ArrowTypeOf(*v.type));
  if (v.is_null()) return arrow::MakeNullScalar(type);
  switch (v.type->kind()) {
    case TypeKind::kBoolean:
      return std::make_shared<arrow::BooleanScalar>(std::get<bool>(v.value));
    case TypeKind::kByte:
      return std::make_shared<arrow::Int8Scalar>(
          static_cast<int8_t>(std::get<int64_t>(v.value)));
    case TypeKind::kShort:
      return std::make_shared<arrow::Int16Scalar>(
          static_cast<int16_t>(std::get<int64_t>(v.value)));
    case TypeKind::kInteger:
      return std::make_shared<arrow::Int32Scalar>(
          static_cast<int32_t>(std::get<int64_t>(v.value)));
    case TypeKind::kLong:
      return std::make_shared<arrow::Int64Scalar>(std::get<int64_t>(v.value));
    case TypeKind::kFloat:
      return std::make_shared<arrow::FloatScalar>(
          static_cast<float>(std::get<double>(v.value)));
    case TypeKind::kDouble:
      return std::make_shared<arrow::DoubleScalar>(std::get<double>(v.value));
    case TypeKind::kDecimal: {
      Int128 u = std::get<Int128>(v.value);
      arrow::Decimal128 d(static_cast<int64_t>(u >> 64),
                          static_cast<uint64_t>(static_cast<unsigned __int128>(u)));
      return std::make_shared<arrow::Decimal128Scalar>(d, type);
    }
    case TypeKind::kString:
      return std::make_shared<arrow::StringScalar>(std::get<std::string>(v.value));
    case TypeKind::kBinary:
      return std::make_shared<arrow::BinaryScalar>(
          arrow::Buffer::FromString(std::get<std::string>(v.value)));
    case TypeKind::kDate:
      return std::make_shared<arrow::Date32Scalar>(
          static_cast<int32_t>(std::get<int64_t>(v.value)));
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
      return std::make_shared<arrow::TimestampScalar>(std::get<int64_t>(v.value), type);
    default:
      return MakeError(ErrorCode::kUnsupportedFeature,
                       "literal of type {} in an expression", TypeToSql(*v.type));
  }
}

class Evaluator {
 public:
  Evaluator(const arrow::RecordBatch& batch, const EvalOptions& options)
      : batch_(batch), now_micros_(options.now_micros) {
    if (now_micros_ < 0) {
      now_micros_ = std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
    }
  }

  Result<Datum> Eval(const BoundExpr& e) {
    // Bound trees are at most kMaxBoundExprDepth deep (binder.cc); the guard also holds
    // trees built in code to that bound.
    DepthGuard guard(&budget_);
    if (guard.exceeded()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "expression nested too deeply to evaluate (more than {} levels)",
                       budget_.limit());
    }
    switch (e.kind) {
      case BoundKind::kLiteral: {
        DELTA_ASSIGN_OR_RETURN(auto scalar, ToScalar(e.literal));
        return Datum(scalar);
      }
      case BoundKind::kColumn:
        return Column(e);
      case BoundKind::kCast: {
        DELTA_ASSIGN_OR_RETURN(Datum arg, Eval(*e.args[0]));
        return Cast(arg, *e.type, e.try_cast);
      }
      case BoundKind::kCase:
        return Case(e);
      case BoundKind::kCall: {
        DELTA_ASSIGN_OR_RETURN(Datum out, CallFn(e));
        return Conform(out, e);
      }
    }
    return MakeError(ErrorCode::kInternal, "unknown bound expression kind");
  }

 private:
  Result<Datum> Call(const std::string& fn, const std::vector<Datum>& args,
                     const BoundExpr& e, const cp::FunctionOptions* opts = nullptr) {
    auto r = cp::CallFunction(fn, args, opts);
    if (!r.ok()) return EvalError(r.status(), e.name.empty() ? fn : e.name, *e.type);
    return std::move(r).ValueUnsafe();
  }

  // Cast a computed value to the node's type when Arrow chose another (decimals).
  Result<Datum> Conform(const Datum& d, const BoundExpr& e) {
    DELTA_ASSIGN_OR_RETURN(auto want, ArrowTypeOf(*e.type));
    if (d.type()->Equals(*want)) return d;
    if (e.type->kind() == TypeKind::kDecimal &&
        internal::NeedsSparkCast(*d.type(), *e.type)) {
      // Rounded HALF_UP to the result scale, as Spark's DecimalPrecision does.
      return SparkCastDatum(d, *e.type, false);
    }
    cp::CastOptions opts = cp::CastOptions::Safe(want);
    opts.allow_decimal_truncate = true;
    auto r = cp::Cast(d, opts);
    if (!r.ok()) return EvalError(r.status(), e.name, *e.type);
    return std::move(r).ValueUnsafe();
  }

  Result<Datum> Column(const BoundExpr& e) {
    const auto& schema = *batch_.schema();
    int idx = -1;
    for (int i = 0; i < schema.num_fields(); ++i) {
      if (EqualsIgnoreCase(schema.field(i)->name(), e.path[0])) idx = i;
    }
    if (idx < 0) {
      return MakeError(ErrorCode::kNotFound,
                       "column '{}' is not in the batch (columns: {})", e.path[0],
                       fmt::join(schema.field_names(), ", "));
    }
    std::shared_ptr<arrow::Array> array = batch_.column(idx);
    for (size_t p = 1; p < e.path.size(); ++p) {
      if (array->type_id() != arrow::Type::STRUCT) {
        return MakeError(ErrorCode::kSchemaMismatch,
                         "column '{}' is not a struct in the batch", e.path[p - 1]);
      }
      const auto& st = static_cast<const arrow::StructArray&>(*array);
      int child = -1;
      for (int i = 0; i < st.struct_type()->num_fields(); ++i) {
        if (EqualsIgnoreCase(st.struct_type()->field(i)->name(), e.path[p])) child = i;
      }
      if (child < 0) {
        return MakeError(ErrorCode::kNotFound, "field '{}' is not in struct column '{}'",
                         e.path[p], e.path[p - 1]);
      }
      DELTA_ARROW_ASSIGN_OR_RETURN(array, st.GetFlattenedField(child),
                                   ErrorCode::kInvalidArgument, "reading struct field");
    }
    return Datum(array);
  }

  Result<Datum> CastOnce(const Datum& arg, const std::shared_ptr<arrow::DataType>& to,
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
  static Result<std::shared_ptr<arrow::Array>> AsArray(const Datum& d, int64_t length) {
    if (d.is_array()) return d.make_array();
    DELTA_ARROW_ASSIGN_OR_RETURN(auto array,
                                 arrow::MakeArrayFromScalar(*d.scalar(), length),
                                 ErrorCode::kInternal, "expanding a constant");
    return array;
  }

  // Back to a scalar when the inputs were all scalars (`length` 1 arrays).
  static Result<Datum> Like(const std::shared_ptr<arrow::Array>& out, bool scalar) {
    if (!scalar) return Datum(out);
    DELTA_ARROW_ASSIGN_OR_RETURN(auto value, out->GetScalar(0), ErrorCode::kInternal,
                                 "reading a constant");
    return Datum(value);
  }

  // Casts Arrow's kernels do not do as Spark does (spark_cast_internal.h).
  Result<Datum> SparkCastDatum(const Datum& arg, const DataType& target, bool try_cast) {
    DELTA_ASSIGN_OR_RETURN(auto array, AsArray(arg, 1));
    DELTA_ASSIGN_OR_RETURN(auto out, internal::SparkCast(*array, target, try_cast));
    return Like(out, arg.is_scalar());
  }

  Result<Datum> Cast(const Datum& arg_in, const DataType& target, bool try_cast) {
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
        DELTA_ARROW_RETURN_NOT_OK(builder->AppendNull(), ErrorCode::kInternal,
                                  "TRY_CAST");
      }
    }
    std::shared_ptr<arrow::Array> out;
    DELTA_ARROW_RETURN_NOT_OK(builder->Finish(&out), ErrorCode::kInternal, "TRY_CAST");
    return Datum(out);
  }

  Result<Datum> Case(const BoundExpr& e) {
    DELTA_ASSIGN_OR_RETURN(auto type, ArrowTypeOf(*e.type));
    size_t n = e.args.size() / 2;
    Datum result;
    if (e.has_else) {
      DELTA_ASSIGN_OR_RETURN(result, Eval(*e.args.back()));
    } else {
      result = Datum(arrow::MakeNullScalar(type));
    }
    for (size_t w = n; w-- > 0;) {
      DELTA_ASSIGN_OR_RETURN(Datum cond, Eval(*e.args[2 * w]));
      DELTA_ASSIGN_OR_RETURN(Datum value, Eval(*e.args[2 * w + 1]));
      DELTA_ASSIGN_OR_RETURN(cond, FalseIfNull(cond, e));
      DELTA_ASSIGN_OR_RETURN(result, Call("if_else", {cond, value, result}, e));
    }
    return result;
  }

  Result<Datum> FalseIfNull(const Datum& b, const BoundExpr& e) {
    return Call("coalesce", {b, Datum(std::make_shared<arrow::BooleanScalar>(false))}, e);
  }

  Result<std::vector<Datum>> Args(const BoundExpr& e) {
    std::vector<Datum> out;
    for (const auto& a : e.args) {
      DELTA_ASSIGN_OR_RETURN(Datum d, Eval(*a));
      out.push_back(std::move(d));
    }
    return out;
  }

  // The left fold of a binary kernel over an n-ary call (binder.h invariant 6); each
  // step has the call's type, as the nested calls it replaces had.
  Result<Datum> Fold(const std::string& fn, const std::vector<Datum>& a,
                     const BoundExpr& e) {
    Datum acc = a[0];
    for (size_t i = 1; i < a.size(); ++i) {
      DELTA_ASSIGN_OR_RETURN(acc, Call(fn, {acc, a[i]}, e));
      if (i + 1 < a.size()) {
        DELTA_ASSIGN_OR_RETURN(acc, Conform(acc, e));
      }
    }
    return acc;
  }

  // x IN (values): literal values are one hash-set lookup (a 100k-value list is one
  // kernel call, not 100k comparisons); other values are compared one by one. NULL
  // follows SQL: no match and a NULL subject or value gives NULL.
  Result<Datum> In(const BoundExpr& e) {
    DELTA_ASSIGN_OR_RETURN(Datum subject, Eval(*e.args[0]));
    DELTA_ASSIGN_OR_RETURN(auto type, ArrowTypeOf(*e.args[0]->type));
    std::unique_ptr<arrow::ArrayBuilder> builder;
    DELTA_ARROW_RETURN_NOT_OK(
        arrow::MakeBuilder(arrow::default_memory_pool(), type, &builder),
        ErrorCode::kInternal, "IN value set");
    std::vector<const BoundExpr*> others;
    for (size_t i = 1; i < e.args.size(); ++i) {
      const BoundExpr& v = *e.args[i];
      if (v.kind != BoundKind::kLiteral) {
        others.push_back(&v);
        continue;
      }
      DELTA_ASSIGN_OR_RETURN(auto scalar, ToScalar(v.literal));
      DELTA_ARROW_RETURN_NOT_OK(builder->AppendScalar(*scalar), ErrorCode::kInternal,
                                "IN value set");
    }
    Datum result;
    if (builder->length() > 0) {
      std::shared_ptr<arrow::Array> values;
      DELTA_ARROW_RETURN_NOT_OK(builder->Finish(&values), ErrorCode::kInternal,
                                "IN value set");
      cp::SetLookupOptions opts(Datum(values), cp::SetLookupOptions::INCONCLUSIVE);
      DELTA_ASSIGN_OR_RETURN(result, Call("is_in", {subject}, e, &opts));
    }
    for (const BoundExpr* v : others) {
      DELTA_ASSIGN_OR_RETURN(Datum value, Eval(*v));
      DELTA_ASSIGN_OR_RETURN(Datum eq, Call("equal", {subject, value}, e));
      if (result.kind() == Datum::NONE) {
        result = eq;
      } else {
        DELTA_ASSIGN_OR_RETURN(result, Call("or_kleene", {result, eq}, e));
      }
    }
    return result;
  }

  static int64_t IntLiteral(const BoundExpr& e) {
    return std::get<int64_t>(e.literal.value);
  }

  Result<Datum> Modulo(const std::vector<Datum>& a, const BoundExpr& e);
  Result<Datum> Divide(std::vector<Datum> a, const BoundExpr& e);
  Result<Datum> Round(const std::vector<Datum>& a, const BoundExpr& e);
  Result<Datum> Substring(const std::vector<Datum>& a, const BoundExpr& e);
  Result<Datum> CallFn(const BoundExpr& e);

  const arrow::RecordBatch& batch_;
  int64_t now_micros_;
  RecursionBudget budget_{kMaxBoundExprDepth + 1};
};

Result<Datum> Evaluator::Divide(std::vector<Datum> a, const BoundExpr& e) {
  if (e.type->kind() != TypeKind::kDecimal) return Call("divide_checked", a, e);
  // Spark rounds the quotient HALF_UP to the result scale (Arrow would truncate).
  const auto& res = static_cast<const DecimalType&>(*e.type);
  const auto& l = static_cast<const DecimalType&>(*e.args[0]->type);
  const auto& r = static_cast<const DecimalType&>(*e.args[1]->type);
  const bool scalar = a[0].is_scalar() && a[1].is_scalar();
  const int64_t n = a[0].is_array() ? a[0].length() : a[1].is_array() ? a[1].length() : 1;
  DELTA_ASSIGN_OR_RETURN(auto x, AsArray(a[0], n));
  DELTA_ASSIGN_OR_RETURN(auto y, AsArray(a[1], n));
  DELTA_ASSIGN_OR_RETURN(auto q, internal::DecimalDivide(*x, l, *y, r, res));
  return Like(q, scalar);
}

Result<Datum> Evaluator::Modulo(const std::vector<Datum>& a, const BoundExpr& e) {
  // r = a - trunc(a / b) * b, the sign of the dividend as in Java.
  Datum q;
  if (e.type->is_integral()) {
    DELTA_ASSIGN_OR_RETURN(q, Call("divide_checked", a, e));
  } else {
    DELTA_ASSIGN_OR_RETURN(
        q,
        Call(e.type->kind() == TypeKind::kDecimal ? "divide" : "divide_checked", a, e));
    cp::RoundOptions trunc(0, cp::RoundMode::TOWARDS_ZERO);
    DELTA_ASSIGN_OR_RETURN(q, Call("round", {q}, e, &trunc));
  }
  DELTA_ASSIGN_OR_RETURN(Datum qb, Call("multiply_checked", {q, a[1]}, e));
  return Call("subtract_checked", {a[0], qb}, e);
}

Result<Datum> Evaluator::Round(const std::vector<Datum>& a, const BoundExpr& e) {
  int64_t digits = IntLiteral(*e.args[1]);
  const DataType& in = *e.args[0]->type;
  cp::RoundOptions opts(digits, cp::RoundMode::HALF_TOWARDS_INFINITY);
  if (in.is_integral()) {
    if (digits >= 0) return a[0];
    DELTA_ASSIGN_OR_RETURN(Datum dec, Cast(a[0], DecimalType(20, 0), false));
    DELTA_ASSIGN_OR_RETURN(Datum r, Call("round", {dec}, e, &opts));
    return Cast(r, in, false);
  }
  if (in.kind() == TypeKind::kDecimal) {
    // One more integer digit so that rounding 9.99 up cannot overflow.
    const auto& d = static_cast<const DecimalType&>(in);
    Datum x = a[0];
    if (d.precision() < DecimalType::kMaxPrecision) {
      DELTA_ASSIGN_OR_RETURN(x,
                             Cast(x, DecimalType(d.precision() + 1, d.scale()), false));
    }
    return Call("round", {x}, e, &opts);
  }
  return Call("round", {a[0]}, e, &opts);
}

Result<Datum> Evaluator::Substring(const std::vector<Datum>& a, const BoundExpr& e) {
  // Spark: 1-based position; 0 acts as 1; negative counts from the end.
  constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();
  int64_t pos = IntLiteral(*e.args[1]);
  bool has_len = e.args.size() > 2;
  int64_t len = has_len ? IntLiteral(*e.args[2]) : 0;
  int64_t start = 0, stop = kEnd;
  if (pos > 0) {
    start = pos - 1;
    if (has_len) stop = len <= 0 ? start : start + len;
  } else if (pos == 0) {
    if (has_len) stop = std::max<int64_t>(len, 0);
  } else {
    start = pos;
    if (has_len) stop = len <= 0 ? start : (pos + len >= 0 ? kEnd : pos + len);
  }
  cp::SliceOptions opts(start, stop, 1);
  return Call("utf8_slice_codeunits", {a[0]}, e, &opts);
}

Result<Datum> Evaluator::CallFn(const BoundExpr& e) {
  if (e.fn == BoundFn::kAggregate) {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "aggregate function {}() cannot be evaluated row by row here",
                     e.name);
  }
  if (e.fn == BoundFn::kIn) return In(e);
  DELTA_ASSIGN_OR_RETURN(std::vector<Datum> a, Args(e));
  switch (e.fn) {
    case BoundFn::kAdd:
      return Fold("add_checked", a, e);
    case BoundFn::kSubtract:
      return Fold("subtract_checked", a, e);
    case BoundFn::kMultiply:
      return Fold("multiply_checked", a, e);
    case BoundFn::kDivide:
      return Divide(std::move(a), e);
    case BoundFn::kIntDivide:
      return Call("divide_checked", a, e);
    case BoundFn::kModulo:
      return Modulo(a, e);
    case BoundFn::kNegate:
      return Call("negate_checked", a, e);
    case BoundFn::kEq:
      return Call("equal", a, e);
    case BoundFn::kNotEq:
      return Call("not_equal", a, e);
    case BoundFn::kLt:
      return Call("less", a, e);
    case BoundFn::kLtEq:
      return Call("less_equal", a, e);
    case BoundFn::kGt:
      return Call("greater", a, e);
    case BoundFn::kGtEq:
      return Call("greater_equal", a, e);
    case BoundFn::kNullSafeEq: {
      DELTA_ASSIGN_OR_RETURN(Datum eq, Call("equal", a, e));
      DELTA_ASSIGN_OR_RETURN(eq, FalseIfNull(eq, e));
      DELTA_ASSIGN_OR_RETURN(Datum ln, Call("is_null", {a[0]}, e));
      DELTA_ASSIGN_OR_RETURN(Datum rn, Call("is_null", {a[1]}, e));
      DELTA_ASSIGN_OR_RETURN(Datum both, Call("and", {ln, rn}, e));
      return Call("or", {eq, both}, e);
    }
    case BoundFn::kAnd:
      return Fold("and_kleene", a, e);
    case BoundFn::kOr:
      return Fold("or_kleene", a, e);
    case BoundFn::kNot:
      return Call("invert", a, e);
    case BoundFn::kIsNull:
      return Call("is_null", a, e);
    case BoundFn::kIsNotNull:
      return Call("is_valid", a, e);
    case BoundFn::kIsTrue:
      return FalseIfNull(a[0], e);
    case BoundFn::kIsFalse: {
      DELTA_ASSIGN_OR_RETURN(Datum inv, Call("invert", a, e));
      return FalseIfNull(inv, e);
    }
    case BoundFn::kLike:
    case BoundFn::kILike:
    case BoundFn::kRLike: {
      cp::MatchSubstringOptions opts(std::get<std::string>(e.args[1]->literal.value),
                                     e.fn == BoundFn::kILike);
      return Call(e.fn == BoundFn::kRLike ? "match_substring_regex" : "match_like",
                  {a[0]}, e, &opts);
    }
    case BoundFn::kCoalesce:
      return Call("coalesce", a, e);
    case BoundFn::kLength:
      return Call(
          e.args[0]->type->kind() == TypeKind::kBinary ? "binary_length" : "utf8_length",
          a, e);
    case BoundFn::kLower:
      return Call("utf8_lower", a, e);
    case BoundFn::kUpper:
      return Call("utf8_upper", a, e);
    case BoundFn::kTrim:
    case BoundFn::kLTrim:
    case BoundFn::kRTrim: {
      cp::TrimOptions opts(" ");  // Spark trims spaces only
      return Call(e.fn == BoundFn::kTrim    ? "utf8_trim"
                  : e.fn == BoundFn::kLTrim ? "utf8_ltrim"
                                            : "utf8_rtrim",
                  a, e, &opts);
    }
    case BoundFn::kSubstring:
      return Substring(a, e);
    case BoundFn::kConcat: {
      a.push_back(Datum(std::make_shared<arrow::StringScalar>("")));
      return Call("binary_join_element_wise", a, e);
    }
    case BoundFn::kAbs:
      return Call("abs_checked", a, e);
    case BoundFn::kRound:
      return Round(a, e);
    case BoundFn::kCurrentDate: {
      int64_t days = now_micros_ / (86400LL * 1000000);
      if (now_micros_ < 0 && now_micros_ % (86400LL * 1000000) != 0) --days;
      return Datum(std::make_shared<arrow::Date32Scalar>(static_cast<int32_t>(days)));
    }
    case BoundFn::kCurrentTimestamp:
      return Datum(std::make_shared<arrow::TimestampScalar>(
          now_micros_, arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")));
    case BoundFn::kDateAdd:
    case BoundFn::kDateSub: {
      DELTA_ASSIGN_OR_RETURN(Datum days, Cast(a[0], *DataType::Integer(), false));
      DELTA_ASSIGN_OR_RETURN(
          Datum sum, Call(e.fn == BoundFn::kDateAdd ? "add_checked" : "subtract_checked",
                          {days, a[1]}, e));
      return Cast(sum, *DataType::Date(), false);
    }
    case BoundFn::kYear:
    case BoundFn::kMonth:
    case BoundFn::kDay:
      return Call(e.fn == BoundFn::kYear    ? "year"
                  : e.fn == BoundFn::kMonth ? "month"
                                            : "day",
                  a, e);
    case BoundFn::kToDate:
    case BoundFn::kToTimestamp: {
      const bool to_date = e.fn == BoundFn::kToDate;
      if (a.size() == 1) return Cast(a[0], *e.type, false);
      DELTA_ASSIGN_OR_RETURN(auto strings, AsArray(a[0], 1));
      DELTA_ASSIGN_OR_RETURN(
          auto out, internal::ParseDatetimeArray(
                        *strings, std::get<std::string>(e.args[1]->literal.value),
                        to_date, e.try_cast));
      return Like(out, a[0].is_scalar());
    }
    default:
      break;
  }
  return MakeError(ErrorCode::kInternal, "function {}() has no evaluator", e.name);
}

}  // namespace

Result<std::shared_ptr<arrow::Array>> Evaluate(const BoundExpr& expr,
                                               const arrow::RecordBatch& batch,
                                               const EvalOptions& options) {
  DELTA_RETURN_IF_ERROR(InitializeArrowCompute());
  Evaluator ev(batch, options);
  DELTA_ASSIGN_OR_RETURN(Datum d, ev.Eval(expr));
  if (d.is_array()) return d.make_array();
  if (d.is_scalar()) {
    DELTA_ARROW_ASSIGN_OR_RETURN(
        auto array, arrow::MakeArrayFromScalar(*d.scalar(), batch.num_rows()),
        ErrorCode::kInternal, "expanding a constant");
    return array;
  }
  return MakeError(ErrorCode::kInternal, "expression evaluated to {}", d.ToString());
}

Result<std::shared_ptr<arrow::BooleanArray>> EvaluatePredicate(
    const BoundExpr& expr, const arrow::RecordBatch& batch, const EvalOptions& options) {
  if (expr.type->kind() == TypeKind::kVoid) {
    DELTA_ARROW_ASSIGN_OR_RETURN(
        auto nulls, arrow::MakeArrayOfNull(arrow::boolean(), batch.num_rows()),
        ErrorCode::kInternal, "NULL predicate");
    return std::static_pointer_cast<arrow::BooleanArray>(nulls);
  }
  if (expr.type->kind() != TypeKind::kBoolean) {
    return MakeError(ErrorCode::kSchemaMismatch,
                     "predicate must be BOOLEAN, but it is {}", TypeToSql(*expr.type));
  }
  DELTA_ASSIGN_OR_RETURN(auto array, Evaluate(expr, batch, options));
  return std::static_pointer_cast<arrow::BooleanArray>(array);
}

}  // namespace deltaguard
