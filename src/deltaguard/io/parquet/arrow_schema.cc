#include "deltaguard/io/parquet/arrow_schema.h"

#include <arrow/util/key_value_metadata.h>
#include <fmt/format.h>

#include <string>
#include <vector>

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
