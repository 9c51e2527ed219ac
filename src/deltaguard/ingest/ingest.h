/// \file deltaguard/ingest/ingest.h
/// Incremental ingestion with Auto Loader's semantics (docs/ingest.md): new files of a
/// source directory go into a Delta table in micro-batches, each one commit carrying
/// txn(appId, batch), with the schema inferred once and evolved per
/// cloudFiles.schemaEvolutionMode, and every field that does not fit kept in the
/// rescued column.
///
/// Exactly once (ingest/state.h): a crash at any point, then a run with the same
/// checkpoint, loses no record and duplicates none.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "deltaguard/ingest/options.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/util/result.h"
#include "deltaguard/write/write_types.h"

namespace deltaguard {

enum class IngestTrigger : uint8_t {
  kOnce,          ///< one batch of everything new (rate limits ignored), then stop
  kAvailableNow,  ///< batches within the rate limits until the backlog is done
  kContinuous,    ///< poll every interval until stop_requested
};

/// "once", "available-now" (or availableNow), "continuous[=INTERVAL]" with INTERVAL
/// like 10s, 500ms, 2m (default 10s).
Result<IngestTrigger> ParseIngestTrigger(std::string_view text, int64_t* interval_ms);

struct IngestRequest {
  std::string source;      ///< the directory the files arrive in
  std::string table;       ///< the Delta table (created by the first batch)
  std::string checkpoint;  ///< the checkpoint directory
  IngestOptions options;
  IngestTrigger trigger = IngestTrigger::kAvailableNow;
  int64_t interval_ms = 10000;
  /// Data tests on each batch (docs/data_tests.md "At commit time"); quarantine sends
  /// a failing batch (or its breaking rows) to `check->quarantine`.
  std::optional<WriteCheckOptions> check;
  /// Settings of each batch's write (Spark's `--conf` settings, an interrupt check).
  SessionSettings session;
  /// Asked between batches and while waiting (continuous); true ends the run after
  /// the current batch.
  std::function<bool()> stop_requested;
  /// Maps each micro-batch's rows (the ingest columns, `delta_schema` set) to the rows
  /// written, e.g. a streaming INSERT's SELECT (docs/ingest.md "SQL"); it must not
  /// hold rows across batches. Null: the rows are written as read.
  std::function<Result<BatchSource>(BatchSource batch)> transform;
};

/// One micro-batch.
struct BatchProgress {
  int64_t batch = 0;
  int64_t table_version = -1;  ///< -1: nothing committed (replayed batch already in)
  bool replayed = false;       ///< planned by an earlier run that stopped
  int64_t files = 0;
  int64_t rows = 0;          ///< records read
  int64_t written_rows = 0;  ///< rows committed (a transform may filter)
  int64_t bytes = 0;
  int64_t rescued_rows = 0;
  int64_t malformed_rows = 0;
  int64_t dropped_rows = 0;
  int64_t quarantined_rows = 0;  ///< data tests with quarantine
  int64_t schema_version = 0;
  /// Listed files still waiting after this batch (the rest of the backlog).
  int64_t backlog_files = 0;
  double seconds = 0;
  std::vector<std::string> warnings;
};

struct IngestResult {
  std::vector<BatchProgress> batches;
  int64_t schema_version = 0;
  /// Files that changed after a batch took them (not read again).
  std::vector<std::string> changed_files;
};

/// Runs the ingestion. Called after each committed batch: `on_batch` (may be null).
/// A batch that fails (new columns under addNewColumns, FAILFAST, ...) ends the run
/// with its error; what earlier batches committed stays, and `partial` (may be null)
/// receives their progress.
Result<IngestResult> RunIngest(FileSystemRef fs, const IngestRequest& request,
                               const std::function<void(const BatchProgress&)>& on_batch,
                               IngestResult* partial = nullptr);

/// A batch's progress as one JSON object (the `--output json` line).
std::string BatchProgressJson(const BatchProgress& p);

}  // namespace deltaguard
