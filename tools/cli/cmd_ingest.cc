// `deltaguard ingest`: incremental ingestion of a source directory into a Delta table
// with Auto Loader's semantics (ingest/ingest.h, docs/ingest.md).

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <iostream>

#include "cli_common.h"
#include "deltaguard/ingest/ingest.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::cli {
namespace {

constexpr const char* kIngestUsage =
    "usage: deltaguard ingest SOURCE_DIR TABLE --checkpoint DIR "
    "[--format json|csv|text|parquet] [--option key=value]... [--schema DDL] "
    "[--trigger once|available-now|continuous[=INTERVAL]] "
    "[--check auto|TESTS_FILE [--on-check-failure fail|warn|quarantine=QTABLE] "
    "[--baseline trailing:N|trailing:Nd]] [--output text|json]";

std::atomic<bool> g_stop{false};

extern "C" void OnStopSignal(int) { g_stop.store(true); }

std::string Bytes(int64_t n) {
  if (n >= (int64_t{1} << 30)) return fmt::format("{:.1f} GiB", n / 1073741824.0);
  if (n >= (int64_t{1} << 20)) return fmt::format("{:.1f} MiB", n / 1048576.0);
  if (n >= 1024) return fmt::format("{:.1f} KiB", n / 1024.0);
  return fmt::format("{} B", n);
}

// A progress bar on a terminal while a backlog is worked through (stderr, one line
// redrawn per batch; cleared before anything else is printed).
class ProgressBar {
 public:
  ProgressBar() : enabled_(::isatty(STDERR_FILENO) == 1) {}
  void Update(const BatchProgress& p) {
    if (!enabled_) return;
    done_files_ += p.files;
    rows_ += p.rows;
    const int64_t total = done_files_ + p.backlog_files;
    if (total <= 0 || (p.backlog_files == 0 && !shown_)) return;
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(kWidth * done_files_ / total);
    std::cerr << fmt::format("\r[{}{}] {}/{} files, {} rows", std::string(filled, '#'),
                             std::string(kWidth - filled, '.'), done_files_, total, rows_)
              << std::flush;
    shown_ = true;
  }
  void Clear() {
    if (shown_) std::cerr << "\r\033[K" << std::flush;
    shown_ = false;
  }

 private:
  bool enabled_;
  bool shown_ = false;
  int64_t done_files_ = 0;
  int64_t rows_ = 0;
};

void PrintBatch(const BatchProgress& p, bool json, ProgressBar* bar) {
  if (json) {
    std::cout << BatchProgressJson(p) << std::endl;
    return;
  }
  bar->Clear();
  std::string extra;
  if (p.rescued_rows > 0) extra += fmt::format(", {} rescued", p.rescued_rows);
  if (p.malformed_rows > 0) extra += fmt::format(", {} malformed", p.malformed_rows);
  if (p.dropped_rows > 0) extra += fmt::format(", {} dropped", p.dropped_rows);
  std::string where = p.table_version >= 0 ? fmt::format("version {}", p.table_version)
                                           : std::string("already in the table");
  std::cout << fmt::format(
                   "batch {}{}: {} file{}, {} row{}{} ({}) -> {} [schema {}] "
                   "({:.2f} s)",
                   p.batch, p.replayed ? " (replayed)" : "", p.files,
                   p.files == 1 ? "" : "s", p.rows, p.rows == 1 ? "" : "s", extra,
                   Bytes(p.bytes), where, p.schema_version, p.seconds)
            << std::endl;
  for (const auto& w : p.warnings) std::cout << "  warning: " << w << std::endl;
  bar->Update(p);
}

}  // namespace

int RunIngest(const std::vector<std::string>& argv) {
  auto args = ParseArgs(
      argv, FlagSpec{{"--checkpoint", "--format", "--option", "--schema", "--trigger",
                      "--check", "--on-check-failure", "--baseline", "--output"},
                     {}});
  if (!args) return ReportError(args.error(), "");
  if (args->positional.size() != 2 || !args->Get("--checkpoint")) {
    return ReportError(MakeError(ErrorCode::kInvalidArgument, "{}", kIngestUsage), "");
  }
  IngestRequest request;
  request.source = args->positional[0];
  request.table = args->positional[1];
  request.checkpoint = *args->Get("--checkpoint");
  std::vector<std::pair<std::string, std::string>> pairs;
  if (auto f = args->Get("--format")) pairs.emplace_back("cloudFiles.format", *f);
  if (auto s = args->Get("--schema")) pairs.emplace_back("schema", *s);
  if (args->all_values.count("--option")) {
    for (const std::string& kv : args->all_values.at("--option")) {
      const size_t eq = kv.find('=');
      if (eq == std::string::npos) {
        return ReportError(MakeError(ErrorCode::kInvalidArgument,
                                     "--option '{}' is not of the form key=value", kv),
                           request.table);
      }
      pairs.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
  }
  auto options = ParseIngestOptions(pairs);
  if (!options) return ReportError(options.error(), request.table);
  request.options = std::move(*options);
  if (auto t = args->Get("--trigger")) {
    auto trigger = ParseIngestTrigger(*t, &request.interval_ms);
    if (!trigger) return ReportError(trigger.error(), request.table);
    request.trigger = *trigger;
  }
  auto check = CheckOptionsFrom(*args);
  if (!check) return ReportError(check.error(), request.table);
  request.check = std::move(*check);
  const std::string output = args->Get("--output").value_or("text");
  if (output != "text" && output != "json") {
    return ReportError(MakeError(ErrorCode::kInvalidArgument,
                                 "--output must be text or json, got '{}'", output),
                       request.table);
  }
  const bool json = output == "json";
  // SIGINT/SIGTERM finish the current batch, then stop (continuous and backlogs).
  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);
  request.stop_requested = [] { return g_stop.load(); };
  IngestResult partial;
  ProgressBar bar;
  auto result = RunIngest(
      MakeLocalFileSystem(), request,
      [json, &bar](const BatchProgress& p) { PrintBatch(p, json, &bar); }, &partial);
  bar.Clear();
  const IngestResult& done = result ? *result : partial;
  for (const auto& f : done.changed_files) {
    std::cerr << "deltaguard: warning: '" << f
              << "' changed after a batch took it; it is not read again" << std::endl;
  }
  if (!result) return ReportError(result.error(), request.table);
  if (!json && result->batches.empty()) std::cout << "no new files" << std::endl;
  return kExitOk;
}

}  // namespace deltaguard::cli
