// MERGE source reading with a memory limit (merge_source_internal.h).

#include <arrow/array/concatenate.h>
#include <arrow/array/util.h>
#include <arrow/io/file.h>
#include <arrow/ipc/reader.h>
#include <arrow/ipc/writer.h>
#include <arrow/util/byte_size.h>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/arrow/status.h"
#include "deltaguard/dml/merge_source_internal.h"
#include "deltaguard/exec/batch_conformer.h"

namespace deltaguard::dml_internal {
namespace {

// $TMPDIR, else /tmp (the standard library's rule). The spill file is local scratch
// space of this process (unlinked as soon as it is open), not table storage, so it is
// the one file the library creates outside the FileSystem seam, as Spark's executors
// spill to their local disks whatever the table's storage.
std::string TempDir() {
  std::error_code ec;
  const auto dir = std::filesystem::temp_directory_path(ec);
  return ec ? std::string("/tmp") : dir.string();
}

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

// The spill file: batches appended as they come, then read back memory-mapped.
class SpillFile {
 public:
  static Result<std::unique_ptr<SpillFile>> Open(
      const std::shared_ptr<arrow::Schema>& s) {
    std::string pattern = TempDir() + "/deltaguard-merge-source-XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    const int fd = mkstemp(name.data());
    if (fd < 0) {
      return MakeError(ErrorCode::kIOError,
                       "MERGE source: cannot create a spill file "
                       "in '{}'",
                       TempDir());
    }
    close(fd);
    auto out = std::unique_ptr<SpillFile>(new SpillFile(std::string(name.data())));
    const std::string context = "MERGE source spill file " + out->path_;
    DELTA_ARROW_ASSIGN_OR_RETURN(auto stream,
                                 arrow::io::FileOutputStream::Open(out->path_),
                                 ErrorCode::kIOError, context);
    DELTA_ARROW_ASSIGN_OR_RETURN(out->writer_, arrow::ipc::MakeFileWriter(stream, s),
                                 ErrorCode::kIOError, context);
    return out;
  }
  ~SpillFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }

  Status Append(const arrow::RecordBatch& batch) {
    DELTA_ARROW_RETURN_NOT_OK(writer_->WriteRecordBatch(batch), ErrorCode::kIOError,
                              "MERGE source spill file " + path_);
    return OkStatus();
  }

  // Every batch, its buffers mapped from the file (zero-copy). The file is unlinked:
  // the mapping keeps the data until the last buffer goes.
  Result<std::vector<std::shared_ptr<arrow::RecordBatch>>> ReadBack() {
    const std::string context = "MERGE source spill file " + path_;
    DELTA_ARROW_RETURN_NOT_OK(writer_->Close(), ErrorCode::kIOError, context);
    DELTA_ARROW_ASSIGN_OR_RETURN(
        auto file, arrow::io::MemoryMappedFile::Open(path_, arrow::io::FileMode::READ),
        ErrorCode::kIOError, context);
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
    DELTA_ARROW_ASSIGN_OR_RETURN(auto reader,
                                 arrow::ipc::RecordBatchFileReader::Open(file),
                                 ErrorCode::kIOError, context);
    std::vector<std::shared_ptr<arrow::RecordBatch>> out;
    for (int i = 0; i < reader->num_record_batches(); ++i) {
      DELTA_ARROW_ASSIGN_OR_RETURN(auto batch, reader->ReadRecordBatch(i),
                                   ErrorCode::kIOError, context);
      out.push_back(std::move(batch));
    }
    return out;
  }

 private:
  explicit SpillFile(std::string path) : path_(std::move(path)) {}
  std::string path_;
  std::shared_ptr<arrow::ipc::RecordBatchWriter> writer_;
};

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
      DELTA_ASSIGN_OR_RETURN(spill, SpillFile::Open(plan.source_arrow));
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
    DELTA_ASSIGN_OR_RETURN(out.pool, SpillMemoryPool::Make(TempDir()));
    pool = out.pool.get();
  }
  DELTA_ASSIGN_OR_RETURN(out.batch,
                         Combine(plan.source_arrow, std::move(batches), row, pool));
  return out;
}

}  // namespace deltaguard::dml_internal
