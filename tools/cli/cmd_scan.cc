// `deltaguard scan`: print the rows of a table (optionally time-travelled/projected).

#include <iostream>

#include "cli_common.h"
#include "deltaguard/exec/result_format.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/table/table.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::cli {

Result<SnapshotSpec> SnapshotSpecFromArgs(const Args& args) {
  SnapshotSpec spec;
  auto version = args.Get("--version");
  auto timestamp = args.Get("--timestamp");
  if (version && timestamp) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--version and --timestamp cannot be used together");
  }
  if (version) {
    DELTA_ASSIGN_OR_RETURN(int64_t v, ParseInt64(*version, "--version"));
    if (v < 0) return MakeError(ErrorCode::kInvalidArgument, "--version must be >= 0");
    spec.version = v;
  }
  if (timestamp) {
    DELTA_ASSIGN_OR_RETURN(spec.timestamp_ms, ParseTimestampMillis(*timestamp));
  }
  return spec;
}

int RunScan(const std::vector<std::string>& argv) {
  FlagSpec spec{{"--version", "--timestamp", "--columns", "--limit", "--format"}, {}};
  auto args = ParseArgs(argv, spec);
  if (!args) return ReportError(args.error(), "");
  if (args->positional.size() != 1) {
    return ReportError(
        MakeError(ErrorCode::kInvalidArgument,
                  "usage: deltaguard scan TABLE [--version N] "
                  "[--columns a,b.c] [--limit N] [--format table|csv|jsonl]"),
        "");
  }
  const std::string& table = args->positional[0];
  auto snapshot_spec = SnapshotSpecFromArgs(*args);
  if (!snapshot_spec) return ReportError(snapshot_spec.error(), table);
  ScanOptions options;
  if (auto cols = args->Get("--columns")) {
    for (auto part : Split(*cols, ',')) {
      std::string_view name = Trim(part);
      if (name.empty()) {
        return ReportError(MakeError(ErrorCode::kInvalidArgument,
                                     "empty column name in --columns '{}'", *cols),
                           table);
      }
      options.columns.emplace_back(name);
    }
  }
  if (auto limit = args->Get("--limit")) {
    auto n = ParseInt64(*limit, "--limit");
    if (!n) return ReportError(n.error(), table);
    if (*n < 0) {
      return ReportError(MakeError(ErrorCode::kInvalidArgument, "--limit must be >= 0"),
                         table);
    }
    options.limit = *n;
  }
  auto format = ParseOutputFormat(args->Get("--format").value_or("table"));
  if (!format) return ReportError(format.error(), table);

  auto snapshot = OpenSnapshot(table, *snapshot_spec);
  if (!snapshot) return ReportError(snapshot.error(), table);
  auto scan = TableScan::Make(*snapshot, options);
  if (!scan) return ReportError(scan.error(), table);
  ResultWriter writer(std::cout, *format, (*scan)->output_schema());
  while (true) {
    auto batch = (*scan)->Next();
    if (!batch) {
      std::cout.flush();
      // A data file that vanished is a broken table, not a usage error.
      Error e = batch.error();
      if (e.code == ErrorCode::kNotFound) e.code = ErrorCode::kCorruptData;
      return ReportError(e, table);
    }
    if (*batch == nullptr) break;
    auto st = writer.Write(**batch);
    if (!st) return ReportError(st.error(), table);
  }
  auto st = writer.Finish();
  if (!st) return ReportError(st.error(), table);
  return kExitOk;
}

}  // namespace deltaguard::cli
