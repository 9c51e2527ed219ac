/// \file deltaguard/expr/lexer.h
/// Tokenizer for the Spark SQL expression dialect, shared by the expression parser
/// (parser.cc) and the statement parser of sql/parse, which run on the same tokens.
///
/// Invariant: a token list always ends with exactly one kEnd token whose position is
/// the input length, so the parser may look one token ahead without bounds checks.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/util/result.h"

namespace deltaguard::internal {

enum class TokenKind : uint8_t {
  kIdent,        ///< unquoted identifier or keyword; text as written
  kQuotedIdent,  ///< `...`; text unquoted
  kNumber,       ///< numeric literal as written, suffix included ("1.5D", "2L")
  kString,       ///< '...' or "..."; text unescaped
  kBinary,       ///< X'0A1B'; text = the hex digits
  kSymbol,       ///< operators and punctuation: ( ) , . + - * / % = == <> != < <= > >=
                 ///< <=> || : ; => (named arguments)
  kEnd,
};

struct Token {
  TokenKind kind;
  std::string text;
  int32_t pos;  ///< byte offset of the first character
  int32_t end;  ///< byte offset one past the last character
};

/// Turns "what went wrong at byte `pos` of the text being parsed" into a kParseError.
/// Expressions use ExprSyntaxError; the statement parser reports script lines/columns.
using SyntaxErrorFn = std::function<Error(int32_t pos, std::string_view what)>;

/// Format a kParseError: "<what> at position <pos+1>" followed by the expression and a
/// caret line under the failing byte.
Error ExprSyntaxError(std::string_view sql, int32_t pos, std::string_view what);

/// 1-based line and column of byte `pos` of `text`. Columns count UTF-8 code points
/// (continuation bytes do not advance), so they match what an editor shows.
struct LineColumn {
  int32_t line;
  int32_t column;
};
LineColumn LineColumnAt(std::string_view text, int32_t pos);

/// Format a kParseError for a script: "syntax error at line L, column C: <what>",
/// then the script's line holding `pos` and a caret under the column.
Error ScriptSyntaxError(std::string_view script, int32_t pos, std::string_view what);

/// Split `sql` into tokens. Comments (-- and /* */) and whitespace are skipped.
/// Errors (unterminated string, unexpected character, ...) are ExprSyntaxError.
Result<std::vector<Token>> Tokenize(std::string_view sql);

/// As above, reporting errors through `error` (positions are byte offsets in `sql`).
Result<std::vector<Token>> Tokenize(std::string_view sql, const SyntaxErrorFn& error);

}  // namespace deltaguard::internal
