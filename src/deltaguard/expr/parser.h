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

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "deltaguard/expr/ast.h"
#include "deltaguard/expr/lexer.h"
#include "deltaguard/util/result.h"

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

/// Token-level entry point, so that the SQL statement parser (sql/parse) parses the
/// expressions inside statements with this one grammar, on its own token stream,
/// instead of a second grammar.
namespace deltaguard::internal {

/// Parse one expression starting at `tokens[*index]` of `tokens` (a Tokenize() result of
/// `sql`, ending with kEnd). The expression ends before the first token that cannot
/// continue it (a keyword such as FROM, a ',' or ')' outside it, ';', end); on success
/// `*index` is that token's index, on error it is unchanged. Errors go through `error`,
/// with positions that are byte offsets in `sql` (as are the tree's positions).
///
/// `subquery`, when given, parses the query of `(SELECT ...)`, `EXISTS (SELECT ...)` and
/// `x IN (SELECT ...)`: called at the token after '(', it leaves `*index` at the token
/// after the query. Without it a subquery is a syntax error.
using SubqueryParseFn =
    std::function<Result<std::shared_ptr<const SubqueryNode>>(size_t* index)>;
/// The window specification `(PARTITION BY ... ORDER BY ... frame)` at tokens[*index]
/// (a WINDOW clause's); advances *index past its `)`.
Result<std::shared_ptr<WindowSpec>> ParseWindowSpecAt(std::string_view sql,
                                                      const std::vector<Token>& tokens,
                                                      size_t* index,
                                                      const SyntaxErrorFn& error,
                                                      const SubqueryParseFn* subquery);
Result<ExprRef> ParseExpressionAt(std::string_view sql, const std::vector<Token>& tokens,
                                  size_t* index, const SyntaxErrorFn& error,
                                  const SubqueryParseFn* subquery = nullptr);

}  // namespace deltaguard::internal
