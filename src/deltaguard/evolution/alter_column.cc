// ALTER COLUMN / CHANGE COLUMN (alter_schema.h ChangeColumnInSchema): type widening,
// NOT NULL, comment and position changes. Spark's rules: docs/spark_semantics.md §4.2,
// §5.5.

#include <fmt/format.h>

#include <utility>

#include "deltaguard/evolution/alter_schema.h"
#include "deltaguard/evolution/alter_schema_internal.h"
#include "deltaguard/evolution/type_changes.h"
#include "deltaguard/evolution/type_rules.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {

using Path = std::vector<std::string>;

using internal::CheckNoConstraintDependency;
using internal::EditFieldAt;
using internal::EditStructAt;
using internal::FindFieldIndex;
using internal::PartitionColumn;
using internal::PositionText;
using internal::Prefix;
using internal::RequireField;
using internal::ResolveColumnPath;
using internal::ResolvedPath;

namespace {

// ---- ALTER COLUMN pieces (each on the working schema) ---------------------------------

Result<SchemaRef> ChangeType(const SchemaRef& schema, const ResolvedPath& resolved,
                             const DataTypeRef& to, const AlterContext& context,
                             SchemaAlteration* out) {
  const DataTypeRef& from = resolved.type;
  const std::string shown = FormatColumnPath(resolved.path);
  if (from->Equals(*to)) return schema;
  auto refuse = [&](std::string why) {
    return MakeError(ErrorCode::kSchemaMismatch,
                     "DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP: cannot change column "
                     "'{}' of table '{}' from {} to {}: {}",
                     shown, context.table_name, from->ToString(), to->ToString(), why);
  };
  if (from->is_nested()) {
    std::string_view what = from->kind() == TypeKind::kStruct  ? "STRUCT"
                            : from->kind() == TypeKind::kArray ? "ARRAY"
                                                               : "MAP";
    std::string how = from->kind() == TypeKind::kStruct
                          ? fmt::format(
                                "change its fields ('{}.<field>') one by one, or "
                                "ADD COLUMNS / DROP COLUMNS inside it",
                                shown)
                      : from->kind() == TypeKind::kArray
                          ? fmt::format("change '{}.element' instead", shown)
                          : fmt::format("change '{0}.key' or '{0}.value' instead", shown);
    return MakeError(ErrorCode::kSchemaMismatch,
                     "DELTA_CANNOT_UPDATE_{}_FIELD: cannot change the type of {} column "
                     "'{}' of table '{}' from {} to {} as a whole; {}",
                     what, AsciiToLower(what), shown, context.table_name,
                     from->ToString(), to->ToString(), how);
  }
  if (to->is_nested()) return refuse("a primitive column cannot become a nested type");
  if (const std::string* p = PartitionColumn(resolved.path, context)) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        "DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP: cannot change the type "
        "of partition column '{}' of table '{}' from {} to {}: partition "
        "values are stored in the log in the old type",
        *p, context.table_name, from->ToString(), to->ToString());
  }
  DELTA_RETURN_IF_ERROR(
      CheckNoConstraintDependency("change the type of", resolved.path, context));
  if (!IsTypeWideningSupported(*from, *to)) {
    if (IsTypeWideningSupported(*to, *from) || IsLosslessWriteCast(*to, *from)) {
      return refuse("that is a narrowing change; existing values may not fit");
    }
    return refuse(
        "the types are unrelated; Delta type widening allows only byte -> short -> int "
        "-> long, float -> double, byte/short/int -> double, integers -> decimal with "
        "enough integer digits, decimal precision/scale increases and date -> "
        "timestamp_ntz");
  }
  if (!context.type_widening_enabled) {
    return refuse(fmt::format(
        "this widening needs the typeWidening table feature: ALTER TABLE {} SET "
        "TBLPROPERTIES ('delta.enableTypeWidening' = 'true')",
        context.table_name));
  }
  const size_t field_depth = static_cast<size_t>(resolved.last_field) + 1;
  const Path field_path = Prefix(resolved.path, field_depth);
  const Path tail(resolved.path.begin() + static_cast<long>(field_depth),
                  resolved.path.end());
  std::string field_tail;
  for (const auto& t : tail) field_tail += (field_tail.empty() ? "" : ".") + t;
  DELTA_ASSIGN_OR_RETURN(
      auto updated,
      EditFieldAt(*schema, field_path, [&](StructField f) -> Result<StructField> {
        DELTA_ASSIGN_OR_RETURN(f.type, internal::ReplaceTypeAt(f.type, tail, to));
        DELTA_ASSIGN_OR_RETURN(f.metadata,
                               AppendTypeChange(f.metadata, *from, *to, field_tail,
                                                FormatColumnPath(field_path)));
        return f;
      }));
  out->changes.push_back(fmt::format("changed the type of column '{}' from {} to {}",
                                     shown, from->ToString(), to->ToString()));
  return updated;
}

// A top-level CHAR(n)/VARCHAR(n) spelled simply ("varchar(3)"), or nullopt.
std::optional<CharVarcharLeaf> SimpleCharVarchar(const std::optional<std::string>& raw) {
  if (!raw) return std::nullopt;
  auto leaves = ParseCharVarcharLeaves(*raw);
  if (!leaves || leaves->size() != 1 || !leaves->front().steps.empty()) {
    return std::nullopt;
  }
  return leaves->front();
}

std::string Spelled(const std::optional<CharVarcharLeaf>& leaf) {
  if (!leaf) return "STRING";
  return fmt::format("{}({})", leaf->is_char ? "CHAR" : "VARCHAR", leaf->length);
}

// A type change to or from CHAR/VARCHAR (ChangeColumnSpec::char_varchar_type): only
// the field metadata changes, the data stays `string`. nullopt when the change involves
// no simple CHAR/VARCHAR and ChangeType decides.
Result<std::optional<SchemaRef>> ChangeCharVarchar(const SchemaRef& schema,
                                                   const ResolvedPath& resolved,
                                                   const ChangeColumnSpec& spec,
                                                   const AlterContext& context,
                                                   SchemaAlteration* out) {
  const bool top_level = resolved.path.size() == 1;
  const std::optional<std::string> old_raw =
      top_level ? resolved.field.metadata.GetString(kCharVarcharTypeKey) : std::nullopt;
  const std::optional<std::string>& new_raw = spec.char_varchar_type;
  if (!old_raw && !new_raw) return std::optional<SchemaRef>();
  const std::string shown = FormatColumnPath(resolved.path);
  const std::optional<CharVarcharLeaf> from = SimpleCharVarchar(old_raw);
  const std::optional<CharVarcharLeaf> to = SimpleCharVarchar(new_raw);
  auto refuse = [&](std::string_view from_text, std::string_view why) {
    return MakeError(ErrorCode::kSchemaMismatch,
                     "NOT_SUPPORTED_CHANGE_COLUMN: cannot change column '{}' of table "
                     "'{}' from {} to {}: {}",
                     shown, context.table_name, from_text, Spelled(to), why);
  };
  if (new_raw && !top_level) {
    return refuse(resolved.type->ToString(),
                  "CHAR/VARCHAR can only be declared on a top-level column (or with "
                  "ADD COLUMNS for a new nested field)");
  }
  // Nested raw types (struct<x:varchar(2)>) and non-string targets: ChangeType refuses.
  if ((old_raw && !from) || (new_raw && !to) ||
      resolved.type->kind() != TypeKind::kString ||
      (*spec.type)->kind() != TypeKind::kString) {
    return std::optional<SchemaRef>();
  }
  if (to) {
    if (!from) {
      return refuse("STRING",
                    "existing values may be longer; a STRING column cannot gain a length "
                    "limit");
    }
    if (from->is_char && to->is_char && from->length != to->length) {
      return refuse(Spelled(from), "a CHAR column's length cannot change (use VARCHAR)");
    }
    if (!from->is_char && to->is_char) {
      return refuse(Spelled(from), "a VARCHAR column cannot become CHAR");
    }
    if (to->length < from->length) {
      return refuse(Spelled(from),
                    "that is a narrowing change; existing values may "
                    "not fit");
    }
    if (from->is_char == to->is_char && from->length == to->length) return schema;
  }
  DELTA_ASSIGN_OR_RETURN(
      auto updated,
      EditFieldAt(*schema, resolved.path, [&](StructField f) -> Result<StructField> {
        f.metadata = to ? f.metadata.With(kCharVarcharTypeKey, JsonQuote(*new_raw))
                        : f.metadata.Without(kCharVarcharTypeKey);
        return f;
      }));
  out->changes.push_back(fmt::format("changed the type of column '{}' from {} to {}",
                                     shown, *old_raw, to ? *new_raw : "string"));
  return std::optional<SchemaRef>(std::move(updated));
}

Result<SchemaRef> ChangeNullability(const SchemaRef& schema, const ResolvedPath& resolved,
                                    bool nullable, const AlterContext& context,
                                    SchemaAlteration* out) {
  const std::string shown = FormatColumnPath(resolved.path);
  const bool is_field = resolved.last_field == static_cast<int>(resolved.path.size()) - 1;
  if (!is_field) {
    // Array element / map key / map value: Spark refuses any change of their nullability.
    DELTA_ASSIGN_OR_RETURN(
        auto parent,
        ResolveColumnPath(*schema, Prefix(resolved.path, resolved.path.size() - 1),
                          context.table_name));
    const DataType& parent_type = *parent.type;
    bool current = true;
    const std::string& last = resolved.path.back();
    if (parent_type.kind() == TypeKind::kArray) {
      current = static_cast<const ArrayType&>(parent_type).contains_null();
    } else if (last == "key") {
      current = false;
    } else if (parent_type.kind() == TypeKind::kMap) {
      current = static_cast<const MapType&>(parent_type).value_contains_null();
    }
    if (current == nullable) return schema;
    return MakeError(ErrorCode::kInvalidArgument,
                     "DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP: cannot {} NOT NULL on "
                     "'{}' of table '{}': the nullability of array elements and map "
                     "keys/values cannot change",
                     nullable ? "drop" : "set", shown, context.table_name);
  }
  if (resolved.field.nullable == nullable) return schema;
  if (!nullable && resolved.inside_collection) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "DELTA_NESTED_NOT_NULL_CONSTRAINT: cannot set NOT NULL on '{}' of "
                     "table '{}': Delta does not support NOT NULL constraints nested "
                     "within arrays or maps",
                     shown, context.table_name);
  }
  DELTA_ASSIGN_OR_RETURN(
      auto updated,
      EditFieldAt(*schema, resolved.path, [&](StructField f) -> Result<StructField> {
        f.nullable = nullable;
        return f;
      }));
  if (!nullable) out->tightened_nullability = true;
  out->changes.push_back(
      fmt::format("{} NOT NULL on column '{}'", nullable ? "dropped" : "set", shown));
  return updated;
}

Result<SchemaRef> ChangeComment(const SchemaRef& schema, const ResolvedPath& resolved,
                                const std::string& comment, const AlterContext& context,
                                SchemaAlteration* out) {
  DELTA_RETURN_IF_ERROR(RequireField(resolved, "comment", context));
  if (resolved.field.comment() == comment) return schema;
  DELTA_ASSIGN_OR_RETURN(
      auto updated,
      EditFieldAt(*schema, resolved.path, [&](StructField f) -> Result<StructField> {
        f.metadata = f.metadata.With(kCommentKey, JsonQuote(comment));
        return f;
      }));
  out->changes.push_back(fmt::format("set the comment of column '{}' to '{}'",
                                     FormatColumnPath(resolved.path), comment));
  return updated;
}

Result<SchemaRef> ChangePosition(const SchemaRef& schema, const ResolvedPath& resolved,
                                 const ColumnPosition& position,
                                 const AlterContext& context, SchemaAlteration* out) {
  DELTA_RETURN_IF_ERROR(RequireField(resolved, "move", context));
  const Path parent = Prefix(resolved.path, resolved.path.size() - 1);
  DELTA_ASSIGN_OR_RETURN(
      auto updated, EditStructAt(*schema, parent,
                                 [&](const std::vector<StructField>& fields)
                                     -> Result<std::vector<StructField>> {
                                   int i = FindFieldIndex(fields, resolved.path.back());
                                   return internal::MoveField(
                                       fields, static_cast<size_t>(i), position, parent,
                                       context.table_name);
                                 }));
  if (!updated->Equals(*schema)) {
    out->changes.push_back(fmt::format("moved column '{}'{}",
                                       FormatColumnPath(resolved.path),
                                       PositionText(position, parent)));
  }
  return updated;
}

}  // namespace

Result<SchemaAlteration> ChangeColumnInSchema(const StructType& schema,
                                              const std::vector<std::string>& column,
                                              const ChangeColumnSpec& spec,
                                              const AlterContext& context) {
  SchemaAlteration out;
  SchemaRef current = std::make_shared<StructType>(schema.fields());
  DELTA_ASSIGN_OR_RETURN(auto resolved,
                         ResolveColumnPath(*current, column, context.table_name));
  if (!spec.type && !spec.nullable && !spec.comment && !spec.position) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "ALTER COLUMN '{}' of table '{}': nothing to change",
                     FormatColumnPath(resolved.path), context.table_name);
  }
  auto reresolve = [&]() -> Status {
    DELTA_ASSIGN_OR_RETURN(
        resolved, ResolveColumnPath(*current, resolved.path, context.table_name));
    return OkStatus();
  };
  if (spec.type) {
    if (!*spec.type) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "ALTER COLUMN '{}' of table '{}': missing type",
                       FormatColumnPath(resolved.path), context.table_name);
    }
    DELTA_ASSIGN_OR_RETURN(auto char_varchar,
                           ChangeCharVarchar(current, resolved, spec, context, &out));
    if (char_varchar) {
      current = std::move(*char_varchar);
    } else {
      DELTA_ASSIGN_OR_RETURN(current,
                             ChangeType(current, resolved, *spec.type, context, &out));
    }
    DELTA_RETURN_IF_ERROR(reresolve());
  }
  if (spec.nullable) {
    DELTA_ASSIGN_OR_RETURN(
        current, ChangeNullability(current, resolved, *spec.nullable, context, &out));
    DELTA_RETURN_IF_ERROR(reresolve());
  }
  if (spec.comment) {
    DELTA_ASSIGN_OR_RETURN(
        current, ChangeComment(current, resolved, *spec.comment, context, &out));
    DELTA_RETURN_IF_ERROR(reresolve());
  }
  if (spec.position) {
    DELTA_ASSIGN_OR_RETURN(
        current, ChangePosition(current, resolved, *spec.position, context, &out));
    DELTA_RETURN_IF_ERROR(reresolve());
  }
  out.columns.push_back(resolved.path);
  out.field = resolved.field;
  out.field_path = Prefix(resolved.path, static_cast<size_t>(resolved.last_field) + 1);
  out.schema = std::move(current);
  return out;
}

}  // namespace deltaguard
