/// \file deltaguard/protocol/table_properties.h
/// Typed access to the table properties (metaData.configuration) that change how the log
/// and data are read: column mapping mode (PROTOCOL.md "Column Mapping") and in-commit
/// timestamps (PROTOCOL.md "In-Commit Timestamps"). Keys compare case-insensitively.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "deltaguard/protocol/metadata.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

inline constexpr std::string_view kColumnMappingModeProperty = "delta.columnMapping.mode";
inline constexpr std::string_view kEnableInCommitTimestampsProperty =
    "delta.enableInCommitTimestamps";
inline constexpr std::string_view kInCommitTimestampEnablementVersionProperty =
    "delta.inCommitTimestampEnablementVersion";
inline constexpr std::string_view kInCommitTimestampEnablementTimestampProperty =
    "delta.inCommitTimestampEnablementTimestamp";

enum class ColumnMappingMode : uint8_t { kNone, kName, kId };

/// "none", "name" or "id".
std::string_view ColumnMappingModeName(ColumnMappingMode mode);

/// `delta.columnMapping.mode` (absent ⇒ kNone; values case-insensitive as in Spark).
/// Any other value is kCorruptLog naming the value.
Result<ColumnMappingMode> GetColumnMappingMode(const Metadata& metadata);

/// Parse a boolean property value ("true"/"false", case-insensitive, surrounding
/// whitespace allowed). kCorruptLog naming the key otherwise.
Result<bool> ParseBoolProperty(std::string_view key, std::string_view value);

/// In-commit timestamp settings. When enabled, commits at versions >= enablement_version
/// carry commitInfo.inCommitTimestamp, which is then the commit's timestamp; earlier
/// commits use the commit file's modification time.
struct InCommitTimestampConfig {
  bool enabled = false;
  /// First version with in-commit timestamps; nullopt when the property is absent, which
  /// means enabled since table creation (version 0).
  std::optional<int64_t> enablement_version;
  std::optional<int64_t> enablement_timestamp;

  /// True when version `v` has an in-commit timestamp under this config.
  bool AppliesTo(int64_t v) const {
    return enabled && v >= enablement_version.value_or(0);
  }
};

/// Read the in-commit timestamp properties; malformed values are kCorruptLog.
Result<InCommitTimestampConfig> GetInCommitTimestampConfig(const Metadata& metadata);

}  // namespace deltaguard
