// ALTER TABLE schema transforms (alter_schema.h). Spark's rules: docs/spark_semantics.md
// §5.5.

#include "deltaguard/evolution/alter_schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <utility>

#include "deltaguard/evolution/alter_schema_internal.h"
#include "deltaguard/evolution/type_changes.h"
#include "deltaguard/evolution/type_rules.h"
#include "deltaguard/protocol/write_protocol.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {

using internal::EditFieldAt;
using internal::EditStructAt;
using internal::FindFieldIndex;
using internal::IsContainerPart;
using internal::ResolveColumnPath;
using internal::ResolvedPath;

using Path = std::vector<std::string>;
using internal::CheckNoConstraintDependency;
using internal::IsPrefixIgnoreCase;
using internal::PartitionColumn;
using internal::PositionText;
using internal::Prefix;
using internal::RequireField;

namespace {

std::string EnableMappingHint(std::string_view table) {
  return fmt::format(
      "ALTER TABLE {} SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name')", table);
}

std::optional<std::string> FindNotNullField(const DataType& type, const Path& at) {
  switch (type.kind()) {
    case TypeKind::kStruct:
      for (const auto& f : static_cast<const StructType&>(type).fields()) {
        Path p = at;
        p.push_back(f.name);
        if (!f.nullable) return FormatColumnPath(p);
        if (auto inner = FindNotNullField(*f.type, p)) return inner;
      }
      return std::nullopt;
    case TypeKind::kArray: {
      Path p = at;
      p.push_back("element");
      return FindNotNullField(*static_cast<const ArrayType&>(type).element_type(), p);
    }
    case TypeKind::kMap: {
      const auto& m = static_cast<const MapType&>(type);
      Path k = at, v = at;
      k.push_back("key");
      v.push_back("value");
      if (auto inner = FindNotNullField(*m.key_type(), k)) return inner;
      return FindNotNullField(*m.value_type(), v);
    }
    default:
      return std::nullopt;
  }
}

bool ContainsVoid(const DataType& type) {
  switch (type.kind()) {
    case TypeKind::kVoid:
      return true;
    case TypeKind::kStruct:
      for (const auto& f : static_cast<const StructType&>(type).fields()) {
        if (ContainsVoid(*f.type)) return true;
      }
      return false;
    case TypeKind::kArray:
      return ContainsVoid(*static_cast<const ArrayType&>(type).element_type());
    case TypeKind::kMap:
      return ContainsVoid(*static_cast<const MapType&>(type).key_type()) ||
             ContainsVoid(*static_cast<const MapType&>(type).value_type());
    default:
      return false;
  }
}

// `type` without column-mapping and typeChanges metadata on nested fields: a new column
// gets fresh ids from the caller, never ones copied from elsewhere.
DataTypeRef StripMappingMetadata(const DataTypeRef& type) {
  switch (type->kind()) {
    case TypeKind::kStruct: {
      std::vector<StructField> fields = static_cast<const StructType&>(*type).fields();
      for (auto& f : fields) {
        f.metadata = f.metadata.Without(kColumnMappingIdKey)
                         .Without(kColumnMappingPhysicalNameKey)
                         .Without(kTypeChangesKey);
        f.type = StripMappingMetadata(f.type);
      }
      return std::make_shared<StructType>(std::move(fields));
    }
    case TypeKind::kArray: {
      const auto& a = static_cast<const ArrayType&>(*type);
      return std::make_shared<ArrayType>(StripMappingMetadata(a.element_type()),
                                         a.contains_null());
    }
    case TypeKind::kMap: {
      const auto& m = static_cast<const MapType&>(*type);
      return std::make_shared<MapType>(StripMappingMetadata(m.key_type()),
                                       StripMappingMetadata(m.value_type()),
                                       m.value_contains_null());
    }
    default:
      return type;
  }
}

// Spark refuses these characters in column names unless column mapping is on.
constexpr std::string_view kInvalidNameChars = " ,;{}()\n\t=";

Status CheckNameCharacters(const std::string& name, const Path& path,
                           const AlterContext& context) {
  if (context.column_mapping != ColumnMappingMode::kNone) return OkStatus();
  if (name.find_first_of(kInvalidNameChars) == std::string::npos) return OkStatus();
  return MakeError(ErrorCode::kInvalidArgument,
                   "DELTA_INVALID_CHARACTERS_IN_COLUMN_NAMES: column '{}' of table '{}' "
                   "contains one of ' ,;{{}}()\\n\\t=', which Delta allows only with "
                   "column mapping: {}",
                   FormatColumnPath(path), context.table_name,
                   EnableMappingHint(context.table_name));
}

Status CheckColumnMapping(std::string_view op_class, std::string_view verb,
                          const Path& path, const AlterContext& context) {
  if (context.column_mapping != ColumnMappingMode::kNone) return OkStatus();
  return MakeError(ErrorCode::kInvalidArgument,
                   "{}: cannot {} column '{}' of table '{}': {} needs column mapping, so "
                   "that data files keep their column names while the table's change; "
                   "the table has none. Enable it with {} (readers then need protocol "
                   "version 2 and the columnMapping feature; no data is rewritten)",
                   op_class, verb, FormatColumnPath(path), context.table_name,
                   verb == "rename" ? "renaming" : "dropping",
                   EnableMappingHint(context.table_name));
}

// A CHAR/VARCHAR field added at `full` below a top-level column: Spark keeps every
// length limit of a column in that column's raw type (ddl.h kCharVarcharTypeKey), so
// the raw type is rebuilt from the column's new type with its old limits plus the new
// field's (`raw`, relative to the field).
Result<SchemaRef> RecordNestedCharVarchar(const StructType& schema, const Path& full,
                                          const std::string& raw) {
  const int top = schema.FieldIndexCaseInsensitive(full[0]);
  if (top < 0) return std::make_shared<StructType>(schema.fields());
  std::vector<StructField> fields = schema.fields();
  StructField& column = fields[static_cast<size_t>(top)];
  std::vector<CharVarcharLeaf> leaves;
  if (auto old = column.metadata.GetString(kCharVarcharTypeKey)) {
    if (auto parsed = ParseCharVarcharLeaves(*old)) leaves = std::move(*parsed);
  }
  // The steps from the column to the new field, directed by the types on the way.
  std::vector<TypeStep> prefix;
  const DataType* type = column.type.get();
  for (size_t i = 1; i < full.size() && type != nullptr; ++i) {
    if (type->kind() == TypeKind::kStruct) {
      const auto& st = static_cast<const StructType&>(*type);
      const int f = st.FieldIndexCaseInsensitive(full[i]);
      prefix.push_back(TypeStep{TypeStep::Kind::kField, full[i]});
      type = f < 0 ? nullptr : st.field(static_cast<size_t>(f)).type.get();
    } else if (type->kind() == TypeKind::kArray) {
      prefix.push_back(TypeStep{TypeStep::Kind::kElement, {}});
      type = static_cast<const ArrayType&>(*type).element_type().get();
    } else if (type->kind() == TypeKind::kMap) {
      const auto& m = static_cast<const MapType&>(*type);
      const bool key = EqualsIgnoreCase(full[i], "key");
      prefix.push_back(TypeStep{key ? TypeStep::Kind::kKey : TypeStep::Kind::kValue, {}});
      type = key ? m.key_type().get() : m.value_type().get();
    } else {
      type = nullptr;
    }
  }
  DELTA_ASSIGN_OR_RETURN(auto added, ParseCharVarcharLeaves(raw));
  for (CharVarcharLeaf& leaf : added) {
    leaf.steps.insert(leaf.steps.begin(), prefix.begin(), prefix.end());
    leaves.push_back(std::move(leaf));
  }
  column.metadata = column.metadata.With(
      kCharVarcharTypeKey, JsonQuote(CatalogTypeString(*column.type, leaves)));
  return std::make_shared<StructType>(std::move(fields));
}

}  // namespace

Result<SchemaAlteration> AddColumnsToSchema(const StructType& schema,
                                            const std::vector<NewColumnSpec>& specs,
                                            const AlterContext& context) {
  SchemaAlteration out;
  SchemaRef current = std::make_shared<StructType>(schema.fields());
  for (const auto& spec : specs) {
    if (spec.path.empty() || spec.path.back().empty() || !spec.type) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "ADD COLUMNS on table '{}': a column needs a name and a type",
                       context.table_name);
    }
    const std::string shown = FormatColumnPath(spec.path);
    if (spec.not_null) {
      return MakeError(
          ErrorCode::kInvalidArgument,
          "DELTA_OPERATION_NOT_ALLOWED: cannot add column '{}' to table '{}' "
          "as NOT NULL: the table's existing rows would hold NULL in it. Add "
          "it as nullable, fill it (UPDATE), then ALTER TABLE {} ALTER "
          "COLUMN {} SET NOT NULL",
          shown, context.table_name, context.table_name, shown);
    }
    Path type_root = spec.path;
    if (auto nested = FindNotNullField(*spec.type, type_root)) {
      return MakeError(
          ErrorCode::kInvalidArgument,
          "DELTA_OPERATION_NOT_ALLOWED: cannot add column '{}' to table '{}': "
          "its field '{}' is NOT NULL, but the table's existing rows would "
          "hold NULL in it; new columns and their fields must be nullable",
          shown, context.table_name, *nested);
    }
    if (ContainsVoid(*spec.type)) {
      return MakeError(
          ErrorCode::kInvalidArgument,
          "cannot add column '{}' to table '{}' with type {}: a column needs "
          "a concrete type (void holds only NULL)",
          shown, context.table_name, spec.type->ToString());
    }
    const Path parent = Prefix(spec.path, spec.path.size() - 1);
    Path canonical_parent;
    if (!parent.empty()) {
      DELTA_ASSIGN_OR_RETURN(auto resolved,
                             ResolveColumnPath(*current, parent, context.table_name));
      if (resolved.type->kind() != TypeKind::kStruct) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "DELTA_ADD_COLUMN_PARENT_NOT_STRUCT: cannot add column '{}' to "
                         "table '{}': its parent '{}' has type {}, not a struct{}",
                         shown, context.table_name, FormatColumnPath(resolved.path),
                         resolved.type->ToString(),
                         resolved.type->kind() == TypeKind::kArray
                             ? " (add to the struct in the array as '<array>.element."
                               "<field>')"
                             : "");
      }
      canonical_parent = resolved.path;
    }
    Path full = canonical_parent;
    full.push_back(spec.path.back());
    DELTA_RETURN_IF_ERROR(CheckNameCharacters(spec.path.back(), full, context));
    StructField field;
    field.name = spec.path.back();
    field.type = StripMappingMetadata(spec.type);
    field.nullable = true;
    if (spec.comment)
      field.metadata = field.metadata.With(kCommentKey, JsonQuote(*spec.comment));
    if (spec.char_varchar_type && canonical_parent.empty()) {
      field.metadata =
          field.metadata.With(kCharVarcharTypeKey, JsonQuote(*spec.char_varchar_type));
    }
    DELTA_ASSIGN_OR_RETURN(
        current,
        EditStructAt(
            *current, canonical_parent,
            [&](const std::vector<StructField>& fields)
                -> Result<std::vector<StructField>> {
              int existing = FindFieldIndex(fields, field.name);
              if (existing >= 0) {
                Path other = canonical_parent;
                other.push_back(fields[existing].name);
                return MakeError(
                    ErrorCode::kAlreadyExists,
                    "DELTA_DUPLICATE_COLUMNS_FOUND: cannot add column '{}' to "
                    "table '{}': column '{}' already exists (names are "
                    "case-insensitive)",
                    FormatColumnPath(full), context.table_name, FormatColumnPath(other));
              }
              std::vector<StructField> out_fields = fields;
              out_fields.push_back(field);
              if (!spec.position) return out_fields;
              const size_t index = out_fields.size() - 1;
              return internal::MoveField(std::move(out_fields), index, *spec.position,
                                         canonical_parent, context.table_name);
            }));
    if (spec.char_varchar_type && !canonical_parent.empty()) {
      DELTA_ASSIGN_OR_RETURN(
          current, RecordNestedCharVarchar(*current, full, *spec.char_varchar_type));
    }
    out.columns.push_back(full);
    out.changes.push_back(fmt::format("added column '{}' ({}){}", FormatColumnPath(full),
                                      field.type->ToString(),
                                      PositionText(spec.position, canonical_parent)));
  }
  out.schema = std::move(current);
  return out;
}

Result<SchemaAlteration> RenameColumnInSchema(const StructType& schema,
                                              const std::vector<std::string>& from,
                                              const std::string& to,
                                              const AlterContext& context) {
  DELTA_ASSIGN_OR_RETURN(auto resolved,
                         ResolveColumnPath(schema, from, context.table_name));
  DELTA_RETURN_IF_ERROR(RequireField(resolved, "rename", context));
  DELTA_RETURN_IF_ERROR(CheckColumnMapping("DELTA_UNSUPPORTED_RENAME_COLUMN", "rename",
                                           resolved.path, context));
  if (to.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cannot rename column '{}' of table '{}' to an empty name",
                     FormatColumnPath(resolved.path), context.table_name);
  }
  DELTA_RETURN_IF_ERROR(CheckNoConstraintDependency("rename", resolved.path, context));
  const Path parent = Prefix(resolved.path, resolved.path.size() - 1);
  Path new_path = parent;
  new_path.push_back(to);
  SchemaAlteration out;
  DELTA_ASSIGN_OR_RETURN(
      out.schema,
      EditStructAt(
          schema, parent,
          [&](const std::vector<StructField>& fields)
              -> Result<std::vector<StructField>> {
            std::vector<StructField> out_fields = fields;
            for (auto& f : out_fields) {
              if (EqualsIgnoreCase(f.name, resolved.field.name)) {
                f.name = to;
              } else if (EqualsIgnoreCase(f.name, to)) {
                Path other = parent;
                other.push_back(f.name);
                return MakeError(
                    ErrorCode::kAlreadyExists,
                    "DELTA_DUPLICATE_COLUMNS_FOUND: cannot rename column '{}' of "
                    "table '{}' to '{}': column '{}' already exists (names are "
                    "case-insensitive)",
                    FormatColumnPath(resolved.path), context.table_name, to,
                    FormatColumnPath(other));
              }
            }
            return out_fields;
          }));
  out.columns.push_back(resolved.path);
  out.new_path = new_path;
  out.changes.push_back(fmt::format("renamed column '{}' to '{}'",
                                    FormatColumnPath(resolved.path),
                                    FormatColumnPath(new_path)));
  return out;
}

Result<SchemaAlteration> DropColumnsFromSchema(
    const StructType& schema, const std::vector<std::vector<std::string>>& columns,
    bool if_exists, const AlterContext& context) {
  SchemaAlteration out;
  // Resolve and check everything before changing anything.
  std::vector<Path> to_drop;
  for (const auto& column : columns) {
    auto resolved = ResolveColumnPath(schema, column, context.table_name);
    if (!resolved) {
      if (if_exists && resolved.error().code == ErrorCode::kNotFound) continue;
      return resolved.error();
    }
    DELTA_RETURN_IF_ERROR(RequireField(*resolved, "drop", context));
    DELTA_RETURN_IF_ERROR(CheckColumnMapping("DELTA_UNSUPPORTED_DROP_COLUMN", "drop",
                                             resolved->path, context));
    if (const std::string* p = PartitionColumn(resolved->path, context)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "DELTA_UNSUPPORTED_DROP_PARTITION_COLUMN: cannot drop partition "
                       "column '{}' of table '{}' (partition columns: {})",
                       *p, context.table_name,
                       fmt::join(context.partition_columns, ", "));
    }
    DELTA_RETURN_IF_ERROR(CheckNoConstraintDependency("drop", resolved->path, context));
    to_drop.push_back(resolved->path);
  }
  // A column inside another dropped one goes with it.
  std::vector<Path> effective;
  for (const auto& p : to_drop) {
    bool covered = false;
    for (const auto& q : to_drop) {
      if (&p != &q && q.size() < p.size() && IsPrefixIgnoreCase(q, p)) covered = true;
    }
    for (const auto& e : effective) covered = covered || e == p;
    if (!covered) effective.push_back(p);
  }
  SchemaRef current = std::make_shared<StructType>(schema.fields());
  for (const auto& path : effective) {
    const Path parent = Prefix(path, path.size() - 1);
    DELTA_ASSIGN_OR_RETURN(
        current,
        EditStructAt(*current, parent,
                     [&](const std::vector<StructField>& fields)
                         -> Result<std::vector<StructField>> {
                       std::vector<StructField> out_fields = fields;
                       out_fields.erase(out_fields.begin() +
                                        FindFieldIndex(out_fields, path.back()));
                       if (!out_fields.empty()) return out_fields;
                       if (parent.empty()) {
                         return MakeError(
                             ErrorCode::kInvalidArgument,
                             "DELTA_DROP_COLUMN_ON_SINGLE_FIELD_SCHEMA: cannot drop "
                             "column '{}': it would leave table '{}' without columns",
                             FormatColumnPath(path), context.table_name);
                       }
                       return MakeError(
                           ErrorCode::kInvalidArgument,
                           "DELTA_DROP_COLUMN_ON_SINGLE_FIELD_SCHEMA: cannot drop field "
                           "'{}' of table '{}': it would leave struct '{}' without "
                           "fields (drop '{}' itself instead)",
                           FormatColumnPath(path), context.table_name,
                           FormatColumnPath(parent), FormatColumnPath(parent));
                     }));
    out.columns.push_back(path);
    out.changes.push_back(fmt::format("dropped column '{}'", FormatColumnPath(path)));
  }
  out.schema = std::move(current);
  return out;
}

}  // namespace deltaguard
