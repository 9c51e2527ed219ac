// Data tests at commit time (quality/commit_check.h).

#include "deltaguard/quality/commit_check.h"

#include <fmt/format.h>

#include "deltaguard/expr/printer.h"
#include "deltaguard/quality/data_test_eval.h"
#include "deltaguard/quality/profile_store.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {

Result<std::shared_ptr<CommitCheck>> CommitCheck::Make(
    const FileSystemRef& fs, const std::string& table_root, const std::string& name,
    const WriteCheckOptions& options, bool table_exists, const StructType& schema) {
  std::shared_ptr<CommitCheck> check(new CommitCheck());
  check->options_ = options;
  check->name_ = name;
  if (options.tests.empty() || options.tests == "auto") {
    check->suite_ = DataTestSuite::Auto();
  } else {
    DELTA_ASSIGN_OR_RETURN(check->suite_, LoadDataTests(*fs, options.tests));
  }
  if (!options.baseline.empty()) {
    DELTA_ASSIGN_OR_RETURN(check->spec_, ParseBaselineSpec(options.baseline));
  } else {
    check->spec_ = check->suite_.baseline.value_or(BaselineSpec{});
  }
  if (table_exists) {
    DELTA_ASSIGN_OR_RETURN(check->history_,
                           CheckHistory(fs, table_root, -1, check->spec_));
  }
  if (check->suite_.HasRowTests()) {
    DELTA_ASSIGN_OR_RETURN(RowTestRunner runner,
                           RowTestRunner::Make(check->suite_, schema, name));
    check->rows_ = std::make_shared<RowTestObserver>(std::move(runner));
  }
  return check;
}

std::vector<Constraint> CommitCheck::RowConstraints() const {
  std::vector<Constraint> out;
  for (const auto& t : suite_.tests) {
    if (t.severity == TestSeverity::kOff) continue;
    // A test that tolerates some breaking rows is decided on the batch, not per row.
    if (t.rule.op != "mustBe" || t.rule.operands != std::vector<double>{0}) continue;
    if (!t.predicate.empty()) {
      out.push_back(Constraint{ConstraintKind::kDataTest, t.id, t.predicate});
    } else if (t.name == "not_null") {
      std::string col;
      for (auto part : Split(t.column, '.')) {
        col += (col.empty() ? "" : ".") + QuoteIdentifier(part);
      }
      out.push_back(Constraint{ConstraintKind::kDataTest, t.id, col + " IS NOT NULL"});
    }
  }
  return out;
}

Result<CheckReport> CommitCheck::Decide(const TableProfile& profile) const {
  std::vector<RowTestCount> counts;
  if (rows_) counts = rows_->Counts();
  CheckReport report;
  report.table = name_;
  report.version = -1;
  report.rows = profile.rows;
  report.tests = suite_.file;
  report.baseline_spec = spec_.ToString();
  auto baseline = SelectBaseline(history_, profile, spec_);
  for (const TableProfile* p : baseline) report.baseline_versions.push_back(p->version);
  DELTA_ASSIGN_OR_RETURN(report.findings,
                         EvaluateDataTests(suite_, profile, baseline, counts));
  return report;
}

void CommitCheck::ForRewrite() {
  for (const char* detector :
       {"VOLUME_ANOMALY", "DISTRIBUTION_SHIFT", "CATEGORY_DROPPED"}) {
    DetectorTuning off;
    off.detector = detector;
    off.severity = TestSeverity::kOff;
    suite_.tuning.push_back(std::move(off));
  }
}

WriteCheckSummary SummarizeCheck(const CheckReport& report) {
  WriteCheckSummary s;
  s.tests = report.tests;
  s.outcome = std::string(CheckOutcomeName(report.outcome()));
  s.text = RenderCheckReport(report, CheckReportFormat::kText);
  s.json = RenderCheckReport(report, CheckReportFormat::kJson);
  return s;
}

namespace {

// "SCALE_SHIFT amount (factor 0.01)", "accepted_values(status)", "TIME_OFFSET_SHIFT
// event_ts (+2 h)".
std::string TestLabel(const Finding& f) {
  std::string one = f.column.empty() || f.test.find('(') != std::string::npos
                        ? f.test
                        : f.test + " " + f.column;
  if (f.factor) one += fmt::format(" (factor {})", *f.factor);
  if (f.hours) one += fmt::format(" ({:+d} h)", *f.hours);
  return one;
}

bool Failed(const Finding& f) {
  return f.outcome == CheckOutcome::kFailed || f.outcome == CheckOutcome::kError;
}

}  // namespace

std::vector<std::string> CheckWarnings(const CheckReport& report) {
  std::vector<std::string> out;
  for (const auto& f : report.findings) {
    if (f.outcome == CheckOutcome::kPassed || f.outcome == CheckOutcome::kSkipped)
      continue;
    out.push_back(fmt::format("data test {}{}: {}", f.test,
                              f.column.empty() ? "" : " " + f.column, f.message));
  }
  return out;
}

std::string FailedTests(const CheckReport& report) {
  std::string out;
  for (const auto& f : report.findings) {
    if (Failed(f)) out += (out.empty() ? "" : "; ") + TestLabel(f);
  }
  return out;
}

Error CheckFailedError(const CheckReport& report, const std::string& name) {
  std::string lines;
  for (const auto& f : report.findings) {
    if (!Failed(f)) continue;
    lines += fmt::format("\n  {} {}: {}", CheckOutcomeName(f.outcome), TestLabel(f),
                         f.message);
    if (f.violating_rows) {
      for (size_t i = 0; i < f.values.size() && i < 3; ++i) {
        lines += fmt::format("\n    e.g. {}", f.values[i]);
      }
    } else if (!f.observed.empty()) {
      lines += fmt::format(" (observed {}; baseline {}; threshold {})", f.observed,
                           f.baseline.empty() ? "-" : f.baseline, f.threshold);
    }
  }
  Error e{ErrorCode::kConstraintViolation,
          fmt::format("DATA_TEST_FAILED: the write to '{}' committed nothing: data tests "
                      "({}) failed against {}:{}",
                      name, report.tests, report.baseline_spec, lines),
          {}};
  e.details.emplace_back("constraint", FailedTests(report));
  e.details.emplace_back("check_report",
                         RenderCheckReport(report, CheckReportFormat::kJson));
  return e;
}

}  // namespace deltaguard
