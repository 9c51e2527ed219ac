// MERGE planning, the last step: each clause's output columns in the table schema after
// the commit (assigned, nested, kept or absent), their Arrow types and the conformer
// (merge_plan_internal.h).

#include <arrow/array/util.h>
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/dml/merge_plan_internal.h"
#include "deltaguard/evolution/type_rules.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::dml_internal::merge_plan {
namespace {

ExprRef CastTo(const ExprRef& e, const DataTypeRef& type) {
  auto c = std::make_shared<Expr>();
  c->kind = ExprKind::kCast;
  c->cast_type = type;
  c->children = {e};
  return c;
}

// The target column `name` as it is (a column the clause does not assign).
Result<BoundExprRef> TargetColumn(const PlanInput& in, const std::string& name) {
  return Bind(*Expr::Column({JoinedName(in.spec.target_alias, name)}), in.joined);
}

// An assigned value for output column `g`: pruned, keeping target-only fields, or cast.
Status ProjectAssigned(const PlanInput& in, const Draft& d, Kind kind, const Assigned& a,
                       const StructField& g, ProjectedColumn* p) {
  p->value = a.value;
  const DataType& from = *a.value->type;
  if (from.kind() == TypeKind::kVoid) {
    p->value = nullptr;
  } else if (a.star && in.spec.ignore_unmatched_source_columns && !in.evolution) {
    DataTypeRef pruned = PruneType(a.value->type, g.type);
    if (pruned != a.value->type) {
      DELTA_ASSIGN_OR_RETURN(p->prune_to, ToArrowType(*pruned));
    }
  } else if (a.star && in.evolution && IsUpdate(kind) &&
             in.t.FieldIndexCaseInsensitive(g.name) >= 0 &&
             HasTargetOnlyFields(from, *g.type)) {
    // Spark: target-only nested fields keep their value under UPDATE SET *.
    const auto& tf =
        in.t.field(static_cast<size_t>(in.t.FieldIndexCaseInsensitive(g.name)));
    DELTA_ASSIGN_OR_RETURN(p->keep_from, TargetColumn(in, tf.name));
  } else if (!a.star && from.is_numeric() && g.type->is_numeric() &&
             !from.Equals(*g.type) && !IsLosslessWriteCast(from, *g.type)) {
    auto cast = Bind(*CastTo(a.qualified, g.type), in.joined);
    if (!cast) return WithContext(cast.error(), d.describe);
    p->value = *cast;
  }
  return OkStatus();
}

// Output column `g` of clause `d`: assigned as a whole, in nested fields, kept (an
// update), or absent (p.value null: NULL or the table default).
Result<ProjectedColumn> ProjectColumn(const PlanInput& in, Draft& d, Kind kind,
                                      const StructField& g) {
  ProjectedColumn p;
  p.name = g.name;
  auto a = std::find_if(d.assigned.begin(), d.assigned.end(),
                        [&](auto& x) { return EqualsIgnoreCase(x.column, g.name); });
  auto nested = std::find_if(d.nested.begin(), d.nested.end(),
                             [&](auto& x) { return x.first == g.name; });
  if (nested != d.nested.end()) {
    if (a != d.assigned.end()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "{}: column '{}' is assigned both as a whole and in its "
                       "nested fields",
                       d.describe, g.name);
    }
    // The current struct with the assigned fields replaced (merge_run.cc EmitColumn).
    DELTA_ASSIGN_OR_RETURN(p.value, TargetColumn(in, g.name));
    p.nested = std::move(nested->second);
  } else if (a != d.assigned.end()) {
    DELTA_RETURN_IF_ERROR(ProjectAssigned(in, d, kind, *a, g, &p));
  } else if (IsUpdate(kind) && in.t.FieldIndexCaseInsensitive(g.name) >= 0) {
    // Not assigned by an update: keeps its value.
    const auto& tf =
        in.t.field(static_cast<size_t>(in.t.FieldIndexCaseInsensitive(g.name)));
    DELTA_ASSIGN_OR_RETURN(p.value, TargetColumn(in, tf.name));
  }
  return p;
}

// The Arrow type column `p` has when the clause's batch reaches the conformer.
Result<std::shared_ptr<arrow::DataType>> ProjectedType(const ProjectedColumn& p,
                                                       const Draft& d) {
  std::shared_ptr<arrow::DataType> type = p.prune_to;
  if (!type) {
    DELTA_ASSIGN_OR_RETURN(type, ToArrowType(*p.value->type));
  }
  if (!p.keep_from) return type;
  // The struct after KeepTargetOnlyFields: the source's fields, then the target-only
  // ones (the conformer puts them in the table's order).
  DELTA_ASSIGN_OR_RETURN(auto t_type, ToArrowType(*p.keep_from->type));
  auto probe_s = arrow::MakeArrayOfNull(type, 0);
  auto probe_t = arrow::MakeArrayOfNull(t_type, 0);
  if (!probe_s.ok() || !probe_t.ok()) {
    return MakeError(ErrorCode::kInternal, "{}: cannot type column {}", d.describe,
                     p.name);
  }
  DELTA_ASSIGN_OR_RETURN(auto probe, KeepTargetOnlyFields(*probe_s, *probe_t));
  return probe->type();
}

}  // namespace

Result<ClausePlan> PlanClause(const PlanInput& in, Draft& d, const MergePlan& plan) {
  ClausePlan c;
  c.kind = d.when->kind;
  c.index = d.index;
  c.is_delete = IsDelete(c.kind);
  c.condition = d.condition;
  if (d.when->condition) c.condition_sql = ToSql(*d.when->condition);
  if (c.is_delete) return c;
  std::vector<std::shared_ptr<arrow::Field>> input;
  for (const auto& g : plan.schema.schema->fields()) {
    DELTA_ASSIGN_OR_RETURN(ProjectedColumn p, ProjectColumn(in, d, c.kind, g));
    if (p.value) {
      DELTA_ASSIGN_OR_RETURN(auto type, ProjectedType(p, d));
      input.push_back(arrow::field(g.name, type, true));
    }
    c.columns.push_back(std::move(p));
  }
  auto conformer = BatchConformer::Make(plan.schema.schema, arrow::schema(input),
                                        ConformOptions{false, in.table});
  if (!conformer) return WithContext(conformer.error(), d.describe);
  c.conformer = std::move(*conformer);
  return c;
}

}  // namespace deltaguard::dml_internal::merge_plan
