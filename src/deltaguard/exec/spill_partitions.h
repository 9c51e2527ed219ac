/// \file deltaguard/exec/spill_partitions.h
/// Rows dealt to N spill files (spill_file.h) by a hash of their keys, so an operator
/// whose rows exceed its memory limit can work one partition at a time: a grace hash
/// join (both sides dealt by their join keys; docs/sql.md "Memory and spilling"), a
/// window (its input dealt by PARTITION BY). Rows whose keys hash equal (exec
/// expr_eval.h HashRows: equal keys always do) land in the same partition; a partition
/// keeps its rows in arrival order.
#pragma once

#include <arrow/record_batch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "deltaguard/exec/query_memory.h"
#include "deltaguard/exec/spill_file.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

class SpillPartitions {
 public:
  using BatchRef = std::shared_ptr<arrow::RecordBatch>;

  /// `n` (>= 1) empty partitions for batches of `schema`, their files in
  /// `memory.spill_dir()`; `what` names the operator in errors.
  static Result<std::unique_ptr<SpillPartitions>> Make(
      std::shared_ptr<arrow::Schema> schema, int n, std::string what,
      QueryMemory& memory);

  /// Deals each row of `batch` to partition `hashes[row] % n`.
  Status Append(const BatchRef& batch, const std::vector<uint64_t>& hashes);

  int num_partitions() const { return static_cast<int>(files_.size()); }
  /// Arrow bytes dealt so far.
  int64_t bytes() const;

  /// Ends partition `i` and maps its rows back, in batches of at least
  /// `min_rows` rows where there are that many (small dealt slices are joined, so the
  /// operator does not pay per-batch costs per slice). Once per partition.
  Result<std::vector<BatchRef>> Read(int i, int64_t min_rows = 1 << 16);

  /// The number of partitions that brings `bytes` to about half of `limit` each
  /// (between 2 and 64: each partition holds two descriptors while it is written).
  static int PartitionsFor(int64_t bytes, int64_t limit);

 private:
  SpillPartitions(std::shared_ptr<arrow::Schema> schema, std::string what,
                  QueryMemory& memory)
      : schema_(std::move(schema)), what_(std::move(what)), memory_(memory) {}

  std::shared_ptr<arrow::Schema> schema_;
  std::string what_;
  QueryMemory& memory_;
  std::vector<std::unique_ptr<SpillFile>> files_;
};

}  // namespace deltaguard
