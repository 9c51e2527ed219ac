/// \file deltaguard/schema/ddl.h
/// Spark-SQL style type and column-list text ("BIGINT", "ARRAY<STRING>",
/// "id BIGINT NOT NULL, `weird name` INT COMMENT 'x'") to the Delta type model, for the
/// CLI and for tests that state schemas compactly.
#pragma once

#include <string_view>

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

}  // namespace deltaguard
