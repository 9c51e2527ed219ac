/// \file deltaguard/schema/schema_json.h
/// Delta schema JSON (metaData.schemaString, PROTOCOL.md "Schema Serialization Format")
/// to and from the type model. Serialization emits Spark's exact form (key order name,
/// type, nullable, metadata; no spaces), so a Spark-written schema round-trips
/// byte-for-byte.
#pragma once

#include <string>
#include <string_view>

#include "deltaguard/schema/data_type.h"

namespace deltaguard {

/// Parse a schemaString. Errors (kParseError) name the JSON position or the field path.
/// Validates: unique field names (case-insensitively) at each level, decimal bounds,
/// known type names.
Result<SchemaRef> ParseSchemaJson(std::string_view json);

/// Parse one data type in JSON form (a string like "long" or an object).
Result<DataTypeRef> ParseDataTypeJson(std::string_view json);

std::string SchemaToJson(const StructType& schema);
std::string DataTypeToJson(const DataType& type);

}  // namespace deltaguard
