/// \file deltaguard/evolution/schema_format.h
/// Side-by-side rendering of two schemas with their differences marked, appended to
/// every schema error of a write so that the user sees the whole picture at once.
#pragma once

#include <string>
#include <string_view>

#include "deltaguard/schema/data_type.h"

namespace deltaguard {

/// Render `table` and `input` as two aligned columns, one row per field, matching fields
/// by name case-insensitively at every depth (structs, array elements, map keys and
/// values), in table order followed by the input-only fields. Each row starts with a
/// marker:
///   "  " same type,  "~ " type differs,  "- " only in the table,  "+ " only in the
///   input.
/// A struct is shown as "name: struct" with its fields indented below it; arrays and
/// maps whose elements contain structs show "element" / "key" / "value" rows. Fields
/// present on one side only are shown with their whole type on one line. The left side
/// shows NOT NULL; the right side does not (input nullability is ignored on writes).
/// The text ends with a one-line legend and no trailing newline.
std::string FormatSchemaComparison(const StructType& table, const StructType& input,
                                   std::string_view left_title = "table",
                                   std::string_view right_title = "input");

}  // namespace deltaguard
