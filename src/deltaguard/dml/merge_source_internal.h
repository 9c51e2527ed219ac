/// \file deltaguard/dml/merge_source_internal.h
/// Reading a MERGE source into the one Arrow batch the hash join indexes (merge.cc),
/// within a memory limit.
///
/// Up to `memory_limit` bytes of conformed source batches stay in RAM. Past that, the
/// batches go to an unlinked temporary Arrow IPC file as they are read, and the combined
/// source is built in a SpillMemoryPool (exec/spill_memory_pool.h): its pages are then
/// file-backed and the kernel pages them out and in as the join touches them, so a
/// source of a few GB does not need a few GB of RAM (only the join keys and the hash
/// index, built later by merge.cc, are ordinary memory). Temporary files go to
/// $TMPDIR (else /tmp).
#pragma once

#include <arrow/record_batch.h>

#include <cstdint>
#include <memory>

#include "deltaguard/dml/merge_internal.h"
#include "deltaguard/exec/spill_memory_pool.h"
#include "deltaguard/util/result.h"
#include "deltaguard/write/write_types.h"

namespace deltaguard::dml_internal {

struct MergeSource {
  /// Owns the spilled buffers; declared first so it is destroyed after `batch`.
  std::unique_ptr<SpillMemoryPool> pool;
  /// Every source row, in `plan.source_arrow` (not yet qualified).
  std::shared_ptr<arrow::RecordBatch> batch;
  /// Bytes of Arrow data written to the spill file (0 when the source fit the limit).
  int64_t spilled_bytes = 0;
};

/// Read and conform every batch of `source` (errors name the source) and combine them.
/// `memory_limit` < 0: no limit.
Result<MergeSource> ReadMergeSource(BatchSource& source, const MergePlan& plan,
                                    int64_t memory_limit);

}  // namespace deltaguard::dml_internal
