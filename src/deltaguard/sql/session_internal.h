/// \file deltaguard/sql/session_internal.h
/// Pieces shared by the statement executors of Session (session*.cc), not part of the
/// public API: the session state they act on, a builder for result rows (DESCRIBE,
/// SHOW, SET, metrics) and table-name helpers.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "deltaguard/log/snapshot.h"
#include "deltaguard/sql/catalog.h"
#include "deltaguard/sql/query.h"
#include "deltaguard/sql/session.h"
#include "deltaguard/util/result.h"
#include "deltaguard/write/write_types.h"

namespace deltaguard::internal {

/// What a statement may read and change: the Session's members, by reference, plus
/// the statement's fixed instant (Spark evaluates current_timestamp() once per query).
struct SessionState {
  SessionOptions& options;  ///< options.fs is never null here
  Catalog& catalog;
  std::string& current_database;
  std::map<std::string, SelectRef>& temp_views;
  std::map<std::string, std::string>& other_settings;
  int64_t now_micros = 0;
  const std::map<std::string, std::shared_ptr<arrow::Table>>* data_views = nullptr;

  QueryContext Query() const;
};

/// A small result table built row by row. Cells are NULL (monostate) or match their
/// column's type: kString -> std::string, kInt64/kInt32 -> int64_t, kBool -> bool,
/// kTimestamp -> int64_t microseconds (UTC), kStringList -> vector<string>.
class RowsBuilder {
 public:
  enum class Type { kString, kInt64, kInt32, kBool, kTimestamp, kStringList };
  using Cell =
      std::variant<std::monostate, std::string, int64_t, bool, std::vector<std::string>>;

  RowsBuilder& Column(std::string name, Type type, bool nullable = true);
  void Row(std::vector<Cell> cells) { rows_.push_back(std::move(cells)); }
  size_t num_rows() const { return rows_.size(); }

  /// The rows as a StatementResult (one batch). kInternal for a cell of the wrong type.
  Result<StatementResult> Finish(std::string kind, std::string message) const;

 private:
  struct ColumnSpec {
    std::string name;
    Type type;
    bool nullable;
  };
  std::vector<ColumnSpec> columns_;
  std::vector<std::vector<Cell>> rows_;
};

/// A result without rows.
StatementResult MessageResult(std::string kind, std::string message);

/// Spark's DataType.simpleString: "bigint", "decimal(18,2)", "array<string>",
/// "struct<a:int,b:string>", "map<string,int>".
std::string SparkTypeString(const DataType& type);

/// Resolve a table reference that must name an existing Delta table; kNotFound
/// "TABLE_OR_VIEW_NOT_FOUND: table 'x' ..." naming it as written otherwise.
Result<ResolvedTable> ResolveExisting(const SessionState& state, const TableRef& ref);

/// Replace the table's absolute path in an error message (the write and log layers
/// name paths) by the table's name as the user wrote it.
Error NameTable(Error error, const ResolvedTable& table, const TableRef& ref);

/// The latest snapshot of an existing table, errors naming the table as written.
Result<SnapshotRef> LoadTable(const SessionState& state, const ResolvedTable& table,
                              const TableRef& ref);

/// The source of a MERGE or DESCRIBE DRIFT (a table, a table function, a subquery),
/// planned as `SELECT * FROM <source>`; errors say "source of <statement>".
Result<QueryPlan> PlanSourceQuery(const SessionState& state, const FromClause& source,
                                  std::string_view statement);

/// A planned query as the input of a write (CTAS, REPLACE AS SELECT, INSERT, the MERGE
/// source), named `name` in messages. `names`, when not empty, renames the top-level
/// columns (INSERT writes query column i to the table column names[i]); it must have one
/// name per column. The source carries the plan's Delta schema (renamed alike) when the
/// Arrow schema carries it exactly (arrow/schema.h RoundTripsThroughArrow); otherwise
/// `delta_schema` stays null and the write derives it from the Arrow schema as before,
/// because the plan's schema would then differ from what writes have always seen: it
/// keeps nested field metadata (comments, invariants, column-mapping names of the
/// source table), which a new table or a new column would inherit, and says VARIANT
/// where the rows hold its struct layout, which would change the created column's type.
BatchSource QueryPlanSource(const QueryPlan& plan, std::string name,
                            const std::vector<std::string>& names = {});

/// Lower-case a temp view / table name for lookups.
std::string LowerName(std::string_view name);

/// The contract `SET deltaguard.contract = 'file'` names (read through the session's
/// file system), or null when none is set (session_util.cc).
Result<std::shared_ptr<const Contract>> SessionContract(const SessionState& state);

/// The data tests INSERT and CTAS run (`SET deltaguard.check`), if set.
std::optional<WriteCheckOptions> SessionCheck(const SessionState& state);

/// A write of INSERT or CTAS, through the quarantine write when the session's data
/// tests say `quarantine=PATH` (breaking rows routed, a failing batch held there).
struct CheckedWrite {
  WriteResult write;
  int64_t quarantined_rows = 0;
  std::string quarantine;  ///< the quarantine table's path, when used
};
Result<CheckedWrite> WriteWithSessionCheck(const SessionState& state,
                                           const std::string& path,
                                           std::vector<BatchSource> sources,
                                           const WriteOptions& options);

// The statement executors (session_*.cc).
Result<StatementResult> ExecuteSelect(SessionState& state, const SelectStmt& stmt);
Result<StatementResult> ExecuteInsert(SessionState& state, const InsertStmt& stmt);
/// INSERT ... SELECT ... FROM STREAM read_files(...) (session_stream.cc).
Result<StatementResult> ExecuteStreamingInsert(SessionState& state,
                                               const InsertStmt& stmt);
Result<StatementResult> ExecuteCreateTable(SessionState& state,
                                           const CreateTableStmt& stmt);
Result<StatementResult> ExecuteDropTable(SessionState& state, const DropTableStmt& stmt);
Result<StatementResult> ExecuteDescribeTable(SessionState& state,
                                             const DescribeTableStmt& stmt);
Result<StatementResult> ExecuteDescribeHistory(SessionState& state,
                                               const DescribeHistoryStmt& stmt);
Result<StatementResult> ExecuteDescribeDetail(SessionState& state,
                                              const DescribeDetailStmt& stmt);
Result<StatementResult> ExecuteShowTblProperties(SessionState& state,
                                                 const ShowTblPropertiesStmt& stmt);
Result<StatementResult> ExecuteShowColumns(SessionState& state,
                                           const ShowColumnsStmt& stmt);
Result<StatementResult> ExecuteShowTables(SessionState& state,
                                          const ShowTablesStmt& stmt);
Result<StatementResult> ExecuteShowDatabases(SessionState& state,
                                             const ShowDatabasesStmt& stmt);
Result<StatementResult> ExecuteAlterTable(
    SessionState& state,
    const AlterTableStmt& stmt);  // session_alter.cc
Result<StatementResult> ExecuteMerge(SessionState& state,
                                     const MergeStmt& stmt);  // session_dml.cc
Result<StatementResult> ExecuteUpdate(SessionState& state,
                                      const UpdateStmt& stmt);  // session_dml.cc
Result<StatementResult> ExecuteDelete(SessionState& state,
                                      const DeleteStmt& stmt);  // session_dml.cc
Result<StatementResult> ExecuteVacuum(SessionState& state,
                                      const VacuumStmt& stmt);  // session_vacuum.cc
Result<StatementResult> ExecuteDescribeDrift(
    SessionState& state,
    const DescribeDriftStmt& stmt);  // session_drift.cc

/// Spark's SHOW ... LIKE pattern: '*' matches any run of characters, '|' separates
/// alternatives; case-insensitive.
bool MatchesLikePattern(std::string_view pattern, std::string_view name);

}  // namespace deltaguard::internal
