// Path resolution and copy-on-write editing for the ALTER TABLE schema transforms
// (alter_schema_internal.h).

#include "deltaguard/evolution/alter_schema_internal.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <utility>

#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {
namespace {

Error NotFound(const std::vector<std::string>& path, size_t depth,
               std::string_view table_name, const std::string& why) {
  return MakeError(ErrorCode::kNotFound,
                   "DELTA_COLUMN_NOT_FOUND: column '{}' does not exist in table '{}': {}",
                   FormatColumnPath(Prefix(path, depth + 1)), table_name, why);
}

// Rebuild `type` with the struct at container[depth..] edited.
Result<DataTypeRef> EditStructIn(const DataTypeRef& type,
                                 const std::vector<std::string>& container, size_t depth,
                                 const FieldsEditor& edit) {
  if (depth == container.size()) {
    if (type->kind() != TypeKind::kStruct) {
      return MakeError(ErrorCode::kInternal, "'{}' is not a struct",
                       FormatColumnPath(container));
    }
    DELTA_ASSIGN_OR_RETURN(auto fields,
                           edit(static_cast<const StructType&>(*type).fields()));
    return std::make_shared<StructType>(std::move(fields));
  }
  const std::string& part = container[depth];
  switch (type->kind()) {
    case TypeKind::kStruct: {
      std::vector<StructField> fields = static_cast<const StructType&>(*type).fields();
      int i = FindFieldIndex(fields, part);
      if (i < 0) break;
      DELTA_ASSIGN_OR_RETURN(fields[i].type,
                             EditStructIn(fields[i].type, container, depth + 1, edit));
      return std::make_shared<StructType>(std::move(fields));
    }
    case TypeKind::kArray: {
      const auto& a = static_cast<const ArrayType&>(*type);
      if (!EqualsIgnoreCase(part, "element")) break;
      DELTA_ASSIGN_OR_RETURN(auto element,
                             EditStructIn(a.element_type(), container, depth + 1, edit));
      return std::make_shared<ArrayType>(std::move(element), a.contains_null());
    }
    case TypeKind::kMap: {
      const auto& m = static_cast<const MapType&>(*type);
      if (EqualsIgnoreCase(part, "key")) {
        DELTA_ASSIGN_OR_RETURN(auto key,
                               EditStructIn(m.key_type(), container, depth + 1, edit));
        return std::make_shared<MapType>(std::move(key), m.value_type(),
                                         m.value_contains_null());
      }
      if (EqualsIgnoreCase(part, "value")) {
        DELTA_ASSIGN_OR_RETURN(auto value,
                               EditStructIn(m.value_type(), container, depth + 1, edit));
        return std::make_shared<MapType>(m.key_type(), std::move(value),
                                         m.value_contains_null());
      }
      break;
    }
    default:
      break;
  }
  return MakeError(ErrorCode::kInternal, "cannot descend into '{}' of '{}'", part,
                   FormatColumnPath(container));
}

}  // namespace

bool IsContainerPart(std::string_view part) {
  return EqualsIgnoreCase(part, "element") || EqualsIgnoreCase(part, "key") ||
         EqualsIgnoreCase(part, "value");
}

int FindFieldIndex(const std::vector<StructField>& fields, std::string_view name) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (EqualsIgnoreCase(fields[i].name, name)) return static_cast<int>(i);
  }
  return -1;
}

std::string ListFieldNames(const std::vector<StructField>& fields,
                           const std::vector<std::string>& prefix) {
  std::string out;
  for (const auto& f : fields) {
    if (!out.empty()) out += ", ";
    std::vector<std::string> path = prefix;
    path.push_back(f.name);
    out += FormatColumnPath(path);
  }
  return out;
}

Result<ResolvedPath> ResolveColumnPath(const StructType& schema,
                                       const std::vector<std::string>& path,
                                       std::string_view table_name) {
  if (path.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "table '{}': empty column name",
                     table_name);
  }
  ResolvedPath out;
  DataTypeRef type = std::make_shared<StructType>(schema.fields());
  bool in_collection = false;
  for (size_t depth = 0; depth < path.size(); ++depth) {
    const std::string& part = path[depth];
    switch (type->kind()) {
      case TypeKind::kStruct: {
        const auto& s = static_cast<const StructType&>(*type);
        int i = FindFieldIndex(s.fields(), part);
        if (i < 0) {
          return NotFound(
              path, depth, table_name,
              fmt::format("available {}: {}", depth == 0 ? "columns" : "fields",
                          ListFieldNames(s.fields(), out.path)));
        }
        out.path.push_back(s.field(i).name);
        out.last_field = static_cast<int>(depth);
        out.inside_collection = in_collection;
        out.field = s.field(i);
        out.parent_type = type;
        type = s.field(i).type;
        break;
      }
      case TypeKind::kArray:
        if (!EqualsIgnoreCase(part, "element")) {
          return NotFound(
              path, depth, table_name,
              fmt::format("'{}' is an array; address its values as '{}.element'",
                          FormatColumnPath(out.path), FormatColumnPath(out.path)));
        }
        out.path.push_back("element");
        type = static_cast<const ArrayType&>(*type).element_type();
        in_collection = true;
        break;
      case TypeKind::kMap:
        if (!EqualsIgnoreCase(part, "key") && !EqualsIgnoreCase(part, "value")) {
          return NotFound(
              path, depth, table_name,
              fmt::format(
                  "'{0}' is a map; address its parts as '{0}.key' and '{0}.value'",
                  FormatColumnPath(out.path)));
        }
        out.path.push_back(AsciiToLower(part));
        type = EqualsIgnoreCase(part, "key")
                   ? static_cast<const MapType&>(*type).key_type()
                   : static_cast<const MapType&>(*type).value_type();
        in_collection = true;
        break;
      default:
        return NotFound(path, depth, table_name,
                        fmt::format("'{}' has type {}, which has no fields",
                                    FormatColumnPath(out.path), type->ToString()));
    }
  }
  out.type = type;
  return out;
}

Result<SchemaRef> EditStructAt(const StructType& schema,
                               const std::vector<std::string>& container,
                               const FieldsEditor& edit) {
  DataTypeRef root = std::make_shared<StructType>(schema.fields());
  DELTA_ASSIGN_OR_RETURN(auto edited, EditStructIn(root, container, 0, edit));
  return std::static_pointer_cast<const StructType>(edited);
}

Result<SchemaRef> EditFieldAt(
    const StructType& schema, const std::vector<std::string>& field_path,
    const std::function<Result<StructField>(StructField)>& edit) {
  if (field_path.empty()) {
    return MakeError(ErrorCode::kInternal, "EditFieldAt: empty path");
  }
  std::vector<std::string> container(field_path.begin(), field_path.end() - 1);
  const std::string& name = field_path.back();
  return EditStructAt(
      schema, container,
      [&](const std::vector<StructField>& fields) -> Result<std::vector<StructField>> {
        std::vector<StructField> out = fields;
        int i = FindFieldIndex(out, name);
        if (i < 0) {
          return MakeError(ErrorCode::kInternal, "no field '{}'",
                           FormatColumnPath(field_path));
        }
        DELTA_ASSIGN_OR_RETURN(out[i], edit(std::move(out[i])));
        return out;
      });
}

Result<DataTypeRef> ReplaceTypeAt(const DataTypeRef& type,
                                  const std::vector<std::string>& tail,
                                  const DataTypeRef& replacement) {
  if (tail.empty()) return replacement;
  std::vector<std::string> rest(tail.begin() + 1, tail.end());
  if (type->kind() == TypeKind::kArray && EqualsIgnoreCase(tail[0], "element")) {
    const auto& a = static_cast<const ArrayType&>(*type);
    DELTA_ASSIGN_OR_RETURN(auto element,
                           ReplaceTypeAt(a.element_type(), rest, replacement));
    return std::make_shared<ArrayType>(std::move(element), a.contains_null());
  }
  if (type->kind() == TypeKind::kMap) {
    const auto& m = static_cast<const MapType&>(*type);
    if (EqualsIgnoreCase(tail[0], "key")) {
      DELTA_ASSIGN_OR_RETURN(auto key, ReplaceTypeAt(m.key_type(), rest, replacement));
      return std::make_shared<MapType>(std::move(key), m.value_type(),
                                       m.value_contains_null());
    }
    if (EqualsIgnoreCase(tail[0], "value")) {
      DELTA_ASSIGN_OR_RETURN(auto value,
                             ReplaceTypeAt(m.value_type(), rest, replacement));
      return std::make_shared<MapType>(m.key_type(), std::move(value),
                                       m.value_contains_null());
    }
  }
  return MakeError(ErrorCode::kInternal, "cannot replace '{}' in {}",
                   FormatColumnPath(tail), type->ToString());
}

Result<std::vector<StructField>> MoveField(std::vector<StructField> fields, size_t index,
                                           const ColumnPosition& position,
                                           const std::vector<std::string>& parent,
                                           std::string_view table_name) {
  StructField moving = std::move(fields[index]);
  fields.erase(fields.begin() + static_cast<long>(index));
  size_t target = 0;
  if (!position.first) {
    int after = FindFieldIndex(fields, position.after);
    if (after < 0) {
      if (EqualsIgnoreCase(moving.name, position.after)) {
        after = static_cast<int>(index) - 1;  // AFTER itself: stays where it is
      } else {
        std::vector<std::string> missing = parent;
        missing.push_back(position.after);
        return MakeError(ErrorCode::kNotFound,
                         "DELTA_COLUMN_NOT_FOUND: AFTER '{}': no such column in table "
                         "'{}'; available: {}",
                         FormatColumnPath(missing), table_name,
                         ListFieldNames(fields, parent));
      }
    }
    target = static_cast<size_t>(after + 1);
  }
  fields.insert(fields.begin() + static_cast<long>(target), std::move(moving));
  return fields;
}

std::vector<std::string> Prefix(const std::vector<std::string>& path, size_t n) {
  return std::vector<std::string>(
      path.begin(), path.begin() + static_cast<long>(std::min(n, path.size())));
}

bool IsPrefixIgnoreCase(const std::vector<std::string>& prefix,
                        const std::vector<std::string>& path) {
  if (prefix.size() > path.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (!EqualsIgnoreCase(prefix[i], path[i])) return false;
  }
  return true;
}

Status CheckNoConstraintDependency(std::string_view verb,
                                   const std::vector<std::string>& path,
                                   const AlterContext& context) {
  for (const auto& c : context.constraints) {
    for (const auto& col : c.columns) {
      if (IsPrefixIgnoreCase(col, path) || IsPrefixIgnoreCase(path, col)) {
        return MakeError(
            ErrorCode::kInvalidArgument,
            "DELTA_CONSTRAINT_DEPENDENT_COLUMN_CHANGE: cannot {} column '{}' "
            "of table '{}': CHECK constraint '{}' ({}) uses it; drop the "
            "constraint first (ALTER TABLE {} DROP CONSTRAINT {})",
            verb, FormatColumnPath(path), context.table_name, c.name, c.expression,
            context.table_name, c.name);
      }
    }
  }
  return OkStatus();
}

const std::string* PartitionColumn(const std::vector<std::string>& path,
                                   const AlterContext& context) {
  if (path.size() != 1) return nullptr;
  for (const auto& p : context.partition_columns) {
    if (EqualsIgnoreCase(p, path[0])) return &p;
  }
  return nullptr;
}

std::string PositionText(const std::optional<ColumnPosition>& position,
                         const std::vector<std::string>& parent) {
  if (!position) return "";
  if (position->first) return " first";
  std::vector<std::string> after = parent;
  after.push_back(position->after);
  return fmt::format(" after '{}'", FormatColumnPath(after));
}

// Require that `resolved` ends at a field (not element/key/value).
Status RequireField(const ResolvedPath& resolved, std::string_view verb,
                    const AlterContext& context) {
  if (resolved.last_field == static_cast<int>(resolved.path.size()) - 1) {
    return OkStatus();
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   "cannot {} '{}' of table '{}': array elements and map keys/values are "
                   "parts of their column's type, not columns",
                   verb, FormatColumnPath(resolved.path), context.table_name);
}

}  // namespace deltaguard::internal
