/// \file deltaguard/log/log_segment.h
/// Listing `_delta_log` and choosing what to replay for a version (digest §1.5 steps
/// 1-3): the `_last_checkpoint` hint, complete checkpoints, and the contiguous JSON
/// commits after them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/log/log_path.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// `_last_checkpoint` content we use. The file is only a hint (PROTOCOL.md "Last
/// Checkpoint File"): it may be stale, missing or corrupt.
struct LastCheckpointHint {
  int64_t version = 0;
  std::optional<int64_t> parts;
};

/// Read `<log_dir>/_last_checkpoint`; std::nullopt when missing, unreadable, truncated or
/// not the expected JSON (never an error: readers fall back to listing).
std::optional<LastCheckpointHint> ReadLastCheckpointHint(const FileSystem& fs,
                                                         const std::string& log_dir);

/// A complete checkpoint: every file needed to read it (one file, or all parts of a
/// multi-part checkpoint in part order). Sidecars are discovered when it is read.
struct CheckpointFiles {
  int64_t version = 0;
  LogFileType type = LogFileType::kCheckpointClassic;
  std::vector<FileInfo> files;
};

struct CommitFile {
  int64_t version = 0;
  FileInfo file;
};

/// The recognised content of `_delta_log` (from some start version on).
struct LogListing {
  std::vector<CommitFile> commits;           ///< ascending, unique versions
  std::vector<CheckpointFiles> checkpoints;  ///< complete only; ascending by version,
                                             ///< preferred kind first within a version
  int64_t listed_from = 0;                   ///< versions below were not listed
};

/// List `log_dir` from `start_version`'s prefix on. Incomplete multi-part checkpoints are
/// dropped; for one version, preference is classic > V2 (UUID) > multi-part (any
/// complete one is valid, PROTOCOL.md "Checkpoints"). A missing directory is kNotFound.
Result<LogListing> ListLog(const FileSystem& fs, const std::string& log_dir,
                           int64_t start_version);

/// What to replay for one version. Invariants:
///  - every entry of `checkpoints` has version <= `version` and the commits
///    version+1..`version` all exist (so any of them can start the replay);
///  - `checkpoints` is ordered best first (newest; preferred kind);
///  - `commits` holds the commits from the oldest usable start up to `version`.
struct LogSegment {
  std::string table_root;
  std::string log_dir;
  int64_t version = 0;         ///< the version to reconstruct
  int64_t latest_version = 0;  ///< newest version in the listing
  std::vector<CheckpointFiles> checkpoints;
  bool can_start_from_zero = false;  ///< 0.json .. version.json are all present
  std::vector<CommitFile> commits;   ///< ascending, contiguous, ending at `version`
                                    ///< (empty if `version` is a checkpoint-only version)
  bool listed_from_hint = false;  ///< only versions >= the hint were listed
  /// File whose modification time is the commit time of `version` when in-commit
  /// timestamps do not apply: the commit file, else the checkpoint's first file.
  FileInfo version_file;
};

/// Build the segment for `version` (latest when std::nullopt) of the table at
/// `table_root` (already normalised). Errors, all naming the table:
///  - no `_delta_log` or no commit/checkpoint in it: kNotFound;
///  - `version` newer than the latest: kNotFound naming the latest;
///  - `version` older than the earliest reconstructable version (history cleaned up):
///    kNotFound naming the earliest;
///  - a missing commit between the chosen start and `version`: kCorruptLog naming the
///    missing version and its neighbours; no checkpoint and no 0.json: kCorruptLog.
/// With `use_hint`, listing starts at the `_last_checkpoint` version (when it is <= the
/// requested version) and falls back to a full listing if that finds no usable
/// checkpoint; without it the whole log is listed (needed to find older checkpoints).
Result<LogSegment> BuildLogSegment(const FileSystem& fs, const std::string& table_root,
                                   std::optional<int64_t> version, bool use_hint = true);

}  // namespace deltaguard
