/// \file deltaguard/table/quarantine.h
/// A write that routes rows violating the table's constraints to a quarantine table
/// instead of failing (`deltaguard write --on-violation quarantine=QTABLE`; issue 5,
/// the pattern of seeds article 000).
///
/// Which rows are violating: a NULL in a top-level NOT NULL column, or a CHECK
/// constraint / legacy invariant that is FALSE or NULL (docs/spark_semantics.md
/// §4.3-4.4). Each violating row goes to the quarantine table with `_violated_constraint`
/// (the first constraint it violates, e.g. "CHECK constraint positive" or "NOT NULL
/// column id") and
/// `_quarantined_at` (one time for the whole write); see exec/constraint_checker.h
/// QuarantineSchema. Every other row is written to the table.
///
/// Order, chosen so that no row is ever lost:
///  1. every input is read once, through WriteTable's commit funnel
///     (write/commit_funnel.h) with a routing enforcement hook: each batch is conformed
///     to the table schema with NOT NULL relaxed and split; the good rows are staged as
///     the table's data files, the violating rows are kept in memory (they are
///     expected to be few);
///  2. the violating rows are committed to the quarantine table first (created with
///     QuarantineSchema when absent, appended otherwise);
///  3. then the table's commit adds the staged good rows.
/// If step 2 fails, the staged files are removed and nothing is written anywhere. If
/// step 3 fails, the quarantined rows stay committed and the error says so: the good
/// rows are still in the input files, so rerunning the write loses nothing (the rerun
/// quarantines the same rows again). Were the table committed first, a failing
/// quarantine commit would drop the violating rows on the floor.
///
/// Not supported with quarantine (kInvalidArgument): schema evolution
/// (merge_schema / overwrite_schema), since rows are checked against the table's
/// current schema. A table that does not exist yet has no constraints: the write is a
/// plain WriteFiles and nothing is quarantined.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/exec/input_source.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/table/write.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

struct QuarantineWriteResult {
  WriteResult table;                      ///< the write of the good rows
  std::optional<WriteResult> quarantine;  ///< set when rows were quarantined
  bool quarantine_created = false;        ///< the quarantine table was created
  int64_t good_rows = 0;
  int64_t quarantined_rows = 0;
  /// Quarantined rows per constraint (Describe() text), in first-seen order.
  std::vector<std::pair<std::string, int64_t>> by_constraint;
  int64_t quarantined_at_micros = 0;
};

/// Write `inputs` (as WriteFiles does) into the table at `path`, routing violating rows
/// to the table at `quarantine_path`; see the file comment. `now_micros` < 0 = now.
Result<QuarantineWriteResult> WriteFilesWithQuarantine(
    FileSystemRef fs, const std::string& path, const std::vector<std::string>& inputs,
    InputOptions input_options, const WriteOptions& options,
    const std::string& quarantine_path, const SessionSettings& session = {},
    int64_t now_micros = -1);

/// The same for in-memory sources (Python's write_table, any Arrow producer): each
/// source is read once; rows are routed as they stream.
Result<QuarantineWriteResult> WriteWithQuarantine(
    FileSystemRef fs, const std::string& path, std::vector<BatchSource> sources,
    const WriteOptions& options, const std::string& quarantine_path,
    const SessionSettings& session = {}, int64_t now_micros = -1);

}  // namespace deltaguard
