#include "deltaguard/table/table_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <rapidjson/document.h>

#include <optional>
#include <vector>

#include "deltaguard/drift/report.h"
#include "deltaguard/evolution/table_diff.h"
#include "deltaguard/io/parquet/row_count.h"
#include "deltaguard/protocol/protocol.h"
#include "deltaguard/protocol/table_properties.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/schema/schema_tree.h"
#include "deltaguard/table/profiles.h"
#include "deltaguard/table/table_drift.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

/// The row count, or the reason it is unknown: describe needs only the log, so a
/// missing data file without a numRecords statistic makes the count unknown, not an
/// error.
struct RowsOrReason {
  std::optional<RowCountResult> rows;
  std::string unknown_reason;
};

Result<RowsOrReason> CountRowsForReport(const Snapshot& snap) {
  auto rows_or = CountRows(snap);
  if (rows_or) return RowsOrReason{*rows_or, {}};
  if (rows_or.error().code == ErrorCode::kNotFound) {
    return RowsOrReason{std::nullopt, rows_or.error().message};
  }
  return rows_or.error();
}

std::string DescribeJson(const Snapshot& snap, const RowsOrReason& count) {
  const Protocol& p = snap.protocol();
  const Metadata& md = snap.metadata();
  std::string out = "{\"table\":" + JsonQuote(snap.table_root());
  out += fmt::format(",\"version\":{},\"timestamp\":{}", snap.version(),
                     snap.timestamp_ms());
  out += ",\"id\":" + JsonQuote(md.id);
  if (md.name) out += ",\"name\":" + JsonQuote(*md.name);
  if (md.description) out += ",\"description\":" + JsonQuote(*md.description);
  out += fmt::format(",\"num_files\":{}", snap.files().size());
  if (const auto& rows = count.rows) {
    out += fmt::format(",\"num_rows\":{}", rows->num_rows);
    out += fmt::format(",\"num_rows_from_stats\":{},\"num_rows_from_footers\":{}",
                       rows->files_from_stats, rows->files_from_footers);
    out += fmt::format(",\"num_deleted_rows\":{}", rows->deleted_rows);
    out += fmt::format(",\"num_missing_files\":{}", rows->missing_files);
  } else {
    out += ",\"num_rows\":null,\"num_rows_unknown_reason\":" +
           JsonQuote(count.unknown_reason);
  }
  int64_t size = 0;
  for (const auto& f : snap.files()) size += f.size;
  out += fmt::format(",\"size_bytes\":{}", size);
  out += ",\"schema\":" + SchemaToJson(*snap.schema());
  out += ",\"partition_columns\":";
  AppendJsonStringArray(md.partition_columns, &out);
  out += fmt::format(",\"protocol\":{{\"minReaderVersion\":{},\"minWriterVersion\":{}",
                     p.min_reader_version, p.min_writer_version);
  if (p.reader_features) {
    out += ",\"readerFeatures\":";
    AppendJsonStringArray(*p.reader_features, &out);
  }
  if (p.writer_features) {
    out += ",\"writerFeatures\":";
    AppendJsonStringArray(*p.writer_features, &out);
  }
  out += fmt::format("}},\"profiles\":{}", ProfilesEnabled(md) ? "true" : "false");
  out += ",\"features\":";
  AppendJsonStringArray(EffectiveFeatures(p), &out);
  out += ",\"column_mapping_mode\":" +
         JsonQuote(std::string(ColumnMappingModeName(snap.column_mapping_mode())));
  out += ",\"properties\":{";
  for (size_t i = 0; i < md.configuration.size(); ++i) {
    if (i) out += ",";
    out += JsonQuote(md.configuration[i].first) + ":" +
           JsonQuote(md.configuration[i].second);
  }
  out += "}";
  if (snap.segment().checkpoint_version) {
    out += fmt::format(",\"checkpoint_version\":{}", *snap.segment().checkpoint_version);
  }
  return out + "}\n";
}

std::string RowsLine(const RowsOrReason& count) {
  if (!count.rows) return "Rows:           unknown (" + count.unknown_reason + ")\n";
  const RowCountResult& rows = *count.rows;
  std::string source;
  if (rows.files_from_footers == 0) {
    source = "from file statistics";
  } else if (rows.files_from_stats == 0) {
    source = "from Parquet footers";
  } else {
    source = fmt::format("{} files from statistics, {} from Parquet footers",
                         rows.files_from_stats, rows.files_from_footers);
  }
  std::string out = fmt::format("Rows:           {} ({}", rows.num_rows, source);
  if (rows.deleted_rows > 0) {
    out += fmt::format("; {} deleted by deletion vectors", rows.deleted_rows);
  }
  out += ")\n";
  if (rows.missing_files > 0) {
    out +=
        fmt::format("Warning:        {} data file(s) referenced by the log are missing\n",
                    rows.missing_files);
  }
  return out;
}

std::string DescribeText(const Snapshot& snap, const RowsOrReason& count) {
  const Protocol& p = snap.protocol();
  const Metadata& md = snap.metadata();
  std::vector<std::string> features = EffectiveFeatures(p);
  std::string out = "Table:          " + snap.table_root() + "\n";
  if (md.name) out += "Name:           " + *md.name + "\n";
  if (md.description) out += "Description:    " + *md.description + "\n";
  out += fmt::format("Version:        {} (committed {})\n", snap.version(),
                     FormatTimestampMillis(snap.timestamp_ms()));
  out += fmt::format("Protocol:       reader {}, writer {}\n", p.min_reader_version,
                     p.min_writer_version);
  out += "Features:       " +
         (features.empty() ? "(none)" : fmt::format("{}", fmt::join(features, ", "))) +
         "\n";
  out += "Column mapping: " +
         std::string(ColumnMappingModeName(snap.column_mapping_mode())) + "\n";
  out += "Partitioned by: " +
         (md.partition_columns.empty()
              ? std::string("(not partitioned)")
              : fmt::format("{}", fmt::join(md.partition_columns, ", "))) +
         "\n";
  out += fmt::format("Files:          {}\n", snap.files().size());
  out += RowsLine(count);
  out += std::string("Profiles:       ") +
         (ProfilesEnabled(md) ? "on (kept on every deltaguard write; docs/profiles.md)"
                              : "off (deltaguard.profiles is not true)") +
         "\n";
  if (snap.segment().checkpoint_version) {
    out +=
        fmt::format("Checkpoint:     version {}\n", *snap.segment().checkpoint_version);
  }
  out += "Properties:";
  if (md.configuration.empty()) out += "     (none)";
  out += "\n";
  for (const auto& [k, v] : md.configuration) out += "  " + k + " = " + v + "\n";
  return out + "Schema:\n" + FormatSchemaTree(*snap.schema());
}

/// operationParameters as (key, text) pairs; values that are JSON strings are unquoted.
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

std::string HistoryEntryText(const CommitSummary& s, const CommitTableChanges& changes) {
  std::string operation = s.commit_info && s.commit_info->operation
                              ? *s.commit_info->operation
                              : std::string("UNKNOWN");
  std::string out = fmt::format("version {}  {}  {}\n", s.version,
                                FormatTimestampMillis(s.timestamp_ms), operation);
  auto params = s.commit_info ? Parameters(*s.commit_info)
                              : std::vector<std::pair<std::string, std::string>>{};
  if (!params.empty()) {
    out += "  parameters:";
    for (const auto& [k, v] : params) out += " " + k + "=" + v;
    out += "\n";
  }
  if (s.commit_info && s.commit_info->engine_info) {
    out += "  engine: " + *s.commit_info->engine_info + "\n";
  }
  for (const auto& c : changes.SchemaLines()) out += "  schema: " + c + "\n";
  for (const auto& c : changes.TableLines()) out += "  table: " + c + "\n";
  return out;
}

std::string HistoryEntryJson(const CommitSummary& s, const CommitTableChanges& changes,
                             const std::vector<DriftChange>& drift) {
  std::string operation = s.commit_info && s.commit_info->operation
                              ? *s.commit_info->operation
                              : std::string("UNKNOWN");
  std::string out = fmt::format("{{\"version\":{},\"timestamp\":{},\"operation\":{}",
                                s.version, s.timestamp_ms, JsonQuote(operation));
  out += ",\"parameters\":{";
  auto params = s.commit_info ? Parameters(*s.commit_info)
                              : std::vector<std::pair<std::string, std::string>>{};
  for (size_t i = 0; i < params.size(); ++i) {
    if (i) out += ",";
    out += JsonQuote(params[i].first) + ":" + JsonQuote(params[i].second);
  }
  out += "}";
  if (s.commit_info && s.commit_info->engine_info) {
    out += ",\"engine_info\":" + JsonQuote(*s.commit_info->engine_info);
  }
  out += ",\"schema_changes\":";
  AppendJsonStringArray(changes.SchemaLines(), &out);
  out += ",\"other_changes\":";
  AppendJsonStringArray(changes.TableLines(), &out);
  out += ",\"drift\":" + DriftChangesJson(drift);
  return out + "}";
}

}  // namespace

Result<ReportFormat> ParseReportFormat(std::string_view text) {
  std::string format = AsciiToLower(text);
  if (format == "text") return ReportFormat::kText;
  if (format == "json") return ReportFormat::kJson;
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown format '{}' (expected text or json)", format);
}

Result<std::string> DescribeReport(const Snapshot& snapshot, ReportFormat format) {
  DELTA_ASSIGN_OR_RETURN(RowsOrReason count, CountRowsForReport(snapshot));
  return format == ReportFormat::kJson ? DescribeJson(snapshot, count)
                                       : DescribeText(snapshot, count);
}

Result<std::string> HistoryReport(const FileSystem& fs, const std::string& table_root,
                                  ReportFormat format, bool drift_lines) {
  DELTA_ASSIGN_OR_RETURN(std::vector<CommitSummary> commits, ReadHistory(fs, table_root));
  std::string out = format == ReportFormat::kJson ? "[" : "";
  LoggedTableState state;
  CommitDriftTracker tracker(fs, table_root);
  const bool classify = format == ReportFormat::kJson || drift_lines;
  for (size_t i = 0; i < commits.size(); ++i) {
    const CommitSummary& s = commits[i];
    auto changes = DiffCommitActions(state, s.metadata, s.protocol, &state);
    if (!changes) {
      return WithContext(changes.error(), fmt::format("schema of version {}", s.version));
    }
    std::vector<DriftChange> drift;
    if (classify) {
      // DiffCommitActions parsed the commit's schema into the state already.
      auto classified = tracker.Next(
          s, true,
          s.metadata && !s.metadata->schema_string.empty() ? state.schema : nullptr);
      if (!classified) {
        return WithContext(classified.error(),
                           fmt::format("drift of version {}", s.version));
      }
      drift = std::move(*classified);
    }
    if (format == ReportFormat::kJson) {
      if (i) out += ",";
      out += HistoryEntryJson(s, *changes, drift);
    } else {
      out += HistoryEntryText(s, *changes);
      for (const auto& c : drift) out += "  drift: " + c.Summary() + "\n";
    }
  }
  if (format == ReportFormat::kJson) out += "]\n";
  return out;
}

}  // namespace deltaguard
