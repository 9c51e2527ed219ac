/// \file deltaguard/evolution/table_diff.h
/// What the metaData and protocol actions of one commit changed against the table as it
/// was before that commit: the first schema, column changes (schema/schema_diff.h
/// DiffSchemas), partitioning, table properties and the protocol. A pure function of
/// the logged actions, so `history` (tools/cli/cmd_history.cc) prints it per version and
/// drift detection can compare a commit's schema the same way.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/protocol/metadata.h"
#include "deltaguard/protocol/protocol.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/schema/schema_diff.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// The table as the log described it up to some commit: the last metaData with a
/// schema (parsed) and the last protocol. Empty before the first commit.
struct LoggedTableState {
  SchemaRef schema;
  std::optional<Metadata> metadata;
  std::optional<Protocol> protocol;
};

/// The changes of one commit, each kind in its own member, in the order history lists
/// them (TableLines: metadata, partitioning, properties, protocol).
struct CommitTableChanges {
  /// The table's first schema: its number of top-level columns (nothing to compare).
  std::optional<size_t> schema_set_columns;
  /// Column changes against the previous schema (added, dropped, renamed by
  /// column-mapping id, type, nullability, comment; nested fields by path).
  std::vector<SchemaDiffEntry> columns;
  /// A metaData without a schemaString (some writers log one first): not compared, and
  /// the state keeps the previous metaData.
  bool metadata_without_schema = false;
  /// Partition columns (before, after) when they changed.
  std::optional<std::pair<std::vector<std::string>, std::vector<std::string>>>
      partitioning;
  /// Properties that are new or have a new value, in the new metaData's order.
  StringMap properties_set;
  /// Properties of the previous metaData that the new one lacks, in the old order.
  std::vector<std::string> properties_unset;
  /// The protocol, when it is the first or differs from the previous one.
  std::optional<Protocol> protocol;

  bool empty() const;
  /// One line per schema change: "schema set: 2 columns", "added column 'c' (int)".
  std::vector<std::string> SchemaLines() const;
  /// One line per other change: "set property k=v", "protocol reader 1 writer 2".
  std::vector<std::string> TableLines() const;
};

/// Compare the `metadata` and `protocol` a commit logged (either may be absent) with
/// `before`, and advance `*after` (may alias `before`) to the state after the commit.
/// A schemaString that does not parse is kCorruptLog (the log holds the text), with the
/// parser's message; `*after` is then unchanged.
Result<CommitTableChanges> DiffCommitActions(const LoggedTableState& before,
                                             const std::optional<Metadata>& metadata,
                                             const std::optional<Protocol>& protocol,
                                             LoggedTableState* after);

}  // namespace deltaguard
