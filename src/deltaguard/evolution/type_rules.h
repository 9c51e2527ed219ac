/// \file deltaguard/evolution/type_rules.h
/// Which type differences a write may bridge. Two separate relations, both on Delta
/// types:
///  - a lossless write cast (`IsLosslessWriteCast`): input values of type `from` are cast
///    to the table's type `to` on every write without changing the table
///    (docs/decisions.md §2: every value of `from` is exactly representable in `to`);
///  - a type widening (`IsTypeWideningSupported`): the table's column type itself may be
///    changed from `from` to `to` (Delta 4.x `typeWidening` feature,
///    docs/spark_semantics.md §4.2), recorded in `delta.typeChanges`; used by ALTER
///    COLUMN TYPE and, when `delta.enableTypeWidening` is on, by schema evolution
///    (docs/spark_semantics.md §5.7).
#pragma once

#include "deltaguard/schema/data_type.h"

namespace deltaguard {

/// Number of decimal digits an integral type needs (byte 3, short 5, int 10, long 19);
/// 0 for other types.
int IntegralDigits(TypeKind kind);

/// True when every value of primitive `from` is exactly representable as `to`:
///  - equal types;
///  - byte -> short -> integer -> long (upwards);
///  - float -> double; byte/short/integer -> double (at most 31 bits of magnitude);
///  - byte/short/integer/long -> decimal(p, s) with p - s >= IntegralDigits(from);
///  - decimal(p1, s1) -> decimal(p2, s2) with s2 >= s1 and p2 - s2 >= p1 - s1;
///  - date -> timestamp_ntz (midnight);
///  - void -> anything (a column of nulls).
/// Nested types are not handled here (the enforcement code recurses); returns false.
bool IsLosslessWriteCast(const DataType& from, const DataType& to);

/// True when Delta 4.x allows changing a table column from `from` to `to` through type
/// widening (docs/spark_semantics.md §4.2): integral upwards, float -> double,
/// byte/short/integer -> double, byte/short/integer -> decimal(10 + k1, k2), long ->
/// decimal(20 + k1, k2), decimal precision/scale increases keeping the integer digits,
/// date -> timestamp_ntz. Equal types are not a widening (false).
bool IsTypeWideningSupported(const DataType& from, const DataType& to);

}  // namespace deltaguard
