/// \file deltaguard/io/parquet/row_count.h
/// Counting the live rows of a snapshot without scanning data: numRecords from the file
/// statistics where present, otherwise the Parquet footer, minus deletion-vector
/// cardinalities (PROTOCOL.md "Per-file Statistics", "Deletion Vectors").
#pragma once

#include <cstdint>

#include "deltaguard/log/snapshot.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

struct RowCountOptions {
  /// Stat every data file whose count came from statistics, and report the missing ones
  /// in RowCountResult::missing_files (without failing).
  bool check_files_exist = true;
};

struct RowCountResult {
  int64_t num_rows = 0;            ///< live rows: sum of file rows minus deleted rows
  int64_t num_files = 0;           ///< live files
  int64_t files_from_stats = 0;    ///< files counted from stats numRecords
  int64_t files_from_footers = 0;  ///< files counted from their Parquet footer
  int64_t deleted_rows = 0;        ///< sum of deletion vector cardinalities
  int64_t missing_files = 0;       ///< files counted from stats that do not exist
};

/// Count the rows of `snapshot`. A file is only opened when its stats lack numRecords, so
/// tables whose data files are absent (log-only copies) can still be described; such a
/// file that is missing is kNotFound naming it, and an unreadable footer is kCorruptData.
Result<RowCountResult> CountRows(const Snapshot& snapshot,
                                 const RowCountOptions& options = {});

}  // namespace deltaguard
