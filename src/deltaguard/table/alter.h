/// \file deltaguard/table/alter.h
/// ALTER TABLE on an existing Delta table: add, rename, drop, retype and reorder columns,
/// NOT NULL and comments, SET / UNSET TBLPROPERTIES, and a view of the table's features.
/// The SQL statements (issue 5) call these functions.
///
/// Every operation is one metadata-only commit (no data file is rewritten) through
/// txn/transaction.h, logged with Spark's commitInfo operation and parameters ("ADD
/// COLUMNS", "RENAME COLUMN", "DROP COLUMNS", "CHANGE COLUMN", "SET TBLPROPERTIES",
/// "UNSET TBLPROPERTIES"), with the protocol upgrade the new metadata needs
/// (protocol/write_protocol.h ProtocolUpgradeFor). A refused or failed operation commits
/// nothing: the table is unchanged. A concurrent metadata change makes the commit fail
/// with kCommitConflict ("DELTA_METADATA_CHANGED"); rerun the operation.
///
/// Schema rules are those of evolution/alter_schema.h. In addition:
///  - Files written before a change read correctly after it: renames and drops rely on
///    column mapping (physical names stay), widened types are converted on read, new
///    columns read as NULL.
///  - SET NOT NULL first scans every live row (docs/decisions.md §4) and refuses with
///    kConstraintViolation "DELTA_NEW_NOT_NULL_VIOLATION", the number of NULL rows and
///    up to 5 sample rows; the commit then conflicts with any concurrent write.
///  - Enabling column mapping: none -> name assigns ids, and physical names equal to the
///    current column names, so existing files stay readable (as Spark does). none -> id
///    only on a table without data files (Spark reads id mode by Parquet field ids, which
///    older files lack); other mode changes, and UNSET of the mode, are refused
///    ("DELTA_UNSUPPORTED_COLUMN_MAPPING_MODE_CHANGE").
///  - `delta.constraints.*` cannot be set or unset here (ADD / DROP CONSTRAINT);
///    protocol properties (`delta.minReaderVersion`, `delta.minWriterVersion`,
///    `delta.feature.<name>`) upgrade the protocol and are not stored; asking for lower
///    versions than the table has is refused ("DELTA_INVALID_PROTOCOL_DOWNGRADE").
///  - A property change that would enable a feature whose writer duties deltaguard does
///    not implement (row tracking, Iceberg compatibility, ...) is refused
///    (kUnsupportedFeature), as is any ALTER on a table deltaguard cannot write.
///  - When nothing would change (DROP COLUMNS IF EXISTS of absent columns, UNSET IF
///    EXISTS of absent keys, ALTER COLUMN to the current definition) nothing is
///    committed and AlterResult::version is -1.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "deltaguard/evolution/alter_schema.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/table/write.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

struct AlterResult {
  int64_t version = -1;  ///< the committed version; -1 when nothing was committed
  /// One line for the user, e.g. "renamed column 'a' to 'b'" or "no change".
  std::string message;
  std::vector<std::string> changes;      ///< one entry per change made
  std::optional<Protocol> new_protocol;  ///< set when the protocol was upgraded
  int commit_attempts = 0;
  std::optional<int64_t> checkpoint_version;
  std::optional<std::string> checkpoint_error;  ///< commit succeeded, checkpoint did not
};

/// ALTER TABLE ADD COLUMN(S).
Result<AlterResult> AddColumns(FileSystemRef fs, const std::string& path,
                               const std::vector<NewColumnSpec>& columns,
                               const SessionSettings& session = {});

/// ALTER TABLE RENAME COLUMN from TO to (needs column mapping). A renamed partition
/// column is renamed in metaData.partitionColumns too; delta.dataSkippingStatsColumns
/// entries follow the rename.
Result<AlterResult> RenameColumn(FileSystemRef fs, const std::string& path,
                                 const std::vector<std::string>& from,
                                 const std::string& to,
                                 const SessionSettings& session = {});

/// ALTER TABLE DROP COLUMN(S) [IF EXISTS] (needs column mapping). Dropped columns leave
/// delta.dataSkippingStatsColumns too.
Result<AlterResult> DropColumns(FileSystemRef fs, const std::string& path,
                                const std::vector<std::vector<std::string>>& columns,
                                bool if_exists, const SessionSettings& session = {});

/// ALTER TABLE ALTER/CHANGE COLUMN: TYPE (type widening), SET/DROP NOT NULL, COMMENT,
/// FIRST/AFTER.
Result<AlterResult> ChangeColumn(FileSystemRef fs, const std::string& path,
                                 const std::vector<std::string>& column,
                                 const ChangeColumnSpec& change,
                                 const SessionSettings& session = {});

/// ALTER TABLE SET TBLPROPERTIES. Keys are validated (ValidateTableProperties); a key
/// already present with another case is replaced.
Result<AlterResult> SetTableProperties(FileSystemRef fs, const std::string& path,
                                       const StringMap& properties,
                                       const SessionSettings& session = {});

/// ALTER TABLE UNSET TBLPROPERTIES [IF EXISTS]. An absent key without `if_exists` is
/// kNotFound ("UNSET_NONEXISTENT_PROPERTIES"); internal keys, delta.constraints.*,
/// delta.columnMapping.mode and protocol properties are refused.
Result<AlterResult> UnsetTableProperties(FileSystemRef fs, const std::string& path,
                                         const std::vector<std::string>& keys,
                                         bool if_exists,
                                         const SessionSettings& session = {});

/// One table feature of a snapshot's protocol.
struct TableFeatureStatus {
  std::string name;            ///< canonical spelling
  bool reader_writer = false;  ///< readers must support it too
  /// True when the table uses the feature now (supported is not active): `reason` says
  /// why, e.g. "delta.appendOnly = true", "NOT NULL column 'id'".
  bool active = false;
  std::string reason;
};

struct TableFeaturesInfo {
  int32_t min_reader_version = 1;
  int32_t min_writer_version = 1;
  /// True for writer 7 (explicit feature lists); false when versions imply the features.
  bool explicit_features = false;
  /// Every supported feature (legacy-implied ones included), protocol order.
  std::vector<TableFeatureStatus> features;
};

/// The table's protocol versions and features, each with whether it is in use.
TableFeaturesInfo DescribeTableFeatures(const Snapshot& snapshot);

/// What SHOW TBLPROPERTIES lists, as Spark shows it: metaData.configuration (CHECK
/// constraints included), then delta.minReaderVersion, delta.minWriterVersion and, for
/// table-features protocols, delta.feature.<name> = supported.
StringMap ShowTableProperties(const Snapshot& snapshot);

}  // namespace deltaguard
