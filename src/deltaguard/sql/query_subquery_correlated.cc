// Correlated EXISTS and IN outside WHERE's conjuncts (docs/sql.md "Subqueries"): under
// OR, in the select list, in HAVING and in UPDATE/DELETE, where no semi join can stand
// for them (query_subquery.cc joins the conjuncts). Each becomes what the engine runs:
// an uncorrelated IN (an EXISTS of one equality) or correlated scalar counts
// (query_subquery_scalar.cc).

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/sql/query_internal.h"
#include "deltaguard/sql/query_subquery_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::query_internal {

namespace {

// `EXISTS (SELECT ... FROM s WHERE s.k = o.k AND own)` as the equivalent uncorrelated
// `coalesce(o.k IN (SELECT s.k FROM s WHERE own AND s.k IS NOT NULL), false)`: TRUE
// when a row matches, FALSE otherwise, also for a NULL o.k (EXISTS is never NULL).
// nullptr when the EXISTS is not of that shape (one equality correlation, a plain
// subquery).
// Any other correlation (several conditions, or not an equality): EXISTS is
// `(SELECT count(*) ...) > 0`, a correlated scalar subquery (query_subquery_scalar.cc)
// whose value for an outer row without subquery rows is 0, so the result is TRUE or
// FALSE, never NULL, as EXISTS. Named exists(<outer columns>) as Spark.
ExprRef ExistsAsCount(const Expr& node, const SelectStmt& sub,
                      const std::vector<ExprRef>& correlated, const SourcePlan& inner,
                      std::string* name) {
  auto counted = std::make_shared<SelectStmt>(sub);
  counted->items.clear();
  counted->order_by.clear();
  auto count = std::make_shared<Expr>(*Expr::Function("count", {}, node.position));
  count->star = true;
  SelectItem item;
  item.expr = count;
  counted->items.push_back(std::move(item));
  ExprRef value =
      SubqueryExpr(counted, node.subquery->text(), SubqueryKind::kScalar, node.position);
  std::vector<std::string> outer;
  for (const auto& c : correlated) {
    TransformExpr(c, [&](const Expr& e) -> ExprRef {
      if (e.kind == ExprKind::kColumn && !IsInnerRef(e.path, inner)) {
        CollectColumnNames(e, &outer);
      }
      return nullptr;
    });
  }
  *name = fmt::format("exists({})", fmt::join(outer, ", "));
  return Expr::Binary(ExprOp::kGt, value, Expr::Int(0), node.position);
}

Result<ExprRef> ExistsAsIn(const Expr& node, const QueryContext& context, int depth,
                           std::string* name) {
  const SelectStmt& sub = QueryOf(node);
  if (!sub.with.empty() || sub.set_op || !sub.group_by.empty() || sub.having != nullptr ||
      sub.qualify != nullptr || sub.limit.has_value() || sub.distinct ||
      sub.from.kind == FromClause::Kind::kNone) {
    return ExprRef();
  }
  DELTA_ASSIGN_OR_RETURN(SourcePlan inner,
                         PlanFrom(sub.from, context, nullptr, depth + 1));
  std::vector<ExprRef> parts, own, correlated;
  SplitConjuncts(sub.where, &parts);
  for (auto& p : parts) (ReferencesOuter(*p, inner) ? correlated : own).push_back(p);
  if (correlated.empty()) return ExprRef();
  for (const auto& c : correlated) {
    if (HasAggregateCall(*c)) return ExprRef();
  }
  const int side = correlated.size() == 1 ? InnerSide(*correlated[0], inner) : -1;
  if (side < 0) return ExistsAsCount(node, sub, correlated, inner, name);
  const Expr& c = *correlated[0];
  own.push_back(IsNullExpr(c.children[side], /*negated=*/true));
  auto values = std::make_shared<SelectStmt>(sub);
  values->where = AndOf(own);
  values->items.clear();
  values->order_by.clear();
  SelectItem item;
  item.expr = c.children[side];
  values->items.push_back(std::move(item));
  ExprRef in = SubqueryExpr(values, node.subquery->text(), SubqueryKind::kIn,
                            node.position, c.children[1 - side]);
  // Spark names it after its outer references: exists(<outer columns>).
  std::vector<std::string> outer;
  CollectColumnNames(*c.children[1 - side], &outer);
  *name = fmt::format("exists({})", fmt::join(outer, ", "));
  return Expr::Function("coalesce", {in, Expr::Bool(false)}, node.position);
}

// `x [NOT] IN (SELECT y FROM s WHERE own AND corr)` correlated, outside WHERE's
// conjuncts: SQL's three-valued IN (docs/behaviour.md) from two correlated scalar
// subqueries over the subquery's rows for the outer row (query_subquery_scalar.cc):
//   m  = (SELECT count(*) ... WHERE own AND corr AND y = x)
//   st = (SELECT if(count(*) = 0, 0, if(count(*) > count(y), 2, 1)) ... WHERE own AND
//   corr)
// TRUE when m > 0; else FALSE when there are no rows (st = 0, also for a NULL x);
// else NULL when x or some y is NULL (st = 2); else FALSE. NOT IN is its NOT.
// nullptr when the IN is not of that shape (uncorrelated, LIMIT, GROUP BY, an
// aggregate or an outer column in the select list).
// `x` to stand inside the subquery: an outer column whose bare name the subquery's
// FROM also has (the inner scope would win) is qualified by its outer relation.
// `outer_from` is the outer query's FROM (null: none known, as in UPDATE/DELETE).
Result<ExprRef> QualifyOuter(const ExprRef& x, const SourcePlan& inner,
                             const FromClause* outer_from, const QueryContext& context,
                             int depth, const std::string& text) {
  std::optional<std::vector<ColumnSource>> outer;
  Status failed = OkStatus();
  ExprRef out = TransformExpr(x, [&](const Expr& e) -> ExprRef {
    if (!failed || e.kind != ExprKind::kColumn || !IsInnerRef(e.path, inner)) {
      return nullptr;
    }
    if (!outer && outer_from != nullptr && e.path.size() == 1) {
      auto plan = PlanFrom(*outer_from, context, nullptr, depth);
      if (!plan) {
        failed = plan.error();
        return nullptr;
      }
      outer = ColumnsOf(*plan);
    }
    std::vector<const ColumnSource*> fits;
    for (size_t i = 0; outer && i < outer->size(); ++i) {
      const ColumnSource& c = (*outer)[i];
      if (c.unqualified && !c.qualifiers.empty() && EqualsIgnoreCase(c.name, e.path[0])) {
        fits.push_back(&c);
      }
    }
    if (e.path.size() == 1 && fits.size() == 1) {
      std::vector<std::string> path;
      for (const auto& part : Split(fits[0]->qualifiers[0], '.')) path.emplace_back(part);
      path.push_back(e.path[0]);
      if (!IsInnerRef(path, inner)) return Expr::Column(std::move(path), e.position);
    }
    failed = MakeError(ErrorCode::kUnsupportedFeature,
                       "the column {} of a correlated IN's value is also a column of "
                       "its subquery, which would hide it there; qualify it by an alias "
                       "of its relation that the subquery does not use: ({})",
                       SparkColumnName(e), text);
    return nullptr;
  });
  if (!failed) return failed.error();
  return out;
}

Result<ExprRef> InAsCounts(const Expr& node, const QueryContext& context, int depth,
                           const FromClause* outer_from, std::string* name) {
  const SelectStmt& sub = QueryOf(node);
  if (node.children.size() != 1 || !sub.with.empty() || sub.set_op ||
      !sub.group_by.empty() || sub.having != nullptr || sub.qualify != nullptr ||
      sub.limit.has_value() || sub.from.kind == FromClause::Kind::kNone ||
      sub.items.size() != 1 || sub.items[0].star ||
      HasAggregateCall(*sub.items[0].expr)) {
    return ExprRef();
  }
  DELTA_ASSIGN_OR_RETURN(SourcePlan inner,
                         PlanFrom(sub.from, context, nullptr, depth + 1));
  std::vector<ExprRef> parts;
  SplitConjuncts(sub.where, &parts);
  bool correlated = false;
  std::vector<std::string> outer;
  for (const auto& p : parts) {
    if (!ReferencesOuter(*p, inner)) continue;
    if (HasAggregateCall(*p)) return ExprRef();
    correlated = true;
    TransformExpr(p, [&](const Expr& e) -> ExprRef {
      if (e.kind == ExprKind::kColumn && !IsInnerRef(e.path, inner)) {
        CollectColumnNames(e, &outer);
      }
      return nullptr;
    });
  }
  if (!correlated || ReferencesOuter(*sub.items[0].expr, inner)) return ExprRef();
  const ExprRef& x = node.children[0];
  const ExprRef& y = sub.items[0].expr;
  DELTA_ASSIGN_OR_RETURN(ExprRef x_inside, QualifyOuter(x, inner, outer_from, context,
                                                        depth, node.subquery->text()));
  const int32_t at = node.position;
  if (HasAggregateCall(*x)) {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "a correlated IN subquery tested against an aggregate ({} IN "
                     "(SELECT ...)) is not supported yet; aggregate in a subquery in "
                     "FROM and test its column in WHERE: ({})",
                     SparkColumnName(*x), node.subquery->text());
  }
  auto counting = [&](std::vector<ExprRef> where, ExprRef value) {
    auto q = std::make_shared<SelectStmt>(sub);
    q->distinct = false;  // IN reads the values, not how often they occur
    q->order_by.clear();
    q->where = AndOf(where);
    q->items.clear();
    SelectItem item;
    item.expr = std::move(value);
    q->items.push_back(std::move(item));
    return SubqueryExpr(q, node.subquery->text(), SubqueryKind::kScalar, at);
  };
  auto count_star = [&] {
    auto c = std::make_shared<Expr>(*Expr::Function("count", {}, at));
    c->star = true;
    return ExprRef(c);
  };
  std::vector<ExprRef> with_match = parts;
  with_match.push_back(Expr::Binary(ExprOp::kEq, y, x_inside, at));
  ExprRef m = counting(with_match, count_star());
  ExprRef status = Expr::Function(
      "if", {Expr::Binary(ExprOp::kEq, count_star(), Expr::Int(0)), Expr::Int(0),
             Expr::Function("if", {Expr::Binary(ExprOp::kGt, count_star(),
                                                Expr::Function("count", {y})),
                                   Expr::Int(2), Expr::Int(1)})});
  ExprRef st = counting(parts, status);
  ExprRef unknown =
      Expr::Function("if", {Expr::Binary(ExprOp::kOr, IsNullExpr(x),
                                         Expr::Binary(ExprOp::kEq, st, Expr::Int(2))),
                            Expr::Null(), Expr::Bool(false)});
  ExprRef in =
      Expr::Function("if",
                     {Expr::Binary(ExprOp::kGt, m, Expr::Int(0)), Expr::Bool(true),
                      Expr::Function("if", {Expr::Binary(ExprOp::kEq, st, Expr::Int(0)),
                                            Expr::Bool(false), unknown})},
                     at);
  // Spark's name: the outer columns the subquery reads, as listquery's arguments.
  *name =
      fmt::format("({} IN (listquery({})))", SparkColumnName(*x), fmt::join(outer, ", "));
  if (node.negated) *name = fmt::format("(NOT {})", *name);
  return node.negated ? Expr::Unary(ExprOp::kNot, in, at) : in;
}

}  // namespace

Result<ExprRef> RewriteCorrelatedConditions(const ExprRef& e, const QueryContext& context,
                                            int depth,
                                            std::map<const Expr*, std::string>* shown,
                                            const FromClause* outer_from) {
  Status failed = OkStatus();
  ExprRef out = TransformExpr(e, [&](const Expr& node) -> ExprRef {
    if (!failed || node.kind != ExprKind::kSubquery) return nullptr;
    if (node.subquery_kind == SubqueryKind::kIn) {
      std::string name;
      auto rewritten = InAsCounts(node, context, depth, outer_from, &name);
      if (!rewritten) {
        failed = rewritten.error();
        return nullptr;
      }
      if (*rewritten != nullptr && shown != nullptr) (*shown)[&node] = name;
      return *rewritten;  // nullptr: left as it is
    }
    if (node.subquery_kind != SubqueryKind::kExists) return nullptr;
    std::string name;
    auto rewritten = ExistsAsIn(node, context, depth, &name);
    if (!rewritten) {
      failed = rewritten.error();
      return nullptr;
    }
    if (*rewritten != nullptr && shown != nullptr) (*shown)[&node] = name;
    return *rewritten;  // nullptr: left as it is
  });
  if (!failed) return failed.error();
  return out;
}

Result<std::optional<SelectStmt>> CorrelatedConditionSubqueries(
    const SelectStmt& query, const QueryContext& context, int depth) {
  if (query.from.kind == FromClause::Kind::kNone) return std::optional<SelectStmt>();
  SelectStmt out = query;
  bool changed = false;
  std::map<const Expr*, std::string> shown;
  auto apply = [&](ExprRef* e) -> Status {
    if (!HasSubquery(*e)) return OkStatus();
    DELTA_ASSIGN_OR_RETURN(
        ExprRef r, RewriteCorrelatedConditions(*e, context, depth, &shown, &query.from));
    changed = changed || r != *e;
    *e = r;
    return OkStatus();
  };
  DELTA_RETURN_IF_ERROR(apply(&out.where));
  DELTA_RETURN_IF_ERROR(apply(&out.having));
  for (auto& item : out.items) {
    if (item.star) continue;
    const ExprRef before = item.expr;
    DELTA_RETURN_IF_ERROR(apply(&item.expr));
    if (item.expr == before || !item.alias.empty()) continue;
    // The item keeps the name Spark gives it, each EXISTS shown by its name.
    auto display = TransformExpr(before, [&](const Expr& node) -> ExprRef {
      auto it = shown.find(&node);
      return it == shown.end() ? nullptr : Expr::Column({it->second});
    });
    item.alias =
        display->kind == ExprKind::kColumn ? display->path[0] : SparkColumnName(*display);
  }
  if (!changed) return std::optional<SelectStmt>();
  return std::optional<SelectStmt>(std::move(out));
}

}  // namespace deltaguard::query_internal
