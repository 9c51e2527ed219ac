/// \file deltaguard/io/parquet/partition_value.h
/// Parsing of add.partitionValues strings into typed values (PROTOCOL.md "Partition
/// Value Serialization"; PROTOCOL digest §6.1).
///
/// Rules: a JSON null or the empty string is NULL for every type (so a string partition
/// can never hold ""), while the 4-character string "null" is a real string value.
/// Numbers are Spark's cast-to-string ("1.0E10", "NaN", "-Infinity"); decimals are plain
/// or scientific text; dates are yyyy-MM-dd; timestamps come in two forms, the legacy
/// "2021-09-08 11:11:11[.ffffff]" (read as UTC) and ISO-8601
/// "2024-01-01T12:00:00.000000Z" (with Z or an offset); timestamp_ntz is
/// "yyyy-MM-dd HH:mm:ss[.ffffff]". A bare date is accepted for timestamp/timestamp_ntz
/// (midnight), because type widening date -> timestamp_ntz keeps old partition values.
#pragma once

#include <arrow/scalar.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// Days since 1970-01-01 of a "yyyy-MM-dd" date. kCorruptLog on malformed text.
Result<int32_t> ParseDateDays(std::string_view text);

/// Microseconds since the epoch. With `allow_offset` (type timestamp) a trailing "Z" or
/// "+HH:MM"/"-HH:MM" is honoured and text without one is UTC; without it (timestamp_ntz)
/// an offset is an error. Fractions beyond microseconds are truncated.
Result<int64_t> ParseTimestampMicros(std::string_view text, bool allow_offset);

/// Parse one serialized partition value into a scalar whose type is
/// ToArrowType(type) (arrow/schema.h). std::nullopt or "" gives a null scalar.
/// kCorruptLog "invalid partition value '<text>' for type <type>: <reason>" on bad text;
/// the caller adds the file and column.
Result<std::shared_ptr<arrow::Scalar>> ParsePartitionValue(
    const std::optional<std::string>& value, const DataType& type);

}  // namespace deltaguard
