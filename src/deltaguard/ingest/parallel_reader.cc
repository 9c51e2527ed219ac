// Reading a micro-batch's files on several threads (ingest/parallel_reader.h).

#include "deltaguard/ingest/parallel_reader.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "deltaguard/arrow/status.h"

namespace deltaguard {
namespace {

class ParallelReader final : public arrow::RecordBatchReader {
 public:
  ParallelReader(std::shared_ptr<ReadStats> stats, std::shared_ptr<arrow::Schema> schema,
                 int depth)
      : stats_(std::move(stats)), schema_(std::move(schema)), depth_(depth) {}

  ~ParallelReader() override { Stop(); }

  Status Start(const std::vector<std::vector<IngestFile>>& shares,
               const OpenWorkerReader& open) {
    workers_.resize(shares.size());
    for (size_t i = 0; i < shares.size(); ++i) {
      workers_[i].stats = std::make_shared<ReadStats>();
      DELTA_ASSIGN_OR_RETURN(workers_[i].reader, open(shares[i], workers_[i].stats));
    }
    for (size_t i = 0; i < workers_.size(); ++i) {
      workers_[i].thread = std::thread([this, i] { Run(i); });
    }
    return OkStatus();
  }

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    *out = nullptr;
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      if (finished_) return final_;
      size_t live = 0;
      for (const auto& w : workers_) live += w.exhausted ? 0 : 1;
      if (live == 0) return Finish(lock, arrow::Status::OK());
      Worker& w = workers_[turn_];
      if (w.exhausted) {
        turn_ = (turn_ + 1) % workers_.size();
        continue;
      }
      changed_.wait(lock, [&] { return !w.queue.empty() || w.done; });
      if (!w.queue.empty()) {
        *out = std::move(w.queue.front());
        w.queue.pop_front();
        turn_ = (turn_ + 1) % workers_.size();
        changed_.notify_all();
        return arrow::Status::OK();
      }
      if (!w.error.ok()) return Finish(lock, w.error);
      w.exhausted = true;
    }
  }

 private:
  struct Worker {
    std::shared_ptr<arrow::RecordBatchReader> reader;
    std::shared_ptr<ReadStats> stats;
    std::thread thread;
    std::deque<std::shared_ptr<arrow::RecordBatch>> queue;  // guarded by mu_
    bool done = false;                                      // guarded by mu_
    bool exhausted = false;  // consumer side: done and drained
    arrow::Status error;     // guarded by mu_
  };

  void Run(size_t i) {
    Worker& w = workers_[i];
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      arrow::Status st = w.reader->ReadNext(&batch);
      std::unique_lock<std::mutex> lock(mu_);
      if (!st.ok() || batch == nullptr || cancel_) {
        w.error = st;
        w.done = true;
        changed_.notify_all();
        return;
      }
      changed_.wait(lock,
                    [&] { return cancel_ || static_cast<int>(w.queue.size()) < depth_; });
      if (!cancel_) w.queue.push_back(std::move(batch));
      changed_.notify_all();
    }
  }

  // The end, or an error: every worker's counts go to the shared stats first. New
  // columns (kSchemaMismatch from a worker's scan) wait for the others' scans, whose
  // rows are dropped: the batch fails and is read again.
  arrow::Status Finish(std::unique_lock<std::mutex>& lock, arrow::Status status) {
    const bool scan = !status.ok() &&
                      internal::FromArrowStatus(status, ErrorCode::kInternal, "").code ==
                          ErrorCode::kSchemaMismatch;
    if (!status.ok() && !scan) cancel_ = true;
    for (auto& w : workers_) w.queue.clear();
    changed_.notify_all();
    changed_.wait(lock, [&] {
      bool all = true;
      for (auto& w : workers_) {
        w.queue.clear();
        all = all && w.done;
      }
      changed_.notify_all();
      return all;
    });
    for (const auto& w : workers_) {
      stats_->files += w.stats->files;
      stats_->rows += w.stats->rows;
      stats_->bytes += w.stats->bytes;
      stats_->rescued_rows += w.stats->rescued_rows;
      stats_->malformed_rows += w.stats->malformed_rows;
      stats_->dropped_rows += w.stats->dropped_rows;
      for (const auto& u : w.stats->unknown) MergeUnknownField(u, &stats_->unknown);
    }
    finished_ = true;
    final_ = status;
    return status;
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      cancel_ = true;
      for (auto& w : workers_) w.queue.clear();
    }
    changed_.notify_all();
    for (auto& w : workers_) {
      if (w.thread.joinable()) w.thread.join();
    }
  }

  std::shared_ptr<ReadStats> stats_;
  std::shared_ptr<arrow::Schema> schema_;
  const int depth_;
  std::vector<Worker> workers_;
  std::mutex mu_;
  std::condition_variable changed_;
  bool cancel_ = false;    // guarded by mu_
  bool finished_ = false;  // consumer side
  arrow::Status final_;
  size_t turn_ = 0;
};

}  // namespace

int IngestWorkers(const std::vector<IngestFile>& files, int requested,
                  int64_t min_bytes) {
  if (files.size() < 2) return 1;
  if (requested > 0) return std::min<int>(requested, static_cast<int>(files.size()));
  int64_t bytes = 0;
  for (const auto& f : files) bytes += f.size;
  if (bytes < min_bytes) return 1;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::min({cores, 4, static_cast<int>(files.size())});
}

Result<std::shared_ptr<arrow::RecordBatchReader>> OpenParallelReader(
    const std::vector<IngestFile>& files, int workers, std::shared_ptr<ReadStats> stats,
    std::shared_ptr<arrow::Schema> schema, const OpenWorkerReader& open, int depth) {
  // Each file to the worker with the fewest bytes so far (ties: the lowest index).
  std::vector<std::vector<IngestFile>> shares(static_cast<size_t>(workers));
  std::vector<int64_t> load(static_cast<size_t>(workers), 0);
  for (const auto& f : files) {
    const size_t w =
        static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    shares[w].push_back(f);
    load[w] += std::max<int64_t>(f.size, 1);
  }
  auto reader =
      std::make_shared<ParallelReader>(std::move(stats), std::move(schema), depth);
  DELTA_RETURN_IF_ERROR(reader->Start(shares, open));
  return std::shared_ptr<arrow::RecordBatchReader>(std::move(reader));
}

}  // namespace deltaguard
