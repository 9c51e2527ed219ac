// CheckReport renderings (quality/check_report.h).

#include "deltaguard/quality/check_report.h"

#include <fmt/format.h>

#include "deltaguard/util/report_format.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

std::string Subject(const Finding& f) {
  return f.column.empty() ? f.test : fmt::format("{} {}", f.test, f.column);
}

std::string FindingJson(const Finding& f) {
  std::string out = "{";
  AppendJsonField(&out, "test", f.test);
  AppendJsonField(&out, "column", f.column);
  AppendJsonField(&out, "outcome", CheckOutcomeName(f.outcome));
  AppendJsonField(&out, "observed", f.observed);
  AppendJsonField(&out, "baseline", f.baseline);
  AppendJsonField(&out, "threshold", f.threshold);
  AppendJsonField(&out, "message", f.message);
  std::string values;
  AppendJsonStringArray(f.values, &values);
  AppendJsonRawField(&out, "values", values);
  AppendJsonRawField(&out, "factor", f.factor ? fmt::format("{}", *f.factor) : "null");
  AppendJsonRawField(&out, "hours", f.hours ? std::to_string(*f.hours) : "null");
  AppendJsonRawField(&out, "violating_rows",
                     f.violating_rows ? std::to_string(*f.violating_rows) : "null");
  AppendJsonField(&out, "location", f.location);
  return out + "}";
}

std::string Json(const CheckReport& r) {
  std::string out = "{";
  AppendJsonField(&out, "table", r.table);
  AppendJsonRawField(&out, "version", std::to_string(r.version));
  AppendJsonRawField(&out, "rows", std::to_string(r.rows));
  std::string base = "{";
  AppendJsonField(&base, "spec", r.baseline_spec);
  std::string versions = "[";
  for (size_t i = 0; i < r.baseline_versions.size(); ++i) {
    versions += (i ? "," : "") + std::to_string(r.baseline_versions[i]);
  }
  AppendJsonRawField(&base, "versions", versions + "]");
  AppendJsonRawField(&out, "baseline", base + "}");
  AppendJsonField(&out, "tests", r.tests);
  AppendJsonField(&out, "outcome", CheckOutcomeName(r.outcome()));
  std::string counts = "{";
  for (auto o : {CheckOutcome::kPassed, CheckOutcome::kWarning, CheckOutcome::kFailed,
                 CheckOutcome::kError, CheckOutcome::kSkipped}) {
    AppendJsonRawField(&counts, CheckOutcomeName(o), std::to_string(r.Count(o)));
  }
  AppendJsonRawField(&out, "counts", counts + "}");
  std::string findings = "[";
  for (size_t i = 0; i < r.findings.size(); ++i) {
    findings += (i ? "," : "") + FindingJson(r.findings[i]);
  }
  AppendJsonRawField(&out, "findings", findings + "]");
  return out + "}\n";
}

std::string Text(const CheckReport& r) {
  std::string out =
      fmt::format("check {}@v{} ({} rows) against {} ({} earlier commit{}{})\n", r.table,
                  r.version, r.rows, r.baseline_spec, r.baseline_versions.size(),
                  r.baseline_versions.size() == 1 ? "" : "s",
                  r.baseline_versions.empty()
                      ? ""
                      : fmt::format(": versions {}..{}", r.baseline_versions.front(),
                                    r.baseline_versions.back()));
  if (!r.tests.empty()) out += fmt::format("tests: {}\n", r.tests);
  for (auto shown :
       {CheckOutcome::kFailed, CheckOutcome::kError, CheckOutcome::kWarning}) {
    for (const auto& f : r.findings) {
      if (f.outcome != shown) continue;
      const char* label = shown == CheckOutcome::kFailed  ? "FAILED"
                          : shown == CheckOutcome::kError ? "ERROR"
                                                          : "WARNING";
      out += fmt::format("  {:<8} {}{}\n", label, Subject(f),
                         f.location.empty() ? "" : " (" + f.location + ")");
      out += fmt::format("           {}\n", f.message);
      if (shown != CheckOutcome::kError) {
        out +=
            fmt::format("           observed {}; baseline {}; threshold {}\n", f.observed,
                        f.baseline.empty() ? "-" : f.baseline, f.threshold);
      }
      for (const auto& v : f.values) {
        if (f.violating_rows) out += fmt::format("           e.g. {}\n", v);
      }
    }
  }
  out += fmt::format("{}: {} passed, {} warning, {} failed, {} error, {} skipped\n",
                     CheckOutcomeName(r.outcome()), r.Count(CheckOutcome::kPassed),
                     r.Count(CheckOutcome::kWarning), r.Count(CheckOutcome::kFailed),
                     r.Count(CheckOutcome::kError), r.Count(CheckOutcome::kSkipped));
  return out;
}

std::string Junit(const CheckReport& r) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<testsuite name=\"deltaguard check {}\" tests=\"{}\" failures=\"{}\" "
      "skipped=\"{}\">\n",
      XmlEscape(r.table), r.findings.size(), r.Count(CheckOutcome::kFailed),
      r.Count(CheckOutcome::kSkipped));
  for (const auto& f : r.findings) {
    out += fmt::format("  <testcase classname=\"{}\" name=\"{}\">", XmlEscape(f.test),
                       XmlEscape(Subject(f)));
    const std::string detail =
        XmlEscape(fmt::format("{} (observed {}; baseline {}; threshold {})", f.message,
                              f.observed, f.baseline, f.threshold));
    switch (f.outcome) {
      case CheckOutcome::kFailed:
        out += fmt::format("<failure message=\"{}\"/>", detail);
        break;
      case CheckOutcome::kError:
        out += fmt::format("<error message=\"{}\"/>", detail);
        break;
      case CheckOutcome::kSkipped:
        out += fmt::format("<skipped message=\"{}\"/>", XmlEscape(f.message));
        break;
      case CheckOutcome::kWarning:
        out += fmt::format("<system-out>warning: {}</system-out>", detail);
        break;
      case CheckOutcome::kPassed:
        break;
    }
    out += "</testcase>\n";
  }
  return out + "</testsuite>\n";
}

std::string Github(const CheckReport& r) {
  std::string out;
  for (const auto& f : r.findings) {
    if (f.outcome != CheckOutcome::kFailed && f.outcome != CheckOutcome::kWarning)
      continue;
    out += fmt::format("::{} title={}::{}\n",
                       f.outcome == CheckOutcome::kFailed ? "error" : "warning",
                       GithubEscape(Subject(f)), GithubEscape(f.message));
  }
  return out + fmt::format("deltaguard check {}@v{}: {}\n", r.table, r.version,
                           CheckOutcomeName(r.outcome()));
}

}  // namespace

CheckOutcome CheckReport::outcome() const {
  if (Count(CheckOutcome::kFailed) > 0) return CheckOutcome::kFailed;
  if (Count(CheckOutcome::kError) > 0) return CheckOutcome::kError;
  if (Count(CheckOutcome::kWarning) > 0) return CheckOutcome::kWarning;
  return CheckOutcome::kPassed;
}

int64_t CheckReport::Count(CheckOutcome o) const {
  int64_t n = 0;
  for (const auto& f : findings) n += f.outcome == o ? 1 : 0;
  return n;
}

Result<CheckReportFormat> ParseCheckReportFormat(std::string_view name) {
  const std::string lower = AsciiToLower(Trim(name));
  if (lower == "text") return CheckReportFormat::kText;
  if (lower == "json") return CheckReportFormat::kJson;
  if (lower == "junit") return CheckReportFormat::kJunit;
  if (lower == "github") return CheckReportFormat::kGithub;
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown format '{}' (expected text, json, junit or github)", name);
}

std::string RenderCheckReport(const CheckReport& r, CheckReportFormat format) {
  switch (format) {
    case CheckReportFormat::kText:
      return Text(r);
    case CheckReportFormat::kJson:
      return Json(r);
    case CheckReportFormat::kJunit:
      return Junit(r);
    case CheckReportFormat::kGithub:
      return Github(r);
  }
  return Text(r);
}

}  // namespace deltaguard
