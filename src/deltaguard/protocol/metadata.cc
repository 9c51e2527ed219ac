#include "deltaguard/protocol/metadata.h"

namespace deltaguard {

std::optional<std::string> FindIgnoreCase(const StringMap& map, std::string_view key) {
  for (const auto& [k, v] : map) {
    if (EqualsIgnoreCase(k, key)) return v;
  }
  return std::nullopt;
}

std::optional<std::string> Metadata::GetConfig(std::string_view key) const {
  return FindIgnoreCase(configuration, key);
}

}  // namespace deltaguard
