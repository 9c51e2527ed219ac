/// \file deltaguard/dml/file_prefetch_internal.h
/// FilePrefetcher: the batches of a list of live files, read ahead on a background
/// thread, so that Parquet decoding overlaps the caller's work on the batch before
/// (MERGE joins, filters and hands rows to the writer while the next batch decodes).
/// Internal to dml.
///
/// Invariants:
///  - files are read in the given order, each through dml_internal::ScanFile (file
///    order, deletion vectors applied); after a file's last batch comes one end marker
///    (Next() returns nullptr), then the next file's batches;
///  - at most `depth` items wait in the queue, so memory stays bounded by `depth`
///    batches whatever the caller's pace;
///  - after an error nothing more is read and Next() returns that error from then on;
///  - the destructor stops the reader between two batches and waits for it; a caller that
///    gives up early (an error of its own) just destroys the prefetcher.
/// Without a thread (none could be started, or depth 0) Next() reads inline: same items,
/// same order.
#pragma once

#include <arrow/record_batch.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/util/result.h"

namespace deltaguard::dml_internal {

class FilePrefetcher {
 public:
  /// `files` must be live files of `snapshot` and outlive the prefetcher.
  /// `dictionary_columns`: ScanOptions::dictionary_columns of every file's scan.
  FilePrefetcher(SnapshotRef snapshot, std::vector<const AddFile*> files, size_t depth,
                 std::vector<std::string> dictionary_columns = {});
  ~FilePrefetcher();
  FilePrefetcher(const FilePrefetcher&) = delete;
  FilePrefetcher& operator=(const FilePrefetcher&) = delete;

  /// The next batch of the current file, nullptr at its end. Past the last file's end
  /// marker: nullptr.
  Result<std::shared_ptr<arrow::RecordBatch>> Next();

 private:
  struct Item {
    std::shared_ptr<arrow::RecordBatch> batch;  // nullptr: end of a file
    std::optional<Error> error;
  };

  // Reads one item (the caller owns the scan state: the thread, or Next() inline).
  // Returns false when every file has been read.
  bool ReadOne(Item* item);
  void Run();

  const SnapshotRef snapshot_;
  const std::vector<const AddFile*> files_;
  const size_t depth_;
  const std::vector<std::string> dictionary_columns_;
  bool threaded_ = false;  // set once, before the reader thread starts
  // Scan state, touched only by the reader (the thread, or Next() when inline).
  size_t next_file_ = 0;
  std::unique_ptr<TableScan> scan_;
  bool failed_ = false;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  bool done_ = false;           // the reader has queued its last item
  bool stop_ = false;           // the destructor asks the reader to stop
  std::optional<Error> error_;  // sticky, once handed out
  std::thread thread_;
};

}  // namespace deltaguard::dml_internal
