#include "deltaguard/protocol/metadata.h"

namespace deltaguard {

std::optional<std::string> FindIgnoreCase(const StringMap& map, std::string_view key) {
  for (const auto& [k, v] : map) {
    if (EqualsIgnoreCase(k, key)) return v;
  }
  return std::nullopt;
}

std::string StringMapToJson(const StringMap& map) {
  std::string out = "{";
  for (size_t i = 0; i < map.size(); ++i) {
    if (i > 0) out += ",";
    AppendJsonString(&out, map[i].first);
    out += ":";
    AppendJsonString(&out, map[i].second);
  }
  return out + "}";
}

std::optional<std::string> Metadata::GetConfig(std::string_view key) const {
  return FindIgnoreCase(configuration, key);
}

}  // namespace deltaguard
