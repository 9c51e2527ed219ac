// Ingestion options (ingest/options.h): Auto Loader's names, each value checked.

#include "deltaguard/ingest/options.h"

#include <fmt/format.h>

#include <charconv>
#include <functional>

#include "deltaguard/schema/column_path.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

Result<bool> Bool(std::string_view key, std::string_view v) {
  if (EqualsIgnoreCase(v, "true")) return true;
  if (EqualsIgnoreCase(v, "false")) return false;
  return MakeError(ErrorCode::kInvalidArgument, "option {}: '{}' is not true or false",
                   key, v);
}

Result<int64_t> Count(std::string_view key, std::string_view v) {
  int64_t n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || p != v.data() + v.size() || n < 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "option {}: '{}' is not a non-negative whole number", key, v);
  }
  return n;
}

// "10g", "512m", "64k", "1048576" (Spark's byte strings, binary units).
Result<int64_t> Bytes(std::string_view key, std::string_view v) {
  std::string_view digits = v;
  int64_t unit = 1;
  if (!v.empty()) {
    std::string suffix = AsciiToLower(v.substr(v.size() - 1));
    std::string_view two = v.size() >= 2 ? v.substr(v.size() - 2) : "";
    if (EqualsIgnoreCase(two, "kb") || EqualsIgnoreCase(two, "mb") ||
        EqualsIgnoreCase(two, "gb") || EqualsIgnoreCase(two, "tb")) {
      suffix = AsciiToLower(two.substr(0, 1));
      digits = v.substr(0, v.size() - 2);
    } else if (suffix == "b" || suffix == "k" || suffix == "m" || suffix == "g" ||
               suffix == "t") {
      digits = v.substr(0, v.size() - 1);
    } else {
      suffix.clear();
    }
    if (suffix == "k") unit = int64_t{1} << 10;
    if (suffix == "m") unit = int64_t{1} << 20;
    if (suffix == "g") unit = int64_t{1} << 30;
    if (suffix == "t") unit = int64_t{1} << 40;
  }
  auto n = Count(key, digits);
  if (!n || *n > (int64_t{1} << 62) / unit) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "option {}: '{}' is not a size (like 10g, 512m or 1048576)", key, v);
  }
  return *n * unit;
}

Result<char> OneChar(std::string_view key, std::string_view v) {
  if (v == "\\t") return '\t';
  if (v.size() != 1) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "option {}: '{}' must be a single character", key, v);
  }
  return v[0];
}

Result<EvolutionMode> Mode(std::string_view v) {
  for (auto m :
       {EvolutionMode::kAddNewColumns, EvolutionMode::kAddNewColumnsWithTypeWidening,
        EvolutionMode::kRescue, EvolutionMode::kFailOnNewColumns, EvolutionMode::kNone}) {
    if (EqualsIgnoreCase(EvolutionModeName(m), v)) return m;
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   "option cloudFiles.schemaEvolutionMode: '{}' is not one of "
                   "addNewColumns, addNewColumnsWithTypeWidening, rescue, "
                   "failOnNewColumns, none",
                   v);
}

std::vector<std::string> Names(std::string_view v) {
  std::vector<std::string> out;
  for (auto part : Split(v, ',')) {
    auto t = Trim(part);
    if (!t.empty()) out.emplace_back(t);
  }
  return out;
}

using Setter =
    std::function<Status(IngestOptions*, std::string_view key, std::string_view)>;

// Setters of one member from the value's text.
Setter SetBool(bool IngestOptions::*member) {
  return [member](IngestOptions* o, std::string_view k, std::string_view v) -> Status {
    DELTA_ASSIGN_OR_RETURN(o->*member, Bool(k, v));
    return OkStatus();
  };
}
Setter SetCount(int64_t IngestOptions::*member, bool positive = false) {
  return [member, positive](IngestOptions* o, std::string_view k,
                            std::string_view v) -> Status {
    DELTA_ASSIGN_OR_RETURN(o->*member, Count(k, v));
    if (positive && o->*member == 0) {
      return MakeError(ErrorCode::kInvalidArgument, "option {}: must be at least 1", k);
    }
    return OkStatus();
  };
}
Setter SetBytes(int64_t IngestOptions::*member) {
  return [member](IngestOptions* o, std::string_view k, std::string_view v) -> Status {
    DELTA_ASSIGN_OR_RETURN(o->*member, Bytes(k, v));
    return OkStatus();
  };
}
Setter SetChar(char IngestOptions::*member) {
  return [member](IngestOptions* o, std::string_view k, std::string_view v) -> Status {
    DELTA_ASSIGN_OR_RETURN(o->*member, OneChar(k, v));
    return OkStatus();
  };
}
Setter SetText(std::string IngestOptions::*member, bool trim = false) {
  return
      [member, trim](IngestOptions* o, std::string_view, std::string_view v) -> Status {
        o->*member = std::string(trim ? Trim(v) : v);
        return OkStatus();
      };
}
// DDL text (a schema or schema hints), checked when given.
Setter SetDdl(std::string IngestOptions::*member) {
  return [member](IngestOptions* o, std::string_view k, std::string_view v) -> Status {
    auto parsed = ParseDdlSchema(v);
    if (!parsed) return WithContext(parsed.error(), fmt::format("option {}", k));
    o->*member = std::string(v);
    return OkStatus();
  };
}

Status SetMode(IngestOptions* o, std::string_view k, std::string_view v) {
  if (EqualsIgnoreCase(v, "PERMISSIVE")) {
    o->mode = ParseMode::kPermissive;
  } else if (EqualsIgnoreCase(v, "FAILFAST")) {
    o->mode = ParseMode::kFailFast;
  } else if (EqualsIgnoreCase(v, "DROPMALFORMED")) {
    o->mode = ParseMode::kDropMalformed;
  } else {
    return MakeError(ErrorCode::kInvalidArgument,
                     "option {}: '{}' is not PERMISSIVE, FAILFAST or DROPMALFORMED", k,
                     v);
  }
  return OkStatus();
}

Status SetMetadataColumns(IngestOptions* o, std::string_view k, std::string_view v) {
  o->metadata_columns = Names(v);
  for (const auto& c : o->metadata_columns) {
    if (c != "_metadata" && c != "_source_file" && c != "_ingested_at") {
      return MakeError(ErrorCode::kInvalidArgument,
                       "option {}: '{}' is not _metadata, _source_file or _ingested_at",
                       k, c);
    }
  }
  return OkStatus();
}

const std::vector<std::pair<std::string, Setter>>& Setters() {
  using O = IngestOptions;
  static const std::vector<std::pair<std::string, Setter>> setters = {
      {"cloudFiles.format",
       [](O* o, std::string_view, std::string_view v) -> Status {
         DELTA_ASSIGN_OR_RETURN(o->format, ParseIngestFormat(v));
         return OkStatus();
       }},
      {"cloudFiles.schemaLocation", SetText(&O::schema_location)},
      {"cloudFiles.schemaEvolutionMode",
       [](O* o, std::string_view, std::string_view v) -> Status {
         DELTA_ASSIGN_OR_RETURN(o->evolution_mode, Mode(v));
         return OkStatus();
       }},
      {"cloudFiles.schemaHints",
       [](O* o, std::string_view k, std::string_view v) -> Status {
         auto hints = ParseSchemaHints(v);
         if (!hints) return WithContext(hints.error(), fmt::format("option {}", k));
         o->schema_hints = std::string(v);
         return OkStatus();
       }},
      {"cloudFiles.inferColumnTypes", SetBool(&O::infer_column_types)},
      {"cloudFiles.schemaInference.sampleSize.numFiles", SetCount(&O::sample_files)},
      {"cloudFiles.schemaInference.sampleSize.numBytes", SetBytes(&O::sample_bytes)},
      {"cloudFiles.maxFilesPerTrigger", SetCount(&O::max_files_per_trigger, true)},
      {"cloudFiles.maxBytesPerTrigger", SetBytes(&O::max_bytes_per_trigger)},
      {"cloudFiles.includeExistingFiles", SetBool(&O::include_existing_files)},
      {"cloudFiles.partitionColumns",
       [](O* o, std::string_view, std::string_view v) -> Status {
         o->partition_columns = Names(v);
         return OkStatus();
       }},
      {"pathGlobFilter", SetText(&O::path_glob_filter)},
      {"rescuedDataColumn",
       [](O* o, std::string_view, std::string_view v) -> Status {
         o->rescued_data_column = std::string(Trim(v));
         return OkStatus();
       }},
      {"readerCaseSensitive", SetBool(&O::reader_case_sensitive)},
      {"schema", SetDdl(&O::schema)},
      {"mode", SetMode},
      {"columnNameOfCorruptRecord", SetText(&O::corrupt_record_column, true)},
      {"rawColumn", SetText(&O::raw_column, true)},
      {"metadataColumns", SetMetadataColumns},
      {"header", SetBool(&O::header)},
      {"delimiter", SetChar(&O::delimiter)},
      {"sep", SetChar(&O::delimiter)},
      {"quote", SetChar(&O::quote)},
      {"escape", SetChar(&O::escape)},
      {"multiLine", SetBool(&O::multi_line)},
      {"timestampFormat", SetText(&O::timestamp_format)},
      {"dateFormat", SetText(&O::date_format)},
      {"nullValue", SetText(&O::null_value)},
  };
  return setters;
}

}  // namespace

std::string_view IngestFormatName(IngestFormat format) {
  switch (format) {
    case IngestFormat::kJson:
      return "json";
    case IngestFormat::kCsv:
      return "csv";
    case IngestFormat::kText:
      return "text";
    case IngestFormat::kParquet:
      return "parquet";
  }
  return "?";
}

Result<IngestFormat> ParseIngestFormat(std::string_view name) {
  for (auto f : {IngestFormat::kJson, IngestFormat::kCsv, IngestFormat::kText,
                 IngestFormat::kParquet}) {
    if (EqualsIgnoreCase(IngestFormatName(f), name)) return f;
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   "format '{}' is not json, csv, text or parquet", name);
}

std::string_view EvolutionModeName(EvolutionMode mode) {
  switch (mode) {
    case EvolutionMode::kAddNewColumns:
      return "addNewColumns";
    case EvolutionMode::kAddNewColumnsWithTypeWidening:
      return "addNewColumnsWithTypeWidening";
    case EvolutionMode::kRescue:
      return "rescue";
    case EvolutionMode::kFailOnNewColumns:
      return "failOnNewColumns";
    case EvolutionMode::kNone:
      return "none";
  }
  return "?";
}

Result<std::vector<SchemaHint>> ParseSchemaHints(std::string_view text) {
  std::vector<std::string_view> entries;
  int depth = 0;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == '`') quoted = !quoted;
    if (quoted) continue;
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      entries.push_back(Trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (depth != 0 || quoted) {
    return MakeError(ErrorCode::kParseError, "schema hints '{}' have an unclosed {}",
                     text, quoted ? "backtick" : "bracket");
  }
  std::vector<SchemaHint> out;
  for (std::string_view e : entries) {
    if (e.empty()) continue;
    // The path ends at the first space outside backticks.
    size_t end = 0;
    bool q = false;
    while (end < e.size() && (q || !IsAsciiSpace(e[end]))) {
      if (e[end] == '`') q = !q;
      ++end;
    }
    auto path = ParseColumnPath(e.substr(0, end));
    auto type = ParseDdlType(Trim(e.substr(end)));
    if (!path || !type || end == e.size()) {
      return MakeError(ErrorCode::kParseError,
                       "schema hint '{}' is not a column and a type (like "
                       "'customer.id BIGINT'){}",
                       e, !type && end < e.size() ? ": " + type.error().message : "");
    }
    out.push_back(SchemaHint{std::move(*path), std::move(*type)});
  }
  return out;
}

const std::vector<std::string>& IngestOptionKeys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    for (const auto& [k, s] : Setters()) out.push_back(k);
    return out;
  }();
  return keys;
}

Result<IngestOptions> ParseIngestOptions(
    const std::vector<std::pair<std::string, std::string>>& pairs) {
  IngestOptions options;
  for (const auto& [raw_key, value] : pairs) {
    std::string_view key = Trim(raw_key);
    const Setter* setter = nullptr;
    std::string canonical;
    for (const auto& [k, s] : Setters()) {
      // `format` is cloudFiles.format as DataStreamReader.format() spells it.
      if (EqualsIgnoreCase(k, key) ||
          (k == "cloudFiles.format" && EqualsIgnoreCase(key, "format"))) {
        setter = &s;
        canonical = k;
      }
    }
    if (setter == nullptr) {
      std::string known;
      for (const auto& k : IngestOptionKeys()) known += (known.empty() ? "" : ", ") + k;
      return MakeError(ErrorCode::kInvalidArgument,
                       "unknown ingestion option '{}' (known: {})", key, known);
    }
    DELTA_RETURN_IF_ERROR((*setter)(&options, canonical, value));
  }
  if (options.mode != ParseMode::kPermissive && !options.corrupt_record_column.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "option columnNameOfCorruptRecord needs mode PERMISSIVE");
  }
  if (!options.schema.empty() &&
      options.EffectiveMode() == EvolutionMode::kAddNewColumns &&
      options.evolution_mode.has_value()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cloudFiles.schemaEvolutionMode addNewColumns is not allowed with a "
                     "given schema; give the types as cloudFiles.schemaHints instead");
  }
  return options;
}

std::string DescribeIngestOptions(const IngestOptions& o) {
  std::string out;
  auto add = [&](std::string_view k, const std::string& v) {
    out += fmt::format("{}{}={}", out.empty() ? "" : "\n", k, v);
  };
  add("format", std::string(IngestFormatName(o.format)));
  add("schemaEvolutionMode", std::string(EvolutionModeName(o.EffectiveMode())));
  add("schemaHints", o.schema_hints);
  add("inferColumnTypes", o.infer_column_types ? "true" : "false");
  add("rescuedDataColumn", o.RescuedColumn());
  add("readerCaseSensitive", o.reader_case_sensitive ? "true" : "false");
  add("schema", o.schema);
  return out;
}

}  // namespace deltaguard
