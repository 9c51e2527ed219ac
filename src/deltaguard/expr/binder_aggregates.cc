// Signatures of the aggregate library (statistics, boolean and conditional counts,
// max_by/min_by, first/last, distinct-count and percentile estimates, collect_list/
// collect_set): argument checks and Spark's result types. The accumulators are in
// sql/query_aggregate_library.cc, found by the canonical name.

#include <string>
#include <utility>
#include <vector>

#include "deltaguard/expr/binder_internal.h"

namespace deltaguard::internal {
namespace {

struct AggregateName {
  std::string_view name;
  std::string_view canonical;
};

constexpr AggregateName kAggregates[] = {
    {"stddev", "stddev_samp"},
    {"std", "stddev_samp"},
    {"stddev_samp", "stddev_samp"},
    {"stddev_pop", "stddev_pop"},
    {"variance", "var_samp"},
    {"var_samp", "var_samp"},
    {"var_pop", "var_pop"},
    {"count_if", "count_if"},
    {"bool_and", "bool_and"},
    {"every", "bool_and"},
    {"bool_or", "bool_or"},
    {"max_by", "max_by"},
    {"min_by", "min_by"},
    {"first", "first"},
    {"last", "last"},
    {"any_value", "first"},
    {"approx_count_distinct", "approx_count_distinct"},
    {"percentile_approx", "percentile_approx"},
    {"approx_percentile", "percentile_approx"},
    {"percentile", "percentile"},
    {"median", "median"},
    {"collect_list", "collect_list"},
    {"array_agg", "collect_list"},
    {"collect_set", "collect_set"},
};

Error Mismatch(const Expr& node, size_t i, const BoundExpr& arg, std::string_view need) {
  return ArgTypeError(node, i, need, DescribeOperand(arg));
}

bool Orderable(const DataType& t) {
  return !t.is_nested() && t.kind() != TypeKind::kVariant;
}

// A literal DOUBLE in [0, 1] (a percentage).
Result<BoundExprRef> Percentage(const Expr& node, size_t i, const BoundExprRef& arg) {
  if (arg->kind != BoundKind::kLiteral || !arg->type->is_numeric() ||
      arg->literal.is_null()) {
    return Mismatch(node, i, *arg, "a numeric literal between 0 and 1");
  }
  // The literal's value as a double (integer, decimal or floating literal).
  double v = 0;
  const auto& value = arg->literal.value;
  if (std::holds_alternative<int64_t>(value)) {
    v = static_cast<double>(std::get<int64_t>(value));
  } else if (std::holds_alternative<double>(value)) {
    v = std::get<double>(value);
  } else if (std::holds_alternative<Int128>(value)) {
    v = static_cast<double>(std::get<Int128>(value));
    for (int k = 0; k < static_cast<const DecimalType&>(*arg->type).scale(); ++k) v /= 10;
  }
  if (!(v >= 0 && v <= 1)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE: function {}(): the "
                     "percentage must be between 0.0 and 1.0, got {}",
                     node.text, v);
  }
  return MakeLiteral(LiteralValue{DataType::Double(), v});
}

}  // namespace

bool IsLibraryAggregate(std::string_view name) {
  for (const auto& a : kAggregates) {
    if (a.name == name) return true;
  }
  return false;
}

std::string LibraryAggregateNames() {
  std::string out;
  for (const auto& a : kAggregates)
    out += (out.empty() ? "" : ", ") + std::string(a.name);
  return out;
}

Result<BoundExprRef> BindLibraryAggregate(const Expr& node,
                                          std::vector<BoundExprRef> args) {
  std::string_view canonical;
  for (const auto& a : kAggregates) {
    if (a.name == node.text) canonical = a.canonical;
  }
  const size_t n = args.size();
  if (node.star) {
    return MakeError(ErrorCode::kInvalidArgument, "function {}() does not take *",
                     node.text);
  }
  const std::string c(canonical);
  DataTypeRef type;
  if (c == "stddev_samp" || c == "stddev_pop" || c == "var_samp" || c == "var_pop") {
    DELTA_RETURN_IF_ERROR(CheckArgCount(node, n, 1, 1));
    TypeKind k = args[0]->type->kind();
    if (!args[0]->type->is_numeric() && k != TypeKind::kVoid && k != TypeKind::kString) {
      return Mismatch(node, 0, *args[0], "numeric");
    }
    DELTA_ASSIGN_OR_RETURN(args[0], CastTo(args[0], DataType::Double()));
    type = DataType::Double();
  } else if (c == "count_if" || c == "bool_and" || c == "bool_or") {
    DELTA_RETURN_IF_ERROR(CheckArgCount(node, n, 1, 1));
    TypeKind k = args[0]->type->kind();
    if (k != TypeKind::kBoolean && k != TypeKind::kVoid) {
      return Mismatch(node, 0, *args[0], "BOOLEAN");
    }
    DELTA_ASSIGN_OR_RETURN(args[0], CastTo(args[0], DataType::Boolean()));
    type = c == "count_if" ? DataType::Long() : DataType::Boolean();
  } else if (c == "max_by" || c == "min_by") {
    DELTA_RETURN_IF_ERROR(CheckArgCount(node, n, 2, 2));
    if (!Orderable(*args[1]->type)) return Mismatch(node, 1, *args[1], "orderable");
    type = args[0]->type;
  } else if (c == "first" || c == "last") {
    DELTA_RETURN_IF_ERROR(CheckArgCount(node, n, 1, 2));
    if (n == 2 &&
        (args[1]->kind != BoundKind::kLiteral ||
         args[1]->type->kind() != TypeKind::kBoolean || args[1]->literal.is_null())) {
      return Mismatch(node, 1, *args[1], "a boolean literal (ignoreNulls)");
    }
    type = args[0]->type;
  } else if (c == "approx_count_distinct") {
    DELTA_RETURN_IF_ERROR(CheckArgCount(node, n, 1, 2));
    if (!Orderable(*args[0]->type)) return Mismatch(node, 0, *args[0], "a primitive");
    if (n == 2 &&
        (args[1]->kind != BoundKind::kLiteral || !args[1]->type->is_numeric())) {
      return Mismatch(node, 1, *args[1], "a numeric literal (the relative error)");
    }
    type = DataType::Long();
  } else if (c == "percentile_approx" || c == "percentile" || c == "median") {
    const bool median = c == "median";
    DELTA_RETURN_IF_ERROR(CheckArgCount(node, n, median ? 1 : 2, c == "median" ? 1 : 3));
    TypeKind k = args[0]->type->kind();
    const bool numeric = args[0]->type->is_numeric() || k == TypeKind::kVoid;
    const bool temporal =
        k == TypeKind::kDate || k == TypeKind::kTimestamp || k == TypeKind::kTimestampNtz;
    if (!numeric && !(temporal && c == "percentile_approx")) {
      return Mismatch(
          node, 0, *args[0],
          c == "percentile_approx" ? "numeric, DATE or TIMESTAMP" : "numeric");
    }
    if (!median) {
      DELTA_ASSIGN_OR_RETURN(args[1], Percentage(node, 1, args[1]));
    }
    if (n == 3) {
      // percentile_approx's accuracy; percentile's frequency (only 1 is supported).
      if (args[2]->kind != BoundKind::kLiteral || !args[2]->type->is_integral() ||
          args[2]->literal.is_null() || std::get<int64_t>(args[2]->literal.value) <= 0) {
        return Mismatch(node, 2, *args[2], "a positive integer literal");
      }
      if (c == "percentile" && std::get<int64_t>(args[2]->literal.value) != 1) {
        return MakeError(ErrorCode::kUnsupportedFeature,
                         "function percentile(): a frequency other than 1 is not "
                         "supported yet");
      }
    }
    if (c == "percentile_approx") {
      type = k == TypeKind::kVoid ? DataType::Double() : args[0]->type;
    } else {
      DELTA_ASSIGN_OR_RETURN(args[0], CastTo(args[0], DataType::Double()));
      type = DataType::Double();
    }
  } else {  // collect_list, collect_set
    DELTA_RETURN_IF_ERROR(CheckArgCount(node, n, 1, 1));
    if (c == "collect_set" && !Orderable(*args[0]->type)) {
      return Mismatch(node, 0, *args[0], "a primitive (collect_set compares values)");
    }
    type = std::make_shared<ArrayType>(args[0]->type, false);
  }
  auto agg = std::make_shared<BoundExpr>(
      *MakeCall(BoundFn::kAggregate, type, std::move(args), c));
  agg->distinct = node.distinct;
  return BoundExprRef(agg);
}

}  // namespace deltaguard::internal
