/// \file deltaguard/io/parquet/data_file_stream_internal.h
/// DataFileStream: one sequence of Parquet data files of a DataFileWriter, encoded on
/// its own thread (or on the caller's). Internal to io/parquet (data_file_writer.cc).
///
/// A DataFileWriter cuts its rows into row groups and deals them round-robin to
/// `file_streams` streams (row group i to stream i % n), so that n row groups encode at
/// once on n threads while the caller reads more input. The rows left at Finish are cut
/// into row groups for the streams estimated to be free first (DataFileWriter's
/// FlushLastRowGroups, from row counts only). Each stream writes its own
/// files, one after the other, closing a file once it reaches the target size. What a
/// stream writes depends only on the row groups it is given, never on thread timing:
/// file numbers are `stream + n * (files the stream opened before)`, and the writer
/// lists the files by the index of their first row group.
///
/// Invariants: a stream handles its row groups in submission order; after its first
/// error it drops all further work and reports that error; a file is published (made
/// visible at its path) only by a successful close, an abandoned one never appears.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/type_fwd.h>
#include <parquet/properties.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/io/parquet/data_file_writer.h"
#include "deltaguard/util/result.h"

namespace deltaguard::internal {

/// What every stream of one DataFileWriter shares. Immutable once the streams exist.
struct DataFileConfig {
  FileSystemRef fs;
  std::string table_root;
  std::string directory;  // Hive partition directory, not URI-encoded ("" = root)
  SchemaRef schema;       // logical data schema (statistics)
  ColumnMappingMode mode = ColumnMappingMode::kNone;
  PartitionValues partition_values;
  DataFileWriterOptions options;
  std::string file_infix;                      // Spark's codec part of file names
  std::shared_ptr<arrow::Schema> file_schema;  // what the batches carry
  std::shared_ptr<parquet::WriterProperties> properties;
  int num_streams = 1;
};

/// Consecutive rows of one row group, as batches in the file schema.
struct RowGroupWork {
  int64_t index = 0;  // position of the row group in the writer's input
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
};

/// A published file and the index of its first row group (the writer's sort key).
struct StreamFile {
  int64_t first_row_group = 0;
  WrittenFile file;
};

class DataFileStream {
 public:
  DataFileStream(std::shared_ptr<const DataFileConfig> config, int index);
  /// Stops the thread (dropping queued work) and abandons an open file.
  ~DataFileStream();
  DataFileStream(const DataFileStream&) = delete;
  DataFileStream& operator=(const DataFileStream&) = delete;

  /// Encode `work` on the calling thread, or hand it to the stream's thread when
  /// `use_thread` (started on first use; if no thread can be started the work is done
  /// inline). A handoff waits while the thread still has a row group queued, which
  /// bounds memory. Returns the stream's first error; once failed, work is dropped.
  Status Submit(RowGroupWork work, bool use_thread);

  /// Finish the queued work and close the open file: RequestFinish() lets a threaded
  /// stream close its file in the background, Finish() waits for it (and closes inline
  /// otherwise). Returns the stream's first error.
  void RequestFinish();
  Status Finish();

  /// Stop at once: queued work is dropped, the open file abandoned (never published).
  void Abandon();

  /// The first error so far (OK if none); cheap, callable from any thread.
  Status status() const;

  /// Files published so far, in the order this stream closed them.
  std::vector<StreamFile> TakeFiles() { return std::move(files_); }

 private:
  class OpenFile;

  void Run();
  Status Encode(RowGroupWork& work);
  // Column `i` of a row group's batches, in one Arrow type the Parquet writer encodes
  // as the column's properties say: a top-level STRING column that comes
  // dictionary-encoded in some batches is unified to one dictionary where the column
  // keeps its dictionary page, and decoded where it is PLAIN.
  Result<std::shared_ptr<arrow::ChunkedArray>> ColumnChunk(
      const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches, int i) const;
  Status StartFile(int64_t first_row_group);
  Status CloseFile();
  void Fail(const Error& error);
  void Join();

  const std::shared_ptr<const DataFileConfig> config_;
  const int index_;
  int files_opened_ = 0;
  std::unique_ptr<OpenFile> file_;  // the file being written, if any
  std::vector<StreamFile> files_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<RowGroupWork> queue_;  // guarded by mu_
  bool busy_ = false;               // the thread is encoding (guarded by mu_)
  bool finishing_ = false;          // no more work: close the file and exit
  bool stop_ = false;               // abandon: exit without closing
  std::optional<Error> error_;      // first error (guarded by mu_)
  std::thread thread_;
};

}  // namespace deltaguard::internal
