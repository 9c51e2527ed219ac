// ALTER TABLE SET / UNSET TBLPROPERTIES, and the table's features and properties as
// SHOW TBLPROPERTIES lists them (alter.h). Protocol rules: docs/spark_semantics.md
// §4.0-4.1.

#include <fmt/format.h>

#include <charconv>
#include <utility>

#include "deltaguard/protocol/column_mapping.h"
#include "deltaguard/protocol/table_feature.h"
#include "deltaguard/protocol/table_properties.h"
#include "deltaguard/protocol/write_protocol.h"
#include "deltaguard/table/alter.h"
#include "deltaguard/table/alter_internal.h"
#include "deltaguard/util/string_util.h"
#include "deltaguard/write/table_state.h"

namespace deltaguard {
namespace {

using alter_internal::AlterCommit;
using alter_internal::AlterTarget;
using alter_internal::CommitAlter;
using alter_internal::LoadAlterTarget;
using alter_internal::NoChange;

bool IsTrue(const StringMap& config, std::string_view key) {
  auto v = FindIgnoreCase(config, key);
  return v && EqualsIgnoreCase(Trim(*v), "true");
}

// Refuse asking for lower protocol versions than the table has (Spark:
// DELTA_INVALID_PROTOCOL_DOWNGRADE); DROP FEATURE is the only way down.
Status CheckNoDowngrade(const Protocol& current, const StringMap& properties,
                        std::string_view table) {
  auto check = [&](std::string_view key, int32_t have) -> Status {
    auto value = FindIgnoreCase(properties, key);
    if (!value) return OkStatus();
    int32_t asked = 0;
    std::string_view v = Trim(*value);
    std::from_chars(v.data(), v.data() + v.size(), asked);
    if (asked >= have) return OkStatus();
    return MakeError(
        ErrorCode::kInvalidArgument,
        "DELTA_INVALID_PROTOCOL_DOWNGRADE: table '{}' has protocol ({}, {}); "
        "{} = {} would lower it, and protocol versions never decrease",
        table, current.min_reader_version, current.min_writer_version, key, v);
  };
  DELTA_RETURN_IF_ERROR(check(kMinReaderVersionProperty, current.min_reader_version));
  return check(kMinWriterVersionProperty, current.min_writer_version);
}

// Column mapping mode transitions on an existing table (docs/spark_semantics.md §4.1).
// Returns the schema with ids and physical names when mapping is being enabled, else
// nullopt.
Result<std::optional<SchemaRef>> ColumnMappingTransition(const AlterTarget& target,
                                                         const StringMap& config) {
  Metadata probe;
  probe.configuration = config;
  DELTA_ASSIGN_OR_RETURN(ColumnMappingMode to, GetColumnMappingMode(probe));
  const ColumnMappingMode from = target.snapshot->column_mapping_mode();
  if (to == from) return std::optional<SchemaRef>();
  const bool has_files = !target.snapshot->files().empty();
  if (from == ColumnMappingMode::kNone &&
      (to == ColumnMappingMode::kName || !has_files)) {
    // Existing files name their columns by the display names: keep those as physical
    // names (Spark does the same), so nothing is rewritten.
    DELTA_ASSIGN_OR_RETURN(
        auto assigned, AssignColumnMapping(*target.snapshot->schema(),
                                           internal::MaxColumnId(
                                               target.snapshot->metadata().configuration),
                                           /*keep_names_as_physical=*/true));
    return std::optional<SchemaRef>(assigned.schema);
  }
  std::string why =
      from == ColumnMappingMode::kNone
          ? "mode 'id' reads data files by Parquet field ids, which the table's "
            "existing files lack; use 'name'"
      : to == ColumnMappingMode::kNone
          ? "removing column mapping needs every data file rewritten, which "
            "deltaguard does not do"
          : "a column-mapped table keeps its mode";
  return MakeError(ErrorCode::kInvalidArgument,
                   "DELTA_UNSUPPORTED_COLUMN_MAPPING_MODE_CHANGE: cannot change "
                   "delta.columnMapping.mode of table '{}' from '{}' to '{}': {}",
                   target.name, ColumnMappingModeName(from), ColumnMappingModeName(to),
                   why);
}

std::string FirstNotNullColumn(const StructType& schema) {
  std::string found;
  ForEachField(schema, [&](const std::string& path, const StructField& f) {
    if (found.empty() && (!f.nullable || f.metadata.FindRaw(kInvariantsKey))) {
      found = path;
    }
  });
  return found;
}

std::string FirstFieldWith(const StructType& schema, std::string_view key) {
  std::string found;
  ForEachField(schema, [&](const std::string& path, const StructField& f) {
    if (found.empty() && f.metadata.FindRaw(key)) found = path;
  });
  return found;
}

bool UsesTimestampNtz(const DataType& type) {
  switch (type.kind()) {
    case TypeKind::kTimestampNtz:
      return true;
    case TypeKind::kStruct:
      for (const auto& f : static_cast<const StructType&>(type).fields()) {
        if (UsesTimestampNtz(*f.type)) return true;
      }
      return false;
    case TypeKind::kArray:
      return UsesTimestampNtz(*static_cast<const ArrayType&>(type).element_type());
    case TypeKind::kMap:
      return UsesTimestampNtz(*static_cast<const MapType&>(type).key_type()) ||
             UsesTimestampNtz(*static_cast<const MapType&>(type).value_type());
    default:
      return false;
  }
}

// Why `feature` is in use in `snapshot`, or "" when it is only supported.
std::string ActiveReason(const Snapshot& snapshot, std::string_view feature) {
  const StringMap& config = snapshot.metadata().configuration;
  auto bool_property = [&](std::string_view key) {
    return IsTrue(config, key) ? fmt::format("{} = true", key) : std::string();
  };
  if (feature == "appendOnly") return bool_property("delta.appendOnly");
  if (feature == "changeDataFeed") return bool_property("delta.enableChangeDataFeed");
  if (feature == "inCommitTimestamp")
    return bool_property("delta.enableInCommitTimestamps");
  if (feature == "rowTracking") return bool_property("delta.enableRowTracking");
  if (feature == "deletionVectors") {
    for (const auto& f : snapshot.files()) {
      if (f.deletion_vector) return "files with deletion vectors";
    }
    return bool_property("delta.enableDeletionVectors");
  }
  if (feature == "typeWidening" || feature == "typeWidening-preview") {
    std::string on = bool_property("delta.enableTypeWidening");
    if (!on.empty()) return on;
    std::string column = FirstFieldWith(*snapshot.schema(), kTypeChangesKey);
    return column.empty() ? "" : fmt::format("column '{}' was widened", column);
  }
  if (feature == "columnMapping") {
    return snapshot.column_mapping_mode() == ColumnMappingMode::kNone
               ? ""
               : fmt::format("delta.columnMapping.mode = {}",
                             ColumnMappingModeName(snapshot.column_mapping_mode()));
  }
  if (feature == "invariants") {
    std::string column = FirstNotNullColumn(*snapshot.schema());
    return column.empty() ? "" : fmt::format("NOT NULL or invariant on '{}'", column);
  }
  if (feature == "checkConstraints") {
    for (const auto& [k, v] : config) {
      if (StartsWithIgnoreCase(k, kConstraintPropertyPrefix)) {
        return fmt::format("CHECK constraint '{}'",
                           k.substr(kConstraintPropertyPrefix.size()));
      }
    }
    return "";
  }
  if (feature == "timestampNtz") {
    return UsesTimestampNtz(*snapshot.schema()) ? "timestamp_ntz columns" : "";
  }
  if (feature == "domainMetadata") {
    return snapshot.domain_metadata().empty() ? "" : "domain metadata present";
  }
  if (feature == "v2Checkpoint") {
    auto policy = FindIgnoreCase(config, "delta.checkpointPolicy");
    return policy && EqualsIgnoreCase(*policy, "v2") ? "delta.checkpointPolicy = v2" : "";
  }
  return "";
}

}  // namespace

Result<AlterResult> SetTableProperties(FileSystemRef fs, const std::string& path,
                                       const StringMap& properties,
                                       const SessionSettings& session) {
  DELTA_ASSIGN_OR_RETURN(auto target, LoadAlterTarget(fs, path));
  if (properties.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "SET TBLPROPERTIES on table '{}': no property", path);
  }
  for (const auto& [key, value] : properties) {
    if (StartsWithIgnoreCase(key, kConstraintPropertyPrefix)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "DELTA_ADD_CONSTRAINTS: cannot set '{}' on table '{}': use ALTER "
                       "TABLE {} ADD CONSTRAINT {} CHECK ({}) to add a CHECK constraint "
                       "(it verifies the existing rows)",
                       key, path, path, key.substr(kConstraintPropertyPrefix.size()),
                       value);
    }
  }
  DELTA_RETURN_IF_ERROR(ValidateTableProperties(properties));
  const Snapshot& snapshot = *target.snapshot;
  DELTA_RETURN_IF_ERROR(CheckNoDowngrade(snapshot.protocol(), properties, path));

  StringMap config = snapshot.metadata().configuration;
  for (const auto& [k, v] : properties) internal::SetConfig(&config, k, v);
  AlterCommit commit;
  DELTA_ASSIGN_OR_RETURN(auto mapped_schema, ColumnMappingTransition(target, config));
  SchemaRef schema = snapshot.schema();
  if (mapped_schema) {
    schema = *mapped_schema;
    commit.schema = schema;
    commit.changes.push_back(fmt::format(
        "enabled column mapping: ids and physical names assigned to {} columns",
        schema->num_fields()));
  }
  // Protocol properties shape the protocol and are never stored.
  DELTA_ASSIGN_OR_RETURN(auto upgrade,
                         ProtocolUpgradeFor(snapshot.protocol(), config, *schema));
  commit.protocol = upgrade;
  commit.metadata = snapshot.metadata();
  commit.metadata.configuration = RemoveProtocolProperties(config);
  if (upgrade) {
    commit.changes.push_back(fmt::format(
        "upgraded the protocol from ({}, {}) to ({}, {})",
        snapshot.protocol().min_reader_version, snapshot.protocol().min_writer_version,
        upgrade->min_reader_version, upgrade->min_writer_version));
  }
  commit.op.operation = "SET TBLPROPERTIES";
  commit.op.parameters_json.emplace_back("properties",
                                         JsonQuote(StringMapToJson(properties)));
  std::vector<std::string> shown;
  for (const auto& [k, v] : properties) shown.push_back(fmt::format("{} = {}", k, v));
  commit.changes.insert(commit.changes.begin(),
                        fmt::format("set {}", fmt::join(shown, ", ")));
  // Setting the column-mapping mode and changing the schema some other way in the same
  // commit is what Spark refuses (DELTA_UNSUPPORTED_COLUMN_MAPPING_SCHEMA_CHANGE); here
  // the schema only gains ids and physical names.
  return CommitAlter(fs, target, std::move(commit), session);
}

Result<AlterResult> UnsetTableProperties(FileSystemRef fs, const std::string& path,
                                         const std::vector<std::string>& keys,
                                         bool if_exists, const SessionSettings& session) {
  DELTA_ASSIGN_OR_RETURN(auto target, LoadAlterTarget(fs, path));
  if (keys.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "UNSET TBLPROPERTIES on table '{}': no property", path);
  }
  const Snapshot& snapshot = *target.snapshot;
  StringMap config = snapshot.metadata().configuration;
  std::vector<std::string> missing, removed;
  for (const std::string& key : keys) {
    if (StartsWithIgnoreCase(key, kConstraintPropertyPrefix)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "cannot unset '{}' of table '{}': use ALTER TABLE {} DROP "
                       "CONSTRAINT {} to drop a CHECK constraint",
                       key, path, path, key.substr(kConstraintPropertyPrefix.size()));
    }
    if (EqualsIgnoreCase(key, kColumnMappingModeProperty)) {
      return MakeError(
          ErrorCode::kInvalidArgument,
          "DELTA_UNSUPPORTED_COLUMN_MAPPING_MODE_CHANGE: cannot unset '{}' of "
          "table '{}': the data files use physical column names, and "
          "removing column mapping needs every file rewritten, which "
          "deltaguard does not do",
          key, path);
    }
    if (IsProtocolProperty(key)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "cannot unset '{}' of table '{}': protocol versions and table "
                       "features are part of the protocol, not properties, and are never "
                       "removed by UNSET (Spark: ALTER TABLE ... DROP FEATURE)",
                       key, path);
    }
    auto it = std::find_if(config.begin(), config.end(), [&](const auto& kv) {
      return EqualsIgnoreCase(kv.first, key);
    });
    if (it == config.end()) {
      missing.push_back(key);
      continue;
    }
    auto internal_key = ValidateTableProperties({{it->first, "true"}});
    if (!internal_key && internal_key.error().message.find("maintained by the writer") !=
                             std::string::npos) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "cannot unset '{}' of table '{}': it is maintained by the writer",
                       it->first, path);
    }
    removed.push_back(it->first);
    config.erase(it);
  }
  if (!missing.empty() && !if_exists) {
    return MakeError(ErrorCode::kNotFound,
                     "UNSET_NONEXISTENT_PROPERTIES: cannot unset [{}] of table '{}': no "
                     "such propert{} (use UNSET TBLPROPERTIES IF EXISTS to ignore that)",
                     fmt::join(missing, ", "), path, missing.size() == 1 ? "y" : "ies");
  }
  if (removed.empty()) return NoChange("no property to unset");
  AlterCommit commit;
  commit.metadata = snapshot.metadata();
  commit.metadata.configuration = std::move(config);
  commit.op.operation = "UNSET TBLPROPERTIES";
  std::string array = "[";
  for (size_t i = 0; i < removed.size(); ++i) {
    if (i > 0) array += ",";
    AppendJsonString(&array, removed[i]);
  }
  commit.op.parameters_json.emplace_back("properties", JsonQuote(array + "]"));
  commit.op.parameters_json.emplace_back("ifExists", if_exists ? "true" : "false");
  commit.changes.push_back(fmt::format("unset {}", fmt::join(removed, ", ")));
  return CommitAlter(fs, target, std::move(commit), session);
}

TableFeaturesInfo DescribeTableFeatures(const Snapshot& snapshot) {
  const Protocol& p = snapshot.protocol();
  TableFeaturesInfo info;
  info.min_reader_version = p.min_reader_version;
  info.min_writer_version = p.min_writer_version;
  info.explicit_features = p.min_writer_version >= kTableFeaturesWriterVersion;
  for (const std::string& name : EffectiveFeatures(p)) {
    TableFeatureStatus status;
    status.name = name;
    const FeatureInfo* known = FindTableFeature(name);
    status.reader_writer = known && known->kind == FeatureKind::kReaderWriter;
    status.reason = ActiveReason(snapshot, name);
    status.active = !status.reason.empty();
    info.features.push_back(std::move(status));
  }
  return info;
}

StringMap ShowTableProperties(const Snapshot& snapshot) {
  StringMap out = snapshot.metadata().configuration;
  const Protocol& p = snapshot.protocol();
  out.emplace_back(std::string(kMinReaderVersionProperty),
                   std::to_string(p.min_reader_version));
  out.emplace_back(std::string(kMinWriterVersionProperty),
                   std::to_string(p.min_writer_version));
  if (p.min_writer_version >= kTableFeaturesWriterVersion) {
    for (const std::string& name : EffectiveFeatures(p)) {
      out.emplace_back(std::string(kFeaturePropertyPrefix) + name, "supported");
    }
  }
  return out;
}

}  // namespace deltaguard
