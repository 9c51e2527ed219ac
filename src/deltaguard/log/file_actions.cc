// Helpers on file actions: the deletion vector's replay key and numRecords from stats.

#include "deltaguard/log/actions.h"
#include "deltaguard/log/add_stats.h"

namespace deltaguard {

std::string DeletionVectorDescriptor::UniqueId() const {
  std::string id;
  id.reserve(1 + path_or_inline_dv.size() + (offset ? 12 : 0));
  id.push_back(storage_type);
  id.append(path_or_inline_dv);
  if (offset) {
    id.push_back('@');
    id.append(std::to_string(*offset));
  }
  return id;
}

std::optional<int64_t> AddFile::NumRecords() const {
  if (!stats || stats->empty()) return std::nullopt;
  auto parsed = ParseAddStats(*stats, StatsScope::kNumRecords);
  return parsed ? parsed->num_records : std::nullopt;
}

}  // namespace deltaguard
