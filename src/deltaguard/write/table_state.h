/// \file deltaguard/write/table_state.h
/// The table-state helpers every write path shares: the metadata and protocol of a new
/// or replaced table, schema evolution of an existing one, stats options, the add
/// action of a written file, loading a table that may not exist yet, the checkpoint
/// step after a commit and the one delta.appendOnly check. Library-internal (not part
/// of the front ends' API); used by write/, table/ and dml/.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/io/parquet/data_file_writer.h"
#include "deltaguard/log/actions.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/txn/transaction.h"
#include "deltaguard/util/result.h"
#include "deltaguard/write/write_types.h"

namespace deltaguard {

/// The table property that turns column profiles on ("true") or off ("false")
/// (docs/profiles.md); PrepareNewTable sets it to "true" on every table deltaguard
/// creates unless the properties given say otherwise.
inline constexpr std::string_view kProfilesProperty = "deltaguard.profiles";

}  // namespace deltaguard

namespace deltaguard::internal {

/// The metadata and protocol of a new table (or of a table whose schema is replaced by
/// overwriteSchema: then `previous` is its current metadata/protocol, whose id, name,
/// description and configuration are kept). Validates properties, derives the minimal
/// protocol, assigns column-mapping ids/physical names when the mode asks for them.
struct NewTableState {
  Metadata metadata;
  Protocol protocol;
  SchemaRef schema;
};
Result<NewTableState> PrepareNewTable(SchemaRef schema,
                                      const std::vector<std::string>& partition_columns,
                                      const StringMap& properties,
                                      const std::optional<std::string>& name,
                                      const std::optional<std::string>& description,
                                      const Metadata* previous_metadata,
                                      const Protocol* previous_protocol, int64_t now_ms);

/// Stats options from delta.dataSkippingNumIndexedCols / dataSkippingStatsColumns /
/// dataSkippingStringPrefixLength (invalid values are kInvalidArgument naming the key).
Result<FileStatsOptions> StatsOptionsFor(const Metadata& metadata);

/// The JSON array text Spark writes for partitionBy ("[\"a\",\"b\"]") as a JSON string
/// value (operationParameters hold strings).
std::string PartitionByParameter(const std::vector<std::string>& columns);

/// Set `key` in `config` (replacing any case-insensitive match, else appending).
void SetConfig(StringMap* config, std::string_view key, std::string value);

/// delta.columnMapping.maxColumnId of `config`, 0 when absent.
int64_t MaxColumnId(const StringMap& config);

/// Milliseconds since the epoch, system clock.
int64_t NowMillis();

/// Table-root-relative file path of an add action, decoded for the FileSystem.
std::string DataFilePath(const std::string& root, const std::string& relative_uri);

/// An existing table's metaData (and protocol) after its schema became `schema`.
struct EvolvedTable {
  SchemaRef schema;  ///< with ids and physical names for new fields under column mapping
  Metadata metadata;
  std::optional<Protocol> new_protocol;  ///< set when the schema needs an upgrade
};

/// Evolve `base` (the snapshot's metaData, possibly with changed properties) to
/// `schema`: under column mapping, new fields get ids and physical names and
/// delta.columnMapping.maxColumnId moves on (PROTOCOL.md "Column Mapping"); the
/// protocol is upgraded when the schema needs a feature (type widening, ...).
Result<EvolvedTable> EvolveTable(const Snapshot& snapshot, const Metadata& base,
                                 SchemaRef schema);

/// The add action (dataChange true) of a data file this write produced.
AddFile AddFileFor(const WrittenFile& file);

/// Load the latest snapshot, or nullptr when `root` holds no Delta table yet.
Result<SnapshotRef> LoadIfExists(const FileSystemRef& fs, const std::string& root);

/// Write a checkpoint of `version` when the table's checkpoint interval asks for one;
/// records the outcome in `result` (a checkpoint failure never fails the write).
void MaybeCheckpoint(const FileSystemRef& fs, const std::string& root, int64_t version,
                     const Metadata& metadata, WriteResult* result);

/// The one delta.appendOnly check of a write that changes or removes existing rows
/// (overwrite, replaceWhere, REPLACE of rows by MERGE/UPDATE/DELETE): with
/// delta.appendOnly = true on `metadata`, kConstraintViolation
/// DELTA_CANNOT_MODIFY_APPEND_ONLY naming `table`, followed by `consequence` (what the
/// operation would do and what the user can do instead). Run before any data is read,
/// as Spark's DeltaLog.assertRemovable is. The txn layer keeps its own check of the
/// staged removes (txn/staged_actions.h) as the protocol's last line of defence.
Status CheckRowsRemovable(const Metadata& metadata, std::string_view table,
                          std::string_view consequence);

}  // namespace deltaguard::internal
