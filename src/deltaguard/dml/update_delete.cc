// UPDATE and DELETE: select rows per file, rewrite the files that hold selected rows
// copy-on-write, remove whole files where the partition predicate allows
// (update_delete.h).

#include "deltaguard/dml/update_delete.h"

#include <fmt/format.h>

#include <chrono>
#include <set>
#include <string>
#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/dml/dml_internal.h"
#include "deltaguard/dml/file_prefetch_internal.h"
#include "deltaguard/dml/merge_internal.h"
#include "deltaguard/evolution/type_rules.h"
#include "deltaguard/exec/batch_conformer.h"
#include "deltaguard/exec/constraint_checker.h"
#include "deltaguard/exec/expr_eval.h"
#include "deltaguard/expr/parser.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/schema/column_path.h"
#include "deltaguard/util/string_util.h"
#include "deltaguard/write/replace_where.h"

namespace deltaguard {
namespace {

using dml_internal::ProjectedColumn;

// `e` with `alias.` removed from column references (the table's own columns win).
ExprRef StripAlias(const ExprRef& e, const std::string& alias, const StructType& schema) {
  if (!e) return e;
  if (e->kind == ExprKind::kColumn) {
    if (!alias.empty() && e->path.size() >= 2 && EqualsIgnoreCase(e->path[0], alias) &&
        schema.FieldIndexCaseInsensitive(e->path[0]) < 0) {
      return Expr::Column({e->path.begin() + 1, e->path.end()}, e->position);
    }
    return e;
  }
  if (e->children.empty()) return e;
  auto copy = std::make_shared<Expr>(*e);
  for (auto& child : copy->children) child = StripAlias(child, alias, schema);
  return copy;
}

// What one UPDATE/DELETE does to the rows of a file.
struct RowChange {
  BoundExprRef where;  // null: every row
  std::unique_ptr<ReplaceWhere>
      partitions;  // set when WHERE reads partition columns only
  bool is_delete = false;
  std::vector<ProjectedColumn> columns;  // UPDATE: the new row
  std::unique_ptr<BatchConformer> conformer;
};

bool HasSubqueryNode(const Expr& e) {
  if (e.kind == ExprKind::kSubquery) return true;
  for (const auto& c : e.children) {
    if (HasSubqueryNode(*c)) return true;
  }
  return false;
}

Result<RowChange> PlanChange(const dml_internal::DmlTarget& target,
                             const std::string& alias, const ExprRef& where_expr,
                             const SubqueryRunner& subquery, std::string_view op,
                             std::string* where_sql) {
  const Snapshot& snapshot = *target.snapshot;
  const StructType& schema = *snapshot.schema();
  RowChange change;
  if (where_expr) {
    ExprRef where = StripAlias(where_expr, alias, schema);
    BindOptions options;
    options.subquery = subquery;
    auto bound = BindPredicate(*where, schema, options);
    if (!bound) {
      return WithContext(bound.error(),
                         fmt::format("{} WHERE on table '{}'", op, target.name));
    }
    change.where = *bound;
    *where_sql = ToSql(*where_expr);
    // A subquery's value is known only to the bound predicate: no partition shortcut.
    if (!HasSubqueryNode(*where)) {
      DELTA_ASSIGN_OR_RETURN(
          change.partitions,
          ReplaceWhere::FromExpr(*where, snapshot.schema(),
                                 snapshot.metadata().partition_columns,
                                 snapshot.column_mapping_mode(), target.name));
      if (!change.partitions->partition_only()) change.partitions.reset();
    }
  }
  return change;
}

Status PlanAssignments(const dml_internal::DmlTarget& target, const UpdateSpec& spec,
                       RowChange* change) {
  const SchemaRef& schema = target.snapshot->schema();
  std::vector<std::pair<std::string, BoundExprRef>> values;
  dml_internal::NestedSets nested;  // SET s.a.b = v, by top-level column
  for (const auto& a : spec.assignments) {
    std::vector<std::string> path = a.column;
    // `alias.x` strips the alias unless the table has a column of that name.
    if (path.size() >= 2 && EqualsIgnoreCase(path[0], spec.alias) &&
        schema->FieldIndexCaseInsensitive(path[0]) < 0) {
      path.erase(path.begin());
    }
    if (path.size() > 1) {
      DELTA_RETURN_IF_ERROR(dml_internal::AddNestedAssignment(
          *schema, path, StripAlias(a.value, spec.alias, *schema), *schema,
          fmt::format("UPDATE on table '{}'", target.name), &nested));
      continue;
    }
    int i = schema->FieldIndexCaseInsensitive(path[0]);
    if (i < 0) {
      return MakeError(ErrorCode::kNotFound,
                       "UPDATE on table '{}': column '{}' does not exist", target.name,
                       path[0]);
    }
    const StructField& field = schema->field(static_cast<size_t>(i));
    for (const auto& [name, v] : values) {
      if (name == field.name) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "UPDATE on table '{}': column '{}' is assigned more than once",
                         target.name, field.name);
      }
    }
    ExprRef value = StripAlias(a.value, spec.alias, *schema);
    BindOptions options;
    options.subquery = spec.subquery;
    auto bound = Bind(*value, *schema, options);
    if (!bound) {
      return WithContext(bound.error(), fmt::format("UPDATE on table '{}', column {}",
                                                    target.name, field.name));
    }
    const DataType& from = *(*bound)->type;
    if (from.is_numeric() && field.type->is_numeric() && !from.Equals(*field.type) &&
        !IsLosslessWriteCast(from, *field.type)) {
      // A checked CAST: a value that does not fit fails the UPDATE.
      auto cast = std::make_shared<Expr>();
      cast->kind = ExprKind::kCast;
      cast->cast_type = field.type;
      cast->children = {value};
      DELTA_ASSIGN_OR_RETURN(*bound, Bind(*cast, *schema, options));
    }
    values.emplace_back(field.name, *bound);
  }
  std::vector<std::shared_ptr<arrow::Field>> input;
  for (const auto& f : schema->fields()) {
    ProjectedColumn p;
    p.name = f.name;
    for (const auto& [name, v] : values) {
      if (name == f.name) p.value = v;
    }
    for (auto& [name, sets] : nested) {
      if (name != f.name) continue;
      if (p.value) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "UPDATE on table '{}': column '{}' is assigned both as a whole "
                         "and in its nested fields",
                         target.name, f.name);
      }
      p.nested = std::move(sets);
    }
    if (!p.value) {
      DELTA_ASSIGN_OR_RETURN(p.value, Bind(*Expr::Column({f.name}), *schema));
    }
    if (p.value->type->kind() == TypeKind::kVoid) {
      p.value = nullptr;  // SET c = NULL
    } else {
      DELTA_ASSIGN_OR_RETURN(auto type, ToArrowType(*p.value->type));
      input.push_back(arrow::field(f.name, type, true));
    }
    change->columns.push_back(std::move(p));
  }
  auto conformer = BatchConformer::Make(schema, arrow::schema(input),
                                        ConformOptions{false, target.name});
  if (!conformer) {
    return WithContext(conformer.error(),
                       fmt::format("UPDATE on table '{}'", target.name));
  }
  change->conformer = std::move(*conformer);
  return OkStatus();
}

int64_t LiveRows(const AddFile& file) {
  auto n = file.NumRecords();
  if (!n) return -1;
  return *n - (file.deletion_vector ? file.deletion_vector->cardinality : 0);
}

// Target batches decoded ahead of the filter (each holds ScanOptions::batch_size rows).
constexpr size_t kPrefetchDepth = 2;

// The STRING columns that WHERE and the SET expressions do not read only move: copied
// rows keep them, and an UPDATE keeps its current value (the SET identity `c = c`, which
// the conformer decodes for the updated rows). They stay dictionary-encoded from file
// to writer where the file has them so (ScanOptions::dictionary_columns).
std::vector<std::string> DictionaryColumns(const RowChange& change,
                                           const StructType& schema) {
  std::vector<std::string> out;
  std::set<std::string> read;
  dml_internal::AddReferencedColumns(change.where, &read);
  for (const auto& p : change.columns) {
    const bool identity = p.value && p.value->kind == BoundKind::kColumn &&
                          p.value->path.size() == 1 && p.value->path[0] == p.name &&
                          p.nested.empty();
    if (!identity) dml_internal::AddReferencedColumns(p.value, &read);
    for (const auto& [path, expr] : p.nested) {
      dml_internal::AddReferencedColumns(expr, &read);
    }
  }
  for (const auto& f : schema.fields()) {
    if (f.type->kind() == TypeKind::kString && !read.count(f.name)) out.push_back(f.name);
  }
  return out;
}

Result<DmlResult> Run(const dml_internal::DmlTarget& target, RowChange& change,
                      const std::string& operation, const std::string& where_sql,
                      const SessionSettings& session) {
  const auto start = std::chrono::steady_clock::now();
  const SnapshotRef& snapshot = target.snapshot;
  DmlResult result;
  dml_internal::SchemaEvolutionStep schema;
  schema.schema = snapshot->schema();
  schema.effective_metadata = snapshot->metadata();
  DELTA_ASSIGN_OR_RETURN(auto writer,
                         dml_internal::DmlWriter::Make(target, schema, session));
  DELTA_ASSIGN_OR_RETURN(
      auto checker,
      ConstraintChecker::Make(schema.effective_metadata, *schema.schema, target.name));
  std::vector<const AddFile*> removed;
  std::vector<std::string> read;
  dml_internal::RowCopier copier(schema.schema, target.name);
  auto copy = [&](const std::shared_ptr<arrow::RecordBatch>& raw) -> Status {
    if (raw->num_rows() == 0) return OkStatus();
    DELTA_ASSIGN_OR_RETURN(auto conformed, copier.Conform(*raw));
    result.num_copied_rows += raw->num_rows();
    return writer->Write(conformed);
  };
  // The files whose rows must be read; the others are skipped or removed whole.
  auto select = [&](const AddFile& file, std::vector<const AddFile*>* scan) -> Status {
    if (change.partitions) {
      DELTA_ASSIGN_OR_RETURN(bool matches,
                             change.partitions->MatchesPartition(file.partition_values));
      if (!matches) return OkStatus();
    }
    if (change.is_delete && (!change.where || change.partitions)) {
      // Whole file: no rewrite (Spark's metadata-only delete).
      removed.push_back(&file);
      int64_t rows = LiveRows(file);
      if (rows < 0 || result.num_deleted_rows < 0) {
        result.num_deleted_rows = -1;
      } else {
        result.num_deleted_rows += rows;
      }
      return OkStatus();
    }
    scan->push_back(&file);
    return OkStatus();
  };
  // `batches` is positioned at the start of `file`; reads it to its end marker.
  auto process = [&](const AddFile& file,
                     dml_internal::FilePrefetcher& batches) -> Status {
    ++result.num_files_scanned;
    read.push_back(file.path);
    std::vector<std::shared_ptr<arrow::RecordBatch>> pending;
    bool touched = false;
    while (true) {
      DELTA_ASSIGN_OR_RETURN(auto raw, batches.Next());
      if (!raw) break;
      std::shared_ptr<arrow::BooleanArray> selected;
      int64_t count = raw->num_rows();
      if (change.where) {
        auto holds = EvaluatePredicate(*change.where, *raw);
        if (!holds) {
          return WithContext(holds.error(), fmt::format("{} WHERE on table '{}'",
                                                        operation, target.name));
        }
        DELTA_ASSIGN_OR_RETURN(selected, dml_internal::DenseMask(**holds, false));
        count = 0;
        for (int64_t i = 0; i < selected->length(); ++i) count += selected->Value(i);
      }
      if (count == 0) {
        if (touched) {
          DELTA_RETURN_IF_ERROR(copy(raw));
        } else {
          pending.push_back(raw);
        }
        continue;
      }
      if (!touched) {
        touched = true;
        for (const auto& p : pending) DELTA_RETURN_IF_ERROR(copy(p));
      }
      if (selected) {
        DELTA_ASSIGN_OR_RETURN(auto keep, dml_internal::DenseMask(*selected, true));
        DELTA_ASSIGN_OR_RETURN(auto kept, dml_internal::FilterRows(raw, *keep));
        DELTA_RETURN_IF_ERROR(copy(kept));
      }
      if (change.is_delete) {
        result.num_deleted_rows += count;
        continue;
      }
      std::shared_ptr<arrow::RecordBatch> rows = raw;
      if (selected) {
        DELTA_ASSIGN_OR_RETURN(rows, dml_internal::FilterRows(raw, *selected));
      }
      std::vector<std::shared_ptr<arrow::Field>> fields;
      std::vector<std::shared_ptr<arrow::Array>> columns;
      for (const auto& p : change.columns) {
        if (!p.value) continue;
        auto value = Evaluate(*p.value, *rows);
        if (!value) {
          return WithContext(value.error(), fmt::format("UPDATE on table '{}', column {}",
                                                        target.name, p.name));
        }
        for (const auto& [path, expr] : p.nested) {
          auto field_value = Evaluate(*expr, *rows);
          if (!field_value) {
            return WithContext(field_value.error(),
                               fmt::format("UPDATE on table '{}', column {}.{}",
                                           target.name, p.name, fmt::join(path, ".")));
          }
          DELTA_ASSIGN_OR_RETURN(
              *value, dml_internal::ReplaceNestedField(*value, path, *field_value));
        }
        fields.push_back(arrow::field(p.name, (*value)->type(), true));
        columns.push_back(std::move(*value));
      }
      auto projected = arrow::RecordBatch::Make(arrow::schema(fields), rows->num_rows(),
                                                std::move(columns));
      auto conformed = change.conformer->Conform(*projected);
      if (!conformed) {
        return WithContext(conformed.error(),
                           fmt::format("UPDATE on table '{}'", target.name));
      }
      DELTA_RETURN_IF_ERROR(checker.Check(**conformed));
      DELTA_RETURN_IF_ERROR(writer->Write(*conformed));
      result.num_updated_rows += count;
    }
    if (touched) removed.push_back(&file);
    return OkStatus();
  };
  std::vector<const AddFile*> scanned;
  for (const AddFile& file : snapshot->files()) {
    if (auto st = select(file, &scanned); !st) {
      writer->Abort();
      return st.error();
    }
  }
  {
    // The next batches decode on their own thread while this one filters, evaluates
    // and hands rows to the writer.
    dml_internal::FilePrefetcher batches(snapshot, scanned, kPrefetchDepth,
                                         DictionaryColumns(change, *schema.schema));
    for (const AddFile* file : scanned) {
      if (auto st = process(*file, batches); !st) {
        writer->Abort();
        return st.error();
      }
    }
  }
  OperationInfo op;
  op.operation = operation;
  op.parameters_json.emplace_back(
      "predicate", dml_internal::PredicateParameter(
                       where_sql.empty() ? std::vector<std::string>{}
                                         : std::vector<std::string>{where_sql}));
  auto fill = [&](const dml_internal::DmlWriter::Outcome& o, OperationInfo* info) {
    result.num_added_files = o.files_added;
    result.num_removed_files = o.files_removed;
    result.num_added_bytes = o.bytes_added;
    result.num_removed_bytes = o.bytes_removed;
    auto& m = info->metrics;
    m.emplace_back("numAddedFiles", o.files_added);
    m.emplace_back("numRemovedFiles", o.files_removed);
    if (change.is_delete) {
      if (result.num_deleted_rows >= 0)
        m.emplace_back("numDeletedRows", result.num_deleted_rows);
    } else {
      m.emplace_back("numUpdatedRows", result.num_updated_rows);
    }
    m.emplace_back("numCopiedRows", result.num_copied_rows);
    m.emplace_back("numAddedBytes", o.bytes_added);
    m.emplace_back("numRemovedBytes", o.bytes_removed);
    m.emplace_back("numAddedChangeFiles", 0);
    m.emplace_back("numDeletionVectorsAdded", 0);
    m.emplace_back("executionTimeMs",
                   std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now() - start)
                       .count());
  };
  DELTA_ASSIGN_OR_RETURN(auto outcome,
                         writer->Commit(removed, std::move(read), std::move(op), fill));
  result.version = outcome.version;
  result.commit_attempts = outcome.commit_attempts;
  result.profile = std::move(outcome.profile);
  for (auto& w : outcome.warnings) result.warnings.push_back(std::move(w));
  return result;
}

}  // namespace

Result<DmlResult> Update(FileSystemRef fs, const std::string& path,
                         const UpdateSpec& spec, const SessionSettings& session) {
  DELTA_ASSIGN_OR_RETURN(auto target, dml_internal::LoadTarget(fs, path, "UPDATE", true));
  if (spec.assignments.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "UPDATE on table '{}' needs SET", path);
  }
  std::string where_sql;
  DELTA_ASSIGN_OR_RETURN(auto change, PlanChange(target, spec.alias, spec.where,
                                                 spec.subquery, "UPDATE", &where_sql));
  DELTA_RETURN_IF_ERROR(PlanAssignments(target, spec, &change));
  return Run(target, change, "UPDATE", where_sql, session);
}

Result<DmlResult> Delete(FileSystemRef fs, const std::string& path,
                         const DeleteSpec& spec, const SessionSettings& session) {
  DELTA_ASSIGN_OR_RETURN(auto target, dml_internal::LoadTarget(fs, path, "DELETE", true));
  std::string where_sql;
  DELTA_ASSIGN_OR_RETURN(auto change, PlanChange(target, spec.alias, spec.where,
                                                 spec.subquery, "DELETE", &where_sql));
  change.is_delete = true;
  return Run(target, change, "DELETE", where_sql, session);
}

Result<DmlResult> UpdateSql(FileSystemRef fs, const std::string& path,
                            const std::vector<std::pair<std::string, std::string>>& set,
                            const std::string& where, const SessionSettings& session) {
  UpdateSpec spec;
  for (const auto& [column, value] : set) {
    DELTA_ASSIGN_OR_RETURN(auto column_path, ParseColumnPath(column));
    DELTA_ASSIGN_OR_RETURN(auto expr, ParseExpression(value));
    spec.assignments.push_back({std::move(column_path), std::move(expr)});
  }
  if (!where.empty()) {
    DELTA_ASSIGN_OR_RETURN(spec.where, ParseExpression(where));
  }
  return Update(std::move(fs), path, spec, session);
}

Result<DmlResult> DeleteSql(FileSystemRef fs, const std::string& path,
                            const std::string& where, const SessionSettings& session) {
  DeleteSpec spec;
  if (!where.empty()) {
    DELTA_ASSIGN_OR_RETURN(spec.where, ParseExpression(where));
  }
  return Delete(std::move(fs), path, spec, session);
}

}  // namespace deltaguard
