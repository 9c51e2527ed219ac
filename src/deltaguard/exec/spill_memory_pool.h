/// \file deltaguard/exec/spill_memory_pool.h
/// An Arrow memory pool whose buffers live in a temporary file mapped into memory, so
/// large intermediate data (a MERGE source above its memory limit, dml/merge.h) is paged
/// by the kernel instead of pinning RAM: its pages are file-backed, written back and
/// dropped under memory pressure, and read again when touched.
///
/// Invariants: the file is created in `dir` and unlinked at once (nothing is left on
/// disk, even after a crash); every allocation reserves its disk blocks first
/// (posix_fallocate), so a full disk is an OutOfMemory status, never a SIGBUS on first
/// write; Free unmaps and punches the blocks out of the file. The pool must outlive
/// every buffer allocated from it (arrays do not keep their pool alive). Thread-safe.
#pragma once

#include <arrow/memory_pool.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "deltaguard/util/result.h"

namespace deltaguard {

class SpillMemoryPool : public arrow::MemoryPool {
 public:
  /// A pool over a new unlinked temporary file in `dir`; kIOError naming `dir` when the
  /// file cannot be created.
  static Result<std::unique_ptr<SpillMemoryPool>> Make(const std::string& dir);
  ~SpillMemoryPool() override;

  arrow::Status Allocate(int64_t size, int64_t alignment, uint8_t** out) override;
  arrow::Status Reallocate(int64_t old_size, int64_t new_size, int64_t alignment,
                           uint8_t** ptr) override;
  void Free(uint8_t* buffer, int64_t size, int64_t alignment) override;

  int64_t bytes_allocated() const override { return bytes_allocated_.load(); }
  int64_t max_memory() const override { return max_memory_.load(); }
  int64_t total_bytes_allocated() const override { return total_allocated_.load(); }
  int64_t num_allocations() const override { return num_allocations_.load(); }
  std::string backend_name() const override { return "deltaguard-spill-file"; }

 private:
  SpillMemoryPool(int fd, std::string dir) : fd_(fd), dir_(std::move(dir)) {}

  const int fd_;
  const std::string dir_;
  std::mutex mu_;
  int64_t file_size_ = 0;                // guarded by mu_
  std::map<uint8_t*, int64_t> offsets_;  // mapping start -> file offset; guarded by mu_
  std::atomic<int64_t> bytes_allocated_{0};
  std::atomic<int64_t> max_memory_{0};
  std::atomic<int64_t> total_allocated_{0};
  std::atomic<int64_t> num_allocations_{0};
};

}  // namespace deltaguard
