#include "deltaguard/protocol/table_properties.h"

#include <charconv>
#include <string>

#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Result<std::optional<int64_t>> GetLongProperty(const Metadata& metadata,
                                               std::string_view key) {
  std::optional<std::string> raw = metadata.GetConfig(key);
  if (!raw) return std::optional<int64_t>();
  std::string_view v = TrimBlanks(*raw);
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (v.empty() || ec != std::errc() || ptr != v.data() + v.size()) {
    return MakeError(ErrorCode::kCorruptLog,
                     "table property '{}' must be an integer, found '{}'", key, *raw);
  }
  return std::optional<int64_t>(out);
}

}  // namespace

std::string_view ColumnMappingModeName(ColumnMappingMode mode) {
  switch (mode) {
    case ColumnMappingMode::kNone:
      return "none";
    case ColumnMappingMode::kName:
      return "name";
    case ColumnMappingMode::kId:
      return "id";
  }
  return "none";
}

Result<ColumnMappingMode> GetColumnMappingMode(const Metadata& metadata) {
  std::optional<std::string> raw = metadata.GetConfig(kColumnMappingModeProperty);
  if (!raw) return ColumnMappingMode::kNone;
  std::string_view v = TrimBlanks(*raw);
  if (EqualsIgnoreCase(v, "none")) return ColumnMappingMode::kNone;
  if (EqualsIgnoreCase(v, "name")) return ColumnMappingMode::kName;
  if (EqualsIgnoreCase(v, "id")) return ColumnMappingMode::kId;
  return MakeError(
      ErrorCode::kCorruptLog,
      "table property '{}' has invalid value '{}' (expected none, name or id)",
      kColumnMappingModeProperty, *raw);
}

Result<bool> ParseBoolProperty(std::string_view key, std::string_view value) {
  std::string_view v = TrimBlanks(value);
  if (EqualsIgnoreCase(v, "true")) return true;
  if (EqualsIgnoreCase(v, "false")) return false;
  return MakeError(ErrorCode::kCorruptLog,
                   "table property '{}' must be true or false, found '{}'", key, value);
}

Result<InCommitTimestampConfig> GetInCommitTimestampConfig(const Metadata& metadata) {
  InCommitTimestampConfig config;
  if (std::optional<std::string> raw =
          metadata.GetConfig(kEnableInCommitTimestampsProperty)) {
    DELTA_ASSIGN_OR_RETURN(config.enabled,
                           ParseBoolProperty(kEnableInCommitTimestampsProperty, *raw));
  }
  DELTA_ASSIGN_OR_RETURN(
      config.enablement_version,
      GetLongProperty(metadata, kInCommitTimestampEnablementVersionProperty));
  DELTA_ASSIGN_OR_RETURN(
      config.enablement_timestamp,
      GetLongProperty(metadata, kInCommitTimestampEnablementTimestampProperty));
  return config;
}

}  // namespace deltaguard
