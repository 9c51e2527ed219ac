/// \file deltaguard/txn/staged_actions.h
/// What a transaction is about to commit (its actions) and what it read (its read
/// scope), with the commit-level validity rules of PROTOCOL.md "Delta Log Entries"
/// (digest §1.6) checked before anything is written.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/log/actions.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/txn/commit_info.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// The actions of one commit, by kind. commitInfo is not staged: Commit() builds it.
/// Vectors (not optionals) for metadata/protocol so that validation can report a
/// second one instead of silently replacing the first.
struct StagedActions {
  std::vector<Metadata> metadata;
  std::vector<Protocol> protocol;
  std::vector<SetTransaction> txns;
  std::vector<DomainMetadata> domains;
  std::vector<RemoveFile> removes;
  std::vector<AddFile> adds;

  /// True when any add/remove has dataChange=true.
  bool HasDataChange() const;
  /// True when metaData or protocol is staged.
  bool ChangesTableConfig() const { return !metadata.empty() || !protocol.empty(); }
};

/// What the transaction read, for conflict detection (digest §1.6 steps 4, 6, 7).
/// Invariant: an empty scope (nothing read) makes an add-only commit a blind append.
struct ReadScope {
  /// The whole table was read (any concurrent add or remove conflicts).
  bool whole_table = false;
  /// Paths (as logged, AddFile::path) of files read: a concurrent remove of one
  /// conflicts.
  std::set<std::string> files;
  /// Partitions read: a concurrent add or remove of a file whose partition values match
  /// any predicate conflicts.
  std::vector<std::function<bool(const PartitionValues&)>> partition_predicates;
  /// App ids whose txn version was read (Transaction::AppTransactionVersion): any
  /// concurrent txn action for one conflicts.
  std::set<std::string> app_ids;

  /// True when a file or partition was read (app ids do not count, as in Spark).
  bool DependsOnFiles() const {
    return whole_table || !files.empty() || !partition_predicates.empty();
  }
  /// True when a file with these partition values lies in what was read.
  bool CoversPartition(const PartitionValues& values) const;
};

/// Spark's isBlindAppend: no file is read and every file action is an add with
/// dataChange=true. metaData/protocol/txn/domainMetadata do not matter (Spark writes
/// isBlindAppend=true for CREATE TABLE AS SELECT).
bool IsBlindAppend(const StagedActions& staged, const ReadScope& read);

/// The isolation level a commit runs under: SnapshotIsolation when it changes no data
/// and no metaData/protocol (compaction, txn-only); else the table's level.
IsolationLevel EffectiveIsolationLevel(const StagedActions& staged,
                                       IsolationLevel table_level);

/// Validate a commit before writing it (PROTOCOL.md "Delta Log Entries"):
///  - a new table (`read_snapshot` == nullptr) needs protocol and metaData;
///  - at most one metaData and one protocol; metaData has an id and a schemaString;
///  - no two txn actions with the same appId (non-empty), no two domainMetadata for one
///    domain;
///  - at most one add and one remove per path; no add and remove of the same
///    (path, deletion vector);
///  - an add of a path live in `read_snapshot` with another deletion vector must come
///    with a remove of that (path, dv);
///  - with delta.appendOnly=true, no remove with dataChange=true.
/// Errors are kInvalidArgument naming `table_root` and the offending path/app/domain.
Status ValidateStagedActions(const StagedActions& staged, const Snapshot* read_snapshot,
                             std::string_view table_root);

}  // namespace deltaguard
