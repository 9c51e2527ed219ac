// ORDER BY's sorted output: the row order comes from SortIndices (the packed-key
// sort of query_sort_packed.cc where the keys allow it, Arrow's otherwise), and the
// sorted rows are read back a slice of row numbers at a time (SortedReader), so ORDER
// BY streams its output instead of building a sorted copy of its input.

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <optional>
#include <vector>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/spill_memory_pool.h"
#include "deltaguard/sql/query_internal.h"

namespace deltaguard::query_internal {

namespace {

// The sorted rows, one slice of the row numbers at a time; `pool` (when not null) owns
// the combined columns' buffers and is declared first, so it goes after them.
class SortedSliceReader final : public arrow::RecordBatchReader {
 public:
  static constexpr int64_t kRows = 1 << 16;

  SortedSliceReader(std::unique_ptr<SpillMemoryPool> pool,
                    std::shared_ptr<arrow::Schema> schema,
                    std::vector<std::shared_ptr<arrow::Array>> columns,
                    std::shared_ptr<arrow::Array> indices)
      : pool_(std::move(pool)),
        schema_(std::move(schema)),
        columns_(std::move(columns)),
        indices_(std::move(indices)) {}

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    *out = nullptr;
    if (next_ >= indices_->length()) return arrow::Status::OK();
    const int64_t n = std::min(kRows, indices_->length() - next_);
    auto slice = indices_->Slice(next_, n);
    next_ += n;
    std::vector<std::shared_ptr<arrow::Array>> taken;
    for (const auto& c : columns_) {
      ARROW_ASSIGN_OR_RAISE(arrow::Datum d, arrow::compute::Take(c, slice));
      taken.push_back(d.make_array());
    }
    *out = arrow::RecordBatch::Make(schema_, n, std::move(taken));
    return arrow::Status::OK();
  }

 private:
  std::unique_ptr<SpillMemoryPool> pool_;
  std::shared_ptr<arrow::Schema> schema_;
  std::vector<std::shared_ptr<arrow::Array>> columns_;
  std::shared_ptr<arrow::Array> indices_;
  int64_t next_ = 0;
};

}  // namespace

Result<ReaderRef> SortedReader(const std::shared_ptr<arrow::Table>& table,
                               const std::vector<SortKeySpec>& keys, int visible,
                               std::optional<int64_t> limit,
                               const QueryMemoryRef& spilled) {
  std::shared_ptr<arrow::Array> indices;
  if (table->num_rows() <= 1) {
    indices = std::make_shared<arrow::UInt64Array>(
        table->num_rows(),
        arrow::Buffer::FromVector(std::vector<uint64_t>(table->num_rows() == 1 ? 1 : 0)));
  } else {
    DELTA_ASSIGN_OR_RETURN(indices, SortIndices(table, keys));
  }
  if (limit && *limit < indices->length()) indices = indices->Slice(0, *limit);
  // Rows that came from a spill file are combined into file-backed memory, which the
  // kernel writes back and drops under pressure (exec/spill_memory_pool.h).
  std::unique_ptr<SpillMemoryPool> pool;
  if (spilled != nullptr) {
    DELTA_ASSIGN_OR_RETURN(pool, SpillMemoryPool::Make(spilled->spill_dir()));
  }
  std::vector<std::shared_ptr<arrow::Field>> fields;
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int c = 0; c < visible; ++c) {
    fields.push_back(table->schema()->field(c));
    const auto& chunks = table->column(c)->chunks();
    if (chunks.size() == 1) {
      columns.push_back(chunks[0]);
      continue;
    }
    std::shared_ptr<arrow::Array> combined;
    if (chunks.empty()) {
      DELTA_ARROW_ASSIGN_OR_RETURN(
          combined, arrow::MakeEmptyArray(table->schema()->field(c)->type()),
          ErrorCode::kInternal, "ORDER BY");
    } else {
      DELTA_ARROW_ASSIGN_OR_RETURN(
          combined,
          arrow::Concatenate(chunks, pool ? pool.get() : arrow::default_memory_pool()),
          ErrorCode::kInternal, "ORDER BY");
    }
    columns.push_back(std::move(combined));
  }
  return ReaderRef(std::make_shared<SortedSliceReader>(
      std::move(pool), arrow::schema(std::move(fields)), std::move(columns),
      std::move(indices)));
}

}  // namespace deltaguard::query_internal
