/// \file deltaguard/table/alter_internal.h
/// Pieces shared by the ALTER TABLE operations (alter.cc, alter_properties.cc): loading
/// the table with its AlterContext, and the one commit path every operation goes
/// through. Not part of the public API.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "deltaguard/evolution/alter_schema.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/table/alter.h"
#include "deltaguard/txn/commit_info.h"

namespace deltaguard::alter_internal {

/// The table an ALTER works on.
struct AlterTarget {
  std::string root;  ///< normalized table directory
  std::string name;  ///< the path as the user gave it (messages)
  SnapshotRef snapshot;
  AlterContext context;
};

/// Open the latest snapshot (kNotFound when `path` holds no table), check that
/// deltaguard may write it, and build the AlterContext (partition columns, column
/// mapping mode, delta.enableTypeWidening, CHECK constraints and their columns).
Result<AlterTarget> LoadAlterTarget(const FileSystemRef& fs, const std::string& path);

/// What one ALTER commits.
struct AlterCommit {
  Metadata metadata;  ///< the new metaData (configuration, partition columns, ...)
  /// The new schema when it changed: fields without column-mapping ids get them (mode
  /// name/id), maxColumnId follows, and metadata.schema_string is set from it.
  std::optional<SchemaRef> schema;
  /// The protocol to commit; nullopt = ProtocolUpgradeFor(current, new metadata).
  std::optional<Protocol> protocol;
  OperationInfo op;
  bool read_whole_table = false;  ///< SET NOT NULL: concurrent writes conflict
  std::vector<std::string> changes;
};

/// Check that deltaguard can still write the table afterwards, then commit (one
/// transaction on target.snapshot) and checkpoint when the interval says so.
Result<AlterResult> CommitAlter(const FileSystemRef& fs, const AlterTarget& target,
                                AlterCommit commit, const SessionSettings& session);

/// An AlterResult for an operation that changes nothing (no commit).
AlterResult NoChange(std::string why);

}  // namespace deltaguard::alter_internal
