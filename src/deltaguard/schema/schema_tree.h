/// \file deltaguard/schema/schema_tree.h
/// A schema as an indented tree, one line per field: what `deltaguard describe` prints
/// under "Schema:" and what Python's `Schema` shows as its str().
#pragma once

#include <string>

#include "deltaguard/schema/data_type.h"

namespace deltaguard {

/// One line per field ("  name: type[ not null][  [notes]][  -- comment]\n"), indented
/// two spaces per depth and descending into structs, and into array elements and map
/// keys/values that hold nested types. Notes are the column-mapping id and physical
/// name and the recorded type changes (`delta.typeChanges`). Empty for no fields.
std::string FormatSchemaTree(const StructType& schema);

}  // namespace deltaguard
