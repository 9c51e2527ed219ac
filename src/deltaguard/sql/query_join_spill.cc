// Joins past the memory limit (query_join_internal.h OpenSpilledJoin): a grace hash
// join over SpillPartitions (exec/spill_partitions.h), joining one partition at a time.

#include <arrow/api.h>

#include <utility>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/expr_eval.h"
#include "deltaguard/exec/spill_partitions.h"
#include "deltaguard/sql/query_join_internal.h"

namespace deltaguard::query_internal {
namespace {

// Deals `batch` by a hash of its join keys.
Status Deal(const JoinSpec& spec, const std::vector<BoundExprRef>& keys,
            const BatchRef& batch, SpillPartitions& parts) {
  DELTA_ASSIGN_OR_RETURN(auto values, JoinKeys(spec, keys, *batch));
  std::vector<std::shared_ptr<arrow::Array>> arrays;
  for (const auto& v : values) arrays.push_back(v.make_array());
  DELTA_ASSIGN_OR_RETURN(auto hashes, HashRows(arrays, batch->num_rows()));
  return parts.Append(batch, hashes);
}

// The partitions joined one after another.
class PartitionedJoinReader final : public arrow::RecordBatchReader {
 public:
  PartitionedJoinReader(std::shared_ptr<const JoinSpec> spec,
                        std::shared_ptr<arrow::Schema> left_schema,
                        std::shared_ptr<arrow::Schema> right_schema,
                        std::unique_ptr<SpillPartitions> left,
                        std::unique_ptr<SpillPartitions> right)
      : spec_(std::move(spec)),
        left_schema_(std::move(left_schema)),
        right_schema_(std::move(right_schema)),
        left_(std::move(left)),
        right_(std::move(right)) {}

  std::shared_ptr<arrow::Schema> schema() const override { return spec_->output_schema; }

  arrow::Status ReadNext(BatchRef* out) override {
    *out = nullptr;
    while (true) {
      if (current_ != nullptr) {
        ARROW_RETURN_NOT_OK(current_->ReadNext(out));
        if (*out != nullptr) return arrow::Status::OK();
        current_.reset();
      }
      if (next_ == left_->num_partitions()) return arrow::Status::OK();
      auto opened = OpenPartition(next_++);
      if (!opened) return internal::ToArrowStatus(opened.error());
      current_ = std::move(*opened);
    }
  }

 private:
  Result<ReaderRef> OpenPartition(int i) {
    DELTA_ASSIGN_OR_RETURN(auto right_rows, right_->Read(i, INT64_MAX));
    DELTA_ASSIGN_OR_RETURN(BatchRef right, CombineRows(right_rows, right_schema_));
    DELTA_ASSIGN_OR_RETURN(auto left_rows, left_->Read(i));
    DELTA_ARROW_ASSIGN_OR_RETURN(
        ReaderRef left,
        arrow::RecordBatchReader::Make(std::move(left_rows), left_schema_),
        ErrorCode::kInternal, "JOIN left side");
    return OpenJoinReader(spec_, std::move(left), std::move(right));
  }

  std::shared_ptr<const JoinSpec> spec_;
  std::shared_ptr<arrow::Schema> left_schema_, right_schema_;
  std::unique_ptr<SpillPartitions> left_, right_;
  ReaderRef current_;
  int next_ = 0;
};

}  // namespace

Result<ReaderRef> OpenSpilledJoin(std::shared_ptr<const JoinSpec> spec, ReaderRef left,
                                  std::vector<BatchRef> right, int64_t right_bytes,
                                  const QueryMemoryRef& memory) {
  if (right.empty()) {
    return MakeError(ErrorCode::kInternal, "JOIN: a spilled right side without rows");
  }
  const auto right_schema = right[0]->schema();
  if (spec->left_keys.empty() || memory == nullptr) {
    DELTA_ASSIGN_OR_RETURN(auto all, CombineRows(right, right_schema));
    return OpenJoinReader(std::move(spec), std::move(left), std::move(all));
  }
  const int n = SpillPartitions::PartitionsFor(right_bytes, memory->limit());
  DELTA_ASSIGN_OR_RETURN(
      auto right_parts,
      SpillPartitions::Make(right_schema, n, "JOIN right side", *memory));
  for (auto& batch : right) {
    DELTA_RETURN_IF_ERROR(Deal(*spec, spec->right_keys, batch, *right_parts));
    batch.reset();  // its pages of the mapped file may go
  }
  const auto left_schema = left->schema();
  DELTA_ASSIGN_OR_RETURN(
      auto left_parts, SpillPartitions::Make(left_schema, n, "JOIN left side", *memory));
  while (true) {
    BatchRef batch;
    DELTA_ARROW_RETURN_NOT_OK(left->ReadNext(&batch), ErrorCode::kIOError,
                              "JOIN left side");
    if (batch == nullptr) break;
    DELTA_RETURN_IF_ERROR(Deal(*spec, spec->left_keys, batch, *left_parts));
  }
  return ReaderRef(std::make_shared<PartitionedJoinReader>(
      std::move(spec), left_schema, right_schema, std::move(left_parts),
      std::move(right_parts)));
}

}  // namespace deltaguard::query_internal
