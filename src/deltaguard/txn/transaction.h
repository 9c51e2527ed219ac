/// \file deltaguard/txn/transaction.h
/// Transaction: stages the actions of one Delta commit, records what the operation read,
/// and commits with optimistic concurrency (PROTOCOL.md "Creation of New Log Entries",
/// digest §1.6): put-if-absent of `_delta_log/<v>.json`, conflict checks against the
/// winning commits and rebase on a lost race.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/log/actions.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/txn/commit_info.h"
#include "deltaguard/txn/staged_actions.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

inline constexpr std::string_view kDefaultEngineInfo = "deltaguard/0.1.0";

struct TransactionOptions {
  std::string engine_info = std::string(kDefaultEngineInfo);
  /// Commit attempts including the first (>= 1).
  int max_attempts = 10;
  /// Milliseconds since the epoch; default: the system clock. Tests inject one.
  std::function<int64_t()> clock_ms;
};

struct CommitResult {
  int64_t version = 0;                    ///< the version written
  int attempts = 0;                       ///< 1 when no race was lost
  std::vector<int64_t> winning_versions;  ///< concurrent commits rebased over, ascending
  std::string commit_info_json;           ///< the commitInfo object written
};

/// One write to one table. Not thread-safe; one Transaction per writer.
///
/// Invariants:
///  - Commit() writes exactly one new file, `_delta_log/%020d.json`, with
///    FileSystem::PutIfAbsent: an existing version is never overwritten. Its lines, each
///    '\n'-terminated, are: commitInfo, protocol, metaData, txn, domainMetadata, remove,
///    add (commitInfo first, as in-commit timestamps require).
///  - The first attempt targets read_version() + 1. On kAlreadyExists the commits after
///    it are read and checked (conflict_checker.h); without a conflict the commit is
///    rebuilt for the next free version (same txnId and readVersion; timestamp,
///    in-commit timestamp and ICT enablement version recomputed) and retried, up to
///    max_attempts; a conflict is kCommitConflict and nothing is written.
///  - Any other storage error is returned as-is, without retry: the log then holds
///    either no new version or exactly this commit (put-if-absent is atomic), and the
///    caller may retry the whole transaction after reloading the snapshot.
///  - A Transaction commits at most once: a second Commit() is kInvalidArgument.
class Transaction {
 public:
  /// `read_snapshot` == nullptr: the table does not exist yet; the commit creates
  /// version 0 (a concurrent creation makes it fail with kCommitConflict).
  /// kInvalidArgument for a null `fs`, an empty root, max_attempts < 1 or an unsupported
  /// delta.isolationLevel.
  static Result<std::unique_ptr<Transaction>> Begin(FileSystemRef fs,
                                                    std::string table_root,
                                                    SnapshotRef read_snapshot,
                                                    TransactionOptions options = {});

  /// The version read, -1 for a new table.
  int64_t read_version() const { return snapshot_ ? snapshot_->version() : -1; }
  const Snapshot* read_snapshot() const { return snapshot_.get(); }
  const std::string& table_root() const { return table_root_; }

  // ---- staging (validated at Commit) ----------------------------------------------
  /// A metaData action; it replaces the table's whole metadata (PROTOCOL.md "Change
  /// Metadata"). Staging two is an error at Commit.
  void SetMetadata(Metadata m);
  void SetProtocol(Protocol p);
  void AddFile(deltaguard::AddFile a);
  void RemoveFile(deltaguard::RemoveFile r);
  /// A txn action {appId, version, lastUpdated = clock now} for idempotent writes.
  void SetAppTransaction(std::string app_id, int64_t version);
  void AddDomainMetadata(DomainMetadata d);

  // ---- read scope (conflict detection, digest §1.6 steps 6-7) ----------------------
  /// The operation depends on the whole table: any concurrent add or remove conflicts.
  void ReadWholeTable();
  /// The operation read these files (paths as logged): a concurrent remove conflicts.
  void ReadFiles(std::vector<std::string> paths);
  /// The operation read the partitions matching `pred`: a concurrent add or remove of a
  /// file in them conflicts.
  void ReadPartitions(std::function<bool(const PartitionValues&)> pred);

  /// The last version committed by `app_id` as of the read snapshot (nullopt: none).
  /// Records the app id as read: a concurrent txn action for it makes Commit fail with
  /// DELTA_CONCURRENT_TRANSACTION.
  std::optional<int64_t> AppTransactionVersion(std::string_view app_id) const;

  const StagedActions& staged() const { return staged_; }
  const ReadScope& read_scope() const { return read_; }

  /// Validate, then write the commit (see class invariants). Errors: kInvalidArgument
  /// (invalid commit, second call), kCommitConflict (a conflicting winner, or
  /// max_attempts races lost), kIOError and others from the file system.
  Result<CommitResult> Commit(const OperationInfo& op);

 private:
  Transaction() = default;

  struct Attempt;  // per-attempt state, defined in transaction.cc
  Result<std::string> BuildCommitFile(const OperationInfo& op, Attempt* attempt);
  Status CheckInCommitTimestampSupport() const;
  Result<std::vector<int64_t>> RebaseOverWinners(Attempt* attempt);

  FileSystemRef fs_;
  std::string table_root_;
  std::string log_dir_;
  SnapshotRef snapshot_;
  TransactionOptions options_;
  IsolationLevel table_isolation_ = IsolationLevel::kSerializable;
  StagedActions staged_;
  mutable ReadScope read_;
  std::string txn_id_;
  bool committed_ = false;
};

}  // namespace deltaguard
