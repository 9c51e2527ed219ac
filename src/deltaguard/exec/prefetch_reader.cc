#include "deltaguard/exec/prefetch_reader.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

namespace deltaguard {
namespace {

class PrefetchingReader final : public arrow::RecordBatchReader {
 public:
  PrefetchingReader(std::shared_ptr<arrow::RecordBatchReader> inner, int depth)
      : inner_(std::move(inner)), depth_(depth < 1 ? 1 : depth) {
    thread_ = std::thread([this] { Run(); });
  }

  ~PrefetchingReader() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  std::shared_ptr<arrow::Schema> schema() const override { return inner_->schema(); }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return !queue_.empty() || done_; });
    if (!queue_.empty()) {
      *batch = std::move(queue_.front());
      queue_.pop_front();
      cv_.notify_all();
      return arrow::Status::OK();
    }
    batch->reset();
    return status_;
  }

 private:
  void Run() {
    while (true) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock,
                 [this] { return stop_ || static_cast<int>(queue_.size()) < depth_; });
        if (stop_) break;
      }
      std::shared_ptr<arrow::RecordBatch> next;
      arrow::Status st = inner_->ReadNext(&next);
      std::lock_guard<std::mutex> lock(mu_);
      if (!st.ok() || !next) {
        status_ = st;
        done_ = true;
        cv_.notify_all();
        return;
      }
      queue_.push_back(std::move(next));
      cv_.notify_all();
    }
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
    cv_.notify_all();
  }

  std::shared_ptr<arrow::RecordBatchReader> inner_;
  const int depth_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<arrow::RecordBatch>> queue_;
  arrow::Status status_;
  bool done_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace

std::shared_ptr<arrow::RecordBatchReader> MakePrefetchingReader(
    std::shared_ptr<arrow::RecordBatchReader> inner, int depth) {
  return std::make_shared<PrefetchingReader>(std::move(inner), depth);
}

}  // namespace deltaguard
