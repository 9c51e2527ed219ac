#include "deltaguard/evolution/write_schema.h"

#include <memory>
#include <utility>

#include "deltaguard/evolution/schema_format.h"
#include "deltaguard/evolution/type_changes.h"
#include "deltaguard/evolution/type_rules.h"
#include "deltaguard/schema/column_path.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

std::string QuotedList(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ", ";
    out += "'" + names[i] + "'";
  }
  return out;
}

// Strips the metadata that identifies a column of another table (column mapping) or its
// type history; a new field starts without either.
FieldMetadata NewFieldMetadata(const FieldMetadata& md) {
  return md.Without(kColumnMappingIdKey)
      .Without(kColumnMappingPhysicalNameKey)
      .Without(kTypeChangesKey);
}

// MakeNullable, optionally also cleaning the metadata of every struct field.
DataTypeRef Nullable(const DataTypeRef& type, bool clean_metadata) {
  switch (type->kind()) {
    case TypeKind::kStruct: {
      const auto& s = static_cast<const StructType&>(*type);
      std::vector<StructField> fields;
      bool changed = false;
      for (const StructField& f : s.fields()) {
        StructField nf = f;
        nf.type = Nullable(f.type, clean_metadata);
        nf.nullable = true;
        if (clean_metadata) nf.metadata = NewFieldMetadata(f.metadata);
        changed =
            changed || nf.type != f.type || !f.nullable || nf.metadata != f.metadata;
        fields.push_back(std::move(nf));
      }
      if (!changed) return type;
      return std::make_shared<StructType>(std::move(fields));
    }
    case TypeKind::kArray: {
      const auto& a = static_cast<const ArrayType&>(*type);
      DataTypeRef elem = Nullable(a.element_type(), clean_metadata);
      if (elem == a.element_type() && a.contains_null()) return type;
      return std::make_shared<ArrayType>(std::move(elem), true);
    }
    case TypeKind::kMap: {
      const auto& m = static_cast<const MapType&>(*type);
      DataTypeRef key = Nullable(m.key_type(), clean_metadata);
      DataTypeRef value = Nullable(m.value_type(), clean_metadata);
      if (key == m.key_type() && value == m.value_type() && m.value_contains_null()) {
        return type;
      }
      return std::make_shared<MapType>(std::move(key), std::move(value), true);
    }
    default:
      return type;
  }
}

// Appends the paths of every void type inside `type` (including `type` itself).
void FindVoids(const DataType& type, const std::string& path,
               std::vector<std::string>* out) {
  switch (type.kind()) {
    case TypeKind::kVoid:
      out->push_back(path);
      break;
    case TypeKind::kStruct:
      for (const StructField& f : static_cast<const StructType&>(type).fields()) {
        FindVoids(*f.type, FormatChildColumnPath(path, f.name), out);
      }
      break;
    case TypeKind::kArray:
      FindVoids(*static_cast<const ArrayType&>(type).element_type(),
                ChildColumnPath(path, "element"), out);
      break;
    case TypeKind::kMap: {
      const auto& m = static_cast<const MapType&>(type);
      FindVoids(*m.key_type(), ChildColumnPath(path, "key"), out);
      FindVoids(*m.value_type(), ChildColumnPath(path, "value"), out);
      break;
    }
    default:
      break;
  }
}

// Names equal case-insensitively at any struct level of `type` (rule 1).
Status CheckNoDuplicates(const DataType& type, const std::string& path,
                         std::string_view table_name) {
  switch (type.kind()) {
    case TypeKind::kStruct: {
      const auto& s = static_cast<const StructType&>(type);
      if (auto dup = FindDuplicateFieldName(s.fields())) {
        return MakeError(
            ErrorCode::kSchemaMismatch,
            "DELTA_DUPLICATE_COLUMNS_FOUND: Found duplicate column(s) in the "
            "data written to table '{}': '{}' and '{}' differ only by case "
            "(column names are case-insensitive)",
            table_name, FormatChildColumnPath(path, s.field(dup->first).name),
            FormatChildColumnPath(path, s.field(dup->second).name));
      }
      for (const StructField& f : s.fields()) {
        DELTA_RETURN_IF_ERROR(
            CheckNoDuplicates(*f.type, FormatChildColumnPath(path, f.name), table_name));
      }
      return OkStatus();
    }
    case TypeKind::kArray:
      return CheckNoDuplicates(*static_cast<const ArrayType&>(type).element_type(),
                               ChildColumnPath(path, "element"), table_name);
    case TypeKind::kMap: {
      const auto& m = static_cast<const MapType&>(type);
      DELTA_RETURN_IF_ERROR(
          CheckNoDuplicates(*m.key_type(), ChildColumnPath(path, "key"), table_name));
      return CheckNoDuplicates(*m.value_type(), ChildColumnPath(path, "value"),
                               table_name);
    }
    default:
      return OkStatus();
  }
}

// A widening found below a struct field, to be recorded on that field (§4.2).
struct PendingTypeChange {
  DataTypeRef from;
  DataTypeRef to;
  std::string field_path;  // "", "element", "value.element", ...
};

class Resolver {
 public:
  Resolver(const StructType& table, const StructType& input,
           const WriteSchemaOptions& options, std::string_view table_name,
           WriteSchemaResolution* out)
      : table_(table), input_(input), options_(options), name_(table_name), out_(out) {}

  // The merged struct, or `table_ref` itself when nothing changes.
  Result<DataTypeRef> MergeStruct(const DataTypeRef& table_ref, const StructType& input,
                                  const std::string& table_prefix,
                                  const std::string& input_prefix);

  const std::vector<std::string>& new_columns() const { return new_columns_; }

  std::string Comparison() const { return FormatSchemaComparison(table_, input_); }

  std::string MergeHint() const {
    if (options_.option_hint.empty()) return "the mergeSchema option";
    return options_.option_hint + " (the mergeSchema option)";
  }

 private:
  Result<DataTypeRef> MergeType(const DataTypeRef& table, const DataTypeRef& input,
                                const std::string& table_path,
                                const std::string& input_path,
                                const std::string& field_path,
                                std::vector<PendingTypeChange>* changes);
  Error TypeMismatch(const DataType& table, const DataType& input,
                     const std::string& table_path, const std::string& input_path) const;
  Result<StructField> NewField(const StructField& input, const std::string& path) const;

  const StructType& table_;
  const StructType& input_;
  const WriteSchemaOptions& options_;
  std::string_view name_;
  WriteSchemaResolution* out_;
  std::vector<std::string> new_columns_;
};

Result<DataTypeRef> Resolver::MergeStruct(const DataTypeRef& table_ref,
                                          const StructType& input,
                                          const std::string& table_prefix,
                                          const std::string& input_prefix) {
  const auto& table = static_cast<const StructType&>(*table_ref);
  std::vector<StructField> fields;
  fields.reserve(table.num_fields());
  bool changed = false;
  std::vector<bool> matched(input.num_fields(), false);
  for (const StructField& f : table.fields()) {
    const std::string path = FormatChildColumnPath(table_prefix, f.name);
    const int j = input.FieldIndexCaseInsensitive(f.name);
    if (j < 0) {
      out_->missing_columns.push_back(path);
      if (!f.nullable) {
        Error error =
            MakeError(ErrorCode::kConstraintViolation,
                      "DELTA_MISSING_NOT_NULL_COLUMN_VALUE: column '{}' is NOT NULL in "
                      "table '{}' but missing from the input\n{}",
                      path, name_, Comparison());
        error.details = {{"constraint", "NOT NULL"},
                         {"column", path},
                         {"expression", path + " IS NOT NULL"}};
        return error;
      }
      fields.push_back(f);
      continue;
    }
    matched[static_cast<size_t>(j)] = true;
    const StructField& u = input.field(static_cast<size_t>(j));
    std::vector<PendingTypeChange> changes;
    DELTA_ASSIGN_OR_RETURN(
        DataTypeRef merged,
        MergeType(f.type, u.type, path, FormatChildColumnPath(input_prefix, u.name), "",
                  &changes));
    if (merged == f.type) {
      fields.push_back(f);
      continue;
    }
    StructField nf = f;
    nf.type = std::move(merged);
    for (const PendingTypeChange& c : changes) {
      DELTA_ASSIGN_OR_RETURN(
          nf.metadata, AppendTypeChange(nf.metadata, *c.from, *c.to, c.field_path, path));
    }
    fields.push_back(std::move(nf));
    changed = true;
  }
  for (size_t j = 0; j < input.num_fields(); ++j) {
    if (matched[j]) continue;
    const StructField& u = input.field(j);
    const std::string path = FormatChildColumnPath(table_prefix, u.name);
    new_columns_.push_back(path);
    if (!options_.merge_schema) continue;
    DELTA_ASSIGN_OR_RETURN(StructField nf, NewField(u, path));
    fields.push_back(std::move(nf));
    out_->added_columns.push_back(path);
    changed = true;
  }
  if (!changed) return table_ref;
  return DataTypeRef(std::make_shared<StructType>(std::move(fields)));
}

Result<DataTypeRef> Resolver::MergeType(const DataTypeRef& table,
                                        const DataTypeRef& input,
                                        const std::string& table_path,
                                        const std::string& input_path,
                                        const std::string& field_path,
                                        std::vector<PendingTypeChange>* changes) {
  // Rule 5: a column of nulls fits any table type.
  if (input->kind() == TypeKind::kVoid) return table;
  const TypeKind tk = table->kind();
  if (tk == TypeKind::kStruct && input->kind() == TypeKind::kStruct) {
    return MergeStruct(table, static_cast<const StructType&>(*input), table_path,
                       input_path);
  }
  if (tk == TypeKind::kArray && input->kind() == TypeKind::kArray) {
    const auto& ta = static_cast<const ArrayType&>(*table);
    const auto& ia = static_cast<const ArrayType&>(*input);
    DELTA_ASSIGN_OR_RETURN(DataTypeRef elem,
                           MergeType(ta.element_type(), ia.element_type(),
                                     table_path + ".element", input_path + ".element",
                                     ChildColumnPath(field_path, "element"), changes));
    if (elem == ta.element_type()) return table;
    return DataTypeRef(std::make_shared<ArrayType>(std::move(elem), ta.contains_null()));
  }
  if (tk == TypeKind::kMap && input->kind() == TypeKind::kMap) {
    const auto& tm = static_cast<const MapType&>(*table);
    const auto& im = static_cast<const MapType&>(*input);
    DELTA_ASSIGN_OR_RETURN(
        DataTypeRef key,
        MergeType(tm.key_type(), im.key_type(), table_path + ".key", input_path + ".key",
                  ChildColumnPath(field_path, "key"), changes));
    DELTA_ASSIGN_OR_RETURN(
        DataTypeRef value,
        MergeType(tm.value_type(), im.value_type(), table_path + ".value",
                  input_path + ".value", ChildColumnPath(field_path, "value"), changes));
    if (key == tm.key_type() && value == tm.value_type()) return table;
    return DataTypeRef(std::make_shared<MapType>(std::move(key), std::move(value),
                                                 tm.value_contains_null()));
  }
  if (table->is_primitive() && input->is_primitive()) {
    if (IsLosslessWriteCast(*input, *table)) return table;
    if (options_.merge_schema && options_.allow_type_widening &&
        IsTypeWideningSupported(*table, *input)) {
      changes->push_back(PendingTypeChange{table, input, field_path});
      out_->widened_columns.push_back(
          fmt::format("{}: {} -> {}", table_path, table->ToString(), input->ToString()));
      return input;
    }
  }
  return TypeMismatch(*table, *input, table_path, input_path);
}

Error Resolver::TypeMismatch(const DataType& table, const DataType& input,
                             const std::string& table_path,
                             const std::string& input_path) const {
  const std::string t = table.ToString();
  const std::string i = input.ToString();
  std::string msg = fmt::format(
      "DELTA_FAILED_TO_MERGE_FIELDS: Failed to merge fields '{}' and '{}': column '{}' "
      "of "
      "table '{}' has type {} but the input has type {}.",
      table_path, input_path, table_path, name_, t, i);
  if (!table.is_primitive() || !input.is_primitive()) {
    if (table.kind() != input.kind()) {
      msg += fmt::format(" A {} cannot be written into a {} column.", input.TypeName(),
                         table.TypeName());
    }
  } else {
    if (options_.merge_schema) {
      msg += fmt::format(
          " DELTA_MERGE_INCOMPATIBLE_DATATYPE: Failed to merge incompatible "
          "data types {} and {}.",
          t, i);
    }
    msg += fmt::format(
        " Input values are cast to the table's type only when every value fits exactly "
        "(a lossless widening such as integer -> long); {} -> {} is not one. Cast the "
        "input column to {} first.",
        i, t, t);
    if (IsTypeWideningSupported(table, input)) {
      if (!options_.allow_type_widening) {
        msg += fmt::format(
            " To change the column's type to {} instead, enable type widening with ALTER "
            "TABLE {} SET TBLPROPERTIES ('delta.enableTypeWidening' = 'true') and write "
            "with schema evolution, using {}.",
            i, name_, MergeHint());
      } else if (!options_.merge_schema) {
        msg += fmt::format(
            " Type widening is enabled on the table: to change the column's type to {}, "
            "write with schema evolution, using {}.",
            i, MergeHint());
      }
    }
  }
  msg += "\n" + Comparison();
  return Error{ErrorCode::kSchemaMismatch, std::move(msg)};
}

Result<StructField> Resolver::NewField(const StructField& input,
                                       const std::string& path) const {
  std::vector<std::string> voids;
  FindVoids(*input.type, path, &voids);
  if (!voids.empty()) {
    return MakeError(
        ErrorCode::kSchemaMismatch,
        "cannot add column '{}' to table '{}': {} has no type (every value in "
        "the input is null). Cast it to a type in the input (e.g. CAST(NULL AS "
        "STRING)) or add the column to the table first (ALTER TABLE {} ADD "
        "COLUMNS)\n{}",
        path, name_, QuotedList(voids), name_, Comparison());
  }
  StructField out{input.name, Nullable(input.type, /*clean_metadata=*/true), true,
                  NewFieldMetadata(input.metadata)};
  return out;
}

}  // namespace

DataTypeRef MakeNullable(const DataTypeRef& type) {
  return Nullable(type, /*clean_metadata=*/false);
}

Result<WriteSchemaResolution> ResolveWriteSchema(const SchemaRef& table,
                                                 const StructType& input,
                                                 const WriteSchemaOptions& options,
                                                 std::string_view table_name) {
  DELTA_RETURN_IF_ERROR(CheckNoDuplicates(input, "", table_name));
  WriteSchemaResolution out;
  Resolver resolver(*table, input, options, table_name, &out);
  DELTA_ASSIGN_OR_RETURN(DataTypeRef merged, resolver.MergeStruct(table, input, "", ""));
  if (!options.merge_schema && !resolver.new_columns().empty()) {
    return MakeError(
        ErrorCode::kSchemaMismatch,
        "DELTA_METADATA_MISMATCH: A schema mismatch was detected when writing to table "
        "'{}': the input has {} that the table does not have: {}. Extra columns are "
        "refused so that no data is dropped silently; to add them to the table, enable "
        "schema evolution for this write with {}.\n{}",
        table_name, resolver.new_columns().size() == 1 ? "a column" : "columns",
        QuotedList(resolver.new_columns()), resolver.MergeHint(), resolver.Comparison());
  }
  out.changed = merged != table;
  out.table_schema =
      out.changed ? std::static_pointer_cast<const StructType>(merged) : table;
  return out;
}

Result<SchemaRef> SchemaForNewTable(const StructType& input,
                                    std::string_view table_name) {
  if (input.num_fields() == 0) {
    return MakeError(
        ErrorCode::kSchemaMismatch,
        "DELTA_EMPTY_DATA: cannot create table '{}' from data without columns",
        table_name);
  }
  DELTA_RETURN_IF_ERROR(CheckNoDuplicates(input, "", table_name));
  std::vector<std::string> voids;
  for (const StructField& f : input.fields())
    FindVoids(*f.type, QuoteColumnPathPart(f.name), &voids);
  if (!voids.empty()) {
    return MakeError(
        ErrorCode::kSchemaMismatch,
        "cannot create table '{}': {} {} no type (every value in the input is "
        "null). Cast {} to a type first (e.g. CAST(NULL AS STRING))",
        table_name, QuotedList(voids), voids.size() == 1 ? "has" : "have",
        voids.size() == 1 ? "it" : "them");
  }
  std::vector<StructField> fields;
  fields.reserve(input.num_fields());
  for (const StructField& f : input.fields()) {
    fields.push_back(StructField{f.name, Nullable(f.type, /*clean_metadata=*/true), true,
                                 NewFieldMetadata(f.metadata)});
  }
  return SchemaRef(std::make_shared<StructType>(std::move(fields)));
}

}  // namespace deltaguard
