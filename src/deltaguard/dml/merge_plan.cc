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
#include "deltaguard/evolution/type_rules.h"
#include "deltaguard/evolution/write_schema.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::dml_internal {
namespace {

using Kind = MergeWhen::Kind;

bool IsMatched(Kind k) {
  return k == Kind::kMatchedUpdate || k == Kind::kMatchedUpdateAll ||
         k == Kind::kMatchedDelete;
}
bool IsNotMatched(Kind k) {
  return k == Kind::kNotMatchedInsert || k == Kind::kNotMatchedInsertAll;
}
bool IsDelete(Kind k) {
  return k == Kind::kMatchedDelete || k == Kind::kNotMatchedBySourceDelete;
}
bool IsUpdate(Kind k) {
  return k == Kind::kMatchedUpdate || k == Kind::kMatchedUpdateAll ||
         k == Kind::kNotMatchedBySourceUpdate;
}
bool IsStar(Kind k) {
  return k == Kind::kMatchedUpdateAll || k == Kind::kNotMatchedInsertAll;
}

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

// One assignment of a clause before the table schema after the MERGE is known.
struct Assigned {
  std::string column;  // target spelling when it exists, else as written
  bool exists = false;
  bool star = false;
  ExprRef qualified;  // the value over the joined schema
  BoundExprRef value;
  DataTypeRef probe_type;  // what the schema resolution sees
};

struct Draft {
  const MergeWhen* when = nullptr;
  size_t index = 0;
  Scope scope;
  BoundExprRef condition;
  std::vector<Assigned> assigned;
  NestedSets nested;  ///< `SET t.s.f = v` of an update
  std::string describe;
};

ExprRef CastTo(const ExprRef& e, const DataTypeRef& type) {
  auto c = std::make_shared<Expr>();
  c->kind = ExprKind::kCast;
  c->cast_type = type;
  c->children = {e};
  return c;
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
  plan.target_schema = snapshot.schema();
  auto source_schema = FromArrowSchema(*spec.source.schema);
  if (!source_schema) {
    return WithContext(source_schema.error(),
                       fmt::format("MERGE source '{}'", spec.source.name));
  }
  plan.source_schema =
      std::static_pointer_cast<const StructType>(MakeNullable(*source_schema));
  DELTA_ASSIGN_OR_RETURN(plan.source_arrow, ToArrowSchema(*plan.source_schema));
  const StructType& t = *plan.target_schema;
  const StructType& s = *plan.source_schema;
  Names names(spec.target_alias, spec.source_alias, plan.target_schema,
              plan.source_schema);

  // The joined schema every expression binds against.
  std::vector<StructField> joined_fields;
  for (const auto& f : t.fields())
    joined_fields.push_back({JoinedName(spec.target_alias, f.name), f.type, true, {}});
  for (const auto& f : s.fields())
    joined_fields.push_back({JoinedName(spec.source_alias, f.name), f.type, true, {}});
  const StructType joined(std::move(joined_fields));

  // ON: equalities between a target-only and a source-only side are join keys.
  plan.on_sql = ToSql(*spec.on);
  std::vector<ExprRef> conjuncts;
  Conjuncts(spec.on, &conjuncts);
  Scope on_scope{true, true, "the ON condition"};
  ExprRef residual;
  for (const auto& c : conjuncts) {
    unsigned sides = 0;
    DELTA_ASSIGN_OR_RETURN(ExprRef q, names.Qualify(c, on_scope, &sides));
    if (c->kind == ExprKind::kBinary && c->op == ExprOp::kEq && c->children.size() == 2) {
      unsigned s0 = 0, s1 = 0;
      DELTA_ASSIGN_OR_RETURN(auto q0, names.Qualify(c->children[0], on_scope, &s0));
      DELTA_ASSIGN_OR_RETURN(auto q1, names.Qualify(c->children[1], on_scope, &s1));
      bool forward = s0 == kTargetSide && s1 == kSourceSide;
      bool backward = s0 == kSourceSide && s1 == kTargetSide;
      if (forward || backward) {
        DELTA_ASSIGN_OR_RETURN(auto bound, Bind(*q, joined));
        if (bound->kind == BoundKind::kCall && bound->fn == BoundFn::kEq &&
            bound->args.size() == 2) {
          JoinKey key;
          key.target = bound->args[forward ? 0 : 1];
          key.source = bound->args[forward ? 1 : 0];
          const BoundExpr* col = key.target.get();
          while (col->kind == BoundKind::kCast) col = col->args[0].get();
          if (col->kind == BoundKind::kColumn && col->path.size() == 1 &&
              key.target->type->is_integral()) {
            std::string prefix = JoinedName(spec.target_alias, "");
            int i = t.FieldIndexCaseInsensitive(col->path[0].substr(prefix.size()));
            if (i >= 0 && t.field(static_cast<size_t>(i)).type->is_integral()) {
              key.prune_column = t.field(static_cast<size_t>(i));
            }
          }
          plan.keys.push_back(std::move(key));
          continue;
        }
      }
    }
    residual = residual ? Expr::Binary(ExprOp::kAnd, residual, q) : q;
  }
  if (residual) {
    auto bound = BindPredicate(*residual, joined);
    if (!bound) return WithContext(bound.error(), "the ON condition");
    plan.residual = *bound;
  }

  // Clauses: resolve conditions and assignments.
  const bool evolution = spec.schema_evolution.value_or(session.auto_merge);
  std::vector<Draft> drafts;
  for (size_t ci = 0; ci < spec.clauses.size(); ++ci) {
    const MergeWhen& when = spec.clauses[ci];
    Draft d;
    d.when = &when;
    d.index = ci;
    d.describe = fmt::format("{} clause {} ({})", KindName(when.kind), ci + 1,
                             ActionName(when.kind));
    d.scope = Scope{!IsNotMatched(when.kind),
                    IsMatched(when.kind) || IsNotMatched(when.kind), d.describe};
    // Spark: within a kind only the last clause may omit its condition.
    if (!when.condition) {
      for (size_t later = ci + 1; later < spec.clauses.size(); ++later) {
        if (KindName(spec.clauses[later].kind) == KindName(when.kind)) {
          return MakeError(ErrorCode::kInvalidArgument,
                           "NON_LAST_CLAUSE_OMIT_CONDITION: {} of MERGE into '{}' has no "
                           "condition but is followed by clause {} of the same kind, "
                           "which could never apply",
                           d.describe, table, later + 1);
        }
      }
    } else {
      unsigned sides = 0;
      DELTA_ASSIGN_OR_RETURN(auto q, names.Qualify(when.condition, d.scope, &sides));
      auto bound = BindPredicate(*q, joined);
      if (!bound) return WithContext(bound.error(), d.describe);
      d.condition = *bound;
    }
    auto add_value = [&](std::pair<std::string, bool> column, const ExprRef& value,
                         bool star) -> Status {
      for (const auto& a : d.assigned) {
        if (EqualsIgnoreCase(a.column, column.first)) {
          return MakeError(ErrorCode::kInvalidArgument,
                           "{}: column '{}' is assigned more than once", d.describe,
                           column.first);
        }
      }
      Assigned a;
      a.column = column.first;
      a.exists = column.second;
      a.star = star;
      unsigned sides = 0;
      DELTA_ASSIGN_OR_RETURN(a.qualified, names.Qualify(value, d.scope, &sides));
      auto bound = Bind(*a.qualified, joined);
      if (!bound) return WithContext(bound.error(), d.describe);
      a.value = *bound;
      if (a.exists && !star) {
        a.probe_type =
            t.field(static_cast<size_t>(t.FieldIndexCaseInsensitive(a.column))).type;
      } else {
        a.probe_type = a.value->type;
      }
      if (!a.exists && !star) {
        if (!evolution || when.kind == Kind::kNotMatchedBySourceUpdate) {
          return MakeError(
              ErrorCode::kNotFound,
              "{}: column '{}' does not exist in target '{}' (columns: {}){}", d.describe,
              a.column, table, Columns(t, spec.target_alias),
              when.kind == Kind::kNotMatchedBySourceUpdate
                  ? ""
                  : "; MERGE WITH SCHEMA EVOLUTION would add it");
        }
        if (a.value->type->kind() == TypeKind::kVoid) {
          return MakeError(ErrorCode::kSchemaMismatch,
                           "DELTA_MERGE_ADD_VOID_COLUMN: {}: cannot add column '{}' of "
                           "type void (an untyped NULL); CAST the value to a type",
                           d.describe, a.column);
        }
      }
      d.assigned.push_back(std::move(a));
      return OkStatus();
    };
    if (IsStar(when.kind)) {
      Status st;
      auto except = ExceptSet(when, names, t, s, d.describe, &st);
      DELTA_RETURN_IF_ERROR(st);
      for (const auto& f : s.fields()) {
        if (except.count(AsciiToLower(f.name))) continue;
        int ti = t.FieldIndexCaseInsensitive(f.name);
        std::pair<std::string, bool> column =
            ti >= 0 ? std::make_pair(t.field(static_cast<size_t>(ti)).name, true)
                    : std::make_pair(f.name, false);
        DELTA_RETURN_IF_ERROR(
            add_value(column, Expr::Column({spec.source_alias, f.name}), /*star=*/true));
      }
      if (!evolution) {
        for (const auto& f : t.fields()) {
          if (except.count(AsciiToLower(f.name)) ||
              s.FieldIndexCaseInsensitive(f.name) >= 0)
            continue;
          return MakeError(
              ErrorCode::kSchemaMismatch,
              "DELTA_MERGE_UNRESOLVED_EXPRESSION: cannot resolve {}.{} in {}: the source "
              "'{}' has no column '{}' (source columns: {}). Leave it out with {} EXCEPT "
              "({}), or use MERGE WITH SCHEMA EVOLUTION ({})",
              spec.source_alias, QuoteIdentifier(f.name), d.describe, spec.source.name,
              f.name, Columns(s, spec.source_alias), ActionName(when.kind),
              QuoteIdentifier(f.name),
              when.kind == Kind::kMatchedUpdateAll ? "the column keeps its value"
                                                   : "the column is NULL");
        }
      }
    } else if (when.kind == Kind::kNotMatchedInsert) {
      if (when.insert_columns.size() != when.insert_values.size()) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "DELTA_INSERT_COLUMN_ARITY_MISMATCH: {}: {} columns but {} "
                         "values",
                         d.describe, when.insert_columns.size(),
                         when.insert_values.size());
      }
      for (size_t i = 0; i < when.insert_columns.size(); ++i) {
        DELTA_ASSIGN_OR_RETURN(auto column,
                               names.AssignedColumn(when.insert_columns[i], d.describe));
        DELTA_RETURN_IF_ERROR(add_value(column, when.insert_values[i], false));
      }
    } else if (IsUpdate(when.kind)) {
      for (const auto& a : when.assignments) {
        std::vector<std::string> path = a.column;
        if (path.size() >= 2 && EqualsIgnoreCase(path[0], names.target_alias()))
          path.erase(path.begin());
        if (path.size() > 1) {
          // Existing fields only (adding one needs `*` with evolution).
          unsigned sides = 0;
          DELTA_ASSIGN_OR_RETURN(auto q, names.Qualify(a.value, d.scope, &sides));
          DELTA_RETURN_IF_ERROR(
              AddNestedAssignment(t, path, q, joined, d.describe, &d.nested));
          continue;
        }
        DELTA_ASSIGN_OR_RETURN(auto column, names.AssignedColumn(a.column, d.describe));
        DELTA_RETURN_IF_ERROR(add_value(column, a.value, false));
      }
    }
    drafts.push_back(std::move(d));
  }

  // Schema rules: run the write-schema resolution over what each clause assigns.
  WriteSchemaOptions so;
  so.merge_schema = true;  // find every column the target lacks; decided below
  auto widening = snapshot.metadata().GetConfig("delta.enableTypeWidening");
  so.allow_type_widening = evolution && widening && EqualsIgnoreCase(*widening, "true");
  so.option_hint = "WITH SCHEMA EVOLUTION";
  SchemaRef evolved = plan.target_schema;
  bool changed = false;
  std::vector<std::string> unmatched;
  for (const auto& d : drafts) {
    Kind k = d.when->kind;
    if (IsDelete(k) || k == Kind::kNotMatchedBySourceUpdate) continue;
    std::vector<StructField> fields;
    for (const auto& a : d.assigned) fields.push_back({a.column, a.probe_type, true, {}});
    for (const auto& f : t.fields()) {
      bool assigned = std::any_of(d.assigned.begin(), d.assigned.end(), [&](auto& a) {
        return EqualsIgnoreCase(a.column, f.name);
      });
      if (!assigned) fields.push_back({f.name, f.type, true, {}});
    }
    auto resolved = ResolveWriteSchema(evolved, StructType(std::move(fields)), so, table);
    if (!resolved) return WithContext(resolved.error(), d.describe);
    changed = changed || resolved->changed;
    evolved = resolved->table_schema;
    for (auto& c : resolved->added_columns) {
      if (std::find(unmatched.begin(), unmatched.end(), c) == unmatched.end())
        unmatched.push_back(std::move(c));
    }
    for (auto& c : resolved->widened_columns)
      plan.widened_columns.push_back(std::move(c));
  }
  if (evolution) {
    plan.added_columns = unmatched;
  } else {
    changed = false;
    if (!unmatched.empty()) {
      std::vector<std::string> top;
      for (const auto& c : unmatched) {
        std::string first = c.substr(0, c.find('.'));
        if (std::find(top.begin(), top.end(), first) == top.end()) top.push_back(first);
      }
      if (!spec.ignore_unmatched_source_columns) {
        return MakeError(
            ErrorCode::kSchemaMismatch,
            "DELTA_MERGE_UNMATCHED_SOURCE_COLUMNS: MERGE into '{}' would silently drop "
            "source columns the target does not have: [{}] (UPDATE SET * / INSERT * "
            "assign every source column). Nothing was written. Either add them with "
            "MERGE WITH SCHEMA EVOLUTION (builder: WithSchemaEvolution(); session: "
            "spark.databricks.delta.schema.autoMerge.enabled = true), or leave them out "
            "deliberately with UPDATE SET * EXCEPT ({}) / INSERT * EXCEPT ({}), or set "
            "{} = true to drop them with a warning as Spark does",
            table, JoinList(unmatched), JoinList(top), JoinList(top),
            kMergeIgnoreUnmatchedSourceColumnsSetting);
      }
      plan.ignored_source_columns = unmatched;
      plan.warnings.push_back(fmt::format(
          "MERGE into '{}': source columns [{}] do not exist in the target and were not "
          "stored ({} = true)",
          table, JoinList(unmatched), kMergeIgnoreUnmatchedSourceColumnsSetting));
    }
    evolved = plan.target_schema;
  }
  DELTA_ASSIGN_OR_RETURN(plan.schema, ChangeSchema(snapshot, evolved, changed));
  const StructType& out = *plan.schema.schema;

  // Clause plans in the final schema's column order.
  for (auto& d : drafts) {
    ClausePlan c;
    c.kind = d.when->kind;
    c.index = d.index;
    c.is_delete = IsDelete(c.kind);
    c.condition = d.condition;
    if (d.when->condition) c.condition_sql = ToSql(*d.when->condition);
    if (!c.is_delete) {
      std::vector<std::shared_ptr<arrow::Field>> input;
      for (const auto& g : out.fields()) {
        ProjectedColumn p;
        p.name = g.name;
        auto a = std::find_if(d.assigned.begin(), d.assigned.end(), [&](auto& x) {
          return EqualsIgnoreCase(x.column, g.name);
        });
        auto nested = std::find_if(d.nested.begin(), d.nested.end(),
                                   [&](auto& x) { return x.first == g.name; });
        if (nested != d.nested.end()) {
          if (a != d.assigned.end()) {
            return MakeError(ErrorCode::kInvalidArgument,
                             "{}: column '{}' is assigned both as a whole and in its "
                             "nested fields",
                             d.describe, g.name);
          }
          // The current struct with the assigned fields replaced (merge.cc Emit).
          DELTA_ASSIGN_OR_RETURN(
              p.value,
              Bind(*Expr::Column({JoinedName(spec.target_alias, g.name)}), joined));
          p.nested = std::move(nested->second);
        } else if (a != d.assigned.end()) {
          p.value = a->value;
          const DataType& from = *a->value->type;
          if (from.kind() == TypeKind::kVoid) {
            p.value = nullptr;
          } else if (a->star && spec.ignore_unmatched_source_columns && !evolution) {
            DataTypeRef pruned = PruneType(a->value->type, g.type);
            if (pruned != a->value->type) {
              DELTA_ASSIGN_OR_RETURN(p.prune_to, ToArrowType(*pruned));
            }
          } else if (a->star && evolution && IsUpdate(c.kind) &&
                     t.FieldIndexCaseInsensitive(g.name) >= 0 &&
                     HasTargetOnlyFields(from, *g.type)) {
            // Spark: target-only nested fields keep their value under UPDATE SET *.
            const auto& tf =
                t.field(static_cast<size_t>(t.FieldIndexCaseInsensitive(g.name)));
            DELTA_ASSIGN_OR_RETURN(
                p.keep_from,
                Bind(*Expr::Column({JoinedName(spec.target_alias, tf.name)}), joined));
          } else if (!a->star && from.is_numeric() && g.type->is_numeric() &&
                     !from.Equals(*g.type) && !IsLosslessWriteCast(from, *g.type)) {
            auto cast = Bind(*CastTo(a->qualified, g.type), joined);
            if (!cast) return WithContext(cast.error(), d.describe);
            p.value = *cast;
          }
        } else if (IsUpdate(c.kind) && t.FieldIndexCaseInsensitive(g.name) >= 0) {
          // Not assigned by an update: keeps its value.
          const auto& tf =
              t.field(static_cast<size_t>(t.FieldIndexCaseInsensitive(g.name)));
          DELTA_ASSIGN_OR_RETURN(
              p.value,
              Bind(*Expr::Column({JoinedName(spec.target_alias, tf.name)}), joined));
        }
        if (p.value) {
          std::shared_ptr<arrow::DataType> type = p.prune_to;
          if (!type) {
            DELTA_ASSIGN_OR_RETURN(type, ToArrowType(*p.value->type));
          }
          if (p.keep_from) {
            // The struct after KeepTargetOnlyFields: the source's fields, then the
            // target-only ones (the conformer puts them in the table's order).
            DELTA_ASSIGN_OR_RETURN(auto t_type, ToArrowType(*p.keep_from->type));
            auto probe_s = arrow::MakeArrayOfNull(type, 0);
            auto probe_t = arrow::MakeArrayOfNull(t_type, 0);
            if (!probe_s.ok() || !probe_t.ok()) {
              return MakeError(ErrorCode::kInternal, "{}: cannot type column {}",
                               d.describe, g.name);
            }
            DELTA_ASSIGN_OR_RETURN(auto probe, KeepTargetOnlyFields(*probe_s, *probe_t));
            type = probe->type();
          }
          input.push_back(arrow::field(g.name, type, true));
        }
        c.columns.push_back(std::move(p));
      }
      auto conformer = BatchConformer::Make(plan.schema.schema, arrow::schema(input),
                                            ConformOptions{false, table});
      if (!conformer) return WithContext(conformer.error(), d.describe);
      c.conformer = std::move(*conformer);
    }
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
