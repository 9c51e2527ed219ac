/// \file deltaguard/ingest/state.h
/// What an ingestion keeps between runs, as small JSON files written atomically
/// through the FileSystem (docs/ingest.md "Checkpoint and schema location"):
///
///   <schemaLocation>/_schemas/0, 1, ...  each schema version: the columns, the batch
///                                        that introduced it, what it added or widened
///   <checkpoint>/metadata                the stream's id (the Delta `txn` appId)
///   <checkpoint>/offsets/N               the files batch N takes, written before it
///                                        is read
///   <checkpoint>/commits/N               written after batch N committed
///
/// Invariants (exactly once): offsets/N is written with put-if-absent before any of
/// its files is read, so a restart replays the same files; batch N commits to the
/// table with txn(appId, N), so a replay of a batch that did commit is skipped by the
/// table itself; commits/N only speeds up the next start. A file is taken by exactly
/// one batch.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "deltaguard/ingest/reader.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// One version of the ingest schema.
struct SchemaVersion {
  int64_t version = 0;
  int64_t batch = 0;                 ///< the batch that first read with it
  SchemaRef schema;                  ///< the data columns
  std::vector<std::string> added;    ///< columns new in this version ("a.b" nested)
  std::vector<std::string> widened;  ///< "amount: integer -> long"
  std::string reason;                ///< "inferred from 3 files", "new columns in ..."
  int64_t created_ms = 0;
};

/// The versions under `<location>/_schemas`, oldest first (empty when none).
Result<std::vector<SchemaVersion>> ReadSchemaHistory(const FileSystem& fs,
                                                     const std::string& location);
/// Writes `v` as `<location>/_schemas/<v.version>`; kAlreadyExists when another run
/// wrote that version first.
Status WriteSchemaVersion(FileSystem& fs, const std::string& location,
                          const SchemaVersion& v);

/// A file a batch took, as listed then.
struct TakenFile {
  std::string path;
  int64_t size = 0;
  int64_t modification_time = 0;
  int64_t batch = 0;
};

struct PlannedBatch {
  int64_t batch = 0;
  std::vector<IngestFile> files;
  int64_t schema_version = 0;
};

/// The checkpoint directory of one source feeding one table.
class IngestCheckpoint {
 public:
  /// Opens (or starts) the checkpoint at `dir`. `source` and `table` are recorded on
  /// the first start; a later start with another source or table is kInvalidArgument
  /// (each source needs its own checkpoint).
  static Result<IngestCheckpoint> Open(FileSystemRef fs, std::string dir,
                                       const std::string& source,
                                       const std::string& table, int64_t now_ms);

  const std::string& app_id() const { return app_id_; }
  int64_t start_ms() const { return start_ms_; }
  /// The planned batch that has no commit marker yet (at most one).
  const std::optional<PlannedBatch>& pending() const { return pending_; }
  int64_t next_batch() const { return next_batch_; }
  /// The file taken under `path`, or nullptr.
  const TakenFile* Taken(const std::string& path) const;

  /// Records batch `b.batch` (== next_batch()) and its files before they are read.
  Status Plan(const PlannedBatch& b);
  /// Records that batch `batch` is in the table (at `table_version`, -1 when a replay
  /// found it committed already).
  Status Commit(int64_t batch, int64_t table_version, int64_t rows);

 private:
  FileSystemRef fs_;
  std::string dir_;
  std::string app_id_;
  int64_t start_ms_ = 0;
  std::optional<PlannedBatch> pending_;
  int64_t next_batch_ = 0;
  std::map<std::string, TakenFile> taken_;
};

}  // namespace deltaguard
