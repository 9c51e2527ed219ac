/// \file deltaguard/log/replay.h
/// Action reconciliation (PROTOCOL.md "Action Reconciliation", digest §1.5 step 4) by
/// reverse replay: commits are fed newest first, then the checkpoint, and the first
/// (newest) action for each key wins.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "deltaguard/log/actions.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// The reconciled state of a table version.
struct ReplayState {
  std::optional<Protocol> protocol;
  std::optional<Metadata> metadata;
  std::vector<AddFile> files;          ///< live adds, sorted by (path, dv unique id)
  std::vector<RemoveFile> tombstones;  ///< newest removes not re-added, sorted by path
  std::map<std::string, SetTransaction> txns;  ///< newest per appId
  std::vector<DomainMetadata> domains;    ///< newest per domain, removed ones excluded,
                                          ///< sorted by domain
  std::optional<CommitInfo> commit_info;  ///< commitInfo of the target version's commit
};

/// Reverse replayer. Usage: AddCommit() for target, target-1, ..., c+1, then
/// AddCheckpoint() for each part of checkpoint c (if any), then Finish().
///
/// Keys: file actions by (path as logged, deletion vector unique id); newest wins; an add
/// makes the file live, a remove makes it a tombstone. protocol/metaData: newest wins.
/// txn: newest per appId. domainMetadata: newest per domain, removed=true excluded.
/// cdc/checkpointMetadata/sidecar/unknown actions do not participate.
/// Invariant: the checkpoint is already reconciled, so its rows are only checked
/// against keys seen in commits, never against each other (duplicates, which a valid
/// checkpoint never has, are dropped after sorting).
class LogReplayer {
 public:
  /// `table_root` names the table in gating errors. The protocol is gated as soon as the
  /// newest protocol action is seen, before any later (older) data is interpreted.
  LogReplayer(std::string table_root, int64_t target_version);

  /// Feed one commit; versions must strictly decrease between calls.
  Status AddCommit(int64_t version, std::vector<Action> actions);
  /// Feed (one part of) the checkpoint; no AddCommit may follow. Its add vector is
  /// kept and becomes ReplayState::files (sorted in place), so feeding a reader's
  /// vector costs no copy.
  Status AddCheckpoint(CheckpointActions part);

  bool has_protocol() const { return protocol_.has_value(); }
  /// Adds from commits that survive so far (Finish() appends them to the checkpoint's).
  size_t num_commit_adds() const { return commit_adds_.size(); }

  /// Produce the reconciled state.
  ReplayState Finish() &&;

 private:
  struct FileKey {
    std::string_view path;
    std::string_view dv;  // pathOrInlineDv, empty without DV
    int64_t dv_offset = -1;
    char dv_type = 0;  // 0 = no deletion vector
    bool operator==(const FileKey&) const = default;
  };
  struct FileKeyHash {
    size_t operator()(const FileKey& k) const;
  };
  template <typename F>
  static FileKey KeyOf(const F& file);

  Status TakeProtocol(Protocol& p);
  void TakeNonFileAction(Action& a);

  std::string table_root_;
  int64_t target_version_;
  int64_t last_commit_version_ = INT64_MAX;
  bool checkpoint_started_ = false;

  std::optional<Protocol> protocol_;
  std::optional<Metadata> metadata_;
  std::optional<CommitInfo> commit_info_;
  std::map<std::string, SetTransaction> txns_;
  std::unordered_map<std::string, std::optional<DomainMetadata>> domains_;

  // Commit actions stay here until Finish(): seen_ holds views into them, and
  // commit_adds_/commit_removes_ point at the surviving ones.
  std::vector<std::vector<Action>> commits_;
  std::unordered_set<FileKey, FileKeyHash> seen_;
  std::vector<AddFile*> commit_adds_;
  std::vector<RemoveFile*> commit_removes_;
  // Checkpoint file rows that survived (not superseded by a commit).
  std::vector<std::vector<AddFile>> checkpoint_adds_;
  std::vector<std::vector<RemoveFile>> checkpoint_removes_;
};

}  // namespace deltaguard
