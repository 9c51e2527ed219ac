// Spill files of Arrow batches (spill_file.h): an unlinked temporary file written as an
// Arrow IPC file through a duplicate of its descriptor, then mapped whole.

#include "deltaguard/exec/spill_file.h"

#include <arrow/buffer.h>
#include <arrow/io/file.h>
#include <arrow/io/memory.h>
#include <arrow/ipc/reader.h>
#include <arrow/ipc/writer.h>
#include <arrow/util/byte_size.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "deltaguard/arrow/status.h"

namespace deltaguard {
namespace {

// A read-only mapping of a whole file, unmapped when the last slice of it goes.
class MappedBuffer final : public arrow::Buffer {
 public:
  MappedBuffer(const uint8_t* data, int64_t size) : arrow::Buffer(data, size) {}
  ~MappedBuffer() override {
    if (size_ > 0) munmap(const_cast<uint8_t*>(data_), static_cast<size_t>(size_));
  }
};

}  // namespace

std::string SpillDirectory() {
  std::error_code ec;
  const auto dir = std::filesystem::temp_directory_path(ec);
  return ec ? std::string("/tmp") : dir.string();
}

Result<std::unique_ptr<SpillFile>> SpillFile::Open(std::shared_ptr<arrow::Schema> schema,
                                                   std::string what,
                                                   const std::string& dir) {
  std::string pattern = dir + "/deltaguard-spill-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = mkstemp(name.data());
  if (fd < 0) {
    return MakeError(ErrorCode::kIOError, "{}: cannot create a spill file in '{}': {}",
                     what, dir, std::strerror(errno));
  }
  unlink(name.data());
  auto out = std::unique_ptr<SpillFile>(new SpillFile(fd, std::move(what)));
  const std::string context = out->what_ + " spill file";
  const int writer_fd = dup(fd);
  if (writer_fd < 0) {
    return MakeError(ErrorCode::kIOError, "{}: {}", context, std::strerror(errno));
  }
  // The stream owns (and closes) the duplicate; the original stays for the mapping.
  DELTA_ARROW_ASSIGN_OR_RETURN(auto stream, arrow::io::FileOutputStream::Open(writer_fd),
                               ErrorCode::kIOError, context);
  DELTA_ARROW_ASSIGN_OR_RETURN(out->writer_, arrow::ipc::MakeFileWriter(stream, schema),
                               ErrorCode::kIOError, context);
  return out;
}

SpillFile::~SpillFile() {
  if (writer_ != nullptr) (void)writer_->Close();
  if (fd_ >= 0) close(fd_);
}

Status SpillFile::Append(const arrow::RecordBatch& batch) {
  if (writer_ == nullptr) {
    return MakeError(ErrorCode::kInternal, "{} spill file: append after read back",
                     what_);
  }
  DELTA_ARROW_RETURN_NOT_OK(writer_->WriteRecordBatch(batch), ErrorCode::kIOError,
                            what_ + " spill file");
  bytes_ += arrow::util::TotalBufferSize(batch);
  num_rows_ += batch.num_rows();
  return OkStatus();
}

Result<std::vector<std::shared_ptr<arrow::RecordBatch>>> SpillFile::ReadBack() {
  const std::string context = what_ + " spill file";
  if (writer_ == nullptr) {
    return MakeError(ErrorCode::kInternal, "{}: read back twice", context);
  }
  DELTA_ARROW_RETURN_NOT_OK(writer_->Close(), ErrorCode::kIOError, context);
  writer_.reset();
  struct stat st {};
  if (fstat(fd_, &st) != 0) {
    return MakeError(ErrorCode::kIOError, "{}: {}", context, std::strerror(errno));
  }
  const auto size = static_cast<int64_t>(st.st_size);
  void* data = mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_SHARED, fd_, 0);
  if (data == MAP_FAILED) {
    return MakeError(ErrorCode::kIOError, "{}: cannot map {} bytes: {}", context, size,
                     std::strerror(errno));
  }
  close(fd_);  // the mapping keeps the file's blocks until it is unmapped
  fd_ = -1;
  auto mapped = std::make_shared<MappedBuffer>(static_cast<const uint8_t*>(data), size);
  DELTA_ARROW_ASSIGN_OR_RETURN(
      auto reader,
      arrow::ipc::RecordBatchFileReader::Open(
          std::make_shared<arrow::io::BufferReader>(std::move(mapped))),
      ErrorCode::kIOError, context);
  std::vector<std::shared_ptr<arrow::RecordBatch>> out;
  out.reserve(static_cast<size_t>(reader->num_record_batches()));
  for (int i = 0; i < reader->num_record_batches(); ++i) {
    DELTA_ARROW_ASSIGN_OR_RETURN(auto batch, reader->ReadRecordBatch(i),
                                 ErrorCode::kIOError, context);
    out.push_back(std::move(batch));
  }
  return out;
}

}  // namespace deltaguard
