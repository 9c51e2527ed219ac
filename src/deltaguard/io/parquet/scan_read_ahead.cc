// The read-ahead scan (scan_read_ahead_internal.h).

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

#include "deltaguard/io/parquet/scan_read_ahead_internal.h"

namespace deltaguard::parquet_internal {
namespace {

class ReadAheadScan final : public TableScan {
 public:
  ReadAheadScan(std::shared_ptr<arrow::Schema> schema, std::vector<const AddFile*> files,
                OpenFileScan open_file, size_t files_at_once, size_t depth)
      : schema_(std::move(schema)),
        files_(std::move(files)),
        open_file_(std::move(open_file)),
        window_(files_at_once),
        depth_(depth),
        slots_(files_.size()) {}

  ~ReadAheadScan() override { Stop(); }

  /// Starts up to window_ workers; false when none could be started.
  bool Start() {
    for (size_t i = 0; i < window_ && i < files_.size(); ++i) {
      try {
        workers_.emplace_back([this] { Work(); });
      } catch (const std::system_error&) {
        break;  // fewer workers: the window still advances with the ones there are
      }
    }
    return !workers_.empty();
  }

  const std::shared_ptr<arrow::Schema>& output_schema() const override { return schema_; }

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    std::unique_lock<std::mutex> lock(mu_);
    if (failed_) return *failed_;
    while (current_ < files_.size()) {
      Slot& slot = slots_[current_];
      cv_.wait(lock, [&] { return !slot.batches.empty() || slot.done; });
      if (!slot.batches.empty()) {
        auto batch = std::move(slot.batches.front());
        slot.batches.pop_front();
        cv_.notify_all();  // room in this file's queue
        return batch;
      }
      if (slot.error) {
        failed_ = std::move(slot.error);
        return *failed_;
      }
      ++current_;  // this file is finished: the window moves on
      cv_.notify_all();
    }
    return nullptr;
  }

 private:
  struct Slot {
    std::deque<std::shared_ptr<arrow::RecordBatch>> batches;
    std::optional<Error> error;
    bool done = false;  // no more batches will come (end of file or error)
  };

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
  }

  // Claims the next file inside the window and reads it into its slot, until every
  // file is claimed or the scan stops.
  void Work() {
    while (true) {
      size_t index = 0;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] {
          return stop_ || next_claim_ >= files_.size() ||
                 next_claim_ < current_ + window_;
        });
        if (stop_ || next_claim_ >= files_.size()) return;
        index = next_claim_++;
      }
      if (!ReadFile(index)) return;
    }
  }

  // Reads file `index` into its slot; false when the scan is stopping. The file's scan
  // is closed before its slot says done, so at most window_ files are ever open.
  bool ReadFile(size_t index) {
    std::unique_ptr<TableScan> scan;
    auto finish = [&](std::optional<Error> error) {
      scan.reset();
      std::lock_guard<std::mutex> lock(mu_);
      slots_[index].error = std::move(error);
      slots_[index].done = true;
      cv_.notify_all();
      return true;
    };
    auto opened = open_file_(*files_[index]);
    if (!opened) return finish(opened.error());
    scan = std::move(*opened);
    while (true) {
      auto batch = scan->Next();
      if (!batch) return finish(batch.error());
      if (*batch == nullptr) return finish(std::nullopt);
      std::unique_lock<std::mutex> lock(mu_);
      Slot& slot = slots_[index];
      cv_.wait(lock, [&] { return stop_ || slot.batches.size() < depth_; });
      if (stop_) return false;
      slot.batches.push_back(std::move(*batch));
      cv_.notify_all();
    }
  }

  const std::shared_ptr<arrow::Schema> schema_;
  const std::vector<const AddFile*> files_;
  const OpenFileScan open_file_;
  const size_t window_;
  const size_t depth_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Slot> slots_;  // one per file, by index in files_
  size_t current_ = 0;       // the file the consumer reads
  size_t next_claim_ = 0;    // the next file a worker takes
  bool stop_ = false;
  std::optional<Error> failed_;  // sticky, once handed out
  std::vector<std::thread> workers_;
};

}  // namespace

std::unique_ptr<TableScan> MakeReadAheadScan(std::shared_ptr<arrow::Schema> schema,
                                             std::vector<const AddFile*> files,
                                             OpenFileScan open_file, size_t files_at_once,
                                             size_t depth) {
  auto scan = std::make_unique<ReadAheadScan>(
      std::move(schema), std::move(files), std::move(open_file),
      std::max<size_t>(files_at_once, 1), std::max<size_t>(depth, 1));
  if (!scan->Start()) return nullptr;
  return scan;
}

}  // namespace deltaguard::parquet_internal
