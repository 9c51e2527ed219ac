/// \file deltaguard/table/vacuum.h
/// VACUUM: delete the files in a table's directory that no version within the retention
/// window needs, with Delta's semantics (docs/behaviour.md "VACUUM").
///
/// The decision is a pure function (PlanVacuum) of the directory listing, the files the
/// retained versions reference (RetainedFiles) and the cutoff time, so it is tested
/// without a file system; Vacuum() does the I/O around it, all through FileSystem.
///
/// Invariants of a plan:
///  1. Nothing under `_delta_log`, `_deltaguard` or any other hidden directory (a name
///     starting with '_' or '.', except partition directories `col=...` and
///     `_change_data`) is listed, let alone deleted.
///  2. A file referenced by the latest snapshot (an add, or its deletion vector file) or
///     by a tombstone whose deletionTimestamp is after the cutoff (so time travel within
///     the retention still finds it) is never deleted.
///  3. Any other file is deleted only when its modification time is before the cutoff:
///     a concurrent writer's freshly written (not yet committed) file is kept.
///  4. Hidden files are kept, except deltaguard's abandoned temporaries
///     (`.<name>.<16 hex digits>.tmp`, io/fs/local_file_system.cc) older than the cutoff:
///     the debris of a killed write.
///  5. A directory is deleted only when everything under it is deleted (or it was
///     empty); the table root never.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/txn/transaction.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// One entry of the table directory, relative to the root ('/'-separated, decoded).
struct VacuumEntry {
  std::string path;
  bool is_dir = false;
  /// A hidden directory: listed (it is not empty) but not walked into.
  bool not_walked = false;
  int64_t size = 0;
  int64_t modification_time = 0;  ///< ms since the epoch
};

/// What PlanVacuum decided.
struct VacuumPlan {
  std::vector<VacuumEntry> files;  ///< to delete, sorted by path
  std::vector<std::string> dirs;   ///< to delete, children before parents
  int64_t bytes = 0;               ///< sum of files[].size
};

/// Spark's hidden-name rule (DeltaTableUtils.isHiddenDirectory): a name starting with
/// '_' or '.' is hidden unless it is a partition directory of one of
/// `partition_columns` (`col=...`) or starts with `_change_data` (CDF files are
/// vacuumed like data files).
bool IsHiddenVacuumName(std::string_view name,
                        const std::vector<std::string>& partition_columns);

/// `.<name>.<16 lowercase hex>.tmp`: a temporary file of FileSystem::Write or
/// OpenForWrite, left behind when the writer was killed before its rename.
bool IsAbandonedTempName(std::string_view name);

/// The relative paths (decoded, lexically normal) that VACUUM must keep: every file of
/// `snapshot` and its deletion vector file, and every tombstone (and its deletion vector
/// file) with deletionTimestamp > `delete_before_ms` (a tombstone without one counts as
/// 0, as Spark does). Paths outside the root are not included (there is nothing of
/// them in the listing). kCorruptLog for an unresolvable deletion vector.
Result<std::unordered_set<std::string>> RetainedFiles(const Snapshot& snapshot,
                                                      int64_t delete_before_ms);

/// Decide what to delete (invariants above). `listing` holds every file and directory
/// found under the root (hidden directories with not_walked), in any order.
VacuumPlan PlanVacuum(const std::vector<VacuumEntry>& listing,
                      const std::unordered_set<std::string>& retained,
                      const std::vector<std::string>& partition_columns,
                      int64_t delete_before_ms);

/// The retention VACUUM uses: `retain_hours` when given (rounded to whole hours as Spark
/// does), else the table's delta.deletedFileRetentionDuration (default interval 1
/// week). With `check` (spark.databricks.delta.retentionDurationCheck.enabled), a
/// retention below the table's is refused with Spark's
/// DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT; a negative one always is
/// (DELTA_VACUUM_RETENTION_PERIOD_NEGATIVE). kInvalidArgument.
Result<int64_t> VacuumRetentionMs(const Metadata& metadata,
                                  std::optional<double> retain_hours, bool check);

struct VacuumOptions {
  /// RETAIN n HOURS; none: the table's delta.deletedFileRetentionDuration.
  std::optional<double> retain_hours;
  bool dry_run = false;
  /// spark.databricks.delta.retentionDurationCheck.enabled.
  bool retention_check = true;
  /// spark.databricks.delta.vacuum.logging.enabled: commit Spark's "VACUUM START" and
  /// "VACUUM END" commitInfo-only versions around a real run.
  bool logging = true;
  /// Milliseconds since the epoch; 0: the system clock.
  int64_t now_ms = 0;
  std::string engine_info = std::string(kDefaultEngineInfo);
};

struct VacuumResult {
  std::string table_root;
  bool dry_run = false;
  int64_t retention_ms = 0;
  int64_t delete_before_ms = 0;
  /// Absolute paths of the files deleted (or, in a dry run, that would be).
  std::vector<std::string> files;
  int64_t bytes = 0;
  int64_t dirs_deleted = 0;  ///< directories removed (0 in a dry run)
  int64_t dirs_scanned = 0;  ///< directories walked, the root included
  /// The VACUUM START / VACUUM END versions when logging committed them.
  std::optional<int64_t> start_version;
  std::optional<int64_t> end_version;
};

/// VACUUM the table at `path` (normalised as OpenSnapshot does). Loads the latest
/// snapshot; with the vacuumProtocolCheck feature, first checks that deltaguard may
/// write the table (protocol/write_protocol.h CheckWriteSupported). Deletes the plan's
/// files, then its directories; a file that vanished meanwhile is not an error.
Result<VacuumResult> Vacuum(FileSystemRef fs, const std::string& path,
                            const VacuumOptions& options);

}  // namespace deltaguard
