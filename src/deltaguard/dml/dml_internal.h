/// \file deltaguard/dml/dml_internal.h
/// Pieces shared by MERGE, UPDATE and DELETE (not part of the public API): loading the
/// target, scanning one data file, Arrow row selection, the metadata of an evolved
/// schema, and the copy-on-write commit (removes of rewritten files + adds of new ones
/// in one transaction, PROTOCOL.md "Add File and Remove File").
#pragma once

#include <arrow/array.h>
#include <arrow/record_batch.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/exec/batch_conformer.h"
#include "deltaguard/expr/binder.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/io/parquet/partitioned_writer.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/log/actions.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/quality/commit_check.h"
#include "deltaguard/quality/profile_hook.h"
#include "deltaguard/txn/commit_info.h"
#include "deltaguard/util/result.h"
#include "deltaguard/write/commit_funnel.h"
#include "deltaguard/write/write_types.h"

namespace deltaguard::dml_internal {

/// The table a DML statement changes: its normalised root and latest snapshot.
struct DmlTarget {
  FileSystemRef fs;
  std::string root;
  std::string name;  ///< the path as given, for messages
  SnapshotRef snapshot;
};

/// Load the latest snapshot of `path` for `operation` ("MERGE", "UPDATE", "DELETE"):
/// kNotFound when there is no table; the protocol must allow writing. When
/// `modifies_rows` and the table is append-only (delta.appendOnly), kConstraintViolation
/// DELTA_CANNOT_MODIFY_APPEND_ONLY.
Result<DmlTarget> LoadTarget(FileSystemRef fs, const std::string& path,
                             std::string_view operation, bool modifies_rows);

/// A scan of one live file of the snapshot (file order, deletion vectors applied);
/// `use_threads`, `dictionary_columns`: ScanOptions.
Result<std::unique_ptr<TableScan>> ScanFile(
    const SnapshotRef& snapshot, const AddFile& file, bool use_threads = true,
    const std::vector<std::string>& dictionary_columns = {});

/// Adds the top-level names of the columns `e` reads (as spelled in the schema) to
/// `out`; nothing for a null `e`.
void AddReferencedColumns(const BoundExprRef& e, std::set<std::string>* out);

/// Conforms the unchanged rows a DML statement copies to the table's schema. Their
/// schema changes between files that keep a STRING column dictionary-encoded and files
/// that do not (ScanOptions::dictionary_columns): a conformer is made per input schema,
/// keeping those dictionaries (ConformOptions::keep_dictionaries).
class RowCopier {
 public:
  RowCopier(SchemaRef table_schema, std::string table_name)
      : table_schema_(std::move(table_schema)), table_name_(std::move(table_name)) {}
  Result<std::shared_ptr<arrow::RecordBatch>> Conform(const arrow::RecordBatch& raw);

 private:
  SchemaRef table_schema_;
  std::string table_name_;
  std::unique_ptr<BatchConformer> conformer_;
  std::shared_ptr<arrow::Schema> input_;  // the schema conformer_ was made for
};

/// The rows of `batch` where `mask` is TRUE (NULL counts as FALSE).
Result<std::shared_ptr<arrow::RecordBatch>> FilterRows(
    const std::shared_ptr<arrow::RecordBatch>& batch, const arrow::BooleanArray& mask);

/// `mask` as a non-null boolean array: TRUE stays, FALSE and NULL become false; when
/// `invert`, the opposite.
Result<std::shared_ptr<arrow::BooleanArray>> DenseMask(const arrow::BooleanArray& mask,
                                                       bool invert);

/// A boolean array from bytes (non-zero is true).
Result<std::shared_ptr<arrow::BooleanArray>> MaskFromBytes(
    const std::vector<uint8_t>& bytes);

/// The columns of `batch` at rows `indices` (-1 gives NULL).
Result<std::vector<std::shared_ptr<arrow::Array>>> TakeRows(
    const arrow::RecordBatch& batch, const std::vector<int64_t>& indices);

/// The state after a DML statement evolved the target schema to `evolved`: column
/// mapping ids for new fields, the metaData action and any protocol upgrade (type
/// widening). `evolved` == the snapshot's schema: nothing changes.
struct SchemaEvolutionStep {
  SchemaRef schema;  ///< the table schema after the commit (with column-mapping ids)
  Metadata effective_metadata;
  std::optional<Metadata> new_metadata;
  std::optional<Protocol> new_protocol;
};
Result<SchemaEvolutionStep> ChangeSchema(const Snapshot& snapshot, SchemaRef evolved,
                                         bool changed);

/// Copy-on-write output through the commit funnel (write/commit_funnel.h): data files
/// over the table schema after the commit, plus the files they replace. Abort(), a
/// failure or dropping the writer without Commit deletes what was written.
class DmlWriter {
 public:
  static Result<std::unique_ptr<DmlWriter>> Make(const DmlTarget& target,
                                                 const SchemaEvolutionStep& schema,
                                                 const SessionSettings& session);
  ~DmlWriter();

  Status Write(const std::shared_ptr<arrow::RecordBatch>& batch);
  void Abort();

  struct Outcome {
    int64_t version = -1;
    int64_t files_added = 0;
    int64_t files_removed = 0;
    int64_t bytes_added = 0;
    int64_t bytes_removed = 0;
    int64_t rows_written = 0;
    int commit_attempts = 0;
    /// The profile of every row staged (docs/profiles.md "On write"), when the table
    /// keeps profiles and a version was committed; the caller stores it.
    std::shared_ptr<const TableProfile> profile;
    /// Data tests that warned (`SET deltaguard.check`, onFailure warn).
    std::vector<std::string> warnings;
  };

  /// Finish the files and commit: `removed` are removed (dataChange true) and recorded
  /// as read together with `read` (conflict detection, digest §1.6 step 7: a concurrent
  /// commit that removes one of them fails this one with kCommitConflict; blind
  /// appends are rebased over). `fill_metrics` receives the outcome before the commit
  /// to add the operation's metrics to `op`. When nothing is removed or added and the
  /// schema is unchanged, nothing is committed and `version` is the version read. On
  /// failure every file written is deleted
  /// (except after an I/O error at the commit itself, whose outcome is unknown).
  Result<Outcome> Commit(
      const std::vector<const AddFile*>& removed, std::vector<std::string> read,
      OperationInfo op,
      const std::function<void(const Outcome&, OperationInfo*)>& fill_metrics);

 private:
  DmlWriter() = default;
  DmlTarget target_;
  SchemaEvolutionStep schema_;
  std::unique_ptr<CommitFunnel> funnel_;       // null after Abort or Commit
  std::shared_ptr<ProfileObserver> profiler_;  // null without profiles or checks
  bool store_profile_ = false;                 // the table keeps profiles
  std::shared_ptr<CommitCheck> check_;         // SessionSettings::check_tests
  CheckFailureAction on_check_failure_ = CheckFailureAction::kFail;
};

/// Spark's operationParameters.predicate: a JSON array of SQL texts, as JSON text.
std::string PredicateParameter(const std::vector<std::string>& sql);

}  // namespace deltaguard::dml_internal
