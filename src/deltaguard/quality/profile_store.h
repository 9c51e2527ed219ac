/// \file deltaguard/quality/profile_store.h
/// Reading a table's profiles (docs/profiles.md "Storage"): the profile table
/// `<table>/_deltaguard/profiles` read with its files pruned by version, and a commit's
/// rows profiled from the files it added when no profile is stored. Appending to the
/// profile table is a write (table/profiles.h). Here, below table and dml, so that
/// both a write's and a MERGE's data tests read the baseline (quality/commit_check.h).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/log/actions.h"
#include "deltaguard/quality/detectors.h"
#include "deltaguard/quality/profile.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// The profiles stored for the table at `root` with versions in [from, to] (to < 0: no
/// upper bound), ascending; none when the table has no profile table yet. Files whose
/// statistics show no version in the range are not read. `number_distinct`: as
/// ProfilesFromRows (false for checks).
Result<std::vector<TableProfile>> ReadProfiles(FileSystemRef fs, const std::string& root,
                                               int64_t from = 0, int64_t to = -1,
                                               bool number_distinct = true);

/// The table versions whose profile rows a profile-table file holds (min, max), from
/// its statistics; nullopt when unknown (the file must then be read).
std::optional<std::pair<int64_t, int64_t>> FileVersions(const AddFile& f);

/// The versions the profile table of the table at `root` holds, ascending, from its
/// files' statistics alone (no data read; a compacted file's whole range counts);
/// nullopt when a file's statistics do not say (a check then reads every profile).
Result<std::optional<std::vector<int64_t>>> ListProfileVersions(FileSystemRef fs,
                                                                const std::string& root);

/// The profile of the rows commit `version` of the table at `root` added (its add
/// actions with dataChange, read at that version with their deletion vectors); rows 0
/// and no columns for a commit that added none.
Result<TableProfile> ProfileCommit(FileSystemRef fs, const std::string& root,
                                   int64_t version);

/// The paths of the files commit `version` added with dataChange (what its profile and
/// a check's row tests read).
Result<std::set<std::string>> CommitAddedFiles(const FileSystemRef& fs,
                                               const std::string& root, int64_t version);

/// The history a check needs: the stored profiles of the commits before `version`
/// (those the spec selects are profiled from their files when not stored, and not
/// stored: `deltaguard profile` stores them) and, when `version` >= 0, its own.
Result<std::vector<TableProfile>> CheckHistory(const FileSystemRef& fs,
                                               const std::string& table_root,
                                               int64_t version, const BaselineSpec& spec);

}  // namespace deltaguard
