// `deltaguard drift TABLE INPUT...` and `deltaguard diff A B`: classify the schema
// changes between a table and incoming data, or between any two of a table version, a
// data file and schema text (docs/drift.md). The sides and the report come from the
// library (table/drift_sources.h); this file is flags and printing.

#include <iostream>

#include "cli_common.h"
#include "deltaguard/drift/report.h"
#include "deltaguard/exec/input_source.h"
#include "deltaguard/table/drift_sources.h"
#include "deltaguard/table/table.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::cli {
namespace {

const FlagSpec kDriftFlags{{"--mode", "--format", "--fail-on", "--input-format",
                            "--delimiter", "--version", "--timestamp"},
                           {"--no-header"}};

struct OutputOptions {
  DriftReportFormat format = DriftReportFormat::kText;
  std::optional<CompatMode> mode;
  FailBar fail_on = FailBar::kHigh;
};

Result<OutputOptions> OutputOptionsFrom(const Args& args) {
  OutputOptions o;
  DELTA_ASSIGN_OR_RETURN(o.format,
                         ParseDriftReportFormat(args.Get("--format").value_or("text")));
  if (auto mode = args.Get("--mode")) {
    DELTA_ASSIGN_OR_RETURN(o.mode, ParseCompatMode(*mode));
  }
  o.fail_on = o.mode ? FailBar::kBreaking : FailBar::kHigh;
  if (auto bar = args.Get("--fail-on")) {
    DELTA_ASSIGN_OR_RETURN(o.fail_on, ParseFailBar(*bar));
  }
  return o;
}

Result<InputOptions> InputOptionsFrom(const Args& args) {
  InputOptions options;
  if (auto format = args.Get("--input-format")) {
    DELTA_ASSIGN_OR_RETURN(options.format, ParseInputFormat(*format));
  }
  options.csv_header = !args.Has("--no-header");
  if (auto d = args.Get("--delimiter")) {
    std::string c = *d == "\\t" ? "\t" : *d;
    if (c.size() != 1) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "--delimiter must be one character, got '{}'", *d);
    }
    options.csv_delimiter = c[0];
  }
  return options;
}

int Emit(const DriftSource& before, const DriftSource& after, const OutputOptions& o) {
  DriftReportOptions options;
  options.mode = o.mode;
  options.fail_on = o.fail_on;
  auto report = BuildDriftReport(before, after, options);
  if (!report) return ReportError(report.error(), before.label);
  std::cout << RenderDriftReport(*report, o.format);
  if (o.format == DriftReportFormat::kJson) std::cout << "\n";
  return ReportFails(*report) ? kExitRefused : kExitOk;
}

}  // namespace

int RunDrift(const std::vector<std::string>& argv) {
  auto args = ParseArgs(argv, kDriftFlags);
  if (!args) return ReportError(args.error(), "");
  if (args->positional.size() < 2) {
    return ReportError(
        MakeError(
            ErrorCode::kInvalidArgument,
            "usage: deltaguard drift TABLE INPUT... [--mode M] "
            "[--format text|json|markdown|junit|github] [--fail-on breaking|high|any]"),
        "");
  }
  const std::string& table = args->positional[0];
  auto output = OutputOptionsFrom(*args);
  if (!output) return ReportError(output.error(), table);
  auto input = InputOptionsFrom(*args);
  if (!input) return ReportError(input.error(), table);
  auto spec = SnapshotSpecFromArgs(*args);
  if (!spec) return ReportError(spec.error(), table);
  FileSystemRef fs = MakeLocalFileSystem();
  auto snapshot = OpenSnapshot(fs, table, *spec);
  if (!snapshot) return ReportError(snapshot.error(), table);
  auto before = TableDriftSource(fs, **snapshot,
                                 fmt::format("{}@v{}", table, (*snapshot)->version()));
  if (!before) return ReportError(before.error(), table);
  std::vector<std::string> inputs(args->positional.begin() + 1, args->positional.end());
  auto after = FileDriftSource(inputs, *input, before->side.schema);
  if (!after) return ReportError(after.error(), table);
  return Emit(*before, *after, *output);
}

int RunDiff(const std::vector<std::string>& argv) {
  auto args = ParseArgs(argv, kDriftFlags);
  if (!args) return ReportError(args.error(), "");
  if (args->positional.size() != 2) {
    return ReportError(
        MakeError(
            ErrorCode::kInvalidArgument,
            "usage: deltaguard diff A B (each a table, TABLE@vN, TABLE@TIMESTAMP, a "
            "data file, a schema file or schema text) [--mode M] [--format F] "
            "[--fail-on breaking|high|any]"),
        "");
  }
  auto output = OutputOptionsFrom(*args);
  if (!output) return ReportError(output.error(), "");
  auto input = InputOptionsFrom(*args);
  if (!input) return ReportError(input.error(), "");
  FileSystemRef fs = MakeLocalFileSystem();
  auto before = ResolveDriftSource(fs, args->positional[0], *input, nullptr);
  if (!before) return ReportError(before.error(), args->positional[0]);
  auto after = ResolveDriftSource(fs, args->positional[1], *input, before->side.schema);
  if (!after) return ReportError(after.error(), args->positional[1]);
  return Emit(*before, *after, *output);
}

}  // namespace deltaguard::cli
