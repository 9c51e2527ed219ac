// `deltaguard describe`: everything a person needs to know about a table at one version
// (rendered by table/table_report.h, which Python's Table.describe() shares).

#include <iostream>

#include "cli_common.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/table_report.h"

namespace deltaguard::cli {

int RunDescribe(const std::vector<std::string>& argv) {
  FlagSpec spec{{"--version", "--timestamp", "--format"}, {}};
  auto args = ParseArgs(argv, spec);
  if (!args) return ReportError(args.error(), "");
  if (args->positional.size() != 1) {
    return ReportError(MakeError(ErrorCode::kInvalidArgument,
                                 "usage: deltaguard describe TABLE [--version N | "
                                 "--timestamp T] [--format text|json]"),
                       "");
  }
  const std::string& table = args->positional[0];
  auto format = ParseReportFormat(args->Get("--format").value_or("text"));
  if (!format) return ReportError(format.error(), table);
  auto snapshot_spec = SnapshotSpecFromArgs(*args);
  if (!snapshot_spec) return ReportError(snapshot_spec.error(), table);
  auto snapshot_or = OpenSnapshot(table, *snapshot_spec);
  if (!snapshot_or) return ReportError(snapshot_or.error(), table);
  auto report = DescribeReport(**snapshot_or, *format);
  if (!report) return ReportError(report.error(), table);
  std::cout << *report;
  std::cout.flush();
  return kExitOk;
}

}  // namespace deltaguard::cli
