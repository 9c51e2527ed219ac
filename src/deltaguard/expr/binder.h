/// \file deltaguard/expr/binder.h
/// Bind an unbound expression to a table schema: resolve columns, type-check, insert
/// the implicit casts of Spark's type coercion and desugar syntax, so that evaluation
/// (exec/expr_eval.h) never has to decide a type.
///
/// Invariants of a BoundExpr tree:
///  1. Every node has a non-null `type`; a NULL literal has the type its context needs
///     (Void only for a bare NULL).
///  2. Operands of comparisons, CASE branches and coalesce have exactly the result's
///     common type (casts are explicit kCast nodes).
///  3. Only kLiteral, kColumn, kCall, kCast and kCase remain: IN becomes kIn (`=` for
///     one value), BETWEEN becomes `>= AND <=`, simple CASE becomes searched CASE,
///     IS [NOT] DISTINCT FROM becomes `<=>`.
///  4. Arithmetic on integers keeps the wider operand type (overflow is an error at
///     evaluation, ANSI mode); `/` on non-decimals is DOUBLE; decimal results follow
///     Spark's DecimalPrecision rules, bounded to 38 digits; an integer literal next to
///     a decimal is DECIMAL(its digits, 0), an integer column DECIMAL(10,0) for INT.
///  5. A comparison of two untyped NULLs compares BOOLEAN NULLs (NULL = NULL is NULL,
///     NULL <=> NULL is true).
///  6. AND, OR and concat calls take any number of operands; +, - and * calls fold
///     left over theirs (a chain whose running type stays the same), so flat chains
///     stay flat. Bind refuses trees deeper than kMaxExprDepth.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "deltaguard/expr/ast.h"
#include "deltaguard/expr/literal.h"
#include "deltaguard/schema/data_type.h"

namespace deltaguard {

struct BoundExpr;
using BoundExprRef = std::shared_ptr<const BoundExpr>;

enum class BoundKind : uint8_t { kLiteral, kColumn, kCall, kCast, kCase };

enum class BoundFn : uint8_t {
  kNone,
  // arithmetic (args have the operand types described in binder.h invariant 4)
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,
  kIntDivide,
  kModulo,
  kNegate,
  // comparison (args of one common type), boolean result
  kEq,
  kNotEq,
  kLt,
  kLtEq,
  kGt,
  kGtEq,
  kNullSafeEq,
  /// args[0] IN (args[1..]): one common type; NULL when no value matches and the
  /// subject or a value is NULL (SQL three-valued IN).
  kIn,
  // logic (Kleene three-valued)
  kAnd,
  kOr,
  kNot,
  kIsNull,
  kIsNotNull,
  kIsTrue,   ///< NULL -> false
  kIsFalse,  ///< NULL -> false
  // pattern matching; args[1] is a string literal
  kLike,
  kILike,
  kRLike,
  // scalar functions
  kCoalesce,
  kLength,
  kLower,
  kUpper,
  kTrim,
  kLTrim,
  kRTrim,
  kSubstring,  ///< args[1] (pos) and optional args[2] (len) are integer literals
  kConcat,     ///< NULL if any argument is NULL
  kAbs,
  kRound,     ///< args[1] is an integer literal (digits); `bround` rounds HALF_EVEN
  kGreatest,  ///< args of one common type; NULLs skipped, NULL only when all are
  kLeast,
  kFloor,  ///< numeric: BIGINT, or DECIMAL(p-s+1, 0) for a DECIMAL(p, s)
  kCeil,
  kCurrentDate,
  kCurrentTimestamp,
  kDateAdd,  ///< date + integer days
  kDateSub,
  kYear,
  kMonth,
  kDay,
  kToDate,       ///< to_date(x) or to_date(string, pattern literal)
  kToTimestamp,  ///< to_timestamp(x [, pattern]); `try_cast` for try_to_timestamp
  /// count/sum/min/max/avg: recognised and typed, evaluated by an aggregation layer.
  kAggregate,
  /// A function of the library (string, math, date and time, hashing; binder_library.cc
  /// lists them): `name` is its canonical name, which the evaluator's kernel table
  /// (exec/expr_eval_library.cc) is keyed by; arguments are already cast as the
  /// signature says.
  kLibrary,
  /// transform, filter, exists, forall, aggregate, zip_with (expr/binder_lambda.cc):
  /// args are the arrays (and aggregate's start value) then the lambda bodies, bound
  /// with each lambda parameter as a column whose name `path` lists in order (names
  /// no table has); the evaluator runs a body over the elements
  /// (exec/expr_eval_lambda.cc).
  kHigherOrder,
};

struct BoundExpr {
  BoundExpr() = default;
  BoundExpr(const BoundExpr&) = default;
  BoundExpr& operator=(const BoundExpr&) = default;
  /// Iterative, as ~Expr.
  ~BoundExpr();

  BoundKind kind = BoundKind::kLiteral;
  DataTypeRef type;
  bool nullable = true;
  BoundFn fn = BoundFn::kNone;
  LiteralValue literal;           ///< kLiteral
  std::vector<std::string> path;  ///< kColumn: names as spelled in the schema
  std::vector<BoundExprRef>
      args;               ///< kCall/kCast operands; kCase: cond, value, ..., [else]
  bool try_cast = false;  ///< kCast, try_to_timestamp: NULL instead of an error
  bool has_else = false;  ///< kCase
  bool star = false;      ///< count(*)
  bool distinct = false;  ///< aggregate over DISTINCT values
  std::string name;       ///< kCall: the SQL function name, for messages
};

/// How the bound schema is named in messages.
/// The values of a subquery run by the query engine (BindOptions::subquery): one value
/// for a scalar subquery (NULL when it returned no row) or EXISTS (a BOOLEAN), every
/// value of its column for IN.
struct SubqueryValues {
  std::vector<LiteralValue> values;
};

struct BindOptions {
  /// "table `orders`": unknown-column errors say "... does not exist in <relation>".
  std::string relation;
  /// Top-level columns unknown-column errors leave out of their list of available ones
  /// (a file source's hidden `_metadata`); they still bind when named.
  std::vector<std::string> unlisted;
  /// Runs an uncorrelated subquery (kSubquery); unset, subqueries are refused.
  std::function<Result<SubqueryValues>(const Expr& subquery)> subquery;
};

/// Bind `expr` against `schema` (top-level columns and nested struct fields, resolved
/// case-insensitively as Delta does). Errors:
///  - kNotFound: unknown column, "UNRESOLVED_COLUMN: column 'x' does not exist [in
///    <relation>]; available: ..." (names the column and the available ones);
///  - kSchemaMismatch: operand types that do not fit ("cannot compare string column
///    'name' with INT"), non-castable CAST;
///  - kInvalidArgument: unknown function, wrong argument count, non-literal LIKE pattern.
Result<BoundExprRef> Bind(const Expr& expr, const StructType& schema,
                          const BindOptions& options = {});

/// Bind and also require a BOOLEAN result (CHECK constraints, replaceWhere, WHERE).
Result<BoundExprRef> BindPredicate(const Expr& expr, const StructType& schema,
                                   const BindOptions& options = {});

/// False when the expression calls current_date/current_timestamp (Delta refuses
/// non-deterministic CHECK constraints).
bool IsDeterministic(const BoundExpr& expr);
/// The type values of types `a` and `b` combine to, as in CASE branches and set
/// operations (Spark's wider type: numbers widen, NULL gives way, DATE and TIMESTAMP
/// meet at TIMESTAMP; other types only with themselves); null when they do not.
DataTypeRef CommonTypeOf(const DataTypeRef& a, const DataTypeRef& b);

/// f(*) for any f but count: f over every top-level column of `schema`, as Spark
/// expands a lone star among a function's arguments (hash(*)); null for any other
/// expression.
ExprRef ExpandStarArgument(const Expr& e, const StructType& schema);

/// True for the name of an aggregate function (count, sum, ..., the aggregate library).
bool IsAggregateName(std::string_view name);
/// True when an aggregate function (count/sum/min/max/avg) occurs anywhere.
bool ContainsAggregate(const BoundExpr& expr);

/// Functions that exist only over a window (`row_number() OVER (...)`): ranking,
/// offset and value functions. The binder refuses them (and any OVER) outside the
/// select list, QUALIFY and ORDER BY of a query, which plans them (sql/query_window.cc).
bool IsWindowOnlyFunction(std::string_view name);
/// Units of date_trunc and trunc (Spark's spellings, any case; binder_library.cc).
enum TruncUnit : int {
  kTruncYear,
  kTruncQuarter,
  kTruncMonth,
  kTruncWeek,  ///< the Monday of the ISO week
  kTruncDay,
  kTruncHour,
  kTruncMinute,
  kTruncSecond,
  kTruncMillisecond,
  kTruncMicrosecond,
};
/// The unit `unit` names, or -1; units below a day only when `time_units` (date_trunc).
int TruncUnitOf(std::string_view unit, bool time_units);
/// Every column path the expression reads, as spelled in the schema, without repeats.
std::vector<std::vector<std::string>> ReferencedColumns(const BoundExpr& expr);

/// Whether a bound column is a lambda's parameter (BoundFn::kHigherOrder): a name no
/// table has, left out of ReferencedColumns.
bool IsLambdaColumn(std::string_view name);
/// The column name of parameter `param` of the `n`-th lambda a binder binds.
std::string LambdaColumnName(int n, std::string_view param);

}  // namespace deltaguard
