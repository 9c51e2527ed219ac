/// \file deltaguard/table/profiles.h
/// A table's column profiles (docs/profiles.md): kept per commit in the profile table
/// (quality/profile_table.h), computed inside deltaguard's writes when the table
/// property `deltaguard.profiles` is true (tables deltaguard creates get it), and
/// backfilled for commits other engines wrote by reading the files each commit added.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/protocol/metadata.h"
#include "deltaguard/quality/profile.h"
#include "deltaguard/quality/profile_hook.h"
#include "deltaguard/quality/profile_store.h"
#include "deltaguard/util/result.h"
#include "deltaguard/write/table_state.h"

namespace deltaguard {

/// Every this many versions of the profile table, its per-commit files are rewritten
/// as one (CompactProfileTable), so reading a long history opens few files.
inline constexpr int64_t kCompactProfilesEvery = 32;

/// Appends `profile` (its version set) to the profile table of the table at `root`,
/// creating the profile table on first use; returns the profile table's version. A
/// compaction that fails after the append is a warning (null: not reported).
Result<int64_t> StoreProfile(FileSystemRef fs, const std::string& root,
                             const TableProfile& profile,
                             std::vector<std::string>* warnings = nullptr);

/// Rewrites the per-commit files of the profile table of the table at `root` (those
/// holding one version) as one file of their version range, in one commit (operation
/// OPTIMIZE, replaceWhere over the range), then vacuums the profile table with its own
/// retention: files an earlier compaction removed go once the retention has passed.
Status CompactProfileTable(FileSystemRef fs, const std::string& root);

/// After a write's commit: stores the profile its observer built (quality/profile_hook.h)
/// as the profile of `version`. Profiles are derived data: a failure to store never
/// fails the committed write; it becomes a warning naming the way to backfill.
void StoreWriteProfile(FileSystemRef fs, const std::string& root, TableProfile profile,
                       int64_t version, int64_t timestamp_ms, std::string operation,
                       std::vector<std::string>* warnings);

/// After a MERGE, UPDATE or DELETE: stores the profile its writer built of every row it
/// staged (dml's results carry it; null when profiles are off or nothing was
/// committed), with the same rule as StoreWriteProfile.
void StoreCommitProfile(FileSystemRef fs, const std::string& root,
                        const std::shared_ptr<const TableProfile>& profile,
                        std::vector<std::string>* warnings);

struct BackfillResult {
  std::vector<int64_t> profiled;     ///< computed and stored now
  std::vector<int64_t> present;      ///< already had a profile
  std::vector<int64_t> no_data;      ///< added no rows (metadata, removes only)
  std::vector<int64_t> unavailable;  ///< the commit file is gone (log cleanup)
};

/// Profiles every commit in [from, to] (to < 0: the latest) that has none stored, in
/// version order, each stored as it is computed (an interrupted backfill keeps what it
/// did). Works whether or not `deltaguard.profiles` is on.
Result<BackfillResult> BackfillProfiles(FileSystemRef fs, const std::string& root,
                                        int64_t from = 0, int64_t to = -1);

}  // namespace deltaguard
