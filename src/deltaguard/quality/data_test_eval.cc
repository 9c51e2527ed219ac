// EvaluateDataTests (quality/data_test_eval.h).

#include "deltaguard/quality/data_test_eval.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

constexpr int64_t kMicrosPerMilli = 1000;
constexpr int64_t kMillisPerDay = 24LL * 3600 * 1000;

double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string Num(double v) {
  if (std::isnan(v)) return "none";
  if (v == std::floor(v) && std::abs(v) < 1e15) return fmt::format("{:.0f}", v);
  return fmt::format("{:.6g}", v);
}

std::string Location(const DataTestSuite& suite, int line) {
  if (suite.file.empty() || suite.file == "auto") return "";
  return line > 0 ? fmt::format("{}:{}", suite.file, line) : suite.file;
}

CheckOutcome Failing(TestSeverity s) {
  return s == TestSeverity::kWarn ? CheckOutcome::kWarning : CheckOutcome::kFailed;
}

std::string Bounds(const DataTest& t) {
  std::vector<std::string> parts;
  if (t.min) parts.push_back(">= " + Num(*t.min));
  if (t.max) parts.push_back("<= " + Num(*t.max));
  if (t.max_change) {
    parts.push_back(fmt::format("within {:.0f}% of the baseline", *t.max_change * 100));
  }
  if (t.max_increase) {
    parts.push_back(
        fmt::format("at most {:.1f} points above the baseline", *t.max_increase * 100));
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " and ") + p;
  return out;
}

class Evaluator {
 public:
  Evaluator(const DataTestSuite& suite, const TableProfile& current,
            const std::vector<const TableProfile*>& baseline,
            const std::vector<RowTestCount>& rows, const DetectorOptions& defaults)
      : suite_(suite), cur_(current), base_(baseline), rows_(rows), defaults_(defaults) {}

  Result<std::vector<Finding>> Run() {
    DELTA_RETURN_IF_ERROR(CheckColumns());
    Detectors();
    for (size_t i = 0; i < suite_.tests.size(); ++i) {
      const DataTest& t = suite_.tests[i];
      if (t.severity == TestSeverity::kOff) continue;
      Finding f;
      f.test = t.id.empty() ? t.name : t.id;
      f.column = t.column;
      f.location = Location(suite_, t.line);
      Decide(i, t, &f);
      out_.push_back(std::move(f));
    }
    return std::move(out_);
  }

 private:
  // Profile tests name leaves the commit has (row tests are bound to the table schema
  // by RowTestRunner). A commit that added no rows has no columns to check against.
  Status CheckColumns() const {
    if (cur_.rows == 0) return OkStatus();
    for (const auto& t : suite_.tests) {
      if (t.column.empty() || t.is_row_test() || t.severity == TestSeverity::kOff)
        continue;
      if (cur_.Column(t.column) != nullptr) continue;
      std::string columns;
      for (const auto& c : cur_.columns)
        columns += (columns.empty() ? "" : ", ") + c.column;
      return MakeError(ErrorCode::kInvalidArgument,
                       "{}: test {}: column '{}' is not in the table (columns: {})",
                       Location(suite_, t.line), t.id, t.column, columns);
    }
    for (const auto& t : suite_.tuning) {
      if (t.column.empty() || cur_.Column(t.column) != nullptr) continue;
      return MakeError(ErrorCode::kInvalidArgument,
                       "{}: detector {}: column '{}' is not in the table",
                       Location(suite_, t.line), t.detector, t.column);
    }
    return OkStatus();
  }

  bool Runs(const std::string& detector, const std::string& column) const {
    auto sev = DetectorSeverity(suite_, detector, column);
    if (sev == TestSeverity::kOff) return false;
    if (suite_.defaults) return true;
    return std::any_of(suite_.tuning.begin(), suite_.tuning.end(),
                       [&](const DetectorTuning& t) {
                         return t.detector == detector &&
                                (t.column.empty() || EqualsIgnoreCase(t.column, column));
                       });
  }

  void Keep(Finding f) {
    if (!Runs(f.test, f.column)) return;
    auto sev = DetectorSeverity(suite_, f.test, f.column);
    if (sev &&
        (f.outcome == CheckOutcome::kFailed || f.outcome == CheckOutcome::kWarning))
      f.outcome = Failing(*sev);
    out_.push_back(std::move(f));
  }

  void Detectors() {
    if (Runs("VOLUME_ANOMALY", "")) {
      Keep(RunVolumeDetector(cur_, base_, TunedDetectorOptions(suite_, "", defaults_)));
    }
    for (const ColumnProfile& c : cur_.columns) {
      bool any = false;
      for (const auto& d : DetectorNames()) {
        if (d != "VOLUME_ANOMALY" && Runs(d, c.column)) any = true;
      }
      if (!any) continue;
      auto options = TunedDetectorOptions(suite_, c.column, defaults_);
      for (auto& f : RunColumnDetectors(c, base_, options)) Keep(std::move(f));
    }
  }

  const RowTestCount* CountOf(size_t test) const {
    for (const auto& r : rows_) {
      if (r.test == test) return &r;
    }
    return nullptr;
  }

  // Judge a measured value against the rule (row tests, not_null, contract row count).
  void Judge(const DataTest& t, double count, const std::string& what, Finding* f) {
    double value = count;
    const bool percent = t.rule.unit == "percent";
    if (percent)
      value = cur_.rows == 0 ? 0 : 100.0 * count / static_cast<double>(cur_.rows);
    f->observed = fmt::format("{} {}{}", Num(count), what,
                              percent ? fmt::format(" ({:.2f}%)", value) : "");
    f->threshold = t.rule.ComparisonText() + (percent ? " (percent)" : "");
    if (t.rule.Passes(value)) {
      f->outcome = CheckOutcome::kPassed;
      f->message = "passed";
      return;
    }
    f->outcome = Failing(t.severity);
    f->message =
        fmt::format("{}: {} {}, expected {}", t.id, Num(count), what, f->threshold);
  }

  void Bounded(const DataTest& t, double value, std::optional<double> baseline,
               const std::string& what, Finding* f) {
    f->observed = fmt::format("{} {}", what, Num(value));
    f->threshold = Bounds(t);
    if (baseline)
      f->baseline = fmt::format("{} {} ({} commits)", what, Num(*baseline), base_.size());
    std::vector<std::string> broken;
    if (t.min && !(value >= *t.min)) broken.push_back("below " + Num(*t.min));
    if (t.max && !(value <= *t.max)) broken.push_back("above " + Num(*t.max));
    if (t.max_change) {
      if (!baseline || *baseline == 0 || std::isnan(*baseline)) {
        if (!t.min && !t.max) {
          f->outcome = CheckOutcome::kSkipped;
          f->message = "no baseline to compare with";
          return;
        }
      } else {
        double change = value / *baseline - 1;
        if (std::abs(change) > *t.max_change) {
          broken.push_back(fmt::format("{:+.1f}% against the baseline", change * 100));
        }
      }
    }
    if (broken.empty()) {
      f->outcome = CheckOutcome::kPassed;
      f->message = "passed";
      return;
    }
    f->outcome = Failing(t.severity);
    std::string why;
    for (const auto& b : broken) why += (why.empty() ? "" : ", ") + b;
    f->message = fmt::format("{}: {} {} is {}", t.id, what, Num(value), why);
  }

  std::optional<double> BaselineMedian(
      const std::function<std::optional<double>(const TableProfile&)>& of) const {
    std::vector<double> v;
    for (const TableProfile* p : base_) {
      auto x = of(*p);
      if (x && !std::isnan(*x)) v.push_back(*x);
    }
    if (v.empty()) return std::nullopt;
    return Median(std::move(v));
  }

  void Decide(size_t index, const DataTest& t, Finding* f) {
    if (t.is_row_test()) {
      const RowTestCount* c = CountOf(index);
      if (c == nullptr) {
        f->outcome = CheckOutcome::kError;
        f->message = "the rows were not counted";
        return;
      }
      f->violating_rows = c->violating;
      f->values = c->samples;
      Judge(t, static_cast<double>(c->violating),
            t.name == "unique" ? "duplicate rows" : "rows breaking it", f);
      return;
    }
    if (t.name == "row_count") {
      if (!t.min && !t.max && !t.max_change) {  // a contract's rowCount rule
        Judge(t, static_cast<double>(cur_.rows), "rows", f);
        return;
      }
      auto base = BaselineMedian(
          [](const TableProfile& p) { return std::optional<double>(p.rows); });
      Bounded(t, static_cast<double>(cur_.rows), base, "rows", f);
      return;
    }
    if (cur_.rows == 0) {
      f->outcome = CheckOutcome::kSkipped;
      f->message = "the commit added no rows";
      return;
    }
    const ColumnProfile* col = cur_.Column(t.column);
    auto col_of = [&](const TableProfile& p) { return p.Column(t.column); };
    if (t.name == "not_null") {
      Judge(t, static_cast<double>(col->nulls), "NULLs", f);
      return;
    }
    if (t.name == "cast_nulls") {  // docs/data_tests.md "Cast safety"
      Judge(t, static_cast<double>(col->cast_nulls), "NULLs from casts", f);
      return;
    }
    if (t.name == "null_rate") {
      auto base = BaselineMedian([&](const TableProfile& p) -> std::optional<double> {
        const ColumnProfile* c = col_of(p);
        if (!c || c->rows == 0) return std::nullopt;
        return c->null_rate();
      });
      DataTest bounds = t;
      Bounded(bounds, col->null_rate(), base, "null rate", f);
      if (t.max_increase) {
        if (!base) {
          if (!t.min && !t.max) {
            f->outcome = CheckOutcome::kSkipped;
            f->message = "no baseline to compare with";
          }
          return;
        }
        const double rise = col->null_rate() - *base;
        if (rise > *t.max_increase) {
          f->outcome = Failing(t.severity);
          f->message = fmt::format(
              "{}: the null rate rose by {:.1f} points ({:.1f}% -> "
              "{:.1f}%)",
              t.id, rise * 100, *base * 100, col->null_rate() * 100);
        }
      }
      return;
    }
    if (t.name == "mean" || t.name == "median" || t.name == "percentile") {
      if (col->numeric_count == 0 || col->kind == ProfileKind::kString ||
          col->kind == ProfileKind::kBoolean || col->kind == ProfileKind::kOther) {
        f->outcome = col->kind == ProfileKind::kNumber ? CheckOutcome::kSkipped
                                                       : CheckOutcome::kError;
        f->message = col->kind == ProfileKind::kNumber
                         ? "the column has no values in this commit"
                         : fmt::format(
                               "{} applies to numbers, dates and timestamps; "
                               "'{}' is {}",
                               t.name, t.column, col->type);
        return;
      }
      auto stat = [&](const ColumnProfile& c) -> std::optional<double> {
        if (c.numeric_count == 0) return std::nullopt;
        if (t.name == "mean") return c.mean;
        if (c.quantiles.empty()) return std::nullopt;
        return c.quantiles.Quantile(t.quantile);
      };
      auto value = stat(*col);
      if (!value) {
        f->outcome = CheckOutcome::kSkipped;
        f->message = "no values to measure";
        return;
      }
      auto base = BaselineMedian([&](const TableProfile& p) -> std::optional<double> {
        const ColumnProfile* c = col_of(p);
        if (!c || c->kind != col->kind) return std::nullopt;
        return stat(*c);
      });
      std::string what =
          t.name == "percentile" ? fmt::format("p{}", Num(t.quantile * 100)) : t.name;
      Bounded(t, *value, base, what, f);
      return;
    }
    if (t.name == "freshness") {
      if (col->kind != ProfileKind::kTimestamp && col->kind != ProfileKind::kDate) {
        f->outcome = CheckOutcome::kError;
        f->message = fmt::format("freshness needs a timestamp or date column; '{}' is {}",
                                 t.column, col->type);
        return;
      }
      if (std::isnan(col->max)) {
        f->outcome = Failing(t.severity);
        f->message = fmt::format("{}: the commit has no value in {}", t.id, t.column);
        return;
      }
      const double newest_ms = col->kind == ProfileKind::kDate
                                   ? col->max * static_cast<double>(kMillisPerDay)
                                   : col->max / kMicrosPerMilli;
      const double age_h =
          (static_cast<double>(cur_.timestamp_ms) - newest_ms) / 3600000.0;
      f->observed = fmt::format("newest value {:.1f} h before the commit", age_h);
      f->threshold = fmt::format("at most {:.1f} h", *t.max_age_ms / 3600000.0);
      if (age_h * 3600000.0 <= static_cast<double>(*t.max_age_ms)) {
        f->outcome = CheckOutcome::kPassed;
        f->message = "passed";
      } else {
        f->outcome = Failing(t.severity);
        f->message = fmt::format("{}: the newest {} is {:.1f} h old, more than {}", t.id,
                                 t.column, age_h, f->threshold);
      }
      return;
    }
    f->outcome = CheckOutcome::kError;
    f->message = fmt::format("test {} is not known here", t.name);
  }

  const DataTestSuite& suite_;
  const TableProfile& cur_;
  const std::vector<const TableProfile*>& base_;
  const std::vector<RowTestCount>& rows_;
  const DetectorOptions& defaults_;
  std::vector<Finding> out_;
};

}  // namespace

Result<std::vector<Finding>> EvaluateDataTests(
    const DataTestSuite& suite, const TableProfile& current,
    const std::vector<const TableProfile*>& baseline,
    const std::vector<RowTestCount>& rows, const DetectorOptions& defaults) {
  return Evaluator(suite, current, baseline, rows, defaults).Run();
}

}  // namespace deltaguard
