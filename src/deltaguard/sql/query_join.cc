// Joins, planning: a join of two sources as one SourcePlan.
//
// Columns: the left source's, then the right's, each with the qualifiers of its
// relation (SourcePlan::columns). Names that repeat across the join get internal
// names (`name#i`) so binding and evaluation by name stay unambiguous; queries refer
// to them qualified (`o.id`), and an unqualified name that fits several columns is
// Spark's AMBIGUOUS_REFERENCE. USING (c, ...) and NATURAL put one column per name
// first (the left's, the right's for RIGHT joins, their coalesce for FULL joins) and
// keep both sides' columns reachable qualified only.
//
// Execution: query_join_exec.cc.

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/compute/row/grouper.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/expr_eval.h"
#include "deltaguard/sql/query_join_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::query_internal {
std::vector<ColumnSource> ColumnsOf(const SourcePlan& src) {
  if (!src.columns.empty()) return src.columns;
  std::vector<ColumnSource> out;
  for (const auto& f : src.schema->fields()) {
    const bool hidden = src.IsHidden(f.name);
    out.push_back(ColumnSource{f.name, src.qualifiers, true, !hidden, hidden});
  }
  return out;
}

namespace {

using Type = JoinClause::Type;

// Splits `e` into its AND-ed conjuncts.
std::vector<std::string> FieldNames(const StructType& schema) {
  std::vector<std::string> out;
  for (const auto& f : schema.fields()) out.push_back(f.name);
  return out;
}

// The one column named `name` (unqualified) of `cols`, or -1.
int FindUnqualified(const std::vector<ColumnSource>& cols, const std::string& name) {
  int found = -1;
  for (size_t i = 0; i < cols.size(); ++i) {
    if (cols[i].unqualified && EqualsIgnoreCase(cols[i].name, name)) {
      if (found >= 0) return -2;
      found = static_cast<int>(i);
    }
  }
  return found;
}

struct Side {
  SourcePlan plan;
  std::vector<ColumnSource> columns;
  std::shared_ptr<arrow::Schema> arrow_schema;
};

// `e` with its column references resolved against `cols` (internal names of
// `schema`); `*missing` when a reference is not among them.
Result<ExprRef> Resolve(const ExprRef& e, const std::vector<ColumnSource>& cols,
                        const StructType& schema, bool* missing) {
  if (e == nullptr) return e;
  if (e->kind == ExprKind::kColumn) {
    DELTA_ASSIGN_OR_RETURN(auto resolved, ResolveColumnPath(e->path, cols, schema));
    if (!resolved) {
      *missing = true;
      return e;
    }
    auto copy = std::make_shared<Expr>(*e);
    copy->path = std::move(*resolved);
    return ExprRef(copy);
  }
  auto copy = std::make_shared<Expr>(*e);
  for (auto& c : copy->children) {
    DELTA_ASSIGN_OR_RETURN(c, Resolve(c, cols, schema, missing));
  }
  return ExprRef(copy);
}

// Per output column of a join, the side column it reads (-1: none); per side column,
// whether the keys or the residual read it whatever the query names.
struct ColumnUse {
  std::vector<int> out_left, out_right;
  std::vector<bool> left_always, right_always;
};

// `batch` narrowed to the fields of `sub`, by name (a source returns at least the
// columns asked for).
Result<BatchRef> ProjectBatch(const BatchRef& batch,
                              const std::shared_ptr<arrow::Schema>& sub) {
  if (batch->schema()->Equals(*sub, false)) return batch;
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (const auto& f : sub->fields()) {
    auto c = batch->GetColumnByName(f->name());
    if (c == nullptr) {
      return MakeError(ErrorCode::kInternal, "join input lacks column {}", f->name());
    }
    columns.push_back(std::move(c));
  }
  return arrow::RecordBatch::Make(sub, batch->num_rows(), std::move(columns));
}

std::shared_ptr<arrow::Schema> SubSchema(const arrow::Schema& full,
                                         const std::vector<bool>& keep) {
  std::vector<std::shared_ptr<arrow::Field>> fields;
  for (size_t i = 0; i < keep.size(); ++i) {
    if (keep[i]) fields.push_back(full.field(static_cast<int>(i)));
  }
  return arrow::schema(std::move(fields));
}

// The join narrowed to the side columns a query reads: the pairs, the USING pairs and
// the output keep the order of the whole join, without the columns nobody reads.
std::shared_ptr<const JoinSpec> PrunedSpec(const JoinSpec& spec,
                                           const std::vector<bool>& lneed,
                                           const std::vector<bool>& rneed) {
  auto out = std::make_shared<JoinSpec>(spec);
  std::vector<int> lmap(lneed.size(), -1), rmap(rneed.size(), -1);
  std::vector<std::shared_ptr<arrow::Field>> pairs, fields;
  const size_t using_count = spec.using_columns.size();
  for (size_t k = 0; k < using_count; ++k) {
    fields.push_back(spec.output_schema->field(static_cast<int>(k)));
  }
  for (size_t i = 0; i < lneed.size(); ++i) {
    if (!lneed[i]) continue;
    lmap[i] = static_cast<int>(pairs.size());
    pairs.push_back(spec.pairs_schema->field(static_cast<int>(i)));
    fields.push_back(spec.output_schema->field(static_cast<int>(using_count + i)));
  }
  int right_count = 0;
  for (size_t i = 0; i < rneed.size(); ++i) {
    if (!rneed[i]) continue;
    rmap[i] = right_count++;
    pairs.push_back(spec.pairs_schema->field(static_cast<int>(lneed.size() + i)));
    if (spec.keep_right) {
      fields.push_back(
          spec.output_schema->field(static_cast<int>(using_count + lneed.size() + i)));
    }
  }
  out->using_columns.clear();
  for (const auto& [l, r] : spec.using_columns) {
    out->using_columns.emplace_back(lmap[static_cast<size_t>(l)],
                                    rmap[static_cast<size_t>(r)]);
  }
  out->pairs_schema = arrow::schema(std::move(pairs));
  out->output_schema = arrow::schema(std::move(fields));
  return out;
}

}  // namespace

Result<std::optional<std::vector<std::string>>> ResolveColumnPath(
    const std::vector<std::string>& path, const std::vector<ColumnSource>& cols,
    const StructType& schema) {
  std::vector<std::pair<size_t, size_t>> hits;  // column, parts consumed
  for (size_t i = 0; i < cols.size(); ++i) {
    for (const auto& q : cols[i].qualifiers) {
      std::vector<std::string_view> parts = Split(q, '.');
      if (path.size() <= parts.size()) continue;
      bool match = EqualsIgnoreCase(cols[i].name, path[parts.size()]);
      for (size_t k = 0; k < parts.size() && match; ++k) {
        match = EqualsIgnoreCase(parts[k], path[k]);
      }
      if (match) {
        hits.emplace_back(i, parts.size() + 1);
        break;
      }
    }
  }
  if (hits.empty()) {
    for (size_t i = 0; i < cols.size(); ++i) {
      if (cols[i].unqualified && EqualsIgnoreCase(cols[i].name, path[0])) {
        hits.emplace_back(i, 1);
      }
    }
  }
  if (hits.empty()) return std::optional<std::vector<std::string>>();
  if (hits.size() > 1) {
    std::vector<std::string> could;
    for (const auto& [i, used] : hits) {
      const auto& q = cols[i].qualifiers;
      could.push_back(q.empty() ? fmt::format("`{}`", cols[i].name)
                                : fmt::format("`{}`.`{}`", q[0], cols[i].name));
    }
    std::string shown;
    for (size_t k = 0; k < path.size(); ++k) shown += (k ? "." : "") + path[k];
    return MakeError(ErrorCode::kInvalidArgument,
                     "AMBIGUOUS_REFERENCE: Reference `{}` is ambiguous, could be: [{}]",
                     shown, fmt::join(could, ", "));
  }
  std::vector<std::string> out{schema.field(hits[0].first).name};
  out.insert(out.end(), path.begin() + static_cast<std::ptrdiff_t>(hits[0].second),
             path.end());
  return std::optional<std::vector<std::string>>(std::move(out));
}

Result<SourcePlan> PlanJoin(const FromClause& from, const QueryContext& context,
                            int depth) {
  const JoinClause& j = *from.join;
  Side left, right;
  DELTA_ASSIGN_OR_RETURN(left.plan, PlanFrom(j.left, context, nullptr, depth + 1));
  DELTA_ASSIGN_OR_RETURN(right.plan, PlanFrom(j.right, context, nullptr, depth + 1));
  for (Side* s : {&left, &right}) {
    s->columns = ColumnsOf(s->plan);
    DELTA_ASSIGN_OR_RETURN(s->arrow_schema, ToArrowSchema(*s->plan.schema));
  }
  auto spec = std::make_shared<JoinSpec>();
  spec->type = j.type;
  spec->now_micros = context.now_micros;
  spec->keep_right = j.type != Type::kLeftSemi && j.type != Type::kLeftAnti;

  // USING (or NATURAL): the pairs of columns, by name.
  std::vector<std::string> using_names = j.using_columns;
  if (j.natural) {
    // The names both sides list in `*` (hidden columns such as _metadata are not).
    for (const auto& c : left.columns) {
      const int r =
          c.unqualified && c.in_star ? FindUnqualified(right.columns, c.name) : -1;
      if (r >= 0 && right.columns[static_cast<size_t>(r)].in_star) {
        using_names.push_back(c.name);
      }
    }
  }
  std::vector<std::pair<int, int>> using_pairs;
  for (const auto& name : using_names) {
    const int l = FindUnqualified(left.columns, name);
    const int r = FindUnqualified(right.columns, name);
    if (l < 0 || r < 0) {
      return MakeError(ErrorCode::kNotFound,
                       "UNRESOLVED_USING_COLUMN_FOR_JOIN: USING column `{}` cannot be "
                       "resolved on the {} side of the join",
                       name, l < 0 ? "left" : "right");
    }
    using_pairs.emplace_back(l, r);
    spec->left_keys.push_back(BoundColumn(left.plan.schema->field(l).name,
                                          left.plan.schema->field(l).type, true));
    spec->right_keys.push_back(BoundColumn(right.plan.schema->field(r).name,
                                           right.plan.schema->field(r).type, true));
  }

  // The output columns and their internal names.
  std::vector<ColumnSource> cols;
  std::vector<StructField> fields;
  for (const auto& [l, r] : using_pairs) {
    const auto& lf = left.plan.schema->field(static_cast<size_t>(l));
    const auto& rf = right.plan.schema->field(static_cast<size_t>(r));
    DataTypeRef type = CommonTypeOf(lf.type, rf.type);
    if (type == nullptr) {
      return MakeError(ErrorCode::kSchemaMismatch,
                       "USING column `{}` is {} on the left and {} on the right", lf.name,
                       lf.type->ToString(), rf.type->ToString());
    }
    if (spec->keep_right) {
      // As Spark: the left's column (the right's for RIGHT joins); FULL joins their
      // coalesce, of the common type.
      DataTypeRef out = j.type == Type::kFull    ? type
                        : j.type == Type::kRight ? rf.type
                                                 : lf.type;
      cols.push_back(
          ColumnSource{left.columns[static_cast<size_t>(l)].name, {}, true, true});
      fields.push_back(StructField{lf.name, out, true, {}});
    }
  }
  auto hidden = [&](const std::vector<std::pair<int, int>>& pairs, bool is_left,
                    size_t i) {
    for (const auto& p : pairs) {
      if (static_cast<size_t>(is_left ? p.first : p.second) == i) return true;
    }
    return false;
  };
  const size_t using_count = cols.size();
  for (size_t i = 0; i < left.columns.size(); ++i) {
    ColumnSource c = left.columns[i];
    if (spec->keep_right && hidden(using_pairs, true, i))
      c.unqualified = c.in_star = false;
    cols.push_back(std::move(c));
    fields.push_back(left.plan.schema->field(i));
  }
  if (spec->keep_right) {
    for (size_t i = 0; i < right.columns.size(); ++i) {
      ColumnSource c = right.columns[i];
      if (hidden(using_pairs, false, i)) c.unqualified = c.in_star = false;
      cols.push_back(std::move(c));
      fields.push_back(right.plan.schema->field(i));
    }
  }
  // Outer joins make the padded side nullable.
  for (size_t k = using_count; k < fields.size(); ++k) {
    const bool from_left = k < using_count + left.columns.size();
    if ((from_left && (j.type == Type::kRight || j.type == Type::kFull)) ||
        (!from_left && (j.type == Type::kLeft || j.type == Type::kFull))) {
      fields[k].nullable = true;
    }
  }
  std::map<std::string, int> seen;
  for (const auto& c : cols) ++seen[AsciiToLower(c.name)];
  for (size_t k = 0; k < fields.size(); ++k) {
    fields[k].name = seen[AsciiToLower(cols[k].name)] > 1
                         ? fmt::format("{}#{}", cols[k].name, k)
                         : cols[k].name;
  }
  auto schema = std::make_shared<const StructType>(fields);

  // The pairs schema: the left then the right columns under their output names.
  std::vector<StructField> pair_fields;
  std::vector<ColumnSource> pair_cols;
  for (size_t k = using_count; k < fields.size(); ++k) {
    pair_fields.push_back(fields[k]);
    pair_cols.push_back(cols[k]);
  }
  if (!spec->keep_right) {  // SEMI/ANTI: the right side only for the condition
    std::map<std::string, int> both;
    for (const auto& c : left.columns) ++both[AsciiToLower(c.name)];
    for (const auto& c : right.columns) ++both[AsciiToLower(c.name)];
    for (size_t i = 0; i < right.columns.size(); ++i) {
      StructField f = right.plan.schema->field(i);
      f.name = both[AsciiToLower(right.columns[i].name)] > 1
                   ? fmt::format("{}#r{}", right.columns[i].name, i)
                   : right.columns[i].name;
      pair_fields.push_back(std::move(f));
      pair_cols.push_back(right.columns[i]);
    }
  }
  const StructType pairs(pair_fields);

  // ON: equalities between the sides are keys, the rest the residual.
  if (j.on != nullptr) {
    std::vector<ExprRef> conjuncts, rest;
    SplitConjuncts(j.on, &conjuncts);
    for (const auto& c : conjuncts) {
      bool keyed = false;
      if (c->kind == ExprKind::kBinary && c->op == ExprOp::kEq &&
          c->children.size() == 2) {
        for (int swap = 0; swap < 2 && !keyed; ++swap) {
          bool lm = false, rm = false;
          DELTA_ASSIGN_OR_RETURN(ExprRef le, Resolve(c->children[swap], left.columns,
                                                     *left.plan.schema, &lm));
          DELTA_ASSIGN_OR_RETURN(ExprRef re, Resolve(c->children[1 - swap], right.columns,
                                                     *right.plan.schema, &rm));
          if (lm || rm) continue;
          auto lb = Bind(*le, *left.plan.schema);
          auto rb = Bind(*re, *right.plan.schema);
          if (!lb || !rb) continue;
          spec->left_keys.push_back(*lb);
          spec->right_keys.push_back(*rb);
          keyed = true;
        }
      }
      if (!keyed) rest.push_back(c);
    }
    if (!rest.empty()) {
      ExprRef residual = AndOf(rest);
      bool missing = false;
      DELTA_ASSIGN_OR_RETURN(residual, Resolve(residual, pair_cols, pairs, &missing));
      DELTA_ASSIGN_OR_RETURN(spec->residual, BindPredicate(*residual, pairs));
    }
  }
  for (size_t k = 0; k < spec->left_keys.size(); ++k) {
    DataTypeRef type = CommonTypeOf(spec->left_keys[k]->type, spec->right_keys[k]->type);
    if (type == nullptr) {
      return MakeError(
          ErrorCode::kSchemaMismatch, "JOIN condition: cannot compare {} with {}",
          spec->left_keys[k]->type->ToString(), spec->right_keys[k]->type->ToString());
    }
    DELTA_ASSIGN_OR_RETURN(auto arrow_type, ToArrowType(*type));
    spec->key_types.push_back(arrow_type);
  }
  DELTA_ASSIGN_OR_RETURN(spec->pairs_schema, ToArrowSchema(pairs));
  DELTA_ASSIGN_OR_RETURN(spec->output_schema, ToArrowSchema(*schema));
  std::vector<std::pair<int, int>> using_out;
  if (spec->keep_right) {
    for (const auto& [l, r] : using_pairs) using_out.emplace_back(l, r);
  }
  spec->using_columns = using_out;

  // Which side columns an output column reads, and the ones the keys and the residual
  // always read: a query reads only what it names (ColumnUse).
  ColumnUse use;
  use.out_left.assign(fields.size(), -1);
  use.out_right.assign(fields.size(), -1);
  for (size_t k = 0; k < using_count; ++k) {
    use.out_left[k] = using_pairs[k].first;
    use.out_right[k] = using_pairs[k].second;
  }
  for (size_t i = 0; i < left.columns.size(); ++i) {
    use.out_left[using_count + i] = static_cast<int>(i);
  }
  if (spec->keep_right) {
    for (size_t i = 0; i < right.columns.size(); ++i) {
      use.out_right[using_count + left.columns.size() + i] = static_cast<int>(i);
    }
  }
  use.left_always.assign(left.columns.size(), false);
  use.right_always.assign(right.columns.size(), false);
  auto mark = [](const BoundExpr& e, const StructType& schema, size_t base,
                 std::vector<bool>* marks, std::vector<bool>* rest) {
    for (const auto& path : ReferencedColumns(e)) {
      const int at = schema.FieldIndexCaseInsensitive(path[0]);
      if (at < 0) continue;
      const auto i = static_cast<size_t>(at);
      if (i < base || rest == nullptr) {
        (*marks)[i] = true;
      } else {
        (*rest)[i - base] = true;
      }
    }
  };
  for (const auto& k : spec->left_keys) {
    mark(*k, *left.plan.schema, SIZE_MAX, &use.left_always, nullptr);
  }
  for (const auto& k : spec->right_keys) {
    mark(*k, *right.plan.schema, SIZE_MAX, &use.right_always, nullptr);
  }
  if (spec->residual != nullptr) {
    mark(*spec->residual, pairs, left.columns.size(), &use.left_always,
         &use.right_always);
  }

  SourcePlan out;
  out.schema = schema;
  out.columns = cols;
  out.name = fmt::format("{} JOIN {}", left.plan.name, right.plan.name);
  std::shared_ptr<const JoinSpec> fixed = spec;
  auto left_open = left.plan.open;
  auto right_open = right.plan.open;
  auto left_names = FieldNames(*left.plan.schema);
  auto right_names = FieldNames(*right.plan.schema);
  auto left_schema = left.arrow_schema;
  auto right_schema = right.arrow_schema;
  QueryMemoryRef memory = context.memory;
  out.open = [=](const std::vector<std::string>& wanted) -> Result<ReaderRef> {
    std::vector<bool> lneed = use.left_always;
    std::vector<bool> rneed = use.right_always;
    for (const auto& w : wanted) {
      const int k = schema->FieldIndexCaseInsensitive(w);
      if (k < 0) {  // not a column of the join: read everything
        lneed.assign(lneed.size(), true);
        rneed.assign(rneed.size(), true);
        break;
      }
      const auto at = static_cast<size_t>(k);
      if (use.out_left[at] >= 0) lneed[static_cast<size_t>(use.out_left[at])] = true;
      if (use.out_right[at] >= 0) rneed[static_cast<size_t>(use.out_right[at])] = true;
    }
    auto pick = [](const std::vector<std::string>& names, const std::vector<bool>& need) {
      std::vector<std::string> out;
      for (size_t i = 0; i < names.size(); ++i) {
        if (need[i]) out.push_back(names[i]);
      }
      return out;
    };
    // USING columns are keys: both sides read them, and the output keeps them.
    auto left_sub = SubSchema(*left_schema, lneed);
    auto right_sub = SubSchema(*right_schema, rneed);
    DELTA_ASSIGN_OR_RETURN(ReaderRef r, right_open(pick(right_names, rneed)));
    DELTA_ASSIGN_OR_RETURN(HeldRows held,
                           HoldAll(r, r->schema(), "JOIN right side", memory));
    DELTA_ASSIGN_OR_RETURN(ReaderRef l, left_open(pick(left_names, lneed)));
    ReaderRef narrowed = MapReader(
        l, left_sub, [left_sub](const BatchRef& b) { return ProjectBatch(b, left_sub); });
    auto pruned = PrunedSpec(*fixed, lneed, rneed);
    if (held.spilled) {
      for (auto& b : held.batches) {
        DELTA_ASSIGN_OR_RETURN(b, ProjectBatch(b, right_sub));
      }
      return OpenSpilledJoin(std::move(pruned), std::move(narrowed),
                             std::move(held.batches), held.bytes, memory);
    }
    DELTA_ARROW_ASSIGN_OR_RETURN(
        auto table, arrow::Table::FromRecordBatches(r->schema(), held.batches),
        ErrorCode::kInternal, "JOIN right side");
    held.batches.clear();
    DELTA_ARROW_ASSIGN_OR_RETURN(BatchRef right_batch, table->CombineChunksToBatch(),
                                 ErrorCode::kInternal, "JOIN right side");
    table.reset();
    DELTA_ASSIGN_OR_RETURN(right_batch, ProjectBatch(right_batch, right_sub));
    DELTA_ASSIGN_OR_RETURN(
        auto reader,
        OpenJoinReader(std::move(pruned), std::move(narrowed), std::move(right_batch)));
    // The right side's reservation lasts as long as the join reads.
    return KeepAlive(std::move(reader), held.reservation);
  };
  return out;
}

}  // namespace deltaguard::query_internal
