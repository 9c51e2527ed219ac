// `deltaguard check TABLE`: the data tests of one commit against its baseline
// (docs/data_tests.md). The work is the library's (table/data_check.h); this file is
// flags and printing.

#include <iostream>

#include "cli_common.h"
#include "deltaguard/quality/check_report.h"
#include "deltaguard/table/data_check.h"

namespace deltaguard::cli {
namespace {

const FlagSpec kCheckFlags{
    {"--version", "--baseline", "--format", "--tests", "--contract-object"}, {}};

}  // namespace

int RunCheck(const std::vector<std::string>& argv) {
  auto args = ParseArgs(argv, kCheckFlags);
  if (!args) return ReportError(args.error(), "");
  if (args->positional.size() != 1) {
    return ReportError(
        MakeError(ErrorCode::kInvalidArgument,
                  "usage: deltaguard check TABLE [--tests FILE [--contract-object NAME]] "
                  "[--version N] [--baseline trailing:N|trailing:Nd] "
                  "[--format text|json|junit|github]"),
        "");
  }
  const std::string& table = args->positional[0];
  auto format = ParseCheckReportFormat(args->Get("--format").value_or("text"));
  if (!format) return ReportError(format.error(), table);
  DataCheckOptions options;
  if (auto v = args->Get("--version")) {
    auto parsed = ParseInt64(*v, "--version");
    if (!parsed) return ReportError(parsed.error(), table);
    options.version = *parsed;
  }
  if (auto b = args->Get("--baseline")) {
    auto spec = ParseBaselineSpec(*b);
    if (!spec) return ReportError(spec.error(), table);
    options.baseline = *spec;
  }
  if (auto tests = args->Get("--tests")) {
    auto suite = LoadDataTests(*MakeLocalFileSystem(), *tests,
                               args->Get("--contract-object").value_or(""));
    if (!suite) return ReportError(suite.error(), table);
    options.suite = std::make_shared<const DataTestSuite>(std::move(*suite));
  }
  auto report = CheckTableData(MakeLocalFileSystem(), table, options);
  if (!report) return ReportError(report.error(), table);
  std::cout << RenderCheckReport(*report, *format);
  // 0 passed or warnings, 1 a failing test, 3 a test that could not run (as Soda's
  // runtime issue); a bad tests file or table is 2 or 3 through ReportError.
  if (report->outcome() == CheckOutcome::kFailed) return kExitRefused;
  if (report->outcome() == CheckOutcome::kError) return kExitIo;
  return kExitOk;
}

}  // namespace deltaguard::cli
