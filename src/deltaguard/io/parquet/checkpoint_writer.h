/// \file deltaguard/io/parquet/checkpoint_writer.h
/// Writing a checkpoint of a snapshot (PROTOCOL.md "Checkpoints", "Checkpoint Schema",
/// "Last Checkpoint File Schema"; digest §1.1-1.3): one Parquet file holding the
/// reconciled state, then the `_delta_log/_last_checkpoint` hint.
///
/// Layout follows what Spark writes, so every engine can read it back:
///  - one nullable struct column per action kind, in the order txn, add, remove,
///    metaData, protocol, domainMetadata (+ checkpointMetadata for V2), every field
///    nullable, Spark's field names and types; maps as Parquet MAP, lists as LIST;
///  - exactly one non-null action column per row; add/remove carry dataChange=false;
///    add.stats as the JSON string only (no stats_parsed / partitionValues_parsed);
///    remove rows carry no stats or tags;
///  - protocol.readerFeatures / writerFeatures columns only when the protocol has them;
///  - snappy compression, row groups of CheckpointOptions::row_group_rows rows.
/// Tables with the v2Checkpoint feature get a UUID-named V2 checkpoint
/// (`%020d.checkpoint.<uuid>.parquet`) with one checkpointMetadata row and every file
/// action inline (no sidecars); the others a classic `%020d.checkpoint.parquet`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "deltaguard/log/snapshot.h"
#include "deltaguard/protocol/metadata.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

inline constexpr std::string_view kCheckpointIntervalProperty =
    "delta.checkpointInterval";
inline constexpr std::string_view kDeletedFileRetentionDurationProperty =
    "delta.deletedFileRetentionDuration";
inline constexpr std::string_view kSetTransactionRetentionDurationProperty =
    "delta.setTransactionRetentionDuration";

struct CheckpointOptions {
  /// "Now" in ms since the epoch, for retention. A remove tombstone is kept when it has
  /// no deletionTimestamp or when deletionTimestamp > now_ms -
  /// delta.deletedFileRetentionDuration (default "interval 1 week", digest §1.5 step 6).
  /// When delta.setTransactionRetentionDuration is set, txns whose lastUpdated is older
  /// than now_ms minus it are dropped, as Spark does (digest §1.5 step 4).
  int64_t now_ms = 0;
  /// Rows per Parquet row group (> 0).
  int64_t row_group_rows = 1 << 17;
};

/// What WriteCheckpoint wrote.
struct CheckpointInfo {
  int64_t version = 0;
  std::string path;         ///< full path of the checkpoint file
  int64_t num_actions = 0;  ///< rows in the file (= _last_checkpoint "size")
  int64_t num_add_files = 0;
  int64_t size_in_bytes = 0;
  bool v2 = false;  ///< UUID-named V2 checkpoint
};

/// Parse a Spark calendar-interval duration ("interval 1 week", "7 days", "interval 1
/// day 12 hours", units microsecond .. week, singular or plural, case-insensitive) into
/// milliseconds. Months/years (not a fixed duration), negative amounts and anything else
/// are kInvalidArgument naming `text`.
Result<int64_t> ParseIntervalMs(std::string_view text);

/// Should a checkpoint be written after committing `version`? True when version > 0 and
/// version is a multiple of delta.checkpointInterval (default 10). A property value that
/// is not a positive integer is kCorruptLog naming the property and value.
Result<bool> ShouldCheckpoint(int64_t version, const Metadata& metadata);

/// Write the checkpoint of `snapshot` at snapshot.version() through snapshot.fs(), then
/// `_delta_log/_last_checkpoint` (version, size, sizeInBytes, numOfAddFiles, and for V2
/// the v2Checkpoint object with path, sizeInBytes, modificationTime, nonFileActions,
/// sidecarFiles).
///
/// Guarantees: both files are stored with FileSystem::Write (atomic), so no partial
/// checkpoint is ever visible; the checkpoint is complete before _last_checkpoint
/// names it. The commit at this version already exists, so on any error the table
/// stays readable at the same version (the error is returned; the caller may ignore
/// it, as a checkpoint is only an optimisation). Errors name the file.
Result<CheckpointInfo> WriteCheckpoint(const Snapshot& snapshot,
                                       const CheckpointOptions& options);

}  // namespace deltaguard
