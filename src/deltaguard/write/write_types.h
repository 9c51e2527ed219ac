/// \file deltaguard/write/write_types.h
/// The vocabulary of a write, shared by every path that commits data (table/ and dml/):
/// the write mode, session settings, an input (`BatchSource`), the options of a
/// WriteTable and what a write reports back. table/write.h re-exports these, so front
/// ends keep including that header.
#pragma once

#include <arrow/record_batch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltaguard/contract/contract.h"
#include "deltaguard/exec/query_memory.h"
#include "deltaguard/io/parquet/data_file_writer.h"
#include "deltaguard/protocol/metadata.h"
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
  /// deltaguard.query.memoryLimit: bytes of rows a statement's joins, windows, sorts
  /// and set operations hold in RAM before they spill to temporary files (docs/sql.md
  /// "Memory and spilling"); binary units as above, -1: no limit. Default: half of the
  /// memory the process may use (exec/query_memory.h).
  int64_t query_memory_limit = DefaultQueryMemoryLimit();
  /// spark.databricks.delta.retentionDurationCheck.enabled: VACUUM refuses a RETAIN
  /// below the table's delta.deletedFileRetentionDuration (table/vacuum.h).
  bool retention_duration_check = true;
  /// spark.databricks.delta.vacuum.logging.enabled: VACUUM commits Spark's
  /// "VACUUM START" / "VACUUM END" versions.
  bool vacuum_logging = true;
  std::string engine_info = "deltaguard/0.1.0";
  /// `deltaguard.contract`: a contract file that INSERT and CTAS follow (as `write
  /// --contract`; docs/contracts.md "Writes"); "" for none.
  std::string contract_file;
  /// `deltaguard.check`: data tests that INSERT and CTAS run before their commit (as
  /// `write --check`; docs/data_tests.md "At commit time"): "auto" or a tests file;
  /// "" for none. `deltaguard.check.onFailure`: fail | warn. `deltaguard.check.baseline`:
  /// trailing:N | trailing:Nd ("" for the tests file's or the default).
  std::string check_tests;
  std::string check_on_failure = "fail";
  std::string check_baseline;
  /// Asked by the commit funnel before each batch is staged and right before the
  /// commit; an error aborts the write: the staged files are removed and nothing is
  /// committed. Front ends use it to stop a write on request (Python's
  /// KeyboardInterrupt). Null: never asked. Not a Spark setting (Set cannot change it).
  std::function<Status()> interrupt_check;
  /// Set a setting by its Spark name; unknown keys are kInvalidArgument.
  Status Set(std::string_view key, std::string_view value);
};

/// One input of a write: a schema known up front and a reader opened on demand, so that
/// many inputs are checked before any data is written and read one at a time.
struct BatchSource {
  std::string name;  ///< shown in messages (a file path, "VALUES", ...)
  std::shared_ptr<arrow::Schema> schema;
  /// The same schema in Delta types when the producer knows it (a table scan, a
  /// planned query); null: derived from `schema` when needed.
  SchemaRef delta_schema;
  std::function<Result<std::shared_ptr<arrow::RecordBatchReader>>()> open;
  /// Columns matched by position (headerless CSV, INSERT without a column list).
  bool by_position = false;
};

/// A BatchSource over an existing reader (opened once).
BatchSource SourceFromReader(std::string name,
                             std::shared_ptr<arrow::RecordBatchReader> reader);

/// What a failing data test does at commit time (docs/data_tests.md "At commit time").
enum class CheckFailureAction : uint8_t {
  kFail,        ///< nothing is committed; the error names the tests
  kWarn,        ///< the write goes through; the findings are warnings
  kQuarantine,  ///< rows breaking row tests are routed; a failing batch test holds the
                ///< whole batch in the quarantine table (table/quarantine.h)
};

/// Data tests at commit time: the incoming rows' profile and row tests against the
/// table's baseline, decided after the data files are staged and before the commit
/// (quality/commit_check.h).
struct WriteCheckOptions {
  std::string tests = "auto";  ///< "auto" (default detectors) or a tests file / contract
  std::string baseline;        ///< "": the tests file's, else trailing:14
  CheckFailureAction on_failure = CheckFailureAction::kFail;
  std::string quarantine;  ///< the quarantine table (kQuarantine)
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
  /// The data contract the write follows (write/contract_write.h; docs/contracts.md
  /// "Writes"); null: the one the table carries, if any. `contract_object` names its
  /// schema object when it declares several.
  std::shared_ptr<const Contract> contract;
  std::string contract_object;
  /// Data tests before the commit; unset: none (the table's profiles, if on, are still
  /// kept).
  std::optional<WriteCheckOptions> check;
};

/// What the data tests of a write decided (WriteOptions::check).
struct WriteCheckSummary {
  std::string tests;    ///< "auto" or the file
  std::string outcome;  ///< passed | warning | failed | error
  std::string text;     ///< the report as `deltaguard check` prints it
  std::string json;     ///< the report as `deltaguard check --format json` prints it
  /// The whole batch went to the quarantine table instead of the table.
  bool held = false;
  std::string held_reason;  ///< the failed tests, as `_violated_constraint` says
};

/// What a write under a contract did (docs/contracts.md "Writes").
struct ContractWriteSummary {
  std::string id;
  std::string version;
  std::string layer;
  std::vector<std::string> ignored_columns;  ///< input columns the contract leaves out
  std::vector<std::string> renamed;          ///< matched through an alias
  std::vector<std::string> cast_columns;     ///< "amount: string -> decimal(10,2)"
  std::vector<std::pair<std::string, int64_t>> cast_nulls;  ///< castPolicy try
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
  /// Set when the write followed a contract.
  std::optional<ContractWriteSummary> contract;
  /// Set when the write ran data tests.
  std::optional<WriteCheckSummary> check;
  /// What the user must see (new upstream columns a contract ignored, ...).
  std::vector<std::string> warnings;
  std::optional<std::string> checkpoint_error;  ///< commit succeeded, checkpoint did not
};

}  // namespace deltaguard
