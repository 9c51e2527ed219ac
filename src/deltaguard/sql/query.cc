// SELECT planning: resolve the select list, WHERE, GROUP BY, HAVING and ORDER BY
// against the source's schema, then wire the stages:
//   source -> filter -> project [-> DISTINCT] [-> sort] -> limit         (no aggregates)
//   source -> filter -> aggregate -> HAVING -> project [-> DISTINCT] [-> sort] -> limit
// Only the aggregate, DISTINCT and sort stages hold their input.

#include "deltaguard/sql/query.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <chrono>
#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/expr_eval.h"
#include "deltaguard/sql/query_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace query_internal {
// `t.a` -> `a` when `t` qualifies the source and the source has no column `t`.
ExprRef StripQualifiers(const ExprRef& e, const SourcePlan& src) {
  return TransformExpr(e, [&](const Expr& node) -> ExprRef {
    if (node.kind != ExprKind::kColumn) return nullptr;
    for (const auto& q : src.qualifiers) {
      std::vector<std::string_view> parts = Split(q, '.');
      if (node.path.size() <= parts.size() ||
          src.schema->FieldIndexCaseInsensitive(node.path[0]) >= 0) {
        continue;
      }
      bool match = true;
      for (size_t i = 0; i < parts.size() && match; ++i) {
        match = EqualsIgnoreCase(parts[i], node.path[i]);
      }
      if (!match) continue;
      auto copy = std::make_shared<Expr>(node);
      copy->path.erase(copy->path.begin(), copy->path.begin() + parts.size());
      return copy;
    }
    return nullptr;  // a column has no children: kept as it is
  });
}

// Column references resolved against a join's columns (SourcePlan::columns): to the
// internal names of its schema; names that fit no column stay (aliases, or errors the
// binder reports); several fitting columns are AMBIGUOUS_REFERENCE.
Result<ExprRef> ResolveJoinRefs(const ExprRef& e, const SourcePlan& src) {
  if (e == nullptr) return e;
  if (e->kind == ExprKind::kColumn) {
    DELTA_ASSIGN_OR_RETURN(auto resolved,
                           ResolveColumnPath(e->path, src.columns, *src.schema));
    if (!resolved) return e;
    auto copy = std::make_shared<Expr>(*e);
    copy->path = std::move(*resolved);
    return ExprRef(copy);
  }
  if (e->children.empty()) return e;
  auto copy = std::make_shared<Expr>(*e);
  for (auto& c : copy->children) {
    DELTA_ASSIGN_OR_RETURN(c, ResolveJoinRefs(c, src));
  }
  return ExprRef(copy);
}

namespace {

// Replace one-part column names that are select-list aliases (and not source columns)
// by the aliased expression (HAVING c > 1 with `count(*) AS c`).
ExprRef ExpandAliases(const ExprRef& e, const StructType& input,
                      const std::vector<std::pair<std::string, ExprRef>>& aliases) {
  return TransformExpr(e, [&](const Expr& node) -> ExprRef {
    if (node.kind != ExprKind::kColumn || node.path.size() != 1 ||
        input.FieldIndexCaseInsensitive(node.path[0]) >= 0) {
      return nullptr;
    }
    for (const auto& [name, expr] : aliases) {
      if (EqualsIgnoreCase(name, node.path[0])) return expr;
    }
    return nullptr;
  });
}

std::optional<int64_t> Ordinal(const Expr& e) {
  if (e.kind != ExprKind::kLiteral) return std::nullopt;
  if (e.literal_kind != LiteralKind::kInteger && e.literal_kind != LiteralKind::kLong) {
    return std::nullopt;
  }
  return std::stoll(e.text);
}

struct OutputColumn {
  std::string name;
  BoundExprRef expr;  // over the input, or over the aggregate stage's output
};

// Evaluate `columns` over a batch (after `where`, when set) into a batch of `schema`.
Result<BatchRef> FilterProject(const BatchRef& batch, const BoundExprRef& where,
                               const std::vector<OutputColumn>& columns,
                               const std::shared_ptr<arrow::Schema>& schema,
                               const EvalOptions& eval) {
  BatchRef in = batch;
  if (where != nullptr) {
    DELTA_ASSIGN_OR_RETURN(auto mask, EvaluatePredicate(*where, *in, eval));
    if (mask->true_count() == 0) return BatchRef();
    if (mask->true_count() != in->num_rows()) {
      DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum kept, arrow::compute::Filter(in, mask),
                                   ErrorCode::kInternal, "WHERE");
      in = kept.record_batch();
    }
  }
  if (schema == nullptr) return in;  // filter only
  std::vector<std::shared_ptr<arrow::Array>> arrays;
  for (const auto& c : columns) {
    DELTA_ASSIGN_OR_RETURN(auto array, Evaluate(*c.expr, *in, eval));
    arrays.push_back(std::move(array));
  }
  return ConformBatch(arrow::RecordBatch::Make(schema, in->num_rows(), std::move(arrays)),
                      schema, "SELECT");
}

struct SelectPlanner {
  const SelectStmt& query;
  const QueryContext& context;
  int depth = 0;
  SourcePlan src;
  EvalOptions eval;

  Result<QueryPlan> Plan();
};

Result<QueryPlan> SelectPlanner::Plan() {
  const StructType& input = *src.schema;
  BindOptions bind;
  bind.relation = src.relation;
  bind.unlisted = src.hidden;
  const QueryContext* ctx = &context;
  const int level = depth;
  bind.subquery = [ctx, level](const Expr& node) {
    return RunSubquery(node, *ctx, level);
  };
  auto strip = [&](const ExprRef& e) -> Result<ExprRef> {
    if (!src.columns.empty()) return ResolveJoinRefs(e, src);
    return StripQualifiers(e, src);
  };

  // The select list, `*` expanded.
  std::vector<std::pair<std::string, ExprRef>> items;  // (name or "", expression)
  std::vector<std::pair<std::string, ExprRef>> aliases;
  for (const SelectItem& item : query.items) {
    if (!item.star) {
      DELTA_ASSIGN_OR_RETURN(ExprRef e, strip(item.expr));
      items.emplace_back(item.alias, e);
      if (!item.alias.empty()) aliases.emplace_back(item.alias, e);
      continue;
    }
    if (!src.columns.empty()) {
      // A join: `*` lists its columns by their names (USING columns once); `t.*` the
      // columns of relation t.
      const std::string q = AsciiToLower(item.star_qualifier);
      bool any = false;
      for (size_t i = 0; i < input.num_fields(); ++i) {
        const ColumnSource& c = src.columns[i];
        const bool of_q =
            std::find(c.qualifiers.begin(), c.qualifiers.end(), q) != c.qualifiers.end();
        if (c.hidden || (q.empty() ? !c.in_star : !of_q)) continue;
        bool excluded = false;
        for (const auto& name : item.star_except) {
          excluded = excluded || EqualsIgnoreCase(name, c.name);
        }
        any = true;
        if (!excluded) items.emplace_back(c.name, Expr::Column({input.field(i).name}));
      }
      if (!any) {
        return MakeError(ErrorCode::kNotFound, "cannot resolve '{}.*': the source is {}",
                         item.star_qualifier, src.name);
      }
      continue;
    }
    if (!item.star_qualifier.empty() &&
        std::find(src.qualifiers.begin(), src.qualifiers.end(),
                  AsciiToLower(item.star_qualifier)) == src.qualifiers.end()) {
      return MakeError(ErrorCode::kNotFound, "cannot resolve '{}.*': the source is {}",
                       item.star_qualifier, src.name);
    }
    std::vector<bool> excluded(input.num_fields(), false);
    for (const auto& name : item.star_except) {
      int index = input.FieldIndexCaseInsensitive(name);
      if (index < 0) {
        return MakeError(ErrorCode::kNotFound,
                         "* EXCEPT: column '{}' does not exist in {}; available: {}",
                         name, src.name, input.ToString());
      }
      excluded[static_cast<size_t>(index)] = true;
    }
    for (size_t i = 0; i < input.num_fields(); ++i) {
      const std::string& name = input.field(i).name;
      if (!excluded[i] && !src.IsHidden(name))
        items.emplace_back("", Expr::Column({name}));
    }
  }

  // Window calls (select list, QUALIFY, ORDER BY) become columns __wN of the window
  // stage; the rest binds against the input plus those columns (`extended`).
  std::vector<ExprRef> windows;
  aliases.clear();
  // An unaliased item with a window call is named after the call as written (Spark's
  // "rank() OVER (...)"), not after the window column that replaces it.
  std::vector<std::string> window_names;
  for (auto& [alias, e] : items) {
    ExprRef extracted = ExtractWindows(e, &windows);
    window_names.push_back(alias.empty() && extracted != e ? SparkColumnName(*e) : "");
    e = extracted;
    if (!alias.empty()) aliases.emplace_back(alias, e);
  }
  ExprRef qualify_expr;
  if (query.qualify != nullptr) {
    DELTA_ASSIGN_OR_RETURN(ExprRef q, strip(query.qualify));
    qualify_expr = ExtractWindows(ExpandAliases(q, input, aliases), &windows);
  }
  std::vector<ExprRef> order_exprs;
  for (const auto& o : query.order_by) {
    DELTA_ASSIGN_OR_RETURN(ExprRef e, strip(o.expr));
    order_exprs.push_back(ExtractWindows(e, &windows));
  }
  for (auto& w : windows) {
    // The window's own expressions are outside the tree's children: resolve them too.
    DELTA_ASSIGN_OR_RETURN(w, MapWindowSpec(w, strip));
  }
  std::vector<WindowCall> calls;
  std::vector<StructField> extended_fields = input.fields();
  bool aggregate = !query.group_by.empty() || query.having != nullptr;
  for (size_t i = 0; i < windows.size(); ++i) {
    DELTA_ASSIGN_OR_RETURN(WindowCall call, BindWindow(*windows[i], input, bind));
    for (const auto* part : {&call.args, &call.partition, &call.order}) {
      for (const auto& b : *part) aggregate = aggregate || ContainsAggregate(*b);
    }
    extended_fields.push_back({WindowColumnName(i), call.type, call.nullable, {}});
    calls.push_back(std::move(call));
  }
  const StructType extended(std::move(extended_fields));

  BoundExprRef where;
  if (query.where != nullptr) {
    DELTA_ASSIGN_OR_RETURN(ExprRef w, strip(query.where));
    DELTA_ASSIGN_OR_RETURN(where, BindPredicate(*w, input, bind));
    if (ContainsAggregate(*where)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "aggregate functions are not allowed in WHERE ({}); use HAVING",
                       SparkColumnName(*query.where));
    }
  }

  std::vector<OutputColumn> outputs;
  for (size_t index = 0; index < items.size(); ++index) {
    const auto& [alias, item] = items[index];
    // f(*) over the input's columns (not the window and aggregate columns `extended`
    // adds, nor hidden ones).
    const StructType visible = VisibleColumns(input, src);
    ExprRef e = TransformExpr(
        item, [&](const Expr& node) { return ExpandStarArgument(node, visible); });
    DELTA_ASSIGN_OR_RETURN(BoundExprRef b, Bind(*e, extended, bind));
    std::string name = !alias.empty() ? alias : window_names[index];
    if (name.empty()) name = OutputColumnName(*item, *e, *b, input, src);
    aggregate = aggregate || ContainsAggregate(*b);
    outputs.push_back({std::move(name), std::move(b)});
  }
  const size_t num_outputs = outputs.size();

  // GROUP BY keys: an ordinal or an alias names a select item; else an expression.
  AggregateSpec spec;
  spec.now_micros = eval.now_micros;
  for (const auto& g : query.group_by) {
    DELTA_ASSIGN_OR_RETURN(ExprRef e, strip(g));
    BoundExprRef key;
    std::optional<int64_t> ordinal = Ordinal(*e);
    if (ordinal) {
      if (*ordinal < 1 || *ordinal > static_cast<int64_t>(num_outputs)) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "GROUP BY position {} is not in the select list (valid range is "
                         "[1, {}])",
                         *ordinal, num_outputs);
      }
      key = outputs[static_cast<size_t>(*ordinal - 1)].expr;
    } else {
      DELTA_ASSIGN_OR_RETURN(key, Bind(*ExpandAliases(e, input, aliases), input, bind));
    }
    if (ContainsAggregate(*key)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "GROUP BY {} refers to an aggregate function",
                       SparkColumnName(*e));
    }
    spec.keys.push_back(std::move(key));
  }

  BoundExprRef having;
  BoundExprRef qualify;
  if (qualify_expr != nullptr) {
    DELTA_ASSIGN_OR_RETURN(qualify, BindPredicate(*qualify_expr, extended, bind));
  }
  if (aggregate) {
    for (auto& out : outputs) {
      DELTA_ASSIGN_OR_RETURN(out.expr, OverGroups(out.expr, spec.keys, &spec.aggregates));
    }
    for (auto& call : calls) {
      for (auto* part : {&call.args, &call.partition, &call.order}) {
        for (auto& b : *part) {
          DELTA_ASSIGN_OR_RETURN(b, OverGroups(b, spec.keys, &spec.aggregates));
        }
      }
    }
    if (qualify != nullptr) {
      DELTA_ASSIGN_OR_RETURN(qualify, OverGroups(qualify, spec.keys, &spec.aggregates));
    }
    if (query.having != nullptr) {
      DELTA_ASSIGN_OR_RETURN(ExprRef h_expr, strip(query.having));
      DELTA_ASSIGN_OR_RETURN(
          BoundExprRef h,
          BindPredicate(*ExpandAliases(h_expr, input, aliases), input, bind));
      DELTA_ASSIGN_OR_RETURN(having, OverGroups(h, spec.keys, &spec.aggregates));
    }
  }

  // ORDER BY: a select-list ordinal or name, else an expression (a hidden column).
  std::vector<SortKeySpec> sort_keys;
  for (size_t k = 0; k < query.order_by.size(); ++k) {
    const OrderItem& o = query.order_by[k];
    const ExprRef& e = order_exprs[k];
    SortKeySpec key;
    key.descending = o.descending;
    key.nulls_first = o.nulls_first.value_or(!o.descending);
    std::optional<int64_t> ordinal = Ordinal(*e);
    int column = -1;
    if (ordinal) {
      if (*ordinal < 1 || *ordinal > static_cast<int64_t>(num_outputs)) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "ORDER BY position {} is not in the select list (valid range is "
                         "[1, {}])",
                         *ordinal, num_outputs);
      }
      column = static_cast<int>(*ordinal - 1);
    } else if (e->kind == ExprKind::kColumn && e->path.size() == 1) {
      for (size_t i = 0; i < num_outputs && column < 0; ++i) {
        if (EqualsIgnoreCase(outputs[i].name, e->path[0])) column = static_cast<int>(i);
      }
    }
    if (column < 0) {
      DELTA_ASSIGN_OR_RETURN(BoundExprRef b, Bind(*e, extended, bind));
      if (aggregate) {
        DELTA_ASSIGN_OR_RETURN(b, OverGroups(b, spec.keys, &spec.aggregates));
      } else if (ContainsAggregate(*b)) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "ORDER BY {} uses an aggregate function in a query without one",
                         SparkColumnName(*e));
      }
      for (size_t i = 0; i < outputs.size() && column < 0; ++i) {
        if (SameBound(*b, *outputs[i].expr)) column = static_cast<int>(i);
      }
      if (column < 0) {
        if (query.distinct) {
          return MakeError(ErrorCode::kInvalidArgument,
                           "ORDER BY {} must be in the select list of a SELECT DISTINCT",
                           SparkColumnName(*e));
        }
        column = static_cast<int>(outputs.size());
        outputs.push_back({"_order" + std::to_string(column), std::move(b)});
      }
    }
    key.column = column;
    sort_keys.push_back(key);
  }
  if (query.limit && *query.limit < 0) {
    return MakeError(ErrorCode::kInvalidArgument, "LIMIT must not be negative, got {}",
                     *query.limit);
  }

  // Output schemas: the visible columns (the plan's), and with hidden sort keys.
  std::vector<StructField> fields;
  std::vector<std::shared_ptr<arrow::Field>> arrow_fields;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& out = outputs[i];
    DELTA_ASSIGN_OR_RETURN(auto type, ToArrowType(*out.expr->type));
    arrow_fields.push_back(arrow::field(out.name, type, out.expr->nullable));
    if (i < num_outputs)
      fields.push_back({out.name, out.expr->type, out.expr->nullable, {}});
  }
  auto full_schema = arrow::schema(arrow_fields);
  auto visible_schema = arrow::schema(std::vector<std::shared_ptr<arrow::Field>>(
      arrow_fields.begin(), arrow_fields.begin() + num_outputs));

  // Columns the source must produce.
  std::vector<std::string> needed;
  auto need = [&](const BoundExprRef& b) { AddColumnsRead(b, &needed); };
  need(where);
  if (aggregate) {
    for (const auto& k : spec.keys) need(k);
    for (const auto& a : spec.aggregates) need(a);
  } else {
    for (const auto& o : outputs) need(o.expr);
    need(qualify);
    for (const auto& call : calls) {
      for (const auto* part : {&call.args, &call.partition, &call.order}) {
        for (const auto& b : *part) need(b);
      }
    }
  }
  // Input columns read after the window stage (ComputeWindows may drop the rest).
  std::vector<std::string> after_windows;
  AddColumnsRead(qualify, &after_windows);
  for (const auto& o : outputs) AddColumnsRead(o.expr, &after_windows);

  QueryPlan plan;
  plan.schema = std::make_shared<StructType>(std::move(fields));
  plan.arrow_schema = visible_schema;
  plan.source_name = src.name;
  plan.row_by_row = !aggregate && calls.empty() && !query.distinct &&
                    query.order_by.empty() && !query.limit.has_value();
  auto source = src.open;
  auto e = eval;
  bool distinct = query.distinct;
  std::optional<int64_t> limit = query.limit;
  QueryMemoryRef memory = context.memory;
  // WHERE false (or NULL): no row passes, none is read (the empty-group value of a
  // correlated scalar subquery, query_subquery_scalar.cc, is computed this way).
  const bool no_rows = NeverTrue(where.get());
  plan.open = [=]() -> Result<ReaderRef> {
    DELTA_ASSIGN_OR_RETURN(ReaderRef in, source(needed));
    if (no_rows) {
      DELTA_ASSIGN_OR_RETURN(in, EmptyReader(in->schema()));
    }
    HeldRows held;
    if (!aggregate && calls.empty()) {
      auto project = [=](const BatchRef& b) {
        return FilterProject(b, where, outputs, full_schema, e);
      };
      // Two batches at a time on the two cores, unless a LIMIT stops reading early.
      if (!distinct && sort_keys.empty()) {
        if (limit) return MapReader(in, visible_schema, project, limit);
        return ParallelMapReader(in, visible_schema, project);
      }
      DELTA_ASSIGN_OR_RETURN(held, HoldAll(ParallelMapReader(in, full_schema, project),
                                           full_schema, "SELECT", memory));
    } else {
      if (where != nullptr) {
        auto filter = [=](const BatchRef& b) {
          return FilterProject(b, where, {}, nullptr, e);
        };
        in = ParallelMapReader(in, in->schema(), filter);
      }
      // The window or aggregate stage: one batch of every output row, or (windows
      // whose input spilled) a reader over them.
      auto stage = [=](BatchRef rows) -> Result<BatchRef> {
        if (calls.empty()) return FilterProject(rows, having, outputs, full_schema, e);
        if (having != nullptr) {
          DELTA_ASSIGN_OR_RETURN(rows, FilterProject(rows, having, {}, nullptr, e));
        }
        if (rows == nullptr) return rows;
        DELTA_ASSIGN_OR_RETURN(rows, ComputeWindows(rows, calls, e, &after_windows));
        return FilterProject(rows, qualify, outputs, full_schema, e);
      };
      BatchRef rows;
      if (aggregate) {
        DELTA_ASSIGN_OR_RETURN(rows, Aggregate(in, spec));
      } else {
        DELTA_ASSIGN_OR_RETURN(HeldRows input, HoldAll(in, in->schema(), "window input",
                                                       memory, WindowCost(calls)));
        auto keys = SharedPartitionKeys(calls);
        if (input.spilled && !keys.empty()) {
          DELTA_ASSIGN_OR_RETURN(
              auto staged,
              SpilledWindowStage(std::move(input), keys, full_schema, stage, *memory, e));
          DELTA_ASSIGN_OR_RETURN(held,
                                 HoldAll(staged, full_schema, "window output", memory));
        } else {
          DELTA_ASSIGN_OR_RETURN(rows, CombineRows(input.batches, in->schema()));
        }
      }
      if (rows != nullptr) {
        DELTA_ASSIGN_OR_RETURN(rows, stage(rows));
        if (rows != nullptr) held.batches.push_back(rows);
      }
    }
    DELTA_ARROW_ASSIGN_OR_RETURN(
        auto table, arrow::Table::FromRecordBatches(full_schema, held.batches),
        ErrorCode::kInternal, "SELECT");
    held.batches.clear();
    if (distinct) {
      DELTA_ASSIGN_OR_RETURN(table, DistinctRows(table));
    }
    if (!sort_keys.empty()) {
      return SortedReader(table, sort_keys, static_cast<int>(num_outputs), limit,
                          held.spilled ? memory : nullptr);
    }
    if (table->num_columns() > static_cast<int>(num_outputs)) {
      std::vector<int> visible;
      for (size_t i = 0; i < num_outputs; ++i) visible.push_back(static_cast<int>(i));
      DELTA_ARROW_ASSIGN_OR_RETURN(table, table->SelectColumns(visible),
                                   ErrorCode::kInternal, "ORDER BY");
    }
    return TableReader(table, limit);
  };
  return plan;
}

}  // namespace

Result<QueryPlan> PlanQueryAt(const SelectStmt& query, const QueryContext& context,
                              const PlanOptions& options, int depth) {
  if (!query.with.empty()) return PlanWith(query, context, options, depth);
  if (query.set_op) return PlanSetOperation(*query.set_op, context, depth);
  DELTA_ASSIGN_OR_RETURN(auto windows, ResolveNamedWindows(query));
  if (windows) return PlanQueryAt(*windows, context, options, depth);
  DELTA_ASSIGN_OR_RETURN(auto rewritten, RewriteSubqueries(query, context, depth));
  if (rewritten) return PlanQueryAt(*rewritten, context, options, depth);
  DELTA_ASSIGN_OR_RETURN(auto lifted, LiftSelectGenerators(query));
  if (lifted) return PlanQueryAt(*lifted, context, options, depth);
  DELTA_ASSIGN_OR_RETURN(SourcePlan src, PlanSource(query, context, options, depth));
  if (!query.lateral_views.empty()) {
    DELTA_ASSIGN_OR_RETURN(
        src, ApplyLateralViews(std::move(src), query.lateral_views, context.now_micros));
  }
  SelectPlanner planner{query, context, depth, std::move(src), {}};
  planner.eval.now_micros = context.now_micros;
  return planner.Plan();
}

}  // namespace query_internal

Result<QueryPlan> PlanQuery(const SelectStmt& query, const QueryContext& context,
                            const PlanOptions& options) {
  QueryContext fixed = context;
  if (fixed.now_micros == 0) {
    // One instant per statement: current_timestamp() must not move between batches.
    fixed.now_micros = std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  }
  if (fixed.fs == nullptr) fixed.fs = MakeLocalFileSystem();
  return query_internal::PlanQueryAt(query, fixed, options, 0);
}

Result<std::shared_ptr<arrow::Table>> CollectQuery(const QueryPlan& plan) {
  if (!plan.open) return MakeError(ErrorCode::kInternal, "query plan cannot be run");
  DELTA_ASSIGN_OR_RETURN(query_internal::ReaderRef reader, plan.open());
  return query_internal::ReadAll(reader, plan.arrow_schema, "query " + plan.source_name);
}

}  // namespace deltaguard
