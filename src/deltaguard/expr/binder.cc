#include "deltaguard/expr/binder.h"

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/expr/binder_internal.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/util/depth_guard.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {

namespace {

using internal::CastTo;
using internal::DescribeOperand;
using internal::MakeCall;
using internal::Unify;

BoundFn ComparisonFn(ExprOp op) {
  switch (op) {
    case ExprOp::kEq:
      return BoundFn::kEq;
    case ExprOp::kNotEq:
      return BoundFn::kNotEq;
    case ExprOp::kLt:
      return BoundFn::kLt;
    case ExprOp::kLtEq:
      return BoundFn::kLtEq;
    case ExprOp::kGt:
      return BoundFn::kGt;
    case ExprOp::kGtEq:
      return BoundFn::kGtEq;
    case ExprOp::kNullSafeEq:
      return BoundFn::kNullSafeEq;
    default:
      return BoundFn::kNone;
  }
}

class Binder {
 public:
  Binder(const StructType& schema, const BindOptions& options)
      : schema_(schema), options_(options) {}

  Result<BoundExprRef> Bind(const Expr& e) {
    // Parsed trees are at most kMaxExprDepth deep (parser.cc); trees built in code are
    // held to the same bound.
    DepthGuard guard(&budget_);
    if (guard.exceeded()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "expression nested too deeply (more than {} levels)",
                       budget_.limit());
    }
    switch (e.kind) {
      case ExprKind::kLiteral: {
        DELTA_ASSIGN_OR_RETURN(LiteralValue v, EvaluateLiteral(e));
        return internal::MakeLiteral(std::move(v));
      }
      case ExprKind::kColumn:
        return BindColumn(e);
      case ExprKind::kUnary: {
        DELTA_ASSIGN_OR_RETURN(BoundExprRef arg, Bind(*e.children[0]));
        if (e.op == ExprOp::kNot) return Logic(BoundFn::kNot, "NOT", {arg});
        if (!arg->type->is_numeric() && arg->type->kind() != TypeKind::kVoid) {
          return MakeError(ErrorCode::kSchemaMismatch, "unary '-' needs a number, got {}",
                           DescribeOperand(*arg));
        }
        return MakeCall(BoundFn::kNegate, arg->type, {arg}, "-");
      }
      case ExprKind::kBinary:
        return BindBinary(e);
      case ExprKind::kIn:
        return BindIn(e);
      case ExprKind::kBetween: {
        DELTA_ASSIGN_OR_RETURN(BoundExprRef x, Bind(*e.children[0]));
        DELTA_ASSIGN_OR_RETURN(BoundExprRef lo, Bind(*e.children[1]));
        DELTA_ASSIGN_OR_RETURN(BoundExprRef hi, Bind(*e.children[2]));
        DELTA_ASSIGN_OR_RETURN(BoundExprRef ge,
                               Compare(BoundFn::kGtEq, "BETWEEN", x, lo));
        DELTA_ASSIGN_OR_RETURN(BoundExprRef le,
                               Compare(BoundFn::kLtEq, "BETWEEN", x, hi));
        DELTA_ASSIGN_OR_RETURN(BoundExprRef both, Logic(BoundFn::kAnd, "AND", {ge, le}));
        if (e.negated) return Logic(BoundFn::kNot, "NOT", {both});
        return both;
      }
      case ExprKind::kLike:
        return BindLike(e);
      case ExprKind::kIsNull: {
        DELTA_ASSIGN_OR_RETURN(BoundExprRef arg, Bind(*e.children[0]));
        auto call = std::make_shared<BoundExpr>(
            *MakeCall(e.negated ? BoundFn::kIsNotNull : BoundFn::kIsNull,
                      DataType::Boolean(), {arg}, e.negated ? "IS NOT NULL" : "IS NULL"));
        call->nullable = false;
        return BoundExprRef(call);
      }
      case ExprKind::kIsBool: {
        DELTA_ASSIGN_OR_RETURN(BoundExprRef arg, Bind(*e.children[0]));
        BoundFn fn = e.bool_value ? BoundFn::kIsTrue : BoundFn::kIsFalse;
        DELTA_ASSIGN_OR_RETURN(BoundExprRef is,
                               Logic(fn, e.bool_value ? "IS TRUE" : "IS FALSE", {arg}));
        auto copy = std::make_shared<BoundExpr>(*is);
        copy->nullable = false;
        if (e.negated) return Logic(BoundFn::kNot, "NOT", {BoundExprRef(copy)});
        return BoundExprRef(copy);
      }
      case ExprKind::kCase:
        return BindCase(e);
      case ExprKind::kCast: {
        DELTA_ASSIGN_OR_RETURN(BoundExprRef arg, Bind(*e.children[0]));
        DELTA_RETURN_IF_ERROR(internal::CheckCastable(*arg->type, *e.cast_type));
        auto c = std::make_shared<BoundExpr>();
        c->kind = BoundKind::kCast;
        c->type = e.cast_type;
        c->try_cast = e.try_cast;
        c->args.push_back(arg);
        return BoundExprRef(c);
      }
      case ExprKind::kSubquery:
        return BindSubquery(e);
      case ExprKind::kWindow:
        // Spark: UNSUPPORTED_EXPR_FOR_OPERATOR (a window function in WHERE, GROUP BY,
        // HAVING, a constraint or a MERGE condition).
        return MakeError(ErrorCode::kInvalidArgument,
                         "window function {}() is not allowed here "
                         "(UNSUPPORTED_EXPR_FOR_OPERATOR): window functions go in the "
                         "select list, QUALIFY or ORDER BY of a query",
                         e.children[0]->text);
      case ExprKind::kFunction: {
        if (IsWindowOnlyFunction(e.text)) {
          return MakeError(ErrorCode::kInvalidArgument,
                           "window function {}() requires an OVER clause "
                           "(WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE)",
                           e.text);
        }
        if (internal::IsHigherOrderFunction(e.text)) {
          return internal::BindHigherOrder(
              e, [this](const Expr& c) { return Bind(c); },
              [this](const Expr& l, const std::vector<DataTypeRef>& types) {
                return BindLambda(l, types);
              });
        }
        DELTA_ASSIGN_OR_RETURN(ExprRef rewritten, internal::RewriteCall(e, schema_));
        if (rewritten) return internal::MarkTry(Bind(*rewritten), rewritten->try_cast);
        std::vector<BoundExprRef> args;
        for (const auto& c : e.children) {
          DELTA_ASSIGN_OR_RETURN(BoundExprRef a, Bind(*c));
          args.push_back(std::move(a));
        }
        return internal::BindFunction(e, std::move(args));
      }
      case ExprKind::kLambda:
        return MakeError(ErrorCode::kInvalidArgument,
                         "a lambda function ({}) goes only where a higher-order function "
                         "takes one (transform, filter, exists, forall, aggregate, "
                         "zip_with)",
                         ToSql(e));
      case ExprKind::kLambdaVar:
        return BindLambdaVar(e);
    }
    return MakeError(ErrorCode::kInternal, "unknown expression kind");
  }

 private:
  // A lambda's parameters while its body binds: each is a column of a name no table
  // has ("\x01" is not in Delta column names' use), unique per lambda so that nested
  // lambdas with the same parameter names stay apart.
  struct LambdaVar {
    std::string name, column;
    DataTypeRef type;
  };

  Result<internal::BoundLambda> BindLambda(const Expr& lambda,
                                           const std::vector<DataTypeRef>& types) {
    internal::BoundLambda out;
    const size_t depth = lambda_scope_.size();
    ++lambdas_;
    for (size_t i = 0; i < types.size(); ++i) {
      std::string column = LambdaColumnName(lambdas_, lambda.path[i]);
      lambda_scope_.push_back({lambda.path[i], column, types[i]});
      out.columns.push_back(std::move(column));
    }
    auto body = Bind(*lambda.children[0]);
    lambda_scope_.resize(depth);
    if (!body) return body.error();
    out.body = *body;
    return out;
  }

  Result<BoundExprRef> BindLambdaVar(const Expr& e) {
    for (auto it = lambda_scope_.rbegin(); it != lambda_scope_.rend(); ++it) {
      if (!EqualsIgnoreCase(it->name, e.text)) continue;
      auto b = std::make_shared<BoundExpr>();
      b->kind = BoundKind::kColumn;
      b->type = it->type;
      b->path = {it->column};
      return BoundExprRef(b);
    }
    return MakeError(ErrorCode::kInternal, "lambda variable '{}' outside its lambda",
                     e.text);
  }

  Result<BoundExprRef> BindColumn(const Expr& e) {
    const StructType* level = &schema_;
    std::vector<std::string> resolved;
    const StructField* field = nullptr;
    for (size_t i = 0; i < e.path.size(); ++i) {
      if (level == nullptr) {
        return MakeError(ErrorCode::kSchemaMismatch,
                         "column '{}': '{}' is {}, not a struct", ToSql(e),
                         resolved.back(), TypeToSql(*field->type));
      }
      int idx = level->FieldIndexCaseInsensitive(e.path[i]);
      if (idx < 0) {
        std::string names;
        for (const auto& f : level->fields()) {
          const auto& skip = options_.unlisted;
          if (resolved.empty() &&
              std::find(skip.begin(), skip.end(), f.name) != skip.end()) {
            continue;
          }
          names += (names.empty() ? "" : ", ") + QuoteIdentifier(f.name);
        }
        std::string where =
            !resolved.empty()           ? " in struct " + ToSql(*Expr::Column(resolved))
            : options_.relation.empty() ? std::string()
                                        : fmt::format(" in {}", options_.relation);
        return MakeError(ErrorCode::kNotFound,
                         "UNRESOLVED_COLUMN: column '{}' does not exist{}; available: {}",
                         ToSql(e), where, names.empty() ? "(none)" : names);
      }
      field = &level->field(static_cast<size_t>(idx));
      resolved.push_back(field->name);
      level = field->type->kind() == TypeKind::kStruct
                  ? static_cast<const StructType*>(field->type.get())
                  : nullptr;
    }
    auto b = std::make_shared<BoundExpr>();
    b->kind = BoundKind::kColumn;
    b->type = field->type;
    b->nullable = true;  // a parent struct may be NULL even when the field is not
    b->path = std::move(resolved);
    return BoundExprRef(b);
  }

  Result<BoundExprRef> Logic(BoundFn fn, std::string_view what,
                             std::vector<BoundExprRef> args) {
    for (auto& a : args) {
      if (a->type->kind() == TypeKind::kVoid) {
        a = internal::NullOf(DataType::Boolean());
      } else if (a->type->kind() != TypeKind::kBoolean) {
        return MakeError(ErrorCode::kSchemaMismatch, "{} needs BOOLEAN operands, got {}",
                         what, DescribeOperand(*a));
      }
    }
    return MakeCall(fn, DataType::Boolean(), std::move(args), std::string(what));
  }

  Result<BoundExprRef> Compare(BoundFn fn, std::string_view what, BoundExprRef l,
                               BoundExprRef r) {
    std::vector<BoundExprRef> args{std::move(l), std::move(r)};
    std::string context = fmt::format("comparison '{}'", what);
    DELTA_ASSIGN_OR_RETURN(DataTypeRef common, Unify(&args, context));
    if (common->kind() == TypeKind::kVoid) {
      // NULL = NULL: Spark's untyped NULL takes the other side's type; with NULL on both
      // sides any type works, and BOOLEAN has every comparison kernel.
      common = DataType::Boolean();
      for (auto& a : args) a = internal::NullOf(common);
    }
    if (common->is_nested() || common->kind() == TypeKind::kVariant) {
      return MakeError(ErrorCode::kSchemaMismatch, "{}: cannot compare values of type {}",
                       context, TypeToSql(*common));
    }
    auto call = std::make_shared<BoundExpr>(
        *MakeCall(fn, DataType::Boolean(), std::move(args), std::string(what)));
    call->nullable = fn != BoundFn::kNullSafeEq;
    return BoundExprRef(call);
  }

  // A chain `c0 op c1 op ...` (ast.h invariant 4) binds as the left fold Spark types.
  // AND, OR and || are associative and stay one n-ary call; arithmetic stays one call
  // while the running type does not change (see ExtendArithmetic), so a long chain is
  // a flat node for the evaluator, not a deep tree.
  Result<BoundExprRef> BindBinary(const Expr& e) {
    const char* sym = ExprOpSymbol(e.op);
    std::vector<BoundExprRef> args;
    args.reserve(e.children.size());
    for (const auto& c : e.children) {
      DELTA_ASSIGN_OR_RETURN(BoundExprRef b, Bind(*c));
      args.push_back(std::move(b));
    }
    if (e.op == ExprOp::kAnd) return Logic(BoundFn::kAnd, sym, std::move(args));
    if (e.op == ExprOp::kOr) return Logic(BoundFn::kOr, sym, std::move(args));
    if (e.op == ExprOp::kConcat) {
      return internal::BindFunction(*Expr::Function("concat", {}), std::move(args));
    }
    BoundFn cmp = ComparisonFn(e.op);
    BoundExprRef acc = args[0];
    std::shared_ptr<BoundExpr> open;  // acc, when it is a call this loop may extend
    for (size_t i = 1; i < args.size(); ++i) {
      if (cmp != BoundFn::kNone) {
        DELTA_ASSIGN_OR_RETURN(acc, Compare(cmp, sym, acc, args[i]));
        continue;
      }
      DELTA_ASSIGN_OR_RETURN(BoundExprRef next, Arithmetic(e.op, acc, args[i]));
      if (open != nullptr && ExtendsChain(*next, *open)) {
        open->args.push_back(next->args[1]);
        continue;
      }
      acc = next;
      open = IsChainable(*next) ? std::const_pointer_cast<BoundExpr>(next) : nullptr;
    }
    return acc;
  }

  // +, - and * (checked in the running type) fold left over any number of operands.
  static bool IsChainable(const BoundExpr& call) {
    return call.kind == BoundKind::kCall && call.args.size() == 2 &&
           (call.fn == BoundFn::kAdd || call.fn == BoundFn::kSubtract ||
            call.fn == BoundFn::kMultiply);
  }

  // `next` = `open` op x needs no cast of `open` and has `open`'s type: then
  // `open`'s operands followed by x compute the same left fold.
  static bool ExtendsChain(const BoundExpr& next, const BoundExpr& open) {
    return next.kind == BoundKind::kCall && next.fn == open.fn && next.args.size() == 2 &&
           next.args[0].get() == &open && next.type->Equals(*open.type);
  }

  Result<BoundExprRef> BindIn(const Expr& e) {
    std::vector<BoundExprRef> args;
    args.reserve(e.children.size());
    for (const auto& c : e.children) {
      DELTA_ASSIGN_OR_RETURN(BoundExprRef b, Bind(*c));
      args.push_back(std::move(b));
    }
    return BindInArgs(std::move(args), e.negated);
  }

  // A subquery, run once by the caller (BindOptions::subquery) and replaced by its
  // values.
  Result<BoundExprRef> BindSubquery(const Expr& e) {
    if (!options_.subquery) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "subqueries are not supported here: ({})", e.subquery->text());
    }
    DELTA_ASSIGN_OR_RETURN(SubqueryValues result, options_.subquery(e));
    if (e.subquery_kind != SubqueryKind::kIn) {
      if (result.values.size() != 1) {
        return MakeError(ErrorCode::kInternal, "subquery gave {} values, expected one",
                         result.values.size());
      }
      return internal::MakeLiteral(std::move(result.values[0]));
    }
    DELTA_ASSIGN_OR_RETURN(BoundExprRef subject, Bind(*e.children[0]));
    if (result.values.empty()) {
      // x IN (no rows) is false, also for a NULL x.
      return internal::MakeLiteral(LiteralValue{DataType::Boolean(), e.negated});
    }
    std::vector<BoundExprRef> args{std::move(subject)};
    for (auto& v : result.values) args.push_back(internal::MakeLiteral(std::move(v)));
    return BindInArgs(std::move(args), e.negated);
  }

  Result<BoundExprRef> BindInArgs(std::vector<BoundExprRef> args, bool negated) {
    BoundExprRef result;
    if (args.size() == 2) {
      // x IN (y) is x = y (MERGE uses it as a join key).
      DELTA_ASSIGN_OR_RETURN(result, Compare(BoundFn::kEq, "IN", args[0], args[1]));
    } else {
      // One common type for the subject and every value, as Spark's In coercion; the
      // evaluator looks the subject up in the set of values.
      DELTA_ASSIGN_OR_RETURN(DataTypeRef common, Unify(&args, "comparison 'IN'"));
      if (common->kind() == TypeKind::kVoid) {
        common = DataType::Boolean();
        for (auto& a : args) a = internal::NullOf(common);
      }
      if (common->is_nested() || common->kind() == TypeKind::kVariant) {
        return MakeError(ErrorCode::kSchemaMismatch,
                         "comparison 'IN': cannot compare values of type {}",
                         TypeToSql(*common));
      }
      result = MakeCall(BoundFn::kIn, DataType::Boolean(), std::move(args), "IN");
    }
    if (negated) return Logic(BoundFn::kNot, "NOT", {result});
    return result;
  }

  Result<BoundExprRef> Arithmetic(ExprOp op, BoundExprRef l, BoundExprRef r) {
    const char* sym = ExprOpSymbol(op);
    // date +/- days
    if ((op == ExprOp::kAdd || op == ExprOp::kSubtract) &&
        l->type->kind() == TypeKind::kDate && r->type->is_integral()) {
      return internal::BindFunction(
          *Expr::Function(op == ExprOp::kAdd ? "date_add" : "date_sub", {}), {l, r});
    }
    // A string literal next to a number takes the number's side (Spark casts it).
    if (l->type->is_numeric() && r->kind == BoundKind::kLiteral &&
        r->type->kind() == TypeKind::kString) {
      DELTA_ASSIGN_OR_RETURN(r, CastTo(r, l->type));
    }
    if (r->type->is_numeric() && l->kind == BoundKind::kLiteral &&
        l->type->kind() == TypeKind::kString) {
      DELTA_ASSIGN_OR_RETURN(l, CastTo(l, r->type));
    }
    if (l->type->kind() == TypeKind::kVoid) l = internal::NullOf(r->type);
    if (r->type->kind() == TypeKind::kVoid) r = internal::NullOf(l->type);
    if (l->type->kind() == TypeKind::kVoid) {
      l = internal::NullOf(DataType::Integer());
      r = internal::NullOf(DataType::Integer());
    }
    if (!l->type->is_numeric() || !r->type->is_numeric()) {
      return MakeError(ErrorCode::kSchemaMismatch,
                       "operator '{}' needs numbers, got {} and {}", sym,
                       DescribeOperand(*l), DescribeOperand(*r));
    }
    DataTypeRef wide = internal::WiderNumeric(*l->type, *r->type);
    BoundFn fn = op == ExprOp::kAdd        ? BoundFn::kAdd
                 : op == ExprOp::kSubtract ? BoundFn::kSubtract
                 : op == ExprOp::kMultiply ? BoundFn::kMultiply
                 : op == ExprOp::kDivide   ? BoundFn::kDivide
                 : op == ExprOp::kModulo   ? BoundFn::kModulo
                                           : BoundFn::kIntDivide;
    if (fn == BoundFn::kIntDivide) {
      if (!l->type->is_integral() || !r->type->is_integral()) {
        return MakeError(ErrorCode::kSchemaMismatch, "DIV needs integers, got {} and {}",
                         DescribeOperand(*l), DescribeOperand(*r));
      }
      DELTA_ASSIGN_OR_RETURN(l, CastTo(l, DataType::Long()));
      DELTA_ASSIGN_OR_RETURN(r, CastTo(r, DataType::Long()));
      return MakeCall(fn, DataType::Long(), {l, r}, sym);
    }
    if (wide->kind() != TypeKind::kDecimal) {
      DataTypeRef result = fn == BoundFn::kDivide ? DataType::Double() : wide;
      DELTA_ASSIGN_OR_RETURN(l, CastTo(l, result));
      DELTA_ASSIGN_OR_RETURN(r, CastTo(r, result));
      return MakeCall(fn, result, {l, r}, sym);
    }
    // Decimal arithmetic: operands become decimals, result per Spark DecimalPrecision.
    // An integer literal becomes DECIMAL(its digits, 0) (Spark's
    // DecimalType.fromLiteral), an integer column the decimal holding its whole type.
    if (l->type->is_integral()) {
      DELTA_ASSIGN_OR_RETURN(l, CastTo(l, internal::IntegralOperandAsDecimal(*l)));
    }
    if (r->type->is_integral()) {
      DELTA_ASSIGN_OR_RETURN(r, CastTo(r, internal::IntegralOperandAsDecimal(*r)));
    }
    const auto& a = static_cast<const DecimalType&>(*l->type);
    const auto& b = static_cast<const DecimalType&>(*r->type);
    int p1 = a.precision(), s1 = a.scale(), p2 = b.precision(), s2 = b.scale();
    int p = 0, s = 0;
    switch (fn) {
      case BoundFn::kAdd:
      case BoundFn::kSubtract:
        s = std::max(s1, s2);
        p = std::max(p1 - s1, p2 - s2) + s + 1;
        break;
      case BoundFn::kMultiply:
        p = p1 + p2 + 1;
        s = s1 + s2;
        break;
      case BoundFn::kDivide:
        s = std::max(6, s1 + p2 + 1);
        p = p1 - s1 + s2 + s;
        break;
      default:  // modulo
        s = std::max(s1, s2);
        p = std::min(p1 - s1, p2 - s2) + s;
        break;
    }
    return MakeCall(fn, internal::BoundedDecimal(p, s), {l, r}, sym);
  }

  Result<BoundExprRef> BindLike(const Expr& e) {
    DELTA_ASSIGN_OR_RETURN(BoundExprRef subject, Bind(*e.children[0]));
    DELTA_ASSIGN_OR_RETURN(BoundExprRef pattern, Bind(*e.children[1]));
    const char* what = e.like_kind == LikeKind::kLike    ? "LIKE"
                       : e.like_kind == LikeKind::kILike ? "ILIKE"
                                                         : "RLIKE";
    if (subject->type->kind() == TypeKind::kVoid)
      subject = internal::NullOf(DataType::String());
    if (subject->type->kind() != TypeKind::kString) {
      return MakeError(ErrorCode::kSchemaMismatch, "{} needs a STRING operand, got {}",
                       what, DescribeOperand(*subject));
    }
    if (pattern->kind != BoundKind::kLiteral ||
        (pattern->type->kind() != TypeKind::kString && !pattern->literal.is_null())) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "{} pattern must be a string literal, got {}", what,
                       DescribeOperand(*pattern));
    }
    BoundExprRef result;
    if (pattern->literal.is_null()) {
      result = internal::NullOf(DataType::Boolean());
    } else {
      BoundFn fn = e.like_kind == LikeKind::kLike    ? BoundFn::kLike
                   : e.like_kind == LikeKind::kILike ? BoundFn::kILike
                                                     : BoundFn::kRLike;
      result = MakeCall(fn, DataType::Boolean(), {subject, pattern}, what);
    }
    if (e.negated) return Logic(BoundFn::kNot, "NOT", {result});
    return result;
  }

  Result<BoundExprRef> BindCase(const Expr& e) {
    size_t i = 0;
    BoundExprRef operand;
    if (e.has_operand) {
      DELTA_ASSIGN_OR_RETURN(operand, Bind(*e.children[i++]));
    }
    std::vector<BoundExprRef> conds, values;
    for (size_t w = 0; w < e.num_when(); ++w) {
      DELTA_ASSIGN_OR_RETURN(BoundExprRef cond, Bind(*e.children[i++]));
      if (operand) {
        DELTA_ASSIGN_OR_RETURN(cond, Compare(BoundFn::kEq, "CASE WHEN", operand, cond));
      } else {
        DELTA_ASSIGN_OR_RETURN(cond, Logic(BoundFn::kAnd, "CASE WHEN", {cond}));
        cond = cond->args[0];
      }
      DELTA_ASSIGN_OR_RETURN(BoundExprRef value, Bind(*e.children[i++]));
      conds.push_back(cond);
      values.push_back(value);
    }
    if (e.has_else) {
      DELTA_ASSIGN_OR_RETURN(BoundExprRef other, Bind(*e.children[i]));
      values.push_back(other);
    }
    DELTA_ASSIGN_OR_RETURN(DataTypeRef type, Unify(&values, "CASE branches"));
    auto c = std::make_shared<BoundExpr>();
    c->kind = BoundKind::kCase;
    c->type = type;
    c->has_else = e.has_else;
    for (size_t w = 0; w < conds.size(); ++w) {
      c->args.push_back(conds[w]);
      c->args.push_back(values[w]);
    }
    if (e.has_else) c->args.push_back(values.back());
    return BoundExprRef(c);
  }

  const StructType& schema_;
  std::vector<LambdaVar> lambda_scope_;
  int lambdas_ = 0;
  const BindOptions& options_;
  RecursionBudget budget_{kMaxExprDepth + 1};  // the whole expression is one entry
};

int BoundDepth(const BoundExpr& e) {
  std::vector<std::pair<const BoundExpr*, int>> pending{{&e, 1}};
  int max_depth = 0;
  while (!pending.empty()) {
    auto [node, depth] = pending.back();
    pending.pop_back();
    max_depth = std::max(max_depth, depth);
    for (const auto& a : node->args) pending.emplace_back(a.get(), depth + 1);
  }
  return max_depth;
}

}  // namespace

Result<BoundExprRef> Bind(const Expr& expr, const StructType& schema,
                          const BindOptions& options) {
  Binder binder(schema, options);
  DELTA_ASSIGN_OR_RETURN(BoundExprRef bound, binder.Bind(expr));
  // Folding a chain whose operands need casts at every step (comparisons of
  // comparisons, types that keep widening) nests the bound tree; the evaluator recurses
  // over it, so it gets the parser's bound too.
  int depth = BoundDepth(*bound) - 1;  // a leaf alone nests 0 levels
  if (depth > kMaxBoundExprDepth) {
    std::string text = ToSql(expr);
    if (text.size() > 80) text = text.substr(0, 77) + "...";
    return MakeError(ErrorCode::kInvalidArgument,
                     "expression '{}' nests {} levels deep after type coercion (more "
                     "than {}); cast the operands to one type or split the expression",
                     text, depth, kMaxBoundExprDepth);
  }
  return bound;
}

Result<BoundExprRef> BindPredicate(const Expr& expr, const StructType& schema,
                                   const BindOptions& options) {
  DELTA_ASSIGN_OR_RETURN(BoundExprRef bound, Bind(expr, schema, options));
  if (bound->type->kind() == TypeKind::kVoid)
    return internal::NullOf(DataType::Boolean());
  if (bound->type->kind() != TypeKind::kBoolean) {
    return MakeError(ErrorCode::kSchemaMismatch,
                     "expression '{}' must be BOOLEAN, but it is {}", ToSql(expr),
                     TypeToSql(*bound->type));
  }
  return bound;
}

}  // namespace deltaguard
