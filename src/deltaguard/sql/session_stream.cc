// INSERT INTO t [(cols)] SELECT ... FROM STREAM read_files(...): an incremental load
// (docs/ingest.md "SQL"). The new files of the path go into the table in micro-batches
// through the ingestion (ingest/ingest.h: one commit per batch with txn(appId, batch),
// the schema location, the evolution modes, the rescued column), each batch passed
// through the SELECT first. A run takes every new file (Spark's trigger availableNow)
// and ends; run the statement again to load what arrived since.
//
// Columns are matched by name, as a streaming Delta sink matches them (a column list
// renames the SELECT's columns in order); new columns evolve the table as the
// ingestion's schema evolves (docs/behaviour.md "Ingestion").

#include <fmt/format.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/ingest/ingest.h"
#include "deltaguard/sql/query_internal.h"
#include "deltaguard/sql/session_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {
namespace {

// Characters of a table's name or path kept in its default checkpoint directory name.
std::string CheckpointName(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                      (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    out += keep ? c : '_';
  }
  return out;
}

// The checkpoint: read_files' checkpointLocation, else a directory named after the
// table under spark.sql.streaming.checkpointLocation.
Result<std::string> Checkpoint(const SessionState& state, const std::string& given,
                               const ResolvedTable& table, const std::string& shown) {
  if (!given.empty()) return given;
  auto root = state.other_settings.find("spark.sql.streaming.checkpointLocation");
  if (root == state.other_settings.end() || root->second.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "INSERT INTO {} ... FROM STREAM read_files(...) needs a checkpoint "
                     "to load incrementally: give read_files(..., checkpointLocation => "
                     "'/path') or SET spark.sql.streaming.checkpointLocation = '/root' "
                     "(each table gets a directory under it)",
                     shown);
  }
  return root->second + "/" + CheckpointName(table.display);
}

Status CheckStreamable(const InsertStmt& stmt, const std::string& shown) {
  if (stmt.overwrite || stmt.replace_where) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "INSERT {} {} ... FROM STREAM read_files(...): a streaming load "
                     "appends; overwrite the table in a separate statement",
                     stmt.overwrite ? "OVERWRITE" : "INTO", shown);
  }
  if (stmt.query->from.kind != FromClause::Kind::kFunction ||
      stmt.query->from.function != "read_files") {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "INSERT INTO {} ... FROM STREAM: only read_files() is a streaming "
                     "source (streaming from a Delta table is not supported yet)",
                     shown);
  }
  return OkStatus();
}

}  // namespace

Result<StatementResult> ExecuteStreamingInsert(SessionState& state,
                                               const InsertStmt& stmt) {
  const std::string shown = stmt.table.ToString();
  DELTA_RETURN_IF_ERROR(CheckStreamable(stmt, shown));
  const QueryContext context = state.Query();
  DELTA_ASSIGN_OR_RETURN(query_internal::ReadFilesArgs args,
                         query_internal::ReadFilesArguments(stmt.query->from, context));
  DELTA_ASSIGN_OR_RETURN(ResolvedTable table,
                         state.catalog.Resolve(stmt.table, state.current_database));
  if (!table.exists && stmt.table.kind != TableRef::Kind::kPath) {
    return MakeError(ErrorCode::kNotFound,
                     "TABLE_OR_VIEW_NOT_FOUND: table '{}' does not exist in database "
                     "'{}'; create it first, or load into a path (delta.`/path`), which "
                     "the first batch creates",
                     shown, table.database);
  }
  IngestRequest request;
  request.source = args.path;
  request.table = table.path;
  DELTA_ASSIGN_OR_RETURN(request.checkpoint,
                         Checkpoint(state, args.checkpoint, table, shown));
  request.options = std::move(args.options);
  request.trigger = IngestTrigger::kAvailableNow;
  request.check = SessionCheck(state);
  request.session = state.options.settings;
  // Each batch through the SELECT, planned against the batch's columns (they grow
  // when the schema evolves, and SELECT * follows).
  const SelectStmt& query = *stmt.query;
  request.transform = [&](BatchSource batch) -> Result<BatchSource> {
    StreamBatch stream{batch.delta_schema, batch.open};
    QueryContext batch_context = context;
    batch_context.stream_batch = &stream;
    DELTA_ASSIGN_OR_RETURN(QueryPlan plan, PlanQuery(query, batch_context));
    if (!plan.row_by_row) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "INSERT INTO {} ... FROM STREAM read_files(...): the query "
                       "aggregates, sorts, deduplicates or limits, which would apply to "
                       "each micro-batch alone; load the rows as they are and aggregate "
                       "in a batch step",
                       shown);
    }
    std::vector<std::string> names;
    if (!stmt.columns.empty()) {
      if (stmt.columns.size() != plan.schema->num_fields()) {
        return MakeError(ErrorCode::kSchemaMismatch,
                         "DELTA_INSERT_COLUMN_ARITY_MISMATCH: the column list of INSERT "
                         "INTO {} names {} columns but the query has {}",
                         shown, stmt.columns.size(), plan.schema->num_fields());
      }
      names = stmt.columns;
    }
    return QueryPlanSource(plan, fmt::format("INSERT INTO {} from {}", shown, batch.name),
                           names);
  };
  IngestResult partial;
  auto result = RunIngest(state.options.fs, request, nullptr, &partial);
  if (!result) return NameTable(result.error(), table, stmt.table);
  int64_t rows = 0, rescued = 0, files = 0;
  for (const auto& b : result->batches) {
    rows += b.written_rows;
    rescued += b.rescued_rows;
    files += b.files;
  }
  RowsBuilder out;
  out.Column("num_affected_rows", RowsBuilder::Type::kInt64, false)
      .Column("num_inserted_rows", RowsBuilder::Type::kInt64, false)
      .Column("num_batches", RowsBuilder::Type::kInt64, false)
      .Column("num_files", RowsBuilder::Type::kInt64, false)
      .Column("num_rescued_rows", RowsBuilder::Type::kInt64, false)
      .Column("schema_version", RowsBuilder::Type::kInt64, false);
  out.Row({rows, rows, static_cast<int64_t>(result->batches.size()), files, rescued,
           result->schema_version});
  std::string message =
      result->batches.empty()
          ? fmt::format("No new files in '{}' for {}", args.path, shown)
          : fmt::format("Inserted {} rows from {} files into {} in {} batch{}", rows,
                        files, shown, result->batches.size(),
                        result->batches.size() == 1 ? "" : "es");
  for (const auto& path : result->changed_files) {
    message += fmt::format(
        "\nWARNING: '{}' changed after a batch took it; not read again", path);
  }
  return out.Finish("INSERT", message);
}

}  // namespace deltaguard::internal
