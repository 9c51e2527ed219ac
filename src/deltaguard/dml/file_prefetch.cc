// FilePrefetcher (file_prefetch_internal.h).

#include <system_error>
#include <utility>

#include "deltaguard/dml/dml_internal.h"
#include "deltaguard/dml/file_prefetch_internal.h"

namespace deltaguard::dml_internal {

FilePrefetcher::FilePrefetcher(SnapshotRef snapshot, std::vector<const AddFile*> files,
                               size_t depth, std::vector<std::string> dictionary_columns)
    : snapshot_(std::move(snapshot)),
      files_(std::move(files)),
      depth_(depth),
      dictionary_columns_(std::move(dictionary_columns)) {
  if (depth_ == 0 || files_.empty()) return;
  threaded_ = true;  // written before the thread starts, which reads it
  try {
    thread_ = std::thread([this] { Run(); });
  } catch (const std::system_error&) {
    threaded_ = false;  // no thread available: Next() reads inline
  }
}

FilePrefetcher::~FilePrefetcher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

bool FilePrefetcher::ReadOne(Item* item) {
  if (failed_) return false;
  if (!scan_) {
    if (next_file_ >= files_.size()) return false;
    // On the prefetch thread, columns decode one after the other: the caller and the
    // writer's streams keep the other cores busy.
    auto scan = ScanFile(snapshot_, *files_[next_file_++],
                         /*use_threads=*/!threaded_, dictionary_columns_);
    if (!scan) {
      failed_ = true;
      item->error = scan.error();
      return true;
    }
    scan_ = std::move(*scan);
  }
  auto batch = scan_->Next();
  if (!batch) {
    failed_ = true;
    item->error = batch.error();
    return true;
  }
  item->batch = std::move(*batch);
  if (!item->batch) scan_.reset();  // end of this file
  return true;
}

void FilePrefetcher::Run() {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || queue_.size() < depth_; });
      if (stop_) return;
    }
    Item item;
    const bool more = ReadOne(&item);
    std::lock_guard<std::mutex> lock(mu_);
    if (more) queue_.push_back(std::move(item));
    if (!more || failed_) {
      done_ = true;
      cv_.notify_all();
      return;
    }
    cv_.notify_all();
  }
}

Result<std::shared_ptr<arrow::RecordBatch>> FilePrefetcher::Next() {
  Item item;
  if (thread_.joinable()) {
    std::unique_lock<std::mutex> lock(mu_);
    if (error_) return *error_;
    cv_.wait(lock, [this] { return !queue_.empty() || done_; });
    if (queue_.empty()) return std::shared_ptr<arrow::RecordBatch>();
    item = std::move(queue_.front());
    queue_.pop_front();
    cv_.notify_all();  // a slot is free
    if (item.error) error_ = item.error;
  } else {
    if (error_) return *error_;
    if (!ReadOne(&item)) return std::shared_ptr<arrow::RecordBatch>();
    if (item.error) error_ = item.error;
  }
  if (item.error) return *item.error;
  return item.batch;
}

}  // namespace deltaguard::dml_internal
