/// \file deltaguard/arrow/schema.h
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

/// dictionary<int32, utf8>: how a STRING column travels dictionary-encoded from a scan
/// to the writer (ScanOptions::dictionary_columns).
std::shared_ptr<arrow::DataType> StringDictionaryType();
bool IsStringDictionary(const arrow::DataType& type);

}  // namespace deltaguard

namespace deltaguard {

/// Arrow -> Delta, for input data of writes (the inverse direction of ToArrowType):
/// int8/16/32/64 -> byte/short/integer/long; uint8 -> short, uint16 -> integer,
/// uint32/uint64 -> long (uint64 values above the long range fail when cast);
/// float16/float32 -> float, float64 -> double; decimal32/64/128/256 with precision
/// <= 38 -> decimal; utf8/large_utf8/utf8_view -> string; binary/large_binary/
/// fixed_size_binary/binary_view -> binary; bool -> boolean; date32/date64 -> date;
/// timestamp with a time zone -> timestamp, without -> timestamp_ntz; null -> void;
/// list/large_list/fixed_size_list/list_view/large_list_view -> array (containsNull
/// from the element field); struct -> struct; map -> map; dictionary -> its value type.
/// Everything else (time, duration, interval, union, ...) is kUnsupportedFeature.
/// Field nullability is carried over; field metadata (Parquet field ids) is ignored.
Result<DataTypeRef> FromArrowType(const arrow::DataType& type);

/// The Delta schema of an Arrow schema; errors name the (dotted) column.
Result<SchemaRef> FromArrowSchema(const arrow::Schema& schema);

/// Whether FromArrowSchema(ToArrowSchema(schema)) gives `schema` back: true unless a
/// field at any depth has metadata (FromArrowSchema reads none back) or a type is
/// variant (it travels as its struct layout and comes back as that struct). A producer
/// that knows the Delta schema of its input passes it beside the Arrow one
/// (write/write_types.h BatchSource::delta_schema) when this holds, so the write sees
/// the schema it would have derived, without the round trip.
bool RoundTripsThroughArrow(const StructType& schema);

}  // namespace deltaguard
