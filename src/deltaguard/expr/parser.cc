#include "deltaguard/expr/parser.h"

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/expr/lexer.h"
#include "deltaguard/expr/literal.h"
#include "deltaguard/expr/parser_internal.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/util/depth_guard.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

using internal::Token;
using internal::TokenKind;

constexpr std::array<std::string_view, 23> kReserved = {
    "and",     "or",   "not",   "in",    "is",       "null",   "true",    "false",
    "between", "like", "ilike", "rlike", "regexp",   "case",   "when",    "then",
    "else",    "end",  "as",    "div",   "distinct", "escape", "interval"};

constexpr int kMaxDepth = internal::kMaxParseDepth;

/// Builds a chain of one operator as one n-ary node (ast.h invariant 4) while the
/// parser loops over `a op b op c`: a new operator starts a node whose first child is
/// the chain so far.
class ChainBuilder {
 public:
  explicit ChainBuilder(ExprRef first) : result_(std::move(first)) {}

  void Add(ExprOp op, ExprRef right, int32_t pos) {
    if (open_ == nullptr || open_->op != op) {
      open_ = std::make_shared<Expr>();
      open_->kind = ExprKind::kBinary;
      open_->op = op;
      open_->position = pos;
      if (result_->kind == ExprKind::kBinary && result_->op == op) {
        // "(a + b) + c" is the same left fold as "a + b + c": one node.
        open_->children = result_->children;
        open_->position = result_->position;
      } else {
        open_->children.push_back(std::move(result_));
      }
      result_ = open_;
    }
    open_->children.push_back(std::move(right));
  }

  ExprRef Finish() { return std::move(result_); }

 private:
  ExprRef result_;
  std::shared_ptr<Expr> open_;  ///< == result_ once an operator was added
};

}  // namespace

namespace internal {

Result<ExprRef> ExprParser::ParseAll() {
  DELTA_ASSIGN_OR_RETURN(ExprRef e, ParseOr());
  if (Peek().kind != TokenKind::kEnd) {
    return Fail(Peek(), "expected end of expression");
  }
  return e;
}

Result<ExprRef> ExprParser::ParseOr() {
  DepthGuard guard(&budget_);
  if (guard.exceeded()) return TooDeep();
  DELTA_ASSIGN_OR_RETURN(ExprRef left, ParseAnd());
  ChainBuilder chain(std::move(left));
  while (IsKeyword(Peek(), "or")) {
    int32_t pos = Next().pos;
    DELTA_ASSIGN_OR_RETURN(ExprRef right, ParseAnd());
    chain.Add(ExprOp::kOr, std::move(right), pos);
  }
  return chain.Finish();
}

Result<ExprRef> ExprParser::ParseAnd() {
  DELTA_ASSIGN_OR_RETURN(ExprRef left, ParseNot());
  ChainBuilder chain(std::move(left));
  while (IsKeyword(Peek(), "and")) {
    int32_t pos = Next().pos;
    DELTA_ASSIGN_OR_RETURN(ExprRef right, ParseNot());
    chain.Add(ExprOp::kAnd, std::move(right), pos);
  }
  return chain.Finish();
}

Result<ExprRef> ExprParser::ParseNot() {
  if (IsKeyword(Peek(), "not")) {
    DepthGuard guard(&budget_);
    if (guard.exceeded()) return TooDeep();
    int32_t pos = Next().pos;
    DELTA_ASSIGN_OR_RETURN(ExprRef child, ParseNot());
    return Expr::Unary(ExprOp::kNot, child, pos);
  }
  return ParsePredicate();
}

Result<ExprRef> ExprParser::ParsePredicate() {
  DELTA_ASSIGN_OR_RETURN(ExprRef subject, ParseComparison());
  const Token& t = Peek();
  if (IsKeyword(t, "is")) {
    int32_t pos = Next().pos;
    bool negated = AcceptKeyword("not");
    auto e = std::make_shared<Expr>();
    e->position = pos;
    e->negated = negated;
    e->children.push_back(subject);
    if (AcceptKeyword("null") || AcceptKeyword("unknown")) {
      e->kind = ExprKind::kIsNull;
      return ExprRef(e);
    }
    if (IsKeyword(Peek(), "true") || IsKeyword(Peek(), "false")) {
      e->kind = ExprKind::kIsBool;
      e->bool_value = IsKeyword(Next(), "true");
      return ExprRef(e);
    }
    if (AcceptKeyword("distinct")) {
      DELTA_RETURN_IF_ERROR(ExpectKeyword("from"));
      DELTA_ASSIGN_OR_RETURN(ExprRef other, ParseComparison());
      ExprRef eq = Expr::Binary(ExprOp::kNullSafeEq, subject, other, pos);
      return negated ? eq : Expr::Unary(ExprOp::kNot, eq, pos);
    }
    return Fail(Peek(), "expected NULL, TRUE, FALSE or DISTINCT FROM after IS");
  }
  size_t save = idx_;
  bool negated = AcceptKeyword("not");
  const Token& k = Peek();
  auto e = std::make_shared<Expr>();
  e->position = k.pos;
  e->negated = negated;
  e->children.push_back(subject);
  if (IsKeyword(k, "in")) {
    Next();
    e->kind = ExprKind::kIn;
    DELTA_RETURN_IF_ERROR(ExpectSymbol("("));
    if (AtQuery()) return ParseSubquery(SubqueryKind::kIn, k.pos, subject, negated);
    do {
      DELTA_ASSIGN_OR_RETURN(ExprRef item, ParseOr());
      e->children.push_back(item);
    } while (AcceptSymbol(","));
    DELTA_RETURN_IF_ERROR(ExpectSymbol(")"));
    return ExprRef(e);
  }
  if (IsKeyword(k, "between")) {
    Next();
    e->kind = ExprKind::kBetween;
    DELTA_ASSIGN_OR_RETURN(ExprRef lo, ParseComparison());
    DELTA_RETURN_IF_ERROR(ExpectKeyword("and"));
    DELTA_ASSIGN_OR_RETURN(ExprRef hi, ParseComparison());
    e->children.push_back(lo);
    e->children.push_back(hi);
    return ExprRef(e);
  }
  if (IsKeyword(k, "like") || IsKeyword(k, "ilike") || IsKeyword(k, "rlike") ||
      IsKeyword(k, "regexp")) {
    std::string word = AsciiToLower(Next().text);
    e->kind = ExprKind::kLike;
    e->like_kind = word == "like"    ? LikeKind::kLike
                   : word == "ilike" ? LikeKind::kILike
                                     : LikeKind::kRLike;
    DELTA_ASSIGN_OR_RETURN(ExprRef pattern, ParseComparison());
    e->children.push_back(pattern);
    return ExprRef(e);
  }
  if (negated) {
    return Fail(Peek(), "expected IN, BETWEEN, LIKE, ILIKE or RLIKE after NOT");
  }
  idx_ = save;
  return subject;
}

ExprOp ExprParser::ComparisonOp(const Token& t) {
  if (t.kind != TokenKind::kSymbol) return ExprOp::kNone;
  const std::string& s = t.text;
  if (s == "=" || s == "==") return ExprOp::kEq;
  if (s == "<>" || s == "!=") return ExprOp::kNotEq;
  if (s == "<") return ExprOp::kLt;
  if (s == "<=") return ExprOp::kLtEq;
  if (s == ">") return ExprOp::kGt;
  if (s == ">=") return ExprOp::kGtEq;
  if (s == "<=>") return ExprOp::kNullSafeEq;
  return ExprOp::kNone;
}

Result<ExprRef> ExprParser::ParseComparison() {
  DELTA_ASSIGN_OR_RETURN(ExprRef left, ParseAdditive());
  ChainBuilder chain(std::move(left));
  for (ExprOp op; (op = ComparisonOp(Peek())) != ExprOp::kNone;) {
    int32_t pos = Next().pos;
    DELTA_ASSIGN_OR_RETURN(ExprRef right, ParseAdditive());
    chain.Add(op, std::move(right), pos);
  }
  return chain.Finish();
}

Result<ExprRef> ExprParser::ParseAdditive() {
  DELTA_ASSIGN_OR_RETURN(ExprRef left, ParseMultiplicative());
  ChainBuilder chain(std::move(left));
  while (true) {
    const Token& t = Peek();
    ExprOp op = IsSymbol(t, "+")    ? ExprOp::kAdd
                : IsSymbol(t, "-")  ? ExprOp::kSubtract
                : IsSymbol(t, "||") ? ExprOp::kConcat
                                    : ExprOp::kNone;
    if (op == ExprOp::kNone) return chain.Finish();
    int32_t pos = Next().pos;
    DELTA_ASSIGN_OR_RETURN(ExprRef right, ParseMultiplicative());
    chain.Add(op, std::move(right), pos);
  }
}

Result<ExprRef> ExprParser::ParseMultiplicative() {
  DELTA_ASSIGN_OR_RETURN(ExprRef left, ParseUnary());
  ChainBuilder chain(std::move(left));
  while (true) {
    const Token& t = Peek();
    ExprOp op = IsSymbol(t, "*")      ? ExprOp::kMultiply
                : IsSymbol(t, "/")    ? ExprOp::kDivide
                : IsSymbol(t, "%")    ? ExprOp::kModulo
                : IsKeyword(t, "div") ? ExprOp::kIntDivide
                                      : ExprOp::kNone;
    if (op == ExprOp::kNone) return chain.Finish();
    int32_t pos = Next().pos;
    DELTA_ASSIGN_OR_RETURN(ExprRef right, ParseUnary());
    chain.Add(op, std::move(right), pos);
  }
}

Result<ExprRef> ExprParser::ParseUnary() {
  if (IsSymbol(Peek(), "-") || IsSymbol(Peek(), "+")) {
    DepthGuard guard(&budget_);
    if (guard.exceeded()) return TooDeep();
    const Token& sign = Next();
    bool minus = sign.text == "-";
    if (Peek().kind == TokenKind::kNumber) {
      const Token& num = Next();
      return NumberLiteral(num, minus ? "-" + num.text : num.text);
    }
    DELTA_ASSIGN_OR_RETURN(ExprRef child, ParseUnary());
    return minus ? Expr::Unary(ExprOp::kNegate, child, sign.pos) : child;
  }
  const bool parenthesized = IsSymbol(Peek(), "(");
  DELTA_ASSIGN_OR_RETURN(ExprRef base, ParsePrimary());
  return ParsePostfix(std::move(base), parenthesized);
}

Result<ExprRef> ExprParser::ParsePostfix(ExprRef base, bool parenthesized) {
  while (true) {
    const Token& t = Peek();
    if (AcceptSymbol("[")) {
      DELTA_ASSIGN_OR_RETURN(ExprRef key, ParseOr());
      DELTA_RETURN_IF_ERROR(ExpectSymbol("]"));
      base = Expr::Function("[]", {std::move(base), std::move(key)}, t.pos);
    } else if (IsSymbol(t, ".") && (base->kind == ExprKind::kFunction || parenthesized)) {
      Next();
      const Token& field = Peek();
      if (field.kind != TokenKind::kIdent && field.kind != TokenKind::kQuotedIdent) {
        return Fail(field, "expected a field name after '.'");
      }
      base = Expr::Function(".", {std::move(base), Expr::String(Next().text)}, t.pos);
    } else {
      return base;
    }
  }
}

Result<ExprRef> ExprParser::NumberLiteral(const Token& t, const std::string& text) {
  auto cls = ClassifyNumber(text);
  if (!cls) return error_(t.pos, cls.error().message);
  return Expr::Literal(cls->first, cls->second, t.pos);
}

Result<ExprRef> ExprParser::TypedLiteral(LiteralKind kind, const Token& word) {
  const Token& str = Next();
  auto lit = Expr::Literal(kind, str.text, word.pos);
  auto value = EvaluateLiteral(*lit);
  if (!value) return error_(str.pos, value.error().message);
  return lit;
}

Result<ExprRef> ExprParser::ParsePrimary() {
  const Token& t = Peek();
  switch (t.kind) {
    case TokenKind::kNumber:
      Next();
      return NumberLiteral(t, t.text);
    case TokenKind::kString: {
      int32_t pos = t.pos;
      std::string value = Next().text;
      while (Peek().kind == TokenKind::kString) value += Next().text;  // 'a' 'b'
      return Expr::Literal(LiteralKind::kString, std::move(value), pos);
    }
    case TokenKind::kBinary: {
      Next();
      auto lit = Expr::Literal(LiteralKind::kBinary, AsciiToUpper(t.text), t.pos);
      if (t.text.size() % 2 != 0) {
        return error_(t.pos, "binary literal needs an even number of hex digits");
      }
      return lit;
    }
    case TokenKind::kQuotedIdent:
      return ParseNameOrCall();
    case TokenKind::kIdent:
      break;
    default:
      if (AcceptSymbol("(")) {
        if (AtQuery()) return ParseSubquery(SubqueryKind::kScalar, t.pos);
        DELTA_ASSIGN_OR_RETURN(ExprRef inner, ParseOr());
        DELTA_RETURN_IF_ERROR(ExpectSymbol(")"));
        return inner;
      }
      return Fail(t, "expected an expression");
  }
  std::string word = AsciiToLower(t.text);
  if (word == "null" || word == "true" || word == "false") {
    Next();
    if (word == "null") return Expr::Literal(LiteralKind::kNull, "", t.pos);
    return Expr::Literal(LiteralKind::kBoolean, word, t.pos);
  }
  if (word == "case") return ParseCase();
  if (word == "exists" && IsSymbol(Peek(1), "(") && AtQuery(2)) {
    Next();
    Next();
    return ParseSubquery(SubqueryKind::kExists, t.pos);
  }
  if ((word == "cast" || word == "try_cast") && IsSymbol(Peek(1), "("))
    return ParseCast();
  if (Peek(1).kind == TokenKind::kString) {
    LiteralKind kind = LiteralKind::kNull;
    if (word == "date") kind = LiteralKind::kDate;
    if (word == "timestamp" || word == "timestamp_ltz") kind = LiteralKind::kTimestamp;
    if (word == "timestamp_ntz") kind = LiteralKind::kTimestampNtz;
    if (kind != LiteralKind::kNull) {
      Next();
      return TypedLiteral(kind, t);
    }
    if (word == "interval") {
      return error_(t.pos, "INTERVAL literals are not supported");
    }
  }
  if (IsReservedWord(word)) return Fail(t, "expected an expression");
  return ParseNameOrCall();
}

Result<ExprRef> ExprParser::ParseNameOrCall() {
  const Token& first = Next();
  int32_t pos = first.pos;
  if (IsSymbol(Peek(), "(")) return ParseCall(first);
  if (first.kind == TokenKind::kIdent) {
    std::string word = AsciiToLower(first.text);
    if (word == "current_date" || word == "current_timestamp") {
      return Expr::Function(word, {}, pos);  // Spark allows them without parentheses
    }
  }
  std::vector<std::string> path{first.text};
  while (AcceptSymbol(".")) {
    const Token& part = Peek();
    if (part.kind != TokenKind::kIdent && part.kind != TokenKind::kQuotedIdent) {
      return Fail(part, "expected a field name after '.'");
    }
    path.push_back(Next().text);
  }
  if (IsSymbol(Peek(), "(")) {
    return Fail(Peek(),
                "qualified function names are not supported; expected an operator");
  }
  return Expr::Column(std::move(path), pos);
}

Result<ExprRef> ExprParser::ParseCase() {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCase;
  e->position = Next().pos;
  if (!IsKeyword(Peek(), "when")) {
    DELTA_ASSIGN_OR_RETURN(ExprRef operand, ParseOr());
    e->children.push_back(operand);
    e->has_operand = true;
  }
  if (!IsKeyword(Peek(), "when")) return Fail(Peek(), "expected WHEN");
  while (AcceptKeyword("when")) {
    DELTA_ASSIGN_OR_RETURN(ExprRef cond, ParseOr());
    DELTA_RETURN_IF_ERROR(ExpectKeyword("then"));
    DELTA_ASSIGN_OR_RETURN(ExprRef value, ParseOr());
    e->children.push_back(cond);
    e->children.push_back(value);
  }
  if (AcceptKeyword("else")) {
    DELTA_ASSIGN_OR_RETURN(ExprRef other, ParseOr());
    e->children.push_back(other);
    e->has_else = true;
  }
  DELTA_RETURN_IF_ERROR(ExpectKeyword("end"));
  return ExprRef(e);
}

Result<ExprRef> ExprParser::ParseCast() {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCast;
  const Token& word = Next();
  e->position = word.pos;
  e->try_cast = EqualsIgnoreCase(word.text, "try_cast");
  Next();  // (
  DELTA_ASSIGN_OR_RETURN(ExprRef child, ParseOr());
  e->children.push_back(child);
  DELTA_RETURN_IF_ERROR(ExpectKeyword("as"));
  // The type runs to the ')' that closes CAST; ParseDdlType reads it.
  const Token& first = Peek();
  int depth = 0;
  int32_t end = first.pos;
  while (Peek().kind != TokenKind::kEnd && !(depth == 0 && IsSymbol(Peek(), ")"))) {
    if (IsSymbol(Peek(), "(")) ++depth;
    if (IsSymbol(Peek(), ")")) --depth;
    end = Next().end;
  }
  if (end == first.pos) return Fail(first, "expected a type");
  std::string_view type_text = sql_.substr(first.pos, end - first.pos);
  auto type = ParseDdlType(type_text);
  if (!type) {
    if (type.error().message.find("levels of nested types") != std::string::npos) {
      return error_(first.pos, fmt::format("the type in CAST nests too deeply: at most "
                                           "{} levels of nested types",
                                           kMaxTypeDepth));
    }
    return error_(first.pos, fmt::format("invalid type '{}' in CAST", type_text));
  }
  e->cast_type = *type;
  DELTA_RETURN_IF_ERROR(ExpectSymbol(")"));
  return ExprRef(e);
}

}  // namespace internal

namespace {

// Chains are parsed by loops, so a tree can be deeper than the parser's recursion
// (`a + b - c + d ...` alternates operators); bound the tree itself for the passes that
// recurse over it (binder, printer, evaluator).
Status CheckTreeDepth(const Expr& e, const internal::SyntaxErrorFn& error) {
  int depth = ExprDepth(e) - 1;  // a leaf alone nests 0 levels
  if (depth <= kMaxDepth) return OkStatus();
  return error(DeepestNode(e).position,
               fmt::format("expression nested too deeply ({} levels, more than {}; "
                           "operators that alternate in a chain nest too); split it",
                           depth, kMaxDepth));
}

}  // namespace

bool IsReservedWord(std::string_view word) {
  for (auto r : kReserved) {
    if (EqualsIgnoreCase(word, r)) return true;
  }
  return false;
}

Result<ExprRef> ParseExpression(std::string_view sql) {
  DELTA_ASSIGN_OR_RETURN(auto tokens, internal::Tokenize(sql));
  internal::SyntaxErrorFn error = [sql](int32_t pos, std::string_view what) {
    return internal::ExprSyntaxError(sql, pos, what);
  };
  internal::ExprParser parser(sql, tokens, error);
  DELTA_ASSIGN_OR_RETURN(ExprRef e, parser.ParseAll());
  DELTA_RETURN_IF_ERROR(CheckTreeDepth(*e, error));
  return e;
}

namespace internal {

Result<std::shared_ptr<WindowSpec>> ParseWindowSpecAt(std::string_view sql,
                                                      const std::vector<Token>& tokens,
                                                      size_t* index,
                                                      const SyntaxErrorFn& error,
                                                      const SubqueryParseFn* subquery) {
  if (tokens.empty() || tokens.back().kind != TokenKind::kEnd ||
      *index >= tokens.size()) {
    return MakeError(ErrorCode::kInternal, "ParseWindowSpecAt: bad token range");
  }
  ExprParser parser(sql, tokens, error, *index, subquery);
  DELTA_ASSIGN_OR_RETURN(auto spec, parser.ParseParenthesizedWindowSpec());
  *index = parser.index();
  return spec;
}

Result<ExprRef> ParseExpressionAt(std::string_view sql, const std::vector<Token>& tokens,
                                  size_t* index, const SyntaxErrorFn& error,
                                  const SubqueryParseFn* subquery) {
  if (tokens.empty() || tokens.back().kind != TokenKind::kEnd ||
      *index >= tokens.size()) {
    return MakeError(ErrorCode::kInternal, "ParseExpressionAt: bad token range");
  }
  ExprParser parser(sql, tokens, error, *index, subquery);
  DELTA_ASSIGN_OR_RETURN(ExprRef e, parser.ParseOne());
  DELTA_RETURN_IF_ERROR(CheckTreeDepth(*e, error));
  *index = parser.index();
  return e;
}

}  // namespace internal

}  // namespace deltaguard
