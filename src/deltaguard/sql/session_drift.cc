// DESCRIBE DRIFT t USING source [MODE m]: the schema of a MERGE-style source (a table,
// a file function, a subquery) against t's current schema, classified exactly as
// `deltaguard drift` classifies an input (docs/drift.md): table evidence from the add
// statistics of its latest files, value evidence from the first rows of the source
// (table/table_drift.h bounds both), source nullability ignored as every write does;
// the report is table/drift_sources.h's BuildDriftReport, as the CLI's.

#include <arrow/record_batch.h>
#include <fmt/format.h>

#include <utility>

#include "deltaguard/arrow/status.h"
#include "deltaguard/drift/compat.h"
#include "deltaguard/sql/query_internal.h"
#include "deltaguard/sql/session_internal.h"
#include "deltaguard/table/drift_sources.h"

namespace deltaguard::internal {
namespace {

// The source as a drift side: its schema and its first batch (at most
// kDriftSampleRows rows are used) as evidence; a source without rows gives none, and
// its types still compare.
Result<DriftSource> SourceSide(const QueryPlan& plan) {
  DELTA_ASSIGN_OR_RETURN(auto reader, plan.open());
  std::shared_ptr<arrow::RecordBatch> batch;
  DELTA_ARROW_RETURN_NOT_OK(reader->ReadNext(&batch), ErrorCode::kIOError,
                            "the first rows of " + plan.source_name);
  // As INSERT names it: a subquery without FROM has no table to name.
  std::string label =
      plan.source_name == "no table" ? "a query without FROM" : plan.source_name;
  return BatchDriftSource(plan.schema, batch.get(), std::move(label));
}

// MODE m: plain modes judge the source against the current schema; transitive ones
// against every schema the table has had (BuildDriftReport), as `deltaguard drift`.
Result<std::optional<CompatMode>> ModeOf(const DescribeDriftStmt& stmt) {
  if (stmt.mode.empty()) return std::optional<CompatMode>{};
  DELTA_ASSIGN_OR_RETURN(CompatMode mode, ParseCompatMode(stmt.mode));
  return std::optional<CompatMode>{mode};
}

}  // namespace

Result<StatementResult> ExecuteDescribeDrift(SessionState& state,
                                             const DescribeDriftStmt& stmt) {
  const std::string shown = stmt.table.ToString();
  DELTA_ASSIGN_OR_RETURN(std::optional<CompatMode> mode, ModeOf(stmt));
  DELTA_ASSIGN_OR_RETURN(ResolvedTable table, ResolveExisting(state, stmt.table));
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot, LoadTable(state, table, stmt.table));

  auto plan =
      PlanSourceQuery(state, stmt.source, fmt::format("DESCRIBE DRIFT {}", shown));
  if (!plan) return plan.error();
  auto after = SourceSide(*plan);
  if (!after) {
    return WithContext(after.error(), fmt::format("source of DESCRIBE DRIFT {}", shown));
  }
  DELTA_ASSIGN_OR_RETURN(DriftSource before,
                         TableDriftSource(state.options.fs, *snapshot, shown));
  DriftReportOptions options;
  options.mode = mode.value_or(CompatMode::kNone);
  options.fail_on = FailBar::kAny;
  DELTA_ASSIGN_OR_RETURN(DriftReport report, BuildDriftReport(before, *after, options));
  const std::vector<DriftChange>& changes = report.changes;

  std::vector<bool> breaks(changes.size(), false);
  for (const auto& b : report.verdict.breaking) breaks[b.change] = true;
  std::vector<query_internal::DriftRow> rows;
  for (size_t i = 0; i < changes.size(); ++i) {
    rows.push_back({nullptr, &changes[i], breaks[i]});
  }
  DELTA_ASSIGN_OR_RETURN(auto batch,
                         query_internal::DriftRowsBatch(rows, false, mode.has_value()));
  DELTA_ARROW_ASSIGN_OR_RETURN(auto reader,
                               arrow::RecordBatchReader::Make({batch}, batch->schema()),
                               ErrorCode::kInternal, "DESCRIBE DRIFT");
  StatementResult result;
  result.schema = batch->schema();
  result.rows = std::move(reader);
  result.message = fmt::format("{} change(s) of {} against {} version {}", changes.size(),
                               plan->source_name, shown, snapshot->version());
  return result;
}

}  // namespace deltaguard::internal
