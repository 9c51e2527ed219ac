// `contract lint` over files and its renderings (contract/lint.h).

#include <fmt/format.h>

#include <algorithm>

#include "deltaguard/contract/lint.h"
#include "deltaguard/util/report_format.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

LintedFile FromParse(Result<ContractParse> parse, std::string_view file) {
  LintedFile out;
  out.file = std::string(file);
  if (!parse) {
    // Unreadable or not YAML: one error naming where the reader stopped.
    out.diagnostics.push_back({ContractDiagnostic::Severity::kError, out.file, 0, 0, "",
                               parse.error().message});
    return out;
  }
  const bool parsed_clean = !parse->HasErrors();
  out.diagnostics = std::move(parse->diagnostics);
  if (parsed_clean) {
    for (auto& d : LintContract(parse->contract)) out.diagnostics.push_back(std::move(d));
  }
  std::stable_sort(out.diagnostics.begin(), out.diagnostics.end(),
                   [](const ContractDiagnostic& a, const ContractDiagnostic& b) {
                     return a.line < b.line;
                   });
  return out;
}

}  // namespace

bool LintedFile::valid() const { return errors() == 0; }

size_t LintedFile::errors() const {
  return static_cast<size_t>(std::count_if(diagnostics.begin(), diagnostics.end(),
                                           [](const auto& d) { return d.is_error(); }));
}

size_t LintedFile::warnings() const { return diagnostics.size() - errors(); }

LintedFile LintContractFile(const FileSystem& fs, const std::string& path) {
  return FromParse(ReadContract(fs, path), path);
}

LintedFile LintContractText(std::string_view text, std::string_view file) {
  return FromParse(ParseContract(text, file), file);
}

std::string LintText(const std::vector<LintedFile>& files) {
  std::string out;
  size_t errors = 0, warnings = 0, invalid = 0;
  for (const auto& f : files) {
    for (const auto& d : f.diagnostics) out += d.ToString() + "\n";
    errors += f.errors();
    warnings += f.warnings();
    invalid += !f.valid();
    if (f.diagnostics.empty()) out += f.file + ": ok\n";
  }
  out += fmt::format(
      "{} file{} linted: {} valid, {} invalid ({} error{}, {} warning{})\n", files.size(),
      files.size() == 1 ? "" : "s", files.size() - invalid, invalid, errors,
      errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
  return out;
}

std::string LintJson(const std::vector<LintedFile>& files) {
  bool valid =
      std::all_of(files.begin(), files.end(), [](const auto& f) { return f.valid(); });
  std::string out = "{";
  AppendJsonRawField(&out, "valid", valid ? "true" : "false");
  std::string list = "[";
  for (const auto& f : files) {
    if (list.size() > 1) list += ",";
    std::string o = "{";
    AppendJsonField(&o, "file", f.file);
    AppendJsonRawField(&o, "valid", f.valid() ? "true" : "false");
    AppendJsonRawField(&o, "errors", std::to_string(f.errors()));
    AppendJsonRawField(&o, "warnings", std::to_string(f.warnings()));
    std::string ds = "[";
    for (const auto& d : f.diagnostics) {
      if (ds.size() > 1) ds += ",";
      std::string x = "{";
      AppendJsonField(&x, "severity", d.is_error() ? "error" : "warning");
      AppendJsonRawField(&x, "line", std::to_string(d.line));
      AppendJsonRawField(&x, "column", std::to_string(d.column));
      AppendJsonField(&x, "key", d.key);
      AppendJsonField(&x, "message", d.message);
      ds += x + "}";
    }
    AppendJsonRawField(&o, "diagnostics", ds + "]");
    list += o + "}";
  }
  AppendJsonRawField(&out, "files", list + "]");
  return out + "}";
}

std::string LintJunit(const std::vector<LintedFile>& files) {
  std::string cases;
  size_t failures = 0;
  for (const auto& f : files) {
    cases += fmt::format("  <testcase classname=\"contract.lint\" name=\"{}\"",
                         XmlEscape(f.file));
    if (f.valid()) {
      cases += "/>\n";
      continue;
    }
    ++failures;
    std::string text;
    for (const auto& d : f.diagnostics) {
      if (d.is_error()) text += d.ToString() + "\n";
    }
    cases += fmt::format("><failure message=\"{} error(s)\">{}</failure></testcase>\n",
                         f.errors(), XmlEscape(text));
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"contract lint\" "
      "tests=\"{}\" failures=\"{}\">\n{}</testsuite>\n",
      files.size(), failures, cases);
}

std::string LintGithub(const std::vector<LintedFile>& files) {
  std::string out;
  for (const auto& f : files) {
    for (const auto& d : f.diagnostics) {
      out += fmt::format("::{} file={},line={},col={}::{}\n",
                         d.is_error() ? "error" : "warning", GithubEscape(f.file),
                         std::max(d.line, 1), std::max(d.column, 1),
                         GithubEscape((d.key.empty() ? "" : d.key + ": ") + d.message));
    }
  }
  return out;
}

}  // namespace deltaguard
