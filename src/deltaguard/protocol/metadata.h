/// \file deltaguard/protocol/metadata.h
/// The `metaData` action (PROTOCOL.md "Change Metadata") as a plain value, with
/// case-insensitive access to table properties (digest §6.13).
///
/// Defined here rather than in log/actions.h so that protocol-level helpers (column
/// mapping mode, in-commit timestamps) can read table properties without depending on
/// the log layer; log/actions.h re-exports it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltaguard/util/string_util.h"

namespace deltaguard {

/// Ordered string map (JSON object with string values): configuration, tags, options.
using StringMap = std::vector<std::pair<std::string, std::string>>;

/// The value of `key` in `map`, comparing keys case-insensitively; the first match wins.
std::optional<std::string> FindIgnoreCase(const StringMap& map, std::string_view key);

/// The map as JSON object text, in order: {"k":"v",...} (commitInfo parameters,
/// DESCRIBE DETAIL properties).
std::string StringMapToJson(const StringMap& map);

struct Format {
  std::string provider = "parquet";
  StringMap options;
};

struct Metadata {
  std::string id;
  std::optional<std::string> name;
  std::optional<std::string> description;
  Format format;
  /// Spark StructType JSON. Empty when the action had no schemaString (seen in
  /// Databricks DLT logs); a snapshot whose latest metadata lacks it is corrupt.
  std::string schema_string;
  std::vector<std::string> partition_columns;
  StringMap configuration;
  std::optional<int64_t> created_time;

  /// Value of a configuration key (case-insensitive, PROTOCOL digest §6.13).
  std::optional<std::string> GetConfig(std::string_view key) const;
};

}  // namespace deltaguard
