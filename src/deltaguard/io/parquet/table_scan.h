/// \file deltaguard/io/parquet/table_scan.h
/// Read the rows of a snapshot as Arrow record batches in the table's logical schema:
/// column mapping, partition values, type widening, missing columns and deletion
/// vectors are all resolved here.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/type_fwd.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "deltaguard/log/snapshot.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

struct ScanOptions {
  /// Dotted logical paths ("a", "b.c"); empty selects every column.
  std::vector<std::string> columns;
  std::optional<int64_t> limit;
  int64_t batch_size = 64 * 1024;
  /// When set, only the live files it accepts are read (DML reads single files).
  std::function<bool(const AddFile&)> file_filter;
  /// Decode a batch's columns in parallel on Arrow's CPU pool. A scan that runs on its
  /// own thread beside other busy threads (MERGE's prefetcher) decodes serially instead:
  /// the same work with fewer threads to schedule.
  bool use_threads = true;
  /// Top-level STRING columns (logical names) that may stay dictionary-encoded: in a
  /// file that stores every data page of such a column dictionary-encoded, its batches
  /// carry it as dictionary<int32, utf8> (the same values; the indices are the file's
  /// own) instead of decoding each value. For callers that only move the values on
  /// (MERGE copying unchanged rows): no string is built, filtering moves 4-byte
  /// indices, and the writer re-encodes the indices without hashing (DataFileWriter).
  std::vector<std::string> dictionary_columns;
  /// When above 1 and no limit is set: up to this many files are decoded at once on
  /// background threads, each a few batches ahead of the consumer, and their batches
  /// still come out in file order (guarantee 1). For callers that read the whole table
  /// (Python's to_arrow): decoding overlaps across files, as a dataset scanner's
  /// fragment read-ahead does. 0 or 1: one file at a time, on the caller's thread.
  size_t read_ahead_files = 0;
  /// Decoded batches each read-ahead file may hold before the consumer takes them,
  /// which bounds memory to about read_ahead_files x this many batches. 0: no bound,
  /// for a caller that keeps every batch anyway (to_arrow collects the whole table):
  /// the files after the current one then never wait for the consumer.
  size_t read_ahead_batches = 4;
  /// Where decoded batches are allocated; nullptr: Arrow's default pool. A host process
  /// whose default suits it badly picks another (python/: jemalloc inside pyarrow's
  /// process, whose default is mimalloc, see docs/python.md).
  arrow::MemoryPool* memory_pool = nullptr;
};

/// A forward-only scan of a snapshot's live rows.
///
/// Guarantees:
///  1. Files are read in snapshot order (Snapshot::files()), rows in file order; rows
///     whose file position is in the file's deletion vector are dropped (PROTOCOL.md
///     "Deletion Vectors"); at most `limit` rows are returned and no file past the
///     limit is opened (read_ahead_files opens files ahead only without a limit).
///  2. Every batch has output_schema() exactly: logical names (a nested selection "b.c"
///     is a top-level column named "b.c", NULL where any ancestor is NULL) and Delta's
///     Arrow types (arrow/schema.h), except the dictionary_columns of files that store
///     them dictionary-encoded (ScanOptions). Columns absent from a file are NULL;
///     partition columns come from add.partitionValues (keyed by physical name under
///     column mapping).
///  3. No batch is empty. Next() returns nullptr at the end; after an error every later
///     Next() returns the same error. Errors name the data file.
class TableScan {
 public:
  virtual ~TableScan() = default;

  /// Unknown columns are kInvalidArgument naming the column and listing the available
  /// ones; a selected variant column is kUnsupportedFeature.
  static Result<std::unique_ptr<TableScan>> Make(SnapshotRef snapshot,
                                                 const ScanOptions& options);

  /// The output schema: logical names and types.
  virtual const std::shared_ptr<arrow::Schema>& output_schema() const = 0;

  /// The next batch, or nullptr at the end.
  virtual Result<std::shared_ptr<arrow::RecordBatch>> Next() = 0;

  /// The data file the last batch Next() returned came from (Spark's `_metadata` of a
  /// table scan, sql/query_sources.cc); null before the first batch, and for scans
  /// that read files ahead (read_ahead_files), which do not track it.
  virtual const AddFile* current_file() const { return nullptr; }
};

}  // namespace deltaguard
