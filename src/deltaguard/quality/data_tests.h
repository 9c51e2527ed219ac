/// \file deltaguard/quality/data_tests.h
/// A tests file (docs/data_tests.md "Tests file"): named data tests in the vocabulary of
/// dbt and Soda, per column and per table, plus the tuning of the default semantic-drift
/// detectors (quality/detectors.h). ODCS contracts feed the same model: their quality
/// rules and implied checks become row tests (DataTestSuiteFromContract), so
/// `deltaguard check --tests contract.odcs.yaml` and a tests file run on one engine.
///
/// Two families, by what they need:
///  - profile tests are decided from the commit's profile and its baseline, without
///    reading data again: not_null (exact null count), row_count, null_rate, mean,
///    median, percentile (from the quantile sketch), freshness (exact max), and the
///    detectors;
///  - row tests need every value and are counted exactly over the commit's rows, with
///    samples: accepted_values, range, pattern, unique, expression_is_true and a
///    contract's row predicates. At
///    write time they run as a batch observer in the same pass as the write, and with
///    quarantine they route the rows that break them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/contract/contract.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/quality/detectors.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// What a failing test does: warn (the write goes through, the finding is reported),
/// fail (the check fails; at write time nothing is committed), off (not run).
enum class TestSeverity : uint8_t { kWarn, kFail, kOff };

std::string_view TestSeverityName(TestSeverity s);

/// The detector names, upper-case as findings report them ("NULL_RATE_SHIFT", ...).
const std::vector<std::string>& DetectorNames();

/// One named test of a column ("" = the table).
struct DataTest {
  std::string name;    ///< not_null, unique, accepted_values, range, row_count, ...
  std::string id;      ///< shown in reports: "accepted_values(status)" or a rule id
  std::string column;  ///< dotted path; "" for table tests
  TestSeverity severity = TestSeverity::kFail;
  int line = 0;  ///< in the tests file (0 when from elsewhere)

  // Bounds, absolute (range, row_count, null_rate, mean, median, percentile).
  std::optional<double> min;
  std::optional<double> max;
  /// Relative to the baseline (row_count, mean, median, percentile): |value / baseline
  /// - 1| must stay at most this.
  std::optional<double> max_change;
  /// null_rate against the baseline: the rate may rise by at most this (a fraction).
  std::optional<double> max_increase;
  double quantile = 0.5;              ///< percentile (0..1); median is 0.5
  std::optional<int64_t> max_age_ms;  ///< freshness

  // Row tests.
  std::vector<std::string> values;  ///< accepted_values
  std::string regex;                ///< pattern
  /// Row predicate (SQL, TRUE for a good row) for accepted_values, pattern and a
  /// contract's rules; duplicates for unique.
  std::string predicate;
  std::vector<std::string> key_columns;  ///< unique (one or more columns)
  /// How many breaking rows pass: `rule.Passes(count or percent)`. Default mustBe 0.
  QualityRule rule;

  bool is_row_test() const { return !predicate.empty() || !key_columns.empty(); }
};

/// A detector's tuning: for every column (`column` "") or one column.
struct DetectorTuning {
  std::string detector;  ///< upper-case name
  std::string column;    ///< "" for all columns
  std::optional<TestSeverity> severity;
  /// Threshold overrides by parameter name (see docs/data_tests.md): applied on top of
  /// DetectorOptions' defaults.
  std::map<std::string, double> params;
  int line = 0;
};

struct DataTestSuite {
  std::string file;  ///< where it came from ("auto" for the defaults)
  std::optional<BaselineSpec> baseline;
  /// Run the default detectors on every column (the zero-configuration default);
  /// false runs only the detectors listed per column.
  bool defaults = true;
  std::vector<DataTest> tests;
  std::vector<DetectorTuning> tuning;

  bool HasRowTests() const;
  /// The default detectors on every column, nothing else (`--check auto`).
  static DataTestSuite Auto();
};

/// Parse a tests file (see docs/data_tests.md for the format). Errors name the file,
/// the line and the key: an unknown test or parameter, a threshold of the wrong type,
/// a severity other than warn|fail|error|off, a malformed regular expression.
Result<DataTestSuite> ParseDataTests(std::string_view text, std::string_view file);

/// Reads a tests file, or an ODCS contract (its quality rules and implied checks as
/// row tests; `contract_object` names its schema object when it has several), from the
/// local file system. Errors name the file and the line.
Result<DataTestSuite> LoadDataTests(const FileSystem& fs, const std::string& path,
                                    const std::string& contract_object = "");

/// True when `text` is an ODCS contract (apiVersion + kind: DataContract) rather than
/// a tests file.
bool LooksLikeContract(std::string_view text);

/// The row tests a contract implies for `object` (its quality rules and the checks its
/// schema implies: required, unique, patterns, ranges, accepted values, row count), on
/// top of the default detectors.
DataTestSuite DataTestSuiteFromContract(const Contract& contract,
                                        const ContractObject& object);

/// `options` with the suite's tuning for `column` applied (the suite-wide tuning
/// first, then the column's); column "" is the table (VOLUME_ANOMALY). Each parameter
/// belongs to one detector, except min_values and min_commits (every detector of the
/// column) and max_distinct (NEW_CATEGORY and CATEGORY_DROPPED share it).
DetectorOptions TunedDetectorOptions(const DataTestSuite& suite,
                                     const std::string& column, DetectorOptions options);

/// The severity the suite gives `detector` on `column`, if it sets one (the column's
/// setting wins over the suite-wide one).
std::optional<TestSeverity> DetectorSeverity(const DataTestSuite& suite,
                                             const std::string& detector,
                                             const std::string& column);

}  // namespace deltaguard
