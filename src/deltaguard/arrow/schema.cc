#include "deltaguard/arrow/schema.h"

#include <arrow/util/key_value_metadata.h>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "deltaguard/schema/column_path.h"
#include "deltaguard/util/depth_guard.h"

namespace deltaguard {

Result<std::shared_ptr<arrow::DataType>> ToArrowType(const DataType& type,
                                                     ArrowSchemaView view) {
  switch (type.kind()) {
    case TypeKind::kByte:
      return arrow::int8();
    case TypeKind::kShort:
      return arrow::int16();
    case TypeKind::kInteger:
      return arrow::int32();
    case TypeKind::kLong:
      return arrow::int64();
    case TypeKind::kFloat:
      return arrow::float32();
    case TypeKind::kDouble:
      return arrow::float64();
    case TypeKind::kString:
      return arrow::utf8();
    case TypeKind::kBinary:
      return arrow::binary();
    case TypeKind::kBoolean:
      return arrow::boolean();
    case TypeKind::kDate:
      return arrow::date32();
    case TypeKind::kTimestamp:
      return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
    case TypeKind::kTimestampNtz:
      return arrow::timestamp(arrow::TimeUnit::MICRO);
    case TypeKind::kVoid:
      return arrow::null();
    case TypeKind::kVariant:
      return arrow::struct_({arrow::field("metadata", arrow::binary(), false),
                             arrow::field("value", arrow::binary(), false)});
    case TypeKind::kDecimal: {
      const auto& dec = static_cast<const DecimalType&>(type);
      if (dec.precision() < 1 || dec.precision() > DecimalType::kMaxPrecision ||
          dec.scale() < 0 || dec.scale() > dec.precision()) {
        return MakeError(ErrorCode::kInvalidArgument, "invalid decimal type {}",
                         dec.TypeName());
      }
      return arrow::decimal128(dec.precision(), dec.scale());
    }
    case TypeKind::kStruct: {
      const auto& st = static_cast<const StructType&>(type);
      std::vector<std::shared_ptr<arrow::Field>> fields;
      fields.reserve(st.num_fields());
      for (const StructField& f : st.fields()) {
        DELTA_ASSIGN_OR_RETURN(auto af, ToArrowField(f, view));
        fields.push_back(std::move(af));
      }
      return arrow::struct_(std::move(fields));
    }
    case TypeKind::kArray: {
      const auto& at = static_cast<const ArrayType&>(type);
      DELTA_ASSIGN_OR_RETURN(auto element, ToArrowType(*at.element_type(), view));
      return arrow::list(arrow::field("element", std::move(element), at.contains_null()));
    }
    case TypeKind::kMap: {
      const auto& mt = static_cast<const MapType&>(type);
      DELTA_ASSIGN_OR_RETURN(auto key, ToArrowType(*mt.key_type(), view));
      DELTA_ASSIGN_OR_RETURN(auto value, ToArrowType(*mt.value_type(), view));
      return std::make_shared<arrow::MapType>(
          arrow::field("key", std::move(key), false),
          arrow::field("value", std::move(value), mt.value_contains_null()));
    }
  }
  return MakeError(ErrorCode::kInternal, "unhandled Delta type {}", type.ToString());
}

Result<std::shared_ptr<arrow::Field>> ToArrowField(const StructField& field,
                                                   ArrowSchemaView view) {
  DELTA_ASSIGN_OR_RETURN(auto type, ToArrowType(*field.type, view));
  std::string name = field.name;
  std::vector<std::string> keys;
  std::vector<std::string> values;
  if (view == ArrowSchemaView::kPhysical) {
    if (auto physical = field.physical_name()) name = *physical;
    if (auto id = field.column_mapping_id()) {
      keys.emplace_back(kParquetFieldIdKey);
      values.push_back(fmt::format("{}", *id));
    }
  } else if (auto comment = field.comment()) {
    keys.emplace_back("comment");
    values.push_back(*comment);
  }
  std::shared_ptr<const arrow::KeyValueMetadata> metadata;
  if (!keys.empty())
    metadata = arrow::key_value_metadata(std::move(keys), std::move(values));
  return arrow::field(std::move(name), std::move(type), field.nullable,
                      std::move(metadata));
}

Result<std::shared_ptr<arrow::Schema>> ToArrowSchema(const StructType& schema,
                                                     ArrowSchemaView view) {
  std::vector<std::shared_ptr<arrow::Field>> fields;
  fields.reserve(schema.num_fields());
  for (const StructField& f : schema.fields()) {
    DELTA_ASSIGN_OR_RETURN(auto af, ToArrowField(f, view));
    fields.push_back(std::move(af));
  }
  return arrow::schema(std::move(fields));
}

}  // namespace deltaguard

namespace deltaguard {

namespace {

Result<DataTypeRef> FromArrowTypeAt(const arrow::DataType& type, const std::string& path,
                                    int depth);

/// "column 'a.b': " or nothing for an anonymous type.
std::string ColumnPrefix(const std::string& path) {
  return path.empty() ? std::string() : fmt::format("column '{}': ", path);
}

Result<std::vector<StructField>> FromArrowFields(const arrow::FieldVector& fields,
                                                 const std::string& prefix, int depth) {
  std::vector<StructField> out;
  out.reserve(fields.size());
  for (const auto& f : fields) {
    DELTA_ASSIGN_OR_RETURN(
        auto type,
        FromArrowTypeAt(*f->type(), ChildColumnPath(prefix, f->name()), depth));
    out.push_back(StructField{f->name(), std::move(type), f->nullable(), {}});
  }
  return out;
}

Result<DataTypeRef> FromArrowDecimal(const arrow::DecimalType& dec,
                                     const std::string& path) {
  if (dec.precision() > DecimalType::kMaxPrecision || dec.scale() < 0) {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "{}Arrow type {} does not fit a Delta decimal (precision at most "
                     "{}, scale at least 0)",
                     ColumnPrefix(path), dec.ToString(), DecimalType::kMaxPrecision);
  }
  return DecimalType::Make(dec.precision(), dec.scale());
}

Result<DataTypeRef> FromArrowTypeAt(const arrow::DataType& type, const std::string& path,
                                    int depth) {
  if (depth > kMaxTypeDepth) {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "{}the type nests deeper than {} levels, the deepest Delta type "
                     "deltaguard reads or writes (docs/behaviour.md, Limits on nesting)",
                     ColumnPrefix(path), kMaxTypeDepth);
  }
  using arrow::Type;
  switch (type.id()) {
    case Type::INT8:
      return DataType::Byte();
    case Type::INT16:
    case Type::UINT8:
      return DataType::Short();
    case Type::INT32:
    case Type::UINT16:
      return DataType::Integer();
    case Type::INT64:
    case Type::UINT32:
    case Type::UINT64:
      return DataType::Long();
    case Type::HALF_FLOAT:
    case Type::FLOAT:
      return DataType::Float();
    case Type::DOUBLE:
      return DataType::Double();
    case Type::DECIMAL32:
    case Type::DECIMAL64:
    case Type::DECIMAL128:
    case Type::DECIMAL256:
      return FromArrowDecimal(static_cast<const arrow::DecimalType&>(type), path);
    case Type::STRING:
    case Type::LARGE_STRING:
    case Type::STRING_VIEW:
      return DataType::String();
    case Type::BINARY:
    case Type::LARGE_BINARY:
    case Type::FIXED_SIZE_BINARY:
    case Type::BINARY_VIEW:
      return DataType::Binary();
    case Type::BOOL:
      return DataType::Boolean();
    case Type::DATE32:
    case Type::DATE64:
      return DataType::Date();
    case Type::TIMESTAMP:
      return static_cast<const arrow::TimestampType&>(type).timezone().empty()
                 ? DataType::TimestampNtz()
                 : DataType::Timestamp();
    case Type::NA:
      return DataType::Void();
    case Type::LIST:
    case Type::LARGE_LIST:
    case Type::FIXED_SIZE_LIST:
    case Type::LIST_VIEW:
    case Type::LARGE_LIST_VIEW: {
      const auto& element = type.field(0);
      DELTA_ASSIGN_OR_RETURN(
          auto element_type,
          FromArrowTypeAt(*element->type(), ChildColumnPath(path, "element"), depth + 1));
      return std::make_shared<ArrayType>(std::move(element_type), element->nullable());
    }
    case Type::STRUCT: {
      DELTA_ASSIGN_OR_RETURN(auto fields,
                             FromArrowFields(type.fields(), path, depth + 1));
      return std::make_shared<StructType>(std::move(fields));
    }
    case Type::MAP: {
      const auto& map = static_cast<const arrow::MapType&>(type);
      DELTA_ASSIGN_OR_RETURN(
          auto key,
          FromArrowTypeAt(*map.key_type(), ChildColumnPath(path, "key"), depth + 1));
      DELTA_ASSIGN_OR_RETURN(
          auto value,
          FromArrowTypeAt(*map.item_type(), ChildColumnPath(path, "value"), depth + 1));
      return std::make_shared<MapType>(std::move(key), std::move(value),
                                       map.item_field()->nullable());
    }
    case Type::DICTIONARY:
      return FromArrowTypeAt(
          *static_cast<const arrow::DictionaryType&>(type).value_type(), path, depth);
    default:
      break;
  }
  return MakeError(ErrorCode::kUnsupportedFeature,
                   "{}Arrow type {} has no Delta equivalent", ColumnPrefix(path),
                   type.ToString());
}

}  // namespace

Result<DataTypeRef> FromArrowType(const arrow::DataType& type) {
  return FromArrowTypeAt(type, "", 0);
}

Result<SchemaRef> FromArrowSchema(const arrow::Schema& schema) {
  DELTA_ASSIGN_OR_RETURN(auto fields, FromArrowFields(schema.fields(), "", 0));
  return std::make_shared<const StructType>(std::move(fields));
}

namespace {

bool TypeRoundTrips(const DataType& type) {
  switch (type.kind()) {
    case TypeKind::kVariant:
      return false;
    case TypeKind::kStruct:
      return RoundTripsThroughArrow(static_cast<const StructType&>(type));
    case TypeKind::kArray:
      return TypeRoundTrips(*static_cast<const ArrayType&>(type).element_type());
    case TypeKind::kMap: {
      const auto& map = static_cast<const MapType&>(type);
      return TypeRoundTrips(*map.key_type()) && TypeRoundTrips(*map.value_type());
    }
    default:
      return true;
  }
}

}  // namespace

bool RoundTripsThroughArrow(const StructType& schema) {
  for (const StructField& field : schema.fields()) {
    if (!field.metadata.empty() || !TypeRoundTrips(*field.type)) return false;
  }
  return true;
}

std::shared_ptr<arrow::DataType> StringDictionaryType() {
  return arrow::dictionary(arrow::int32(), arrow::utf8());
}

bool IsStringDictionary(const arrow::DataType& type) {
  if (type.id() != arrow::Type::DICTIONARY) return false;
  const auto& dict = static_cast<const arrow::DictionaryType&>(type);
  return dict.index_type()->id() == arrow::Type::INT32 &&
         dict.value_type()->id() == arrow::Type::STRING;
}

}  // namespace deltaguard
