/// \file deltaguard/write/commit_funnel.h
/// The one commit path of every write (append, overwrite, replaceWhere, CREATE and
/// REPLACE [AS SELECT], ALTER, MERGE, UPDATE, DELETE, quarantine). Its order is:
///
///   input -> conform -> hooks (enforcement, batch observers) -> encode -> stage
///         -> validators -> decorators -> commit -> post-commit observers -> checkpoint
///
/// The caller loads the snapshot once (nullptr for a table that does not exist yet),
/// decides the schema and metadata after the commit (FunnelPlan), and opens the funnel;
/// it then streams rows (WriteSource: conformed here; WriteConformed: rows the caller
/// conformed, e.g. copied unchanged rows), stages removes and read scopes through
/// txn(), and calls Commit once.
///
/// Invariants:
///  - Data files are staged through one PartitionedWriter over plan.schema; they reach
///    the log only in the one commit Commit makes (txn/Transaction: put-if-absent of
///    the next version, conflict checks and rebase on a lost race stay there).
///  - Every failure removes the staged data files (a scope guard in the funnel: a
///    failing writer, hook, validator or commit, or a funnel dropped without Commit),
///    except an I/O error at the commit itself: its outcome is unknown (the commit file
///    may exist), so the files stay (docs/behaviour.md "Writes").
///  - Post-commit observers and the checkpoint never fail a committed write; their
///    failures are reported in CommitOutcome.
#pragma once

#include <arrow/record_batch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "deltaguard/exec/batch_conformer.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/io/parquet/data_file_writer.h"
#include "deltaguard/io/parquet/partitioned_writer.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/txn/commit_info.h"
#include "deltaguard/txn/transaction.h"
#include "deltaguard/util/result.h"
#include "deltaguard/write/commit_hooks.h"
#include "deltaguard/write/write_types.h"

namespace deltaguard {

/// The table a write commits to.
struct FunnelTable {
  FileSystemRef fs;
  std::string root;      ///< normalized table directory
  std::string name;      ///< the table as the user named it (messages)
  SnapshotRef snapshot;  ///< the snapshot read; null: the commit creates the table
};

/// What the commit will make of the table, decided before any row is read.
struct FunnelPlan {
  /// The table schema after the commit (with column-mapping ids); rows are conformed
  /// to it and files written in it. Null: the commit stages no data files.
  SchemaRef schema;
  /// Rows are conformed to this schema instead when set: the table schema with NOT NULL
  /// relaxed, so that violating rows reach a routing enforcement hook, which must hand
  /// on its batches in `schema` (quarantine).
  SchemaRef conform_schema;
  Metadata metadata;                     ///< the table's metadata after the commit
  std::optional<Metadata> new_metadata;  ///< staged metaData action, if any
  std::optional<Protocol> new_protocol;  ///< staged protocol action, if any
  /// Data file options; `stats` are derived from `metadata` (delta.dataSkipping*).
  DataFileWriterOptions file_options;
  /// Write a checkpoint after the commit when delta.checkpointInterval says so.
  bool checkpoint = true;
  /// Create `_delta_log` before the commit (CREATE and REPLACE of a new table).
  bool create_log_dir = false;
};

/// What a commit did.
struct CommitOutcome {
  bool committed = false;
  int64_t version = -1;  ///< the version committed (-1 when nothing was)
  int attempts = 0;
  std::vector<WrittenFile> files;  ///< the data files added
  int64_t rows_written = 0;        ///< rows in those files
  int64_t bytes_added = 0;
  std::optional<int64_t> checkpoint_version;
  std::optional<std::string> checkpoint_error;  ///< commit succeeded, checkpoint did not
  std::vector<std::string> hook_warnings;       ///< failed post-commit observers
};

class CommitFunnel {
 public:
  /// Begin the transaction on table.snapshot and, when plan.schema is set, open the
  /// writer. Nothing is written yet.
  static Result<std::unique_ptr<CommitFunnel>> Open(FunnelTable table, FunnelPlan plan,
                                                    CommitHooks hooks,
                                                    const SessionSettings& session);
  ~CommitFunnel();  ///< removes the staged files unless the commit happened
  CommitFunnel(const CommitFunnel&) = delete;
  CommitFunnel& operator=(const CommitFunnel&) = delete;

  /// Read `source` through a conformer to plan.schema (or plan.conform_schema;
  /// `conform.by_position` from the
  /// source), run the enforcement hooks and the batch observers on each batch and stage
  /// it. Errors name the input ("input '<name>': ...").
  Status WriteSource(const BatchSource& source, ConformOptions conform);

  /// Stage rows already in the table's Arrow schema (plan.schema, logical names):
  /// the batch observers see them (not the enforcement hooks; the caller checked the
  /// rows it changed). Empty batches are skipped.
  Status WriteConformed(std::shared_ptr<arrow::RecordBatch> batch, const BatchInfo& info);

  /// The transaction, to stage removes, read scopes, app transactions and domain
  /// metadata. Adds of the staged files, the plan's metaData and protocol are staged by
  /// Commit.
  Transaction& txn() { return *txn_; }
  const FunnelTable& table() const { return table_; }
  const FunnelPlan& plan() const { return plan_; }

  /// Close the data files (idempotent; Commit calls it). The outcome's files, rows and
  /// bytes are known from then on.
  Status FinishFiles();
  const CommitOutcome& staged() const { return outcome_; }

  /// Stage the adds, run validators and decorators, let `fill` complete `op` (metrics
  /// from the outcome so far), create `_delta_log` for a new table, commit, run the
  /// post-commit observers and write the checkpoint when due. See the invariants.
  Result<CommitOutcome> Commit(
      OperationInfo op,
      const std::function<void(const CommitOutcome&, OperationInfo*)>& fill = {});

 private:
  CommitFunnel() = default;
  Status Observe(const std::vector<std::shared_ptr<BatchObserver>>& hooks, bool name_hook,
                 std::shared_ptr<arrow::RecordBatch>* batch, const BatchInfo& info);
  Status Stage(std::shared_ptr<arrow::RecordBatch> batch, const BatchInfo& info,
               bool enforce);
  Status RunPreCommitHooks();
  void RemoveStagedFiles();

  FunnelTable table_;
  FunnelPlan plan_;
  CommitHooks hooks_;
  std::function<Status()> interrupt_check_;  ///< SessionSettings::interrupt_check
  std::unique_ptr<PartitionedWriter> writer_;
  std::unique_ptr<Transaction> txn_;
  CommitOutcome outcome_;
  bool finished_ = false;
  bool keep_files_ = false;  // committed, or the commit's outcome is unknown
};

}  // namespace deltaguard
