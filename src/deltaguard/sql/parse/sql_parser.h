/// \file deltaguard/sql/parse/sql_parser.h
/// Parse scripts of Spark SQL statements (statement.h). Expressions inside statements
/// are parsed by the one expression parser of expr/parser.h, on the same tokens.
#pragma once

#include <string_view>
#include <vector>

#include "deltaguard/sql/parse/statement.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// Parse a script of statements separated by ';' (a trailing ';' and empty statements
/// are allowed; comments `-- ...` and `/* ... */` are skipped). Errors are kParseError
/// and look like the expression parser's, with the line of the script:
///
///     syntax error at line 2, column 12: expected 'INTO' or 'OVERWRITE' but found 't'
///       INSERT t VALUES (1)
///              ^
/// Unsupported but valid Spark statements (e.g. `CACHE TABLE`) are kUnsupportedFeature
/// naming the statement.
Result<std::vector<Statement>> ParseSql(std::string_view script);

/// Parse exactly one statement (a trailing ';' is allowed); more is kParseError.
Result<Statement> ParseStatement(std::string_view sql);

/// True when `text` holds at least one complete statement: it ends (ignoring trailing
/// whitespace and comments) with a ';' that is outside quotes, backticks and comments.
/// The interactive shell uses it to decide whether to read another line.
bool EndsWithCompleteStatement(std::string_view text);

}  // namespace deltaguard
