/// \file deltaguard/quality/profile_hook.h
/// Profiling inside a write (docs/profiles.md "On write"): a batch observer
/// (write/commit_hooks.h) that profiles every conformed batch as it streams to the data
/// files, so the profile costs no second read. The write takes the profile after its
/// commit and stores it with the committed version (table/profiles.h).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

#include "deltaguard/protocol/metadata.h"
#include "deltaguard/quality/profile.h"
#include "deltaguard/write/commit_hooks.h"

namespace deltaguard {

/// Whether writes to a table with `metadata` keep profiles (the table property
/// `deltaguard.profiles` is "true"; docs/profiles.md).
bool ProfilesEnabled(const Metadata& metadata);

class ProfileObserver final : public BatchObserver {
 public:
  std::string_view name() const override { return "profile"; }
  /// Adds the batch to the profile; never changes it. Safe from several threads.
  Status OnBatch(std::shared_ptr<arrow::RecordBatch>* batch,
                 const BatchInfo& info) override;
  /// The profile of every batch seen so far (an empty one, 0 rows, when none was); the
  /// observer stays as it is (a write's data tests look before the commit, the profile
  /// is stored after it).
  TableProfile Take();

 private:
  std::mutex mutex_;
  std::optional<Profiler> profiler_;
};

}  // namespace deltaguard
