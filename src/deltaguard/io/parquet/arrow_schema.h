/// \file deltaguard/io/parquet/arrow_schema.h
/// Delta schema -> Arrow schema, in the logical view (display names, what readers
/// return) or the physical view (what Parquet files hold under column mapping).
#pragma once

#include <arrow/type.h>

#include <memory>

#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// Arrow field metadata key under which parquet::arrow exposes Parquet field ids.
inline constexpr char kParquetFieldIdKey[] = "PARQUET:field_id";

enum class ArrowSchemaView : uint8_t {
  kLogical,   ///< display names; column comments as field metadata "comment"
  kPhysical,  ///< `delta.columnMapping.physicalName` names (PROTOCOL.md "Column Mapping")
              ///< and `delta.columnMapping.id` as "PARQUET:field_id" metadata
};

/// Type mapping: byte->int8, short->int16, integer->int32, long->int64, float->float32,
/// double->float64, decimal(p,s)->decimal128(p,s), string->utf8, binary->binary,
/// boolean->bool, date->date32, timestamp->timestamp(us, "UTC"),
/// timestamp_ntz->timestamp(us), void->null, struct->struct, array->list<element>,
/// map->map<key, value> (keys non-null), variant->struct<metadata: binary, value: binary>
/// (its unshredded Parquet layout). Nullability follows the Delta flags.
Result<std::shared_ptr<arrow::DataType>> ToArrowType(
    const DataType& type, ArrowSchemaView view = ArrowSchemaView::kLogical);

/// One field. In the physical view a field without a physical name keeps its display
/// name and a field without a column id gets no field-id metadata.
Result<std::shared_ptr<arrow::Field>> ToArrowField(
    const StructField& field, ArrowSchemaView view = ArrowSchemaView::kLogical);

Result<std::shared_ptr<arrow::Schema>> ToArrowSchema(
    const StructType& schema, ArrowSchemaView view = ArrowSchemaView::kLogical);

}  // namespace deltaguard
