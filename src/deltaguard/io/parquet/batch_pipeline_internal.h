/// \file deltaguard/io/parquet/batch_pipeline_internal.h
/// BatchPipeline: reads an arrow::RecordBatchReader one batch ahead on a helper thread
/// (used by the checkpoint reader). Internal to io/parquet.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/result.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

namespace deltaguard::internal {

/// Reads a RecordBatchReader on a helper thread while the caller consumes the previous
/// batches: for checkpoints, Parquet decoding and building actions take similar time,
/// so overlapping them nearly halves a large checkpoint's load time. At most kQueueDepth
/// decoded batches wait, which bounds the Arrow memory alive at once. Without a helper
/// thread (none available, or not wanted) Next() reads synchronously.
/// Invariant: the helper is the only thread touching `reader` until it has queued the
/// end (nullptr) or an error, or until destruction stops and joins it.
class BatchPipeline {
 public:
  BatchPipeline(arrow::RecordBatchReader& reader, bool use_thread) : reader_(reader) {
    if (!use_thread) return;
    try {
      helper_ = std::thread([this] { Produce(); });
    } catch (const std::system_error&) {
      // No thread available: read on the caller's thread.
    }
  }
  BatchPipeline(const BatchPipeline&) = delete;
  BatchPipeline& operator=(const BatchPipeline&) = delete;
  ~BatchPipeline() {
    if (!helper_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    helper_.join();
  }

  // The next batch; nullptr after the last one.
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> Next() {
    if (!helper_.joinable()) return ReadOne();
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return !queue_.empty(); });
    arrow::Result<std::shared_ptr<arrow::RecordBatch>> next = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    cv_.notify_all();
    return next;
  }

 private:
  static constexpr size_t kQueueDepth = 4;

  arrow::Result<std::shared_ptr<arrow::RecordBatch>> ReadOne() {
    std::shared_ptr<arrow::RecordBatch> batch;
    try {
      ARROW_RETURN_NOT_OK(reader_.ReadNext(&batch));
    } catch (const std::exception& e) {
      // parquet-cpp converts its exceptions at the API boundary; last line of defence.
      return arrow::Status::IOError(e.what());
    }
    return batch;
  }

  // Helper thread: read until the end, an error, or stop_; the end (nullptr) and an
  // error are queued like batches, so the consumer always sees how reading finished.
  void Produce() {
    while (true) {
      arrow::Result<std::shared_ptr<arrow::RecordBatch>> next = ReadOne();
      bool last = !next.ok() || *next == nullptr;
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || queue_.size() < kQueueDepth; });
      if (stop_) return;
      queue_.push_back(std::move(next));
      lock.unlock();
      cv_.notify_all();
      if (last) return;
    }
  }

  arrow::RecordBatchReader& reader_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<arrow::Result<std::shared_ptr<arrow::RecordBatch>>> queue_;
  bool stop_ = false;
  std::thread helper_;  // last: started after the members it uses exist
};

}  // namespace deltaguard::internal
