// Function calls and operators: the kernel each BoundFn maps to, and the ones Spark
// defines differently from Arrow (decimal division rounded HALF_UP, Java's modulo,
// ROUND HALF_UP with negative digits, 1-based SUBSTRING, datetime parsing).

#include <arrow/compute/api.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/datetime_format.h"
#include "deltaguard/exec/expr_eval_internal.h"
#include "deltaguard/exec/expr_eval_library_internal.h"
#include "deltaguard/exec/spark_cast_internal.h"

namespace deltaguard::internal {

namespace cp = arrow::compute;
using arrow::Datum;

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
  cp::RoundOptions opts(digits, e.name == "bround"
                                    ? cp::RoundMode::HALF_TO_EVEN
                                    : cp::RoundMode::HALF_TOWARDS_INFINITY);
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

Result<Datum> Evaluator::FloorCeil(const std::vector<Datum>& a, const BoundExpr& e) {
  const bool floor = e.fn == BoundFn::kFloor;
  const DataType& in = *e.args[0]->type;
  if (in.is_integral()) return Cast(a[0], *e.type, false);
  if (in.kind() == TypeKind::kDecimal) {
    // Exact on the decimal; the result type has the integer digits plus one.
    const auto& d = static_cast<const DecimalType&>(in);
    Datum widened = a[0];
    if (d.precision() < DecimalType::kMaxPrecision) {
      DELTA_ASSIGN_OR_RETURN(
          widened, Cast(widened, DecimalType(d.precision() + 1, d.scale()), false));
    }
    DELTA_ASSIGN_OR_RETURN(Datum r, Call(floor ? "floor" : "ceil", {widened}, e));
    return Cast(r, *e.type, false);
  }
  // DOUBLE/FLOAT to BIGINT as Java's (long) conversion: NaN 0, out of range saturates.
  DELTA_ASSIGN_OR_RETURN(Datum d, Cast(a[0], *DataType::Double(), false));
  DELTA_ASSIGN_OR_RETURN(Datum r, Call(floor ? "floor" : "ceil", {d}, e));
  DELTA_ASSIGN_OR_RETURN(auto arr, AsArray(r, 1));
  const auto& dbl = static_cast<const arrow::DoubleArray&>(*arr);
  arrow::Int64Builder b;
  DELTA_ARROW_RETURN_NOT_OK(b.Reserve(dbl.length()), ErrorCode::kInternal, e.name);
  for (int64_t i = 0; i < dbl.length(); ++i) {
    if (dbl.IsNull(i)) {
      b.UnsafeAppendNull();
      continue;
    }
    const double v = dbl.Value(i);
    const int64_t l = std::isnan(v)                   ? 0
                      : v >= 9.223372036854775807e18  ? INT64_MAX
                      : v <= -9.223372036854775808e18 ? INT64_MIN
                                                      : static_cast<int64_t>(v);
    b.UnsafeAppend(l);
  }
  std::shared_ptr<arrow::Array> out;
  DELTA_ARROW_RETURN_NOT_OK(b.Finish(&out), ErrorCode::kInternal, e.name);
  return Like(out, r.is_scalar());
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
    case BoundFn::kGreatest:
    case BoundFn::kLeast: {
      cp::ElementWiseAggregateOptions opts(/*skip_nulls=*/true);
      return Call(e.fn == BoundFn::kGreatest ? "max_element_wise" : "min_element_wise", a,
                  e, &opts);
    }
    case BoundFn::kFloor:
    case BoundFn::kCeil:
      return FloorCeil(a, e);
    case BoundFn::kLibrary: {
      LibraryCall call{e, a, batch_.num_rows(), now_micros_};
      return CallLibrary(call);
    }
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
          auto out,
          ParseDatetimeArray(*strings, std::get<std::string>(e.args[1]->literal.value),
                             to_date, e.try_cast));
      return Like(out, a[0].is_scalar());
    }
    default:
      break;
  }
  return MakeError(ErrorCode::kInternal, "function {}() has no evaluator", e.name);
}

}  // namespace deltaguard::internal
