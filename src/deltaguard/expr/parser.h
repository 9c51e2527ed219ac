/// \file deltaguard/expr/parser.h
/// Parse Spark SQL expression text (CHECK constraints, replaceWhere, WHERE, MERGE
/// conditions) into the unbound tree of ast.h.
///
/// Precedence, lowest first, as in Spark's grammar: OR; AND; NOT; the predicates
/// [NOT] IN / BETWEEN / LIKE / ILIKE / RLIKE / REGEXP and IS [NOT] NULL|TRUE|FALSE|
/// DISTINCT FROM (one per operand); comparisons = == <> != < <= > >= <=>; + - ||;
/// * / % DIV; unary minus/plus; primaries. Keywords are case-insensitive. A minus sign
/// directly before a number is part of the literal ("-1" is INT -1), as in Spark.
#pragma once

#include <string_view>

#include "deltaguard/expr/ast.h"

namespace deltaguard {

/// Parse one expression. Errors are kParseError: the message says what was expected,
/// the 1-based position, then the expression line with a caret under that position:
///
///     expected ')' at position 11
///       a + (b * 2
///                 ^
Result<ExprRef> ParseExpression(std::string_view sql);

/// True for words that cannot be a bare column name (AND, CASE, NULL, ...); the printer
/// backticks them.
bool IsReservedWord(std::string_view word);

}  // namespace deltaguard
