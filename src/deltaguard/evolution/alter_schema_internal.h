/// \file deltaguard/evolution/alter_schema_internal.h
/// Path resolution and copy-on-write editing of nested schemas, shared by the ALTER
/// TABLE schema transforms (alter_schema.cc). Not part of the public API.
///
/// Invariant: the editors only descend paths that ResolveColumnPath accepted, so
/// every component exists; they still return kInternal rather than crash otherwise.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "deltaguard/evolution/alter_schema.h"

namespace deltaguard::internal {

/// True for "element", "key" and "value" (case-insensitive).
bool IsContainerPart(std::string_view part);

/// A user path resolved against a schema.
struct ResolvedPath {
  std::vector<std::string> path;  ///< every component in the table's spelling
  /// Index in `path` of the last component that names a struct field; -1 when the path
  /// is empty.
  int last_field = -1;
  /// True when an element/key/value component precedes `last_field`: the field lives
  /// inside an array or map.
  bool inside_collection = false;
  DataTypeRef type;         ///< the type at the full path
  StructField field;        ///< the field at `last_field`
  DataTypeRef parent_type;  ///< the struct holding that field
};

/// Resolve `path` case-insensitively. Unknown parts are kNotFound
/// "DELTA_COLUMN_NOT_FOUND" naming the table and listing the columns at that level; a
/// part under a primitive, or a non-element/key/value part under an array or map, is
/// kNotFound too, saying how to address the collection.
Result<ResolvedPath> ResolveColumnPath(const StructType& schema,
                                       const std::vector<std::string>& path,
                                       std::string_view table_name);

using FieldsEditor =
    std::function<Result<std::vector<StructField>>(const std::vector<StructField>&)>;

/// `schema` with the fields of the struct at `container` (a resolved path whose type is
/// a struct; empty = the top level) replaced by `edit`'s result.
Result<SchemaRef> EditStructAt(const StructType& schema,
                               const std::vector<std::string>& container,
                               const FieldsEditor& edit);

/// `schema` with the field at `field_path` (a resolved path ending in a field) replaced
/// by `edit`'s result.
Result<SchemaRef> EditFieldAt(
    const StructType& schema, const std::vector<std::string>& field_path,
    const std::function<Result<StructField>(StructField)>& edit);

/// `type` with the type at `tail` (element/key/value parts) replaced by `replacement`.
Result<DataTypeRef> ReplaceTypeAt(const DataTypeRef& type,
                                  const std::vector<std::string>& tail,
                                  const DataTypeRef& replacement);

/// Index of the field named `name` (case-insensitive) in `fields`, or -1.
int FindFieldIndex(const std::vector<StructField>& fields, std::string_view name);

/// "a, b, c" (the names of `fields`, each prefixed with `prefix` when non-empty).
std::string ListFieldNames(const std::vector<StructField>& fields,
                           const std::vector<std::string>& prefix);

/// Move the field at `index` to FIRST or AFTER a sibling. kNotFound naming the sibling
/// and listing the fields when AFTER names none of them.
Result<std::vector<StructField>> MoveField(std::vector<StructField> fields, size_t index,
                                           const ColumnPosition& position,
                                           const std::vector<std::string>& parent,
                                           std::string_view table_name);

/// The first `n` parts of `path` (all of them when shorter).
std::vector<std::string> Prefix(const std::vector<std::string>& path, size_t n);

/// True when `prefix` is a (case-insensitive) prefix of `path`, or equal to it.
bool IsPrefixIgnoreCase(const std::vector<std::string>& prefix,
                        const std::vector<std::string>& path);

/// kInvalidArgument "DELTA_CONSTRAINT_DEPENDENT_COLUMN_CHANGE" when a CHECK constraint of
/// `context` reads `path`, a field inside it or the struct around it.
Status CheckNoConstraintDependency(std::string_view verb,
                                   const std::vector<std::string>& path,
                                   const AlterContext& context);

/// The partition column `path` names (a top-level column), or nullptr.
const std::string* PartitionColumn(const std::vector<std::string>& path,
                                   const AlterContext& context);

/// " first", " after 'p.x'" or "" (for change descriptions).
std::string PositionText(const std::optional<ColumnPosition>& position,
                         const std::vector<std::string>& parent);

/// kInvalidArgument unless `resolved` ends at a field (not element/key/value).
Status RequireField(const ResolvedPath& resolved, std::string_view verb,
                    const AlterContext& context);

}  // namespace deltaguard::internal
