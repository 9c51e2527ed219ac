/// \file deltaguard/evolution/type_changes.h
/// The `delta.typeChanges` field metadata that records every type widening of a column
/// (docs/spark_semantics.md §4.2, PROTOCOL.md "Type Widening"): a JSON array, in history
/// order, of
/// `{"toType":..,"fromType":..[,"fieldPath":..]}` on the nearest ancestor StructField.
#pragma once

#include <string>
#include <string_view>

#include "deltaguard/schema/data_type.h"

namespace deltaguard {

/// One `delta.typeChanges` entry as JSON text. Keys come in the order Spark writes them
/// (toType, fromType, fieldPath); types use their Delta type names ("integer",
/// "decimal(10,2)"). `field_path` is empty for a change of the field's own type, else the
/// path from the field to the changed type through arrays and maps: "element", "key",
/// "value", dot-joined when nested ("value.element").
/// REQUIRES: `from` and `to` are primitive.
std::string TypeChangeEntryJson(const DataType& from, const DataType& to,
                                std::string_view field_path);

/// `metadata` with the entry appended to its `delta.typeChanges` array (created when
/// absent); existing entries, including preview-era `tableVersion` keys, are kept byte
/// for byte. An existing value that is not a JSON array is kCorruptLog naming `column`.
Result<FieldMetadata> AppendTypeChange(const FieldMetadata& metadata,
                                       const DataType& from, const DataType& to,
                                       std::string_view field_path,
                                       std::string_view column);

}  // namespace deltaguard
