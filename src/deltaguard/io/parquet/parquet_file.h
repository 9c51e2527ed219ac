/// \file deltaguard/io/parquet/parquet_file.h
/// Opening Parquet files through our FileSystem seam: an arrow::io::RandomAccessFile
/// adapter over FileSystem::ReadRange (so fault injection reaches Parquet reads), plus
/// helpers for footers and whole-file scans.
#pragma once

#include <arrow/io/interfaces.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/schema.h>
#include <parquet/properties.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// A read-only arrow::io::RandomAccessFile backed by FileSystem::MapFile where the file
/// system maps files (zero-copy reads), else FileSystem::ReadRange.
/// Thread-safe: ReadAt is stateless; Read/Seek/Tell share a mutex-guarded position.
/// FileSystem errors travel through Arrow with their ErrorCode intact
/// (arrow/status.h).
class FileSystemRandomAccessFile final : public arrow::io::RandomAccessFile {
 public:
  /// Stat the file once (its size is fixed for the reader's lifetime).
  static Result<std::shared_ptr<FileSystemRandomAccessFile>> Open(FileSystemRef fs,
                                                                  std::string path);

  arrow::Status Close() override;
  bool closed() const override;
  arrow::Result<int64_t> Tell() const override;
  arrow::Status Seek(int64_t position) override;
  arrow::Result<int64_t> Read(int64_t nbytes, void* out) override;
  arrow::Result<std::shared_ptr<arrow::Buffer>> Read(int64_t nbytes) override;
  arrow::Result<int64_t> GetSize() override;
  bool supports_zero_copy() const override { return mapped_ != nullptr; }
  arrow::Result<int64_t> ReadAt(int64_t position, int64_t nbytes, void* out) override;
  arrow::Result<std::shared_ptr<arrow::Buffer>> ReadAt(int64_t position,
                                                       int64_t nbytes) override;

  const std::string& path() const { return path_; }

 private:
  FileSystemRandomAccessFile(FileSystemRef fs, std::string path, int64_t size)
      : fs_(std::move(fs)), path_(std::move(path)), size_(size) {}

  FileSystemRef fs_;
  std::string path_;
  int64_t size_;
  mutable std::mutex mu_;
  // The whole file when the file system maps it (FileSystem::MapFile): reads are
  // zero-copy slices of it. Null: reads go through FileSystem::ReadRangeInto.
  std::shared_ptr<const MappedFile> mapped_;
  int64_t position_ = 0;  // guarded by mu_
  bool closed_ = false;   // guarded by mu_
};

/// Open `path` as Parquet through `fs`. A file that is not valid Parquet (bad magic,
/// truncated, corrupt footer, encrypted) is `corrupt_code` (kCorruptData for data
/// files, kCorruptLog for checkpoints) with a message naming the file; a missing file
/// keeps the FileSystem's kNotFound. With `read_buffer_size` > 0, column chunks are
/// read through a buffer of that many bytes instead of whole (less memory for large
/// chunks read without pre-buffering). `configure`, when set, sees the footer before
/// the Arrow reader is built and may adjust its properties (say, which columns to read
/// dictionary-encoded).
using ConfigureArrowReader =
    std::function<void(const parquet::FileMetaData&, parquet::ArrowReaderProperties*)>;
Result<std::unique_ptr<parquet::arrow::FileReader>> OpenParquetFile(
    const FileSystemRef& fs, const std::string& path,
    const parquet::ArrowReaderProperties& properties, ErrorCode corrupt_code,
    int64_t read_buffer_size = 0, const ConfigureArrowReader& configure = nullptr,
    arrow::MemoryPool* pool = nullptr);

/// Whether every data page of column `column` (a leaf index) is dictionary-encoded in
/// every row group, by the footer's page encoding statistics; false when a row group
/// does not record them.
bool AllPagesDictionaryEncoded(const parquet::FileMetaData& metadata, int column);

/// Refuse files whose column chunks (among `leaves`, all when empty) exceed 2 GiB
/// uncompressed: Arrow cannot return such a nested column and would first inflate it in
/// memory (parquet-testing's large_string_map.brotli.parquet: 3 KB on disk, 2 GiB
/// decoded). kUnsupportedFeature naming the file, column and size.
Status CheckColumnChunkSizes(const parquet::FileMetaData& metadata,
                             const std::vector<int>& leaves, const std::string& path);

/// Appends the leaf column indexes of `field` (a top-level field of a reader's
/// manifest, nested fields included) to `out`: what GetRecordBatchReader takes to read
/// only some fields.
void CollectParquetLeaves(const parquet::arrow::SchemaField& field,
                          std::vector<int>* out);

/// The row count in the footer of `path`; reads only the footer.
Result<int64_t> ReadParquetFooterRowCount(const FileSystemRef& fs,
                                          const std::string& path);

/// Read every column of every row group of a Parquet file (validating each batch) and
/// return the number of rows. Used to smoke-test the reader on arbitrary files; errors
/// are kCorruptData (or kUnsupportedFeature for encodings Arrow does not implement).
Result<int64_t> ScanParquetFile(const FileSystemRef& fs, const std::string& path);
/// Same, on the local file system.
Result<int64_t> ScanParquetFile(const std::string& path);

/// Register Arrow's compute kernels once per process (arrow::compute::Initialize, needed
/// since Arrow 21 before using non-core kernels such as some casts). Thread-safe; every
/// call returns the result of the first.
Status InitializeArrowCompute();

/// Default reader properties for deltaguard: INT96 coerced to microseconds (Spark's
/// legacy timestamps, PROTOCOL digest §6.3), pre-buffering on, given threads and batch
/// size.
parquet::ArrowReaderProperties DefaultArrowReaderProperties(bool use_threads,
                                                            int64_t batch_size);

}  // namespace deltaguard
