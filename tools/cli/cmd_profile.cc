// `deltaguard profile TABLE`: column profiles of a table's commits (docs/profiles.md).
// Without --show it backfills: every commit in the range without a stored profile is
// profiled from the files it added and stored. With --show it prints the stored ones.
// The work is the library's (table/profiles.h); this file is flags and printing.

#include <iostream>

#include "cli_common.h"
#include "deltaguard/quality/profile_report.h"
#include "deltaguard/table/profiles.h"
#include "deltaguard/util/report_format.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::cli {
namespace {

const FlagSpec kProfileFlags{{"--versions", "--column", "--format"}, {"--show"}};

constexpr const char* kUsage =
    "usage: deltaguard profile TABLE [--versions A..B] (backfill) | deltaguard profile "
    "TABLE --show [--versions A..B] [--column C] [--format text|json]";

// "A..B", "A..", "..B" or "N" -> [from, to] (to < 0: no bound).
Result<std::pair<int64_t, int64_t>> ParseVersions(const std::optional<std::string>& v) {
  if (!v) return std::pair<int64_t, int64_t>{0, -1};
  const auto dots = v->find("..");
  if (dots == std::string::npos) {
    DELTA_ASSIGN_OR_RETURN(int64_t n, ParseInt64(*v, "--versions"));
    return std::pair{n, n};
  }
  int64_t from = 0, to = -1;
  if (dots > 0) {
    DELTA_ASSIGN_OR_RETURN(from, ParseInt64(v->substr(0, dots), "--versions start"));
  }
  if (dots + 2 < v->size()) {
    DELTA_ASSIGN_OR_RETURN(to, ParseInt64(v->substr(dots + 2), "--versions end"));
  }
  if (from < 0 || (to >= 0 && to < from)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--versions '{}' is not a range A..B with 0 <= A <= B", *v);
  }
  return std::pair{from, to};
}

std::string Listed(const std::vector<int64_t>& versions) {
  std::string out;
  for (int64_t v : versions) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out;
}

std::string JsonVersions(const std::vector<int64_t>& versions) {
  return "[" + Listed(versions) + "]";
}

}  // namespace

int RunProfile(const std::vector<std::string>& argv) {
  auto args = ParseArgs(argv, kProfileFlags);
  if (!args) return ReportError(args.error(), "");
  if (args->positional.size() != 1) {
    return ReportError(MakeError(ErrorCode::kInvalidArgument, "{}", kUsage), "");
  }
  const std::string& table = args->positional[0];
  auto format = TextOrJsonFormat(*args);
  if (!format) return ReportError(format.error(), table);
  auto range = ParseVersions(args->Get("--versions"));
  if (!range) return ReportError(range.error(), table);
  FileSystemRef fs = MakeLocalFileSystem();
  if (args->Has("--show")) {
    auto profiles = ReadProfiles(fs, table, range->first, range->second);
    if (!profiles) return ReportError(profiles.error(), table);
    auto column = args->Get("--column");
    if (*format == "json") {
      std::cout << ProfilesToJson(*profiles, column) << "\n";
    } else {
      std::cout << ProfilesToText(*profiles, column);
    }
    return kExitOk;
  }
  if (args->Get("--column")) {
    return ReportError(
        MakeError(ErrorCode::kInvalidArgument, "--column needs --show; {}", kUsage),
        table);
  }
  auto done = BackfillProfiles(fs, table, range->first, range->second);
  if (!done) return ReportError(done.error(), table);
  if (*format == "json") {
    std::string out = "{";
    AppendJsonRawField(&out, "profiled", JsonVersions(done->profiled));
    AppendJsonRawField(&out, "present", JsonVersions(done->present));
    AppendJsonRawField(&out, "no_data", JsonVersions(done->no_data));
    AppendJsonRawField(&out, "unavailable", JsonVersions(done->unavailable));
    std::cout << out << "}\n";
    return kExitOk;
  }
  std::cout << table << ": " << done->profiled.size() << " version"
            << (done->profiled.size() == 1 ? "" : "s") << " profiled";
  if (!done->profiled.empty()) std::cout << " (" << Listed(done->profiled) << ")";
  std::cout << ", " << done->present.size() << " already had a profile";
  if (!done->no_data.empty())
    std::cout << ", " << done->no_data.size() << " added no rows";
  if (!done->unavailable.empty()) {
    std::cout << ", " << done->unavailable.size() << " no longer in the log ("
              << Listed(done->unavailable) << ")";
  }
  std::cout << "\n";
  return kExitOk;
}

}  // namespace deltaguard::cli
