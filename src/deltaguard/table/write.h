/// \file deltaguard/table/write.h
/// The library's write API: create a table, and write Arrow data into a table (append,
/// overwrite, partial overwrite by predicate) with schema enforcement and deliberate
/// evolution. The CLI, the SQL layer and Python all call these functions.
///
/// A write is all-or-nothing: data files are written first, then one commit adds them
/// (FileSystem::PutIfAbsent on the next log version). Any failure before the commit
/// deletes the files written so far and leaves the log untouched; a lost race is
/// resolved by the txn layer's conflict rules (blind appends retry, conflicting
/// operations fail with kCommitConflict).
#pragma once

#include <arrow/record_batch.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "deltaguard/exec/input_source.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/io/parquet/data_file_writer.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// What to do when the table already exists (Spark's SaveMode).
enum class WriteMode { kAppend, kOverwrite, kErrorIfExists, kIgnore };

/// "append", "overwrite", "error"/"errorifexists", "ignore" (case-insensitive).
Result<WriteMode> ParseWriteMode(std::string_view text);
std::string_view WriteModeName(WriteMode mode);  ///< Spark's name: "Append", ...

/// Session-level settings shared by the CLI, SQL and Python front ends.
struct SessionSettings {
  /// spark.databricks.delta.schema.autoMerge.enabled: schema evolution on every write
  /// that does not say otherwise.
  bool auto_merge = false;
  /// deltaguard.merge.ignoreUnmatchedSourceColumns: MERGE's `UPDATE SET *` / `INSERT *`
  /// drop source columns the target lacks with a warning (Spark's behaviour) instead of
  /// failing (dml/merge.h rule 4).
  bool merge_ignore_unmatched_source_columns = false;
  /// deltaguard.merge.sourceMemoryLimit: bytes of MERGE source kept in RAM before it is
  /// spilled to a memory-mapped temporary file (dml/merge.h rule 8). Set as bytes or
  /// with a binary unit ("512m", "2g"); -1: no limit.
  int64_t merge_source_memory_limit = int64_t{1} << 30;
  /// spark.databricks.delta.retentionDurationCheck.enabled: VACUUM refuses a RETAIN
  /// below the table's delta.deletedFileRetentionDuration (table/vacuum.h).
  bool retention_duration_check = true;
  /// spark.databricks.delta.vacuum.logging.enabled: VACUUM commits Spark's
  /// "VACUUM START" / "VACUUM END" versions.
  bool vacuum_logging = true;
  std::string engine_info = "deltaguard/0.1.0";
  /// Set a setting by its Spark name; unknown keys are kInvalidArgument.
  Status Set(std::string_view key, std::string_view value);
};

/// One input of a write: a schema known up front and a reader opened on demand, so that
/// many inputs are checked before any data is written and read one at a time.
struct BatchSource {
  std::string name;  ///< shown in messages (a file path, "VALUES", ...)
  std::shared_ptr<arrow::Schema> schema;
  std::function<Result<std::shared_ptr<arrow::RecordBatchReader>>()> open;
  /// Columns matched by position (headerless CSV, INSERT without a column list).
  bool by_position = false;
};

/// A BatchSource over an existing reader (opened once).
BatchSource SourceFromReader(std::string name,
                             std::shared_ptr<arrow::RecordBatchReader> reader);

struct CreateTableOptions {
  SchemaRef schema;  ///< columns (NOT NULL and comments allowed)
  std::vector<std::string> partition_columns;
  StringMap properties;  ///< TBLPROPERTIES; delta.* keys validated
  std::optional<std::string> name;
  std::optional<std::string> description;
  bool if_not_exists = false;  ///< an existing table is then not an error
  /// Created by name in the warehouse without LOCATION (commitInfo isManaged).
  bool managed = false;
};

struct WriteOptions {
  WriteMode mode = WriteMode::kAppend;
  /// mergeSchema for this write; nullopt: the session's auto_merge.
  std::optional<bool> merge_schema;
  bool overwrite_schema = false;  ///< only with kOverwrite, never with replace_where
  /// Partial overwrite: rows written must satisfy it; files/rows matching it are
  /// replaced (SQL expression over the table's columns).
  std::optional<std::string> replace_where;
  /// Partitioning for a new table (or with overwrite_schema); on an existing table it
  /// must equal the table's.
  std::vector<std::string> partition_by;
  StringMap properties;  ///< table properties when the write creates the table
  /// Idempotent writes: skip when the table already holds this application's version.
  std::optional<std::string> txn_app_id;
  std::optional<int64_t> txn_version;
  DataFileWriterOptions file_options;
  /// How the user's interface names the mergeSchema switch (shown in errors).
  std::string merge_option_hint = "mergeSchema";
  std::string operation = "WRITE";  ///< commitInfo.operation
  /// Write a checkpoint after the commit when delta.checkpointInterval says so.
  bool checkpoint = true;
};

struct WriteResult {
  int64_t version = -1;  ///< committed version; -1 when nothing was committed
  bool skipped = false;  ///< kIgnore on an existing table, or txn already applied
  std::string skipped_reason;
  bool created = false;     ///< the write created the table
  int64_t rows = 0;         ///< rows from the inputs
  int64_t rows_copied = 0;  ///< unchanged rows rewritten by a data-column replaceWhere
  int64_t files_added = 0;
  int64_t files_removed = 0;
  int64_t bytes_added = 0;
  bool schema_changed = false;
  std::vector<std::string> added_columns;
  std::vector<std::string> widened_columns;
  std::vector<std::string> missing_columns;  ///< table columns the input lacked (NULL)
  int commit_attempts = 0;
  std::optional<int64_t> checkpoint_version;
  std::optional<std::string> checkpoint_error;  ///< commit succeeded, checkpoint did not
};

/// Create an empty table (version 0). Fails with kAlreadyExists when `path` already
/// holds a Delta table, unless if_not_exists (then `skipped`).
Result<WriteResult> CreateTable(FileSystemRef fs, const std::string& path,
                                const CreateTableOptions& options,
                                const SessionSettings& session = {});

/// SQL's CREATE OR REPLACE TABLE / REPLACE TABLE [AS SELECT], in one commit (table
/// history is kept): the table at `path` gets `options`' schema (or, when null, the
/// schema of `data` made nullable), partitioning, properties and description; every
/// live data file is removed and `data`'s rows (if any) become the contents, conformed
/// to the new schema. The old table properties are dropped except the protocol state
/// that cannot go back (column-mapping mode and maxColumnId, in-commit timestamps);
/// the protocol is never downgraded and the table id is kept. A missing table is
/// created (version 0). `operation` is commitInfo.operation ("CREATE OR REPLACE
/// TABLE", "REPLACE TABLE AS SELECT", ...). `options.if_not_exists` is ignored.
Result<WriteResult> ReplaceTable(FileSystemRef fs, const std::string& path,
                                 const CreateTableOptions& options,
                                 std::optional<BatchSource> data,
                                 const std::string& operation,
                                 const SessionSettings& session = {});

/// Write `sources` into the table at `path` (created when absent). See the file comment
/// and docs/behaviour.md for the enforcement rules.
Result<WriteResult> WriteTable(FileSystemRef fs, const std::string& path,
                               std::vector<BatchSource> sources,
                               const WriteOptions& options,
                               const SessionSettings& session = {});

/// Write input files (Parquet, CSV, NDJSON, Arrow IPC): `inputs` are expanded
/// (directories, globs), the table's schema (when it exists) becomes the type hint for
/// CSV/JSON, and every file is inspected before any data is written, so a schema
/// problem in the last file fails the write before the first file is read.
Result<WriteResult> WriteFiles(FileSystemRef fs, const std::string& path,
                               const std::vector<std::string>& inputs,
                               InputOptions input_options, const WriteOptions& options,
                               const SessionSettings& session = {});

/// The schema of an input file in Delta types, made nullable (create --from-file).
Result<SchemaRef> SchemaOfInputFile(const std::string& file,
                                    const InputOptions& input_options);

}  // namespace deltaguard
