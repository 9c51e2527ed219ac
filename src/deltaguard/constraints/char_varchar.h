/// \file deltaguard/constraints/char_varchar.h
/// The CHAR(n)/VARCHAR(n) length limits of a table, read from its schema.
///
/// Delta stores CHAR(n)/VARCHAR(n) as `string` and keeps the declared type in the
/// top-level column's field metadata `__CHAR_VARCHAR_TYPE_STRING` (schema/ddl.h
/// kCharVarcharTypeKey), e.g. "varchar(3)" or "struct<x:varchar(2)>". The protocol does
/// not mention it; Spark enforces it on every write through a hidden constraint
/// (`CharVarcharConstraint`, reserved name __CHAR_VARCHAR_STRING_LENGTH_CHECK__): a
/// non-NULL value longer than n characters fails the write with
/// DELTA_EXCEED_CHAR_VARCHAR_LIMIT. Verified against Spark 4.2 + Delta 4.4: the check is
/// `length(v) <= n` on the value as given, for CHAR and VARCHAR alike (no trailing-space
/// trimming, and CHAR values are stored unpadded), at every depth (struct fields, array
/// elements, map keys and values). exec/constraint_checker.h evaluates the limits.
#pragma once

#include <string>
#include <vector>

#include "deltaguard/schema/data_type.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// One length limit: a top-level column and the CHAR/VARCHAR leaf inside its type.
struct CharVarcharLimit {
  std::string column;    ///< the top-level column, as named in the schema
  std::string raw_type;  ///< the column's metadata value, e.g. "struct<x:varchar(2)>"
  CharVarcharLeaf leaf;  ///< where the limit applies below `column`, and the length

  /// "v", "s.x", "tags.element", "m.value": the limited values, for messages.
  std::string Path() const;
  /// "char(5)" / "varchar(3)".
  std::string TypeName() const;
  /// Spark's check text for a column or a struct field, "((v IS NULL) OR (length(v) <=
  /// 3))"; inside arrays and maps, "every tags.element is NULL or at most 2 characters".
  std::string CheckText() const;
  /// "length of column v varchar(3)": what quarantine's `_violated_constraint` holds.
  std::string Describe() const;
};

/// The limits of every top-level column of `schema` that carries the metadata, in schema
/// order, leaves in the order of the raw type. kCorruptLog naming the column and the
/// value when the metadata is not a type string Spark would have written.
Result<std::vector<CharVarcharLimit>> CharVarcharLimits(const StructType& schema);

}  // namespace deltaguard
