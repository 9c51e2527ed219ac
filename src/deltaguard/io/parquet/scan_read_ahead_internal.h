/// \file deltaguard/io/parquet/scan_read_ahead_internal.h
/// A TableScan that decodes several files at once on background threads and still
/// hands out their batches in file order (ScanOptions::read_ahead_files). Internal to
/// io/parquet: TableScan::Make chooses it.
///
/// Invariants:
///  - batches come out exactly as the sequential scan gives them: file order, each
///    file's batches in order (each file is read by its own sequential scan, made by
///    `open_file`);
///  - at most `files_at_once` files are open at a time: the one the consumer reads and
///    the next ones; each holds at most `depth` decoded batches, so memory is bounded
///    by files_at_once x depth batches whatever the consumer's pace;
///  - an error (opening or reading a file) is returned when the consumer reaches that
///    file, and from then on; files after it may have been opened, never committed to;
///  - the destructor stops the workers between two batches and waits for them.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "deltaguard/io/parquet/table_scan.h"

namespace deltaguard::parquet_internal {

/// Opens the sequential scan of one file.
using OpenFileScan =
    std::function<Result<std::unique_ptr<TableScan>>(const AddFile& file)>;

/// The read-ahead scan over `files` (live files that outlive it), or nullptr when no
/// background thread could be started (the caller then scans sequentially).
std::unique_ptr<TableScan> MakeReadAheadScan(std::shared_ptr<arrow::Schema> schema,
                                             std::vector<const AddFile*> files,
                                             OpenFileScan open_file, size_t files_at_once,
                                             size_t depth);

}  // namespace deltaguard::parquet_internal
