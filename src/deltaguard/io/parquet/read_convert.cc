#include "deltaguard/io/parquet/read_convert.h"

#include <arrow/array/util.h>
#include <arrow/compute/cast.h>
#include <arrow/extension_type.h>
#include <arrow/util/key_value_metadata.h>
#include <fmt/format.h>

#include <charconv>
#include <string>
#include <vector>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

using arrow::Type;

bool IsSmallInt(Type::type t) {
  return t == Type::INT8 || t == Type::INT16 || t == Type::INT32 || t == Type::UINT8 ||
         t == Type::UINT16;
}

bool IsStringLike(Type::type t) {
  return t == Type::STRING || t == Type::LARGE_STRING || t == Type::STRING_VIEW;
}

bool IsBinaryLike(Type::type t) {
  return t == Type::BINARY || t == Type::LARGE_BINARY || t == Type::BINARY_VIEW ||
         t == Type::FIXED_SIZE_BINARY;
}

// Whether a file column of primitive Arrow type `src` may be read as Delta type `dst`.
bool CanConvertPrimitive(Type::type src, TypeKind dst) {
  switch (dst) {
    case TypeKind::kByte:
    case TypeKind::kShort:
    case TypeKind::kInteger:
      return IsSmallInt(src);
    case TypeKind::kLong:
      return arrow::is_integer(src);
    case TypeKind::kFloat:
      return src == Type::FLOAT || src == Type::HALF_FLOAT;
    case TypeKind::kDouble:
      return src == Type::DOUBLE || src == Type::FLOAT || src == Type::HALF_FLOAT ||
             IsSmallInt(src);
    case TypeKind::kDecimal:
      return arrow::is_decimal(src) || arrow::is_integer(src);
    case TypeKind::kString:
      return IsStringLike(src) || IsBinaryLike(src);
    case TypeKind::kBinary:
      return IsStringLike(src) || IsBinaryLike(src);
    case TypeKind::kBoolean:
      return src == Type::BOOL;
    case TypeKind::kDate:
      return src == Type::DATE32 || src == Type::DATE64;
    case TypeKind::kTimestamp:
      return src == Type::TIMESTAMP;
    case TypeKind::kTimestampNtz:
      return src == Type::TIMESTAMP || src == Type::DATE32 || src == Type::DATE64;
    default:
      return false;
  }
}

Error Mismatch(std::string_view column, const arrow::DataType& file_type,
               const DataType& table_type) {
  return MakeError(ErrorCode::kSchemaMismatch,
                   "column '{}': the data file has type {}, which cannot be read as the "
                   "table type {}",
                   column, file_type.ToString(), table_type.ToString());
}

std::string ConvertContext(std::string_view column) {
  return fmt::format("column '{}'", column);
}

// Cast for the primitive conversions CanConvertPrimitive accepted. Integer/decimal
// overflow and invalid UTF-8 fail; sub-microsecond timestamp digits are truncated, as
// Spark does when it reads nanosecond files.
Result<std::shared_ptr<arrow::Array>> CastPrimitive(
    const std::shared_ptr<arrow::Array>& a, const std::shared_ptr<arrow::DataType>& to,
    std::string_view column) {
  if (a->type()->Equals(*to)) return a;
  arrow::compute::CastOptions options = arrow::compute::CastOptions::Safe(to);
  options.allow_time_truncate = true;
  DELTA_ARROW_ASSIGN_OR_RETURN(auto out, arrow::compute::Cast(*a, to, options),
                               ErrorCode::kCorruptData, ConvertContext(column));
  return out;
}

// Dictionary arrays decode to their values; extension arrays expose their storage.
Result<std::shared_ptr<arrow::Array>> Unwrap(std::shared_ptr<arrow::Array> a,
                                             std::string_view column) {
  while (true) {
    if (a->type_id() == Type::EXTENSION) {
      a = static_cast<const arrow::ExtensionArray&>(*a).storage();
      continue;
    }
    if (a->type_id() == Type::DICTIONARY) {
      const auto& dict_type = static_cast<const arrow::DictionaryType&>(*a->type());
      DELTA_ARROW_ASSIGN_OR_RETURN(
          a,
          arrow::compute::Cast(*a, dict_type.value_type(), arrow::compute::CastOptions()),
          ErrorCode::kCorruptData, ConvertContext(column));
      continue;
    }
    return a;
  }
}

Result<std::shared_ptr<arrow::ArrayData>> ConvertData(
    const std::shared_ptr<arrow::Array>& in, const DataType& type, ColumnMappingMode mode,
    std::string_view column);

Result<std::shared_ptr<arrow::ArrayData>> NullData(const DataType& type, int64_t length) {
  DELTA_ASSIGN_OR_RETURN(auto arrow_type, ToArrowType(type));
  auto nulls = arrow::MakeArrayOfNull(arrow_type, length);
  if (!nulls.ok()) {
    return internal::FromArrowStatus(nulls.status(), ErrorCode::kInternal, "null column");
  }
  return (*nulls)->data();
}

// Struct: keep the file's validity buffer and offset; children are converted at their
// full length so that they stay aligned with the parent offset.
Result<std::shared_ptr<arrow::ArrayData>> ConvertStruct(
    const std::shared_ptr<arrow::Array>& in, const StructType& type,
    ColumnMappingMode mode, std::string_view column) {
  if (in->type_id() != Type::STRUCT) return Mismatch(column, *in->type(), type);
  const auto& data = in->data();
  const auto& file_fields = in->type()->fields();
  DELTA_ASSIGN_OR_RETURN(auto out_type, ToArrowType(type));
  std::vector<std::shared_ptr<arrow::ArrayData>> children;
  children.reserve(type.num_fields());
  for (const StructField& field : type.fields()) {
    std::string child_column = fmt::format("{}.{}", column, field.name);
    int idx = FindFileField(file_fields, field, mode);
    if (idx < 0) {
      DELTA_ASSIGN_OR_RETURN(auto nulls,
                             NullData(*field.type, data->offset + data->length));
      children.push_back(std::move(nulls));
      continue;
    }
    DELTA_ASSIGN_OR_RETURN(
        auto child, ConvertData(arrow::MakeArray(data->child_data[idx]), *field.type,
                                mode, child_column));
    children.push_back(std::move(child));
  }
  auto out = arrow::ArrayData::Make(out_type, data->length, {data->buffers[0]},
                                    data->null_count, data->offset);
  out->child_data = std::move(children);
  return out;
}

Result<std::shared_ptr<arrow::ArrayData>> ConvertList(std::shared_ptr<arrow::Array> in,
                                                      const ArrayType& type,
                                                      ColumnMappingMode mode,
                                                      std::string_view column) {
  if (in->type_id() == Type::LARGE_LIST) {
    // Rare (files written from Arrow large_list); normalise to 32-bit offsets.
    const auto& lt = static_cast<const arrow::LargeListType&>(*in->type());
    DELTA_ARROW_ASSIGN_OR_RETURN(
        in,
        arrow::compute::Cast(*in, arrow::list(lt.value_field()),
                             arrow::compute::CastOptions::Safe()),
        ErrorCode::kCorruptData, ConvertContext(column));
  }
  if (in->type_id() != Type::LIST) return Mismatch(column, *in->type(), type);
  const auto& data = in->data();
  DELTA_ASSIGN_OR_RETURN(auto out_type, ToArrowType(type));
  DELTA_ASSIGN_OR_RETURN(auto values, ConvertData(arrow::MakeArray(data->child_data[0]),
                                                  *type.element_type(), mode,
                                                  fmt::format("{}.element", column)));
  auto out =
      arrow::ArrayData::Make(out_type, data->length, {data->buffers[0], data->buffers[1]},
                             data->null_count, data->offset);
  out->child_data = {std::move(values)};
  return out;
}

Result<std::shared_ptr<arrow::ArrayData>> ConvertMap(
    const std::shared_ptr<arrow::Array>& in, const MapType& type, ColumnMappingMode mode,
    std::string_view column) {
  if (in->type_id() != Type::MAP) return Mismatch(column, *in->type(), type);
  const auto& data = in->data();
  const auto& entries = data->child_data[0];
  DELTA_ASSIGN_OR_RETURN(auto out_type, ToArrowType(type));
  const auto& map_type = static_cast<const arrow::MapType&>(*out_type);
  DELTA_ASSIGN_OR_RETURN(
      auto keys, ConvertData(arrow::MakeArray(entries->child_data[0]), *type.key_type(),
                             mode, fmt::format("{}.key", column)));
  DELTA_ASSIGN_OR_RETURN(
      auto items, ConvertData(arrow::MakeArray(entries->child_data[1]),
                              *type.value_type(), mode, fmt::format("{}.value", column)));
  auto out_entries =
      arrow::ArrayData::Make(map_type.value_type(), entries->length,
                             {entries->buffers[0]}, entries->null_count, entries->offset);
  out_entries->child_data = {std::move(keys), std::move(items)};
  auto out =
      arrow::ArrayData::Make(out_type, data->length, {data->buffers[0], data->buffers[1]},
                             data->null_count, data->offset);
  out->child_data = {std::move(out_entries)};
  return out;
}

Result<std::shared_ptr<arrow::ArrayData>> ConvertData(
    const std::shared_ptr<arrow::Array>& raw, const DataType& type,
    ColumnMappingMode mode, std::string_view column) {
  DELTA_ASSIGN_OR_RETURN(auto in, Unwrap(raw, column));
  switch (type.kind()) {
    case TypeKind::kStruct:
      return ConvertStruct(in, static_cast<const StructType&>(type), mode, column);
    case TypeKind::kArray:
      return ConvertList(in, static_cast<const ArrayType&>(type), mode, column);
    case TypeKind::kMap:
      return ConvertMap(in, static_cast<const MapType&>(type), mode, column);
    case TypeKind::kVoid:
      return NullData(type, in->length());
    case TypeKind::kVariant:
      return MakeError(ErrorCode::kUnsupportedFeature,
                       "scanning variant column '{}' is not supported yet", column);
    default:
      break;
  }
  if (!CanConvertPrimitive(in->type_id(), type.kind())) {
    return Mismatch(column, *in->type(), type);
  }
  DELTA_ASSIGN_OR_RETURN(auto to, ToArrowType(type));
  DELTA_ASSIGN_OR_RETURN(auto out, CastPrimitive(in, to, column));
  return out->data();
}

}  // namespace

int64_t ParquetFieldId(const arrow::Field& field) {
  const auto& md = field.metadata();
  if (md == nullptr) return -1;
  int idx = md->FindKey(kParquetFieldIdKey);
  if (idx < 0) return -1;
  const std::string& text = md->value(idx);
  int64_t id = -1;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || ptr != text.data() + text.size()) return -1;
  return id;
}

int FindFileField(const arrow::FieldVector& file_fields, const StructField& table_field,
                  ColumnMappingMode mode) {
  auto by_name = [&](std::string_view name, bool case_insensitive) {
    for (size_t i = 0; i < file_fields.size(); ++i) {
      if (file_fields[i]->name() == name) return static_cast<int>(i);
    }
    if (case_insensitive) {
      for (size_t i = 0; i < file_fields.size(); ++i) {
        if (EqualsIgnoreCase(file_fields[i]->name(), name)) return static_cast<int>(i);
      }
    }
    return -1;
  };
  switch (mode) {
    case ColumnMappingMode::kNone:
      return by_name(table_field.name, true);
    case ColumnMappingMode::kName:
      return by_name(table_field.physical_name().value_or(table_field.name), false);
    case ColumnMappingMode::kId: {
      bool file_has_ids = false;
      auto id = table_field.column_mapping_id();
      for (size_t i = 0; i < file_fields.size(); ++i) {
        int64_t file_id = ParquetFieldId(*file_fields[i]);
        if (file_id >= 0) file_has_ids = true;
        if (id && file_id == *id) return static_cast<int>(i);
      }
      if (file_has_ids) return -1;
      return by_name(table_field.physical_name().value_or(table_field.name), false);
    }
  }
  return -1;
}

Result<std::shared_ptr<arrow::Array>> ConvertArray(
    const std::shared_ptr<arrow::Array>& file_array, const DataType& table_type,
    ColumnMappingMode mode, std::string_view column) {
  DELTA_ASSIGN_OR_RETURN(auto data, ConvertData(file_array, table_type, mode, column));
  return arrow::MakeArray(data);
}

}  // namespace deltaguard
