#include "deltaguard/sql/parse/sql_parser.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <utility>

#include "deltaguard/expr/parser.h"
#include "deltaguard/sql/parse/statement_parser_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace internal {
namespace {

std::string DescribeToken(const Token& t) {
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

using ParseFn = Result<StatementBody> (StatementParser::*)();

/// The statements we parse, by first keyword. Adding a statement = one row + one
/// member function.
struct StatementRule {
  std::string_view keyword;
  ParseFn parse;
};
constexpr StatementRule kStatements[] = {
    {"select", &StatementParser::ParseQueryStatement},
    {"values", &StatementParser::ParseQueryStatement},
    {"with", &StatementParser::ParseQueryStatement},
    {"table", &StatementParser::ParseQueryStatement},
    {"insert", &StatementParser::ParseInsert},
    {"create", &StatementParser::ParseCreate},
    {"replace", &StatementParser::ParseReplace},
    {"drop", &StatementParser::ParseDrop},
    {"describe", &StatementParser::ParseDescribe},
    {"desc", &StatementParser::ParseDescribe},
    {"show", &StatementParser::ParseShow},
    {"set", &StatementParser::ParseSet},
    {"reset", &StatementParser::ParseReset},
    {"use", &StatementParser::ParseUse},
    {"alter", &StatementParser::ParseAlter},
    {"merge", &StatementParser::ParseMerge},
    {"update", &StatementParser::ParseUpdate},
    {"delete", &StatementParser::ParseDelete},
    {"vacuum", &StatementParser::ParseVacuum},
};

/// Valid Spark / Delta statements that deltaguard does not run (yet): refused as
/// kUnsupportedFeature with this name.
struct UnsupportedRule {
  std::string_view keyword;
  std::string_view name;
};
constexpr UnsupportedRule kUnsupported[] = {
    {"optimize", "OPTIMIZE"},
    {"restore", "RESTORE TABLE"},
    {"convert", "CONVERT TO DELTA"},
    {"reorg", "REORG TABLE"},
    {"fsck", "FSCK REPAIR TABLE"},
    {"generate", "GENERATE"},
    {"cache", "CACHE TABLE"},
    {"uncache", "UNCACHE TABLE"},
    {"clear", "CLEAR CACHE"},
    {"refresh", "REFRESH"},
    {"msck", "MSCK REPAIR TABLE"},
    {"analyze", "ANALYZE TABLE"},
    {"truncate", "TRUNCATE TABLE"},
    {"explain", "EXPLAIN"},
    {"from", "FROM-first queries"},
    {"grant", "GRANT"},
    {"revoke", "REVOKE"},
    {"load", "LOAD DATA"},
    {"add", "ADD JAR/FILE"},
    {"list", "LIST JAR/FILE"},
    {"call", "CALL"},
    {"copy", "COPY INTO"},
    {"comment", "COMMENT ON"},
    {"declare", "DECLARE VARIABLE"},
    {"execute", "EXECUTE IMMEDIATE"},
};

}  // namespace

StatementParser::StatementParser(std::string_view script, int32_t offset,
                                 std::string_view text, std::vector<Token> tokens)
    : script_(script), offset_(offset), text_(text), tokens_(std::move(tokens)) {
  error_ = [script, offset](int32_t pos, std::string_view what) {
    return ScriptSyntaxError(script, offset + pos, what);
  };
}

Result<StatementBody> StatementParser::Parse() {
  const Token& first = Peek();
  if (IsSymbol(first, "(")) {
    DELTA_ASSIGN_OR_RETURN(StatementBody body, ParseQueryStatement());
    if (Peek().kind != TokenKind::kEnd) return Fail("expected end of statement");
    return body;
  }
  if (first.kind == TokenKind::kIdent) {
    for (const StatementRule& rule : kStatements) {
      if (!IsKeyword(first, rule.keyword)) continue;
      DELTA_ASSIGN_OR_RETURN(StatementBody body, (this->*rule.parse)());
      if (Peek().kind != TokenKind::kEnd) return Fail("expected end of statement");
      return body;
    }
    for (const UnsupportedRule& rule : kUnsupported) {
      if (!IsKeyword(first, rule.keyword)) continue;
      return Unsupported(rule.name);
    }
  }
  return Fail("expected a statement (SELECT, INSERT, CREATE, DESCRIBE, SHOW, ...)");
}

// ---------------------------------------------------------------------------
// Tokens

const Token& StatementParser::Peek(size_t ahead) const {
  return tokens_[std::min(idx_ + ahead, tokens_.size() - 1)];
}

const Token& StatementParser::Next() {
  const Token& t = tokens_[idx_];
  if (idx_ + 1 < tokens_.size()) ++idx_;
  return t;
}

bool StatementParser::IsKeyword(const Token& t, std::string_view kw) {
  return t.kind == TokenKind::kIdent && EqualsIgnoreCase(t.text, kw);
}

bool StatementParser::IsSymbol(const Token& t, std::string_view s) {
  return t.kind == TokenKind::kSymbol && t.text == s;
}

bool StatementParser::IsName(const Token& t) {
  return t.kind == TokenKind::kIdent || t.kind == TokenKind::kQuotedIdent;
}

bool StatementParser::PeekKeyword(std::string_view kw, size_t ahead) const {
  return IsKeyword(Peek(ahead), kw);
}

bool StatementParser::AcceptKeyword(std::string_view kw) {
  if (!PeekKeyword(kw)) return false;
  Next();
  return true;
}

bool StatementParser::AcceptKeywords(std::initializer_list<std::string_view> kws) {
  size_t ahead = 0;
  for (std::string_view kw : kws) {
    if (!PeekKeyword(kw, ahead++)) return false;
  }
  for (size_t i = 0; i < kws.size(); ++i) Next();
  return true;
}

bool StatementParser::AcceptSymbol(std::string_view s) {
  if (!IsSymbol(Peek(), s)) return false;
  Next();
  return true;
}

Status StatementParser::ExpectKeyword(std::string_view kw) {
  if (AcceptKeyword(kw)) return OkStatus();
  return Fail(fmt::format("expected '{}'", AsciiToUpper(kw)));
}

Status StatementParser::ExpectSymbol(std::string_view s) {
  if (AcceptSymbol(s)) return OkStatus();
  return Fail(fmt::format("expected '{}'", s));
}

Error StatementParser::Fail(std::string_view expected) const {
  return ErrorAt(Peek().pos,
                 fmt::format("{} but found {}", expected, DescribeToken(Peek())));
}

Error StatementParser::ErrorAt(int32_t pos, std::string_view what) const {
  return error_(pos, what);
}

Error StatementParser::Unsupported(std::string_view what) {
  return MakeError(ErrorCode::kUnsupportedFeature, "{} is not supported yet", what);
}

std::string_view StatementParser::SourceText(size_t first, size_t end) const {
  if (end <= first || first >= tokens_.size()) return {};
  int32_t from = tokens_[first].pos;
  int32_t to = tokens_[std::min(end, tokens_.size()) - 1].end;
  return text_.substr(from, to - from);
}

std::string_view StatementParser::Rest() const {
  return Trim(text_.substr(std::min<size_t>(Peek().pos, text_.size())));
}

// ---------------------------------------------------------------------------
// Shared pieces

Result<std::string> StatementParser::ParseIdentifier(std::string_view what) {
  if (!IsName(Peek())) return Fail(fmt::format("expected {}", what));
  return Next().text;
}

Result<std::vector<std::string>> StatementParser::ParseNameList(std::string_view what) {
  DELTA_RETURN_IF_ERROR(ExpectSymbol("("));
  std::vector<std::string> names;
  do {
    DELTA_ASSIGN_OR_RETURN(std::string name, ParseIdentifier(what));
    names.push_back(std::move(name));
  } while (AcceptSymbol(","));
  DELTA_RETURN_IF_ERROR(ExpectSymbol(")"));
  return names;
}

Result<TableRef> StatementParser::ParseTableRef() {
  TableRef ref;
  const Token& first = Peek();
  ref.position = first.pos;
  if (first.kind == TokenKind::kString) {  // a quoted path
    ref.kind = TableRef::Kind::kPath;
    ref.path = Next().text;
    return ref;
  }
  if (!IsName(first)) return Fail("expected a table name or path");
  ref.parts.push_back(Next().text);
  bool last_quoted = false;
  while (IsSymbol(Peek(), ".") && IsName(Peek(1))) {
    Next();
    last_quoted = Peek().kind == TokenKind::kQuotedIdent;
    ref.parts.push_back(Next().text);
  }
  if (IsSymbol(Peek(), ".")) {
    Next();
    return Fail("expected a name after '.'");
  }
  // delta.`/path` is a path (Delta's path identifier); parquet.`/path` and friends are
  // Spark's file sources, which deltaguard reads with read_parquet('...') instead.
  if (ref.parts.size() == 2 && last_quoted && first.kind == TokenKind::kIdent) {
    std::string source = AsciiToLower(ref.parts[0]);
    if (source == "delta") {
      ref.kind = TableRef::Kind::kPath;
      ref.path = ref.parts[1];
      ref.parts.clear();
      return ref;
    }
    for (std::string_view file_source : {"parquet", "csv", "json"}) {
      if (source == file_source) {
        return Unsupported(
            fmt::format("{}.`path` (use read_{}('path'))", source, source));
      }
    }
    for (std::string_view file_source : {"orc", "text", "avro"}) {
      if (source == file_source) return Unsupported(fmt::format("{}.`path`", source));
    }
  }
  // Spark's session catalog is the only catalog: spark_catalog.db.t is db.t.
  if (ref.parts.size() == 3 && EqualsIgnoreCase(ref.parts[0], "spark_catalog")) {
    ref.parts.erase(ref.parts.begin());
  }
  return ref;
}

Result<ExprRef> StatementParser::ParseExpr() {
  internal::SubqueryParseFn subquery = SubqueryParser();
  return ParseExpressionAt(text_, tokens_, &idx_, error_, &subquery);
}

Result<WindowSpecRef> StatementParser::ParseWindowSpecHere() {
  internal::SubqueryParseFn subquery = SubqueryParser();
  DELTA_ASSIGN_OR_RETURN(
      auto spec, internal::ParseWindowSpecAt(text_, tokens_, &idx_, error_, &subquery));
  return WindowSpecRef(std::move(spec));
}

internal::SubqueryParseFn StatementParser::SubqueryParser() {
  // Subqueries inside an expression are queries of this grammar.
  return [this](size_t* index) -> Result<std::shared_ptr<const SubqueryNode>> {
    const size_t saved = idx_;
    idx_ = *index;
    auto query = ParseQuery();
    if (!query) {
      idx_ = saved;
      return query.error();
    }
    auto node = std::make_shared<QuerySubquery>();
    node->query = *query;
    node->sql = std::string(SourceText(*index, idx_));
    *index = idx_;
    idx_ = saved;
    return std::shared_ptr<const SubqueryNode>(std::move(node));
  };
}

Result<int64_t> StatementParser::ParseInteger(std::string_view what) {
  const Token& t = Peek();
  int64_t value = 0;
  if (t.kind == TokenKind::kNumber) {
    auto [ptr, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), value);
    if (ec == std::errc() && ptr == t.text.data() + t.text.size()) {
      Next();
      return value;
    }
  }
  return Fail(fmt::format("expected {} (a non-negative integer)", what));
}

Result<std::string> StatementParser::ParseString(std::string_view what) {
  if (Peek().kind != TokenKind::kString) {
    return Fail(fmt::format("expected {} (a quoted string)", what));
  }
  return Next().text;
}

Result<bool> StatementParser::ParseIfExists(bool with_not) {
  if (!PeekKeyword("if")) return false;
  Next();
  if (with_not) DELTA_RETURN_IF_ERROR(ExpectKeyword("not"));
  DELTA_RETURN_IF_ERROR(ExpectKeyword("exists"));
  return true;
}

Status StatementParser::CheckOnce(bool* seen, std::string_view clause,
                                  int32_t pos) const {
  if (*seen) return ErrorAt(pos, fmt::format("duplicate {} clause", clause));
  *seen = true;
  return OkStatus();
}

// ---------------------------------------------------------------------------
// Scripts

namespace {

/// Tokenize the script once and cut it at top-level ';' tokens.
struct ScriptPiece {
  size_t first;  ///< token index of the statement's first token
  size_t end;    ///< one past its last token (a ';' or the final kEnd)
};

Result<std::vector<Statement>> ParseScript(std::string_view script, bool exactly_one) {
  if (script.size() > (1u << 30)) {
    return MakeError(ErrorCode::kParseError, "SQL script is too long ({} bytes)",
                     script.size());
  }
  SyntaxErrorFn error = [script](int32_t pos, std::string_view what) {
    return ScriptSyntaxError(script, pos, what);
  };
  DELTA_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(script, error));
  std::vector<ScriptPiece> pieces;
  size_t first = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    bool cut =
        t.kind == TokenKind::kEnd || (t.kind == TokenKind::kSymbol && t.text == ";");
    if (!cut) continue;
    if (i > first) pieces.push_back({first, i});
    first = i + 1;
  }
  if (exactly_one && pieces.size() != 1) {
    if (pieces.empty()) {
      return error(static_cast<int32_t>(script.size()),
                   "expected a statement but found end of input");
    }
    const Token& extra = tokens[pieces[1].first];
    return error(extra.pos, fmt::format("expected one statement but found another "
                                        "starting with {}",
                                        DescribeToken(extra)));
  }
  std::vector<Statement> statements;
  statements.reserve(pieces.size());
  for (const ScriptPiece& piece : pieces) {
    int32_t offset = tokens[piece.first].pos;
    int32_t end = tokens[piece.end - 1].end;
    std::string_view text = script.substr(offset, end - offset);
    std::vector<Token> own(tokens.begin() + piece.first, tokens.begin() + piece.end);
    for (Token& t : own) {
      t.pos -= offset;
      t.end -= offset;
    }
    int32_t text_end = static_cast<int32_t>(text.size());
    own.push_back(Token{TokenKind::kEnd, "", text_end, text_end});
    StatementParser parser(script, offset, text, std::move(own));
    DELTA_ASSIGN_OR_RETURN(StatementBody body, parser.Parse());
    Statement statement{std::move(body), std::string(text), offset,
                        LineColumnAt(script, offset).line};
    statements.push_back(std::move(statement));
  }
  return statements;
}

}  // namespace
}  // namespace internal

Result<std::vector<Statement>> ParseSql(std::string_view script) {
  return internal::ParseScript(script, /*exactly_one=*/false);
}

Result<Statement> ParseStatement(std::string_view sql) {
  DELTA_ASSIGN_OR_RETURN(auto statements, internal::ParseScript(sql, true));
  return std::move(statements.front());
}

bool EndsWithCompleteStatement(std::string_view text) {
  // A small scanner mirroring the lexer's quoting rules; unlike Tokenize it accepts
  // unfinished input (that is the point: it tells the shell to read on).
  enum class State { kCode, kQuote, kBacktick, kLineComment, kBlockComment };
  State state = State::kCode;
  char quote = 0;
  char last = 0;  // the last character of code outside quotes and comments
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    char next = i + 1 < text.size() ? text[i + 1] : '\0';
    switch (state) {
      case State::kCode:
        if (c == '-' && next == '-') {
          state = State::kLineComment;
          ++i;
        } else if (c == '/' && next == '*') {
          state = State::kBlockComment;
          ++i;
        } else if (c == '\'' || c == '"') {
          state = State::kQuote;
          quote = c;
          last = c;
        } else if (c == '`') {
          state = State::kBacktick;
          last = c;
        } else if (!IsAsciiSpace(c)) {
          last = c;
        }
        break;
      case State::kQuote:
        if (c == '\\') {
          ++i;  // an escaped character, possibly the quote
        } else if (c == quote) {
          state = State::kCode;  // a doubled quote reopens on the next character
        }
        break;
      case State::kBacktick:
        if (c == '`') state = State::kCode;
        break;
      case State::kLineComment:
        if (c == '\n') state = State::kCode;
        break;
      case State::kBlockComment:
        if (c == '*' && next == '/') {
          state = State::kCode;
          ++i;
        }
        break;
    }
  }
  bool open = state == State::kQuote || state == State::kBacktick ||
              state == State::kBlockComment;
  return !open && last == ';';
}

}  // namespace deltaguard
