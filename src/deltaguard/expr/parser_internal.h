/// \file deltaguard/expr/parser_internal.h
/// The expression parser's class, shared by parser.cc (operators, literals, names,
/// CASE, CAST) and parser_call.cc (calls, OVER and window specifications,
/// subqueries). Internal to expr/.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/expr/ast.h"
#include "deltaguard/expr/lexer.h"
#include "deltaguard/expr/parser.h"
#include "deltaguard/util/depth_guard.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {

// One level of nesting costs about ten parser frames; kMaxExprDepth levels (util/
// depth_guard.h) keep the parser and every later pass far from the end of the stack.
constexpr int kMaxParseDepth = kMaxExprDepth;

/// A recursive-descent parser over tokens (lexer.h) for one expression.
class ExprParser {
 public:
  /// `tokens` must outlive the parser and end with a kEnd token.
  ExprParser(std::string_view sql, const std::vector<Token>& tokens,
             internal::SyntaxErrorFn error, size_t start = 0,
             const internal::SubqueryParseFn* subquery = nullptr)
      : sql_(sql),
        tokens_(tokens),
        error_(std::move(error)),
        subquery_(subquery),
        idx_(start) {}

  Result<ExprRef> ParseAll();

  /// One expression from the current token; stops before the first token that cannot
  /// continue it.
  Result<ExprRef> ParseOne() { return ParseOr(); }

  // `(spec)` of a WINDOW clause (sql/parse).
  Result<std::shared_ptr<WindowSpec>> ParseParenthesizedWindowSpec();
  size_t index() const { return idx_; }

 private:
  const Token& Peek(size_t ahead = 0) const {
    size_t i = std::min(idx_ + ahead, tokens_.size() - 1);
    return tokens_[i];
  }
  const Token& Next() {
    const Token& t = tokens_[idx_];
    if (idx_ + 1 < tokens_.size()) ++idx_;
    return t;
  }
  static bool IsKeyword(const Token& t, std::string_view kw) {
    return t.kind == TokenKind::kIdent && EqualsIgnoreCase(t.text, kw);
  }
  static bool IsSymbol(const Token& t, std::string_view s) {
    return t.kind == TokenKind::kSymbol && t.text == s;
  }
  bool AcceptKeyword(std::string_view kw) {
    if (!IsKeyword(Peek(), kw)) return false;
    Next();
    return true;
  }
  bool AcceptSymbol(std::string_view s) {
    if (!IsSymbol(Peek(), s)) return false;
    Next();
    return true;
  }
  static std::string Describe(const Token& t) {
    switch (t.kind) {
      case TokenKind::kEnd:
        return "end of input";
      case TokenKind::kString:
        return "string literal";
      case TokenKind::kQuotedIdent:
        return "`" + t.text + "`";
      default:
        return "'" + t.text + "'";
    }
  }
  Error Fail(const Token& t, std::string_view expected) const {
    return error_(t.pos, fmt::format("{} but found {}", expected, Describe(t)));
  }
  Status ExpectSymbol(std::string_view s) {
    if (!AcceptSymbol(s)) return Fail(Peek(), fmt::format("expected '{}'", s));
    return OkStatus();
  }
  Status ExpectKeyword(std::string_view kw) {
    if (!AcceptKeyword(kw)) {
      return Fail(Peek(), fmt::format("expected {}", AsciiToUpper(kw)));
    }
    return OkStatus();
  }

  Error TooDeep() const {
    return error_(Peek().pos, fmt::format("expression nested too deeply (more than {} "
                                          "levels of parentheses, calls, CASE or NOT)",
                                          kMaxParseDepth));
  }

  Result<ExprRef> ParseOr();

  Result<ExprRef> ParseAnd();

  Result<ExprRef> ParseNot();

  Result<ExprRef> ParsePredicate();

  static ExprOp ComparisonOp(const Token& t);

  Result<ExprRef> ParseComparison();

  Result<ExprRef> ParseAdditive();

  Result<ExprRef> ParseMultiplicative();

  Result<ExprRef> ParseUnary();

  // `base[key]` (array index, map key or struct field name) and `base.field` after a
  // call, a subscript or a parenthesized expression (a column's dotted path is the
  // column's own). They parse as
  // calls of the internal functions "[]" and "." (docs/sql.md "Structs, arrays and
  // maps"); the printer writes them back in this form.
  Result<ExprRef> ParsePostfix(ExprRef base, bool parenthesized);

  Result<ExprRef> NumberLiteral(const Token& t, const std::string& text);

  Result<ExprRef> TypedLiteral(LiteralKind kind, const Token& word);

  Result<ExprRef> ParsePrimary();

  Result<ExprRef> ParseNameOrCall();

  Result<ExprRef> ParseCall(const Token& name);

  // After `OVER (`: [PARTITION BY e, ...] [ORDER BY e [ASC|DESC] [NULLS FIRST|LAST], ...]
  // [ROWS|RANGE {BETWEEN bound AND bound | bound}] `)`.
  Status ParseWindowSpec(WindowSpec* spec);

  Result<FrameBound> ParseFrameBound();

  Result<ExprRef> ParseCase();

  Result<ExprRef> ParseCast();

  // After '(' of a subquery: the query (through the statement parser) and ')'.
  bool AtQuery(size_t ahead = 0) const;
  // parser_call.cc: `x -> body` and `(x, y) -> body` as function arguments.
  bool AtLambda() const;
  Result<ExprRef> ParseLambda();
  Result<ExprRef> ParseSubquery(SubqueryKind kind, int32_t pos, ExprRef operand = nullptr,
                                bool negated = false);

  std::string_view sql_;
  const std::vector<Token>& tokens_;
  SyntaxErrorFn error_;
  const SubqueryParseFn* subquery_ = nullptr;
  size_t idx_ = 0;
  RecursionBudget budget_{kMaxParseDepth + 1};  // the whole expression is the first entry
};

}  // namespace deltaguard::internal
