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
#include "deltaguard/write/write_types.h"

namespace deltaguard {

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
