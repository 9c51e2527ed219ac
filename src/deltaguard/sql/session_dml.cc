// MERGE, UPDATE and DELETE statements (issue 6): the statement ASTs are translated to
// dml/ specs (dml/merge.h, dml/update_delete.h), which do the work in one commit.
//
// Names: when the statement gives no alias, the table's own name is the qualifier
// (`MERGE INTO orders USING changes ON orders.id = changes.id`), as in Spark. A path
// reference without an alias (delta.`/x`) is qualified as "target" (MERGE) and has no
// qualifier in UPDATE/DELETE. The MERGE source is planned like `SELECT * FROM <source>`,
// so it may be a table (with time travel), a temp view, a file function or a subquery.
//
// Results follow Spark: MERGE returns one row (num_affected_rows, num_updated_rows,
// num_deleted_rows, num_inserted_rows), UPDATE (num_affected_rows) and DELETE
// (num_affected_rows). Warnings of the MERGE (source columns dropped under
// deltaguard.merge.ignoreUnmatchedSourceColumns) go to StatementResult::warnings and
// into the message, both naming the table as written.

#include <fmt/format.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/dml/merge.h"
#include "deltaguard/dml/update_delete.h"
#include "deltaguard/sql/query_internal.h"
#include "deltaguard/sql/session_internal.h"
#include "deltaguard/table/profiles.h"

namespace deltaguard::internal {
namespace {

// The qualifier of a table reference written without an alias (Spark: the table name).
std::string DefaultAlias(const TableRef& ref, std::string_view fallback) {
  if (ref.kind == TableRef::Kind::kName && !ref.parts.empty()) return ref.parts.back();
  return std::string(fallback);
}

// The source's qualifier: its alias, else a table's name, else "source".
std::string SourceAlias(const FromClause& from) {
  if (!from.alias.empty()) return from.alias;
  if (from.kind == FromClause::Kind::kTable) return DefaultAlias(from.table, "source");
  return "source";
}

Result<MergeWhen::Kind> WhenKind(const MergeClause& clause) {
  using K = MergeClause::Kind;
  using A = MergeClause::Action;
  switch (clause.kind) {
    case K::kMatched:
      if (clause.action == A::kUpdate) return MergeWhen::Kind::kMatchedUpdate;
      if (clause.action == A::kUpdateAll) return MergeWhen::Kind::kMatchedUpdateAll;
      if (clause.action == A::kDelete) return MergeWhen::Kind::kMatchedDelete;
      break;
    case K::kNotMatched:
      if (clause.action == A::kInsert) return MergeWhen::Kind::kNotMatchedInsert;
      if (clause.action == A::kInsertAll) return MergeWhen::Kind::kNotMatchedInsertAll;
      break;
    case K::kNotMatchedBySource:
      if (clause.action == A::kUpdate) return MergeWhen::Kind::kNotMatchedBySourceUpdate;
      if (clause.action == A::kDelete) return MergeWhen::Kind::kNotMatchedBySourceDelete;
      break;
  }
  // The parser refuses these; an AST built by hand may not.
  return MakeError(ErrorCode::kInvalidArgument,
                   "MERGE clause at offset {}: this action is not allowed in this kind "
                   "of WHEN clause",
                   clause.position);
}

std::vector<MergeAssignment> ToAssignments(const std::vector<Assignment>& in) {
  std::vector<MergeAssignment> out;
  out.reserve(in.size());
  for (const Assignment& a : in) out.push_back(MergeAssignment{a.column, a.value});
  return out;
}

// A message naming the table as written instead of its path.
std::string NameTableIn(std::string message, const ResolvedTable& table,
                        const TableRef& ref) {
  return NameTable(Error{ErrorCode::kInternal, std::move(message)}, table, ref).message;
}

// A table reference must not be a temporary view: views are read-only.
Status RefuseView(const SessionState& state, const TableRef& ref, std::string_view what) {
  if (ref.kind == TableRef::Kind::kName && ref.parts.size() == 1 &&
      state.temp_views.count(LowerName(ref.parts[0]))) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cannot {} temporary view '{}': views are read-only", what,
                     ref.ToString());
  }
  return OkStatus();
}

}  // namespace

Result<StatementResult> ExecuteMerge(SessionState& state, const MergeStmt& stmt) {
  const std::string shown = stmt.target.ToString();
  DELTA_RETURN_IF_ERROR(RefuseView(state, stmt.target, "MERGE INTO"));
  DELTA_ASSIGN_OR_RETURN(ResolvedTable table, ResolveExisting(state, stmt.target));
  if (!stmt.on) {
    return MakeError(ErrorCode::kInvalidArgument, "MERGE INTO {} has no ON condition",
                     shown);
  }

  DELTA_ASSIGN_OR_RETURN(
      QueryPlan plan,
      PlanSourceQuery(state, stmt.source, fmt::format("MERGE INTO {}", shown)));

  MergeSpec spec;
  // Named as written: a table's name, else the alias (a subquery's plan has no name).
  spec.source = QueryPlanSource(
      plan, stmt.source.kind == FromClause::Kind::kTable
                ? stmt.source.table.ToString()
                : (stmt.source.alias.empty() ? plan.source_name : stmt.source.alias));
  spec.target_alias =
      stmt.target_alias.empty() ? DefaultAlias(stmt.target, "target") : stmt.target_alias;
  spec.source_alias = SourceAlias(stmt.source);
  spec.on = stmt.on;
  for (const MergeClause& clause : stmt.clauses) {
    DELTA_ASSIGN_OR_RETURN(MergeWhen::Kind kind, WhenKind(clause));
    MergeWhen when;
    when.kind = kind;
    when.condition = clause.condition;
    when.assignments = ToAssignments(clause.assignments);
    when.insert_columns = clause.insert_columns;
    when.insert_values = clause.insert_values;
    when.except_columns = clause.except;
    spec.clauses.push_back(std::move(when));
  }
  // The clause forces evolution; otherwise the autoMerge setting decides (dml/merge.h).
  if (stmt.schema_evolution) spec.schema_evolution = true;
  spec.ignore_unmatched_source_columns =
      state.options.settings.merge_ignore_unmatched_source_columns;
  DELTA_ASSIGN_OR_RETURN(spec.contract, SessionContract(state));

  auto merged =
      Merge(state.options.fs, table.path, std::move(spec), state.options.settings);
  if (!merged) return NameTable(merged.error(), table, stmt.target);
  const MergeResult& m = *merged;

  const int64_t affected =
      m.num_target_rows_updated + m.num_target_rows_deleted + m.num_target_rows_inserted;
  RowsBuilder rows;
  rows.Column("num_affected_rows", RowsBuilder::Type::kInt64, false)
      .Column("num_updated_rows", RowsBuilder::Type::kInt64, false)
      .Column("num_deleted_rows", RowsBuilder::Type::kInt64, false)
      .Column("num_inserted_rows", RowsBuilder::Type::kInt64, false);
  rows.Row({affected, m.num_target_rows_updated, m.num_target_rows_deleted,
            m.num_target_rows_inserted});
  std::string message =
      fmt::format("Merged into {} (version {}): {} updated, {} deleted, {} inserted",
                  shown, m.version, m.num_target_rows_updated, m.num_target_rows_deleted,
                  m.num_target_rows_inserted);
  if (!m.added_columns.empty()) {
    message += fmt::format("; added columns [{}]", fmt::join(m.added_columns, ", "));
  }
  std::vector<std::string> m_warnings = m.warnings;
  StoreCommitProfile(state.options.fs, table.path, m.profile, &m_warnings);
  std::vector<std::string> warnings;
  for (const std::string& w : m_warnings) {
    warnings.push_back(NameTableIn(w, table, stmt.target));
    message += fmt::format("\nWARNING: {}", warnings.back());
  }
  DELTA_ASSIGN_OR_RETURN(StatementResult result,
                         rows.Finish("MERGE", std::move(message)));
  result.warnings = std::move(warnings);
  result.committed_version = m.version;
  return result;
}

// The runner of UPDATE's and DELETE's uncorrelated subqueries: the query engine, once
// per subquery; a correlated one names what does the same.
SubqueryRunner DmlSubqueries(const SessionState& state, std::string_view op) {
  return [context = state.Query(),
          op = std::string(op)](const Expr& node) -> Result<SubqueryValues> {
    auto values = query_internal::RunSubquery(node, context, 0);
    if (!values && values.error().code == ErrorCode::kNotFound &&
        values.error().message.find("UNRESOLVED_COLUMN") != std::string::npos) {
      return MakeError(ErrorCode::kUnsupportedFeature,
                       "a subquery that refers to the table being changed (correlated) "
                       "is not supported: ({}); MERGE INTO ... USING (the subquery) ON "
                       "... WHEN MATCHED THEN {} does the same",
                       node.subquery->text(), op == "DELETE" ? "DELETE" : "UPDATE SET");
    }
    return values;
  };
}

// UPDATE's and DELETE's WHERE, its correlated EXISTS of one equality correlation
// (`EXISTS (SELECT 1 FROM s WHERE s.id = t.id)`) as the uncorrelated IN that means the
// same (query_internal::RewriteCorrelatedConditions).
Result<ExprRef> DmlWhere(const SessionState& state, const ExprRef& where) {
  if (!query_internal::HasSubquery(where)) return where;
  return query_internal::RewriteCorrelatedConditions(where, state.Query(), 0);
}

Result<StatementResult> ExecuteUpdate(SessionState& state, const UpdateStmt& stmt) {
  const std::string shown = stmt.table.ToString();
  DELTA_RETURN_IF_ERROR(RefuseView(state, stmt.table, "UPDATE"));
  DELTA_ASSIGN_OR_RETURN(ResolvedTable table, ResolveExisting(state, stmt.table));
  UpdateSpec spec;
  spec.alias = stmt.alias.empty() ? DefaultAlias(stmt.table, "") : stmt.alias;
  spec.assignments = ToAssignments(stmt.assignments);
  DELTA_ASSIGN_OR_RETURN(spec.where, DmlWhere(state, stmt.where));
  spec.subquery = DmlSubqueries(state, "UPDATE");
  auto updated = Update(state.options.fs, table.path, spec, state.options.settings);
  if (!updated) return NameTable(updated.error(), table, stmt.table);
  RowsBuilder rows;
  rows.Column("num_affected_rows", RowsBuilder::Type::kInt64, false);
  rows.Row({updated->num_updated_rows});
  DELTA_ASSIGN_OR_RETURN(
      StatementResult result,
      rows.Finish("UPDATE",
                  fmt::format("Updated {} rows of {} (version {})",
                              updated->num_updated_rows, shown, updated->version)));
  if (updated->version >= 0) result.committed_version = updated->version;
  result.warnings = updated->warnings;
  StoreCommitProfile(state.options.fs, table.path, updated->profile, &result.warnings);
  return result;
}

Result<StatementResult> ExecuteDelete(SessionState& state, const DeleteStmt& stmt) {
  const std::string shown = stmt.table.ToString();
  DELTA_RETURN_IF_ERROR(RefuseView(state, stmt.table, "DELETE FROM"));
  DELTA_ASSIGN_OR_RETURN(ResolvedTable table, ResolveExisting(state, stmt.table));
  DeleteSpec spec;
  spec.alias = stmt.alias.empty() ? DefaultAlias(stmt.table, "") : stmt.alias;
  DELTA_ASSIGN_OR_RETURN(spec.where, DmlWhere(state, stmt.where));
  spec.subquery = DmlSubqueries(state, "DELETE");
  auto deleted = Delete(state.options.fs, table.path, spec, state.options.settings);
  if (!deleted) return NameTable(deleted.error(), table, stmt.table);
  RowsBuilder rows;
  // Spark reports -1 when whole files without row counts were removed; so do we.
  rows.Column("num_affected_rows", RowsBuilder::Type::kInt64, false);
  rows.Row({deleted->num_deleted_rows});
  const std::string count = deleted->num_deleted_rows < 0
                                ? std::string("an unknown number of")
                                : std::to_string(deleted->num_deleted_rows);
  DELTA_ASSIGN_OR_RETURN(
      StatementResult result,
      rows.Finish("DELETE", fmt::format("Deleted {} rows from {} (version {})", count,
                                        shown, deleted->version)));
  if (deleted->version >= 0) result.committed_version = deleted->version;
  result.warnings = deleted->warnings;
  StoreCommitProfile(state.options.fs, table.path, deleted->profile, &result.warnings);
  return result;
}

}  // namespace deltaguard::internal
