// The default semantic-drift detectors (quality/detectors.h). Each is a pure function
// of the current profile and the baseline commits' profiles.

#include "deltaguard/quality/detectors.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

constexpr int64_t kMillisPerHour = 3600LL * 1000;
constexpr int64_t kMillisPerDay = 24 * kMillisPerHour;

double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double StdDev(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

std::string Percent(double share) { return fmt::format("{:.1f}%", share * 100.0); }

Finding Make(std::string test, const std::string& column) {
  Finding f;
  f.test = std::move(test);
  f.column = column;
  return f;
}

Finding Skipped(std::string test, const std::string& column, std::string why) {
  Finding f = Make(std::move(test), column);
  f.outcome = CheckOutcome::kSkipped;
  f.message = std::move(why);
  return f;
}

// The baseline's profiles of one column, merged, and each commit's own.
struct ColumnBaseline {
  ColumnProfile merged;
  std::vector<const ColumnProfile*> commits;
};

std::optional<ColumnBaseline> BaselineOf(const std::string& column,
                                         const std::vector<const TableProfile*>& base) {
  ColumnBaseline out;
  for (const TableProfile* t : base) {
    const ColumnProfile* c = t->Column(column);
    if (c == nullptr || c->rows == 0) continue;
    if (!out.commits.empty() && c->kind != out.merged.kind) continue;  // a type change
    // Only the category detectors read the baseline's distinct count.
    const bool distinct =
        c->kind == ProfileKind::kString || c->kind == ProfileKind::kBoolean;
    if (out.commits.empty()) {
      out.merged = c->Clone();
    } else if (!out.merged.Merge(*c, distinct)) {
      continue;
    }
    out.commits.push_back(c);
  }
  if (out.commits.empty()) return std::nullopt;
  return out;
}

// ------------------------------------------------------------- NULL_RATE_SHIFT
Finding NullRate(const ColumnProfile& cur, const ColumnBaseline& b,
                 const DetectorOptions& o) {
  Finding f = Make("NULL_RATE_SHIFT", cur.column);
  std::vector<double> rates;
  for (const ColumnProfile* c : b.commits) rates.push_back(c->null_rate());
  const double base = b.merged.null_rate();
  const double now = cur.null_rate();
  const double sd = StdDev(rates);
  f.observed = "null rate " + Percent(now);
  f.baseline = fmt::format("null rate {} ({} commits, sd {:.1f} points)", Percent(base),
                           b.commits.size(), sd * 100);
  f.threshold = fmt::format("moved >= {:.0f} points and > {:.0f} sd",
                            o.null_rate_points * 100, o.sigmas);
  const double moved = std::abs(now - base);
  if (moved >= o.null_rate_points && moved > o.sigmas * sd) {
    const bool all_null = now >= 0.95 && base <= 0.5;
    f.outcome = all_null ? CheckOutcome::kFailed : CheckOutcome::kWarning;
    f.message = all_null
                    ? fmt::format(
                          "'{}' turned (almost) all-NULL: {} of the rows, against {} "
                          "before (a renamed or dropped source field?)",
                          cur.column, Percent(now), Percent(base))
                    : fmt::format("the null rate of '{}' moved from {} to {}", cur.column,
                                  Percent(base), Percent(now));
  } else {
    f.message = "null rate within the baseline";
  }
  return f;
}

// ------------------------------------------------------------- SCALE_SHIFT
// log10 of cur/base for a pair of quantiles of the same sign; nullopt otherwise.
std::optional<double> LogRatio(double cur, double base) {
  if (!std::isfinite(cur) || !std::isfinite(base) || cur == 0 || base == 0) {
    return std::nullopt;
  }
  if ((cur > 0) != (base > 0)) return std::nullopt;
  return std::log10(std::abs(cur) / std::abs(base));
}

// True when every commit's values (the baseline's, oldest first, then the current's)
// lie at or above the largest value of the commit before: a sequence number, an
// auto-increment key, a load date. Such a column moves by design; its distribution is
// no baseline for the next commit.
bool Ascending(const ColumnProfile& cur, const ColumnBaseline& b) {
  if (b.commits.size() < 2) return false;
  double last_max = -std::numeric_limits<double>::infinity();
  for (const ColumnProfile* c : b.commits) {
    if (std::isnan(c->min) || c->min < last_max) return false;
    last_max = c->max;
  }
  return !std::isnan(cur.min) && cur.min >= last_max;
}

Finding Scale(const ColumnProfile& cur, const ColumnBaseline& b,
              const DetectorOptions& o) {
  Finding f = Make("SCALE_SHIFT", cur.column);
  const double p50 = cur.quantiles.Quantile(0.5), b50 = b.merged.quantiles.Quantile(0.5);
  const double p90 = cur.quantiles.Quantile(0.9), b90 = b.merged.quantiles.Quantile(0.9);
  f.observed = fmt::format("p50 {:.6g}, p90 {:.6g}", p50, p90);
  f.baseline = fmt::format("p50 {:.6g}, p90 {:.6g}", b50, b90);
  f.threshold = fmt::format("every quantile x 10^k (|k| 1..3) within {:.0f}%",
                            o.scale_tolerance * 100);
  f.message = "no change of scale";
  auto r50 = LogRatio(p50, b50);
  auto r90 = LogRatio(p90, b90);
  if (!r50 || !r90) return f;
  const double k = std::round(*r50);
  if (k == 0 || std::abs(k) > 3) return f;
  const double tol = std::log10(1 + o.scale_tolerance);
  auto near = [&](std::optional<double> r) { return r && std::abs(*r - k) <= tol; };
  if (!near(r50) || !near(r90)) return f;
  // The other quartiles agree when they can be compared (non-zero on both sides).
  for (double rank : {0.25, 0.75}) {
    auto r = LogRatio(cur.quantiles.Quantile(rank), b.merged.quantiles.Quantile(rank));
    if (r && !near(r)) return f;
  }
  const double factor = std::pow(10.0, k);
  f.outcome = CheckOutcome::kFailed;
  f.factor = factor;
  f.message = fmt::format(
      "'{}' changed scale: values are {:g}x what they were (p50 {:.6g} -> {:.6g}); a "
      "unit change such as cents to dollars or seconds to milliseconds?",
      cur.column, factor, b50, p50);
  return f;
}

// ------------------------------------------------------------- TIME_OFFSET_SHIFT
std::array<double, 24> Shares(const std::array<int64_t, 24>& hours) {
  std::array<double, 24> out{};
  double total = 0;
  for (auto h : hours) total += static_cast<double>(h);
  if (total == 0) return out;
  for (size_t i = 0; i < 24; ++i) out[i] = static_cast<double>(hours[i]) / total;
  return out;
}

// Total variation between the baseline and the current histogram moved back by `shift`
// hours (current hour (i + shift) compared with baseline hour i).
double Tv(const std::array<double, 24>& base, const std::array<double, 24>& cur,
          int shift) {
  double tv = 0;
  for (int i = 0; i < 24; ++i) {
    tv += std::abs(base[static_cast<size_t>(i)] -
                   cur[static_cast<size_t>(((i + shift) % 24 + 24) % 24)]);
  }
  return tv / 2;
}

Finding TimeOffset(const ColumnProfile& cur, const ColumnBaseline& b,
                   const DetectorOptions& o) {
  Finding f = Make("TIME_OFFSET_SHIFT", cur.column);
  const auto base = Shares(b.merged.hours);
  const auto now = Shares(cur.hours);
  const double tv0 = Tv(base, now, 0);
  int best = 0;
  double best_tv = tv0;
  for (int h = -12; h <= 12; ++h) {
    const double tv = Tv(base, now, h);
    if (tv < best_tv - 1e-12) {
      best_tv = tv;
      best = h;
    }
  }
  f.observed = fmt::format("hour-of-day histogram {:.2f} away (total variation)", tv0);
  f.baseline = fmt::format("{} commits", b.commits.size());
  f.threshold =
      fmt::format("a shift fitting >= 2x better, from >= {:.2f} away", o.time_tv_min);
  f.message = "hours of day as before";
  if (best != 0 && tv0 >= o.time_tv_min && best_tv < 0.5 * tv0) {
    f.outcome = CheckOutcome::kFailed;
    f.hours = best;
    f.observed += fmt::format("; {:.2f} after shifting {:+d} h", best_tv, best);
    f.message = fmt::format(
        "the times of day in '{}' moved by {:+d} hours (a time zone change: local time "
        "written as UTC, or the reverse?)",
        cur.column, best);
  }
  return f;
}

// ------------------------------------------------------------- categories
std::map<std::string, int64_t> TopMap(const TopValuesSketch& s) {
  std::map<std::string, int64_t> out;
  for (const auto& t : s.Top(96)) out[t.value] = t.count;
  return out;
}

std::vector<Finding> Categories(const ColumnProfile& cur, const ColumnBaseline& b,
                                const DetectorOptions& o) {
  std::vector<Finding> out;
  const double distinct = b.merged.distinct.Estimate();
  const auto base = TopMap(b.merged.top);
  int64_t covered = 0;
  for (const auto& [v, n] : base) covered += n;
  const double base_total = static_cast<double>(b.merged.top.total_weight());
  if (distinct > static_cast<double>(o.categorical_max_distinct) || base_total <= 0 ||
      static_cast<double>(covered) < 0.99 * base_total) {
    out.push_back(
        Skipped("NEW_CATEGORY", cur.column,
                fmt::format("not categorical (about {:.0f} distinct values)", distinct)));
    return out;
  }
  const double cur_total = static_cast<double>(cur.top.total_weight());
  const auto now = TopMap(cur.top);
  Finding added = Make("NEW_CATEGORY", cur.column);
  added.threshold =
      fmt::format("a value with >= {} of the rows", Percent(o.new_category_share));
  added.baseline = fmt::format("{} values seen", base.size());
  for (const auto& [v, n] : now) {
    if (!base.count(v) && cur_total > 0 &&
        static_cast<double>(n) / cur_total >= o.new_category_share) {
      added.values.push_back(v);
    }
  }
  added.observed = fmt::format("{} values", now.size());
  if (!added.values.empty()) {
    added.outcome = CheckOutcome::kWarning;
    added.message =
        fmt::format("'{}' has value{} never seen before: {}", cur.column,
                    added.values.size() == 1 ? "" : "s", fmt::join(added.values, ", "));
  } else {
    added.message = "no new values";
  }
  out.push_back(std::move(added));
  Finding dropped = Make("CATEGORY_DROPPED", cur.column);
  dropped.threshold = fmt::format("a value with >= {} of the baseline gone",
                                  Percent(o.dropped_category_share));
  dropped.baseline = added.baseline;
  dropped.observed = fmt::format("{} values", now.size());
  if (cur.non_null() >= o.min_values) {
    for (const auto& [v, n] : base) {
      if (static_cast<double>(n) / base_total >= o.dropped_category_share &&
          !now.count(v)) {
        dropped.values.push_back(v);
      }
    }
  }
  if (!dropped.values.empty()) {
    dropped.outcome = CheckOutcome::kWarning;
    dropped.message =
        fmt::format("'{}' no longer has {}", cur.column, fmt::join(dropped.values, ", "));
  } else {
    dropped.message = "every common value still present";
  }
  out.push_back(std::move(dropped));
  return out;
}

// ------------------------------------------------------------- FORMAT_DRIFT
// A pattern with every class run written as `<class>+`, whatever its length: "a9_9+"
// and "a9+_9+" are the same format (an ID whose counter gained a digit), while "A+"
// and "Aa+ Aa+" (codes turned into names) stay apart.
std::string RunsOnly(std::string_view pattern) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    out += c;
    const bool cls = c == 'A' || c == 'a' || c == '9';
    if (cls && (i + 1 >= pattern.size() || pattern[i + 1] != '+')) out += '+';
  }
  return out;
}

std::map<std::string, int64_t> PatternMap(const TopValuesSketch& s) {
  std::map<std::string, int64_t> out;
  for (const auto& [k, v] : TopMap(s)) out[RunsOnly(k)] += v;
  return out;
}

Finding Format(const ColumnProfile& cur, const ColumnBaseline& b,
               const DetectorOptions& o) {
  Finding f = Make("FORMAT_DRIFT", cur.column);
  const auto base = PatternMap(b.merged.patterns);
  const auto now = PatternMap(cur.patterns);
  const double bt = static_cast<double>(b.merged.patterns.total_weight());
  const double ct = static_cast<double>(cur.patterns.total_weight());
  std::set<std::string> keys;
  for (const auto& [k, v] : base) keys.insert(k);
  for (const auto& [k, v] : now) keys.insert(k);
  double tv = 0;
  for (const auto& k : keys) {
    const double pb = base.count(k) ? static_cast<double>(base.at(k)) / bt : 0;
    const double pc = now.count(k) ? static_cast<double>(now.at(k)) / ct : 0;
    tv += std::abs(pb - pc);
  }
  tv /= 2;
  auto main_pattern = [](const TopValuesSketch& s) {
    auto top = s.Top(1);
    return top.empty() ? std::string("-") : top[0].value;
  };
  f.observed = fmt::format(
      "patterns {:.2f} away (total variation); mostly '{}', length "
      "{:.1f}",
      tv, main_pattern(cur.patterns), cur.mean_length());
  f.baseline = fmt::format("mostly '{}', length {:.1f}", main_pattern(b.merged.patterns),
                           b.merged.mean_length());
  f.threshold = fmt::format("total variation >= {:.2f}", o.format_tv);
  f.message = "the values' format as before";
  if (tv >= o.format_tv) {
    f.outcome = CheckOutcome::kWarning;
    f.values = {main_pattern(b.merged.patterns), main_pattern(cur.patterns)};
    f.message = fmt::format(
        "the format of '{}' changed: mostly '{}' (mean length {:.1f}) became mostly '{}' "
        "(mean length {:.1f})",
        cur.column, f.values[0], b.merged.mean_length(), f.values[1], cur.mean_length());
  }
  return f;
}

// ------------------------------------------------------------- DISTRIBUTION_SHIFT
Finding Distribution(const ColumnProfile& cur, const ColumnBaseline& b,
                     const DetectorOptions& o) {
  Finding f = Make("DISTRIBUTION_SHIFT", cur.column);
  std::vector<double> edges;
  for (int i = 1; i < 10; ++i) edges.push_back(b.merged.quantiles.Quantile(i / 10.0));
  // Baseline and current shares of the decile bins (ties collapse bins; both sides
  // are measured with the same edges, so a tie affects them alike).
  double psi = 0;
  double prev_b = 0, prev_c = 0;
  for (size_t i = 0; i <= edges.size(); ++i) {
    const double cb = i < edges.size() ? b.merged.quantiles.Cdf(edges[i]) : 1.0;
    const double cc = i < edges.size() ? cur.quantiles.Cdf(edges[i]) : 1.0;
    const double eb = std::max(cb - prev_b, 1e-4);
    const double ec = std::max(cc - prev_c, 1e-4);
    psi += (ec - eb) * std::log(ec / eb);
    prev_b = cb;
    prev_c = cc;
  }
  f.observed = fmt::format("PSI {:.3f}", psi);
  f.baseline = "the baseline's deciles";
  f.threshold = fmt::format("PSI >= {:.2f}", o.psi);
  f.message = "distribution as before";
  if (psi >= o.psi) {
    f.outcome = CheckOutcome::kWarning;
    f.message = fmt::format(
        "the distribution of '{}' shifted (PSI {:.2f}): median {:.6g} -> {:.6g}",
        cur.column, psi, b.merged.quantiles.Quantile(0.5), cur.quantiles.Quantile(0.5));
  }
  return f;
}

// ------------------------------------------------------------- VOLUME_ANOMALY
int Weekday(int64_t ms) {
  const int64_t days =
      ms >= 0 ? ms / kMillisPerDay : (ms - kMillisPerDay + 1) / kMillisPerDay;
  return static_cast<int>(((days % 7) + 7 + 3) % 7);  // 1970-01-01 was a Thursday (3)
}

double MedianDeviation(const std::vector<double>& v) {
  const double m = Median(v);
  std::vector<double> dev;
  for (double x : v) dev.push_back(std::abs(x - m));
  return Median(dev);
}

// The day-to-day noise of log rows with the weekly pattern taken out: each commit's
// log rows against its weekday's mean, pooled over the weekdays with two or more
// commits (a deviation from the mean of n values is scaled by sqrt(n / (n - 1)), what
// the mean took from it), as their root mean square: with two weeks of daily commits
// each weekday has only two, too few for a spread of their own, and a median of so few
// residuals is too unsteady a yardstick (an outlier day only widens it).
double SeasonalNoise(const std::vector<const TableProfile*>& base) {
  std::map<int, std::vector<double>> by_day;
  for (const TableProfile* t : base) {
    by_day[Weekday(t->timestamp_ms)].push_back(
        std::log(static_cast<double>(std::max<int64_t>(t->rows, 1))));
  }
  std::vector<double> residuals;
  for (const auto& [day, logs] : by_day) {
    if (logs.size() < 2) continue;
    double mean = 0;
    for (double l : logs) mean += l;
    mean /= static_cast<double>(logs.size());
    const double n = static_cast<double>(logs.size());
    for (double l : logs)
      residuals.push_back(std::abs(l - mean) * std::sqrt(n / (n - 1)));
  }
  if (residuals.size() < 3) return 0;
  double ss = 0;
  for (double r : residuals) ss += r * r;
  return std::sqrt(ss / static_cast<double>(residuals.size()));
}

Finding Volume(const TableProfile& cur, const std::vector<const TableProfile*>& base,
               const DetectorOptions& o) {
  Finding f = Make("VOLUME_ANOMALY", "");
  // Weekly seasonality: two weeks of daily commits make the same weekday the baseline.
  std::vector<const TableProfile*> pool = base;
  if (!base.empty() &&
      cur.timestamp_ms - base.front()->timestamp_ms >= 14 * kMillisPerDay) {
    std::vector<const TableProfile*> same;
    for (const TableProfile* t : base) {
      if (Weekday(t->timestamp_ms) == Weekday(cur.timestamp_ms)) same.push_back(t);
    }
    if (static_cast<int64_t>(same.size()) >= 2) pool = same;
  }
  if (static_cast<int64_t>(pool.size()) < std::min<int64_t>(o.min_commits, 2) ||
      static_cast<int64_t>(base.size()) < o.min_commits) {
    return Skipped("VOLUME_ANOMALY", "",
                   fmt::format("{} baseline commits (at least {} needed)", base.size(),
                               o.min_commits));
  }
  std::vector<double> logs;
  std::vector<double> rows;
  for (const TableProfile* t : pool) {
    logs.push_back(std::log(static_cast<double>(std::max<int64_t>(t->rows, 1))));
    rows.push_back(static_cast<double>(t->rows));
  }
  const double median_log = Median(logs);
  const double mad =
      pool.size() < base.size() ? SeasonalNoise(base) : 1.4826 * MedianDeviation(logs);
  const double median_rows = Median(rows);
  const double now = static_cast<double>(cur.rows);
  const double change = median_rows > 0 ? now / median_rows - 1 : 0;
  const double z = mad > 0 ? (std::log(std::max(now, 1.0)) - median_log) / mad
                           : (std::abs(change) >= o.volume_change ? INFINITY : 0);
  f.observed = fmt::format("{} rows", cur.rows);
  f.baseline =
      fmt::format("median {:.0f} rows over {} commits{}", median_rows, pool.size(),
                  pool.size() < base.size() ? " (same weekday)" : "");
  f.threshold = fmt::format(">= {:.0f}% away and > {:.0f} robust sd",
                            o.volume_change * 100, o.sigmas);
  f.message = "volume within the baseline";
  if (std::abs(change) >= o.volume_change && std::abs(z) > o.sigmas) {
    f.outcome = CheckOutcome::kWarning;
    f.message = fmt::format(
        "the commit has {} rows, {:+.0f}% against the baseline's median "
        "of {:.0f}",
        cur.rows, change * 100, median_rows);
  }
  return f;
}

}  // namespace

Finding RunVolumeDetector(const TableProfile& current,
                          const std::vector<const TableProfile*>& baseline,
                          const DetectorOptions& options) {
  return Volume(current, baseline, options);
}

std::vector<Finding> RunColumnDetectors(const ColumnProfile& cur,
                                        const std::vector<const TableProfile*>& baseline,
                                        const DetectorOptions& o) {
  std::vector<Finding> out;
  auto b = BaselineOf(cur.column, baseline);
  if (!b) {
    out.push_back(Skipped("NULL_RATE_SHIFT", cur.column, "no baseline for the column"));
    return out;
  }
  if (b->merged.kind != cur.kind) {
    out.push_back(Skipped("NULL_RATE_SHIFT", cur.column,
                          fmt::format("the column's type changed ({} -> {}): `deltaguard "
                                      "drift` reports it",
                                      b->merged.type, cur.type)));
    return out;
  }
  if (static_cast<int64_t>(b->commits.size()) >= o.min_commits) {
    out.push_back(NullRate(cur, *b, o));
  } else {
    out.push_back(Skipped("NULL_RATE_SHIFT", cur.column,
                          fmt::format("{} baseline commits (at least {} needed)",
                                      b->commits.size(), o.min_commits)));
  }
  const bool enough =
      cur.non_null() >= o.min_values && b->merged.non_null() >= o.min_values;
  if (!enough) return out;
  if (cur.kind == ProfileKind::kNumber && Ascending(cur, *b)) {
    // Decided once for both: a sequence or a load date moves by design.
    const char* why =
        "an ascending column (a sequence or a load date): each commit's values lie "
        "above the ones before, so its scale and distribution move by design";
    out.push_back(Skipped("SCALE_SHIFT", cur.column, why));
    out.push_back(Skipped("DISTRIBUTION_SHIFT", cur.column, why));
  } else if (cur.kind == ProfileKind::kNumber) {
    Finding scale = Scale(cur, *b, o);
    const bool scaled = scale.outcome == CheckOutcome::kFailed;
    out.push_back(std::move(scale));
    if (!scaled) out.push_back(Distribution(cur, *b, o));
  }
  if (cur.kind == ProfileKind::kTimestamp) out.push_back(TimeOffset(cur, *b, o));
  if (cur.kind == ProfileKind::kString || cur.kind == ProfileKind::kBoolean) {
    for (auto& f : Categories(cur, *b, o)) out.push_back(std::move(f));
  }
  if (cur.kind == ProfileKind::kString) out.push_back(Format(cur, *b, o));
  return out;
}

std::vector<Finding> RunDetectors(const TableProfile& current,
                                  const std::vector<const TableProfile*>& baseline,
                                  const DetectorOptions& o) {
  std::vector<Finding> out;
  out.push_back(RunVolumeDetector(current, baseline, o));
  for (const ColumnProfile& cur : current.columns) {
    for (auto& f : RunColumnDetectors(cur, baseline, o)) out.push_back(std::move(f));
  }
  return out;
}

}  // namespace deltaguard
