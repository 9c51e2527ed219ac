// `deltaguard describe`: everything a person needs to know about a table at one version.

#include <iostream>
#include <optional>

#include "cli_common.h"
#include "deltaguard/io/parquet/row_count.h"
#include "deltaguard/protocol/protocol.h"
#include "deltaguard/protocol/table_properties.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/table/table.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::cli {
namespace {

std::string JoinStrings(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out.append(sep);
    out.append(v[i]);
  }
  return out;
}

// One line per field, indented by depth, descending into arrays and maps.
void AppendFieldTree(const StructField& field, int depth, std::string* out);

void AppendNestedTree(const DataType& type, int depth, std::string* out) {
  if (type.kind() == TypeKind::kStruct) {
    for (const auto& f : static_cast<const StructType&>(type).fields()) {
      AppendFieldTree(f, depth, out);
    }
  } else if (type.kind() == TypeKind::kArray) {
    const auto& a = static_cast<const ArrayType&>(type);
    if (a.element_type()->is_nested()) {
      out->append(std::string(depth * 2 + 2, ' ') +
                  "element: " + a.element_type()->TypeName() +
                  (a.contains_null() ? "" : " not null") + "\n");
      AppendNestedTree(*a.element_type(), depth + 1, out);
    }
  } else if (type.kind() == TypeKind::kMap) {
    const auto& m = static_cast<const MapType&>(type);
    if (m.key_type()->is_nested()) {
      out->append(std::string(depth * 2 + 2, ' ') + "key: " + m.key_type()->TypeName() +
                  "\n");
      AppendNestedTree(*m.key_type(), depth + 1, out);
    }
    if (m.value_type()->is_nested()) {
      out->append(std::string(depth * 2 + 2, ' ') +
                  "value: " + m.value_type()->TypeName() +
                  (m.value_contains_null() ? "" : " not null") + "\n");
      AppendNestedTree(*m.value_type(), depth + 1, out);
    }
  }
}

void AppendFieldTree(const StructField& field, int depth, std::string* out) {
  std::string line(depth * 2 + 2, ' ');
  line += field.name + ": ";
  line += field.type->is_nested() && field.type->kind() == TypeKind::kStruct
              ? std::string("struct")
              : field.type->ToString();
  if (!field.nullable) line += " not null";
  std::vector<std::string> notes;
  if (auto id = field.column_mapping_id()) notes.push_back(fmt::format("id {}", *id));
  if (auto phys = field.physical_name()) notes.push_back("physical " + *phys);
  if (const std::string* tc = field.metadata.FindRaw(kTypeChangesKey)) {
    notes.push_back("type changes " + *tc);
  }
  if (!notes.empty()) line += "  [" + JoinStrings(notes, ", ") + "]";
  if (auto c = field.comment()) line += "  -- " + *c;
  out->append(line + "\n");
  AppendNestedTree(*field.type, depth + 1, out);
}

}  // namespace

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
  auto format_or = TextOrJsonFormat(*args);
  if (!format_or) return ReportError(format_or.error(), table);
  const std::string& format = *format_or;
  auto snapshot_spec = SnapshotSpecFromArgs(*args);
  if (!snapshot_spec) return ReportError(snapshot_spec.error(), table);
  auto snapshot_or = OpenSnapshot(table, *snapshot_spec);
  if (!snapshot_or) return ReportError(snapshot_or.error(), table);
  const Snapshot& snap = **snapshot_or;
  // describe needs only the log: when a data file without a numRecords statistic is
  // missing, the row count is unknown (reported as such), not an error.
  auto rows_or = CountRows(snap);
  std::optional<RowCountResult> rows;
  std::string rows_unknown_reason;
  if (rows_or) {
    rows = *rows_or;
  } else if (rows_or.error().code == ErrorCode::kNotFound) {
    rows_unknown_reason = rows_or.error().message;
  } else {
    return ReportError(rows_or.error(), table);
  }
  std::vector<std::string> features = EffectiveFeatures(snap.protocol());
  const Protocol& p = snap.protocol();
  const Metadata& md = snap.metadata();

  std::string out;
  if (format == "json") {
    out += "{";
    out += "\"table\":" + JsonQuote(snap.table_root());
    out += fmt::format(",\"version\":{}", snap.version());
    out += fmt::format(",\"timestamp\":{}", snap.timestamp_ms());
    out += ",\"id\":" + JsonQuote(md.id);
    if (md.name) out += ",\"name\":" + JsonQuote(*md.name);
    if (md.description) out += ",\"description\":" + JsonQuote(*md.description);
    out += fmt::format(",\"num_files\":{}", snap.files().size());
    if (rows) {
      out += fmt::format(",\"num_rows\":{}", rows->num_rows);
      out += fmt::format(",\"num_rows_from_stats\":{},\"num_rows_from_footers\":{}",
                         rows->files_from_stats, rows->files_from_footers);
      out += fmt::format(",\"num_deleted_rows\":{}", rows->deleted_rows);
      out += fmt::format(",\"num_missing_files\":{}", rows->missing_files);
    } else {
      out += ",\"num_rows\":null,\"num_rows_unknown_reason\":" +
             JsonQuote(rows_unknown_reason);
    }
    out += ",\"size_bytes\":";
    int64_t size = 0;
    for (const auto& f : snap.files()) size += f.size;
    out += std::to_string(size);
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
    out += "},\"features\":";
    AppendJsonStringArray(features, &out);
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
      out +=
          fmt::format(",\"checkpoint_version\":{}", *snap.segment().checkpoint_version);
    }
    out += "}\n";
  } else {
    out += "Table:          " + snap.table_root() + "\n";
    if (md.name) out += "Name:           " + *md.name + "\n";
    if (md.description) out += "Description:    " + *md.description + "\n";
    out += fmt::format("Version:        {} (committed {})\n", snap.version(),
                       FormatTimestampMillis(snap.timestamp_ms()));
    out += fmt::format("Protocol:       reader {}, writer {}\n", p.min_reader_version,
                       p.min_writer_version);
    out +=
        "Features:       " + (features.empty() ? "(none)" : JoinStrings(features, ", ")) +
        "\n";
    out += "Column mapping: " +
           std::string(ColumnMappingModeName(snap.column_mapping_mode())) + "\n";
    out += "Partitioned by: " +
           (md.partition_columns.empty() ? "(not partitioned)"
                                         : JoinStrings(md.partition_columns, ", ")) +
           "\n";
    out += fmt::format("Files:          {}\n", snap.files().size());
    if (!rows) {
      out += "Rows:           unknown (" + rows_unknown_reason + ")\n";
    } else {
      std::string source;
      if (rows->files_from_footers == 0) {
        source = "from file statistics";
      } else if (rows->files_from_stats == 0) {
        source = "from Parquet footers";
      } else {
        source = fmt::format("{} files from statistics, {} from Parquet footers",
                             rows->files_from_stats, rows->files_from_footers);
      }
      out += fmt::format("Rows:           {} ({}", rows->num_rows, source);
      if (rows->deleted_rows > 0) {
        out += fmt::format("; {} deleted by deletion vectors", rows->deleted_rows);
      }
      out += ")\n";
      if (rows->missing_files > 0) {
        out += fmt::format(
            "Warning:        {} data file(s) referenced by the log are missing\n",
            rows->missing_files);
      }
    }
    if (snap.segment().checkpoint_version) {
      out +=
          fmt::format("Checkpoint:     version {}\n", *snap.segment().checkpoint_version);
    }
    out += "Properties:";
    if (md.configuration.empty()) out += "     (none)";
    out += "\n";
    for (const auto& [k, v] : md.configuration) out += "  " + k + " = " + v + "\n";
    out += "Schema:\n";
    for (const auto& f : snap.schema()->fields()) AppendFieldTree(f, 0, &out);
  }
  std::cout << out;
  std::cout.flush();
  return kExitOk;
}

}  // namespace deltaguard::cli
