/// \file deltaguard/evolution/write_checks.h
/// Checks on how a write lines up with the table beyond types: positional column
/// matching (docs/decisions.md §5) and the validity of partition columns.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/schema/data_type.h"

namespace deltaguard {

/// Guard for writes matched by position (headerless CSV, INSERT without a column list):
///  - a different number of columns is kSchemaMismatch
///  "DELTA_INSERT_COLUMN_ARITY_MISMATCH"
///    (too many / not enough data columns), naming both column lists;
///  - input names that are exactly the table's top-level names (case-insensitively, each
///    once) in a different order are kSchemaMismatch suggesting BY NAME: matching by
///    position would put values into the wrong columns;
///  - anything else passes (positional names such as _c0, _c1 carry no meaning).
Status CheckPositionalNames(const StructType& table,
                            const std::vector<std::string>& input_names,
                            std::string_view table_name);

/// Validate partition columns for a table with `schema` and return their canonical
/// (schema-cased) names, in the given order. Each must be a top-level column
/// (case-insensitive match) of a primitive type other than void and variant (a partition
/// value is a string in the log, PROTOCOL.md "Partition Value Serialization"); no column
/// may be named twice; at least one column must remain a data column (Spark:
/// DELTA_CANNOT_USE_ALL_COLUMNS_FOR_PARTITION). Errors are kInvalidArgument naming the
/// column, and its type when that is the problem.
Result<std::vector<std::string>> CheckPartitionColumns(
    const StructType& schema, const std::vector<std::string>& partition_columns);

}  // namespace deltaguard
