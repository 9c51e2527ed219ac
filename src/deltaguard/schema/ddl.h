/// \file deltaguard/schema/ddl.h
/// Spark-SQL style type and column-list text ("BIGINT", "ARRAY<STRING>",
/// "id BIGINT NOT NULL, `weird name` INT COMMENT 'x'") to the Delta type model, for the
/// CLI and for tests that state schemas compactly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/schema/data_type.h"

namespace deltaguard {

/// Parse one type, case-insensitively:
///  - INT/INTEGER, BIGINT/LONG, SMALLINT/SHORT, TINYINT/BYTE, FLOAT/REAL, DOUBLE,
///    DECIMAL/DEC/NUMERIC[(p[,s])] (bare = decimal(10,0)), STRING, CHAR(n)/VARCHAR(n)
///    (stored as string, as Delta does), BINARY, BOOLEAN, DATE, TIMESTAMP/TIMESTAMP_LTZ,
///    TIMESTAMP_NTZ, VARIANT, VOID;
///  - ARRAY<t>, MAP<k, v>, STRUCT<name[:] type [NOT NULL] [COMMENT 'text'], ...>.
/// Arrays and map values are created nullable (containsNull = valueContainsNull = true),
/// as Spark does. Errors are kParseError and give the byte position and the input.
Result<DataTypeRef> ParseDdlType(std::string_view text);

/// Parse a column list `name type [NOT NULL] [COMMENT 'text'], ...`. Names may be
/// quoted with backticks (a doubled backtick is a literal one). A comment becomes the
/// `comment` metadata entry; a column declared CHAR(n)/VARCHAR(n) (also nested) gets
/// `__CHAR_VARCHAR_TYPE_STRING` with Spark's catalog spelling, e.g. "varchar(10)".
/// Names must be unique case-insensitively at every level.
Result<SchemaRef> ParseDdlSchema(std::string_view text);

/// Spark's field metadata key for a column declared CHAR(n)/VARCHAR(n) and stored as
/// `string` (protocol digest §3). It sits on the TOP-LEVEL column only and holds the
/// column's whole raw type, e.g. "varchar(10)", "struct<x:varchar(2)>",
/// "array<char(3)>", "map<string,varchar(4)>".
inline constexpr std::string_view kCharVarcharTypeKey = "__CHAR_VARCHAR_TYPE_STRING";

/// One step from a type down to a nested type.
struct TypeStep {
  enum class Kind : uint8_t { kField, kElement, kKey, kValue };
  Kind kind = Kind::kField;
  std::string field;  ///< kField: the struct field name as written; empty otherwise
};

/// One CHAR(n)/VARCHAR(n) inside a type: the steps from the type's root to it (empty
/// for the root itself), which of the two, and the length n.
struct CharVarcharLeaf {
  std::vector<TypeStep> steps;
  bool is_char = false;
  int32_t length = 0;
};

/// Parse a type (same grammar as ParseDdlType, so Spark's raw type strings parse) and
/// list its CHAR/VARCHAR leaves in text order; empty when it has none.
Result<std::vector<CharVarcharLeaf>> ParseCharVarcharLeaves(std::string_view text);

/// The Spark raw type string to store under kCharVarcharTypeKey for a type written as
/// `text` ("VARCHAR(10)" -> "varchar(10)", "Array<Char(2)>" -> "array<char(2)>"), or
/// nullopt when it declares no CHAR/VARCHAR. kParseError as ParseDdlType.
Result<std::optional<std::string>> CharVarcharTypeString(std::string_view text);

/// Spark's catalog spelling of `type` ("bigint", "struct<a:int,b:array<string>>"), with
/// the string leaves listed in `leaves` spelled as their CHAR/VARCHAR; leaves whose path
/// does not lead to a string in `type` are left out (rebuilding a column's raw type
/// after a nested field is added). With `quote_names`, struct field names that are not
/// plain identifiers are backticked so the text parses back; without, names are written
/// as they are (Spark's DataType.simpleString, as DESCRIBE shows types).
std::string CatalogTypeString(const DataType& type,
                              const std::vector<CharVarcharLeaf>& leaves = {},
                              bool quote_names = true);

/// The schema as a DDL column list that ParseDdlSchema reads back
/// ("id BIGINT NOT NULL, name STRING COMMENT 'who'"): top-level NOT NULL and comments
/// are kept, CHAR/VARCHAR columns are written as declared (kCharVarcharTypeKey);
/// nested fields are written in Spark's catalog spelling, which has no NOT NULL or
/// comments inside STRUCT<...> (docs/python.md, Schema).
std::string SchemaToDdl(const StructType& schema);

}  // namespace deltaguard
