// A statement's RAM budget (query_memory.h).

#include "deltaguard/exec/query_memory.h"

#include <unistd.h>

#include <charconv>
#include <fstream>
#include <string>
#include <utility>

namespace deltaguard {

QueryMemory::QueryMemory(int64_t limit, std::string spill_dir)
    : limit_(limit), spill_dir_(std::move(spill_dir)) {}

bool QueryMemory::TryReserve(int64_t bytes) {
  if (limit_ < 0) {
    held_ += bytes;
    return true;
  }
  int64_t now = held_.load();
  while (true) {
    if (now + bytes > limit_) return false;
    if (held_.compare_exchange_weak(now, now + bytes)) return true;
  }
}

void QueryMemory::Release(int64_t bytes) { held_ -= bytes; }

void QueryMemory::RecordSpill(int64_t bytes) {
  spilled_bytes_ += bytes;
  ++spill_files_;
}

int64_t DefaultQueryMemoryLimit() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  int64_t total =
      pages > 0 && page_size > 0 ? int64_t{pages} * page_size : int64_t{8} << 30;
  // cgroup v2: "max" or a byte count.
  std::ifstream cgroup("/sys/fs/cgroup/memory.max");
  std::string value;
  if (cgroup >> value && value != "max") {
    int64_t cap = 0;
    const auto [end, ec] =
        std::from_chars(value.data(), value.data() + value.size(), cap);
    if (ec == std::errc() && cap > 0 && cap < total) total = cap;
  }
  return total / 2;
}

}  // namespace deltaguard
