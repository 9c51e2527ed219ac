// VACUUM t [RETAIN n HOURS] [DRY RUN]: table/vacuum.h with the session's settings.
// Rows as Spark returns them: a dry run lists the files it would delete (column
// `path`), a real run returns the table path.

#include <fmt/format.h>

#include "deltaguard/sql/session_internal.h"
#include "deltaguard/table/vacuum.h"

namespace deltaguard::internal {

Result<StatementResult> ExecuteVacuum(SessionState& state, const VacuumStmt& stmt) {
  DELTA_ASSIGN_OR_RETURN(ResolvedTable table, ResolveExisting(state, stmt.table));
  const SessionSettings& settings = state.options.settings;
  VacuumOptions options;
  options.retain_hours = stmt.retain_hours;
  options.dry_run = stmt.dry_run;
  options.retention_check = settings.retention_duration_check;
  options.logging = settings.vacuum_logging;
  options.now_ms = state.now_micros / 1000;
  options.engine_info = settings.engine_info;
  Result<VacuumResult> result = Vacuum(state.options.fs, table.path, options);
  if (!result) return NameTable(std::move(result).error(), table, stmt.table);
  RowsBuilder rows;
  rows.Column("path", RowsBuilder::Type::kString, false);
  std::string message;
  if (result->dry_run) {
    for (const std::string& file : result->files) rows.Row({file});
    message = fmt::format(
        "Found {} files ({} bytes) and directories in a total of {} directories that "
        "are safe to delete in {} (dry run)",
        result->files.size(), result->bytes, result->dirs_scanned, stmt.table.ToString());
  } else {
    rows.Row({result->table_root});
    message = fmt::format(
        "Deleted {} files ({} bytes) and {} directories in a total of {} "
        "directories from {}",
        result->files.size(), result->bytes, result->dirs_deleted, result->dirs_scanned,
        stmt.table.ToString());
  }
  return rows.Finish("VACUUM", std::move(message));
}

}  // namespace deltaguard::internal
