// Subqueries in expressions (docs/sql.md "Subqueries"):
//  - [NOT] EXISTS and [NOT] IN conditions AND-ed into WHERE become LEFT SEMI / LEFT
//    ANTI joins with the subquery, so they may refer to the outer query (correlated):
//    the subquery's WHERE conjuncts that name outer columns move into the join's ON,
//    its own columns there are projected as __cN of the joined subquery. NOT IN keeps
//    SQL's NULL semantics: a NULL on either side makes the condition NULL, so a row
//    passes only when no subquery row equals it or is NULL, and its value is not NULL
//    (unless the subquery is empty).
//  - A correlated scalar subquery, `(SELECT agg(...) FROM t WHERE t.k = o.k AND ...)`,
//    in the select list, WHERE or HAVING becomes a LEFT JOIN with the subquery grouped
//    by its side of the correlated equalities (one row per key), and stands for that
//    row's value (query_subquery_scalar.cc); a count (or count_if) of no rows is 0,
//    not NULL, as Spark evaluates the aggregate over an empty group. It must be
//    aggregated (Spark's MUST_AGGREGATE_CORRELATED_SCALAR_SUBQUERY) and correlated by
//    equalities; in the select list or HAVING of an aggregate query it may read only
//    grouping expressions of the outer row, and its value becomes a grouping key.
//  - Any other correlated EXISTS or IN (under OR, in the select list or HAVING, in
//    UPDATE/DELETE) becomes what runs (query_subquery_correlated.cc): an EXISTS of one
//    equality the uncorrelated IN it means, other EXISTS the correlated scalar
//    `(SELECT count(*) ...) > 0`, IN three-valued from correlated counts.
//  - Every other subquery must be uncorrelated: it runs once, while the outer query is
//    bound, and stands for its value (scalar), a BOOLEAN (EXISTS) or its values (IN).

#include <arrow/api.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "deltaguard/sql/query_internal.h"
#include "deltaguard/sql/query_subquery_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::query_internal {

namespace {

Result<LiteralValue> ValueAt(const arrow::Array& a, int64_t i, const DataTypeRef& type);

// Row i of a list array, not NULL, as a NestedValue of its elements.
template <typename ListArray>
Result<LiteralValue> ListValueAt(const ListArray& list, int64_t i,
                                 const DataTypeRef& type) {
  const auto& element = static_cast<const ArrayType&>(*type).element_type();
  NestedValue nested;
  for (auto j = list.value_offset(i); j < list.value_offset(i) + list.value_length(i);
       ++j) {
    DELTA_ASSIGN_OR_RETURN(LiteralValue item, ValueAt(*list.values(), j, element));
    nested.items.push_back(std::move(item));
  }
  return LiteralValue{type, std::move(nested)};
}

// Row i of `a` as a literal of `type` (the subquery's column type).
Result<LiteralValue> ValueAt(const arrow::Array& a, int64_t i, const DataTypeRef& type) {
  LiteralValue v{type, {}};
  if (a.IsNull(i)) return v;
  switch (a.type_id()) {
    case arrow::Type::BOOL:
      v.value = static_cast<const arrow::BooleanArray&>(a).Value(i);
      return v;
    case arrow::Type::INT8:
      v.value = int64_t{static_cast<const arrow::Int8Array&>(a).Value(i)};
      return v;
    case arrow::Type::INT16:
      v.value = int64_t{static_cast<const arrow::Int16Array&>(a).Value(i)};
      return v;
    case arrow::Type::INT32:
      v.value = int64_t{static_cast<const arrow::Int32Array&>(a).Value(i)};
      return v;
    case arrow::Type::INT64:
      v.value = static_cast<const arrow::Int64Array&>(a).Value(i);
      return v;
    case arrow::Type::DATE32:
      v.value = int64_t{static_cast<const arrow::Date32Array&>(a).Value(i)};
      return v;
    case arrow::Type::TIMESTAMP:
      v.value = static_cast<const arrow::TimestampArray&>(a).Value(i);
      return v;
    case arrow::Type::FLOAT:
      v.value = double{static_cast<const arrow::FloatArray&>(a).Value(i)};
      return v;
    case arrow::Type::DOUBLE:
      v.value = static_cast<const arrow::DoubleArray&>(a).Value(i);
      return v;
    case arrow::Type::DECIMAL128:
      v.value = DecimalAt(static_cast<const arrow::Decimal128Array&>(a), i);
      return v;
    case arrow::Type::STRING:
      v.value = std::string(static_cast<const arrow::StringArray&>(a).GetView(i));
      return v;
    case arrow::Type::BINARY:
      v.value = std::string(static_cast<const arrow::BinaryArray&>(a).GetView(i));
      return v;
    case arrow::Type::LIST:
      if (type->kind() != TypeKind::kArray) break;
      return ListValueAt(static_cast<const arrow::ListArray&>(a), i, type);
    case arrow::Type::LARGE_LIST:
      if (type->kind() != TypeKind::kArray) break;
      return ListValueAt(static_cast<const arrow::LargeListArray&>(a), i, type);
    case arrow::Type::MAP: {
      if (type->kind() != TypeKind::kMap) break;
      const auto& map = static_cast<const arrow::MapArray&>(a);
      const auto& map_type = static_cast<const MapType&>(*type);
      NestedValue nested;
      for (int64_t j = map.value_offset(i); j < map.value_offset(i) + map.value_length(i);
           ++j) {
        DELTA_ASSIGN_OR_RETURN(LiteralValue key,
                               ValueAt(*map.keys(), j, map_type.key_type()));
        DELTA_ASSIGN_OR_RETURN(LiteralValue value,
                               ValueAt(*map.items(), j, map_type.value_type()));
        nested.items.push_back(std::move(key));
        nested.items.push_back(std::move(value));
      }
      v.value = std::move(nested);
      return v;
    }
    case arrow::Type::STRUCT: {
      if (type->kind() != TypeKind::kStruct) break;
      const auto& st = static_cast<const arrow::StructArray&>(a);
      const auto& struct_type = static_cast<const StructType&>(*type);
      if (static_cast<size_t>(st.num_fields()) != struct_type.num_fields()) break;
      NestedValue nested;
      for (int f = 0; f < st.num_fields(); ++f) {
        // field(f) is adjusted for the struct array's own offset, so row i is its row i.
        DELTA_ASSIGN_OR_RETURN(LiteralValue item,
                               ValueAt(*st.field(f), i, struct_type.field(f).type));
        nested.items.push_back(std::move(item));
      }
      v.value = std::move(nested);
      return v;
    }
    default:
      break;
  }
  return MakeError(ErrorCode::kUnsupportedFeature,
                   "a subquery used as a value returns {}, which is not supported "
                   "yet (numbers, strings, booleans, dates, timestamps, arrays, maps and "
                   "structs of them are)",
                   type->ToString());
}

// Inner references of a correlated condition become `alias.__cN`, each projected by
// the joined subquery (`items`).
ExprRef Reroute(const ExprRef& e, const SourcePlan& inner, const std::string& alias,
                std::vector<SelectItem>* items) {
  return TransformExpr(e, [&](const Expr& node) -> ExprRef {
    if (node.kind != ExprKind::kColumn || !IsInnerRef(node.path, inner)) return nullptr;
    size_t k = 0;
    while (k < items->size() && !(*(*items)[k].expr == node)) ++k;
    if (k == items->size()) {
      SelectItem item;
      item.expr = std::make_shared<Expr>(node);
      item.alias = "__c" + std::to_string(k);
      items->push_back(std::move(item));
    }
    return Expr::Column({alias, (*items)[k].alias}, node.position);
  });
}

// The subquery condition a WHERE conjunct is, if any: the node and whether it is
// negated (NOT EXISTS, NOT IN).
const Expr* SubqueryCondition(const Expr& c, bool* negated) {
  const Expr* e = &c;
  *negated = false;
  if (e->kind == ExprKind::kUnary && e->op == ExprOp::kNot &&
      e->children[0]->kind == ExprKind::kSubquery) {
    e = e->children[0].get();
    *negated = true;
  }
  if (e->kind != ExprKind::kSubquery || e->subquery_kind == SubqueryKind::kScalar) {
    return nullptr;
  }
  if (e->subquery_kind == SubqueryKind::kIn && e->negated) *negated = !*negated;
  return e;
}

// The join that stands for one EXISTS / IN condition, or nullopt to leave the
// condition to the binder (an uncorrelated EXISTS: one run decides it for every row).
Result<std::optional<FromClause>> ConditionJoin(const FromClause& left, const Expr& cond,
                                                bool negated, const std::string& alias,
                                                const QueryContext& context, int depth) {
  const SelectStmt& sub = QueryOf(cond);
  const bool in = cond.subquery_kind == SubqueryKind::kIn;
  auto join = std::make_shared<JoinClause>();
  join->type = negated ? JoinClause::Type::kLeftAnti : JoinClause::Type::kLeftSemi;
  join->left = left;
  join->position = cond.position;
  FromClause right;
  right.kind = FromClause::Kind::kSubquery;
  right.alias = alias;

  SourcePlan inner;
  std::vector<ExprRef> own;
  std::vector<ExprRef> correlated;
  const bool simple = sub.with.empty() && !sub.set_op;
  if (simple) {
    DELTA_ASSIGN_OR_RETURN(inner, PlanFrom(sub.from, context, nullptr, depth + 1));
    std::vector<ExprRef> parts;
    SplitConjuncts(sub.where, &parts);
    for (auto& p : parts) (ReferencesOuter(*p, inner) ? correlated : own).push_back(p);
  }
  ExprRef value;  // IN: the subquery's value, as the join sees it
  if (correlated.empty()) {
    if (!in) return std::optional<FromClause>();
    right.subquery = static_cast<const QuerySubquery&>(*cond.subquery).query;
    DELTA_ASSIGN_OR_RETURN(QueryPlan plan,
                           PlanQueryAt(*right.subquery, context, {}, depth + 1));
    if (plan.schema->num_fields() != 1) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "the subquery of IN must return one column, got {} "
                       "(DATATYPE_MISMATCH.IN_SUBQUERY_LENGTH_MISMATCH): ({})",
                       plan.schema->num_fields(), cond.subquery->text());
    }
    right.column_aliases = {"__v"};
    value = Expr::Column({alias, "__v"});
  } else {
    if (!sub.group_by.empty() || sub.having != nullptr || sub.qualify != nullptr ||
        sub.limit.has_value() || sub.distinct || !sub.order_by.empty()) {
      return MakeError(ErrorCode::kUnsupportedFeature,
                       "a correlated subquery with GROUP BY, HAVING, DISTINCT, ORDER BY "
                       "or LIMIT is not supported yet: ({})",
                       cond.subquery->text());
    }
    auto derived = std::make_shared<SelectStmt>(sub);
    derived->where = AndOf(own);
    derived->items.clear();
    std::vector<ExprRef> on;
    for (const auto& c : correlated)
      on.push_back(Reroute(c, inner, alias, &derived->items));
    if (in) {
      if (sub.items.size() != 1 || sub.items[0].star) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "the subquery of IN must return one column "
                         "(DATATYPE_MISMATCH.IN_SUBQUERY_LENGTH_MISMATCH): ({})",
                         cond.subquery->text());
      }
      if (ReferencesOuter(*sub.items[0].expr, inner) ||
          HasAggregateCall(*sub.items[0].expr)) {
        return MakeError(ErrorCode::kUnsupportedFeature,
                         "the value of a correlated IN subquery must be a column "
                         "expression of the subquery: ({})",
                         cond.subquery->text());
      }
      SelectItem item;
      item.expr = sub.items[0].expr;
      item.alias = "__v";
      derived->items.push_back(std::move(item));
      value = Expr::Column({alias, "__v"});
    }
    right.subquery = derived;
    join->on = AndOf(on);
  }
  if (in) {
    const ExprRef& x = cond.children[0];
    ExprRef match = Expr::Binary(ExprOp::kEq, x, value);
    if (negated) {
      // NOT IN: a subquery row equal to x, or any NULL, rules the row out.
      match = Expr::Binary(ExprOp::kOr, Expr::Binary(ExprOp::kOr, match, IsNullExpr(x)),
                           IsNullExpr(value));
    }
    join->on = join->on == nullptr ? match : Expr::Binary(ExprOp::kAnd, join->on, match);
  }
  join->right = std::move(right);
  FromClause out;
  out.kind = FromClause::Kind::kJoin;
  out.join = std::move(join);
  out.position = cond.position;
  return std::optional<FromClause>(std::move(out));
}

}  // namespace

const SelectStmt& QueryOf(const Expr& node) {
  return *static_cast<const QuerySubquery&>(*node.subquery).query;
}

// A column reference that the inner query's FROM resolves (SQL scoping: the innermost
// relation that has the name wins).
bool IsInnerRef(const std::vector<std::string>& path, const SourcePlan& inner) {
  if (!inner.columns.empty()) {
    auto r = ResolveColumnPath(path, inner.columns, *inner.schema);
    return !r || r->has_value();  // ambiguous inside is still inside
  }
  // `x.f` with an inner column x is x's field f, also when x is no struct (an error
  // then), as Spark resolves it: the inner scope wins.
  if (inner.schema->FieldIndexCaseInsensitive(path[0]) >= 0) return true;
  for (const auto& q : inner.qualifiers) {
    std::vector<std::string_view> parts = Split(q, '.');
    if (path.size() <= parts.size()) continue;
    bool match = true;
    for (size_t i = 0; i < parts.size() && match; ++i) {
      match = EqualsIgnoreCase(parts[i], path[i]);
    }
    if (match && inner.schema->FieldIndexCaseInsensitive(path[parts.size()]) >= 0) {
      return true;
    }
  }
  return false;
}

bool ReferencesOuter(const Expr& e, const SourcePlan& inner) {
  if (e.kind == ExprKind::kColumn) return !IsInnerRef(e.path, inner);
  for (const auto& c : e.children) {
    if (ReferencesOuter(*c, inner)) return true;
  }
  return false;
}

bool HasAggregateCall(const Expr& e) {
  if (e.kind == ExprKind::kFunction && IsAggregateName(e.text)) return true;
  for (const auto& c : e.children) {
    if (HasAggregateCall(*c)) return true;
  }
  return false;
}

bool ReferencesInner(const Expr& e, const SourcePlan& inner) {
  if (e.kind == ExprKind::kColumn) return IsInnerRef(e.path, inner);
  for (const auto& c : e.children) {
    if (ReferencesInner(*c, inner)) return true;
  }
  return false;
}

int InnerSide(const Expr& c, const SourcePlan& inner) {
  if (c.kind != ExprKind::kBinary || c.op != ExprOp::kEq) return -1;
  for (int side = 0; side < 2; ++side) {
    if (!ReferencesOuter(*c.children[side], inner) &&
        !ReferencesInner(*c.children[1 - side], inner)) {
      return side;
    }
  }
  return -1;
}

ExprRef SubqueryExpr(SelectRef query, std::string sql, SubqueryKind kind,
                     int32_t position, ExprRef operand) {
  auto node = std::make_shared<QuerySubquery>();
  node->query = std::move(query);
  node->sql = std::move(sql);
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kSubquery;
  e->subquery_kind = kind;
  e->subquery = std::move(node);
  e->position = position;
  if (operand != nullptr) e->children.push_back(std::move(operand));
  return e;
}

ExprRef IsNullExpr(ExprRef e, bool negated) {
  auto n = std::make_shared<Expr>();
  n->kind = ExprKind::kIsNull;
  n->negated = negated;
  n->children.push_back(std::move(e));
  return n;
}

// The names of the columns `e` reads (their last path part), in order, once each.
void CollectColumnNames(const Expr& e, std::vector<std::string>* names) {
  if (e.kind == ExprKind::kColumn && !e.path.empty()) {
    if (std::find(names->begin(), names->end(), e.path.back()) == names->end()) {
      names->push_back(e.path.back());
    }
    return;
  }
  for (const auto& c : e.children) CollectColumnNames(*c, names);
}

bool HasSubquery(const Expr& e) {
  if (e.kind == ExprKind::kSubquery) return true;
  for (const auto& c : e.children) {
    if (HasSubquery(*c)) return true;
  }
  return false;
}

bool HasSubquery(const ExprRef& e) { return e != nullptr && HasSubquery(*e); }

Result<std::optional<SelectStmt>> JoinWhereSubqueries(const SelectStmt& query,
                                                      const QueryContext& context,
                                                      int depth) {
  if (query.from.kind == FromClause::Kind::kNone || !HasSubquery(query.where)) {
    return std::optional<SelectStmt>();
  }
  std::vector<ExprRef> parts;
  SplitConjuncts(query.where, &parts);
  SelectStmt out = query;
  std::vector<ExprRef> rest;
  int joined = 0;
  for (const auto& p : parts) {
    bool negated = false;
    const Expr* cond = SubqueryCondition(*p, &negated);
    if (cond == nullptr) {
      rest.push_back(p);
      continue;
    }
    const std::string alias =
        "__sq" + std::to_string(depth) + "_" + std::to_string(joined);
    DELTA_ASSIGN_OR_RETURN(
        auto join, ConditionJoin(out.from, *cond, negated, alias, context, depth));
    if (!join) {
      rest.push_back(p);
      continue;
    }
    out.from = std::move(*join);
    ++joined;
  }
  if (joined == 0) return std::optional<SelectStmt>();
  out.where = AndOf(rest);
  return std::optional<SelectStmt>(std::move(out));
}

Result<std::optional<SelectStmt>> RewriteSubqueries(const SelectStmt& query,
                                                    const QueryContext& context,
                                                    int depth) {
  DELTA_ASSIGN_OR_RETURN(auto joined, JoinWhereSubqueries(query, context, depth));
  if (joined) return joined;
  DELTA_ASSIGN_OR_RETURN(auto scalars, JoinScalarSubqueries(query, context, depth));
  if (scalars) return scalars;
  return CorrelatedConditionSubqueries(query, context, depth);
}

Result<SubqueryValues> RunSubquery(const Expr& node, const QueryContext& context,
                                   int depth) {
  auto plan = PlanQueryAt(QueryOf(node), context, {}, depth + 1);
  if (!plan) {
    Error e = plan.error();
    if (e.code == ErrorCode::kNotFound &&
        e.message.find("UNRESOLVED_COLUMN") != std::string::npos) {
      e.message +=
          "; a subquery that refers to the outer query (correlated) runs only "
          "as a [NOT] EXISTS or [NOT] IN condition (anywhere outside UPDATE/DELETE; "
          "there, an EXISTS of one equality), or an aggregated scalar subquery in the "
          "select list, WHERE or HAVING";
    }
    return e;
  }
  const size_t columns = plan->schema->num_fields();
  if (node.subquery_kind == SubqueryKind::kScalar && columns != 1) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "a scalar subquery must return one column, got {} "
                     "(INVALID_SUBQUERY_EXPRESSION."
                     "SCALAR_SUBQUERY_RETURN_MORE_THAN_ONE_OUTPUT_COLUMN): ({})",
                     columns, node.subquery->text());
  }
  if (node.subquery_kind == SubqueryKind::kIn && columns != 1) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the subquery of IN must return one column, got {} "
                     "(DATATYPE_MISMATCH.IN_SUBQUERY_LENGTH_MISMATCH): ({})",
                     columns, node.subquery->text());
  }
  DELTA_ASSIGN_OR_RETURN(auto table, CollectQuery(*plan));
  SubqueryValues out;
  if (node.subquery_kind == SubqueryKind::kExists) {
    out.values.push_back(LiteralValue{DataType::Boolean(), table->num_rows() > 0});
    return out;
  }
  const DataTypeRef& type = plan->schema->field(0).type;
  if (node.subquery_kind == SubqueryKind::kScalar) {
    if (table->num_rows() > 1) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "more than one row returned by a subquery used as an expression "
                       "(SCALAR_SUBQUERY_TOO_MANY_ROWS): ({})",
                       node.subquery->text());
    }
    if (table->num_rows() == 0) {
      out.values.push_back(LiteralValue{type, {}});
      return out;
    }
  }
  for (const auto& chunk : table->column(0)->chunks()) {
    for (int64_t i = 0; i < chunk->length(); ++i) {
      DELTA_ASSIGN_OR_RETURN(LiteralValue v, ValueAt(*chunk, i, type));
      out.values.push_back(std::move(v));
    }
  }
  return out;
}

}  // namespace deltaguard::query_internal
