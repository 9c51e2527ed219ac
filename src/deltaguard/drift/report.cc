#include "deltaguard/drift/report.h"

#include "deltaguard/evolution/schema_format.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/util/report_format.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

std::string WayForward(const DriftChange& c) {
  std::string_view option = c.info().option;
  return option.empty() ? "nothing to do" : std::string(option);
}

std::string VerdictLine(const DriftReport& r) {
  if (r.verdict.mode == CompatMode::kNone) return "";
  if (r.verdict.compatible) {
    return fmt::format("verdict: {} compatible", CompatModeName(r.verdict.mode));
  }
  std::string s =
      fmt::format("verdict: {} broken by {} change(s):", CompatModeName(r.verdict.mode),
                  r.verdict.breaking.size());
  for (const auto& b : r.verdict.breaking) {
    const DriftChange& c = r.changes[b.change];
    s += fmt::format("\n  {} {} {}: {}", b.direction, ChangeClassName(c.cls),
                     c.path.empty() ? "(table)" : c.path, b.reason);
  }
  return s;
}

}  // namespace

Result<FailBar> ParseFailBar(std::string_view name) {
  if (EqualsIgnoreCase(name, "breaking")) return FailBar::kBreaking;
  if (EqualsIgnoreCase(name, "high")) return FailBar::kHigh;
  if (EqualsIgnoreCase(name, "any")) return FailBar::kAny;
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown --fail-on '{}' (one of breaking, high, any)", name);
}

std::string_view FailBarName(FailBar bar) {
  switch (bar) {
    case FailBar::kBreaking:
      return "breaking";
    case FailBar::kHigh:
      return "high";
    case FailBar::kAny:
      return "any";
  }
  return "high";
}

bool ChangeFails(const DriftReport& report, size_t i) {
  switch (report.fail_on) {
    case FailBar::kAny:
      return true;
    case FailBar::kHigh:
      return report.changes[i].risk != Risk::kLow;
    case FailBar::kBreaking:
      for (const auto& b : report.verdict.breaking) {
        if (b.change == i) return true;
      }
      return false;
  }
  return false;
}

bool ReportFails(const DriftReport& report) {
  for (size_t i = 0; i < report.changes.size(); ++i) {
    if (ChangeFails(report, i)) return true;
  }
  return false;
}

std::string DriftChangeJson(const DriftChange& c) {
  std::string out = "{";
  AppendJsonField(&out, "class", ChangeClassName(c.cls));
  AppendJsonField(&out, "path", c.path);
  AppendJsonField(&out, "old_path", c.old_path);
  AppendJsonField(&out, "before", c.before);
  AppendJsonField(&out, "after", c.after);
  AppendJsonField(&out, "risk", RiskName(c.risk));
  AppendJsonField(&out, "backward", CompatName(c.backward));
  AppendJsonField(&out, "forward", CompatName(c.forward));
  AppendJsonField(&out, "spark", c.info().spark);
  AppendJsonField(&out, "deltaguard", c.info().deltaguard);
  AppendJsonField(&out, "option", c.info().option);
  AppendJsonRawField(&out, "heuristic", c.info().heuristic ? "true" : "false");
  AppendJsonRawField(&out, "score", c.score ? fmt::format("{:.3f}", *c.score) : "null");
  AppendJsonField(&out, "evidence", c.evidence);
  return out + "}";
}

std::string DriftChangesJson(const std::vector<DriftChange>& changes) {
  std::string out = "[";
  for (size_t i = 0; i < changes.size(); ++i) {
    if (i) out += ',';
    out += DriftChangeJson(changes[i]);
  }
  return out + "]";
}

std::string DriftReportJson(const DriftReport& r) {
  auto side = [](const std::string& label, const SchemaRef& schema) {
    std::string s = "{";
    AppendJsonField(&s, "label", label);
    AppendJsonRawField(&s, "schema", schema ? SchemaToJson(*schema) : "null");
    return s + "}";
  };
  std::string out = "{";
  AppendJsonRawField(&out, "before", side(r.before_label, r.before_schema));
  AppendJsonRawField(&out, "after", side(r.after_label, r.after_schema));
  AppendJsonRawField(&out, "changes", DriftChangesJson(r.changes));
  if (r.verdict.mode == CompatMode::kNone) {
    AppendJsonRawField(&out, "verdict", "null");
  } else {
    std::string v = "{";
    AppendJsonField(&v, "mode", CompatModeName(r.verdict.mode));
    AppendJsonRawField(&v, "compatible", r.verdict.compatible ? "true" : "false");
    std::string list = "[";
    for (size_t i = 0; i < r.verdict.breaking.size(); ++i) {
      const auto& b = r.verdict.breaking[i];
      if (i) list += ',';
      std::string item = "{";
      AppendJsonRawField(&item, "change", std::to_string(b.change));
      AppendJsonField(&item, "direction", b.direction);
      AppendJsonField(&item, "reason", b.reason);
      list += item + "}";
    }
    AppendJsonRawField(&v, "breaking", list + "]");
    AppendJsonRawField(&out, "verdict", v + "}");
  }
  AppendJsonField(&out, "fail_on", FailBarName(r.fail_on));
  AppendJsonRawField(&out, "fails", ReportFails(r) ? "true" : "false");
  std::string inferred = "[";
  for (size_t i = 0; i < r.inferred.size(); ++i) {
    const auto& c = r.inferred[i];
    if (i) inferred += ',';
    std::string item = "{";
    AppendJsonField(&item, "column", c.column);
    AppendJsonField(&item, "inferred_type", c.inferred_type);
    AppendJsonField(&item, "table_type", c.table_type);
    AppendJsonField(&item, "cast", c.cast);
    inferred += item + "}";
  }
  AppendJsonRawField(&out, "inferred", inferred + "]");
  return out + "}";
}

std::string DriftReportText(const DriftReport& r) {
  std::string out;
  if (r.before_schema && r.after_schema) {
    out += FormatSchemaComparison(*r.before_schema, *r.after_schema, r.before_label,
                                  r.after_label);
    out += "\n\n";
  }
  if (!r.inferred.empty()) {
    out += "inferred input types:\n";
    for (const auto& c : r.inferred) {
      if (c.table_type.empty()) {
        out += fmt::format("  {}: inferred {} ({})\n", c.column, c.inferred_type, c.cast);
      } else {
        out += fmt::format("  {}: inferred {}, table {}: {}\n", c.column, c.inferred_type,
                           c.table_type, c.cast);
      }
    }
    out += "\n";
  }
  if (r.changes.empty()) out += "no schema changes\n";
  for (size_t i = 0; i < r.changes.size(); ++i) {
    const DriftChange& c = r.changes[i];
    out += fmt::format("{} {}\n", ChangeFails(r, i) ? "FAIL" : "    ", c.Summary());
    if (!c.evidence.empty()) out += fmt::format("       evidence: {}\n", c.evidence);
    out += fmt::format("       on append: Spark: {}; deltaguard: {}\n", c.info().spark,
                       c.info().deltaguard);
    out += fmt::format("       way forward: {}\n", WayForward(c));
  }
  std::string verdict = VerdictLine(r);
  if (!verdict.empty()) out += verdict + "\n";
  return out;
}

std::string DriftReportMarkdown(const DriftReport& r) {
  std::string out =
      fmt::format("### Schema drift: {} -> {}\n\n", MarkdownCell(r.before_label),
                  MarkdownCell(r.after_label));
  if (r.changes.empty()) {
    out += "No schema changes.\n";
  } else {
    out += "| | class | column | before | after | risk | way forward |\n";
    out += "|---|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < r.changes.size(); ++i) {
      const DriftChange& c = r.changes[i];
      std::string column = c.old_path.empty() ? c.path : c.old_path + " -> " + c.path;
      out += fmt::format(
          "| {} | `{}` | {} | {} | {} | {} | {} |\n", ChangeFails(r, i) ? "FAIL" : "",
          ChangeClassName(c.cls), MarkdownCell(column), MarkdownCell(c.before),
          MarkdownCell(c.after), RiskName(c.risk), MarkdownCell(WayForward(c)));
    }
  }
  std::string verdict = VerdictLine(r);
  if (!verdict.empty()) out += "\n" + verdict + "\n";
  return out;
}

std::string DriftReportJunit(const DriftReport& r) {
  size_t failures = 0;
  for (size_t i = 0; i < r.changes.size(); ++i) failures += ChangeFails(r, i);
  size_t tests = r.changes.empty() ? 1 : r.changes.size();
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites><testsuite name=\"{}\" tests=\"{}\" failures=\"{}\">\n",
                     XmlEscape("schema drift " + r.before_label + " -> " + r.after_label),
                     tests, failures);
  if (r.changes.empty()) {
    out += "<testcase classname=\"drift\" name=\"no schema changes\"/>\n";
  }
  for (size_t i = 0; i < r.changes.size(); ++i) {
    const DriftChange& c = r.changes[i];
    out += fmt::format("<testcase classname=\"drift.{}\" name=\"{}\"",
                       ChangeClassName(c.cls),
                       XmlEscape(c.path.empty() ? "(table)" : c.path));
    if (!ChangeFails(r, i)) {
      out += "/>\n";
      continue;
    }
    out +=
        fmt::format("><failure message=\"{}\">{}</failure></testcase>\n",
                    XmlEscape(c.Summary()), XmlEscape("way forward: " + WayForward(c)));
  }
  return out + "</testsuite></testsuites>\n";
}

std::string DriftReportGithub(const DriftReport& r) {
  std::string out;
  for (size_t i = 0; i < r.changes.size(); ++i) {
    const DriftChange& c = r.changes[i];
    out += fmt::format("::{} title={}::{}. Way forward: {}\n",
                       ChangeFails(r, i) ? "error" : "warning", ChangeClassName(c.cls),
                       GithubEscape(c.Summary()), GithubEscape(WayForward(c)));
  }
  return out;
}

Result<DriftReportFormat> ParseDriftReportFormat(std::string_view name) {
  if (EqualsIgnoreCase(name, "text")) return DriftReportFormat::kText;
  if (EqualsIgnoreCase(name, "json")) return DriftReportFormat::kJson;
  if (EqualsIgnoreCase(name, "markdown")) return DriftReportFormat::kMarkdown;
  if (EqualsIgnoreCase(name, "junit")) return DriftReportFormat::kJunit;
  if (EqualsIgnoreCase(name, "github")) return DriftReportFormat::kGithub;
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown --format '{}' (one of text, json, markdown, junit, github)",
                   name);
}

std::string RenderDriftReport(const DriftReport& report, DriftReportFormat format) {
  switch (format) {
    case DriftReportFormat::kJson:
      return DriftReportJson(report);
    case DriftReportFormat::kMarkdown:
      return DriftReportMarkdown(report);
    case DriftReportFormat::kJunit:
      return DriftReportJunit(report);
    case DriftReportFormat::kGithub:
      return DriftReportGithub(report);
    case DriftReportFormat::kText:
      break;
  }
  return DriftReportText(report);
}

}  // namespace deltaguard
