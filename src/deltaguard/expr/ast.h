/// \file deltaguard/expr/ast.h
/// The unbound expression tree of deltaguard's one SQL expression language (the Spark
/// SQL dialect used by CHECK constraints, replaceWhere, WHERE and MERGE conditions).
///
/// Invariants:
///  1. Nodes are immutable once built and shared (ExprRef).
///  2. Equality (operator==) compares structure and canonical payloads, never the
///     source position, so parse(ToSql(parse(s))) == parse(s).
///  3. Function names are stored lower-case; column path parts keep their spelling.
///  4. A chain of one binary operator is one kBinary node with n >= 2 children, folded
///     from the left (`a - b - c` is (a - b) - c), so a 100k-term chain is one level
///     deep; depth (ExprDepth) grows only with genuine nesting, which the parser bounds
///     by kMaxExprDepth (util/depth_guard.h). Destruction is iterative at any depth.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "deltaguard/schema/data_type.h"

namespace deltaguard {

struct Expr;
using ExprRef = std::shared_ptr<const Expr>;

enum class ExprKind : uint8_t {
  kLiteral,   ///< literal: type + canonical text
  kColumn,    ///< column path a.b.c
  kUnary,     ///< op, children[0]
  kBinary,    ///< children[0] op children[1] op ... (left fold, n >= 2)
  kIn,        ///< children[0] IN (children[1..]); negated = NOT IN
  kBetween,   ///< children[0] BETWEEN children[1] AND children[2]
  kLike,      ///< children[0] LIKE children[1]; like_kind; negated
  kIsNull,    ///< children[0] IS [NOT] NULL
  kIsBool,    ///< children[0] IS [NOT] TRUE/FALSE (bool_value)
  kCase,      ///< [operand] (WHEN c THEN r)* [ELSE e]; see Expr::has_operand/has_else
  kCast,      ///< CAST / TRY_CAST (try_cast) of children[0] to cast_type
  kFunction,  ///< name(children...), star for count(*), distinct
  kWindow,    ///< children[0] (a kFunction) OVER (window): a window function call
  kSubquery,  ///< (query), EXISTS (query), children[0] [NOT] IN (query)
  /// `x -> body` / `(x, y) -> body`, an argument of a higher-order function
  /// (transform, filter, ...): `path` the parameter names, children[0] the body.
  kLambda,
  /// A lambda parameter in its lambda's body (`text` as written): the parser resolves
  /// names to parameters before columns, innermost lambda first, as Spark does.
  kLambdaVar,
};

enum class ExprOp : uint8_t {
  kNone,
  // unary
  kNegate,
  kNot,
  // arithmetic
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,
  kIntDivide,  ///< DIV
  kModulo,
  kConcat,  ///< ||
  // comparison
  kEq,
  kNotEq,
  kLt,
  kLtEq,
  kGt,
  kGtEq,
  kNullSafeEq,  ///< <=>
  // logic
  kAnd,
  kOr,
};

enum class LikeKind : uint8_t { kLike, kILike, kRLike };

/// Literal kinds. `text` is canonical: numbers as written without the suffix, with a
/// leading '-' when the minus sign was glued to the number as Spark's grammar does
/// ("-1" is a literal, "-(1)" a negation); strings unescaped bytes; binaries the hex
/// digits; dates/timestamps the text inside the quotes.
enum class LiteralKind : uint8_t {
  kNull,
  kBoolean,  ///< text "true" / "false"
  kByte,     ///< 1Y
  kShort,    ///< 1S
  kInteger,  ///< fits int32
  kLong,     ///< 1L or fits int64
  kDecimal,  ///< 1.5, 1BD or too big for int64; text "digits[.digits]"
  kDouble,   ///< 1.5D, 1e3
  kFloat,    ///< 1.5F
  kString,
  kBinary,  ///< X'0A'
  kDate,
  kTimestamp,
  kTimestampNtz,
};

/// One end of a window frame (`ROWS BETWEEN 2 PRECEDING AND CURRENT ROW`).
enum class FrameBoundKind : uint8_t {
  kUnboundedPreceding,
  kPreceding,  ///< `offset` PRECEDING
  kCurrentRow,
  kFollowing,  ///< `offset` FOLLOWING
  kUnboundedFollowing,
};

struct FrameBound {
  FrameBoundKind kind = FrameBoundKind::kUnboundedPreceding;
  ExprRef offset;  ///< kPreceding / kFollowing
};

struct WindowOrderItem {
  ExprRef expr;
  bool descending = false;
  bool nulls_first = true;  ///< resolved: Spark's default is first for ASC, last for DESC
};

/// `OVER (PARTITION BY ... ORDER BY ... [ROWS|RANGE BETWEEN start AND end])`. Without a
/// frame Spark's default applies: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW with
/// an ORDER BY, the whole partition without one.
struct WindowSpec {
  std::vector<ExprRef> partition_by;
  std::vector<WindowOrderItem> order_by;
  bool has_frame = false;
  bool range = false;  ///< RANGE (by ORDER BY value) rather than ROWS
  FrameBound start;
  FrameBound end;
  /// `lag(x) IGNORE NULLS OVER (...)`, first_value/last_value's ignoreNulls.
  bool ignore_nulls = false;
  /// `OVER w`: a window of the query's WINDOW clause, which the SQL layer puts in
  /// place of this spec before planning; empty for a spec written out.
  std::string name;
};
using WindowSpecRef = std::shared_ptr<const WindowSpec>;

/// A query inside an expression. The expression layer only carries it: the SQL layer
/// parses it (through the parser's SubqueryParseFn) and plans it.
struct SubqueryNode {
  virtual ~SubqueryNode() = default;
  /// The query's SQL text as written (without the enclosing parentheses).
  virtual const std::string& text() const = 0;
};

enum class SubqueryKind : uint8_t {
  kScalar,  ///< (SELECT max(x) FROM t): one value
  kExists,  ///< EXISTS (SELECT ...)
  kIn,      ///< children[0] [NOT] IN (SELECT ...); negated = NOT IN
};

struct Expr {
  Expr() = default;
  Expr(const Expr&) = default;
  Expr& operator=(const Expr&) = default;
  /// Iterative: a tree built by hand may be deeper than any stack.
  ~Expr();

  ExprKind kind = ExprKind::kLiteral;
  ExprOp op = ExprOp::kNone;
  LiteralKind literal_kind = LiteralKind::kNull;
  LikeKind like_kind = LikeKind::kLike;
  bool negated = false;      ///< NOT IN / NOT BETWEEN / NOT LIKE / IS NOT
  bool bool_value = false;   ///< kIsBool: TRUE or FALSE
  bool has_operand = false;  ///< kCase: children[0] is the simple-CASE operand
  bool has_else = false;     ///< kCase: last child is ELSE
  bool try_cast = false;
  bool star = false;              ///< count(*)
  bool distinct = false;          ///< count(DISTINCT x)
  std::string text;               ///< literal text; function name (lower-case)
  std::vector<std::string> path;  ///< column path
  DataTypeRef cast_type;
  WindowSpecRef window;                          ///< kWindow
  std::shared_ptr<const SubqueryNode> subquery;  ///< kSubquery
  SubqueryKind subquery_kind = SubqueryKind::kScalar;
  std::vector<ExprRef> children;
  int32_t position = -1;  ///< byte offset in the source text; not compared

  static ExprRef Literal(LiteralKind kind, std::string text, int32_t pos = -1);
  static ExprRef Null() { return Literal(LiteralKind::kNull, "", -1); }
  static ExprRef Bool(bool v) {
    return Literal(LiteralKind::kBoolean, v ? "true" : "false");
  }
  static ExprRef Int(int64_t v);
  static ExprRef String(std::string v) {
    return Literal(LiteralKind::kString, std::move(v));
  }
  static ExprRef Column(std::vector<std::string> path, int32_t pos = -1);
  static ExprRef Unary(ExprOp op, ExprRef child, int32_t pos = -1);
  static ExprRef Binary(ExprOp op, ExprRef left, ExprRef right, int32_t pos = -1);
  static ExprRef Function(std::string name, std::vector<ExprRef> args, int32_t pos = -1);

  /// Number of WHEN branches of a kCase node.
  size_t num_when() const { return (children.size() - has_operand - has_else) / 2; }
};

/// Structural equality (invariant 2); iterative, so any depth compares.
bool operator==(const Expr& a, const Expr& b);
bool operator==(const WindowSpec& a, const WindowSpec& b);

/// `e` with every node for which `fn` returns a replacement replaced by it (the
/// replaced node's subtree is not visited); a node whose children changed is copied,
/// the rest shared. `fn` returns null to keep a node and visit its children. Recursive:
/// for the parser-bounded trees of queries (kMaxExprDepth).
ExprRef TransformExpr(const ExprRef& e, const std::function<ExprRef(const Expr&)>& fn);

/// Depth of the tree (a leaf is 1), computed without recursion.
int ExprDepth(const Expr& e);

/// The node reached by the longest path from `e` (for an error's position).
const Expr& DeepestNode(const Expr& e);

/// Readable names for messages: "+", "AND", "<=>".
const char* ExprOpSymbol(ExprOp op);

}  // namespace deltaguard
