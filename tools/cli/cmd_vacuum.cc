// `deltaguard vacuum`: delete the files no version within the retention window needs
// (table/vacuum.h), or list them with --dry-run.

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <iostream>

#include "cli_common.h"
#include "deltaguard/table/vacuum.h"
#include "deltaguard/table/write.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::cli {
namespace {

constexpr const char* kVacuumUsage =
    "usage: deltaguard vacuum TABLE [--retain-hours N] [--dry-run] "
    "[--conf key=value]... [--format text|json]";

Result<double> ParseHours(const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--retain-hours '{}' is not a number of hours", text);
  }
  return v;
}

}  // namespace

int RunVacuum(const std::vector<std::string>& argv) {
  auto args =
      ParseArgs(argv, FlagSpec{{"--retain-hours", "--format", "--conf"}, {"--dry-run"}});
  if (!args) return ReportError(args.error(), "");
  if (args->positional.size() != 1) {
    return ReportError(MakeError(ErrorCode::kInvalidArgument, "{}", kVacuumUsage), "");
  }
  const std::string& table = args->positional[0];
  auto format = TextOrJsonFormat(*args);
  if (!format) return ReportError(format.error(), table);
  SessionSettings settings;
  if (args->all_values.count("--conf")) {
    for (const std::string& kv : args->all_values.at("--conf")) {
      size_t eq = kv.find('=');
      Status st = eq == std::string::npos
                      ? Status(MakeError(ErrorCode::kInvalidArgument,
                                         "--conf '{}' is not of the form key=value", kv))
                      : settings.Set(kv.substr(0, eq), kv.substr(eq + 1));
      if (!st) return ReportError(st.error(), table);
    }
  }
  VacuumOptions options;
  options.dry_run = args->Has("--dry-run");
  options.retention_check = settings.retention_duration_check;
  options.logging = settings.vacuum_logging;
  if (auto hours = args->Get("--retain-hours")) {
    auto parsed = ParseHours(*hours);
    if (!parsed) return ReportError(parsed.error(), table);
    options.retain_hours = *parsed;
  }
  auto result = Vacuum(MakeLocalFileSystem(), table, options);
  if (!result) return ReportError(result.error(), table);
  std::string out;
  if (*format == "json") {
    std::vector<std::string> files = result->files;
    out = fmt::format("{{\"table\":{},\"dry_run\":{},\"retention_hours\":{},\"files\":",
                      JsonQuote(result->table_root), result->dry_run ? "true" : "false",
                      static_cast<double>(result->retention_ms) / 3600000.0);
    AppendJsonStringArray(files, &out);
    out += fmt::format(
        ",\"num_files\":{},\"bytes\":{},\"dirs_deleted\":{},\"dirs_scanned\":{}",
        result->files.size(), result->bytes, result->dirs_deleted, result->dirs_scanned);
    if (result->start_version)
      out += fmt::format(",\"start_version\":{}", *result->start_version);
    if (result->end_version)
      out += fmt::format(",\"end_version\":{}", *result->end_version);
    out += "}\n";
  } else {
    for (const std::string& f : result->files) out += f + "\n";
    if (result->dry_run) {
      out += fmt::format(
          "Found {} files ({} bytes) in {} directories that would be "
          "deleted (dry run; retention {} hours)\n",
          result->files.size(), result->bytes, result->dirs_scanned,
          static_cast<double>(result->retention_ms) / 3600000.0);
    } else {
      out += fmt::format(
          "Deleted {} files ({} bytes) and {} directories in {} "
          "directories (retention {} hours)\n",
          result->files.size(), result->bytes, result->dirs_deleted, result->dirs_scanned,
          static_cast<double>(result->retention_ms) / 3600000.0);
    }
  }
  std::cout << out;
  return kExitOk;
}

}  // namespace deltaguard::cli
