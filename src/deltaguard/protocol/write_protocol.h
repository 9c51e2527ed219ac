/// \file deltaguard/protocol/write_protocol.h
/// Protocol decisions for writes (digest §4.0-4.8): the protocol a new table needs, the
/// upgrade an existing table needs after a metadata change, whether deltaguard can write
/// a table at all, and validation of user-given table properties.
///
/// Feature model (Spark Delta 4.x, `TableFeature.scala`, `Protocol.forNewTable`): a
/// protocol is a set of supported features. Legacy versions imply fixed sets (writer 2:
/// appendOnly, invariants; 3: +checkConstraints; 4: +changeDataFeed, generatedColumns;
/// reader 2 + writer 5: +columnMapping; 6: +identityColumns). A feature set is written
/// in its weakest form ("normalized"): legacy versions when the set is exactly a legacy
/// set, else writer 7 with an explicit writerFeatures list, and reader 3 with
/// readerFeatures (reader-writer features only) when a non-legacy reader-writer feature
/// is present (reader 2 when columnMapping is the only one).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/protocol/metadata.h"
#include "deltaguard/protocol/protocol.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

inline constexpr std::string_view kMinReaderVersionProperty = "delta.minReaderVersion";
inline constexpr std::string_view kMinWriterVersionProperty = "delta.minWriterVersion";
inline constexpr std::string_view kFeaturePropertyPrefix = "delta.feature.";
inline constexpr std::string_view kIgnoreProtocolDefaultsProperty =
    "delta.ignoreProtocolDefaults";
inline constexpr std::string_view kConstraintPropertyPrefix = "delta.constraints.";

struct ProtocolDecision {
  Protocol protocol;
  /// The input configuration without the protocol properties (delta.minReaderVersion,
  /// delta.minWriterVersion, delta.feature.*, delta.ignoreProtocolDefaults), which Spark
  /// turns into the protocol and never stores in metaData.configuration.
  StringMap configuration;
};

/// The minimal protocol for a NEW table with this configuration and schema, as Spark
/// Delta 4.x creates it. Start from the default (1,2) — or (1,1) with
/// delta.ignoreProtocolDefaults=true, or the delta.minReaderVersion/minWriterVersion
/// properties, which contribute their implied features — and add:
///   delta.appendOnly=true → appendOnly; delta.invariants metadata or a NOT NULL column →
///   invariants; delta.constraints.* → checkConstraints; delta.enableChangeDataFeed →
///   changeDataFeed; delta.columnMapping.mode name|id → columnMapping; timestamp_ntz
///   anywhere → timestampNtz; variant anywhere → variantType; delta.generationExpression
///   → generatedColumns; delta.identity.* → identityColumns; delta.enableDeletionVectors
///   → deletionVectors; delta.enableTypeWidening or delta.typeChanges metadata →
///   typeWidening; delta.enableInCommitTimestamps → inCommitTimestamp;
///   delta.enableRowTracking → rowTracking; delta.checkpointPolicy=v2 → v2Checkpoint;
///   delta.enableIcebergCompatV1/V2 → icebergCompatV1/V2; delta.enableVariantShredding →
///   variantShredding-preview; 'delta.feature.<name>'='supported'|'enabled' → <name>;
/// plus dependencies (rowTracking, clustering → domainMetadata; icebergCompat → column
/// mapping; ...). Column DEFAULT values need 'delta.feature.allowColumnDefaults' (Spark:
/// WRONG_COLUMN_DEFAULTS_FOR_DELTA_FEATURE_NOT_ENABLED). kInvalidArgument for malformed
/// values, unknown feature names and out-of-range versions, naming the property.
/// Column-mapping metadata is not assigned here: with mode name|id the caller runs
/// AssignColumnMapping (column_mapping.h) and stores delta.columnMapping.maxColumnId.
/// Whether deltaguard can then write the table is CheckWriteSupported's decision.
Result<ProtocolDecision> ProtocolForNewTable(const StringMap& configuration,
                                             const StructType& schema);

/// The protocol an existing table needs after its configuration/schema change, or
/// nullopt when `current` already supports every feature they require. Features are
/// only ever added: the result supports every feature of `current` (a legacy protocol's
/// implied features are listed explicitly when it moves to writer 7, as Spark does), a
/// table-features protocol stays one, and versions never decrease. Unknown feature names
/// in `current` are preserved. Protocol properties in `configuration` are honoured (as
/// ALTER TABLE SET TBLPROPERTIES does); strip them with RemoveProtocolProperties before
/// storing the configuration. typeWidening-preview satisfies typeWidening.
Result<std::optional<Protocol>> ProtocolUpgradeFor(const Protocol& current,
                                                   const StringMap& configuration,
                                                   const StructType& schema);

/// delta.minReaderVersion, delta.minWriterVersion, delta.ignoreProtocolDefaults and
/// delta.feature.*: properties that set the protocol and are never stored.
bool IsProtocolProperty(std::string_view key);

/// `configuration` without the protocol properties (see ProtocolDecision).
StringMap RemoveProtocolProperties(const StringMap& configuration);

/// Can deltaguard write to this table? kUnsupportedFeature naming the table and the
/// feature (or column) for: reader version > 3 or writer version > 7; unknown features;
/// features whose writer duties deltaguard does not implement (rowTracking when supported
/// or enabled, icebergCompat*, materializePartitionColumns, coordinatedCommits-preview,
/// catalogManaged, geospatial, collations); generatedColumns / identityColumns /
/// allowColumnDefaults when the schema uses them; variant columns; delta.invariants and
/// CHECK constraints unless `can_evaluate_constraints` (never skipped silently).
/// kCorruptLog for versions < 1 or missing feature lists.
Status CheckWriteSupported(const Protocol& protocol, const Metadata& metadata,
                           const StructType& schema, std::string_view table_root,
                           bool can_evaluate_constraints);

/// Validate user-given table properties (CREATE TABLE / SET TBLPROPERTIES). Keys starting
/// with "delta." (case-insensitive) must be ones Spark Delta 4.x knows (else Spark's
/// DELTA_UNKNOWN_CONFIGURATION) and values must parse: booleans, positive integers,
/// intervals ("interval 7 days"), modes. delta.columnMapping.maxColumnId and other
/// internal keys are refused. delta.constraints.* is accepted only with
/// `allow_constraints` (CREATE TABLE, as Spark accepts it there and Databricks' SHOW
/// CREATE TABLE emits it; the caller binds the expressions); SET TBLPROPERTIES refuses
/// it (Spark's DELTA_ADD_CONSTRAINTS: use ADD CONSTRAINT). Keys equal up to case are
/// refused. Other keys are free. kInvalidArgument naming the key and value.
Status ValidateTableProperties(const StringMap& properties,
                               bool allow_constraints = false);

}  // namespace deltaguard
