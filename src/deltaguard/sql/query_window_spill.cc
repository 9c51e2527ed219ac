// The window stage past the memory limit (docs/sql.md "Memory and spilling"): a window
// works within one PARTITION BY partition, so input rows that spilled are dealt to
// spill partitions by the partition columns every call shares, and each spill
// partition is computed on its own, with only its share of the rows in RAM. The keys are
// evaluated to deal the rows and again by the stage: equal keys deal equal, so each
// window partition stays whole in one spill partition.

#include <arrow/api.h>

#include <utility>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/spill_partitions.h"
#include "deltaguard/sql/query_internal.h"

namespace deltaguard::query_internal {
namespace {

// The spill partitions computed one after another.
class PartitionedStageReader final : public arrow::RecordBatchReader {
 public:
  PartitionedStageReader(std::unique_ptr<SpillPartitions> parts,
                         std::shared_ptr<arrow::Schema> in_schema,
                         std::shared_ptr<arrow::Schema> out_schema, WindowStage stage)
      : parts_(std::move(parts)),
        in_schema_(std::move(in_schema)),
        out_schema_(std::move(out_schema)),
        stage_(std::move(stage)) {}

  std::shared_ptr<arrow::Schema> schema() const override { return out_schema_; }

  arrow::Status ReadNext(BatchRef* out) override {
    *out = nullptr;
    while (next_ < parts_->num_partitions()) {
      auto computed = Compute(next_++);
      if (!computed) return internal::ToArrowStatus(computed.error());
      if (*computed != nullptr && (*computed)->num_rows() > 0) {
        *out = std::move(*computed);
        return arrow::Status::OK();
      }
    }
    return arrow::Status::OK();
  }

 private:
  Result<BatchRef> Compute(int i) {
    DELTA_ASSIGN_OR_RETURN(auto rows, parts_->Read(i, INT64_MAX));
    if (rows.empty()) return BatchRef();
    DELTA_ASSIGN_OR_RETURN(BatchRef batch, CombineRows(rows, in_schema_));
    return stage_(batch);
  }

  std::unique_ptr<SpillPartitions> parts_;
  std::shared_ptr<arrow::Schema> in_schema_, out_schema_;
  WindowStage stage_;
  int next_ = 0;
};

}  // namespace

HoldCost WindowCost(const std::vector<WindowCall>& calls) {
  return HoldCost{2, 48 + 16 + 9 * static_cast<int64_t>(calls.size())};
}

std::vector<BoundExprRef> SharedPartitionKeys(const std::vector<WindowCall>& calls) {
  std::vector<BoundExprRef> out;
  if (calls.empty()) return out;
  for (const auto& key : calls[0].partition) {
    bool everywhere = true;
    for (size_t c = 1; c < calls.size() && everywhere; ++c) {
      bool found = false;
      for (const auto& other : calls[c].partition)
        found = found || SameBound(*key, *other);
      everywhere = found;
    }
    if (everywhere) out.push_back(key);
  }
  return out;
}

Result<ReaderRef> SpilledWindowStage(HeldRows held, const std::vector<BoundExprRef>& keys,
                                     std::shared_ptr<arrow::Schema> out_schema,
                                     WindowStage stage, QueryMemory& memory,
                                     const EvalOptions& eval) {
  if (held.batches.empty()) {
    return MakeError(ErrorCode::kInternal, "window input: spilled without rows");
  }
  auto in_schema = held.batches[0]->schema();
  const int n = SpillPartitions::PartitionsFor(held.bytes, memory.limit());
  DELTA_ASSIGN_OR_RETURN(auto parts,
                         SpillPartitions::Make(in_schema, n, "window input", memory));
  for (auto& batch : held.batches) {
    std::vector<std::shared_ptr<arrow::Array>> values;
    for (const auto& k : keys) {
      DELTA_ASSIGN_OR_RETURN(auto v, Evaluate(*k, *batch, eval));
      values.push_back(std::move(v));
    }
    DELTA_ASSIGN_OR_RETURN(auto hashes, HashRows(values, batch->num_rows()));
    DELTA_RETURN_IF_ERROR(parts->Append(batch, hashes));
    batch.reset();  // its pages of the mapped file may go
  }
  return ReaderRef(std::make_shared<PartitionedStageReader>(
      std::move(parts), std::move(in_schema), std::move(out_schema), std::move(stage)));
}

}  // namespace deltaguard::query_internal
