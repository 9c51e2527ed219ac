// CreateTable and the helpers shared with WriteTable (write_internal.h).

#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <limits>
#include <optional>
#include <utility>

#include "deltaguard/constraints/constraints.h"
#include "deltaguard/evolution/write_checks.h"
#include "deltaguard/evolution/write_schema.h"
#include "deltaguard/exec/batch_conformer.h"
#include "deltaguard/exec/constraint_checker.h"
#include "deltaguard/io/parquet/arrow_schema.h"
#include "deltaguard/io/parquet/arrow_status_internal.h"
#include "deltaguard/io/parquet/checkpoint_writer.h"
#include "deltaguard/io/parquet/partitioned_writer.h"
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

// "1024", "512k", "512m", "2g", "1gb" (binary units, case-insensitive) or "-1".
std::optional<int64_t> ParseByteSize(std::string_view text) {
  if (text == "-1") return -1;
  int64_t number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || number < 0) return std::nullopt;
  std::string unit = AsciiToLower(text.substr(static_cast<size_t>(end - text.data())));
  if (unit.size() == 2 && unit[1] == 'b') unit.pop_back();
  int shift = 0;
  if (unit == "k") {
    shift = 10;
  } else if (unit == "m") {
    shift = 20;
  } else if (unit == "g") {
    shift = 30;
  } else if (!unit.empty() && unit != "b") {
    return std::nullopt;
  }
  if (number > (std::numeric_limits<int64_t>::max() >> shift)) return std::nullopt;
  return number << shift;
}

Status SessionSettings::Set(std::string_view key, std::string_view value) {
  std::string lower = AsciiToLower(Trim(key));
  if (lower == "spark.databricks.delta.schema.automerge.enabled" ||
      lower == "deltaguard.schema.automerge") {
    std::string_view v = Trim(value);
    if (EqualsIgnoreCase(v, "true") || EqualsIgnoreCase(v, "false")) {
      auto_merge = EqualsIgnoreCase(v, "true");
      return OkStatus();
    }
    return MakeError(ErrorCode::kInvalidArgument,
                     "setting '{}' must be true or false, found '{}'", key, value);
  }
  if (lower == "deltaguard.merge.ignoreunmatchedsourcecolumns") {
    std::string_view v = Trim(value);
    if (EqualsIgnoreCase(v, "true") || EqualsIgnoreCase(v, "false")) {
      merge_ignore_unmatched_source_columns = EqualsIgnoreCase(v, "true");
      return OkStatus();
    }
    return MakeError(ErrorCode::kInvalidArgument,
                     "setting '{}' must be true or false, found '{}'", key, value);
  }
  if (lower == "spark.databricks.delta.retentiondurationcheck.enabled" ||
      lower == "spark.databricks.delta.vacuum.logging.enabled") {
    std::string_view v = Trim(value);
    if (EqualsIgnoreCase(v, "true") || EqualsIgnoreCase(v, "false")) {
      bool& target = lower.ends_with("vacuum.logging.enabled") ? vacuum_logging
                                                               : retention_duration_check;
      target = EqualsIgnoreCase(v, "true");
      return OkStatus();
    }
    return MakeError(ErrorCode::kInvalidArgument,
                     "setting '{}' must be true or false, found '{}'", key, value);
  }
  if (lower == "deltaguard.merge.sourcememorylimit") {
    auto bytes = ParseByteSize(Trim(value));
    if (!bytes) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "setting '{}' must be a byte count such as 1073741824, 512m or "
                       "2g (or -1 for no limit), found '{}'",
                       key, value);
    }
    merge_source_memory_limit = *bytes;
    return OkStatus();
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown setting '{}' (known: "
                   "spark.databricks.delta.schema.autoMerge.enabled, "
                   "deltaguard.merge.ignoreUnmatchedSourceColumns, "
                   "deltaguard.merge.sourceMemoryLimit, "
                   "spark.databricks.delta.retentionDurationCheck.enabled, "
                   "spark.databricks.delta.vacuum.logging.enabled)",
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

Result<EvolvedTable> EvolveTable(const Snapshot& snapshot, const Metadata& base,
                                 SchemaRef schema) {
  EvolvedTable out;
  out.metadata = base;
  if (snapshot.column_mapping_mode() != ColumnMappingMode::kNone) {
    DELTA_ASSIGN_OR_RETURN(
        auto assigned,
        AssignColumnMapping(*schema, MaxColumnId(base.configuration), false));
    schema = assigned.schema;
    SetConfig(&out.metadata.configuration, kColumnMappingMaxColumnIdProperty,
              std::to_string(assigned.max_column_id));
  }
  out.metadata.schema_string = SchemaToJson(*schema);
  DELTA_ASSIGN_OR_RETURN(
      out.new_protocol,
      ProtocolUpgradeFor(snapshot.protocol(), out.metadata.configuration, *schema));
  out.schema = std::move(schema);
  return out;
}

AddFile AddFileFor(const WrittenFile& file) {
  AddFile add;
  add.path = file.relative_path;
  add.partition_values = file.partition_values;
  add.size = file.size;
  add.modification_time = file.modification_time;
  add.data_change = true;
  add.stats = file.stats_json;
  return add;
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

// CHECK constraints given as `delta.constraints.<name>` properties of a new table: the
// same name and expression rules as ALTER TABLE ADD CONSTRAINT on a table without
// constraints (ValidateNewCheckConstraint); the expression must bind against the schema
// now (Spark only logs a bad one by default; a constraint that cannot be evaluated would
// fail every later write). Rows written with the table (CTAS, REPLACE) are checked as
// they go.
Status CheckNewTableConstraints(const StringMap& properties, const NewTableState& state) {
  for (const auto& [key, value] : properties) {
    if (!StartsWithIgnoreCase(key, kConstraintPropertyPrefix)) continue;
    auto valid = ValidateNewCheckConstraint(
        Metadata{}, *state.schema,
        std::string_view(key).substr(kConstraintPropertyPrefix.size()), value);
    if (!valid)
      return WithContext(valid.error(), fmt::format("table property '{}'", key));
  }
  return OkStatus();
}

// Names, comments and properties go into the log's JSON, which must be UTF-8.
static Status CheckUtf8Text(const std::string& what, std::string_view text) {
  size_t bad = 0;
  if (IsValidUtf8(text, &bad)) return OkStatus();
  return MakeError(ErrorCode::kInvalidArgument,
                   "{} is not valid UTF-8 (byte {} at offset {}): '{}'",
                   EscapeForMessage(what), EscapeForMessage(text.substr(bad, 1)), bad,
                   EscapeForMessage(text));
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
  DELTA_RETURN_IF_ERROR(ValidateTableProperties(properties, /*allow_constraints=*/true));
  DELTA_RETURN_IF_ERROR(CheckUtf8Text("the table name", name.value_or("")));
  DELTA_RETURN_IF_ERROR(CheckUtf8Text("the table comment", description.value_or("")));
  for (const auto& [k, v] : properties) {
    DELTA_RETURN_IF_ERROR(CheckUtf8Text("a table property key", k));
    DELTA_RETURN_IF_ERROR(CheckUtf8Text(fmt::format("table property '{}'", k), v));
  }

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
  DELTA_RETURN_IF_ERROR(CheckNewTableConstraints(properties, state));
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

namespace {

// commitInfo of a table definition (CREATE TABLE, REPLACE TABLE, ...): Spark's
// operationParameters partitionBy, description, properties and isManaged.
OperationInfo CreateOperation(std::string operation, const Metadata& metadata,
                              bool managed) {
  OperationInfo op;
  op.operation = std::move(operation);
  op.parameters_json.emplace_back(
      "partitionBy", internal::PartitionByParameter(metadata.partition_columns));
  if (metadata.description) {
    op.parameters_json.emplace_back("description", JsonQuote(*metadata.description));
  }
  std::string props = "{";
  for (size_t i = 0; i < metadata.configuration.size(); ++i) {
    if (i > 0) props += ",";
    AppendJsonString(&props, metadata.configuration[i].first);
    props += ":";
    AppendJsonString(&props, metadata.configuration[i].second);
  }
  props += "}";
  op.parameters_json.emplace_back("properties", JsonQuote(props));
  op.parameters_json.emplace_back("isManaged", managed ? "\"true\"" : "\"false\"");
  return op;
}

}  // namespace

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
  OperationInfo op = CreateOperation("CREATE TABLE", state.metadata, options.managed);
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

namespace {

// Table properties a replaced table keeps unless the new definition sets them: protocol
// state that cannot go back (column ids continue after maxColumnId; the column-mapping
// mode and in-commit timestamps stay on, as the protocol keeps their features).
constexpr std::string_view kRetainedOnReplace[] = {
    kColumnMappingMaxColumnIdProperty,
    "delta.columnMapping.mode",
    "delta.enableInCommitTimestamps",
    "delta.inCommitTimestampEnablementVersion",
    "delta.inCommitTimestampEnablementTimestamp",
};

// Write `data` conformed to `state`'s schema; the files are not committed yet.
Result<std::vector<WrittenFile>> WriteReplacementRows(
    const FileSystemRef& fs, const std::string& root, const std::string& path,
    const internal::NewTableState& state, BatchSource& data, int64_t* rows) {
  DataFileWriterOptions file_options;
  DELTA_ASSIGN_OR_RETURN(file_options.stats, internal::StatsOptionsFor(state.metadata));
  DELTA_ASSIGN_OR_RETURN(ColumnMappingMode mode, GetColumnMappingMode(state.metadata));
  DELTA_ASSIGN_OR_RETURN(
      auto writer,
      PartitionedWriter::Make(fs, root, state.schema, state.metadata.partition_columns,
                              mode, file_options));
  auto write = [&]() -> Status {
    ConformOptions conform_options;
    conform_options.by_position = data.by_position;
    conform_options.table_name = path;
    DELTA_ASSIGN_OR_RETURN(
        auto conformer, BatchConformer::Make(state.schema, data.schema, conform_options));
    // Invariants carried by the new schema (CHECK constraints cannot be given as
    // properties, so these are the legacy ones) hold for the new rows too.
    DELTA_ASSIGN_OR_RETURN(auto checker,
                           ConstraintChecker::Make(state.metadata, *state.schema, path));
    DELTA_ASSIGN_OR_RETURN(auto reader, data.open());
    int64_t row = 0;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      auto st = reader->ReadNext(&batch);
      if (!st.ok()) {
        return internal::FromArrowStatus(st, ErrorCode::kCorruptData,
                                         fmt::format("input '{}'", data.name));
      }
      if (!batch) break;
      DELTA_ASSIGN_OR_RETURN(auto conformed, conformer->Conform(*batch, row));
      DELTA_RETURN_IF_ERROR(checker.Check(*conformed));
      DELTA_RETURN_IF_ERROR(writer->Write(conformed));
      row += batch->num_rows();
    }
    return OkStatus();
  };
  if (auto st = write(); !st) {
    writer->Abort();
    return WithContext(st.error(), fmt::format("input '{}'", data.name));
  }
  auto files = writer->Finish();
  if (!files) {
    writer->Abort();
    return files.error();
  }
  *rows = writer->rows_written();
  return files;
}

}  // namespace

Result<WriteResult> ReplaceTable(FileSystemRef fs, const std::string& path,
                                 const CreateTableOptions& options,
                                 std::optional<BatchSource> data,
                                 const std::string& operation,
                                 const SessionSettings& session) {
  DELTA_ASSIGN_OR_RETURN(std::string root, NormalizeTablePath(path));
  DELTA_ASSIGN_OR_RETURN(SnapshotRef existing, internal::LoadIfExists(fs, root));
  if (existing) {
    // The old CHECK constraints and invariants go with the old definition (new ones
    // cannot be given as properties), so they need no evaluation here.
    DELTA_RETURN_IF_ERROR(CheckWriteSupported(existing->protocol(), existing->metadata(),
                                              *existing->schema(), path,
                                              /*can_evaluate_constraints=*/true));
  }
  SchemaRef schema = options.schema;
  if (!schema && data) {
    DELTA_ASSIGN_OR_RETURN(auto input, FromArrowSchema(*data->schema));
    DELTA_ASSIGN_OR_RETURN(schema, SchemaForNewTable(*input, path));
  }
  if (!schema) {
    return MakeError(ErrorCode::kInvalidArgument, "{} '{}' needs a schema", operation,
                     path);
  }
  // The new definition replaces the old one; only the table id, name, creation time
  // and the protocol state of kRetainedOnReplace carry over.
  std::optional<Metadata> previous;
  if (existing) {
    previous = existing->metadata();
    StringMap kept;
    for (std::string_view key : kRetainedOnReplace) {
      if (auto value = previous->GetConfig(key)) kept.emplace_back(key, *value);
    }
    previous->configuration = std::move(kept);
    previous->description.reset();
  }
  const int64_t now = internal::NowMillis();
  DELTA_ASSIGN_OR_RETURN(
      auto state, internal::PrepareNewTable(
                      schema, options.partition_columns, options.properties, options.name,
                      options.description, previous ? &*previous : nullptr,
                      existing ? &existing->protocol() : nullptr, now));
  WriteResult result;
  std::vector<WrittenFile> files;
  if (data) {
    DELTA_ASSIGN_OR_RETURN(
        files, WriteReplacementRows(fs, root, path, state, *data, &result.rows));
  }
  auto discard = [&](Error e) -> Error {
    for (const auto& file : files)
      (void)fs->Delete(internal::DataFilePath(root, file.relative_path));
    return e;
  };
  if (!existing) {
    if (auto st = fs->CreateDirs(JoinPath(root, "_delta_log")); !st)
      return discard(st.error());
  }
  TransactionOptions txn_options;
  txn_options.engine_info = session.engine_info;
  auto txn_or = Transaction::Begin(fs, root, existing, txn_options);
  if (!txn_or) return discard(txn_or.error());
  auto& txn = *txn_or;
  if (!existing || ActionToJson(Action(existing->protocol())) !=
                       ActionToJson(Action(state.protocol))) {
    txn->SetProtocol(state.protocol);
  }
  txn->SetMetadata(state.metadata);
  int64_t removed_bytes = 0;
  if (existing) {
    for (const auto& add : existing->files()) {
      txn->RemoveFile(RemoveFileFor(add, now));
      removed_bytes += add.size;
      ++result.files_removed;
    }
    txn->ReadWholeTable();
  }
  for (const auto& file : files) {
    result.bytes_added += file.size;
    txn->AddFile(internal::AddFileFor(file));
  }
  result.files_added = static_cast<int64_t>(files.size());
  OperationInfo op = CreateOperation(operation, state.metadata, options.managed);
  if (data) {
    op.metrics.emplace_back("numFiles", result.files_added);
    op.metrics.emplace_back("numOutputRows", result.rows);
    op.metrics.emplace_back("numOutputBytes", result.bytes_added);
  }
  if (result.files_removed > 0) {
    op.metrics.emplace_back("numRemovedFiles", result.files_removed);
    op.metrics.emplace_back("numRemovedBytes", removed_bytes);
  }
  auto committed = txn->Commit(op);
  if (!committed) {
    // After an I/O error at the commit its outcome is unknown: keep the files.
    if (committed.error().code == ErrorCode::kIOError) return committed.error();
    return discard(committed.error());
  }
  result.version = committed->version;
  result.created = existing == nullptr;
  result.schema_changed = true;
  result.commit_attempts = committed->attempts;
  internal::MaybeCheckpoint(fs, root, result.version, state.metadata, &result);
  return result;
}

}  // namespace deltaguard
