/// \file deltaguard/protocol/column_mapping.h
/// Writer side of column mapping (PROTOCOL.md "Column Mapping", digest §4.1): assigning
/// `delta.columnMapping.id` / `delta.columnMapping.physicalName` to new fields and
/// validating a column-mapped schema before it is committed.
///
/// Invariants of a column-mapped schema (checked by ValidateColumnMapping):
///  - every StructField at any depth (including struct fields inside array elements and
///    map keys/values) carries an integer id and a non-empty physical name;
///  - ids are unique across the whole schema and never exceed
///    `delta.columnMapping.maxColumnId`, which only grows;
///  - physical names are unique (case-insensitively) among the fields of one struct.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// Table property holding the highest column id ever assigned (digest §4.1). Internal:
/// users cannot set it (ValidateTableProperties refuses it).
inline constexpr std::string_view kColumnMappingMaxColumnIdProperty =
    "delta.columnMapping.maxColumnId";

struct ColumnMappingAssignment {
  SchemaRef schema;
  /// The new `delta.columnMapping.maxColumnId` (unchanged when nothing was assigned).
  int64_t max_column_id = 0;
};

/// Give every field that lacks them (any depth, pre-order: a parent gets its id before
/// its children, as Spark numbers them) `delta.columnMapping.id = ++max_id` and
/// `delta.columnMapping.physicalName`: "col-<uuid v4>" for new tables and new columns, or
/// the field's current name when `keep_names_as_physical` (upgrading an existing table
/// from mode none to name: its files already use the display names). Fields that already
/// have both keep them. Numbering starts above max(current_max_id, highest id present),
/// so a stale maxColumnId can never produce a duplicate id.
/// kInvalidArgument when an existing id is not an integer or current_max_id < 0.
Result<ColumnMappingAssignment> AssignColumnMapping(const StructType& schema,
                                                    int64_t current_max_id,
                                                    bool keep_names_as_physical);

/// Check the invariants in the file comment. kCorruptLog naming the column path
/// (`a.b`, `arr.element.x`, `m.value.y`) and, for duplicates, both columns.
Status ValidateColumnMapping(const StructType& schema, int64_t max_column_id);

/// A fresh physical name "col-<uuid v4>" (lower-case hex, RFC 4122 version 4).
std::string NewPhysicalColumnName();

/// Visit every StructField at any depth in pre-order with its display path (`a.b`,
/// `arr.element.x`, `m.key.k`, `m.value.v`).
void ForEachField(
    const StructType& schema,
    const std::function<void(const std::string& path, const StructField& field)>& visit);

}  // namespace deltaguard
