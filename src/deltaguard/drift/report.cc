#include "deltaguard/drift/report.h"

#include "deltaguard/evolution/schema_format.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

void Field(std::string* out, std::string_view key, std::string_view value) {
  if (out->back() != '{') *out += ',';
  AppendJsonString(out, key);
  *out += ':';
  AppendJsonString(out, value);
}

void RawField(std::string* out, std::string_view key, std::string_view raw) {
  if (out->back() != '{') *out += ',';
  AppendJsonString(out, key);
  *out += ':';
  *out += raw;
}

std::string Xml(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// GitHub workflow commands end at a line break; '%' escapes (its documented encoding).
std::string GithubEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '%') {
      out += "%25";
    } else if (c == '\n') {
      out += "%0A";
    } else if (c == '\r') {
      out += "%0D";
    } else {
      out += c;
    }
  }
  return out;
}

std::string MarkdownCell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

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
  Field(&out, "class", ChangeClassName(c.cls));
  Field(&out, "path", c.path);
  Field(&out, "old_path", c.old_path);
  Field(&out, "before", c.before);
  Field(&out, "after", c.after);
  Field(&out, "risk", RiskName(c.risk));
  Field(&out, "backward", CompatName(c.backward));
  Field(&out, "forward", CompatName(c.forward));
  Field(&out, "spark", c.info().spark);
  Field(&out, "deltaguard", c.info().deltaguard);
  Field(&out, "option", c.info().option);
  RawField(&out, "heuristic", c.info().heuristic ? "true" : "false");
  RawField(&out, "score", c.score ? fmt::format("{:.3f}", *c.score) : "null");
  Field(&out, "evidence", c.evidence);
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
    Field(&s, "label", label);
    RawField(&s, "schema", schema ? SchemaToJson(*schema) : "null");
    return s + "}";
  };
  std::string out = "{";
  RawField(&out, "before", side(r.before_label, r.before_schema));
  RawField(&out, "after", side(r.after_label, r.after_schema));
  RawField(&out, "changes", DriftChangesJson(r.changes));
  if (r.verdict.mode == CompatMode::kNone) {
    RawField(&out, "verdict", "null");
  } else {
    std::string v = "{";
    Field(&v, "mode", CompatModeName(r.verdict.mode));
    RawField(&v, "compatible", r.verdict.compatible ? "true" : "false");
    std::string list = "[";
    for (size_t i = 0; i < r.verdict.breaking.size(); ++i) {
      const auto& b = r.verdict.breaking[i];
      if (i) list += ',';
      std::string item = "{";
      RawField(&item, "change", std::to_string(b.change));
      Field(&item, "direction", b.direction);
      Field(&item, "reason", b.reason);
      list += item + "}";
    }
    RawField(&v, "breaking", list + "]");
    RawField(&out, "verdict", v + "}");
  }
  Field(&out, "fail_on", FailBarName(r.fail_on));
  RawField(&out, "fails", ReportFails(r) ? "true" : "false");
  std::string inferred = "[";
  for (size_t i = 0; i < r.inferred.size(); ++i) {
    const auto& c = r.inferred[i];
    if (i) inferred += ',';
    std::string item = "{";
    Field(&item, "column", c.column);
    Field(&item, "inferred_type", c.inferred_type);
    Field(&item, "table_type", c.table_type);
    Field(&item, "cast", c.cast);
    inferred += item + "}";
  }
  RawField(&out, "inferred", inferred + "]");
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
                     Xml("schema drift " + r.before_label + " -> " + r.after_label),
                     tests, failures);
  if (r.changes.empty()) {
    out += "<testcase classname=\"drift\" name=\"no schema changes\"/>\n";
  }
  for (size_t i = 0; i < r.changes.size(); ++i) {
    const DriftChange& c = r.changes[i];
    out += fmt::format("<testcase classname=\"drift.{}\" name=\"{}\"",
                       ChangeClassName(c.cls), Xml(c.path.empty() ? "(table)" : c.path));
    if (!ChangeFails(r, i)) {
      out += "/>\n";
      continue;
    }
    out += fmt::format("><failure message=\"{}\">{}</failure></testcase>\n",
                       Xml(c.Summary()), Xml("way forward: " + WayForward(c)));
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

}  // namespace deltaguard
