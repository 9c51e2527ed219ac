// MERGE planning: name resolution across target and source, the ON condition's join
// keys, clause expansion (`*`, EXCEPT, explicit assignments) and the schema rules of
// docs/decisions.md §3 / docs/spark_semantics.md §5.6 (merge_internal.h).

#include <arrow/array/util.h>
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/dml/merge_internal.h"
#include "deltaguard/dml/merge_names_internal.h"
#include "deltaguard/dml/merge_plan_internal.h"
#include "deltaguard/drift/write_error.h"
#include "deltaguard/evolution/type_rules.h"
#include "deltaguard/evolution/write_schema.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::dml_internal {
namespace {

using merge_plan::Assigned;
using merge_plan::Draft;
using merge_plan::IsDelete;
using merge_plan::IsMatched;
using merge_plan::IsNotMatched;
using merge_plan::IsStar;
using merge_plan::IsUpdate;
using merge_plan::Kind;
using merge_plan::PlanClause;
using merge_plan::PlanInput;

std::string_view KindName(Kind k) {
  if (IsMatched(k)) return "WHEN MATCHED";
  if (IsNotMatched(k)) return "WHEN NOT MATCHED";
  return "WHEN NOT MATCHED BY SOURCE";
}
std::string_view ActionName(Kind k) {
  switch (k) {
    case Kind::kMatchedUpdate:
    case Kind::kNotMatchedBySourceUpdate:
      return "UPDATE";
    case Kind::kMatchedUpdateAll:
      return "UPDATE SET *";
    case Kind::kNotMatchedInsert:
      return "INSERT";
    case Kind::kNotMatchedInsertAll:
      return "INSERT *";
    default:
      return "DELETE";
  }
}

void Conjuncts(const ExprRef& e, std::vector<ExprRef>* out) {
  if (e->kind == ExprKind::kBinary && e->op == ExprOp::kAnd) {
    for (const auto& c : e->children) Conjuncts(c, out);
  } else {
    out->push_back(e);
  }
}

Status CheckSpec(const MergeSpec& spec, const std::string& table) {
  if (spec.target_alias.empty() || spec.source_alias.empty() ||
      EqualsIgnoreCase(spec.target_alias, spec.source_alias)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "MERGE into '{}': target and source need distinct names (target "
                     "'{}', source '{}'); give one an alias",
                     table, spec.target_alias, spec.source_alias);
  }
  if (!spec.on) {
    return MakeError(ErrorCode::kInvalidArgument, "MERGE into '{}' needs an ON condition",
                     table);
  }
  if (spec.clauses.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "MERGE into '{}' needs at least one WHEN clause", table);
  }
  if (!spec.source.schema || !spec.source.open) {
    return MakeError(ErrorCode::kInvalidArgument, "MERGE into '{}': no source given",
                     table);
  }
  return OkStatus();
}

// The joined schema: target columns then source columns, named JoinedName, nullable.
StructType JoinedSchema(const MergeSpec& spec, const StructType& t, const StructType& s) {
  std::vector<StructField> joined_fields;
  for (const auto& f : t.fields())
    joined_fields.push_back({JoinedName(spec.target_alias, f.name), f.type, true, {}});
  for (const auto& f : s.fields())
    joined_fields.push_back({JoinedName(spec.source_alias, f.name), f.type, true, {}});
  return StructType(std::move(joined_fields));
}

// The top-level integral target column a key reads (through casts), for stats pruning.
std::optional<StructField> PruneColumn(const JoinKey& key, const PlanInput& in) {
  const BoundExpr* col = key.target.get();
  while (col->kind == BoundKind::kCast) col = col->args[0].get();
  if (col->kind != BoundKind::kColumn || col->path.size() != 1 ||
      !key.target->type->is_integral()) {
    return std::nullopt;
  }
  std::string prefix = JoinedName(in.spec.target_alias, "");
  int i = in.t.FieldIndexCaseInsensitive(col->path[0].substr(prefix.size()));
  if (i >= 0 && in.t.field(static_cast<size_t>(i)).type->is_integral()) {
    return in.t.field(static_cast<size_t>(i));
  }
  return std::nullopt;
}

// A conjunct `target-only = source-only` (either order) as a join key; nullopt else.
Result<std::optional<JoinKey>> AsJoinKey(const PlanInput& in, const ExprRef& c,
                                         const ExprRef& q, const Scope& scope) {
  std::optional<JoinKey> none;
  if (c->kind != ExprKind::kBinary || c->op != ExprOp::kEq || c->children.size() != 2) {
    return none;
  }
  unsigned s0 = 0, s1 = 0;
  DELTA_ASSIGN_OR_RETURN(auto q0, in.names.Qualify(c->children[0], scope, &s0));
  DELTA_ASSIGN_OR_RETURN(auto q1, in.names.Qualify(c->children[1], scope, &s1));
  bool forward = s0 == kTargetSide && s1 == kSourceSide;
  bool backward = s0 == kSourceSide && s1 == kTargetSide;
  if (!forward && !backward) return none;
  DELTA_ASSIGN_OR_RETURN(auto bound, Bind(*q, in.joined));
  if (bound->kind != BoundKind::kCall || bound->fn != BoundFn::kEq ||
      bound->args.size() != 2) {
    return none;
  }
  JoinKey key;
  key.target = bound->args[forward ? 0 : 1];
  key.source = bound->args[forward ? 1 : 0];
  key.prune_column = PruneColumn(key, in);
  return std::optional<JoinKey>(std::move(key));
}

// ON: equalities between a target-only and a source-only side are join keys; the rest
// is the residual, evaluated on each candidate pair.
Status PlanOn(const PlanInput& in, MergePlan* plan) {
  plan->on_sql = ToSql(*in.spec.on);
  std::vector<ExprRef> conjuncts;
  Conjuncts(in.spec.on, &conjuncts);
  Scope on_scope{true, true, "the ON condition"};
  ExprRef residual;
  for (const auto& c : conjuncts) {
    unsigned sides = 0;
    DELTA_ASSIGN_OR_RETURN(ExprRef q, in.names.Qualify(c, on_scope, &sides));
    DELTA_ASSIGN_OR_RETURN(std::optional<JoinKey> key, AsJoinKey(in, c, q, on_scope));
    if (key) {
      plan->keys.push_back(std::move(*key));
      continue;
    }
    residual = residual ? Expr::Binary(ExprOp::kAnd, residual, q) : q;
  }
  if (residual) {
    auto bound = BindPredicate(*residual, in.joined);
    if (!bound) return WithContext(bound.error(), "the ON condition");
    plan->residual = *bound;
  }
  return OkStatus();
}

// One assignment `column = value` of clause `d` (`star`: expanded from `*`).
Status AddValue(const PlanInput& in, Draft* d, std::pair<std::string, bool> column,
                const ExprRef& value, bool star) {
  const Kind kind = d->when->kind;
  for (const auto& a : d->assigned) {
    if (EqualsIgnoreCase(a.column, column.first)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "{}: column '{}' is assigned more than once", d->describe,
                       column.first);
    }
  }
  Assigned a;
  a.column = column.first;
  a.exists = column.second;
  a.star = star;
  unsigned sides = 0;
  DELTA_ASSIGN_OR_RETURN(a.qualified, in.names.Qualify(value, d->scope, &sides));
  auto bound = Bind(*a.qualified, in.joined);
  if (!bound) return WithContext(bound.error(), d->describe);
  a.value = *bound;
  if (a.exists && !star) {
    a.probe_type =
        in.t.field(static_cast<size_t>(in.t.FieldIndexCaseInsensitive(a.column))).type;
  } else {
    a.probe_type = a.value->type;
  }
  if (!a.exists && !star) {
    if (!in.evolution || kind == Kind::kNotMatchedBySourceUpdate) {
      return MakeError(ErrorCode::kNotFound,
                       "{}: column '{}' does not exist in target '{}' (columns: {}){}",
                       d->describe, a.column, in.table,
                       Columns(in.t, in.spec.target_alias),
                       kind == Kind::kNotMatchedBySourceUpdate
                           ? ""
                           : "; MERGE WITH SCHEMA EVOLUTION would add it");
    }
    if (a.value->type->kind() == TypeKind::kVoid) {
      return MakeError(ErrorCode::kSchemaMismatch,
                       "DELTA_MERGE_ADD_VOID_COLUMN: {}: cannot add column '{}' of "
                       "type void (an untyped NULL); CAST the value to a type",
                       d->describe, a.column);
    }
  }
  d->assigned.push_back(std::move(a));
  return OkStatus();
}

// UPDATE SET * / INSERT *: every source column not in EXCEPT.
Status DraftStar(const PlanInput& in, Draft* d) {
  const MergeWhen& when = *d->when;
  Status st;
  auto except = ExceptSet(when, in.names, in.t, in.s, d->describe, &st);
  DELTA_RETURN_IF_ERROR(st);
  for (const auto& f : in.s.fields()) {
    if (except.count(AsciiToLower(f.name))) continue;
    int ti = in.t.FieldIndexCaseInsensitive(f.name);
    std::pair<std::string, bool> column =
        ti >= 0 ? std::make_pair(in.t.field(static_cast<size_t>(ti)).name, true)
                : std::make_pair(f.name, false);
    DELTA_RETURN_IF_ERROR(AddValue(in, d, column,
                                   Expr::Column({in.spec.source_alias, f.name}),
                                   /*star=*/true));
  }
  if (in.evolution) return OkStatus();
  for (const auto& f : in.t.fields()) {
    if (except.count(AsciiToLower(f.name)) || in.s.FieldIndexCaseInsensitive(f.name) >= 0)
      continue;
    return MakeError(
        ErrorCode::kSchemaMismatch,
        "DELTA_MERGE_UNRESOLVED_EXPRESSION: cannot resolve {}.{} in {}: the source "
        "'{}' has no column '{}' (source columns: {}). Leave it out with {} EXCEPT "
        "({}), or use MERGE WITH SCHEMA EVOLUTION ({})",
        in.spec.source_alias, QuoteIdentifier(f.name), d->describe, in.spec.source.name,
        f.name, Columns(in.s, in.spec.source_alias), ActionName(when.kind),
        QuoteIdentifier(f.name),
        when.kind == Kind::kMatchedUpdateAll ? "the column keeps its value"
                                             : "the column is NULL");
  }
  return OkStatus();
}

// INSERT (columns) VALUES (values).
Status DraftInsert(const PlanInput& in, Draft* d) {
  const MergeWhen& when = *d->when;
  if (when.insert_columns.size() != when.insert_values.size()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "DELTA_INSERT_COLUMN_ARITY_MISMATCH: {}: {} columns but {} "
                     "values",
                     d->describe, when.insert_columns.size(), when.insert_values.size());
  }
  for (size_t i = 0; i < when.insert_columns.size(); ++i) {
    DELTA_ASSIGN_OR_RETURN(auto column,
                           in.names.AssignedColumn(when.insert_columns[i], d->describe));
    DELTA_RETURN_IF_ERROR(AddValue(in, d, column, when.insert_values[i], false));
  }
  return OkStatus();
}

// UPDATE SET assignments; `t.s.f = v` assigns an existing nested field.
Status DraftUpdate(const PlanInput& in, Draft* d) {
  for (const auto& a : d->when->assignments) {
    std::vector<std::string> path = a.column;
    if (path.size() >= 2 && EqualsIgnoreCase(path[0], in.names.target_alias()))
      path.erase(path.begin());
    if (path.size() > 1) {
      // Existing fields only (adding one needs `*` with evolution).
      unsigned sides = 0;
      DELTA_ASSIGN_OR_RETURN(auto q, in.names.Qualify(a.value, d->scope, &sides));
      DELTA_RETURN_IF_ERROR(
          AddNestedAssignment(in.t, path, q, in.joined, d->describe, &d->nested));
      continue;
    }
    DELTA_ASSIGN_OR_RETURN(auto column, in.names.AssignedColumn(a.column, d->describe));
    DELTA_RETURN_IF_ERROR(AddValue(in, d, column, a.value, false));
  }
  return OkStatus();
}

// Clause `ci`: its condition and assignments resolved against the joined schema.
Result<Draft> DraftClause(const PlanInput& in, size_t ci) {
  const MergeWhen& when = in.spec.clauses[ci];
  Draft d;
  d.when = &when;
  d.index = ci;
  d.describe = fmt::format("{} clause {} ({})", KindName(when.kind), ci + 1,
                           ActionName(when.kind));
  d.scope = Scope{!IsNotMatched(when.kind),
                  IsMatched(when.kind) || IsNotMatched(when.kind), d.describe};
  // Spark: within a kind only the last clause may omit its condition.
  if (!when.condition) {
    for (size_t later = ci + 1; later < in.spec.clauses.size(); ++later) {
      if (KindName(in.spec.clauses[later].kind) == KindName(when.kind)) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "NON_LAST_CLAUSE_OMIT_CONDITION: {} of MERGE into '{}' has no "
                         "condition but is followed by clause {} of the same kind, "
                         "which could never apply",
                         d.describe, in.table, later + 1);
      }
    }
  } else {
    unsigned sides = 0;
    DELTA_ASSIGN_OR_RETURN(auto q, in.names.Qualify(when.condition, d.scope, &sides));
    auto bound = BindPredicate(*q, in.joined);
    if (!bound) return WithContext(bound.error(), d.describe);
    d.condition = *bound;
  }
  if (IsStar(when.kind)) {
    DELTA_RETURN_IF_ERROR(DraftStar(in, &d));
  } else if (when.kind == Kind::kNotMatchedInsert) {
    DELTA_RETURN_IF_ERROR(DraftInsert(in, &d));
  } else if (IsUpdate(when.kind)) {
    DELTA_RETURN_IF_ERROR(DraftUpdate(in, &d));
  }
  return d;
}

// The table schema after the MERGE: the write-schema resolution over what each clause
// assigns (NOTES.md decision 3).
struct ClauseSchemas {
  SchemaRef evolved;
  bool changed = false;
  std::vector<std::string> unmatched;  // source columns the target lacks
};

Result<ClauseSchemas> ResolveClauseSchemas(const PlanInput& in,
                                           const std::vector<Draft>& drafts,
                                           MergePlan* plan) {
  WriteSchemaOptions so;
  so.merge_schema = true;  // find every column the target lacks; decided by the caller
  auto widening = in.snapshot.metadata().GetConfig("delta.enableTypeWidening");
  so.allow_type_widening =
      in.evolution && widening && EqualsIgnoreCase(*widening, "true");
  so.option_hint = "WITH SCHEMA EVOLUTION";
  ClauseSchemas out;
  out.evolved = plan->target_schema;
  for (const auto& d : drafts) {
    Kind k = d.when->kind;
    if (IsDelete(k) || k == Kind::kNotMatchedBySourceUpdate) continue;
    std::vector<StructField> fields;
    for (const auto& a : d.assigned) fields.push_back({a.column, a.probe_type, true, {}});
    for (const auto& f : in.t.fields()) {
      bool assigned = std::any_of(d.assigned.begin(), d.assigned.end(), [&](auto& a) {
        return EqualsIgnoreCase(a.column, f.name);
      });
      if (!assigned) fields.push_back({f.name, f.type, true, {}});
    }
    auto resolved =
        ResolveWriteSchema(out.evolved, StructType(std::move(fields)), so, in.table);
    if (!resolved) return WithContext(resolved.error(), d.describe);
    out.changed = out.changed || resolved->changed;
    out.evolved = resolved->table_schema;
    for (auto& c : resolved->added_columns) {
      if (std::find(out.unmatched.begin(), out.unmatched.end(), c) == out.unmatched.end())
        out.unmatched.push_back(std::move(c));
    }
    for (auto& c : resolved->widened_columns)
      plan->widened_columns.push_back(std::move(c));
  }
  return out;
}

// Without schema evolution, source columns the target lacks are an error, or dropped
// with a warning when the session allows it.
Status ApplyUnmatchedRule(const PlanInput& in, const std::vector<std::string>& unmatched,
                          MergePlan* plan) {
  if (unmatched.empty()) return OkStatus();
  std::vector<std::string> top;
  for (const auto& c : unmatched) {
    std::string first = c.substr(0, c.find('.'));
    if (std::find(top.begin(), top.end(), first) == top.end()) top.push_back(first);
  }
  if (!in.spec.ignore_unmatched_source_columns) {
    // The refusal names the changes as `drift` classifies them (docs/drift.md).
    return WithDriftChanges(
        MakeError(
            ErrorCode::kSchemaMismatch,
            "DELTA_MERGE_UNMATCHED_SOURCE_COLUMNS: MERGE into '{}' would silently drop "
            "source columns the target does not have: [{}] (UPDATE SET * / INSERT * "
            "assign every source column). Nothing was written. Either add them with "
            "MERGE WITH SCHEMA EVOLUTION ({}; session: "
            "spark.databricks.delta.schema.autoMerge.enabled = true), or leave them out "
            "deliberately with UPDATE SET * EXCEPT ({}) / INSERT * EXCEPT ({}), or set "
            "{} = true to drop them with a warning as Spark does",
            in.table, JoinList(unmatched), in.spec.evolution_option_hint, JoinList(top),
            JoinList(top), kMergeIgnoreUnmatchedSourceColumnsSetting),
        DriftSideFromMetadata(in.snapshot.metadata(), in.snapshot.schema()), in.s);
  }
  plan->ignored_source_columns = unmatched;
  plan->warnings.push_back(fmt::format(
      "MERGE into '{}': source columns [{}] do not exist in the target and were not "
      "stored ({} = true)",
      in.table, JoinList(unmatched), kMergeIgnoreUnmatchedSourceColumnsSetting));
  return OkStatus();
}

}  // namespace

std::string ClausePlan::Describe() const {
  return fmt::format("{} clause {} ({})", KindName(kind), index + 1, ActionName(kind));
}

std::string JoinedName(const std::string& alias, const std::string& column) {
  return alias + "." + column;
}

Result<MergePlan> PlanMerge(const DmlTarget& target, const MergeSpec& spec,
                            const SessionSettings& session) {
  const std::string& table = target.name;
  const Snapshot& snapshot = *target.snapshot;
  MergePlan plan;
  plan.target_alias = spec.target_alias;
  plan.source_alias = spec.source_alias;
  DELTA_RETURN_IF_ERROR(CheckSpec(spec, table));
  plan.target_schema = snapshot.schema();
  SchemaRef source_schema = spec.source.delta_schema;
  if (!source_schema) {
    auto derived = FromArrowSchema(*spec.source.schema);
    if (!derived) {
      return WithContext(derived.error(),
                         fmt::format("MERGE source '{}'", spec.source.name));
    }
    source_schema = std::move(*derived);
  }
  plan.source_schema =
      std::static_pointer_cast<const StructType>(MakeNullable(source_schema));
  DELTA_ASSIGN_OR_RETURN(plan.source_arrow, ToArrowSchema(*plan.source_schema));
  const StructType& t = *plan.target_schema;
  const StructType& s = *plan.source_schema;
  Names names(spec.target_alias, spec.source_alias, plan.target_schema,
              plan.source_schema);
  const StructType joined = JoinedSchema(spec, t, s);
  const PlanInput in{
      spec, snapshot, table,  t,
      s,    names,    joined, spec.schema_evolution.value_or(session.auto_merge)};
  DELTA_RETURN_IF_ERROR(PlanOn(in, &plan));

  // Clauses: resolve conditions and assignments.
  std::vector<Draft> drafts;
  for (size_t ci = 0; ci < spec.clauses.size(); ++ci) {
    DELTA_ASSIGN_OR_RETURN(Draft d, DraftClause(in, ci));
    drafts.push_back(std::move(d));
  }

  // Schema rules: the table schema after the commit.
  DELTA_ASSIGN_OR_RETURN(ClauseSchemas schemas, ResolveClauseSchemas(in, drafts, &plan));
  if (in.evolution) {
    plan.added_columns = schemas.unmatched;
  } else {
    schemas.changed = false;
    DELTA_RETURN_IF_ERROR(ApplyUnmatchedRule(in, schemas.unmatched, &plan));
    schemas.evolved = plan.target_schema;
  }
  DELTA_ASSIGN_OR_RETURN(plan.schema,
                         ChangeSchema(snapshot, schemas.evolved, schemas.changed));

  for (auto& d : drafts) {
    DELTA_ASSIGN_OR_RETURN(ClausePlan c, PlanClause(in, d, plan));
    if (IsMatched(c.kind)) {
      plan.matched.push_back(std::move(c));
    } else if (IsNotMatched(c.kind)) {
      plan.not_matched.push_back(std::move(c));
    } else {
      plan.not_matched_by_source.push_back(std::move(c));
    }
  }
  plan.multiple_matches_allowed =
      plan.matched.size() == 1 && plan.matched[0].is_delete && !plan.matched[0].condition;
  plan.modifies_rows = !plan.matched.empty() || !plan.not_matched_by_source.empty();
  return plan;
}

}  // namespace deltaguard::dml_internal
