// `deltaguard history` and `deltaguard log`: the table's commits, one entry per
// version, and the actions of a single commit.

#include <rapidjson/document.h>

#include <iostream>
#include <type_traits>

#include "cli_common.h"
#include "deltaguard/evolution/table_diff.h"
#include "deltaguard/table/table.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::cli {
namespace {

// Resolve and validate the table directory the same way `describe` does, without
// loading a snapshot (history must work even when old checkpoints are gone).
Result<std::string> TableRoot(const std::string& table) {
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snap, OpenSnapshot(table));
  return snap->table_root();
}

// operationParameters as (key, text) pairs; values that are JSON strings are unquoted.
std::vector<std::pair<std::string, std::string>> Parameters(const CommitInfo& info) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!info.operation_parameters_json) return out;
  rapidjson::Document doc;
  doc.Parse(info.operation_parameters_json->data(),
            info.operation_parameters_json->size());
  if (doc.HasParseError() || !doc.IsObject()) return out;
  for (auto it = doc.MemberBegin(); it != doc.MemberEnd(); ++it) {
    std::string value;
    if (it->value.IsString()) {
      value.assign(it->value.GetString(), it->value.GetStringLength());
    } else if (it->value.IsNull()) {
      value = "null";
    } else if (it->value.IsBool()) {
      value = it->value.GetBool() ? "true" : "false";
    } else if (it->value.IsInt64()) {
      value = std::to_string(it->value.GetInt64());
    } else {
      value = "(complex)";
    }
    out.emplace_back(std::string(it->name.GetString(), it->name.GetStringLength()),
                     value);
  }
  return out;
}

struct HistoryEntry {
  CommitSummary summary;
  std::vector<std::string> schema_changes;
  std::vector<std::string> other_changes;
};

Result<std::vector<HistoryEntry>> BuildHistory(const std::string& root) {
  auto fs = MakeLocalFileSystem();
  DELTA_ASSIGN_OR_RETURN(std::vector<CommitSummary> commits, ReadHistory(*fs, root));
  std::vector<HistoryEntry> out;
  LoggedTableState state;
  for (auto& c : commits) {
    HistoryEntry e{std::move(c), {}, {}};
    auto changes =
        DiffCommitActions(state, e.summary.metadata, e.summary.protocol, &state);
    if (!changes) {
      return WithContext(changes.error(),
                         fmt::format("schema of version {}", e.summary.version));
    }
    e.schema_changes = changes->SchemaLines();
    e.other_changes = changes->TableLines();
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace

int RunHistory(const std::vector<std::string>& argv) {
  auto args = ParseArgs(argv, FlagSpec{{"--format"}, {}});
  if (!args) return ReportError(args.error(), "");
  if (args->positional.size() != 1) {
    return ReportError(MakeError(ErrorCode::kInvalidArgument,
                                 "usage: deltaguard history TABLE [--format text|json]"),
                       "");
  }
  const std::string& table = args->positional[0];
  auto format_or = TextOrJsonFormat(*args);
  if (!format_or) return ReportError(format_or.error(), table);
  const std::string& format = *format_or;
  auto root = TableRoot(table);
  if (!root) return ReportError(root.error(), table);
  auto history = BuildHistory(*root);
  if (!history) return ReportError(history.error(), table);

  std::string out;
  if (format == "json") out += "[";
  bool first = true;
  for (const auto& e : *history) {
    const auto& s = e.summary;
    std::string operation = s.commit_info && s.commit_info->operation
                                ? *s.commit_info->operation
                                : std::string("UNKNOWN");
    auto params = s.commit_info ? Parameters(*s.commit_info)
                                : std::vector<std::pair<std::string, std::string>>{};
    if (format == "json") {
      if (!first) out += ",";
      out += fmt::format("{{\"version\":{},\"timestamp\":{},\"operation\":{}", s.version,
                         s.timestamp_ms, JsonQuote(operation));
      out += ",\"parameters\":{";
      for (size_t i = 0; i < params.size(); ++i) {
        if (i) out += ",";
        out += JsonQuote(params[i].first) + ":" + JsonQuote(params[i].second);
      }
      out += "}";
      if (s.commit_info && s.commit_info->engine_info) {
        out += ",\"engine_info\":" + JsonQuote(*s.commit_info->engine_info);
      }
      out += ",\"schema_changes\":";
      AppendJsonStringArray(e.schema_changes, &out);
      out += ",\"other_changes\":";
      AppendJsonStringArray(e.other_changes, &out);
      out += "}";
    } else {
      out += fmt::format("version {}  {}  {}\n", s.version,
                         FormatTimestampMillis(s.timestamp_ms), operation);
      if (!params.empty()) {
        out += "  parameters:";
        for (const auto& [k, v] : params) out += " " + k + "=" + v;
        out += "\n";
      }
      if (s.commit_info && s.commit_info->engine_info) {
        out += "  engine: " + *s.commit_info->engine_info + "\n";
      }
      for (const auto& c : e.schema_changes) out += "  schema: " + c + "\n";
      for (const auto& c : e.other_changes) out += "  table: " + c + "\n";
    }
    first = false;
  }
  if (format == "json") out += "]\n";
  std::cout << out;
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
