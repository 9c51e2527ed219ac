// Hash-partitioned spill files (spill_partitions.h): each batch's rows are grouped by
// partition with a counting sort, gathered with one Take, and each partition's slice
// is appended to its file.

#include "deltaguard/exec/spill_partitions.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <utility>

#include "deltaguard/arrow/status.h"

namespace deltaguard {

Result<std::unique_ptr<SpillPartitions>> SpillPartitions::Make(
    std::shared_ptr<arrow::Schema> schema, int n, std::string what, QueryMemory& memory) {
  if (n < 1) {
    return MakeError(ErrorCode::kInternal, "{}: {} spill partitions", what, n);
  }
  auto out = std::unique_ptr<SpillPartitions>(
      new SpillPartitions(std::move(schema), std::move(what), memory));
  for (int i = 0; i < n; ++i) {
    DELTA_ASSIGN_OR_RETURN(auto file,
                           SpillFile::Open(out->schema_, out->what_, memory.spill_dir()));
    out->files_.push_back(std::move(file));
  }
  return out;
}

int64_t SpillPartitions::bytes() const {
  int64_t total = 0;
  for (const auto& f : files_) total += f != nullptr ? f->bytes() : 0;
  return total;
}

Status SpillPartitions::Append(const BatchRef& batch,
                               const std::vector<uint64_t>& hashes) {
  const auto n = static_cast<uint64_t>(files_.size());
  const int64_t rows = batch->num_rows();
  if (rows == 0) return OkStatus();
  if (hashes.size() != static_cast<size_t>(rows)) {
    return MakeError(ErrorCode::kInternal, "{}: {} hashes for {} rows", what_,
                     hashes.size(), rows);
  }
  std::vector<int64_t> start(n + 1, 0);
  for (uint64_t h : hashes) ++start[h % n + 1];
  for (size_t p = 1; p <= n; ++p) start[p] += start[p - 1];
  std::vector<int64_t> order(static_cast<size_t>(rows));
  std::vector<int64_t> fill(start.begin(), start.end() - 1);
  for (int64_t r = 0; r < rows; ++r) {
    order[static_cast<size_t>(fill[hashes[static_cast<size_t>(r)] % n]++)] = r;
  }
  auto indices = std::make_shared<arrow::Int64Array>(
      rows, arrow::Buffer::FromVector(std::move(order)));
  DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum dealt, arrow::compute::Take(batch, indices),
                               ErrorCode::kInternal, what_);
  const auto& grouped = dealt.record_batch();
  for (size_t p = 0; p < n; ++p) {
    const int64_t length = start[p + 1] - start[p];
    if (length == 0) continue;
    if (files_[p] == nullptr) {
      return MakeError(ErrorCode::kInternal, "{}: partition {} already read", what_, p);
    }
    DELTA_RETURN_IF_ERROR(files_[p]->Append(*grouped->Slice(start[p], length)));
  }
  return OkStatus();
}

Result<std::vector<SpillPartitions::BatchRef>> SpillPartitions::Read(int i,
                                                                     int64_t min_rows) {
  if (i < 0 || i >= num_partitions() || files_[static_cast<size_t>(i)] == nullptr) {
    return MakeError(ErrorCode::kInternal, "{}: no partition {} to read", what_, i);
  }
  auto file = std::move(files_[static_cast<size_t>(i)]);
  memory_.RecordSpill(file->bytes());
  DELTA_ASSIGN_OR_RETURN(auto slices, file->ReadBack());
  std::vector<BatchRef> out;
  std::vector<BatchRef> run;
  int64_t run_rows = 0;
  auto flush = [&]() -> Status {
    if (run.empty()) return OkStatus();
    if (run.size() == 1) {
      out.push_back(std::move(run[0]));
    } else {
      DELTA_ARROW_ASSIGN_OR_RETURN(auto table,
                                   arrow::Table::FromRecordBatches(schema_, run),
                                   ErrorCode::kInternal, what_);
      DELTA_ARROW_ASSIGN_OR_RETURN(auto joined, table->CombineChunksToBatch(),
                                   ErrorCode::kInternal, what_);
      out.push_back(std::move(joined));
    }
    run.clear();
    run_rows = 0;
    return OkStatus();
  };
  for (auto& slice : slices) {
    run_rows += slice->num_rows();
    run.push_back(std::move(slice));
    if (run_rows >= min_rows) DELTA_RETURN_IF_ERROR(flush());
  }
  DELTA_RETURN_IF_ERROR(flush());
  return out;
}

int SpillPartitions::PartitionsFor(int64_t bytes, int64_t limit) {
  const int64_t half = std::max<int64_t>(limit / 2, 1);
  const int64_t n = (bytes + half - 1) / half;
  return static_cast<int>(std::clamp<int64_t>(n, 2, 64));
}

}  // namespace deltaguard
