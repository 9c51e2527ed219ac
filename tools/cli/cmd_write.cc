// `deltaguard create` and `deltaguard write`: make tables and write files into them.

#include <iostream>

#include "cli_common.h"
#include "deltaguard/contract/parse.h"
#include "deltaguard/quality/detectors.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/table/quarantine.h"
#include "deltaguard/table/write.h"
#include "deltaguard/util/report_format.h"
#include "deltaguard/util/string_util.h"
#include "deltaguard/write/contract_write.h"

namespace deltaguard::cli {
namespace {

Result<std::vector<std::string>> ColumnList(const Args& args, const std::string& flag) {
  std::vector<std::string> out;
  for (const auto& value : args.all_values.count(flag) ? args.all_values.at(flag)
                                                       : std::vector<std::string>{}) {
    for (auto part : Split(value, ',')) {
      auto name = Trim(part);
      if (name.empty()) {
        return MakeError(ErrorCode::kInvalidArgument, "empty column name in {} '{}'",
                         flag, value);
      }
      out.emplace_back(name);
    }
  }
  return out;
}

Result<StringMap> Properties(const Args& args) {
  StringMap out;
  if (!args.all_values.count("--property")) return out;
  for (const auto& kv : args.all_values.at("--property")) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "--property '{}' is not of the form key=value", kv);
    }
    out.emplace_back(std::string(Trim(kv.substr(0, eq))),
                     std::string(Trim(kv.substr(eq + 1))));
  }
  return out;
}

Result<SessionSettings> Session(const Args& args) {
  SessionSettings session;
  if (!args.all_values.count("--conf")) return session;
  for (const auto& kv : args.all_values.at("--conf")) {
    auto eq = kv.find('=');
    if (eq == std::string::npos) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "--conf '{}' is not of the form key=value", kv);
    }
    DELTA_RETURN_IF_ERROR(session.Set(kv.substr(0, eq), kv.substr(eq + 1)));
  }
  return session;
}

Result<InputOptions> InputOptionsFrom(const Args& args) {
  InputOptions options;
  if (auto format = args.Get("--format")) {
    DELTA_ASSIGN_OR_RETURN(options.format, ParseInputFormat(*format));
  }
  options.csv_header = !args.Has("--no-header");
  if (auto delimiter = args.Get("--delimiter")) {
    std::string d = *delimiter == "\\t" ? "\t" : *delimiter;
    if (d.size() != 1) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "--delimiter must be one character, got '{}'", *delimiter);
    }
    options.csv_delimiter = d[0];
  }
  options.csv_multi_line = args.Has("--multi-line");
  if (auto policy = args.Get("--invalid-utf8")) {
    DELTA_ASSIGN_OR_RETURN(options.invalid_utf8, ParseInvalidUtf8Policy(*policy));
  }
  if (auto size = args.Get("--json-block-size")) {
    DELTA_ASSIGN_OR_RETURN(options.json_block_size,
                           ParseInt64(*size, "--json-block-size"));
  }
  return options;
}

// A schema from --schema: Delta schema JSON when it starts with '{', else a DDL column
// list ("id BIGINT NOT NULL, name STRING").
Result<SchemaRef> SchemaFromText(const std::string& text) {
  std::string_view trimmed = Trim(text);
  if (!trimmed.empty() && trimmed.front() == '{') return ParseSchemaJson(trimmed);
  return ParseDdlSchema(trimmed);
}

// The data tests' verdict after a write: one line when all passed, else the report.
void PrintCheck(const std::optional<WriteCheckSummary>& check) {
  if (!check) return;
  if (check->outcome == "passed") {
    std::cout << "  data tests (" << check->tests << "): passed" << std::endl;
    return;
  }
  std::cout << "  data tests (" << check->tests << "): " << check->outcome << std::endl;
  for (auto line : Split(check->text, '\n')) {
    if (!line.empty()) std::cout << "    " << line << std::endl;
  }
}

std::string CheckJson(const std::optional<WriteCheckSummary>& check) {
  if (!check) return "null";
  std::string out = "{";
  AppendJsonField(&out, "tests", check->tests);
  AppendJsonField(&out, "outcome", check->outcome);
  AppendJsonRawField(&out, "held", check->held ? "true" : "false");
  AppendJsonField(&out, "held_reason", check->held_reason);
  std::string report = check->json;
  while (!report.empty() && report.back() == '\n') report.pop_back();
  AppendJsonRawField(&out, "report", report);
  return out + "}";
}

void PrintResult(const WriteResult& r, const std::string& table, bool json) {
  if (json) {
    std::string out = "{\"table\":";
    AppendJsonString(&out, table);
    out += fmt::format(
        ",\"version\":{},\"skipped\":{},\"created\":{},\"rows\":{},"
        "\"files_added\":{},\"files_removed\":{},\"bytes_added\":{},"
        "\"schema_changed\":{},\"commit_attempts\":{}",
        r.version, r.skipped ? "true" : "false", r.created ? "true" : "false", r.rows,
        r.files_added, r.files_removed, r.bytes_added,
        r.schema_changed ? "true" : "false", r.commit_attempts);
    out += ",\"added_columns\":";
    AppendJsonStringArray(r.added_columns, &out);
    out += ",\"widened_columns\":";
    AppendJsonStringArray(r.widened_columns, &out);
    out += ",\"missing_columns\":";
    AppendJsonStringArray(r.missing_columns, &out);
    if (r.skipped) {
      out += ",\"skipped_reason\":";
      AppendJsonString(&out, r.skipped_reason);
    }
    if (r.checkpoint_version)
      out += fmt::format(",\"checkpoint\":{}", *r.checkpoint_version);
    if (r.contract) out += ",\"contract\":" + ContractWriteSummaryJson(*r.contract);
    if (r.check) out += ",\"check\":" + CheckJson(r.check);
    out += ",\"warnings\":";
    AppendJsonStringArray(r.warnings, &out);
    out += "}";
    std::cout << out << std::endl;
    for (const auto& w : r.warnings) std::cerr << "WARNING: " << w << std::endl;
    return;
  }
  if (r.skipped) {
    std::cout << "skipped: " << r.skipped_reason << std::endl;
    return;
  }
  std::cout << fmt::format("{}: version {}{}: {} rows, {} files added", table, r.version,
                           r.created ? " (created)" : "", r.rows, r.files_added);
  if (r.files_removed > 0)
    std::cout << fmt::format(", {} files removed", r.files_removed);
  std::cout << std::endl;
  for (const auto& c : r.added_columns) std::cout << "  added column " << c << std::endl;
  if (r.contract) {
    std::cout << "  under contract " << r.contract->id << " " << r.contract->version;
    if (!r.contract->layer.empty()) std::cout << " (" << r.contract->layer << ")";
    std::cout << std::endl;
    for (const auto& c : r.contract->renamed) std::cout << "  matched " << c << std::endl;
    for (const auto& c : r.contract->cast_columns)
      std::cout << "  cast " << c << std::endl;
    for (const auto& [c, n] : r.contract->cast_nulls) {
      if (n > 0)
        std::cout << "  cast to NULL in " << c << ": " << n << " values" << std::endl;
    }
  }
  PrintCheck(r.check);
  for (const auto& w : r.warnings) std::cerr << "WARNING: " << w << std::endl;
  for (const auto& c : r.widened_columns) std::cout << "  widened " << c << std::endl;
  if (!r.missing_columns.empty()) {
    std::cout << "  columns not in the input (written as NULL):";
    for (const auto& c : r.missing_columns) std::cout << " " << c;
    std::cout << std::endl;
  }
  if (r.checkpoint_version) {
    std::cout << "  checkpoint written at version " << *r.checkpoint_version << std::endl;
  }
  if (r.checkpoint_error) {
    std::cerr << "deltaguard: warning: " << table
              << ": the commit succeeded but writing its checkpoint failed: "
              << *r.checkpoint_error << std::endl;
  }
}

constexpr const char* kCreateUsage =
    "usage: deltaguard create TABLE (--schema 'DDL or JSON' | --schema-file F | "
    "--from-file DATAFILE) [--partition-by a,b] [--property k=v]... [--name N] "
    "[--comment TEXT] [--if-not-exists] [--output text|json]";

constexpr const char* kWriteUsage =
    "usage: deltaguard write TABLE FILE... [--mode append|overwrite|error|ignore] "
    "[--merge-schema] [--overwrite-schema] [--replace-where PRED] "
    "[--format parquet|csv|json|arrow] [--no-header] [--delimiter C] [--multi-line] "
    "[--invalid-utf8 fail|replace] [--json-block-size BYTES] "
    "[--partition-by a,b] [--property k=v]... [--txn-app-id ID --txn-version N] "
    "[--compression snappy|zstd] [--conf key=value]... "
    "[--on-violation fail|quarantine=QTABLE] [--contract FILE [--contract-object NAME]] "
    "[--check auto|TESTS_FILE [--on-check-failure fail|warn|quarantine=QTABLE] "
    "[--baseline trailing:N|trailing:Nd]] [--output text|json]";

// --on-violation: nullopt for fail (the default), else the quarantine table's path.
Result<std::optional<std::string>> OnViolation(const Args& args) {
  auto value = args.Get("--on-violation");
  if (!value || *value == "fail") return std::optional<std::string>();
  constexpr std::string_view kPrefix = "quarantine=";
  if (value->rfind(kPrefix, 0) == 0 && value->size() > kPrefix.size()) {
    return std::optional<std::string>(value->substr(kPrefix.size()));
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   "--on-violation must be 'fail' or 'quarantine=QTABLE', got '{}'",
                   *value);
}

void PrintQuarantine(const QuarantineWriteResult& r, const std::string& table,
                     const std::string& quarantine, bool json) {
  if (json) {
    std::string out = "{\"table\":";
    AppendJsonString(&out, table);
    out += fmt::format(",\"version\":{},\"rows\":{},\"files_added\":{}", r.table.version,
                       r.good_rows, r.table.files_added);
    out += ",\"quarantine\":{\"table\":";
    AppendJsonString(&out, quarantine);
    out += fmt::format(",\"version\":{},\"created\":{},\"rows\":{},\"quarantined_at\":",
                       r.quarantine ? r.quarantine->version : -1,
                       r.quarantine_created ? "true" : "false", r.quarantined_rows);
    AppendJsonString(&out, FormatTimestampMillis(r.quarantined_at_micros / 1000));
    out += ",\"by_constraint\":{";
    for (size_t i = 0; i < r.by_constraint.size(); ++i) {
      if (i > 0) out += ",";
      AppendJsonString(&out, r.by_constraint[i].first);
      out += fmt::format(":{}", r.by_constraint[i].second);
    }
    out += "}}";
    if (r.table.check) out += ",\"check\":" + CheckJson(r.table.check);
    out += "}";
    std::cout << out << std::endl;
    return;
  }
  if (r.table.check && r.table.check->held) {
    std::cout << fmt::format(
                     "{}: nothing committed: the whole batch ({} rows) is held in "
                     "{} (version {}{}): {}",
                     table, r.quarantined_rows, quarantine,
                     r.quarantine ? r.quarantine->version : -1,
                     r.quarantine_created ? ", created" : "", r.table.check->held_reason)
              << std::endl;
    PrintCheck(r.table.check);
    return;
  }
  std::cout << fmt::format("{}: version {}: {} rows written, {} files added", table,
                           r.table.version, r.good_rows, r.table.files_added)
            << std::endl;
  PrintCheck(r.table.check);
  if (r.quarantined_rows == 0) {
    std::cout << "  no rows violated a constraint; nothing quarantined" << std::endl;
    return;
  }
  std::cout << fmt::format("  {} rows quarantined to {} (version {}{})",
                           r.quarantined_rows, quarantine,
                           r.quarantine ? r.quarantine->version : -1,
                           r.quarantine_created ? ", created" : "")
            << std::endl;
  for (const auto& [name, count] : r.by_constraint) {
    std::cout << fmt::format("    {}: {} rows", name, count) << std::endl;
  }
}

bool JsonOutput(const Args& args) {
  return args.Get("--output").value_or("text") == "json";
}

}  // namespace

int RunCreate(const std::vector<std::string>& argv) {
  FlagSpec spec{{"--schema", "--schema-file", "--from-file", "--partition-by",
                 "--property", "--name", "--comment", "--output", "--format",
                 "--delimiter", "--invalid-utf8", "--json-block-size"},
                {"--if-not-exists", "--no-header", "--multi-line"}};
  auto args = ParseArgs(argv, spec);
  if (!args) return ReportError(args.error(), "");
  if (args->positional.size() != 1) {
    return ReportError(MakeError(ErrorCode::kInvalidArgument, "{}", kCreateUsage), "");
  }
  const std::string& table = args->positional[0];
  int sources = args->Get("--schema").has_value() +
                args->Get("--schema-file").has_value() +
                args->Get("--from-file").has_value();
  if (sources != 1) {
    return ReportError(
        MakeError(ErrorCode::kInvalidArgument,
                  "give exactly one of --schema, --schema-file, --from-file; "
                  "{}",
                  kCreateUsage),
        table);
  }
  CreateTableOptions options;
  Result<SchemaRef> schema = SchemaRef();
  if (auto text = args->Get("--schema")) {
    schema = SchemaFromText(*text);
  } else if (auto file = args->Get("--schema-file")) {
    auto fs = MakeLocalFileSystem();
    auto content = fs->ReadFile(*file);
    if (!content) return ReportError(content.error(), table);
    schema = SchemaFromText(*content);
  } else {
    auto input = InputOptionsFrom(*args);
    if (!input) return ReportError(input.error(), table);
    schema = SchemaOfInputFile(*args->Get("--from-file"), *input);
  }
  if (!schema) return ReportError(schema.error(), table);
  options.schema = *schema;
  auto partitions = ColumnList(*args, "--partition-by");
  if (!partitions) return ReportError(partitions.error(), table);
  options.partition_columns = *partitions;
  auto properties = Properties(*args);
  if (!properties) return ReportError(properties.error(), table);
  options.properties = *properties;
  options.name = args->Get("--name");
  options.description = args->Get("--comment");
  options.if_not_exists = args->Has("--if-not-exists");
  auto result = CreateTable(MakeLocalFileSystem(), table, options);
  if (!result) return ReportError(result.error(), table);
  PrintResult(*result, table, JsonOutput(*args));
  return kExitOk;
}

int RunWrite(const std::vector<std::string>& argv) {
  FlagSpec spec{{"--mode",
                 "--replace-where",
                 "--format",
                 "--delimiter",
                 "--partition-by",
                 "--property",
                 "--txn-app-id",
                 "--txn-version",
                 "--compression",
                 "--target-file-size",
                 "--conf",
                 "--output",
                 "--on-violation",
                 "--invalid-utf8",
                 "--json-block-size",
                 "--contract",
                 "--contract-object",
                 "--check",
                 "--on-check-failure",
                 "--baseline"},
                {"--merge-schema", "--no-merge-schema", "--overwrite-schema",
                 "--no-header", "--no-checkpoint", "--multi-line"}};
  auto args = ParseArgs(argv, spec);
  if (!args) return ReportError(args.error(), "");
  if (args->positional.size() < 2) {
    return ReportError(MakeError(ErrorCode::kInvalidArgument, "{}", kWriteUsage), "");
  }
  const std::string& table = args->positional[0];
  std::vector<std::string> files(args->positional.begin() + 1, args->positional.end());
  WriteOptions options;
  options.merge_option_hint = "--merge-schema";
  if (auto mode = args->Get("--mode")) {
    auto parsed = ParseWriteMode(*mode);
    if (!parsed) return ReportError(parsed.error(), table);
    options.mode = *parsed;
  }
  if (args->Has("--merge-schema") && args->Has("--no-merge-schema")) {
    return ReportError(MakeError(ErrorCode::kInvalidArgument,
                                 "--merge-schema and --no-merge-schema contradict"),
                       table);
  }
  if (args->Has("--merge-schema")) options.merge_schema = true;
  if (args->Has("--no-merge-schema")) options.merge_schema = false;
  options.overwrite_schema = args->Has("--overwrite-schema");
  options.replace_where = args->Get("--replace-where");
  options.checkpoint = !args->Has("--no-checkpoint");
  if (auto file = args->Get("--contract")) {
    std::vector<ContractDiagnostic> warnings;
    auto contract = LoadContract(*MakeLocalFileSystem(), *file, &warnings);
    if (!contract) return ReportError(contract.error(), table);
    for (const auto& w : warnings) std::cerr << "WARNING: " << w.ToString() << "\n";
    options.contract = std::make_shared<const Contract>(std::move(*contract));
  }
  options.contract_object = args->Get("--contract-object").value_or("");
  auto partitions = ColumnList(*args, "--partition-by");
  if (!partitions) return ReportError(partitions.error(), table);
  options.partition_by = *partitions;
  auto properties = Properties(*args);
  if (!properties) return ReportError(properties.error(), table);
  options.properties = *properties;
  options.txn_app_id = args->Get("--txn-app-id");
  if (auto v = args->Get("--txn-version")) {
    auto n = ParseInt64(*v, "--txn-version");
    if (!n) return ReportError(n.error(), table);
    options.txn_version = *n;
  }
  if (auto c = args->Get("--compression")) options.file_options.compression = *c;
  if (auto size = args->Get("--target-file-size")) {
    auto n = ParseInt64(*size, "--target-file-size");
    if (!n) return ReportError(n.error(), table);
    if (*n <= 0) {
      return ReportError(
          MakeError(ErrorCode::kInvalidArgument, "--target-file-size must be > 0"),
          table);
    }
    options.file_options.target_file_size_bytes = *n;
  }
  auto session = Session(*args);
  if (!session) return ReportError(session.error(), table);
  auto input = InputOptionsFrom(*args);
  if (!input) return ReportError(input.error(), table);
  auto on_violation = OnViolation(*args);
  if (!on_violation) return ReportError(on_violation.error(), table);
  auto check = CheckOptionsFrom(*args);
  if (!check) return ReportError(check.error(), table);
  options.check = *check;
  if (options.check && options.check->on_failure == CheckFailureAction::kQuarantine) {
    // One quarantine table for the rows breaking constraints and data tests.
    if (*on_violation && **on_violation != options.check->quarantine) {
      return ReportError(MakeError(ErrorCode::kInvalidArgument,
                                   "--on-violation and --on-check-failure name different "
                                   "quarantine tables ('{}', '{}'); use one",
                                   **on_violation, options.check->quarantine),
                         table);
    }
    *on_violation = options.check->quarantine;
  }
  if (*on_violation) {
    auto routed = WriteFilesWithQuarantine(MakeLocalFileSystem(), table, files, *input,
                                           options, **on_violation, *session);
    if (!routed) return ReportError(routed.error(), table);
    PrintQuarantine(*routed, table, **on_violation, JsonOutput(*args));
    return kExitOk;
  }
  auto result =
      WriteFiles(MakeLocalFileSystem(), table, files, *input, options, *session);
  if (!result) return ReportError(result.error(), table);
  PrintResult(*result, table, JsonOutput(*args));
  return kExitOk;
}

}  // namespace deltaguard::cli
