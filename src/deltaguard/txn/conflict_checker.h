/// \file deltaguard/txn/conflict_checker.h
/// Optimistic-concurrency conflict detection: decides whether a transaction that lost
/// the race for `_delta_log/<v>.json` may be rebased over a winning commit, following
/// Spark's ConflictChecker order (digest §1.6 steps 1-7).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "deltaguard/log/actions.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/txn/commit_info.h"
#include "deltaguard/txn/staged_actions.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// A commit that landed after the transaction's read version.
struct WinningCommit {
  int64_t version = 0;
  std::vector<Action> actions;
};

/// The parts of a winning commit the checks use.
struct WinningCommitSummary {
  int64_t version = 0;
  std::optional<Protocol> protocol;
  std::optional<Metadata> metadata;
  std::vector<const AddFile*> adds;
  std::vector<const RemoveFile*> removes;
  std::vector<const SetTransaction*> txns;
  std::vector<const DomainMetadata*> domains;
  std::optional<int64_t> in_commit_timestamp;
  /// commitInfo.isBlindAppend of the winner (false when absent).
  bool is_blind_append = false;
};

/// Summarise `winner` (pointers into winner.actions: it must outlive the summary).
WinningCommitSummary SummarizeWinningCommit(const WinningCommit& winner);

/// What the checks need to know about the losing transaction.
struct ConflictContext {
  std::string_view table_root;
  /// The isolation level the transaction commits under (EffectiveIsolationLevel).
  IsolationLevel isolation = IsolationLevel::kSerializable;
  /// The table's protocol as of the version before the winner (the read snapshot's,
  /// updated by earlier non-conflicting winners); nullptr while the table does not
  /// exist.
  const Protocol* current_protocol = nullptr;
  /// For the partition values of removed files that omit them; may be nullptr.
  const Snapshot* read_snapshot = nullptr;
};

/// OK when the transaction may be rebased over `winner`; otherwise kCommitConflict whose
/// message starts with Delta's error class and names the table, the winning version and
/// the file/partition/app id/domain. Checks, in Spark's order:
///  1. protocol: both changed it; or the winner removed a feature or added one whose
///     concurrent upgrade fails others (DELTA_PROTOCOL_CHANGED; also a concurrent table
///     creation);
///  2. metadata: the winner changed metaData (DELTA_METADATA_CHANGED; deltaguard does not
///     allow-list configuration-only changes);
///  3. the same metadata domain in both (DELTA_CONCURRENT_TRANSACTION);
///  4. an app id this transaction read, or sets to a version the winner already reached
///     (DELTA_CONCURRENT_TRANSACTION);
///  5. row tracking: own adds carrying baseRowId/defaultRowCommitVersion cannot be
///     reassigned (DELTA_CONCURRENT_TRANSACTION);
///  6. the winner added dataChange files in what was read (DELTA_CONCURRENT_APPEND):
///     Serializable counts blind appends too, WriteSerializable ignores them unless this
///     transaction changes metaData, SnapshotIsolation skips the check;
///  7. the winner removed a file that was read, or any file when the whole table was
///     read (DELTA_CONCURRENT_DELETE_READ), or a file this transaction also removes
///     (DELTA_CONCURRENT_DELETE_DELETE).
Status CheckWinningCommit(const ConflictContext& ctx, const StagedActions& staged,
                          const ReadScope& read, const WinningCommitSummary& winner);

/// "[a=1, b=null]" for messages.
std::string FormatPartitionValues(const PartitionValues& values);

}  // namespace deltaguard
