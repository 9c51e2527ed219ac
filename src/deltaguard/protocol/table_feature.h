/// \file deltaguard/protocol/table_feature.h
/// The table features deltaguard knows (PROTOCOL.md "Table Features", digest §4.0): name,
/// kind (reader+writer or writer-only), the legacy protocol versions that imply them, and
/// whether this build can read a table that uses them.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace deltaguard {

enum class FeatureKind : uint8_t {
  kWriterOnly,    ///< listed in writerFeatures only; readers may ignore it
  kReaderWriter,  ///< listed in readerFeatures and writerFeatures; readers must support
                  ///< it
};

struct FeatureInfo {
  std::string_view name;  ///< canonical spelling as written by Spark
  FeatureKind kind;
  /// True when deltaguard can read tables that use the feature. Writer-only features are
  /// always readable (PROTOCOL.md: readers ignore writer features).
  bool read_supported;
  /// Legacy (pre-table-features) versions that imply the feature; 0 = never implied.
  /// A reader-writer feature is implied only when both versions are reached.
  int32_t legacy_reader_version;
  int32_t legacy_writer_version;
};

/// Every feature named in PROTOCOL.md's appendix or Spark's TableFeature.scala (digest
/// §4.0). Invariant: names are unique case-insensitively.
inline constexpr FeatureInfo kTableFeatures[] = {
    // Writer-only features.
    {"appendOnly", FeatureKind::kWriterOnly, true, 0, 2},
    {"invariants", FeatureKind::kWriterOnly, true, 0, 2},
    {"checkConstraints", FeatureKind::kWriterOnly, true, 0, 3},
    {"changeDataFeed", FeatureKind::kWriterOnly, true, 0, 4},
    {"generatedColumns", FeatureKind::kWriterOnly, true, 0, 4},
    {"identityColumns", FeatureKind::kWriterOnly, true, 0, 6},
    {"allowColumnDefaults", FeatureKind::kWriterOnly, true, 0, 0},
    {"rowTracking", FeatureKind::kWriterOnly, true, 0, 0},
    {"domainMetadata", FeatureKind::kWriterOnly, true, 0, 0},
    {"icebergCompatV1", FeatureKind::kWriterOnly, true, 0, 0},
    {"icebergCompatV2", FeatureKind::kWriterOnly, true, 0, 0},
    {"icebergCompatV3", FeatureKind::kWriterOnly, true, 0, 0},
    {"icebergWriterCompatV1", FeatureKind::kWriterOnly, true, 0, 0},
    {"icebergWriterCompatV3", FeatureKind::kWriterOnly, true, 0, 0},
    {"clustering", FeatureKind::kWriterOnly, true, 0, 0},
    {"inCommitTimestamp", FeatureKind::kWriterOnly, true, 0, 0},
    {"materializePartitionColumns", FeatureKind::kWriterOnly, true, 0, 0},
    {"checkpointProtection", FeatureKind::kWriterOnly, true, 0, 0},
    {"coordinatedCommits-preview", FeatureKind::kWriterOnly, true, 0, 0},
    // Reader+writer features.
    {"columnMapping", FeatureKind::kReaderWriter, true, 2, 5},
    {"deletionVectors", FeatureKind::kReaderWriter, true, 0, 0},
    {"timestampNtz", FeatureKind::kReaderWriter, true, 0, 0},
    {"typeWidening", FeatureKind::kReaderWriter, true, 0, 0},
    {"typeWidening-preview", FeatureKind::kReaderWriter, true, 0, 0},
    {"v2Checkpoint", FeatureKind::kReaderWriter, true, 0, 0},
    {"vacuumProtocolCheck", FeatureKind::kReaderWriter, true, 0, 0},
    // Variant tables can be described; the scanner refuses variant columns itself.
    {"variantType", FeatureKind::kReaderWriter, true, 0, 0},
    {"variantType-preview", FeatureKind::kReaderWriter, true, 0, 0},
    {"variantShredding", FeatureKind::kReaderWriter, true, 0, 0},
    {"variantShredding-preview", FeatureKind::kReaderWriter, true, 0, 0},
    // Known but not readable by deltaguard.
    {"catalogManaged", FeatureKind::kReaderWriter, false, 0, 0},
    {"catalogOwned-preview", FeatureKind::kReaderWriter, false, 0, 0},
    {"geospatial", FeatureKind::kReaderWriter, false, 0, 0},
    {"geospatial-dev", FeatureKind::kReaderWriter, false, 0, 0},
    {"collations-preview", FeatureKind::kReaderWriter, false, 0, 0},
};

/// Highest minReaderVersion this build reads (3 = explicit readerFeatures).
inline constexpr int32_t kMaxSupportedReaderVersion = 3;
/// First versions that carry explicit feature lists.
inline constexpr int32_t kTableFeaturesReaderVersion = 3;
inline constexpr int32_t kTableFeaturesWriterVersion = 7;

/// All known features, in table order.
inline std::span<const FeatureInfo> KnownTableFeatures() { return kTableFeatures; }

/// The known feature named `name` (case-insensitive, as Spark's
/// TableFeature.featureNameToFeature), or nullptr.
const FeatureInfo* FindTableFeature(std::string_view name);

}  // namespace deltaguard
