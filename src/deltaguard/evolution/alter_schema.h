/// \file deltaguard/evolution/alter_schema.h
/// The schema side of ALTER TABLE: pure transforms of a table schema (no I/O) that add,
/// rename, drop, reorder and retype columns, change NOT NULL and comments, each
/// returning the new schema or an error naming the column and both sides.
///
/// Rules (Spark Delta 4.x, docs/spark_semantics.md §4.1-4.4 and §5.5; docs/decisions.md):
///  - Paths are column names through structs, compared case-insensitively; a struct
///    inside an array or map is reached with `element`, `key` or `value`
///    ({"items", "element", "sku"}). Results keep the table's spelling.
///  - Unknown columns are kNotFound "DELTA_COLUMN_NOT_FOUND" listing the columns
///    available at that level.
///  - Names are unique case-insensitively within a struct: kAlreadyExists
///    "DELTA_DUPLICATE_COLUMNS_FOUND".
///  - New columns are nullable: a NOT NULL column or field (at any depth of its type)
///    is kInvalidArgument "DELTA_OPERATION_NOT_ALLOWED" saying why (existing rows would
///    hold NULL) and how to get there (add, backfill, SET NOT NULL).
///  - Rename and drop need column mapping (the files keep their physical names):
///    without it kInvalidArgument "DELTA_UNSUPPORTED_RENAME_COLUMN" /
///    "DELTA_UNSUPPORTED_DROP_COLUMN" with the SET TBLPROPERTIES that enables it.
///  - Type changes follow IsTypeWideningSupported (evolution/type_rules.h) and need
///    `delta.enableTypeWidening`; each is appended to `delta.typeChanges` on the nearest
///    ancestor field (type_changes.h). Anything else is kSchemaMismatch
///    "DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP" naming both types. A struct, array or
///    map column is changed through its parts (`a.element`, `m.key`, `m.value`), never
///    wholesale ("DELTA_CANNOT_UPDATE_ARRAY_FIELD" and the like).
///  - Partition columns cannot be dropped or retyped
///    ("DELTA_UNSUPPORTED_DROP_PARTITION_COLUMN"); they can be renamed (the caller
///    renames them in metaData.partitionColumns).
///  - A column read by a CHECK constraint cannot be dropped, renamed or retyped:
///    kInvalidArgument "DELTA_CONSTRAINT_DEPENDENT_COLUMN_CHANGE" naming the constraint
///    and its expression.
///  - A schema never loses its last column, nor a struct its last field
///    ("DELTA_DROP_COLUMN_ON_SINGLE_FIELD_SCHEMA").
///  - NOT NULL cannot be set on fields inside arrays or maps
///    ("DELTA_NESTED_NOT_NULL_CONSTRAINT"), nor can the nullability of an array element
///    or map key/value change. SET NOT NULL here only changes the schema: the caller
///    must first verify that no existing row holds NULL (docs/decisions.md §4).
/// Column-mapping ids and physical names of new fields are not assigned here (the
/// caller runs protocol/column_mapping.h AssignColumnMapping); existing fields keep
/// theirs, so renamed fields keep their physical names.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/protocol/metadata.h"
#include "deltaguard/protocol/table_properties.h"
#include "deltaguard/schema/column_path.h"  // FormatColumnPath prints the paths below
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// FIRST or AFTER <sibling> (a name in the same struct). `first` wins when both are set.
struct ColumnPosition {
  bool first = false;
  std::string after;
};

/// One column of ADD COLUMNS: `path` is the parent path plus the new name
/// ({"s", "new_field"}).
struct NewColumnSpec {
  std::vector<std::string> path;
  DataTypeRef type;
  std::optional<std::string> comment;
  bool not_null = false;  ///< always refused; kept so the refusal can say why
  std::optional<ColumnPosition> position;
  /// Declared CHAR(n)/VARCHAR(n) (also nested, e.g. "array<varchar(3)>"): Spark's raw
  /// type, stored as the field's __CHAR_VARCHAR_TYPE_STRING metadata (schema/ddl.h) so
  /// the length is enforced on writes, as for columns created with the table.
  std::optional<std::string> char_varchar_type;
};

/// ALTER COLUMN / CHANGE COLUMN: each set member is one change, applied in the order
/// type, nullability, comment, position.
struct ChangeColumnSpec {
  std::optional<DataTypeRef> type;
  std::optional<bool> nullable;  ///< false = SET NOT NULL, true = DROP NOT NULL
  std::optional<std::string> comment;
  std::optional<ColumnPosition> position;
  /// With `type`: the new type's Spark raw spelling when it declares CHAR/VARCHAR
  /// (e.g. "varchar(10)"; ddl.h CharVarcharTypeString). A top-level CHAR/VARCHAR column
  /// changes as Spark allows: varchar(a) -> varchar(b >= a), char(a) -> varchar(b >=
  /// a), either -> string (the limit goes); string -> char/varchar, char -> char of
  /// another length, varchar -> char and any narrowing are refused
  /// (NOT_SUPPORTED_CHANGE_COLUMN), as is CHAR/VARCHAR on a nested field.
  std::optional<std::string> char_varchar_type;
};

/// A CHECK constraint (or legacy invariant) and the column paths its expression reads;
/// table/alter.cc fills these from constraints/constraints.h BindAllConstraints.
struct ConstraintDependency {
  std::string name;
  std::string expression;
  std::vector<std::vector<std::string>> columns;
};

/// What the schema checks need to know about the table.
struct AlterContext {
  std::string table_name;  ///< used in messages
  std::vector<std::string> partition_columns;
  ColumnMappingMode column_mapping = ColumnMappingMode::kNone;
  bool type_widening_enabled = false;  ///< delta.enableTypeWidening = true
  std::vector<ConstraintDependency> constraints;
};

/// The outcome of one schema transform.
struct SchemaAlteration {
  SchemaRef schema;
  /// Columns acted on, in the table's spelling: added, dropped or changed paths; for a
  /// rename the old path.
  std::vector<std::vector<std::string>> columns;
  /// A rename's new path.
  std::vector<std::string> new_path;
  /// The changed field as it now is (ALTER/CHANGE COLUMN on a field; for a path ending
  /// in element/key/value, its nearest ancestor field).
  std::optional<StructField> field;
  /// The path of `field` in the table's spelling.
  std::vector<std::string> field_path;
  /// True when a nullable field became NOT NULL: the caller must verify the data.
  bool tightened_nullability = false;
  /// One line per change, e.g. "added column 's.c' (integer) after 's.a'".
  std::vector<std::string> changes;
};

/// ADD COLUMNS: the specs are applied in order (a later one may say AFTER an earlier
/// one). Also refuses void types (an untyped column), a parent that is not a struct
/// ("DELTA_ADD_COLUMN_PARENT_NOT_STRUCT") and, without column mapping, names with any
/// of ` ,;{}()\n\t=` ("DELTA_INVALID_CHARACTERS_IN_COLUMN_NAMES").
Result<SchemaAlteration> AddColumnsToSchema(const StructType& schema,
                                            const std::vector<NewColumnSpec>& specs,
                                            const AlterContext& context);

/// RENAME COLUMN `from` TO `to` (a single name; the field stays in its struct).
/// Renaming to the same name with another case is allowed.
Result<SchemaAlteration> RenameColumnInSchema(const StructType& schema,
                                              const std::vector<std::string>& from,
                                              const std::string& to,
                                              const AlterContext& context);

/// DROP COLUMN(S). With `if_exists`, unknown columns are skipped (then `columns` may be
/// empty and the schema unchanged).
Result<SchemaAlteration> DropColumnsFromSchema(
    const StructType& schema, const std::vector<std::vector<std::string>>& columns,
    bool if_exists, const AlterContext& context);

/// ALTER COLUMN / CHANGE COLUMN on `column` (a field, or `...element`/`key`/`value` for
/// a type change inside an array or map). A change to the current value is a no-op.
Result<SchemaAlteration> ChangeColumnInSchema(const StructType& schema,
                                              const std::vector<std::string>& column,
                                              const ChangeColumnSpec& spec,
                                              const AlterContext& context);

}  // namespace deltaguard
