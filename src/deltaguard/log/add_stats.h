/// \file deltaguard/log/add_stats.h
/// The one reader of the per-file statistics an `add` (or `remove`) action carries in
/// its `stats` string (PROTOCOL.md "Per-file Statistics"): numRecords, minValues,
/// maxValues, nullCount and tightBounds, as typed values keyed by physical column path.
///
/// Statistics are advisory: a reader must never fail because they are corrupt (Spark
/// ignores stats it cannot parse and reads the file). So every caller treats an error
/// from ParseAddStats, or a missing or ill-typed value, as "unknown", and decides as it
/// would without statistics (keep the file, open its footer, leave the count out).
///
/// Reading rules, the same as a RapidJSON DOM lookup of the text would give:
/// - the text must be one JSON object nested at most kMaxJsonDepth deep, else an error;
/// - the first occurrence of a key wins; a repeated key is ignored with all under it;
/// - a section (minValues, ...) that is not an object holds no columns;
/// - numRecords counts only as an integer within int64; tightBounds only as a boolean.
/// The writer of these statistics is io/parquet/file_stats.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "deltaguard/util/result.h"

namespace deltaguard {

/// JSON `null` as a statistics value.
struct StatNull {
  bool operator==(const StatNull&) const = default;
};

/// An object or array where a leaf value was expected. An object's members are
/// recorded under the longer paths (a struct column's fields); an array's elements are
/// not recorded.
struct StatNested {
  bool operator==(const StatNested&) const = default;
};

/// One value of minValues/maxValues/nullCount as written. An integer that does not fit
/// int64 is kept as a double, as are all JSON numbers with a fraction or exponent.
using StatValue = std::variant<StatNull, bool, int64_t, double, std::string, StatNested>;

/// The statistics of one column (one path), each present when the section has the key.
struct ColumnStats {
  std::optional<StatValue> min;
  std::optional<StatValue> max;
  std::optional<StatValue> null_count;

  /// `v` as an int64, when it is present and an integer.
  static std::optional<int64_t> Int(const std::optional<StatValue>& v);
};

/// Column path in the stats JSON: physical names from the top-level column down.
using StatsPath = std::vector<std::string>;

/// The parsed `stats` of one file.
struct AddStats {
  std::optional<int64_t> num_records;
  std::optional<bool> tight_bounds;
  std::map<StatsPath, ColumnStats> columns;

  /// The statistics of the column at `path`, or nullptr when no section names it.
  const ColumnStats* Find(const StatsPath& path) const;
};

/// How much of the stats to read.
enum class StatsScope {
  kAll,         ///< every section; the whole text must be valid JSON
  kNumRecords,  ///< stop at the top-level numRecords; what follows is not validated
};

/// Parse the `stats` string of an add or remove action. Errors (kCorruptLog): text that
/// is not JSON, not an object, or nested deeper than kMaxJsonDepth (kAll only; with
/// kNumRecords only the text before numRecords is read, and an error means numRecords
/// was not reached).
Result<AddStats> ParseAddStats(std::string_view json,
                               StatsScope scope = StatsScope::kAll);

}  // namespace deltaguard
