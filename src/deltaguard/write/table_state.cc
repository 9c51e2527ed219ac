// Table-state helpers shared by every write path (table_state.h).

#include "deltaguard/write/table_state.h"

#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <utility>

#include "deltaguard/constraints/constraints.h"
#include "deltaguard/evolution/write_checks.h"
#include "deltaguard/io/parquet/checkpoint_reader.h"
#include "deltaguard/io/parquet/checkpoint_writer.h"
#include "deltaguard/protocol/column_mapping.h"
#include "deltaguard/protocol/table_properties.h"
#include "deltaguard/protocol/write_protocol.h"
#include "deltaguard/schema/column_path.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/util/string_util.h"
#include "deltaguard/util/uuid.h"

namespace deltaguard {
namespace internal {
namespace {

// The snapshot of the table at `root` (normalized) with the Parquet checkpoint reader.
Result<SnapshotRef> LoadSnapshot(const FileSystemRef& fs, const std::string& root,
                                 const SnapshotSpec& spec = {}) {
  ParquetCheckpointReader checkpoint_reader(fs);
  return Snapshot::Load(fs, root, checkpoint_reader, spec);
}

}  // namespace

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
  auto snapshot = LoadSnapshot(fs, root);
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
  // Profiles are on for the tables deltaguard creates (docs/profiles.md).
  if (!previous_metadata) {
    bool given = false;
    for (const auto& [k, v] : configuration)
      given = given || EqualsIgnoreCase(k, kProfilesProperty);
    if (!given) SetConfig(&configuration, std::string(kProfilesProperty), "true");
  }

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
  auto snapshot = LoadSnapshot(fs, root, spec);
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

Status CheckRowsRemovable(const Metadata& metadata, std::string_view table,
                          std::string_view consequence) {
  auto append_only = metadata.GetConfig("delta.appendOnly");
  if (append_only && EqualsIgnoreCase(*append_only, "true")) {
    return MakeError(ErrorCode::kConstraintViolation,
                     "DELTA_CANNOT_MODIFY_APPEND_ONLY: table '{}' is append-only "
                     "(delta.appendOnly = true): {}",
                     table, consequence);
  }
  return OkStatus();
}

}  // namespace internal

}  // namespace deltaguard
