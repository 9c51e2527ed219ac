// Higher-order functions (docs/sql.md "Functions", lambdas), typed as Spark's:
//  - transform(a, x -> f) / (x, i) -> f: ARRAY of f's type; i is the INT position
//    from 0.
//  - filter(a, x -> p) / (x, i) -> p: a's type; p is BOOLEAN.
//  - exists(a, x -> p), forall(a, x -> p): BOOLEAN, three-valued.
//  - aggregate(a, start, (acc, x) -> merge [, acc -> finish]) (also `reduce`): merge
//    must have the start value's type (Spark's rule: the start value is what to cast);
//    the result is finish's type, else the start value's.
//  - zip_with(a, b, (x, y) -> f): ARRAY of f's type, the shorter array padded with NULL.
// Each binds to one BoundFn::kHigherOrder call (binder.h) evaluated by
// exec/expr_eval_lambda.cc.

#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "deltaguard/expr/binder_internal.h"
#include "deltaguard/expr/printer.h"

namespace deltaguard::internal {
namespace {

constexpr const char* kHigherOrder[] = {"transform", "filter", "exists",  "forall",
                                        "aggregate", "reduce", "zip_with"};

const DataTypeRef& ElementOf(const BoundExpr& e) {
  return static_cast<const ArrayType&>(*e.type).element_type();
}

// A lambda argument's body bound with parameters of `types`; `arity` lists the
// parameter counts the function accepts (its first `n` of `types` are given).
Result<BoundLambda> Lambda(const Expr& node, size_t i, const LambdaBinder& bind,
                           std::vector<DataTypeRef> types, std::vector<size_t> arity) {
  const Expr& arg = *node.children[i];
  if (arg.kind != ExprKind::kLambda) {
    return ArgTypeError(node, i, "a lambda function (x -> ...)", ToSql(arg));
  }
  const size_t n = arg.path.size();
  if (std::find(arity.begin(), arity.end(), n) == arity.end()) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        "INVALID_LAMBDA_FUNCTION_CALL.NUM_ARGS_MISMATCH: function {}() takes "
        "a lambda of {} parameter{} as argument {}, got {} ({})",
        node.text, fmt::join(arity, " or "), arity.back() == 1 ? "" : "s", i + 1, n,
        ToSql(arg));
  }
  types.resize(n);
  return bind(arg, types);
}

// A predicate's body: BOOLEAN (a NULL literal is a NULL BOOLEAN).
Result<BoundExprRef> Predicate(const Expr& node, BoundExprRef body) {
  if (body->type->kind() == TypeKind::kVoid) return NullOf(DataType::Boolean());
  if (body->type->kind() != TypeKind::kBoolean) {
    return MakeError(ErrorCode::kSchemaMismatch,
                     "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE: function {}(): the lambda "
                     "must return BOOLEAN, got {}",
                     node.text, TypeToSql(*body->type));
  }
  return body;
}

Result<BoundExprRef> ArrayArg(const Expr& node, size_t i, const ExprBinder& bind) {
  if (node.children[i]->kind == ExprKind::kLambda) {
    return ArgTypeError(node, i, "an ARRAY", ToSql(*node.children[i]));
  }
  DELTA_ASSIGN_OR_RETURN(BoundExprRef a, bind(*node.children[i]));
  if (a->type->kind() == TypeKind::kVoid) {
    return NullOf(std::make_shared<ArrayType>(DataType::Void(), true));
  }
  if (a->type->kind() != TypeKind::kArray) {
    return ArgTypeError(node, i, "an ARRAY", DescribeOperand(*a));
  }
  return a;
}

BoundExprRef Call(const Expr& node, DataTypeRef type, std::vector<BoundExprRef> args,
                  std::vector<std::string> columns) {
  auto call = std::make_shared<BoundExpr>(
      *MakeCall(BoundFn::kHigherOrder, std::move(type), std::move(args),
                node.text == "reduce" ? std::string("aggregate") : node.text));
  call->path = std::move(columns);
  return call;
}

Result<BoundExprRef> BindAggregate(const Expr& node, const ExprBinder& bind,
                                   const LambdaBinder& lambda) {
  DELTA_RETURN_IF_ERROR(CheckArgCount(node, node.children.size(), 3, 4));
  DELTA_ASSIGN_OR_RETURN(BoundExprRef array, ArrayArg(node, 0, bind));
  if (node.children[1]->kind == ExprKind::kLambda) {
    return ArgTypeError(node, 1, "a start value", ToSql(*node.children[1]));
  }
  DELTA_ASSIGN_OR_RETURN(BoundExprRef start, bind(*node.children[1]));
  const DataTypeRef acc = start->type;
  DELTA_ASSIGN_OR_RETURN(BoundLambda merge,
                         Lambda(node, 2, lambda, {acc, ElementOf(*array)}, {2}));
  if (!merge.body->type->Equals(*acc)) {
    if (merge.body->type->kind() != TypeKind::kVoid) {
      return MakeError(
          ErrorCode::kSchemaMismatch,
          "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE: function {}(): the merge "
          "lambda returns {} where the start value is {}; cast the start "
          "value to {}",
          node.text, TypeToSql(*merge.body->type), TypeToSql(*acc),
          TypeToSql(*merge.body->type));
    }
    merge.body = NullOf(acc);
  }
  std::vector<BoundExprRef> args{array, start, merge.body};
  std::vector<std::string> columns = merge.columns;
  DataTypeRef result = acc;
  if (node.children.size() == 4) {
    DELTA_ASSIGN_OR_RETURN(BoundLambda finish, Lambda(node, 3, lambda, {acc}, {1}));
    result = finish.body->type;
    args.push_back(finish.body);
    columns.push_back(finish.columns[0]);
  }
  return Call(node, result, std::move(args), std::move(columns));
}

}  // namespace

bool IsHigherOrderFunction(std::string_view name) {
  for (const char* n : kHigherOrder) {
    if (name == n) return true;
  }
  return false;
}

Result<BoundExprRef> BindHigherOrder(const Expr& node, const ExprBinder& bind,
                                     const LambdaBinder& lambda) {
  if (node.star || node.distinct) {
    return MakeError(ErrorCode::kInvalidArgument, "function {}() does not take {}",
                     node.text, node.star ? "*" : "DISTINCT");
  }
  const std::string& name = node.text;
  if (name == "aggregate" || name == "reduce") return BindAggregate(node, bind, lambda);
  if (name == "zip_with") {
    DELTA_RETURN_IF_ERROR(CheckArgCount(node, node.children.size(), 3, 3));
    DELTA_ASSIGN_OR_RETURN(BoundExprRef a, ArrayArg(node, 0, bind));
    DELTA_ASSIGN_OR_RETURN(BoundExprRef b, ArrayArg(node, 1, bind));
    DELTA_ASSIGN_OR_RETURN(BoundLambda f,
                           Lambda(node, 2, lambda, {ElementOf(*a), ElementOf(*b)}, {2}));
    auto type = std::make_shared<ArrayType>(f.body->type, true);
    return Call(node, type, {a, b, f.body}, std::move(f.columns));
  }
  DELTA_RETURN_IF_ERROR(CheckArgCount(node, node.children.size(), 2, 2));
  DELTA_ASSIGN_OR_RETURN(BoundExprRef array, ArrayArg(node, 0, bind));
  const bool indexed = name == "transform" || name == "filter";
  DELTA_ASSIGN_OR_RETURN(
      BoundLambda f,
      Lambda(node, 1, lambda, {ElementOf(*array), DataType::Integer()},
             indexed ? std::vector<size_t>{1, 2} : std::vector<size_t>{1}));
  if (name == "transform") {
    auto type = std::make_shared<ArrayType>(f.body->type, true);
    return Call(node, type, {array, f.body}, std::move(f.columns));
  }
  DELTA_ASSIGN_OR_RETURN(BoundExprRef p, Predicate(node, f.body));
  DataTypeRef type = name == "filter" ? array->type : DataType::Boolean();
  return Call(node, type, {array, p}, std::move(f.columns));
}

}  // namespace deltaguard::internal
