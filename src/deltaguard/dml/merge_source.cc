// MERGE source reading with a memory limit (merge_source_internal.h).

#include <arrow/array/concatenate.h>
#include <arrow/array/util.h>
#include <arrow/util/byte_size.h>
#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "deltaguard/arrow/status.h"
#include "deltaguard/dml/merge_source_internal.h"
#include "deltaguard/exec/batch_conformer.h"
#include "deltaguard/exec/spill_file.h"

namespace deltaguard::dml_internal {
namespace {

// One batch of the source rows, built column by column in `pool`: each column's chunks
// are released once it is concatenated, so the peak is the source plus one column.
Result<std::shared_ptr<arrow::RecordBatch>> Combine(
    const std::shared_ptr<arrow::Schema>& schema,
    std::vector<std::shared_ptr<arrow::RecordBatch>> batches, int64_t num_rows,
    arrow::MemoryPool* pool) {
  const int num_columns = schema->num_fields();
  std::vector<arrow::ArrayVector> chunks(static_cast<size_t>(num_columns));
  for (auto& batch : batches) {
    for (int c = 0; c < num_columns; ++c) chunks[c].push_back(batch->column(c));
    batch.reset();
  }
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int c = 0; c < num_columns; ++c) {
    if (chunks[c].size() == 1) {
      columns.push_back(std::move(chunks[c][0]));
    } else if (chunks[c].empty()) {
      DELTA_ARROW_ASSIGN_OR_RETURN(auto empty,
                                   arrow::MakeArrayOfNull(schema->field(c)->type(), 0),
                                   ErrorCode::kInternal, "MERGE source");
      columns.push_back(std::move(empty));
    } else {
      DELTA_ARROW_ASSIGN_OR_RETURN(auto column, arrow::Concatenate(chunks[c], pool),
                                   ErrorCode::kInternal, "MERGE source");
      columns.push_back(std::move(column));
    }
    chunks[c].clear();
    chunks[c].shrink_to_fit();
  }
  return arrow::RecordBatch::Make(schema, num_rows, std::move(columns));
}

}  // namespace

Result<MergeSource> ReadMergeSource(BatchSource& source, const MergePlan& plan,
                                    int64_t memory_limit) {
  const std::string context = fmt::format("MERGE source '{}'", source.name);
  auto conformer = BatchConformer::Make(plan.source_schema, source.schema,
                                        ConformOptions{false, source.name});
  if (!conformer) return WithContext(conformer.error(), context);
  DELTA_ASSIGN_OR_RETURN(auto reader, source.open());
  MergeSource out;
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  std::unique_ptr<SpillFile> spill;
  int64_t held = 0;
  int64_t row = 0;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    DELTA_ARROW_RETURN_NOT_OK(reader->ReadNext(&batch), ErrorCode::kCorruptData, context);
    if (!batch) break;
    auto conformed = (*conformer)->Conform(*batch, row);
    if (!conformed) return WithContext(conformed.error(), context);
    row += batch->num_rows();
    const int64_t bytes = arrow::util::TotalBufferSize(**conformed);
    if (!spill && memory_limit >= 0 && held + bytes > memory_limit) {
      DELTA_ASSIGN_OR_RETURN(
          spill, SpillFile::Open(plan.source_arrow, "MERGE source", SpillDirectory()));
      for (auto& b : batches) DELTA_RETURN_IF_ERROR(spill->Append(*b));
      out.spilled_bytes = held;
      batches.clear();
    }
    if (spill) {
      DELTA_RETURN_IF_ERROR(spill->Append(**conformed));
      out.spilled_bytes += bytes;
    } else {
      held += bytes;
      batches.push_back(std::move(*conformed));
    }
  }
  arrow::MemoryPool* pool = arrow::default_memory_pool();
  if (spill) {
    DELTA_ASSIGN_OR_RETURN(batches, spill->ReadBack());
    DELTA_ASSIGN_OR_RETURN(out.pool, SpillMemoryPool::Make(SpillDirectory()));
    pool = out.pool.get();
  }
  DELTA_ASSIGN_OR_RETURN(out.batch,
                         Combine(plan.source_arrow, std::move(batches), row, pool));
  return out;
}

}  // namespace deltaguard::dml_internal
