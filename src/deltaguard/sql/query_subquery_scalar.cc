// Correlated scalar subqueries (docs/sql.md "Subqueries"): see query_subquery.cc.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <utility>

#include "deltaguard/sql/query_internal.h"
#include "deltaguard/sql/query_subquery_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::query_internal {

namespace {

// Aggregates whose value over no rows is not NULL.
bool HasEmptyValue(const std::string& name) {
  static const char* const kNames[] = {
      "count",        "count_if",    "approx_count_distinct",
      "collect_list", "collect_set", "array_agg"};
  for (const char* n : kNames) {
    if (name == n) return true;
  }
  return false;
}

// One correlated scalar subquery turned into a LEFT JOIN of `from` with the subquery
// grouped by its correlated keys (as `alias`); `*value` is what the subquery stands for,
// `*outer_exprs` the outer expressions it reads. `domain_from` is the outer query's own
// FROM. nullopt when the subquery is not correlated (it runs once for the binder).
Result<std::optional<FromClause>> ScalarJoin(
    const FromClause& from, const FromClause& domain_from, const Expr& node,
    const std::string& alias, const QueryContext& context, int depth, ExprRef* value,
    std::vector<std::string>* outer_names, std::vector<ExprRef>* outer_exprs) {
  const SelectStmt& sub = QueryOf(node);
  if (!sub.with.empty() || sub.set_op) return std::optional<FromClause>();
  DELTA_ASSIGN_OR_RETURN(SourcePlan inner,
                         PlanFrom(sub.from, context, nullptr, depth + 1));
  std::vector<ExprRef> parts, own, correlated;
  SplitConjuncts(sub.where, &parts);
  for (auto& p : parts) (ReferencesOuter(*p, inner) ? correlated : own).push_back(p);
  if (correlated.empty()) return std::optional<FromClause>();
  const std::string text = "(" + node.subquery->text() + ")";
  if (sub.items.size() != 1 || sub.items[0].star || !sub.group_by.empty() ||
      sub.having != nullptr || sub.qualify != nullptr || sub.distinct ||
      !HasAggregateCall(*sub.items[0].expr) ||
      ReferencesOuter(*sub.items[0].expr, inner)) {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "a correlated scalar subquery must be one aggregate over its own "
                     "columns, without GROUP BY, HAVING or DISTINCT "
                     "(UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY."
                     "MUST_AGGREGATE_CORRELATED_SCALAR_SUBQUERY): {}",
                     text);
  }
  auto derived = std::make_shared<SelectStmt>(sub);
  derived->where = AndOf(own);
  derived->items.clear();
  derived->order_by.clear();
  derived->limit.reset();
  std::vector<ExprRef> on;
  bool equalities = true;
  for (const auto& c : correlated) {
    if (HasAggregateCall(*c)) {
      return MakeError(ErrorCode::kUnsupportedFeature,
                       "a correlated scalar subquery's condition {} aggregates: {}",
                       SparkColumnName(*c), text);
    }
    equalities = equalities && InnerSide(*c, inner) >= 0;
  }
  if (equalities) {
    // Each correlated conjunct is `inner = outer` (either way round): the inner side
    // is a grouping key of the subquery, the equality the join's condition.
    for (const auto& c : correlated) {
      const int inner_side = InnerSide(*c, inner);
      CollectColumnNames(*c->children[1 - inner_side], outer_names);
      outer_exprs->push_back(c->children[1 - inner_side]);
      SelectItem key;
      key.expr = c->children[inner_side];
      key.alias = "__k" + std::to_string(derived->items.size());
      derived->group_by.push_back(key.expr);
      on.push_back(Expr::Binary(ExprOp::kEq, c->children[1 - inner_side],
                                Expr::Column({alias, key.alias})));
      derived->items.push_back(std::move(key));
    }
  } else {
    // Other correlations (`i.v > o.v`): the subquery is computed for each distinct
    // combination of the outer columns it reads (their domain, read from the outer
    // FROM), joined to its rows by the correlated conditions and grouped by those
    // columns; the outer rows then join their combination by equality. An outer
    // NULL matches no row on either path, so its value is the empty aggregate's.
    auto domain = std::make_shared<SelectStmt>();
    domain->distinct = true;
    domain->from = domain_from;
    const std::string d = alias + "_d";
    std::vector<ExprRef> conditions;
    for (const auto& c : correlated) {
      conditions.push_back(TransformExpr(c, [&](const Expr& n) -> ExprRef {
        if (n.kind != ExprKind::kColumn || IsInnerRef(n.path, inner)) return nullptr;
        size_t k = 0;
        while (k < outer_exprs->size() && !(*(*outer_exprs)[k] == n)) ++k;
        if (k == outer_exprs->size()) {
          outer_exprs->push_back(std::make_shared<Expr>(n));
          CollectColumnNames(n, outer_names);
          SelectItem item;
          item.expr = outer_exprs->back();
          item.alias = "__o" + std::to_string(k);
          domain->items.push_back(item);
          SelectItem key;
          key.expr = Expr::Column({d, item.alias});
          key.alias = "__k" + std::to_string(k);
          derived->group_by.push_back(key.expr);
          derived->items.push_back(key);
          on.push_back(Expr::Binary(ExprOp::kEq, outer_exprs->back(),
                                    Expr::Column({alias, key.alias})));
        }
        return Expr::Column({d, "__o" + std::to_string(k)}, n.position);
      }));
    }
    auto join = std::make_shared<JoinClause>();
    join->type = JoinClause::Type::kInner;
    join->left.kind = FromClause::Kind::kSubquery;
    join->left.alias = d;
    join->left.subquery = domain;
    join->right = sub.from;
    join->on = AndOf(conditions);
    join->position = node.position;
    derived->from = FromClause{};
    derived->from.kind = FromClause::Kind::kJoin;
    derived->from.join = std::move(join);
    derived->from.position = node.position;
  }
  SelectItem v;
  v.expr = sub.items[0].expr;
  v.alias = "__v";
  derived->items.push_back(std::move(v));
  // An outer row without subquery rows (no match in the LEFT JOIN: its key is NULL)
  // gets the subquery's value over no rows, as Spark evaluates the aggregate over an
  // empty group: 0 for a count, an empty array for collect_list, `coalesce(sum(x), 0)`
  // 0, most aggregates NULL. Unless it is a count or NULL, it is computed once, by the
  // subquery with WHERE false (which reads no row).
  ExprRef result = Expr::Column({alias, "__v"});
  const Expr& agg = *sub.items[0].expr;
  const bool bare = agg.kind == ExprKind::kFunction && IsAggregateName(agg.text);
  if (bare && (agg.text == "count" || agg.text == "count_if" ||
               agg.text == "approx_count_distinct")) {
    result = Expr::Function("coalesce", {result, Expr::Int(0)});
  } else if (!bare || HasEmptyValue(agg.text)) {
    auto empty = std::make_shared<SelectStmt>();
    empty->from = sub.from;
    empty->where = Expr::Bool(false);
    empty->items = {sub.items[0]};
    ExprRef empty_value =
        SubqueryExpr(empty, node.subquery->text(), SubqueryKind::kScalar, node.position);
    result = Expr::Function(
        "if", {IsNullExpr(Expr::Column({alias, "__k0"})), empty_value, result});
  }
  *value = result;
  auto join = std::make_shared<JoinClause>();
  join->type = JoinClause::Type::kLeft;
  join->left = from;
  join->position = node.position;
  join->right.kind = FromClause::Kind::kSubquery;
  join->right.alias = alias;
  join->right.subquery = derived;
  join->on = AndOf(on);
  FromClause out;
  out.kind = FromClause::Kind::kJoin;
  out.join = std::move(join);
  out.position = node.position;
  return std::optional<FromClause>(std::move(out));
}

// An aggregate call outside window functions: the query groups its rows.
bool HasGroupAggregate(const Expr& e) {
  if (e.kind == ExprKind::kWindow) return false;
  if (e.kind == ExprKind::kFunction && IsAggregateName(e.text)) return true;
  for (const auto& c : e.children) {
    if (HasGroupAggregate(*c)) return true;
  }
  return false;
}

// The GROUP BY keys as expressions: an ordinal or a select item's alias stands for
// the item's expression.
std::vector<ExprRef> GroupingExprs(const SelectStmt& q) {
  std::vector<ExprRef> keys;
  for (const auto& g : q.group_by) {
    ExprRef key = g;
    if (g->kind == ExprKind::kLiteral && g->literal_kind == LiteralKind::kInteger) {
      const int64_t n = std::strtoll(g->text.c_str(), nullptr, 10);
      if (n >= 1 && n <= static_cast<int64_t>(q.items.size()) && !q.items[n - 1].star) {
        key = q.items[n - 1].expr;
      }
    } else if (g->kind == ExprKind::kColumn && g->path.size() == 1) {
      for (const auto& item : q.items) {
        if (!item.star && EqualsIgnoreCase(item.alias, g->path[0])) key = item.expr;
      }
    }
    keys.push_back(key);
  }
  return keys;
}

// Two column references that may name the same column: equal ignoring case, one
// path a suffix of the other (`a` and `t.a`).
bool SameColumn(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const auto& shorter = a.size() <= b.size() ? a : b;
  const auto& longer = a.size() <= b.size() ? b : a;
  for (size_t i = 0; i < shorter.size(); ++i) {
    if (!EqualsIgnoreCase(shorter[shorter.size() - 1 - i], longer[longer.size() - 1 - i]))
      return false;
  }
  return !shorter.empty();
}

// Whether `e` reads only GROUP BY columns (Spark's rule for the outer references of
// a correlated subquery after the grouping: each must be a grouping column).
bool IsGrouped(const Expr& e, const std::vector<ExprRef>& keys) {
  if (e.kind == ExprKind::kColumn) {
    for (const auto& k : keys) {
      if (k->kind == ExprKind::kColumn && SameColumn(e.path, k->path)) return true;
    }
    return false;
  }
  for (const auto& c : e.children) {
    if (!IsGrouped(*c, keys)) return false;
  }
  return true;
}

// Whether GROUP BY names select item `index` (by position or by its alias).
bool IsGroupByItem(const SelectStmt& q, size_t index) {
  for (const auto& g : q.group_by) {
    if (g->kind == ExprKind::kLiteral && g->literal_kind == LiteralKind::kInteger &&
        std::strtoll(g->text.c_str(), nullptr, 10) == static_cast<int64_t>(index) + 1) {
      return true;
    }
    if (g->kind == ExprKind::kColumn && g->path.size() == 1 &&
        !q.items[index].alias.empty() &&
        EqualsIgnoreCase(q.items[index].alias, g->path[0])) {
      return true;
    }
  }
  return false;
}

}  // namespace

Result<std::optional<SelectStmt>> JoinScalarSubqueries(const SelectStmt& query,
                                                       const QueryContext& context,
                                                       int depth) {
  if (query.from.kind == FromClause::Kind::kNone) return std::optional<SelectStmt>();
  bool any = HasSubquery(query.where) || HasSubquery(query.having);
  bool aggregated = !query.group_by.empty() || query.having != nullptr;
  for (const auto& item : query.items) {
    if (item.star) continue;
    any = any || HasSubquery(item.expr);
    aggregated = aggregated || HasGroupAggregate(*item.expr);
  }
  if (!any) return std::optional<SelectStmt>();
  SelectStmt out = query;
  const std::vector<ExprRef> keys = GroupingExprs(query);
  int joined = 0;
  Status failed = OkStatus();
  std::vector<std::string> outer_names;  // of the subquery being rewritten
  // Spark's name of each rewritten subquery: scalarsubquery(<outer references>).
  std::map<const Expr*, std::string> shown;
  // Scalar subqueries (not those under EXISTS/IN, which are conditions) in an
  // expression, each replaced by its joined value when it is correlated. The join
  // gives every input row its value, which is what WHERE and an aggregate's or a
  // window's arguments read (kRow). Outside aggregates in an aggregate query, as
  // Spark: in HAVING (kHaving) the subquery may read only GROUP BY columns of the
  // outer row, so its value is the same for every row of a group and becomes one more
  // grouping key, splitting none; in the select list (kItem) it must be a GROUP BY
  // item itself (`GROUP BY 2`, or its alias).
  enum class Mode { kRow, kHaving, kItem, kGroupedItem };
  std::function<ExprRef(const ExprRef&, Mode)> rewrite = [&](const ExprRef& e,
                                                             Mode mode) {
    return TransformExpr(e, [&](const Expr& node) -> ExprRef {
      if (!failed) return nullptr;
      if (mode != Mode::kRow && HasSubquery(node) &&
          (node.kind == ExprKind::kWindow ||
           (node.kind == ExprKind::kFunction && IsAggregateName(node.text)))) {
        auto copy = std::make_shared<Expr>(node);
        for (auto& c : copy->children) c = rewrite(c, Mode::kRow);
        return copy;
      }
      if (node.kind != ExprKind::kSubquery) return nullptr;
      if (node.subquery_kind != SubqueryKind::kScalar)
        return std::make_shared<Expr>(node);
      const std::string alias =
          "__ssq" + std::to_string(depth) + "_" + std::to_string(joined);
      ExprRef value;
      std::vector<ExprRef> outer;
      auto join = ScalarJoin(out.from, query.from, node, alias, context, depth, &value,
                             &outer_names, &outer);
      if (!join) {
        failed = join.error();
        return nullptr;
      }
      if (!*join) return std::make_shared<Expr>(node);  // uncorrelated: runs once
      const std::string name =
          fmt::format("scalarsubquery({})", fmt::join(outer_names, ", "));
      outer_names.clear();
      if (mode == Mode::kItem) {
        failed =
            MakeError(ErrorCode::kInvalidArgument,
                      "the correlated scalar subquery \"{}\" is neither present in "
                      "GROUP BY, nor in an aggregate function: add it to GROUP BY by "
                      "its position or wrap it in first() "
                      "(SCALAR_SUBQUERY_IS_IN_GROUP_BY_OR_AGGREGATE_FUNCTION): ({})",
                      name, node.subquery->text());
        return nullptr;
      }
      if (mode == Mode::kHaving) {
        for (const auto& o : outer) {
          if (IsGrouped(*o, keys)) continue;
          failed = MakeError(
              ErrorCode::kInvalidArgument,
              "a correlated scalar subquery in HAVING refers to {}, which is not a "
              "GROUP BY column; correlate it through one or move it into WHERE: ({})",
              SparkColumnName(*o), node.subquery->text());
          return nullptr;
        }
        out.group_by.push_back(Expr::Column({alias, "__v"}));
      }
      shown[&node] = name;
      out.from = std::move(**join);
      ++joined;
      return value;
    });
  };
  for (size_t index = 0; index < out.items.size(); ++index) {
    auto& item = out.items[index];
    if (item.star || !HasSubquery(item.expr)) continue;
    Mode mode = Mode::kRow;
    if (aggregated) mode = IsGroupByItem(query, index) ? Mode::kGroupedItem : Mode::kItem;
    // A grouped item's value is computed per row and grouped on, like WHERE's.
    ExprRef rewritten =
        rewrite(item.expr, mode == Mode::kGroupedItem ? Mode::kRow : mode);
    if (rewritten != item.expr && item.alias.empty()) {
      // The item keeps the name Spark gives it, each subquery shown by its name.
      auto display = TransformExpr(item.expr, [&](const Expr& node) -> ExprRef {
        auto it = shown.find(&node);
        return it == shown.end() ? nullptr : Expr::Column({it->second});
      });
      item.alias = display->kind == ExprKind::kColumn ? display->path[0]
                                                      : SparkColumnName(*display);
    }
    item.expr = rewritten;
  }
  if (out.where != nullptr) out.where = rewrite(out.where, Mode::kRow);
  if (out.having != nullptr) out.having = rewrite(out.having, Mode::kHaving);
  if (!failed) return failed.error();
  if (joined == 0) return std::optional<SelectStmt>();
  return std::optional<SelectStmt>(std::move(out));
}

}  // namespace deltaguard::query_internal
