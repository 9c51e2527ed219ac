/// \file deltaguard/write/commit_hooks.h
/// The four kinds of commit hook the commit funnel (commit_funnel.h) runs, in this
/// order:
///  1. batch observers see every conformed batch as it streams to the data files (one
///     pass over the data, never a re-read): enforcement, profiles, routing rows to a
///     quarantine or rescue table;
///  2. pre-commit validators see the staged actions and the metadata after the commit
///     and may refuse: then nothing is committed and the staged files are removed;
///  3. commit decorators add actions to the same commit (a profile row, a contract id,
///     an ingestion `txn`, domain metadata);
///  4. post-commit observers learn the committed version; they never change the outcome
///     (a failure is reported in CommitOutcome::hook_warnings).
/// Within a kind, hooks run in the order they are listed. Hooks are called per batch or
/// per commit, never per row, so they add no per-row virtual call to the write loops.
#pragma once

#include <arrow/record_batch.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/log/actions.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/txn/staged_actions.h"
#include "deltaguard/txn/transaction.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// Where a batch comes from.
struct BatchInfo {
  std::string_view input;  ///< the input's name ("VALUES", a file path, ...)
  int64_t first_row = 0;   ///< 0-based row of the batch's first row in that input
};

/// Sees the conformed batches of the write (the table's logical Arrow schema after the
/// commit) before they are encoded.
class BatchObserver {
 public:
  virtual ~BatchObserver() = default;
  virtual std::string_view name() const = 0;
  /// May replace `*batch` by a subset of its rows in the same schema (a routing hook
  /// sends the other rows elsewhere); an empty batch is then not staged. An error fails
  /// the write.
  virtual Status OnBatch(std::shared_ptr<arrow::RecordBatch>* batch,
                         const BatchInfo& info) = 0;
};

/// What validators and decorators see of the commit about to be made.
struct StagedCommit {
  std::string_view table;         ///< the table as the user named it
  const Snapshot* read_snapshot;  ///< null when the commit creates the table
  const Metadata& metadata;       ///< the table's metadata after the commit
  const StagedActions& actions;   ///< every action staged so far (adds included)
};

/// May refuse the commit (drift policy, contracts, data tests).
class PreCommitValidator {
 public:
  virtual ~PreCommitValidator() = default;
  virtual std::string_view name() const = 0;
  virtual Status Validate(const StagedCommit& commit) = 0;
};

/// Adds actions to the commit through `txn`'s staging calls (AddDomainMetadata,
/// SetAppTransaction, ...).
class CommitDecorator {
 public:
  virtual ~CommitDecorator() = default;
  virtual std::string_view name() const = 0;
  virtual Status Decorate(const StagedCommit& commit, Transaction* txn) = 0;
};

/// What a post-commit observer learns.
struct CommittedWrite {
  std::string_view table;
  const CommitResult& commit;
  const Metadata& metadata;  ///< the table's metadata after the commit
};

/// Told about a commit that happened (event log, reports); cannot change the outcome.
class PostCommitObserver {
 public:
  virtual ~PostCommitObserver() = default;
  virtual std::string_view name() const = 0;
  virtual Status OnCommitted(const CommittedWrite& write) = 0;
};

/// The hooks of one write. `enforcement` are the write's own row checks (CHECK / NOT
/// NULL / CHAR-VARCHAR limits, replaceWhere): batch observers that run first and
/// whose errors are the write's errors as they are (they name the constraint and the
/// row). Every other hook's error is prefixed with "commit hook '<name>'".
struct CommitHooks {
  std::vector<std::shared_ptr<BatchObserver>> enforcement;
  std::vector<std::shared_ptr<BatchObserver>> batch_observers;
  std::vector<std::shared_ptr<PreCommitValidator>> validators;
  std::vector<std::shared_ptr<CommitDecorator>> decorators;
  std::vector<std::shared_ptr<PostCommitObserver>> post_commit;
};

}  // namespace deltaguard
