// CreateTable and the helpers shared with WriteTable (write_internal.h).

#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <utility>

#include "deltaguard/evolution/write_checks.h"
#include "deltaguard/evolution/write_schema.h"
#include "deltaguard/io/parquet/checkpoint_writer.h"
#include "deltaguard/protocol/column_mapping.h"
#include "deltaguard/protocol/table_properties.h"
#include "deltaguard/protocol/write_protocol.h"
#include "deltaguard/schema/column_path.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/write.h"
#include "deltaguard/table/write_internal.h"
#include "deltaguard/util/string_util.h"
#include "deltaguard/util/uuid.h"

namespace deltaguard {

Result<WriteMode> ParseWriteMode(std::string_view text) {
  std::string lower = AsciiToLower(text);
  if (lower == "append") return WriteMode::kAppend;
  if (lower == "overwrite") return WriteMode::kOverwrite;
  if (lower == "error" || lower == "errorifexists") return WriteMode::kErrorIfExists;
  if (lower == "ignore") return WriteMode::kIgnore;
  return MakeError(
      ErrorCode::kInvalidArgument,
      "unknown write mode '{}' (expected append, overwrite, error or ignore)", text);
}

std::string_view WriteModeName(WriteMode mode) {
  switch (mode) {
    case WriteMode::kAppend:
      return "Append";
    case WriteMode::kOverwrite:
      return "Overwrite";
    case WriteMode::kErrorIfExists:
      return "ErrorIfExists";
    case WriteMode::kIgnore:
      return "Ignore";
  }
  return "Append";
}

Status SessionSettings::Set(std::string_view key, std::string_view value) {
  std::string lower = AsciiToLower(Trim(key));
  if (lower == "spark.databricks.delta.schema.automerge.enabled" ||
      lower == "deltaguard.schema.automerge") {
    DELTA_ASSIGN_OR_RETURN(auto enabled, ParseBoolProperty(key, Trim(value)));
    auto_merge = enabled;
    return OkStatus();
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown setting '{}' (known: "
                   "spark.databricks.delta.schema.autoMerge.enabled)",
                   key);
}

BatchSource SourceFromReader(std::string name,
                             std::shared_ptr<arrow::RecordBatchReader> reader) {
  BatchSource source;
  source.name = std::move(name);
  source.schema = reader->schema();
  source.open = [reader, used = std::make_shared<bool>(false)]()
      -> Result<std::shared_ptr<arrow::RecordBatchReader>> {
    if (*used) {
      return MakeError(ErrorCode::kInternal, "a reader-backed input can be read once");
    }
    *used = true;
    return reader;
  };
  return source;
}

namespace internal {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string DataFilePath(const std::string& root, const std::string& relative_uri) {
  auto decoded = PercentDecode(relative_uri);
  return JoinPath(root, decoded ? *decoded : relative_uri);
}

Result<SnapshotRef> LoadIfExists(const FileSystemRef& fs, const std::string& root) {
  DELTA_ASSIGN_OR_RETURN(bool has_log, fs->Exists(JoinPath(root, "_delta_log")));
  if (!has_log) return SnapshotRef();
  auto snapshot = OpenSnapshot(fs, root);
  if (snapshot) return snapshot;
  // A _delta_log directory without any commit is not a table yet (e.g. a crashed
  // create before its first commit).
  DELTA_ASSIGN_OR_RETURN(auto entries, fs->List(JoinPath(root, "_delta_log")));
  for (const auto& e : entries) {
    if (e.path.ends_with(".json") || e.path.find(".checkpoint.") != std::string::npos)
      return snapshot.error();
  }
  return SnapshotRef();
}

void SetConfig(StringMap* config, std::string_view key, std::string value) {
  for (auto& [k, v] : *config) {
    if (EqualsIgnoreCase(k, key)) {
      v = std::move(value);
      return;
    }
  }
  config->emplace_back(std::string(key), std::move(value));
}

int64_t MaxColumnId(const StringMap& config) {
  auto value = FindIgnoreCase(config, kColumnMappingMaxColumnIdProperty);
  return value ? std::strtoll(value->c_str(), nullptr, 10) : 0;
}

std::string PartitionByParameter(const std::vector<std::string>& columns) {
  std::string array = "[";
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) array += ",";
    AppendJsonString(&array, columns[i]);
  }
  array += "]";
  return JsonQuote(array);
}

Result<FileStatsOptions> StatsOptionsFor(const Metadata& metadata) {
  FileStatsOptions options;
  auto parse_int = [&](std::string_view key, int* out) -> Status {
    auto value = metadata.GetConfig(key);
    if (!value) return OkStatus();
    int parsed = 0;
    auto [end, ec] =
        std::from_chars(value->data(), value->data() + value->size(), parsed);
    if (ec != std::errc() || end != value->data() + value->size()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "table property {} = '{}' is not an integer", key, *value);
    }
    *out = parsed;
    return OkStatus();
  };
  DELTA_RETURN_IF_ERROR(
      parse_int("delta.dataSkippingNumIndexedCols", &options.num_indexed_cols));
  DELTA_RETURN_IF_ERROR(
      parse_int("delta.dataSkippingStringPrefixLength", &options.string_prefix_length));
  if (auto cols = metadata.GetConfig("delta.dataSkippingStatsColumns")) {
    std::vector<std::string> list;
    for (auto part : Split(*cols, ',')) {
      auto trimmed = Trim(part);
      if (!trimmed.empty()) list.emplace_back(trimmed);
    }
    options.stats_columns = std::move(list);
  }
  return options;
}

Result<NewTableState> PrepareNewTable(SchemaRef schema,
                                      const std::vector<std::string>& partition_columns,
                                      const StringMap& properties,
                                      const std::optional<std::string>& name,
                                      const std::optional<std::string>& description,
                                      const Metadata* previous_metadata,
                                      const Protocol* previous_protocol, int64_t now_ms) {
  DELTA_RETURN_IF_ERROR(ValidateFieldNames(*schema));
  if (schema->num_fields() == 0) {
    return MakeError(ErrorCode::kSchemaMismatch,
                     "DELTA_EMPTY_DATA: a Delta table needs at least one column");
  }
  DELTA_ASSIGN_OR_RETURN(auto partitions,
                         CheckPartitionColumns(*schema, partition_columns));
  DELTA_RETURN_IF_ERROR(ValidateTableProperties(properties));

  NewTableState state;
  StringMap configuration =
      previous_metadata ? previous_metadata->configuration : StringMap{};
  for (const auto& [k, v] : properties) SetConfig(&configuration, k, v);

  // Column mapping: ids and physical names for every field. A replaced schema gets fresh
  // ones continuing after the old maxColumnId, as Spark does for overwriteSchema.
  Metadata probe;
  probe.configuration = configuration;
  DELTA_ASSIGN_OR_RETURN(ColumnMappingMode mode, GetColumnMappingMode(probe));
  if (mode != ColumnMappingMode::kNone) {
    DELTA_ASSIGN_OR_RETURN(
        auto assigned, AssignColumnMapping(*schema, MaxColumnId(configuration), false));
    schema = assigned.schema;
    SetConfig(&configuration, kColumnMappingMaxColumnIdProperty,
              std::to_string(assigned.max_column_id));
  }

  if (previous_protocol) {
    DELTA_ASSIGN_OR_RETURN(
        auto upgrade, ProtocolUpgradeFor(*previous_protocol, configuration, *schema));
    state.protocol = upgrade ? *upgrade : *previous_protocol;
    state.metadata.configuration = std::move(configuration);
  } else {
    // Read through the Result (no move out of it): GCC 12 misreports the moved-from
    // optional feature lists as maybe-uninitialized.
    auto decision = ProtocolForNewTable(configuration, *schema);
    if (!decision) return decision.error();
    state.protocol = decision->protocol;
    state.metadata.configuration = decision->configuration;
  }
  state.metadata.id = previous_metadata ? previous_metadata->id : GenerateUuidV4();
  state.metadata.name =
      name ? name : (previous_metadata ? previous_metadata->name : std::nullopt);
  state.metadata.description =
      description ? description
                  : (previous_metadata ? previous_metadata->description : std::nullopt);
  state.metadata.schema_string = SchemaToJson(*schema);
  state.metadata.partition_columns = std::move(partitions);
  state.metadata.created_time = previous_metadata && previous_metadata->created_time
                                    ? previous_metadata->created_time
                                    : std::optional(now_ms);
  state.schema = std::move(schema);
  return state;
}

void MaybeCheckpoint(const FileSystemRef& fs, const std::string& root, int64_t version,
                     const Metadata& metadata, WriteResult* result) {
  auto should = ShouldCheckpoint(version, metadata);
  if (!should) {
    result->checkpoint_error = should.error().ToString();
    return;
  }
  if (!*should) return;
  SnapshotSpec spec;
  spec.version = version;
  auto snapshot = OpenSnapshot(fs, root, spec);
  if (!snapshot) {
    result->checkpoint_error = snapshot.error().ToString();
    return;
  }
  CheckpointOptions options;
  options.now_ms = NowMillis();
  auto info = WriteCheckpoint(**snapshot, options);
  if (!info) {
    result->checkpoint_error = info.error().ToString();
    return;
  }
  result->checkpoint_version = version;
}

}  // namespace internal

Result<WriteResult> CreateTable(FileSystemRef fs, const std::string& path,
                                const CreateTableOptions& options,
                                const SessionSettings& session) {
  DELTA_ASSIGN_OR_RETURN(std::string root, NormalizeTablePath(path));
  DELTA_ASSIGN_OR_RETURN(SnapshotRef existing, internal::LoadIfExists(fs, root));
  WriteResult result;
  if (existing) {
    if (options.if_not_exists) {
      result.skipped = true;
      result.skipped_reason = fmt::format("table '{}' already exists", path);
      return result;
    }
    return MakeError(ErrorCode::kAlreadyExists,
                     "DELTA_TABLE_ALREADY_EXISTS: table '{}' already exists (version {})",
                     path, existing->version());
  }
  if (!options.schema) {
    return MakeError(ErrorCode::kInvalidArgument, "CREATE TABLE '{}' needs a schema",
                     path);
  }
  const int64_t now = internal::NowMillis();
  DELTA_ASSIGN_OR_RETURN(
      auto state, internal::PrepareNewTable(options.schema, options.partition_columns,
                                            options.properties, options.name,
                                            options.description, nullptr, nullptr, now));
  DELTA_RETURN_IF_ERROR(fs->CreateDirs(JoinPath(root, "_delta_log")));
  TransactionOptions txn_options;
  txn_options.engine_info = session.engine_info;
  DELTA_ASSIGN_OR_RETURN(auto txn, Transaction::Begin(fs, root, nullptr, txn_options));
  txn->SetProtocol(state.protocol);
  txn->SetMetadata(state.metadata);
  OperationInfo op;
  op.operation = "CREATE TABLE";
  op.parameters_json.emplace_back(
      "partitionBy", internal::PartitionByParameter(state.metadata.partition_columns));
  if (state.metadata.description) {
    op.parameters_json.emplace_back("description",
                                    JsonQuote(*state.metadata.description));
  }
  std::string props = "{";
  for (size_t i = 0; i < state.metadata.configuration.size(); ++i) {
    if (i > 0) props += ",";
    AppendJsonString(&props, state.metadata.configuration[i].first);
    props += ":";
    AppendJsonString(&props, state.metadata.configuration[i].second);
  }
  props += "}";
  op.parameters_json.emplace_back("properties", JsonQuote(props));
  op.parameters_json.emplace_back("isManaged", "\"false\"");
  auto committed = txn->Commit(op);
  if (!committed) {
    if (committed.error().code == ErrorCode::kCommitConflict && options.if_not_exists) {
      result.skipped = true;
      result.skipped_reason = "created concurrently by another writer";
      return result;
    }
    return committed.error();
  }
  result.version = committed->version;
  result.created = true;
  result.schema_changed = true;
  result.commit_attempts = committed->attempts;
  return result;
}

}  // namespace deltaguard
