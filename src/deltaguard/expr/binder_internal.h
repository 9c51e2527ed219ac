/// \file deltaguard/expr/binder_internal.h
/// Type-coercion helpers shared by binder.cc and binder_functions.cc.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "deltaguard/expr/binder.h"

namespace deltaguard::internal {

BoundExprRef MakeCall(BoundFn fn, DataTypeRef type, std::vector<BoundExprRef> args,
                      std::string name);
BoundExprRef MakeLiteral(LiteralValue value);
BoundExprRef NullOf(DataTypeRef type);

/// "column 'a' (INT)" / "INT" / "string literal 'x'": how an operand appears in
/// messages.
std::string DescribeOperand(const BoundExpr& e);
/// Spark's DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE for argument i (0-based) of the
/// call `node`: "function f(): argument 2 must be <need>, got <got>".
Error ArgTypeError(const Expr& node, size_t i, std::string_view need,
                   std::string_view got);
/// WRONG_NUM_ARGS unless lo <= n <= hi ("function f() takes 1 to 2 arguments, got 3").
Status CheckArgCount(const Expr& node, size_t n, size_t lo, size_t hi);

/// `e` converted to `type`: unchanged when equal, a typed NULL for a NULL literal, a
/// folded literal for a string literal (Spark casts the literal side), else a kCast node.
Result<BoundExprRef> CastTo(const BoundExprRef& e, const DataTypeRef& type);

/// The common type of two numeric types (byte < short < int < long < decimal < float <
/// double; decimal with float is double).
DataTypeRef WiderNumeric(const DataType& a, const DataType& b);
/// Decimal(p, s) whose precision exceeds 38 reduced as Spark does (keep integer digits,
/// keep at least min(s, 6) fractional digits).
DataTypeRef BoundedDecimal(int precision, int scale);
/// The decimal type that holds every value of an integral type (INT -> DECIMAL(10,0)).
DataTypeRef IntegralAsDecimal(const DataType& t);
/// The decimal an integral operand of decimal arithmetic becomes: for a non-NULL
/// literal (or a negated one) DECIMAL(number of digits, 0) as Spark's
/// DecimalType.fromLiteral, else IntegralAsDecimal of its type.
DataTypeRef IntegralOperandAsDecimal(const BoundExpr& e);

/// Find the common type of `args` and cast them all to it. String literals take the type
/// of the other operands (DATE, numbers, ...). `what` names the construct in errors
/// ("comparison '='", "CASE branches", "coalesce").
Result<DataTypeRef> Unify(std::vector<BoundExprRef>* args, std::string_view what);

/// Check that an explicit CAST from `from` to `to` is allowed (Spark's Cast.canCast,
/// ANSI): kSchemaMismatch naming both types otherwise.
Status CheckCastable(const DataType& from, const DataType& to);

Result<BoundExprRef> BindFunction(const Expr& node, std::vector<BoundExprRef> args);
/// Spark's conditional functions (if, nvl, nvl2, nullif) and mod/pmod as the CASE,
/// coalesce or % they mean; null when `e` is none of them (binder_functions.cc).
Result<ExprRef> RewriteConditional(const Expr& e);
/// Calls whose meaning depends on the input: f(*) (ExpandStarArgument) and
/// input_file_name() (the `_metadata.file_path` of a file source, '' elsewhere, as
/// Spark); null for any other expression.
ExprRef RewriteForSchema(const Expr& e, const StructType& schema);
/// The call `e` rewritten before binding: RewriteForSchema, then RewriteConditional
/// (which covers the try_ functions); null when it binds as written.
Result<ExprRef> RewriteCall(const Expr& e, const StructType& schema);
/// try_add and the other try_ functions: the strict expression marked `try_cast`
/// (null when `e` is not one of them); MarkTry makes its bound call lenient.
Result<ExprRef> RewriteTry(const Expr& e);
Result<BoundExprRef> MarkTry(Result<BoundExprRef> bound, bool lenient);

// binder_aggregates.cc: the aggregate library (BoundFn::kAggregate, canonical names).
bool IsLibraryAggregate(std::string_view name);
std::string LibraryAggregateNames();
Result<BoundExprRef> BindLibraryAggregate(const Expr& node,
                                          std::vector<BoundExprRef> args);

// binder_collections.cc: `[]`, `.`, the map functions, element_at/size on a MAP.
bool IsCollectionCall(std::string_view name, const std::vector<BoundExprRef>& args);
Result<BoundExprRef> BindCollectionCall(const Expr& node, std::vector<BoundExprRef> args);

// binder_arrays.cc: concat/reverse of arrays and the array functions it lists.
bool IsArrayCall(std::string_view name, const std::vector<BoundExprRef>& args);
std::string ArrayFunctionNames();
Result<BoundExprRef> BindArrayCall(const Expr& node, std::vector<BoundExprRef> args);

// binder_lambda.cc: transform, filter, exists, forall, aggregate/reduce, zip_with.
struct BoundLambda {
  BoundExprRef body;
  std::vector<std::string> columns;  ///< the parameters' internal column names
};
/// Binds a lambda's body with its parameters of `types` in scope.
using LambdaBinder = std::function<Result<BoundLambda>(
    const Expr& lambda, const std::vector<DataTypeRef>& types)>;
using ExprBinder = std::function<Result<BoundExprRef>(const Expr& e)>;
bool IsHigherOrderFunction(std::string_view name);
Result<BoundExprRef> BindHigherOrder(const Expr& node, const ExprBinder& bind,
                                     const LambdaBinder& lambda);

// binder_json_schema.cc: schema_of_json(literal), folded to a string literal.
Result<BoundExprRef> BindSchemaOfJson(const Expr& node,
                                      const std::vector<BoundExprRef>& args);

// binder_library.cc: the function library (BoundFn::kLibrary).
bool IsLibraryFunction(std::string_view name);
std::string LibraryFunctionNames();
Result<BoundExprRef> BindLibraryFunction(const Expr& node,
                                         std::vector<BoundExprRef> args);

}  // namespace deltaguard::internal
