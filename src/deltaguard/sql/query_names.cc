// Spark's generated output names and structural helpers on bound expressions.

#include <string>

#include "deltaguard/expr/printer.h"
#include "deltaguard/sql/query_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::query_internal {

namespace {

const char* OpText(ExprOp op) {
  switch (op) {
    case ExprOp::kAnd:
      return "AND";
    case ExprOp::kOr:
      return "OR";
    case ExprOp::kIntDivide:
      return "div";
    default:
      return ExprOpSymbol(op);
  }
}

std::string LiteralName(const Expr& e) {
  switch (e.literal_kind) {
    case LiteralKind::kNull:
      return "NULL";
    case LiteralKind::kDate:
      return "DATE '" + e.text + "'";
    case LiteralKind::kTimestamp:
      return "TIMESTAMP '" + e.text + "'";
    case LiteralKind::kTimestampNtz:
      return "TIMESTAMP_NTZ '" + e.text + "'";
    case LiteralKind::kBinary:
      return "X'" + e.text + "'";
    default:
      return e.text;  // numbers without suffix, strings unquoted (Spark's pretty names)
  }
}

std::string Join(const std::vector<ExprRef>& children, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to; ++i) {
    if (i > from) out += ", ";
    out += SparkColumnName(*children[i]);
  }
  return out;
}

// Spark's name for `f(...) OVER (...)`: the frame is always spelled out, the default
// one when none was written (ranking functions: ROWS up to the current row).
std::string WindowName(const Expr& e) {
  const WindowSpec& w = *e.window;
  const Expr& call = *e.children[0];
  const std::string& fn = call.text;
  // Spark's pretty names: RANK(), DENSE_RANK(), PERCENT_RANK(); lag and lead with
  // their offset and default spelled out, over the one-row frame they read.
  std::string called = SparkColumnName(call);
  if (fn == "rank" || fn == "dense_rank" || fn == "percent_rank") {
    called = AsciiToUpper(fn) + "()";
  }
  std::string offset_frame;
  if ((fn == "lag" || fn == "lead") && !call.children.empty()) {
    std::string offset =
        call.children.size() > 1 ? SparkColumnName(*call.children[1]) : "1";
    std::string fallback =
        call.children.size() > 2 ? SparkColumnName(*call.children[2]) : "NULL";
    called = fn + "(" + SparkColumnName(*call.children[0]) + ", " + offset + ", " +
             fallback + ")";
    if (fn == "lag") offset = offset[0] == '-' ? offset.substr(1) : "-" + offset;
    offset_frame = "ROWS BETWEEN " + offset + " FOLLOWING AND " + offset + " FOLLOWING";
  }
  std::string out = called + " OVER (";
  std::string sep;
  if (!w.partition_by.empty()) {
    out += "PARTITION BY " + Join(w.partition_by, 0, w.partition_by.size());
    sep = " ";
  }
  for (size_t i = 0; i < w.order_by.size(); ++i) {
    out += (i == 0 ? sep + "ORDER BY " : ", ") + SparkColumnName(*w.order_by[i].expr) +
           (w.order_by[i].descending ? " DESC" : " ASC") +
           (w.order_by[i].nulls_first ? " NULLS FIRST" : " NULLS LAST");
    sep = " ";
  }
  auto bound = [](const FrameBound& b) -> std::string {
    switch (b.kind) {
      case FrameBoundKind::kUnboundedPreceding:
        return "UNBOUNDED PRECEDING";
      case FrameBoundKind::kUnboundedFollowing:
        return "UNBOUNDED FOLLOWING";
      case FrameBoundKind::kCurrentRow:
        return "CURRENT ROW";
      case FrameBoundKind::kPreceding:
        return SparkColumnName(*b.offset) + " PRECEDING";
      case FrameBoundKind::kFollowing:
        return SparkColumnName(*b.offset) + " FOLLOWING";
    }
    return "";
  };
  std::string frame;
  if (!offset_frame.empty()) {
    frame = offset_frame;
  } else if (w.has_frame) {
    frame = std::string(w.range ? "RANGE" : "ROWS") + " BETWEEN " + bound(w.start) +
            " AND " + bound(w.end);
  } else if (IsRankingWindowFunction(e.children[0]->text)) {
    frame = "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW";
  } else if (!w.order_by.empty()) {
    frame = "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW";
  } else {
    frame = "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING";
  }
  return out + sep + frame + ")";
}

// A function call as Spark names it: a few expressions have pretty names in capitals,
// and some name the arguments they default (the name shows what was computed).
std::string FunctionName(const Expr& e) {
  const auto& c = e.children;
  const std::string& f = e.text;
  std::string args = Join(c, 0, c.size());
  auto with = [&](std::string_view extra) {
    return args.empty() ? std::string(extra) : args + ", " + std::string(extra);
  };
  if (f == "[]" && c.size() == 2) {
    return SparkColumnName(*c[0]) + "[" + SparkColumnName(*c[1]) + "]";
  }
  if (f == "." && c.size() == 2) return SparkColumnName(*c[0]) + "." + c[1]->text;
  if (f == "struct" && !e.path.empty()) {
    std::string named;
    for (size_t i = 0; i < c.size(); ++i) {
      if (i > 0) named += ", ";
      named += SparkColumnName(*c[i]);
      if (!e.path[i].empty()) named += " AS " + e.path[i];
    }
    return "struct(" + named + ")";
  }
  if (f == "log" && c.size() == 1) return "LOG(E(), " + args + ")";
  if (f == "floor" || f == "ceil" || f == "signum" || f == "power" || f == "log") {
    return AsciiToUpper(f) + "(" + args + ")";
  }
  if ((f == "locate" || f == "position") && c.size() == 2) args = with("1");
  if (f == "regexp_replace" && c.size() == 3) args = with("1");
  if (f == "regexp_extract" && c.size() == 2) args = with("1");
  if ((f == "percentile_approx" || f == "approx_percentile") && c.size() == 2) {
    args = with("10000");
  }
  if (f == "percentile" && c.size() == 2) args = with("1");
  if (f == "split" && c.size() == 2) args = with("-1");
  if ((f == "lpad" || f == "rpad") && c.size() == 2) args = with(" ");
  if (f == "replace" && c.size() == 2) args = with("");
  if (f == "months_between" && c.size() == 2) args = with("true");
  if ((f == "unix_timestamp" || f == "to_unix_timestamp" || f == "from_unixtime") &&
      c.size() == 1) {
    args = with("yyyy-MM-dd HH:mm:ss");
  }
  return f + "(" + args + ")";
}

}  // namespace

// Spark names an unaliased column after `toPrettySQL(expr)`: binary operators in
// parentheses, literals by value, columns by name, functions as name(args).
std::string SparkColumnName(const Expr& e) {
  const auto& c = e.children;
  switch (e.kind) {
    case ExprKind::kLiteral:
      return LiteralName(e);
    case ExprKind::kColumn: {
      std::string out;
      for (size_t i = 0; i < e.path.size(); ++i) {
        if (i > 0) out += '.';
        out += e.path[i];
      }
      return out;
    }
    case ExprKind::kUnary:
      return e.op == ExprOp::kNot ? "(NOT " + SparkColumnName(*c[0]) + ")"
                                  : "(- " + SparkColumnName(*c[0]) + ")";
    case ExprKind::kBinary: {
      // Spark names the nested binary nodes of the left fold: ((a + b) + c).
      bool concat = e.op == ExprOp::kConcat;
      std::string out(c.size() - 1, '(');
      if (concat) {
        out.clear();
        for (size_t i = 1; i < c.size(); ++i) out += "concat(";
      }
      out += SparkColumnName(*c[0]);
      std::string sep =
          concat ? std::string(", ") : std::string(" ") + OpText(e.op) + " ";
      for (size_t i = 1; i < c.size(); ++i) out += sep + SparkColumnName(*c[i]) + ")";
      return out;
    }
    case ExprKind::kIn: {
      std::string in =
          "(" + SparkColumnName(*c[0]) + " IN (" + Join(c, 1, c.size()) + "))";
      return e.negated ? "(NOT " + in + ")" : in;
    }
    case ExprKind::kBetween: {
      std::string b = "(" + SparkColumnName(*c[0]) + " BETWEEN " +
                      SparkColumnName(*c[1]) + " AND " + SparkColumnName(*c[2]) + ")";
      return e.negated ? "(NOT " + b + ")" : b;
    }
    case ExprKind::kLike: {
      const char* kw = e.like_kind == LikeKind::kLike    ? " LIKE "
                       : e.like_kind == LikeKind::kILike ? " ILIKE "
                                                         : " RLIKE ";
      std::string l = SparkColumnName(*c[0]) + kw + SparkColumnName(*c[1]);
      return e.negated ? "(NOT " + l + ")" : l;
    }
    case ExprKind::kIsNull:
      return "(" + SparkColumnName(*c[0]) + (e.negated ? " IS NOT NULL)" : " IS NULL)");
    case ExprKind::kIsBool:
      return "(" + SparkColumnName(*c[0]) + (e.negated ? " IS NOT " : " IS ") +
             (e.bool_value ? "true)" : "false)");
    case ExprKind::kCase: {
      std::string out = "CASE";
      size_t i = 0;
      if (e.has_operand) out += " " + SparkColumnName(*c[i++]);
      for (size_t w = 0; w < e.num_when(); ++w, i += 2) {
        out += " WHEN " + SparkColumnName(*c[i]) + " THEN " + SparkColumnName(*c[i + 1]);
      }
      if (e.has_else) out += " ELSE " + SparkColumnName(*c[i]);
      return out + " END";
    }
    case ExprKind::kCast:
      return std::string(e.try_cast ? "TRY_CAST(" : "CAST(") + SparkColumnName(*c[0]) +
             " AS " + TypeToSql(*e.cast_type) + ")";
    case ExprKind::kFunction:
      // Spark rewrites count(*) to count(1) and names it so.
      if (e.star) return e.text + "(1)";
      if (e.text == "sort_array" && c.size() == 1) {
        // Spark names the default order: sort_array(x, true).
        Expr full = e;
        full.children.push_back(Expr::Bool(true));
        return FunctionName(full);
      }
      if ((e.text == "aggregate" || e.text == "reduce") && c.size() == 3) {
        // Spark names the default finish lambda, acc -> acc.
        auto var = std::make_shared<Expr>();
        var->kind = ExprKind::kLambdaVar;
        auto finish = std::make_shared<Expr>();
        finish->kind = ExprKind::kLambda;
        finish->path = {"acc"};
        finish->children = {var};
        Expr full = e;
        full.children.push_back(finish);
        return FunctionName(full);
      }
      if (!e.distinct) return FunctionName(e);
      return e.text + "(DISTINCT " + Join(c, 0, c.size()) + ")";
    case ExprKind::kWindow:
      return WindowName(e);
    case ExprKind::kLambda: {
      // Spark prints lambda variables without their names.
      std::string out = "lambdafunction(" + SparkColumnName(*c[0]);
      for (size_t i = 0; i < e.path.size(); ++i) out += ", namedlambdavariable()";
      return out + ")";
    }
    case ExprKind::kLambdaVar:
      return "namedlambdavariable()";
    case ExprKind::kSubquery:
      // Spark names these after the plan node: scalarsubquery(), exists(), listquery().
      if (e.subquery_kind == SubqueryKind::kScalar) return "scalarsubquery()";
      if (e.subquery_kind == SubqueryKind::kExists) return "exists()";
      return std::string(e.negated ? "(NOT (" : "(") + SparkColumnName(*c[0]) +
             " IN (listquery()))" + (e.negated ? ")" : "");
  }
  return ToSql(e);
}

StructType VisibleColumns(const StructType& input, const SourcePlan& src) {
  if (src.hidden.empty()) return input;
  std::vector<StructField> fields;
  for (const auto& f : input.fields()) {
    if (!src.IsHidden(f.name)) fields.push_back(f);
  }
  return StructType(std::move(fields));
}

std::string OutputColumnName(const Expr& item, const Expr& e, const BoundExpr& b,
                             const StructType& input, const SourcePlan& src) {
  // A join's internal column name, mapped back to the name the query shows.
  auto shown = [&](const std::string& internal) {
    const int at = src.columns.empty() ? -1 : input.FieldIndex(internal);
    return at >= 0 ? src.columns[static_cast<size_t>(at)].name : internal;
  };
  if (item.kind == ExprKind::kFunction && item.star && &e != &item) {  // f(*), expanded
    std::vector<std::string> names;
    for (const auto& c : e.children) names.push_back(shown(c->path[0]));
    return fmt::format("{}({})", item.text, fmt::join(names, ", "));
  }
  const Expr* column = &e;
  const BoundExpr* bound = &b;
  if (column->kind == ExprKind::kCast) {
    column = column->children[0].get();
    if (bound->kind == BoundKind::kCast) bound = bound->args[0].get();
  }
  if (column->kind != ExprKind::kColumn || bound->kind != BoundKind::kColumn) {
    if (src.columns.empty()) return SparkColumnName(e);
    // Spark names `sum(a.id + b.id)` as `sum((id + id))`: the columns as shown.
    auto named = TransformExpr(std::make_shared<Expr>(e), [&](const Expr& node) {
      if (node.kind != ExprKind::kColumn || node.path.empty()) return ExprRef();
      auto copy = std::make_shared<Expr>(node);
      copy->path[0] = shown(node.path[0]);
      return ExprRef(copy);
    });
    return SparkColumnName(*named);
  }
  return bound->path.size() == 1 ? shown(bound->path[0]) : bound->path.back();
}

bool SameBound(const BoundExpr& a, const BoundExpr& b) {
  if (a.kind != b.kind || a.fn != b.fn || a.try_cast != b.try_cast ||
      a.has_else != b.has_else || a.star != b.star || a.distinct != b.distinct ||
      a.name != b.name || a.args.size() != b.args.size() ||
      a.path.size() != b.path.size()) {
    return false;
  }
  if ((a.type == nullptr) != (b.type == nullptr)) return false;
  if (a.type != nullptr && !a.type->Equals(*b.type)) return false;
  for (size_t i = 0; i < a.path.size(); ++i) {
    if (!EqualsIgnoreCase(a.path[i], b.path[i])) return false;
  }
  if (a.kind == BoundKind::kLiteral) {
    if (a.literal.value != b.literal.value) return false;
  }
  for (size_t i = 0; i < a.args.size(); ++i) {
    if (!SameBound(*a.args[i], *b.args[i])) return false;
  }
  return true;
}

BoundExprRef BoundColumn(std::string name, DataTypeRef type, bool nullable) {
  auto col = std::make_shared<BoundExpr>();
  col->kind = BoundKind::kColumn;
  col->type = std::move(type);
  col->nullable = nullable;
  col->path = {std::move(name)};
  return col;
}

// Rewrite an expression bound against the input into one over the aggregate stage's
// output: group keys become `_gN`, aggregate calls `_aN`; any other column is Spark's
// MISSING_AGGREGATION.
Result<BoundExprRef> OverGroups(const BoundExprRef& e,
                                const std::vector<BoundExprRef>& keys,
                                std::vector<BoundExprRef>* aggregates) {
  for (size_t i = 0; i < keys.size(); ++i) {
    if (SameBound(*e, *keys[i])) {
      return BoundColumn(GroupColumnName(i), keys[i]->type, keys[i]->nullable);
    }
  }
  if (e->kind == BoundKind::kCall && e->fn == BoundFn::kAggregate) {
    for (const auto& arg : e->args) {
      if (ContainsAggregate(*arg)) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "{}() has an aggregate function in its argument; aggregates "
                         "cannot be nested",
                         e->name);
      }
    }
    size_t j = 0;
    while (j < aggregates->size() && !SameBound(*e, *(*aggregates)[j])) ++j;
    if (j == aggregates->size()) aggregates->push_back(e);
    // count() is never NULL, also without rows.
    return BoundColumn(AggregateColumnName(j), e->type,
                       e->nullable && e->name != "count");
  }
  if (e->kind == BoundKind::kColumn &&
      (IsWindowColumnName(e->path[0]) || IsLambdaColumn(e->path[0]))) {
    return e;
  }
  if (e->kind == BoundKind::kColumn) {
    std::string name = fmt::format("{}", fmt::join(e->path, "."));
    return MakeError(
        ErrorCode::kInvalidArgument,
        "column '{}' is neither in GROUP BY nor inside an aggregate function "
        "(MISSING_AGGREGATION); add '{}' to GROUP BY or aggregate it, e.g. "
        "max({})",
        name, name, name);
  }
  if (e->args.empty()) return e;
  auto copy = std::make_shared<BoundExpr>(*e);
  for (auto& arg : copy->args) {
    DELTA_ASSIGN_OR_RETURN(arg, OverGroups(arg, keys, aggregates));
  }
  return BoundExprRef(copy);
}

}  // namespace deltaguard::query_internal
