// `deltaguard history` and `deltaguard log`: the table's commits, one entry per
// version, and the actions of a single commit.

#include <iostream>
#include <type_traits>

#include "cli_common.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/table_report.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::cli {
namespace {

// Resolve and validate the table directory as OpenSnapshot does, without loading a
// snapshot: history must work even when old checkpoints are gone, and it reads every
// commit anyway (loading a snapshot first would replay the log a second time).
Result<std::string> TableRoot(const std::string& table) {
  DELTA_ASSIGN_OR_RETURN(std::string root, NormalizeTablePath(table));
  auto fs = MakeLocalFileSystem();
  DELTA_ASSIGN_OR_RETURN(bool has_log, fs->Exists(JoinPath(root, "_delta_log")));
  if (!has_log) {
    return MakeError(ErrorCode::kNotFound,
                     "'{}' is not a Delta table: no _delta_log directory", table);
  }
  return root;
}

}  // namespace

int RunHistory(const std::vector<std::string>& argv) {
  auto args = ParseArgs(argv, FlagSpec{{"--format"}, {"--drift"}});
  if (!args) return ReportError(args.error(), "");
  if (args->positional.size() != 1) {
    return ReportError(
        MakeError(ErrorCode::kInvalidArgument,
                  "usage: deltaguard history TABLE [--format text|json] [--drift]"),
        "");
  }
  const std::string& table = args->positional[0];
  auto format = ParseReportFormat(args->Get("--format").value_or("text"));
  if (!format) return ReportError(format.error(), table);
  auto root = TableRoot(table);
  if (!root) return ReportError(root.error(), table);
  auto report =
      HistoryReport(*MakeLocalFileSystem(), *root, *format, args->Has("--drift"));
  if (!report) return ReportError(report.error(), table);
  std::cout << *report;
  return kExitOk;
}

namespace {

std::string DescribeAction(const Action& action) {
  return std::visit(
      [](const auto& a) -> std::string {
        using T = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<T, AddFile>) {
          std::string s = fmt::format("add     {}  size={}", a.path, a.size);
          if (auto n = a.NumRecords()) s += fmt::format("  rows={}", *n);
          if (!a.partition_values.empty()) {
            s += "  partition={";
            for (size_t i = 0; i < a.partition_values.size(); ++i) {
              if (i) s += ", ";
              s += a.partition_values[i].first + "=" +
                   a.partition_values[i].second.value_or("null");
            }
            s += "}";
          }
          if (a.deletion_vector) {
            s += fmt::format("  dv={} ({} deleted)", a.deletion_vector->UniqueId(),
                             a.deletion_vector->cardinality);
          }
          if (!a.data_change) s += "  dataChange=false";
          return s;
        } else if constexpr (std::is_same_v<T, RemoveFile>) {
          std::string s = "remove  " + a.path;
          if (a.deletion_vector) s += "  dv=" + a.deletion_vector->UniqueId();
          if (!a.data_change) s += "  dataChange=false";
          return s;
        } else if constexpr (std::is_same_v<T, Metadata>) {
          return fmt::format("metaData  id={}  partitionColumns=[{}]  schema={}", a.id,
                             fmt::join(a.partition_columns, ", "), a.schema_string);
        } else if constexpr (std::is_same_v<T, Protocol>) {
          std::string s = fmt::format("protocol  reader={} writer={}",
                                      a.min_reader_version, a.min_writer_version);
          if (a.reader_features) {
            s +=
                fmt::format("  readerFeatures=[{}]", fmt::join(*a.reader_features, ", "));
          }
          if (a.writer_features) {
            s +=
                fmt::format("  writerFeatures=[{}]", fmt::join(*a.writer_features, ", "));
          }
          return s;
        } else if constexpr (std::is_same_v<T, CommitInfo>) {
          return "commitInfo  " + a.raw_json;
        } else if constexpr (std::is_same_v<T, SetTransaction>) {
          return fmt::format("txn  appId={} version={}", a.app_id, a.version);
        } else if constexpr (std::is_same_v<T, DomainMetadata>) {
          return fmt::format("domainMetadata  {}{}  {}", a.domain,
                             a.removed ? " (removed)" : "", a.configuration);
        } else if constexpr (std::is_same_v<T, AddCdcFile>) {
          return "cdc     " + a.path;
        } else if constexpr (std::is_same_v<T, UnknownAction>) {
          return a.name + "  " + a.raw_json;
        } else {
          return std::string(ActionName(Action(a)));
        }
      },
      action);
}

}  // namespace

int RunLog(const std::vector<std::string>& argv) {
  auto args = ParseArgs(argv, FlagSpec{{"--format"}, {}});
  if (!args) return ReportError(args.error(), "");
  if (args->positional.size() != 2) {
    return ReportError(
        MakeError(ErrorCode::kInvalidArgument,
                  "usage: deltaguard log TABLE VERSION [--format text|json]"),
        "");
  }
  const std::string& table = args->positional[0];
  auto version = ParseInt64(args->positional[1], "VERSION");
  if (!version) return ReportError(version.error(), table);
  auto format_or = TextOrJsonFormat(*args);
  if (!format_or) return ReportError(format_or.error(), table);
  const std::string& format = *format_or;
  auto root = TableRoot(table);
  if (!root) return ReportError(root.error(), table);
  auto fs = MakeLocalFileSystem();
  auto actions = ReadCommit(*fs, *root, *version);
  if (!actions) return ReportError(actions.error(), table);
  std::string out;
  for (const auto& a : *actions) {
    out += format == "json" ? ActionToJson(a) : DescribeAction(a);
    out += "\n";
  }
  std::cout << out;
  return kExitOk;
}

}  // namespace deltaguard::cli
