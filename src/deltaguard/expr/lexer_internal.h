/// \file deltaguard/expr/lexer_internal.h
/// Tokenizer for the Spark SQL expression dialect (used by parser.cc only).
///
/// Invariant: a token list always ends with exactly one kEnd token whose position is
/// the input length, so the parser may look one token ahead without bounds checks.
#pragma once

#include <cstdint>
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
                 ///< <=> ||
  kEnd,
};

struct Token {
  TokenKind kind;
  std::string text;
  int32_t pos;  ///< byte offset of the first character
  int32_t end;  ///< byte offset one past the last character
};

/// Format a kParseError: "<what> at position <pos+1>" followed by the expression and a
/// caret line under the failing byte.
Error ExprSyntaxError(std::string_view sql, int32_t pos, std::string_view what);

/// Split `sql` into tokens. Comments (-- and /* */) and whitespace are skipped.
Result<std::vector<Token>> Tokenize(std::string_view sql);

}  // namespace deltaguard::internal
