// CASE, IN and the n-ary calls (exec/expr_eval.h rules 1 and 3): a chain of one operator
// is one node (binder.h invariant 6) folded left here, and IN over literals is one
// hash-set lookup, so neither grows the evaluator's recursion with the chain's length.

#include <arrow/builder.h>
#include <arrow/compute/api.h>

#include <memory>
#include <utility>
#include <vector>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/expr_eval_internal.h"

namespace deltaguard::internal {

namespace cp = arrow::compute;
using arrow::Datum;

Result<Datum> Evaluator::Case(const BoundExpr& e) {
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

Result<Datum> Evaluator::FalseIfNull(const Datum& b, const BoundExpr& e) {
  return Call("coalesce", {b, Datum(std::make_shared<arrow::BooleanScalar>(false))}, e);
}

Result<std::vector<Datum>> Evaluator::Args(const BoundExpr& e) {
  std::vector<Datum> out;
  for (const auto& a : e.args) {
    DELTA_ASSIGN_OR_RETURN(Datum d, Eval(*a));
    out.push_back(std::move(d));
  }
  return out;
}

// The left fold of a binary kernel over an n-ary call (binder.h invariant 6); each
// step has the call's type, as the nested calls it replaces had.
Result<Datum> Evaluator::Fold(const std::string& fn, const std::vector<Datum>& a,
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
Result<Datum> Evaluator::In(const BoundExpr& e) {
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

}  // namespace deltaguard::internal
