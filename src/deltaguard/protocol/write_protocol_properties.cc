// ValidateTableProperties (declared in write_protocol.h): the table properties Spark
// Delta 4.x knows (`DeltaConfigs.scala`) and how their values must parse.

#include <charconv>
#include <cstdint>
#include <map>
#include <string>

#include "deltaguard/protocol/column_mapping.h"
#include "deltaguard/protocol/table_feature.h"
#include "deltaguard/protocol/write_protocol.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

enum class ValueKind : uint8_t {
  kBool,
  kPositiveInt,
  kIndexedCols,  // integer >= -1 (-1 = all columns)
  kInterval,     // "interval 7 days", without months or years
  kFileSize,     // positive bytes, optionally with a unit: 128mb
  kColumnMappingMode,
  kCheckpointPolicy,
  kIsolationLevel,
  kReaderVersion,
  kWriterVersion,
  kUniversalFormats,  // comma list of iceberg, hudi
  kText,              // any string (column lists and the like)
  kInternal,          // maintained by the writer; users cannot set it
};

struct KnownProperty {
  std::string_view key;
  ValueKind kind;
};

constexpr KnownProperty kKnownProperties[] = {
    {"delta.appendOnly", ValueKind::kBool},
    {"delta.checkpointInterval", ValueKind::kPositiveInt},
    {"delta.logRetentionDuration", ValueKind::kInterval},
    {"delta.deletedFileRetentionDuration", ValueKind::kInterval},
    {"delta.sampleRetentionDuration", ValueKind::kInterval},
    {"delta.checkpointRetentionDuration", ValueKind::kInterval},
    {"delta.setTransactionRetentionDuration", ValueKind::kInterval},
    {"delta.timeUntilArchived", ValueKind::kInterval},
    {"delta.enableExpiredLogCleanup", ValueKind::kBool},
    {"delta.enableFullRetentionRollback", ValueKind::kBool},
    {"delta.dataSkippingNumIndexedCols", ValueKind::kIndexedCols},
    {"delta.dataSkippingStatsColumns", ValueKind::kText},
    {"delta.columnMapping.mode", ValueKind::kColumnMappingMode},
    {"delta.columnMapping.maxColumnId", ValueKind::kInternal},
    {"delta.enableChangeDataFeed", ValueKind::kBool},
    {"delta.enableDeletionVectors", ValueKind::kBool},
    {"delta.enableTypeWidening", ValueKind::kBool},
    {"delta.enableInCommitTimestamps", ValueKind::kBool},
    {"delta.inCommitTimestampEnablementVersion", ValueKind::kInternal},
    {"delta.inCommitTimestampEnablementTimestamp", ValueKind::kInternal},
    {"delta.isolationLevel", ValueKind::kIsolationLevel},
    {"delta.checkpoint.writeStatsAsJson", ValueKind::kBool},
    {"delta.checkpoint.writeStatsAsStruct", ValueKind::kBool},
    {"delta.checkpointPolicy", ValueKind::kCheckpointPolicy},
    {"delta.randomizeFilePrefixes", ValueKind::kBool},
    {"delta.randomPrefixLength", ValueKind::kPositiveInt},
    {"delta.targetFileSize", ValueKind::kFileSize},
    {"delta.tuneFileSizesForRewrites", ValueKind::kBool},
    {"delta.autoOptimize.optimizeWrite", ValueKind::kBool},
    {"delta.autoOptimize.autoCompact", ValueKind::kBool},
    {"delta.enableRowTracking", ValueKind::kBool},
    {"delta.rowTrackingSuspended", ValueKind::kBool},
    {"delta.rowTracking.materializedRowIdColumnName", ValueKind::kInternal},
    {"delta.rowTracking.materializedRowCommitVersionColumnName", ValueKind::kInternal},
    {"delta.compatibility.symlinkFormatManifest.enabled", ValueKind::kBool},
    {"delta.enableIcebergCompatV1", ValueKind::kBool},
    {"delta.enableIcebergCompatV2", ValueKind::kBool},
    {"delta.enableIcebergCompatV3", ValueKind::kBool},
    {"delta.enableIcebergWriterCompatV1", ValueKind::kBool},
    {"delta.universalFormat.enabledFormats", ValueKind::kUniversalFormats},
    {"delta.enableVariantShredding", ValueKind::kBool},
    {"delta.ignoreProtocolDefaults", ValueKind::kBool},
    {"delta.minReaderVersion", ValueKind::kReaderVersion},
    {"delta.minWriterVersion", ValueKind::kWriterVersion},
};

Error BadValue(std::string_view key, std::string_view value, std::string_view expected) {
  return MakeError(ErrorCode::kInvalidArgument,
                   "table property '{}' must be {}, found '{}'", key, expected, value);
}

bool ParseInt(std::string_view s, int64_t* out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && ec == std::errc() && ptr == s.data() + s.size();
}

// Spark's CalendarInterval syntax as DeltaConfigs accepts it: optional "interval", then
// "<n> <unit>" pairs; months/years are refused (Delta: isValidIntervalConfigValue).
bool IsValidInterval(std::string_view value) {
  std::vector<std::string_view> words;
  for (std::string_view w : Split(Trim(value), ' ')) {
    if (!w.empty()) words.push_back(w);
  }
  size_t i = 0;
  if (!words.empty() && EqualsIgnoreCase(words[0], "interval")) i = 1;
  if (i >= words.size() || (words.size() - i) % 2 != 0) return false;
  static constexpr std::string_view kUnits[] = {
      "microsecond", "millisecond", "second", "minute", "hour", "day", "week"};
  for (; i < words.size(); i += 2) {
    int64_t n = 0;
    if (!ParseInt(words[i], &n) || n < 0) return false;
    std::string unit = AsciiToLower(words[i + 1]);
    if (!unit.empty() && unit.back() == 's') unit.pop_back();
    bool known = false;
    for (std::string_view u : kUnits) known = known || unit == u;
    if (!known) return false;
  }
  return true;
}

bool IsValidFileSize(std::string_view value) {
  std::string v = AsciiToLower(Trim(value));
  static constexpr std::string_view kSuffixes[] = {"kb", "mb", "gb", "tb", "k",
                                                   "m",  "g",  "t",  "b"};
  for (std::string_view s : kSuffixes) {
    if (v.size() > s.size() && v.compare(v.size() - s.size(), s.size(), s) == 0) {
      v.resize(v.size() - s.size());
      break;
    }
  }
  int64_t n = 0;
  return ParseInt(v, &n) && n > 0;
}

bool OneOf(std::string_view v, std::initializer_list<std::string_view> options) {
  for (std::string_view o : options) {
    if (EqualsIgnoreCase(v, o)) return true;
  }
  return false;
}

Status ValidateValue(std::string_view key, ValueKind kind, std::string_view value) {
  std::string_view v = Trim(value);
  int64_t n = 0;
  switch (kind) {
    case ValueKind::kBool:
      if (OneOf(v, {"true", "false"})) return OkStatus();
      return BadValue(key, value, "true or false");
    case ValueKind::kPositiveInt:
      if (ParseInt(v, &n) && n > 0) return OkStatus();
      return BadValue(key, value, "a positive integer");
    case ValueKind::kIndexedCols:
      if (ParseInt(v, &n) && n >= -1) return OkStatus();
      return BadValue(key, value, "an integer >= -1");
    case ValueKind::kInterval:
      if (IsValidInterval(v)) return OkStatus();
      return BadValue(key, value,
                      "an interval such as 'interval 7 days' (units up to weeks)");
    case ValueKind::kFileSize:
      if (IsValidFileSize(v)) return OkStatus();
      return BadValue(key, value, "a positive size in bytes (e.g. 134217728 or 128mb)");
    case ValueKind::kColumnMappingMode:
      if (OneOf(v, {"none", "name", "id"})) return OkStatus();
      return BadValue(key, value, "none, name or id");
    case ValueKind::kCheckpointPolicy:
      if (OneOf(v, {"classic", "v2"})) return OkStatus();
      return BadValue(key, value, "classic or v2");
    case ValueKind::kIsolationLevel:
      if (OneOf(v, {"Serializable", "WriteSerializable"})) return OkStatus();
      return BadValue(key, value, "Serializable or WriteSerializable");
    case ValueKind::kReaderVersion:
      if (ParseInt(v, &n) && n >= 1 && n <= kMaxSupportedReaderVersion) return OkStatus();
      return BadValue(key, value, "an integer from 1 to 3");
    case ValueKind::kWriterVersion:
      if (ParseInt(v, &n) && n >= 1 && n <= kTableFeaturesWriterVersion) {
        return OkStatus();
      }
      return BadValue(key, value, "an integer from 1 to 7");
    case ValueKind::kUniversalFormats:
      for (std::string_view f : Split(v, ',')) {
        if (!OneOf(Trim(f), {"iceberg", "hudi"})) {
          return BadValue(key, value, "a comma-separated list of iceberg, hudi");
        }
      }
      return OkStatus();
    case ValueKind::kText:
      return OkStatus();
    case ValueKind::kInternal:
      return MakeError(ErrorCode::kInvalidArgument,
                       "table property '{}' is maintained by the writer and cannot be "
                       "set by hand",
                       key);
  }
  return OkStatus();
}

}  // namespace

Status ValidateTableProperties(const StringMap& properties, bool allow_constraints) {
  std::map<std::string, std::string> seen;  // lower-cased key → key as given
  for (const auto& [key, value] : properties) {
    auto [it, inserted] = seen.emplace(AsciiToLower(key), key);
    if (!inserted) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "table properties '{}' and '{}' differ only by case", it->second,
                       key);
    }
    if (!StartsWithIgnoreCase(key, "delta.")) continue;  // free-form user property
    if (StartsWithIgnoreCase(key, kConstraintPropertyPrefix)) {
      if (allow_constraints) continue;
      return MakeError(ErrorCode::kInvalidArgument,
                       "DELTA_ADD_CONSTRAINTS: table property '{}': CHECK constraints "
                       "cannot be set as table properties; use ALTER TABLE ADD "
                       "CONSTRAINT",
                       key);
    }
    if (StartsWithIgnoreCase(key, kFeaturePropertyPrefix)) {
      std::string_view name = std::string_view(key).substr(kFeaturePropertyPrefix.size());
      if (FindTableFeature(name) == nullptr) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "table property '{}' names unknown table feature '{}'", key,
                         name);
      }
      if (!OneOf(Trim(value), {"supported", "enabled"})) {
        return BadValue(key, value, "'supported' or 'enabled'");
      }
      continue;
    }
    const KnownProperty* known = nullptr;
    for (const KnownProperty& p : kKnownProperties) {
      if (EqualsIgnoreCase(p.key, key)) known = &p;
    }
    if (known == nullptr) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "unknown Delta table property '{}' (Spark: "
                       "DELTA_UNKNOWN_CONFIGURATION); non-Delta properties must not "
                       "start with 'delta.'",
                       key);
    }
    DELTA_RETURN_IF_ERROR(ValidateValue(known->key, known->kind, value));
  }
  return OkStatus();
}

}  // namespace deltaguard
