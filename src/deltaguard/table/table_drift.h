/// \file deltaguard/table/table_drift.h
/// The drift of a table as every front end reports it (docs/drift.md): the classified
/// changes of each commit that logged a new schema (`history --drift`, SQL
/// `schema_changes(...)`), and the bounded evidence `drift` and SQL `DESCRIBE DRIFT`
/// compare an input with: add-action statistics of the latest files of the table, and
/// one sample batch of the input. One implementation, so the CLI, SQL and Python agree.
#pragma once

#include <arrow/type_fwd.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/drift/change.h"
#include "deltaguard/drift/classify.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// Rows of the one input batch read for value evidence, and distinct values kept per
/// column: the bound on what drift reads, whatever the input's size.
inline constexpr int64_t kDriftSampleRows = 1000;
inline constexpr size_t kDriftSampleValues = 200;
/// Table evidence: the statistics of the most recently added files only.
inline constexpr size_t kDriftEvidenceFiles = 64;

/// Per top-level column of the snapshot's schema, evidence from the add statistics of
/// its kDriftEvidenceFiles most recently modified files (no data file is read).
std::vector<ColumnEvidence> TableDriftEvidence(const Snapshot& snapshot);

/// Value evidence from (at most the first kDriftSampleRows rows of) one input batch:
/// per column its null and row counts, min/max and up to kDriftSampleValues distinct
/// values as text.
std::vector<ColumnEvidence> BatchDriftEvidence(const arrow::RecordBatch& batch);

/// Classifies the commits of a log in order, each against the schema in force before
/// it (the first schema yields no change; a metaData without a schema changes nothing,
/// as in history's table state). The schema in force is kept parsed, so each
/// schema-changing commit parses only its own. COLUMN_ALL_NULL evidence comes from the
/// statistics of the commit's own add actions: only commits that log a schema are read
/// a second time.
class CommitDriftTracker {
 public:
  CommitDriftTracker(const FileSystem& fs, std::string table_root)
      : fs_(fs), table_root_(std::move(table_root)) {}

  /// The changes of `summary` (call for every commit, oldest first); with `classify`
  /// false the commit only updates the schema in force (commits before a range).
  /// `parsed`, when not null, is the commit's schema already parsed.
  Result<std::vector<DriftChange>> Next(const CommitSummary& summary,
                                        bool classify = true, SchemaRef parsed = nullptr);

 private:
  const FileSystem& fs_;
  std::string table_root_;
  std::optional<DriftSide> in_force_;
};

/// The changes of one commit, with what identifies the commit.
struct VersionDrift {
  int64_t version = 0;
  int64_t timestamp_ms = 0;
  std::string operation;  ///< commitInfo operation, "UNKNOWN" without one
  std::vector<DriftChange> changes;
};

/// Every commit in [from, to] (both optional: the first and the latest available
/// commit) whose schema changed, oldest first, with its classified changes
/// (CommitDriftTracker). The commits before `from` are read for the schema in force at
/// it. kInvalidArgument for a negative version, from > to, or a version after the latest
/// commit (naming the table and the latest version).
Result<std::vector<VersionDrift>> HistoryDrift(const FileSystem& fs,
                                               const std::string& table_root,
                                               std::optional<int64_t> from = std::nullopt,
                                               std::optional<int64_t> to = std::nullopt);

}  // namespace deltaguard
