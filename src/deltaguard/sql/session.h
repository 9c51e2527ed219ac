/// \file deltaguard/sql/session.h
/// A SQL session: parse and execute statements against tables in a warehouse or at
/// paths, with Spark's session settings (`SET`), a current database (`USE`) and temp
/// views. The CLI (`deltaguard sql`, `deltaguard shell`), the golden-test runner and
/// Python all execute SQL through this class, so they behave alike.
///
/// Every statement is its own transaction: writes go through table/write.h (schema
/// enforcement, evolution only when asked, all-or-nothing commits). A session holds no
/// snapshot between statements: each statement reads the table's latest version (or
/// the one it time-travels to), so another session's commit is seen by the next
/// statement, as with Spark's DeltaLog refresh.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/type_fwd.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/sql/catalog.h"
#include "deltaguard/sql/parse/statement.h"
#include "deltaguard/table/write.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

struct SessionOptions {
  FileSystemRef fs;  ///< null: the local file system
  /// Warehouse directory (default `./warehouse`; the CLI takes --warehouse or
  /// DELTAGUARD_WAREHOUSE).
  std::string warehouse = "warehouse";
  SessionSettings settings;
  /// Clock for current_timestamp() (microseconds since the epoch); null = system clock.
  std::function<int64_t()> clock_micros;
};

/// The result of one statement. Queries, DESCRIBE and SHOW return rows; writes return
/// Spark's metrics row where Spark has one (INSERT: num_affected_rows,
/// num_inserted_rows) plus the WriteResult; every statement has a one-line message
/// ("Inserted 3 rows into orders (version 2)").
struct StatementResult {
  std::string kind;                       ///< StatementKindName
  std::shared_ptr<arrow::Schema> schema;  ///< null when the statement has no rows
  /// The rows (streamed; read once). Null when schema is null.
  std::shared_ptr<arrow::RecordBatchReader> rows;
  std::string message;
  /// Things the user must see even when the statement has rows (MERGE's dropped source
  /// columns); also in `message`. The CLI prints each to stderr as "WARNING: ...".
  std::vector<std::string> warnings;
  std::optional<WriteResult> write;
  /// The table version the statement committed (every write, MERGE, UPDATE, DELETE,
  /// ALTER); nullopt when it committed nothing.
  std::optional<int64_t> committed_version;
};

class Session {
 public:
  explicit Session(SessionOptions options);

  /// Execute one parsed statement. Errors carry the statement's context: a semantic
  /// error names the table, the column and both types; nothing is committed.
  Result<StatementResult> Execute(const Statement& statement);

  /// Parse and execute exactly one statement.
  Result<StatementResult> ExecuteSql(std::string_view sql);

  /// Parse a script and execute its statements in order, stopping at the first error
  /// (whose message then starts with "statement N (line L): "). `on_result` sees each
  /// statement's result before the next one runs (and must consume its rows then).
  Status ExecuteScript(
      std::string_view script,
      const std::function<Status(const Statement&, StatementResult&)>& on_result);

  /// Make `data` queryable as the temp view `name` (Python data: any Arrow producer,
  /// read into memory by the caller). Replaces an earlier registration of that name
  /// and drops a SQL temp view of the same name. Names are case-insensitive and must
  /// be one identifier.
  Status RegisterDataView(const std::string& name, std::shared_ptr<arrow::Table> data);
  /// Forget a registered view; kNotFound when there is none of that name.
  Status DropDataView(const std::string& name);

  const SessionSettings& settings() const { return options_.settings; }
  const std::string& current_database() const { return current_database_; }
  Catalog& catalog() { return catalog_; }

 private:
  SessionOptions options_;
  Catalog catalog_;
  std::string current_database_ = "default";
  std::map<std::string, SelectRef> temp_views_;
  std::map<std::string, std::shared_ptr<arrow::Table>> data_views_;
  /// Settings set with SET that deltaguard does not interpret (shown by SET).
  std::map<std::string, std::string> other_settings_;
};

/// Read every row of a result into one table (an empty table for a schema without
/// rows; nullptr when the statement has no rows).
Result<std::shared_ptr<arrow::Table>> CollectRows(StatementResult& result);

}  // namespace deltaguard
