/// \file deltaguard/exec/spill_file.h
/// A scratch file of Arrow record batches for operators that hold more rows than their
/// memory limit allows (a MERGE source, dml/merge.h; a join's build side, a window's or
/// an ORDER BY's input, docs/sql.md "Memory and spilling"): batches are appended as
/// they are read, then the file is mapped back into memory whole and its batches point
/// into the mapping (zero-copy). Mapped file pages are clean page cache: the kernel
/// drops them under memory pressure and reads them again when touched, so the held
/// rows cost disk, not RAM.
///
/// Invariants: the file is created in `dir` and unlinked at once, so nothing is left on
/// disk even after a crash; the mapping lives as long as any buffer read back from it.
/// A spill file is local scratch space of this process, not table storage: the one kind
/// of file the library writes outside the FileSystem seam (as Spark's executors spill
/// to their local disks whatever the table's storage).
#pragma once

#include <arrow/record_batch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "deltaguard/util/result.h"

namespace arrow::ipc {
class RecordBatchWriter;
}

namespace deltaguard {

/// Where spill files go: $TMPDIR, else /tmp (the standard library's rule).
std::string SpillDirectory();

class SpillFile {
 public:
  /// A new, already unlinked file in `dir` for batches of `schema`; `what` names the
  /// operator in errors ("JOIN right side"). kIOError naming `dir` when the file cannot
  /// be created.
  static Result<std::unique_ptr<SpillFile>> Open(std::shared_ptr<arrow::Schema> schema,
                                                 std::string what,
                                                 const std::string& dir);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  /// kIOError (a full disk) naming the operator.
  Status Append(const arrow::RecordBatch& batch);
  /// Arrow bytes appended so far (the buffers' sizes, not the file's).
  int64_t bytes() const { return bytes_; }
  int64_t num_rows() const { return num_rows_; }

  /// Ends the file and maps it: every appended batch, in order. Call once; the file
  /// takes no more batches afterwards.
  Result<std::vector<std::shared_ptr<arrow::RecordBatch>>> ReadBack();

 private:
  SpillFile(int fd, std::string what) : fd_(fd), what_(std::move(what)) {}

  int fd_;
  std::string what_;
  std::shared_ptr<arrow::ipc::RecordBatchWriter> writer_;
  int64_t bytes_ = 0;
  int64_t num_rows_ = 0;
};

}  // namespace deltaguard
