// ProfileObserver (quality/profile_hook.h).

#include "deltaguard/quality/profile_hook.h"

#include "deltaguard/util/string_util.h"
#include "deltaguard/write/table_state.h"

namespace deltaguard {

bool ProfilesEnabled(const Metadata& metadata) {
  auto value = metadata.GetConfig(kProfilesProperty);
  return value && EqualsIgnoreCase(Trim(*value), "true");
}

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
