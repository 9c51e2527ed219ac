/// \file deltaguard/quality/detectors.h
/// Semantic-drift detectors (docs/data_tests.md "Detectors"): pure functions from a
/// commit's profile and a baseline of earlier profiles to findings. They catch what no
/// schema check sees: a column turning NULL, cents becoming dollars, UTC becoming local
/// time, a new status value, ISO codes becoming names, a distribution that moved, a
/// load that lost a third of its rows.
///
/// Defaults (each documented with its reason in docs/data_tests.md):
///  - NULL_RATE_SHIFT: the null rate moved by >= 3 points and by more than 3 standard
///    deviations of the baseline commits' rates; fail when the column turned (almost)
///    all-NULL (>= 95% from <= 50%), else warn.
///  - SCALE_SHIFT: p50 and p90 (and p25/p75 when non-zero) all moved by the same power
///    of ten 10^k, |k| in 1..3, within 25%; fail, naming the factor.
///  - TIME_OFFSET_SHIFT: the hour-of-day histogram rotated by h hours fits the baseline
///    at most half as far (total variation) as unrotated, which is >= 0.10 away; fail,
///    naming the hours.
///  - NEW_CATEGORY / CATEGORY_DROPPED: for a categorical column (baseline distinct <= 50,
///    top values covering >= 99% of it), a value with >= 0.5% of the rows never seen,
///    or one with >= 5% of the baseline gone; warn.
///  - FORMAT_DRIFT: the character-class pattern mix moved by a total variation >= 0.5;
///    warn, naming the main pattern before and after.
///  - DISTRIBUTION_SHIFT: population stability index over the baseline's deciles >= 0.25
///    (and no SCALE_SHIFT of the column); warn.
///  - VOLUME_ANOMALY: the commit's row count is >= 18% away from the baseline median and
///    more than 3 robust standard deviations (MAD) of log rows; with two weeks of daily
///    commits the baseline is the same weekday's and the spread the day-to-day noise
///    with the weekly pattern taken out; warn.
/// A detector needs enough data to speak (>= 3 baseline commits for rates and volume,
/// >= 100 values on each side for distributions); otherwise it is skipped, not passed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/quality/check_outcome.h"
#include "deltaguard/quality/profile.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// Which earlier commits form the baseline.
struct BaselineSpec {
  enum class Kind : uint8_t { kCommits, kDuration };
  Kind kind = Kind::kCommits;
  int64_t commits = 14;          ///< trailing commits (kCommits)
  int64_t duration_ms = 0;       ///< trailing time before the commit (kDuration)
  std::string ToString() const;  ///< "trailing:14" / "trailing:7d"
};

/// "trailing:N" (commits) or "trailing:<n>d|h" (days or hours). Default: trailing:14.
Result<BaselineSpec> ParseBaselineSpec(std::string_view text);

/// The commits before `current` the spec selects from `history` (any order; profiles
/// with rows only), oldest first.
std::vector<const TableProfile*> SelectBaseline(const std::vector<TableProfile>& history,
                                                const TableProfile& current,
                                                const BaselineSpec& spec);

/// One detector's verdict on one column (or the table, column "").
struct Finding {
  std::string test;    ///< "NULL_RATE_SHIFT", ...
  std::string column;  ///< "" for table-level detectors
  CheckOutcome outcome = CheckOutcome::kPassed;
  std::string observed;                   ///< "null rate 98.0%"
  std::string baseline;                   ///< "null rate 1.0% (7 commits)"
  std::string threshold;                  ///< ">= 5 points and > 3 sd"
  std::string message;                    ///< one sentence for people
  std::vector<std::string> values;        ///< new or dropped categories, patterns
  std::optional<double> factor;           ///< SCALE_SHIFT
  std::optional<int> hours;               ///< TIME_OFFSET_SHIFT
  std::optional<int64_t> violating_rows;  ///< row tests: rows breaking the test
  std::string location;                   ///< where the test is defined ("t.yml:12")
};

/// Tunables of the default detectors (the defaults above).
struct DetectorOptions {
  double null_rate_points = 0.03;
  double sigmas = 3.0;
  double scale_tolerance = 0.25;
  double time_tv_min = 0.10;
  double new_category_share = 0.005;
  double dropped_category_share = 0.05;
  int64_t categorical_max_distinct = 50;
  double format_tv = 0.5;
  double psi = 0.25;
  double volume_change = 0.18;
  int64_t min_values = 100;
  int64_t min_commits = 3;
};

/// Every default detector on every column of `current` against `baseline` (the commits
/// SelectBaseline chose). Passed and skipped findings are included, so a report can
/// say what was checked.
std::vector<Finding> RunDetectors(const TableProfile& current,
                                  const std::vector<const TableProfile*>& baseline,
                                  const DetectorOptions& options = {});

/// The detectors of one column (RunDetectors without VOLUME_ANOMALY).
std::vector<Finding> RunColumnDetectors(const ColumnProfile& current,
                                        const std::vector<const TableProfile*>& baseline,
                                        const DetectorOptions& options = {});

/// VOLUME_ANOMALY alone.
Finding RunVolumeDetector(const TableProfile& current,
                          const std::vector<const TableProfile*>& baseline,
                          const DetectorOptions& options = {});

}  // namespace deltaguard
