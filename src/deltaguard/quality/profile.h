/// \file deltaguard/quality/profile.h
/// Column profiles (docs/profiles.md): what a commit's rows look like, per column and
/// nested leaf, computed in the same pass as the write from Arrow batches and merged
/// across batches, files and commits.
///
/// Per leaf (struct fields by their dotted path; array elements as `<path>.element`,
/// map keys and values as `<path>.key` / `<path>.value`):
///  - exact over every value: rows, nulls; for numbers (integers, floats, decimals,
///    dates as days since the epoch, timestamps as microseconds) min, max, mean and
///    variance (Chan's pairwise update, so merging is exact) and zeros; for strings the
///    shortest, longest and mean length (in bytes) and the smallest and largest value;
///  - over a systematic sample of at most kSketchValuesPerBatch values per batch (each
///    sampled value standing for the stride it samples): the sketches
///    (quality/sketches.h: quantiles, distinct count, top values of strings and
///    booleans, character-class patterns of strings) and, for timestamps, the
///    hour-of-day histogram (24 bins, of the stored instant: UTC for TIMESTAMP, the wall
///    clock for TIMESTAMP_NTZ).
/// A character-class pattern maps upper-case ASCII letters to `A`, lower-case to `a`,
/// digits to `9`, other bytes to themselves, and collapses a run of one class to the
/// class and `+` ("US" -> "A+", "United States" -> "Aa+ Aa+", "2024-01-05" ->
/// "9+-9+-9+"); a value longer than 64 bytes has the pattern of its first 64.
#pragma once

#include <arrow/record_batch.h>

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "deltaguard/quality/sketches.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// Values per batch and leaf the sampled sketches see (stride = ceil(rows / this)).
inline constexpr int64_t kSketchValuesPerBatch = 1024;
/// The weighted sketches (top values, patterns, hours of day) see every one of a leaf's
/// first this many values before they sample.
inline constexpr int64_t kExactValues = 65536;

/// What kind of values a leaf holds, for the statistics that apply.
enum class ProfileKind : uint8_t {
  kNumber,
  kTimestamp,
  kDate,
  kString,
  kBoolean,
  kOther
};

std::string_view ProfileKindName(ProfileKind kind);

struct ColumnProfile {
  std::string column;  ///< dotted leaf path
  std::string type;    ///< the Arrow type, as text ("int64", "timestamp[us, tz=UTC]")
  ProfileKind kind = ProfileKind::kOther;
  int64_t rows = 0;
  int64_t nulls = 0;

  // Numbers, dates and timestamps (as double: days, microseconds).
  int64_t numeric_count = 0;
  double min = std::numeric_limits<double>::quiet_NaN();
  double max = std::numeric_limits<double>::quiet_NaN();
  double mean = 0;
  double m2 = 0;  ///< sum of squared deviations from the mean
  int64_t zeros = 0;
  std::array<int64_t, 24> hours{};  ///< timestamps only
  /// NULLs the write's casts introduced (a contract's castPolicy try): values that
  /// arrived and did not survive the cast. 0 when nothing was cast.
  int64_t cast_nulls = 0;

  // Strings.
  int64_t min_length = -1;
  int64_t max_length = -1;
  int64_t total_length = 0;
  std::string min_text;
  std::string max_text;

  int64_t sampled = 0;  ///< values the sampled sketches saw
  QuantileSketch quantiles;
  DistinctSketch distinct;
  TopValuesSketch top;
  TopValuesSketch patterns;

  ColumnProfile() = default;
  ColumnProfile(ColumnProfile&&) noexcept = default;
  ColumnProfile& operator=(ColumnProfile&&) noexcept = default;
  ColumnProfile Clone() const;

  int64_t non_null() const { return rows - nulls; }
  double null_rate() const { return rows > 0 ? static_cast<double>(nulls) / rows : 0.0; }
  double variance() const { return numeric_count > 1 ? m2 / (numeric_count - 1) : 0.0; }
  double stddev() const;
  double mean_length() const;
  bool has_hours() const { return kind == ProfileKind::kTimestamp; }

  /// Adds `other` (the same leaf over other rows). kInvalidArgument when the kinds
  /// differ (a type change between the profiled commits).
  /// `distinct` false leaves the distinct-count sketch as it is (a baseline that never
  /// asks for it: union of hundreds of sketches is the costly part of a merge).
  Status Merge(const ColumnProfile& other, bool distinct = true);
};

/// The profile of a set of rows: a commit's added rows (`version` >= 0) or any batch.
struct TableProfile {
  int64_t version = -1;
  int64_t timestamp_ms = 0;  ///< the commit's time
  std::string operation;     ///< the commit's operation ("WRITE", "MERGE", ...)
  int64_t rows = 0;
  std::vector<ColumnProfile> columns;

  TableProfile() = default;
  TableProfile(TableProfile&&) noexcept = default;
  TableProfile& operator=(TableProfile&&) noexcept = default;
  TableProfile Clone() const;

  const ColumnProfile* Column(std::string_view path) const;  ///< case-insensitive
  /// Adds `other`'s rows: columns matched by path, new ones appended.
  Status Merge(const TableProfile& other);
};

/// Records the NULLs a write's casts introduced (`column`, count) on the profile's
/// columns of those names (case-insensitive, as Delta matches columns).
void AddCastNulls(const std::vector<std::pair<std::string, int64_t>>& cast_nulls,
                  TableProfile* profile);

/// Builds a TableProfile from batches of one schema. Not thread-safe: a writer with
/// several threads keeps one Profiler each and merges them (TableProfile::Merge).
class Profiler {
 public:
  /// `schema` is the batches' schema.
  static Result<Profiler> Make(std::shared_ptr<arrow::Schema> schema);
  Profiler(Profiler&&) noexcept;
  Profiler& operator=(Profiler&&) noexcept;
  ~Profiler();

  /// Adds a batch (its schema must equal the one given to Make, by field names).
  Status Add(const arrow::RecordBatch& batch);
  /// The profile of every row added so far (the Profiler stays usable).
  TableProfile Snapshot() const;

 private:
  struct Impl;
  explicit Profiler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// The profile of `batches` (one schema): what `dg.profile(data)` and tests use.
Result<TableProfile> ProfileBatches(
    const std::shared_ptr<arrow::Schema>& schema,
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches);

/// The character-class pattern of `value` (see the file comment).
std::string CharacterPattern(std::string_view value);

}  // namespace deltaguard
