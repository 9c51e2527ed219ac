#include "deltaguard/protocol/write_protocol.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <utility>

#include "deltaguard/protocol/column_mapping.h"
#include "deltaguard/protocol/table_feature.h"
#include "deltaguard/protocol/table_properties.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

constexpr std::string_view kGenerationExpressionKey = "delta.generationExpression";
constexpr std::string_view kIdentityKeyPrefix = "delta.identity.";
constexpr std::string_view kCurrentDefaultKey = "CURRENT_DEFAULT";

// One supported feature with the versions it needs on its own (Spark's
// TableFeature.minReaderVersion/minWriterVersion): legacy features their legacy versions,
// newer writer-only features (1,7), newer reader-writer features (3,7).
struct Feature {
  std::string name;
  bool reader_writer = false;
  bool legacy = false;
  int32_t min_reader = 1;
  int32_t min_writer = 7;
  size_t order = 0;  // position in kTableFeatures; unknown names after them
};

using FeatureList = std::vector<Feature>;

constexpr size_t kUnknownOrder = 1000;

Feature FromInfo(const FeatureInfo& f) {
  Feature out;
  out.name = std::string(f.name);
  out.reader_writer = f.kind == FeatureKind::kReaderWriter;
  out.legacy = f.legacy_writer_version != 0;
  out.min_writer = out.legacy ? f.legacy_writer_version : kTableFeaturesWriterVersion;
  if (out.reader_writer) {
    out.min_reader = f.legacy_reader_version != 0 ? f.legacy_reader_version
                                                  : kTableFeaturesReaderVersion;
  }
  out.order = static_cast<size_t>(&f - kTableFeatures);
  return out;
}

Feature Known(std::string_view name) {
  const FeatureInfo* info = FindTableFeature(name);
  DELTA_DCHECK(info != nullptr);
  return FromInfo(*info);
}

// A name found in an existing protocol: known features get their canonical form;
// unknown ones keep their spelling and are reader-writer when listed in readerFeatures.
Feature FromExistingName(std::string_view name, bool in_reader_list) {
  if (const FeatureInfo* info = FindTableFeature(name)) return FromInfo(*info);
  Feature out;
  out.name = std::string(name);
  out.reader_writer = in_reader_list;
  out.min_reader = in_reader_list ? kTableFeaturesReaderVersion : 1;
  out.order = kUnknownOrder;
  return out;
}

bool Contains(const FeatureList& list, std::string_view name) {
  return std::any_of(list.begin(), list.end(),
                     [&](const Feature& f) { return EqualsIgnoreCase(f.name, name); });
}

void Add(FeatureList* list, Feature f) {
  if (!Contains(*list, f.name)) list->push_back(std::move(f));
}

void AddAll(FeatureList* list, const FeatureList& more) {
  for (const Feature& f : more) Add(list, f);
}

// Features implied by legacy versions (reader, writer); none once writer features are
// in use (Spark Protocol.implicitlySupportedFeatures).
FeatureList Implied(int32_t reader, int32_t writer) {
  FeatureList out;
  if (writer >= kTableFeaturesWriterVersion) return out;
  for (const FeatureInfo& info : kTableFeatures) {
    Feature f = FromInfo(info);
    if (f.legacy && f.min_reader <= reader && f.min_writer <= writer) out.push_back(f);
  }
  return out;
}

bool SameSet(const FeatureList& a, const FeatureList& b) {
  if (a.size() != b.size()) return false;
  return std::all_of(a.begin(), a.end(),
                     [&](const Feature& f) { return Contains(b, f.name); });
}

// Features another feature requires (Spark TableFeature.requiredFeatures).
std::vector<std::string_view> Dependencies(std::string_view name) {
  struct Dep {
    std::string_view feature;
    std::vector<std::string_view> requires_;
  };
  static const std::vector<Dep> kDeps = {
      {"rowTracking", {"domainMetadata"}},
      {"clustering", {"domainMetadata"}},
      {"icebergCompatV1", {"columnMapping"}},
      {"icebergCompatV2", {"columnMapping"}},
      {"icebergCompatV3", {"columnMapping", "rowTracking"}},
      {"icebergWriterCompatV1", {"icebergCompatV2"}},
      {"icebergWriterCompatV3", {"icebergCompatV3"}},
      {"variantShredding", {"variantType"}},
      {"catalogManaged", {"inCommitTimestamp", "vacuumProtocolCheck"}},
      {"catalogOwned-preview", {"inCommitTimestamp"}},
      {"coordinatedCommits-preview", {"inCommitTimestamp", "vacuumProtocolCheck"}},
  };
  for (const Dep& d : kDeps) {
    if (EqualsIgnoreCase(d.feature, name)) return d.requires_;
  }
  return {};
}

void CloseDependencies(FeatureList* list) {
  for (size_t i = 0; i < list->size(); ++i) {  // the list grows while we scan it
    for (std::string_view dep : Dependencies((*list)[i].name)) Add(list, Known(dep));
  }
}

// The weakest protocol supporting exactly `features` (Spark Protocol.normalized), with
// versions at least (floor_reader, floor_writer); `force_table_features` keeps writer 7.
Protocol Build(FeatureList features, int32_t floor_reader, int32_t floor_writer,
               bool force_table_features) {
  std::stable_sort(features.begin(), features.end(),
                   [](const Feature& a, const Feature& b) { return a.order < b.order; });
  int32_t reader = std::max(1, floor_reader);
  int32_t writer = 1;
  for (const Feature& f : features) {
    reader = std::max(reader, f.min_reader);
    writer = std::max(writer, f.min_writer);
  }
  int32_t legacy_writer = std::max(writer, floor_writer);
  if (!force_table_features && legacy_writer < kTableFeaturesWriterVersion &&
      SameSet(Implied(reader, legacy_writer), features)) {
    return Protocol{reader, legacy_writer, std::nullopt, std::nullopt};
  }
  Protocol p{reader, kTableFeaturesWriterVersion, std::nullopt,
             std::vector<std::string>()};
  if (reader >= kTableFeaturesReaderVersion) p.reader_features.emplace();
  for (const Feature& f : features) {
    p.writer_features->push_back(f.name);
    if (f.reader_writer && p.reader_features) p.reader_features->push_back(f.name);
  }
  return p;
}

FeatureList CurrentFeatures(const Protocol& p) {
  if (p.min_writer_version < kTableFeaturesWriterVersion) {
    return Implied(p.min_reader_version, p.min_writer_version);
  }
  FeatureList out;
  if (p.reader_features) {
    for (const std::string& n : *p.reader_features) Add(&out, FromExistingName(n, true));
  }
  if (p.writer_features) {
    for (const std::string& n : *p.writer_features) Add(&out, FromExistingName(n, false));
  }
  return out;
}

Error AsInvalidArgument(Error e) {
  e.code = ErrorCode::kInvalidArgument;
  return e;
}

Result<int32_t> ParseVersion(std::string_view key, std::string_view value, int32_t max) {
  std::string_view v = Trim(value);
  int32_t out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (v.empty() || ec != std::errc() || ptr != v.data() + v.size() || out < 1 ||
      out > max) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "table property '{}' must be an integer from 1 to {}, found '{}'",
                     key, max, value);
  }
  return out;
}

struct ProtocolProps {
  std::optional<int32_t> reader;
  std::optional<int32_t> writer;
  bool ignore_defaults = false;
  FeatureList features;  // from delta.feature.*
  StringMap cleaned;
};

Result<ProtocolProps> ParseProtocolProps(const StringMap& config) {
  ProtocolProps out;
  for (const auto& [key, value] : config) {
    if (!IsProtocolProperty(key)) {
      out.cleaned.emplace_back(key, value);
    } else if (EqualsIgnoreCase(key, kMinReaderVersionProperty)) {
      DELTA_ASSIGN_OR_RETURN(out.reader,
                             ParseVersion(key, value, kMaxSupportedReaderVersion));
    } else if (EqualsIgnoreCase(key, kMinWriterVersionProperty)) {
      DELTA_ASSIGN_OR_RETURN(out.writer,
                             ParseVersion(key, value, kTableFeaturesWriterVersion));
    } else if (EqualsIgnoreCase(key, kIgnoreProtocolDefaultsProperty)) {
      auto b = ParseBoolProperty(key, value);
      if (!b) return AsInvalidArgument(b.error());
      out.ignore_defaults = *b;
    } else {
      std::string_view name = std::string_view(key).substr(kFeaturePropertyPrefix.size());
      const FeatureInfo* info = FindTableFeature(name);
      if (info == nullptr) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "table property '{}' names unknown table feature '{}'", key,
                         name);
      }
      std::string_view v = Trim(value);
      if (!EqualsIgnoreCase(v, "supported") && !EqualsIgnoreCase(v, "enabled")) {
        return MakeError(
            ErrorCode::kInvalidArgument,
            "table property '{}' must be 'supported' or 'enabled', found '{}'", key,
            value);
      }
      Add(&out.features, FromInfo(*info));
    }
  }
  if (out.reader && *out.reader >= kTableFeaturesReaderVersion && out.writer &&
      *out.writer < kTableFeaturesWriterVersion) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "table property '{}' = {} requires '{}' = {}, found {}",
                     kMinReaderVersionProperty, *out.reader, kMinWriterVersionProperty,
                     kTableFeaturesWriterVersion, *out.writer);
  }
  return out;
}

// Where the schema uses features (first column found for each).
struct SchemaUsage {
  std::optional<std::string> timestamp_ntz, variant, invariant, not_null, generated,
      identity, column_default, type_changes;
};

bool UsesKind(const DataType& type, TypeKind kind) {
  // Array elements and map keys/values that are not structs; struct fields are visited
  // by ForEachField themselves.
  if (type.kind() == kind) return true;
  if (type.kind() == TypeKind::kArray) {
    return UsesKind(*static_cast<const ArrayType&>(type).element_type(), kind);
  }
  if (type.kind() == TypeKind::kMap) {
    const auto& m = static_cast<const MapType&>(type);
    return UsesKind(*m.key_type(), kind) || UsesKind(*m.value_type(), kind);
  }
  return false;
}

SchemaUsage ScanSchema(const StructType& schema) {
  SchemaUsage u;
  auto note = [](std::optional<std::string>* slot, const std::string& path) {
    if (!*slot) *slot = path;
  };
  ForEachField(schema, [&](const std::string& path, const StructField& f) {
    if (UsesKind(*f.type, TypeKind::kTimestampNtz)) note(&u.timestamp_ntz, path);
    if (UsesKind(*f.type, TypeKind::kVariant)) note(&u.variant, path);
    if (!f.nullable) note(&u.not_null, path);
    for (const auto& [key, raw] : f.metadata.entries()) {
      if (key == kInvariantsKey) note(&u.invariant, path);
      if (key == kGenerationExpressionKey) note(&u.generated, path);
      if (StartsWithIgnoreCase(key, kIdentityKeyPrefix)) note(&u.identity, path);
      if (key == kCurrentDefaultKey) note(&u.column_default, path);
      if (key == kTypeChangesKey) note(&u.type_changes, path);
    }
  });
  return u;
}

Result<bool> BoolConfig(const StringMap& config, std::string_view key) {
  std::optional<std::string> raw = FindIgnoreCase(config, key);
  if (!raw) return false;
  auto b = ParseBoolProperty(key, *raw);
  if (!b) return AsInvalidArgument(b.error());
  return *b;
}

// Features the configuration and schema require (Spark's
// FeatureAutomaticallyEnabledByMetadata), before dependencies.
Result<FeatureList> MetadataFeatures(const StringMap& config, const SchemaUsage& usage) {
  FeatureList out;
  struct BoolFeature {
    std::string_view property;
    std::string_view feature;
  };
  static constexpr BoolFeature kBoolFeatures[] = {
      {"delta.appendOnly", "appendOnly"},
      {"delta.enableChangeDataFeed", "changeDataFeed"},
      {"delta.enableDeletionVectors", "deletionVectors"},
      {"delta.enableTypeWidening", "typeWidening"},
      {"delta.enableInCommitTimestamps", "inCommitTimestamp"},
      {"delta.enableRowTracking", "rowTracking"},
      {"delta.enableIcebergCompatV1", "icebergCompatV1"},
      {"delta.enableIcebergCompatV2", "icebergCompatV2"},
      {"delta.enableVariantShredding", "variantShredding-preview"},
  };
  for (const BoolFeature& b : kBoolFeatures) {
    DELTA_ASSIGN_OR_RETURN(bool on, BoolConfig(config, b.property));
    if (on) Add(&out, Known(b.feature));
  }
  Metadata md;
  md.configuration = config;
  auto mode = GetColumnMappingMode(md);
  if (!mode) return AsInvalidArgument(mode.error());
  if (*mode != ColumnMappingMode::kNone) Add(&out, Known("columnMapping"));
  if (std::optional<std::string> policy =
          FindIgnoreCase(config, "delta.checkpointPolicy")) {
    std::string_view p = Trim(*policy);
    if (EqualsIgnoreCase(p, "v2")) {
      Add(&out, Known("v2Checkpoint"));
    } else if (!EqualsIgnoreCase(p, "classic")) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "table property 'delta.checkpointPolicy' must be 'classic' or "
                       "'v2', found '{}'",
                       *policy);
    }
  }
  for (const auto& [key, value] : config) {
    if (StartsWithIgnoreCase(key, kConstraintPropertyPrefix)) {
      Add(&out, Known("checkConstraints"));
    }
  }
  if (usage.invariant || usage.not_null) Add(&out, Known("invariants"));
  if (usage.timestamp_ntz) Add(&out, Known("timestampNtz"));
  if (usage.variant) Add(&out, Known("variantType"));
  if (usage.generated) Add(&out, Known("generatedColumns"));
  if (usage.identity) Add(&out, Known("identityColumns"));
  if (usage.type_changes) Add(&out, Known("typeWidening"));
  return out;
}

Status CheckColumnDefaultsAllowed(const SchemaUsage& usage, const FeatureList& features) {
  if (!usage.column_default || Contains(features, "allowColumnDefaults")) {
    return OkStatus();
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   "column '{}' has a DEFAULT value, which needs table feature "
                   "'allowColumnDefaults': set '{}allowColumnDefaults' = 'supported'",
                   *usage.column_default, kFeaturePropertyPrefix);
}

}  // namespace

bool IsProtocolProperty(std::string_view key) {
  return EqualsIgnoreCase(key, kMinReaderVersionProperty) ||
         EqualsIgnoreCase(key, kMinWriterVersionProperty) ||
         EqualsIgnoreCase(key, kIgnoreProtocolDefaultsProperty) ||
         StartsWithIgnoreCase(key, kFeaturePropertyPrefix);
}

StringMap RemoveProtocolProperties(const StringMap& configuration) {
  StringMap out;
  for (const auto& [key, value] : configuration) {
    if (!IsProtocolProperty(key)) out.emplace_back(key, value);
  }
  return out;
}

Result<ProtocolDecision> ProtocolForNewTable(const StringMap& configuration,
                                             const StructType& schema) {
  DELTA_ASSIGN_OR_RETURN(ProtocolProps props, ParseProtocolProps(configuration));
  // Defaults (1,2) unless overridden; explicit versions contribute their implied set.
  int32_t base_writer = props.ignore_defaults ? 1 : 2;
  FeatureList features =
      Implied(props.reader.value_or(1), props.writer.value_or(base_writer));
  AddAll(&features, props.features);
  SchemaUsage usage = ScanSchema(schema);
  DELTA_ASSIGN_OR_RETURN(FeatureList from_metadata,
                         MetadataFeatures(props.cleaned, usage));
  AddAll(&features, from_metadata);
  CloseDependencies(&features);
  DELTA_RETURN_IF_ERROR(CheckColumnDefaultsAllowed(usage, features));
  return ProtocolDecision{Build(std::move(features), 1, 1, false),
                          std::move(props.cleaned)};
}

Result<std::optional<Protocol>> ProtocolUpgradeFor(const Protocol& current,
                                                   const StringMap& configuration,
                                                   const StructType& schema) {
  DELTA_ASSIGN_OR_RETURN(ProtocolProps props, ParseProtocolProps(configuration));
  FeatureList required = props.features;
  if (props.reader || props.writer) {
    AddAll(&required, Implied(props.reader.value_or(1), props.writer.value_or(1)));
  }
  SchemaUsage usage = ScanSchema(schema);
  DELTA_ASSIGN_OR_RETURN(FeatureList from_metadata,
                         MetadataFeatures(props.cleaned, usage));
  AddAll(&required, from_metadata);
  CloseDependencies(&required);

  FeatureList have = CurrentFeatures(current);
  FeatureList merged = have;
  bool missing = false;
  for (const Feature& f : required) {
    if (Contains(have, f.name)) continue;
    if (EqualsIgnoreCase(f.name, "typeWidening") &&
        Contains(have, "typeWidening-preview")) {
      continue;  // the preview feature already covers type widening
    }
    missing = true;
    Add(&merged, f);
  }
  DELTA_RETURN_IF_ERROR(CheckColumnDefaultsAllowed(usage, merged));
  if (!missing) return std::optional<Protocol>();
  CloseDependencies(&merged);
  bool table_features = current.min_writer_version >= kTableFeaturesWriterVersion;
  return std::optional<Protocol>(Build(std::move(merged), current.min_reader_version,
                                       current.min_writer_version, table_features));
}

Status CheckWriteSupported(const Protocol& protocol, const Metadata& metadata,
                           const StructType& schema, std::string_view table_root,
                           bool can_evaluate_constraints) {
  int32_t rv = protocol.min_reader_version;
  int32_t wv = protocol.min_writer_version;
  if (rv < 1 || wv < 1) {
    return MakeError(ErrorCode::kCorruptLog,
                     "table '{}': protocol has invalid versions (reader {}, writer {})",
                     table_root, rv, wv);
  }
  if (rv > kMaxSupportedReaderVersion) {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "table '{}' requires reader version {} which deltaguard does not "
                     "support (supported: 1 to {})",
                     table_root, rv, kMaxSupportedReaderVersion);
  }
  if (wv > kTableFeaturesWriterVersion) {
    return MakeError(
        ErrorCode::kUnsupportedFeature,
        "table '{}' requires writer version {} which deltaguard cannot write "
        "(supported: 1 to {})",
        table_root, wv, kTableFeaturesWriterVersion);
  }
  if ((rv >= kTableFeaturesReaderVersion && !protocol.reader_features) ||
      (wv >= kTableFeaturesWriterVersion && !protocol.writer_features)) {
    return MakeError(ErrorCode::kCorruptLog,
                     "table '{}': protocol ({}, {}) lacks its readerFeatures or "
                     "writerFeatures list",
                     table_root, rv, wv);
  }
  // Features whose writer duties deltaguard does not implement.
  static constexpr std::string_view kNotWritable[] = {
      "rowTracking",
      "icebergCompatV1",
      "icebergCompatV2",
      "icebergCompatV3",
      "icebergWriterCompatV1",
      "icebergWriterCompatV3",
      "materializePartitionColumns",
      "coordinatedCommits-preview",
      "catalogManaged",
      "catalogOwned-preview",
      "geospatial",
      "geospatial-dev",
      "collations-preview",
  };
  FeatureList features = CurrentFeatures(protocol);
  for (const Feature& f : features) {  // unknown features first: the hardest refusal
    if (f.order == kUnknownOrder) {
      return MakeError(ErrorCode::kUnsupportedFeature,
                       "table '{}' requires {} feature '{}' which deltaguard does not "
                       "know; refusing to write",
                       table_root, f.reader_writer ? "reader" : "writer", f.name);
    }
  }
  for (const Feature& f : features) {
    for (std::string_view no : kNotWritable) {
      if (EqualsIgnoreCase(f.name, no)) {
        return MakeError(ErrorCode::kUnsupportedFeature,
                         "table '{}' uses table feature '{}' which deltaguard cannot "
                         "write yet",
                         table_root, f.name);
      }
    }
  }
  DELTA_ASSIGN_OR_RETURN(bool row_tracking,
                         BoolConfig(metadata.configuration, "delta.enableRowTracking"));
  if (row_tracking) {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "table '{}' has row tracking enabled (delta.enableRowTracking); "
                     "deltaguard cannot assign row ids yet",
                     table_root);
  }
  SchemaUsage usage = ScanSchema(schema);
  if (usage.generated && Contains(features, "generatedColumns")) {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "table '{}': column '{}' is a generated column (feature "
                     "'generatedColumns'); deltaguard cannot write it yet",
                     table_root, *usage.generated);
  }
  if (usage.identity && Contains(features, "identityColumns")) {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "table '{}': column '{}' is an identity column (feature "
                     "'identityColumns'); deltaguard cannot write it yet",
                     table_root, *usage.identity);
  }
  if (usage.column_default && Contains(features, "allowColumnDefaults")) {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "table '{}': column '{}' has a DEFAULT value (feature "
                     "'allowColumnDefaults'); deltaguard cannot apply it yet",
                     table_root, *usage.column_default);
  }
  if (usage.variant) {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "table '{}': column '{}' has type variant (feature 'variantType'); "
                     "deltaguard cannot write variant data yet",
                     table_root, *usage.variant);
  }
  if (can_evaluate_constraints) return OkStatus();
  if (usage.invariant) {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "table '{}': column '{}' has an invariant ({}); deltaguard cannot "
                     "enforce it yet",
                     table_root, *usage.invariant, kInvariantsKey);
  }
  for (const auto& [key, value] : metadata.configuration) {
    if (StartsWithIgnoreCase(key, kConstraintPropertyPrefix)) {
      return MakeError(ErrorCode::kUnsupportedFeature,
                       "table '{}' has CHECK constraint '{}' ({}); deltaguard cannot "
                       "enforce it yet",
                       table_root, key.substr(kConstraintPropertyPrefix.size()), value);
    }
  }
  return OkStatus();
}

}  // namespace deltaguard
