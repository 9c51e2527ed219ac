#include "deltaguard/io/parquet/parquet_file.h"

#include <arrow/buffer.h>
#include <arrow/compute/initialize.h>
#include <arrow/record_batch.h>
#include <fmt/format.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <mutex>

#include "deltaguard/arrow/status.h"

namespace deltaguard {

// ---------------------------------------------------------------------------------------
// FileSystemRandomAccessFile

namespace {

// A zero-copy slice of a mapped file; keeps the mapping alive.
class MappedBuffer final : public arrow::Buffer {
 public:
  MappedBuffer(std::shared_ptr<const MappedFile> file, int64_t offset, int64_t length)
      : arrow::Buffer(reinterpret_cast<const uint8_t*>(file->data()) + offset, length),
        file_(std::move(file)) {}

 private:
  std::shared_ptr<const MappedFile> file_;
};

}  // namespace

Result<std::shared_ptr<FileSystemRandomAccessFile>> FileSystemRandomAccessFile::Open(
    FileSystemRef fs, std::string path) {
  // Map when the file system can (the local one): column chunks are then read from
  // the page cache in place, with no fresh buffer to fault in and no copy into it.
  if (auto mapped = fs->MapFile(path)) {
    const int64_t size = (*mapped)->size();
    auto file = std::shared_ptr<FileSystemRandomAccessFile>(
        new FileSystemRandomAccessFile(std::move(fs), std::move(path), size));
    file->mapped_ = std::move(*mapped);
    return file;
  } else if (mapped.error().code == ErrorCode::kNotFound) {
    return mapped.error();
  }
  DELTA_ASSIGN_OR_RETURN(FileInfo info, fs->Stat(path));
  return std::shared_ptr<FileSystemRandomAccessFile>(
      new FileSystemRandomAccessFile(std::move(fs), std::move(path), info.size));
}

arrow::Status FileSystemRandomAccessFile::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  return arrow::Status::OK();
}

bool FileSystemRandomAccessFile::closed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

arrow::Result<int64_t> FileSystemRandomAccessFile::Tell() const {
  std::lock_guard<std::mutex> lock(mu_);
  return position_;
}

arrow::Status FileSystemRandomAccessFile::Seek(int64_t position) {
  if (position < 0) return arrow::Status::Invalid("negative seek position ", position);
  std::lock_guard<std::mutex> lock(mu_);
  position_ = position;
  return arrow::Status::OK();
}

arrow::Result<int64_t> FileSystemRandomAccessFile::GetSize() { return size_; }

arrow::Result<std::shared_ptr<arrow::Buffer>> FileSystemRandomAccessFile::ReadAt(
    int64_t position, int64_t nbytes) {
  if (position < 0 || nbytes < 0) {
    return arrow::Status::Invalid("invalid read of ", nbytes, " bytes at ", position,
                                  " in '", path_, "'");
  }
  // RandomAccessFile semantics: a read past the end returns the bytes that exist.
  int64_t length = std::min(nbytes, std::max<int64_t>(0, size_ - position));
  if (length == 0) return std::make_shared<arrow::Buffer>(nullptr, 0);
  if (mapped_ != nullptr)
    return std::make_shared<MappedBuffer>(mapped_, position, length);
  // Read straight into a pool buffer: no zero-filled temporary, no copy, and the pool
  // recycles memory between column chunks.
  ARROW_ASSIGN_OR_RAISE(std::unique_ptr<arrow::Buffer> buffer,
                        arrow::AllocateBuffer(length));
  Status read = fs_->ReadRangeInto(path_, position, length,
                                   reinterpret_cast<char*>(buffer->mutable_data()));
  if (!read) return internal::ToArrowStatus(read.error());
  return std::shared_ptr<arrow::Buffer>(std::move(buffer));
}

arrow::Result<int64_t> FileSystemRandomAccessFile::ReadAt(int64_t position,
                                                          int64_t nbytes, void* out) {
  ARROW_ASSIGN_OR_RAISE(auto buffer, ReadAt(position, nbytes));
  if (buffer->size() > 0) std::memcpy(out, buffer->data(), buffer->size());
  return buffer->size();
}

arrow::Result<int64_t> FileSystemRandomAccessFile::Read(int64_t nbytes, void* out) {
  std::lock_guard<std::mutex> lock(mu_);
  ARROW_ASSIGN_OR_RAISE(int64_t n, ReadAt(position_, nbytes, out));
  position_ += n;
  return n;
}

arrow::Result<std::shared_ptr<arrow::Buffer>> FileSystemRandomAccessFile::Read(
    int64_t nbytes) {
  std::lock_guard<std::mutex> lock(mu_);
  ARROW_ASSIGN_OR_RAISE(auto buffer, ReadAt(position_, nbytes));
  position_ += buffer->size();
  return buffer;
}

// ---------------------------------------------------------------------------------------
// Helpers

Status InitializeArrowCompute() {
  static std::once_flag once;
  static arrow::Status status;
  std::call_once(once, [] { status = arrow::compute::Initialize(); });
  if (!status.ok()) {
    return internal::FromArrowStatus(status, ErrorCode::kInternal,
                                     "cannot initialize Arrow compute");
  }
  return OkStatus();
}

parquet::ArrowReaderProperties DefaultArrowReaderProperties(bool use_threads,
                                                            int64_t batch_size) {
  parquet::ArrowReaderProperties props(use_threads);
  props.set_batch_size(batch_size);
  props.set_pre_buffer(true);
  // Spark writes legacy INT96 timestamps; Delta timestamps are microseconds.
  props.set_coerce_int96_timestamp_unit(arrow::TimeUnit::MICRO);
  return props;
}

Result<std::unique_ptr<parquet::arrow::FileReader>> OpenParquetFile(
    const FileSystemRef& fs, const std::string& path,
    const parquet::ArrowReaderProperties& properties, ErrorCode corrupt_code,
    int64_t read_buffer_size, const ConfigureArrowReader& configure,
    arrow::MemoryPool* pool) {
  auto file = FileSystemRandomAccessFile::Open(fs, path);
  if (!file) return file.error();
  std::string context = fmt::format("cannot read Parquet file '{}'", path);
  try {
    parquet::arrow::FileReaderBuilder builder;
    if (pool == nullptr) pool = arrow::default_memory_pool();
    // Pages (reader_properties) and the decoded arrays (the builder) share the pool.
    parquet::ReaderProperties reader_properties(pool);
    if (read_buffer_size > 0) {
      reader_properties.enable_buffered_stream();
      reader_properties.set_buffer_size(read_buffer_size);
    }
    DELTA_ARROW_RETURN_NOT_OK(builder.Open(*file, reader_properties), corrupt_code,
                              context);
    parquet::ArrowReaderProperties props = properties;
    if (configure) configure(*builder.raw_reader()->metadata(), &props);
    builder.memory_pool(pool)->properties(props);
    DELTA_ARROW_ASSIGN_OR_RETURN(auto reader, builder.Build(), corrupt_code, context);
    return reader;
  } catch (const std::exception& e) {
    // parquet-cpp converts its exceptions to Status at the API boundary; this is a last
    // line of defence so that nothing escapes the library.
    return MakeError(corrupt_code, "{}: {}", context, e.what());
  }
}

bool AllPagesDictionaryEncoded(const parquet::FileMetaData& metadata, int column) {
  if (column < 0 || column >= metadata.num_columns()) return false;
  for (int g = 0; g < metadata.num_row_groups(); ++g) {
    auto chunk = metadata.RowGroup(g)->ColumnChunk(column);
    if (!chunk->has_dictionary_page()) return false;
    const auto& stats = chunk->encoding_stats();
    if (stats.empty()) return false;
    for (const auto& s : stats) {
      if (s.page_type != parquet::PageType::DATA_PAGE &&
          s.page_type != parquet::PageType::DATA_PAGE_V2)
        continue;
      if (s.encoding != parquet::Encoding::RLE_DICTIONARY &&
          s.encoding != parquet::Encoding::PLAIN_DICTIONARY)
        return false;
    }
  }
  return true;
}

Status CheckColumnChunkSizes(const parquet::FileMetaData& metadata,
                             const std::vector<int>& leaves, const std::string& path) {
  constexpr int64_t kMaxChunkBytes = int64_t{1} << 31;
  std::vector<int> columns = leaves;
  if (columns.empty()) {
    for (int c = 0; c < metadata.num_columns(); ++c) columns.push_back(c);
  }
  try {
    for (int g = 0; g < metadata.num_row_groups(); ++g) {
      auto row_group = metadata.RowGroup(g);
      for (int c : columns) {
        auto chunk = row_group->ColumnChunk(c);
        if (chunk->total_uncompressed_size() >= kMaxChunkBytes) {
          return MakeError(ErrorCode::kUnsupportedFeature,
                           "Parquet file '{}': column '{}' in row group {} is {} bytes "
                           "uncompressed; chunks of 2 GiB or more are not supported",
                           path, chunk->path_in_schema()->ToDotString(), g,
                           chunk->total_uncompressed_size());
        }
      }
    }
  } catch (const std::exception& e) {
    return MakeError(ErrorCode::kCorruptData, "cannot read Parquet file '{}': {}", path,
                     e.what());
  }
  return OkStatus();
}

Result<int64_t> ReadParquetFooterRowCount(const FileSystemRef& fs,
                                          const std::string& path) {
  DELTA_ASSIGN_OR_RETURN(
      auto reader, OpenParquetFile(fs, path, DefaultArrowReaderProperties(false, 1024),
                                   ErrorCode::kCorruptData));
  return reader->parquet_reader()->metadata()->num_rows();
}

Result<int64_t> ScanParquetFile(const FileSystemRef& fs, const std::string& path) {
  DELTA_ASSIGN_OR_RETURN(
      auto reader,
      OpenParquetFile(fs, path, DefaultArrowReaderProperties(false, 64 * 1024),
                      ErrorCode::kCorruptData));
  std::string context = fmt::format("cannot read Parquet file '{}'", path);
  DELTA_RETURN_IF_ERROR(
      CheckColumnChunkSizes(*reader->parquet_reader()->metadata(), {}, path));
  try {
    std::vector<int> row_groups(reader->num_row_groups());
    for (int i = 0; i < reader->num_row_groups(); ++i) row_groups[i] = i;
    DELTA_ARROW_ASSIGN_OR_RETURN(auto batches, reader->GetRecordBatchReader(row_groups),
                                 ErrorCode::kCorruptData, context);
    int64_t rows = 0;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      DELTA_ARROW_RETURN_NOT_OK(batches->ReadNext(&batch), ErrorCode::kCorruptData,
                                context);
      if (batch == nullptr) break;
      DELTA_ARROW_RETURN_NOT_OK(batch->Validate(), ErrorCode::kCorruptData, context);
      rows += batch->num_rows();
    }
    return rows;
  } catch (const std::exception& e) {
    return MakeError(ErrorCode::kCorruptData, "{}: {}", context, e.what());
  }
}

Result<int64_t> ScanParquetFile(const std::string& path) {
  return ScanParquetFile(MakeLocalFileSystem(), path);
}

void CollectParquetLeaves(const parquet::arrow::SchemaField& field,
                          std::vector<int>* out) {
  if (field.is_leaf()) {
    out->push_back(field.column_index);
    return;
  }
  for (const auto& child : field.children) CollectParquetLeaves(child, out);
}

}  // namespace deltaguard
