/// \file deltaguard/io/parquet/checkpoint_reader.h
/// ParquetCheckpointReader: the Arrow/Parquet implementation of log/CheckpointReader,
/// turning checkpoint and sidecar rows into Actions (PROTOCOL.md "Checkpoint Schema").
#pragma once

#include <string>
#include <vector>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/log/snapshot.h"

namespace deltaguard {

/// Reads classic, multi-part and V2 checkpoints and V2 sidecars.
///
/// Guarantees:
///  1. Only the action columns (add, remove, metaData, protocol, txn, domainMetadata,
///     checkpointMetadata, sidecar) are read, and never add/remove.stats_parsed or
///     partitionValues_parsed; missing columns and fields read as null.
///  2. Actions come out in row order (per kind for ReadCheckpointSplit); a row yields one
///     action per non-null action column.
///  3. Every byte is read through the FileSystem given at construction.
///  4. A file that is not valid Parquet, or whose action columns have unexpected types,
///     is kCorruptLog naming the file; a missing file keeps the FileSystem's kNotFound.
///  5. An action column that the footer statistics prove null in every row (null count
///     of a required field such as remove.path == row count, in every row group) is not
///     decoded. The file is decoded in small batches, one buffered page range at a time,
///     so Arrow's memory stays small whatever the checkpoint's size.
class ParquetCheckpointReader final : public CheckpointReader {
 public:
  /// With `use_threads`, Parquet decoding runs on a helper thread, overlapped with
  /// building the actions.
  explicit ParquetCheckpointReader(FileSystemRef fs, bool use_threads = true)
      : fs_(std::move(fs)), use_threads_(use_threads) {}

  Result<std::vector<Action>> ReadCheckpoint(const std::string& path) const override;
  /// Same rows; adds and removes are decoded straight into their vectors.
  Result<CheckpointActions> ReadCheckpointSplit(const std::string& path) const override;
  /// ReadCheckpointSplit, with room reserved for `extra_adds` more adds.
  Result<CheckpointActions> ReadCheckpointForReplay(const std::string& path,
                                                    size_t extra_adds) const override;

 private:
  FileSystemRef fs_;
  bool use_threads_;
};

}  // namespace deltaguard
