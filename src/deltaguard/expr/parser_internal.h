/// \file deltaguard/expr/parser_internal.h
/// Token-level entry point of the expression parser, so that the SQL statement parser
/// (sql/parse) parses the expressions inside statements with the one expression grammar
/// of parser.h, on its own token stream, instead of a second grammar.
#pragma once

#include <string_view>
#include <vector>

#include "deltaguard/expr/ast.h"
#include "deltaguard/expr/lexer_internal.h"
#include "deltaguard/util/result.h"

namespace deltaguard::internal {

/// Parse one expression starting at `tokens[*index]` of `tokens` (a Tokenize() result of
/// `sql`, ending with kEnd). The expression ends before the first token that cannot
/// continue it (a keyword such as FROM, a ',' or ')' outside it, ';', end); on success
/// `*index` is that token's index, on error it is unchanged. Errors go through `error`,
/// with positions that are byte offsets in `sql` (as are the tree's positions).
Result<ExprRef> ParseExpressionAt(std::string_view sql, const std::vector<Token>& tokens,
                                  size_t* index, const SyntaxErrorFn& error);

}  // namespace deltaguard::internal
