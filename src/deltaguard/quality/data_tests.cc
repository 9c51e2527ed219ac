// The tests file (quality/data_tests.h): YAML -> DataTestSuite, and a contract's checks
// as the same suite. Every error names the file, the line and the key.

#include "deltaguard/quality/data_tests.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "deltaguard/contract/checks.h"
#include "deltaguard/contract/yaml_reader.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

// Detector parameters by name, each with the DetectorOptions field it sets.
struct Param {
  std::string_view detector;  // "" for every detector
  std::string_view name;
  double DetectorOptions::*field;
};

const std::vector<Param>& DoubleParams() {
  static const std::vector<Param> params = {
      {"NULL_RATE_SHIFT", "points", &DetectorOptions::null_rate_points},
      {"NULL_RATE_SHIFT", "sigmas", &DetectorOptions::sigmas},
      {"SCALE_SHIFT", "tolerance", &DetectorOptions::scale_tolerance},
      {"TIME_OFFSET_SHIFT", "min_distance", &DetectorOptions::time_tv_min},
      {"NEW_CATEGORY", "min_share", &DetectorOptions::new_category_share},
      {"CATEGORY_DROPPED", "min_share", &DetectorOptions::dropped_category_share},
      {"FORMAT_DRIFT", "min_distance", &DetectorOptions::format_tv},
      {"DISTRIBUTION_SHIFT", "psi", &DetectorOptions::psi},
      {"VOLUME_ANOMALY", "change", &DetectorOptions::volume_change},
      {"VOLUME_ANOMALY", "sigmas", &DetectorOptions::sigmas},
  };
  return params;
}

// Integer parameters every detector accepts (the data a detector needs to speak).
bool SetIntParam(DetectorOptions* o, const std::string& name, double v) {
  if (name == "min_values") {
    o->min_values = static_cast<int64_t>(v);
  } else if (name == "min_commits") {
    o->min_commits = static_cast<int64_t>(v);
  } else if (name == "max_distinct") {
    o->categorical_max_distinct = static_cast<int64_t>(v);
  } else {
    return false;
  }
  return true;
}

bool KnownParam(const std::string& detector, const std::string& name) {
  if (name == "min_values" || name == "min_commits") return true;
  if (name == "max_distinct")
    return detector == "NEW_CATEGORY" || detector == "CATEGORY_DROPPED";
  for (const auto& p : DoubleParams()) {
    if (p.detector == detector && p.name == name) return true;
  }
  return false;
}

std::string Upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string ColumnSql(const std::string& path) {
  std::string out;
  for (auto part : Split(path, '.')) {
    out += (out.empty() ? "" : ".") + QuoteIdentifier(part);
  }
  return out;
}

QualityRule MustBeZero() {
  QualityRule r;
  r.op = "mustBe";
  r.operands = {0};
  return r;
}

const std::set<std::string> kColumnTests = {
    "not_null",   "unique",   "accepted_values", "range",   "null_rate",
    "mean",       "median",   "percentile",      "pattern", "freshness",
    "cast_nulls", "row_count"};  // row_count is a table test;
                                 // listed so the error says
                                 // where
const std::set<std::string> kTableTests = {"row_count", "freshness", "unique",
                                           "expression_is_true"};
const std::set<std::string> kCommonKeys = {"severity", "max_failing",
                                           "max_failing_percent", "name"};

class Reader {
 public:
  explicit Reader(std::string_view file) : file_(file) {}

  Error Fail(const YamlNode& at, const std::string& what) const {
    return MakeError(ErrorCode::kInvalidArgument, "{}:{}: {}", file_, at.line, what);
  }

  Result<double> Number(const YamlNode& n, const std::string& key) const {
    if (!n.is_scalar() || n.quoted) {
      return Fail(n, fmt::format("'{}' must be a number, not {}", key,
                                 n.is_scalar() ? "the string '" + n.scalar + "'"
                                               : std::string(n.KindName())));
    }
    double v = 0;
    const char* b = n.scalar.data();
    const char* e = b + n.scalar.size();
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || p != e || !std::isfinite(v)) {
      return Fail(n, fmt::format("'{}' must be a number, not '{}'", key, n.scalar));
    }
    return v;
  }

  Result<std::string> Text(const YamlNode& n, const std::string& key) const {
    if (!n.is_scalar()) {
      return Fail(n, fmt::format("'{}' must be a string, not a {}", key, n.KindName()));
    }
    return n.scalar;
  }

  Result<bool> Bool(const YamlNode& n, const std::string& key) const {
    if (n.is_scalar() && !n.quoted) {
      if (n.scalar == "true") return true;
      if (n.scalar == "false") return false;
    }
    return Fail(n, fmt::format("'{}' must be true or false", key));
  }

  Result<TestSeverity> Severity(const YamlNode& n) const {
    DELTA_ASSIGN_OR_RETURN(std::string s, Text(n, "severity"));
    s = Upper(s);
    if (s == "WARN" || s == "WARNING") return TestSeverity::kWarn;
    if (s == "FAIL" || s == "ERROR") return TestSeverity::kFail;
    if (s == "OFF") return TestSeverity::kOff;
    return Fail(n, fmt::format("severity must be warn, fail (or error) or off, not '{}'",
                               n.scalar));
  }

  // "36h", "2d", "90m", "3600s" -> milliseconds.
  Result<int64_t> Duration(const YamlNode& n, const std::string& key) const {
    DELTA_ASSIGN_OR_RETURN(std::string s, Text(n, key));
    if (s.size() >= 2) {
      int64_t unit = 0;
      switch (s.back()) {
        case 's':
          unit = 1000;
          break;
        case 'm':
          unit = 60 * 1000;
          break;
        case 'h':
          unit = 3600 * 1000;
          break;
        case 'd':
          unit = 24 * 3600 * 1000;
          break;
        default:
          break;
      }
      int64_t count = 0;
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size() - 1, count);
      if (unit > 0 && ec == std::errc() && p == s.data() + s.size() - 1 && count > 0) {
        return count * unit;
      }
    }
    return Fail(n, fmt::format("'{}' must be a duration like 36h, 2d, 90m or 3600s, "
                               "not '{}'",
                               key, s));
  }

  Result<std::vector<std::string>> Strings(const YamlNode& n,
                                           const std::string& key) const {
    std::vector<std::string> out;
    if (!n.is_sequence() || n.items.empty()) {
      return Fail(n, fmt::format("'{}' must be a non-empty list", key));
    }
    for (const auto& item : n.items) {
      DELTA_ASSIGN_OR_RETURN(std::string s, Text(item, key));
      out.push_back(std::move(s));
    }
    return out;
  }

  // A detector's tuning: `off|warn|fail` or {severity, params...}.
  Result<DetectorTuning> Tuning(const std::string& detector, const std::string& column,
                                const YamlNode& value, int line) const {
    DetectorTuning t;
    t.detector = detector;
    t.column = column;
    t.line = line;
    if (value.is_null()) return t;
    if (value.is_scalar()) {
      DELTA_ASSIGN_OR_RETURN(t.severity, Severity(value));
      return t;
    }
    if (!value.is_map()) {
      return Fail(value, fmt::format("{} takes off, warn, fail or a mapping of its "
                                     "parameters",
                                     AsciiToLower(detector)));
    }
    for (size_t i = 0; i < value.entries.size(); ++i) {
      const auto& [key, v] = value.entries[i];
      if (key == "severity") {
        DELTA_ASSIGN_OR_RETURN(t.severity, Severity(v));
      } else if (key == "enabled") {
        DELTA_ASSIGN_OR_RETURN(bool on, Bool(v, key));
        if (!on) t.severity = TestSeverity::kOff;
      } else if (KnownParam(detector, key)) {
        DELTA_ASSIGN_OR_RETURN(t.params[key], Number(v, key));
      } else {
        return Fail(
            v, fmt::format("unknown parameter '{}' of {}", key, AsciiToLower(detector)));
      }
    }
    return t;
  }

  // One entry of a `columns.<c>` or `table` list.
  Status Entry(const YamlNode& entry, const std::string& column, DataTestSuite* suite) {
    std::string name;
    const YamlNode* params = nullptr;
    if (entry.is_scalar()) {
      name = entry.scalar;
    } else if (entry.is_map() && entry.entries.size() == 1) {
      name = entry.entries[0].key;
      params = &entry.entries[0].value;
    } else {
      return Fail(entry,
                  "a test is a name (not_null) or a mapping of one name to its "
                  "parameters (range: {min: 0})");
    }
    const std::string upper = Upper(name);
    const auto& detectors = DetectorNames();
    if (std::find(detectors.begin(), detectors.end(), upper) != detectors.end()) {
      if (upper == "VOLUME_ANOMALY" && !column.empty()) {
        return Fail(entry, "volume_anomaly is a table test: list it under 'table'");
      }
      if (upper != "VOLUME_ANOMALY" && column.empty()) {
        return Fail(entry, fmt::format("{} is a column test: list it under "
                                       "'columns.<name>' (or tune it for every column "
                                       "under 'detectors')",
                                       name));
      }
      static const YamlNode kNull;
      DELTA_ASSIGN_OR_RETURN(auto t,
                             Tuning(upper, column, params ? *params : kNull, entry.line));
      suite->tuning.push_back(std::move(t));
      return OkStatus();
    }
    const bool known = column.empty()
                           ? kTableTests.count(name) > 0
                           : kColumnTests.count(name) > 0 && name != "row_count";
    if (!known) {
      if (!column.empty() && name == "row_count") {
        return Fail(entry, "row_count is a table test: list it under 'table'");
      }
      if (column.empty() && kColumnTests.count(name)) {
        return Fail(entry, fmt::format("{} is a column test: list it under "
                                       "'columns.<name>'",
                                       name));
      }
      return Fail(entry, fmt::format("unknown test '{}' (column tests: not_null, unique, "
                                     "accepted_values, range, null_rate, mean, median, "
                                     "percentile, pattern, freshness, cast_nulls and the "
                                     "detectors; "
                                     "table tests: row_count, freshness, unique, "
                                     "expression_is_true, volume_anomaly)",
                                     name));
    }
    DataTest t;
    t.name = name;
    t.column = column;
    t.line = entry.line;
    t.rule = MustBeZero();
    t.id = column.empty() ? name : fmt::format("{}({})", name, column);
    DELTA_RETURN_IF_ERROR(Params(params, &t));
    DELTA_RETURN_IF_ERROR(Complete(entry, &t));
    suite->tests.push_back(std::move(t));
    return OkStatus();
  }

  Status Params(const YamlNode* params, DataTest* t) {
    if (params == nullptr || params->is_null()) return OkStatus();
    if (t->name == "accepted_values" && params->is_sequence()) {
      DELTA_ASSIGN_OR_RETURN(t->values, Strings(*params, "accepted_values"));
      return OkStatus();
    }
    if (params->is_scalar()) {  // `not_null: warn`
      DELTA_ASSIGN_OR_RETURN(t->severity, Severity(*params));
      return OkStatus();
    }
    if (!params->is_map()) {
      return Fail(*params,
                  fmt::format("the parameters of {} must be a mapping", t->name));
    }
    for (const auto& [key, v] : params->entries) {
      DELTA_RETURN_IF_ERROR(Param(*t, key, v, t));
    }
    return OkStatus();
  }

  Status Param(const DataTest& test, const std::string& key, const YamlNode& v,
               DataTest* t) {
    const std::string& n = test.name;
    auto allowed = [&](std::initializer_list<std::string_view> tests) {
      return std::find(tests.begin(), tests.end(), n) != tests.end();
    };
    if (key == "severity") {
      DELTA_ASSIGN_OR_RETURN(t->severity, Severity(v));
    } else if (key == "name") {
      DELTA_ASSIGN_OR_RETURN(t->id, Text(v, key));
    } else if ((key == "max_failing" || key == "max_failing_percent") &&
               allowed({"not_null", "unique", "accepted_values", "pattern", "range",
                        "expression_is_true", "cast_nulls"})) {
      DELTA_ASSIGN_OR_RETURN(double limit, Number(v, key));
      t->rule.op = "mustBeLessOrEqualTo";
      t->rule.operands = {limit};
      t->rule.unit = key == "max_failing" ? "rows" : "percent";
    } else if ((key == "min" || key == "max") &&
               allowed(
                   {"range", "row_count", "null_rate", "mean", "median", "percentile"})) {
      DELTA_ASSIGN_OR_RETURN(double x, Number(v, key));
      (key == "min" ? t->min : t->max) = x;
    } else if (key == "max_change" &&
               allowed({"row_count", "mean", "median", "percentile"})) {
      DELTA_ASSIGN_OR_RETURN(t->max_change, Number(v, key));
    } else if (key == "max_increase" && n == "null_rate") {
      DELTA_ASSIGN_OR_RETURN(t->max_increase, Number(v, key));
    } else if (key == "p" && n == "percentile") {
      DELTA_ASSIGN_OR_RETURN(t->quantile, Number(v, key));
      if (t->quantile < 0 || t->quantile > 1) {
        return Fail(v, "'p' must be between 0 and 1 (0.99 for the 99th percentile)");
      }
    } else if (key == "max_age" && n == "freshness") {
      DELTA_ASSIGN_OR_RETURN(t->max_age_ms, Duration(v, key));
    } else if (key == "column" && n == "freshness" && t->column.empty()) {
      DELTA_ASSIGN_OR_RETURN(t->column, Text(v, key));
    } else if (key == "values" && n == "accepted_values") {
      DELTA_ASSIGN_OR_RETURN(t->values, Strings(v, key));
    } else if (key == "regex" && n == "pattern") {
      DELTA_ASSIGN_OR_RETURN(t->regex, Text(v, key));
    } else if (key == "columns" && n == "unique" && t->column.empty()) {
      DELTA_ASSIGN_OR_RETURN(t->key_columns, Strings(v, key));
    } else if (key == "expression" && n == "expression_is_true") {
      DELTA_ASSIGN_OR_RETURN(t->predicate, Text(v, key));
    } else {
      return Fail(v, fmt::format("unknown parameter '{}' of {}", key, n));
    }
    return OkStatus();
  }

  // Required parameters, and the row predicate of a row test.
  Status Complete(const YamlNode& at, DataTest* t) {
    const std::string col = ColumnSql(t->column);
    if (t->name == "accepted_values") {
      if (t->values.empty()) return Fail(at, "accepted_values needs 'values'");
      std::string list;
      for (const auto& v : t->values) {
        list += (list.empty() ? "" : ", ") + SqlStringLiteral(v);
      }
      t->predicate = col + " IS NULL OR CAST(" + col + " AS STRING) IN (" + list + ")";
    } else if (t->name == "pattern") {
      if (t->regex.empty()) return Fail(at, "pattern needs 'regex'");
      t->predicate = col + " IS NULL OR CAST(" + col + " AS STRING) RLIKE " +
                     SqlStringLiteral(t->regex);
    } else if (t->name == "unique") {
      if (t->column.empty() && t->key_columns.empty()) {
        return Fail(at, "unique under 'table' needs 'columns'");
      }
      if (!t->column.empty()) t->key_columns = {t->column};
      if (t->column.empty()) {
        std::string joined;
        for (const auto& c : t->key_columns) joined += (joined.empty() ? "" : ", ") + c;
        t->id = "unique(" + joined + ")";
      }
    } else if (t->name == "expression_is_true") {
      if (t->predicate.empty()) return Fail(at, "expression_is_true needs 'expression'");
      if (t->id == t->name) t->id = "expression_is_true(" + t->predicate + ")";
    } else if (t->name == "range") {
      if (!t->min && !t->max) return Fail(at, "range needs 'min' or 'max'");
      std::string cond;
      if (t->min) cond = fmt::format("{} >= {}", col, *t->min);
      if (t->max)
        cond += fmt::format("{}{} <= {}", cond.empty() ? "" : " AND ", col, *t->max);
      t->predicate = col + " IS NULL OR (" + cond + ")";
    } else if (t->name == "freshness") {
      if (t->column.empty()) return Fail(at, "freshness under 'table' needs 'column'");
      if (!t->max_age_ms) return Fail(at, "freshness needs 'max_age' (like 36h)");
      t->id = "freshness(" + t->column + ")";
    } else if (t->name == "row_count" || t->name == "null_rate" || t->name == "mean" ||
               t->name == "median" || t->name == "percentile") {
      if (!t->min && !t->max && !t->max_change && !t->max_increase) {
        return Fail(at, fmt::format("{} needs a bound: min, max{}", t->name,
                                    t->name == "null_rate" ? " or max_increase"
                                                           : " or max_change"));
      }
      if (t->name == "median") t->quantile = 0.5;
      if (t->name == "percentile" && t->id == fmt::format("percentile({})", t->column)) {
        t->id = fmt::format("percentile({}, {})", t->column, t->quantile);
      }
    }
    return OkStatus();
  }

  Status Top(const YamlNode& root, DataTestSuite* suite) {
    if (!root.is_map()) {
      return Fail(root,
                  "a tests file is a mapping with 'columns', 'table', 'detectors', "
                  "'baseline' and 'defaults'");
    }
    for (size_t i = 0; i < root.entries.size(); ++i) {
      const auto& [key, v] = root.entries[i];
      if (key == "version") {
        DELTA_ASSIGN_OR_RETURN(double version, Number(v, key));
        if (version != 1) {
          return Fail(
              v, fmt::format("tests file version {} is not supported (1 is)", v.scalar));
        }
      } else if (key == "baseline") {
        DELTA_ASSIGN_OR_RETURN(std::string spec, Text(v, key));
        auto parsed = ParseBaselineSpec(spec);
        if (!parsed) return Fail(v, parsed.error().message);
        suite->baseline = *parsed;
      } else if (key == "defaults") {
        DELTA_ASSIGN_OR_RETURN(suite->defaults, Bool(v, key));
      } else if (key == "detectors") {
        if (!v.is_map()) return Fail(v, "'detectors' must map detector names to tuning");
        for (size_t j = 0; j < v.entries.size(); ++j) {
          const auto& [name, tuning] = v.entries[j];
          const std::string upper = Upper(name);
          const auto& all = DetectorNames();
          if (std::find(all.begin(), all.end(), upper) == all.end()) {
            return Fail(tuning.is_null() ? v : tuning,
                        fmt::format("unknown detector '{}' (detectors: null_rate_shift, "
                                    "scale_shift, time_offset_shift, new_category, "
                                    "category_dropped, format_drift, "
                                    "distribution_shift, volume_anomaly)",
                                    name));
          }
          DELTA_ASSIGN_OR_RETURN(auto t, Tuning(upper, "", tuning, v.key_lines[j]));
          suite->tuning.push_back(std::move(t));
        }
      } else if (key == "table") {
        if (!v.is_sequence()) return Fail(v, "'table' must be a list of tests");
        for (const auto& entry : v.items) DELTA_RETURN_IF_ERROR(Entry(entry, "", suite));
      } else if (key == "columns") {
        if (!v.is_map()) return Fail(v, "'columns' must map column names to lists");
        for (const auto& [column, tests] : v.entries) {
          if (!tests.is_sequence()) {
            return Fail(tests,
                        fmt::format("the tests of column '{}' must be a list", column));
          }
          for (const auto& entry : tests.items) {
            DELTA_RETURN_IF_ERROR(Entry(entry, column, suite));
          }
        }
      } else {
        return Fail(v.is_null() ? root : v,
                    fmt::format("unknown key '{}' (a tests file has version, baseline, "
                                "defaults, detectors, table and columns)",
                                key));
      }
    }
    return OkStatus();
  }

 private:
  std::string file_;
};

}  // namespace

std::string_view TestSeverityName(TestSeverity s) {
  switch (s) {
    case TestSeverity::kWarn:
      return "warn";
    case TestSeverity::kFail:
      return "fail";
    case TestSeverity::kOff:
      return "off";
  }
  return "fail";
}

const std::vector<std::string>& DetectorNames() {
  static const std::vector<std::string> names = {
      "NULL_RATE_SHIFT",  "SCALE_SHIFT",  "TIME_OFFSET_SHIFT",  "NEW_CATEGORY",
      "CATEGORY_DROPPED", "FORMAT_DRIFT", "DISTRIBUTION_SHIFT", "VOLUME_ANOMALY"};
  return names;
}

bool DataTestSuite::HasRowTests() const {
  return std::any_of(tests.begin(), tests.end(), [](const DataTest& t) {
    return t.is_row_test() && t.severity != TestSeverity::kOff;
  });
}

DataTestSuite DataTestSuite::Auto() {
  DataTestSuite s;
  s.file = "auto";
  return s;
}

Result<DataTestSuite> ParseDataTests(std::string_view text, std::string_view file) {
  DELTA_ASSIGN_OR_RETURN(YamlNode root, ParseYaml(text, file));
  DataTestSuite suite;
  suite.file = std::string(file);
  if (root.is_null()) return suite;  // an empty file: the defaults
  Reader reader(file);
  DELTA_RETURN_IF_ERROR(reader.Top(root, &suite));
  return suite;
}

DetectorOptions TunedDetectorOptions(const DataTestSuite& suite,
                                     const std::string& column, DetectorOptions options) {
  auto apply = [&](const DetectorTuning& t) {
    for (const auto& [name, v] : t.params) {
      if (SetIntParam(&options, name, v)) continue;
      for (const auto& p : DoubleParams()) {
        if (p.detector == t.detector && p.name == name) options.*(p.field) = v;
      }
    }
  };
  auto relevant = [&](const DetectorTuning& t) {
    return (t.detector == "VOLUME_ANOMALY") == column.empty();
  };
  for (const auto& t : suite.tuning) {
    if (relevant(t) && t.column.empty()) apply(t);
  }
  for (const auto& t : suite.tuning) {
    if (relevant(t) && !t.column.empty() && EqualsIgnoreCase(t.column, column)) apply(t);
  }
  return options;
}

std::optional<TestSeverity> DetectorSeverity(const DataTestSuite& suite,
                                             const std::string& detector,
                                             const std::string& column) {
  std::optional<TestSeverity> out;
  for (const auto& t : suite.tuning) {
    if (t.detector == detector && t.column.empty() && t.severity) out = t.severity;
  }
  for (const auto& t : suite.tuning) {
    if (t.detector == detector && !t.column.empty() &&
        EqualsIgnoreCase(t.column, column) && t.severity) {
      out = t.severity;
    }
  }
  return out;
}

}  // namespace deltaguard
