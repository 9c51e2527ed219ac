/// \file deltaguard/exec/query_memory.h
/// The RAM budget of one statement's holding operators (a join's build side, a window's
/// input, ORDER BY, DISTINCT and set operations; docs/sql.md "Memory and spilling"),
/// `deltaguard.query.memoryLimit`. An operator reserves each batch it holds; a batch
/// that does not fit sends the operator's rows to a spill file (spill_file.h) instead,
/// and the operator then works partition by partition where it can (a keyed join, a
/// partitioned window) so its RAM stays near the limit.
///
/// Invariants: `held() <= limit()` when the limit is set (a reservation that does not
/// fit takes nothing); reservations are returned when the operator's rows go (or when
/// the statement ends, with the budget). Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace deltaguard {

class QueryMemory {
 public:
  /// `limit` < 0: no limit (nothing spills).
  explicit QueryMemory(int64_t limit, std::string spill_dir);

  int64_t limit() const { return limit_; }
  const std::string& spill_dir() const { return spill_dir_; }
  /// Takes `bytes` of the budget when they fit; false (nothing taken) when they do not.
  bool TryReserve(int64_t bytes);
  void Release(int64_t bytes);
  int64_t held() const { return held_.load(); }

  /// Counts rows an operator wrote to a spill file (for EXPLAIN-style reports and
  /// tests): `bytes` of Arrow data in one more file.
  void RecordSpill(int64_t bytes);
  int64_t spilled_bytes() const { return spilled_bytes_.load(); }
  int64_t spill_files() const { return spill_files_.load(); }

 private:
  const int64_t limit_;
  const std::string spill_dir_;
  std::atomic<int64_t> held_{0};
  std::atomic<int64_t> spilled_bytes_{0};
  std::atomic<int64_t> spill_files_{0};
};

using QueryMemoryRef = std::shared_ptr<QueryMemory>;

/// The default limit: half of the memory this process may use (the smaller of the
/// machine's RAM and the cgroup's memory.max), as DuckDB's default takes a share of
/// RAM rather than a fixed size.
int64_t DefaultQueryMemoryLimit();

/// A held reservation, returned to its budget when destroyed (a null budget holds
/// nothing).
class MemoryReservation {
 public:
  MemoryReservation() = default;
  MemoryReservation(QueryMemoryRef memory, int64_t bytes)
      : memory_(std::move(memory)), bytes_(bytes) {}
  ~MemoryReservation() {
    if (memory_) memory_->Release(bytes_);
  }
  MemoryReservation(const MemoryReservation&) = delete;
  MemoryReservation& operator=(const MemoryReservation&) = delete;

 private:
  QueryMemoryRef memory_;
  int64_t bytes_ = 0;
};

}  // namespace deltaguard
