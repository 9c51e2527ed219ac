// ProfileObserver (quality/profile_hook.h).

#include "deltaguard/quality/profile_hook.h"

namespace deltaguard {

Status ProfileObserver::OnBatch(std::shared_ptr<arrow::RecordBatch>* batch,
                                const BatchInfo& /*info*/) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!profiler_) {
    DELTA_ASSIGN_OR_RETURN(Profiler made, Profiler::Make((*batch)->schema()));
    profiler_.emplace(std::move(made));
  }
  return profiler_->Add(**batch);
}

TableProfile ProfileObserver::Take() {
  std::lock_guard<std::mutex> lock(mutex_);
  return profiler_ ? profiler_->Snapshot() : TableProfile{};
}

}  // namespace deltaguard
