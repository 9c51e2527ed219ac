/// \file deltaguard/log/snapshot.h
/// An immutable, reconciled view of a Delta table at one version (PROTOCOL.md "Action
/// Reconciliation"), built from a log segment: the newest usable checkpoint plus the
/// contiguous JSON commits after it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/log/actions.h"
#include "deltaguard/log/log_path.h"
#include "deltaguard/protocol/table_properties.h"  // ColumnMappingMode
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// The rows of one checkpoint or sidecar file, split by kind (CheckpointReader::
/// ReadCheckpointSplit). Row order is kept within each vector.
struct CheckpointActions {
  std::vector<AddFile> adds;
  std::vector<RemoveFile> removes;
  std::vector<Action> others;  ///< metaData, protocol, txn, domainMetadata,
                               ///< checkpointMetadata, sidecar, ...
};

/// Split a flat action list by kind (adds and removes are moved out).
CheckpointActions SplitCheckpointActions(std::vector<Action> actions);

/// Reads the actions of a Parquet checkpoint or sidecar file. Checkpoints are Parquet,
/// but the log layer does not link Arrow: io/parquet implements this interface.
class CheckpointReader {
 public:
  virtual ~CheckpointReader() = default;
  /// All actions in a checkpoint/sidecar Parquet file (add, remove, metaData, protocol,
  /// txn, domainMetadata, checkpointMetadata, sidecar rows). Errors name the file.
  virtual Result<std::vector<Action>> ReadCheckpoint(const std::string& path) const = 0;
  /// The same rows, split by kind; this is what Snapshot::Load calls. The default splits
  /// ReadCheckpoint()'s result. Readers should override it to build AddFile values
  /// straight into `adds`: Snapshot::Load then sorts that vector in place and keeps it,
  /// instead of moving every add (304 bytes) out of an Action into fresh memory, which
  /// costs ~50 ms per 200k files.
  virtual Result<CheckpointActions> ReadCheckpointSplit(const std::string& path) const;
  /// ReadCheckpointSplit for Snapshot::Load, which will append `extra_adds` adds (those
  /// of the commits after the checkpoint) to `adds`: readers that build `adds` should
  /// reserve room for them, so that replay does not reallocate the vector (for 200k
  /// files that would briefly hold two 62 MB copies). The default ignores the hint.
  virtual Result<CheckpointActions> ReadCheckpointForReplay(const std::string& path,
                                                            size_t extra_adds) const;
};

/// Which version to load. At most one of version / timestamp is set.
struct SnapshotSpec {
  std::optional<int64_t> version;
  /// Milliseconds since the epoch: load the latest version committed at or before it
  /// (commit timestamps, or in-commit timestamps where that feature is enabled).
  std::optional<int64_t> timestamp_ms;
  /// Where the paths the log names may point (checked at load for every add, remove,
  /// cdc and deletion-vector path; log/path_check.h).
  LogPathPolicy paths;
};

/// Describes where a snapshot came from (for describe/debugging).
struct LogSegmentInfo {
  std::optional<int64_t> checkpoint_version;
  std::vector<std::string> checkpoint_files;  ///< paths, incl. sidecars
  std::vector<int64_t> commit_versions;       ///< JSON commits replayed after it
};

class Snapshot;
using SnapshotRef = std::shared_ptr<const Snapshot>;

/// Invariants of a loaded Snapshot:
///  1. protocol() and metadata() exist and the protocol passed reader gating (every
///     reader feature is supported by this build, reader version <= 3).
///  2. files() holds exactly the live add actions keyed by (path as logged, dv unique
///     id), newest wins, sorted by (path, dv). tombstones() holds the newest remove of
///     every key that is not live (no retention expiry is applied).
///  3. schema() is the parsed metadata().schema_string.
class Snapshot {
 public:
  /// Load the table at `table_root` (a local directory path). kNotFound when there is no
  /// _delta_log or no commit; kCorruptLog for gaps/missing commits/unparseable actions;
  /// kUnsupportedFeature for unsupported reader features.
  static Result<SnapshotRef> Load(FileSystemRef fs, const std::string& table_root,
                                  const CheckpointReader& checkpoint_reader,
                                  const SnapshotSpec& spec = {});

  const std::string& table_root() const { return table_root_; }
  const std::string& log_dir() const { return log_dir_; }
  int64_t version() const { return version_; }
  /// The commit timestamp of this version: commitInfo.inCommitTimestamp when in-commit
  /// timestamps are enabled for it (delta.enableInCommitTimestamps and version >=
  /// delta.inCommitTimestampEnablementVersion), otherwise the commit file's modification
  /// time as Spark does (commitInfo.timestamp is never used).
  int64_t timestamp_ms() const { return timestamp_ms_; }

  const Protocol& protocol() const { return protocol_; }
  const Metadata& metadata() const { return metadata_; }
  const SchemaRef& schema() const { return schema_; }
  ColumnMappingMode column_mapping_mode() const { return column_mapping_mode_; }

  const std::vector<AddFile>& files() const { return files_; }
  const std::vector<RemoveFile>& tombstones() const { return tombstones_; }
  const std::map<std::string, SetTransaction>& transactions() const { return txns_; }
  const std::vector<DomainMetadata>& domain_metadata() const { return domains_; }
  const LogSegmentInfo& segment() const { return segment_; }
  const FileSystemRef& fs() const { return fs_; }

  /// Resolve an add/remove path (URI-decoded; relative to the table root or absolute
  /// file: URI) into a local path. Every path of a loaded snapshot passed
  /// SnapshotSpec::paths at load (log/path_check.h), so this only joins and decodes.
  std::string ResolveDataPath(const std::string& log_path) const;

 private:
  friend class SnapshotBuilder;
  Snapshot() = default;

  FileSystemRef fs_;
  std::string table_root_;
  std::string log_dir_;
  int64_t version_ = -1;
  int64_t timestamp_ms_ = 0;
  Protocol protocol_;
  Metadata metadata_;
  SchemaRef schema_;
  ColumnMappingMode column_mapping_mode_ = ColumnMappingMode::kNone;
  std::vector<AddFile> files_;
  std::vector<RemoveFile> tombstones_;
  std::map<std::string, SetTransaction> txns_;
  std::vector<DomainMetadata> domains_;
  LogSegmentInfo segment_;
};

/// One entry of the table history (for `history` and DESCRIBE HISTORY).
struct CommitSummary {
  int64_t version = 0;
  int64_t timestamp_ms = 0;
  std::optional<CommitInfo> commit_info;
  std::optional<Metadata> metadata;  ///< metaData action of this commit, if any
  std::optional<Protocol> protocol;  ///< protocol action of this commit, if any
};

/// Versions that still have a JSON commit, ascending (cleanup may have removed early
/// ones).
Result<std::vector<int64_t>> ListCommitVersions(const FileSystem& fs,
                                                const std::string& table_root);

/// Read and parse the commit file of one version (kNotFound if absent).
Result<std::vector<Action>> ReadCommit(const FileSystem& fs,
                                       const std::string& table_root, int64_t version);

/// Summaries of every available commit, ascending by version.
Result<std::vector<CommitSummary>> ReadHistory(const FileSystem& fs,
                                               const std::string& table_root);

}  // namespace deltaguard
