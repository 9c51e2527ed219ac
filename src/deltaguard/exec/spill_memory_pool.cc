// File-backed Arrow memory pool (spill_memory_pool.h).

#include "deltaguard/exec/spill_memory_pool.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace deltaguard {
namespace {

int64_t PageSize() {
  static const int64_t page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
  return page;
}

int64_t RoundUp(int64_t size) {
  const int64_t page = PageSize();
  return (size + page - 1) / page * page;
}

// Arrow asks for zero-size buffers; they get this (never written) address.
alignas(64) uint8_t zero_size_area[1];

}  // namespace

Result<std::unique_ptr<SpillMemoryPool>> SpillMemoryPool::Make(const std::string& dir) {
  std::string pattern = dir + "/deltaguard-spill-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = mkstemp(name.data());
  if (fd < 0) {
    return MakeError(ErrorCode::kIOError, "cannot create a spill file in '{}': {}", dir,
                     std::strerror(errno));
  }
  unlink(name.data());
  return std::unique_ptr<SpillMemoryPool>(new SpillMemoryPool(fd, dir));
}

SpillMemoryPool::~SpillMemoryPool() { close(fd_); }

arrow::Status SpillMemoryPool::Allocate(int64_t size, int64_t alignment, uint8_t** out) {
  if (size < 0) return arrow::Status::Invalid("negative allocation size");
  if (alignment > PageSize()) {
    return arrow::Status::Invalid("spill pool alignment above the page size");
  }
  if (size == 0) {
    *out = zero_size_area;
    return arrow::Status::OK();
  }
  const int64_t length = RoundUp(size);
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t offset = file_size_;
  // Reserve the blocks now: writing to a sparse mapping on a full disk would SIGBUS.
  if (const int err = posix_fallocate(fd_, offset, length); err != 0) {
    return arrow::Status::OutOfMemory(
        fmt::format("cannot grow the spill file in '{}' by {} bytes: {}", dir_, length,
                    std::strerror(err)));
  }
  void* p = mmap(nullptr, static_cast<size_t>(length), PROT_READ | PROT_WRITE, MAP_SHARED,
                 fd_, offset);
  if (p == MAP_FAILED) {
    return arrow::Status::OutOfMemory(
        fmt::format("cannot map {} bytes of the spill file in '{}': {}", length, dir_,
                    std::strerror(errno)));
  }
  file_size_ += length;
  *out = static_cast<uint8_t*>(p);
  offsets_[*out] = offset;
  bytes_allocated_ += size;
  total_allocated_ += size;
  ++num_allocations_;
  int64_t now = bytes_allocated_.load();
  int64_t seen = max_memory_.load();
  while (now > seen && !max_memory_.compare_exchange_weak(seen, now)) {
  }
  return arrow::Status::OK();
}

arrow::Status SpillMemoryPool::Reallocate(int64_t old_size, int64_t new_size,
                                          int64_t alignment, uint8_t** ptr) {
  uint8_t* fresh = nullptr;
  ARROW_RETURN_NOT_OK(Allocate(new_size, alignment, &fresh));
  if (old_size > 0 && new_size > 0) {
    std::memcpy(fresh, *ptr, static_cast<size_t>(std::min(old_size, new_size)));
  }
  Free(*ptr, old_size, alignment);
  *ptr = fresh;
  return arrow::Status::OK();
}

void SpillMemoryPool::Free(uint8_t* buffer, int64_t size, int64_t /*alignment*/) {
  if (buffer == zero_size_area || size == 0) return;
  const int64_t length = RoundUp(size);
  int64_t offset = -1;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = offsets_.find(buffer);
    if (it != offsets_.end()) {
      offset = it->second;
      offsets_.erase(it);
    }
  }
  munmap(buffer, static_cast<size_t>(length));
  // Give the blocks back to the file system; the file offset is not reused.
  if (offset >= 0) {
    fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, length);
  }
  bytes_allocated_ -= size;
}

}  // namespace deltaguard
