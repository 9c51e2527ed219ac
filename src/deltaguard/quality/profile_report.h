/// \file deltaguard/quality/profile_report.h
/// How profiles are shown (docs/profiles.md "Reading profiles"): the JSON every front
/// end gives (`deltaguard profile --show --format json`, Python's Profile.to_dict())
/// and the text table of the CLI.
///
/// JSON of one profile: {"version", "timestamp" (ms), "operation", "rows", "columns":
/// {path: {"type", "kind", "rows", "nulls", "null_rate", "min", "max", "mean",
/// "stddev", "zeros", "quantiles": {"p01", "p05", "p25", "p50", "p75", "p95", "p99"},
/// "distinct", "top": [{"value", "count"}], "hours": [24 counts], "length": {"min",
/// "max", "mean"}, "patterns": [{"value", "count"}], "min_text", "max_text",
/// "sampled"}}}; members that do not apply to a kind are left out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "deltaguard/quality/profile.h"

namespace deltaguard {

/// Top values and patterns listed per column.
inline constexpr size_t kProfileTopValues = 10;

std::string ProfileToJson(const TableProfile& profile,
                          const std::optional<std::string>& column = std::nullopt);

/// `[profile, ...]` as ProfileToJson.
std::string ProfilesToJson(const std::vector<TableProfile>& profiles,
                           const std::optional<std::string>& column = std::nullopt);

/// One block per version: a line naming it, then a row per column (rows, null %, min,
/// p50, max, mean, distinct, top values).
std::string ProfilesToText(const std::vector<TableProfile>& profiles,
                           const std::optional<std::string>& column = std::nullopt);

}  // namespace deltaguard
