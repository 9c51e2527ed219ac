#include "deltaguard/expr/lexer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {
namespace {

bool IsIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool IsIdentChar(char c) {
  return IsIdentStart(c) || std::isdigit(static_cast<unsigned char>(c));
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Spark's unescapeSQLString rules: \0 \b \n \r \t \Z, \uXXXX, \% and \_ keep their
// backslash (LIKE needs it), any other escaped character stands for itself.
Result<size_t> LexString(std::string_view sql, size_t i, std::string* out,
                         const SyntaxErrorFn& error) {
  const char quote = sql[i];
  size_t start = i++;
  while (i < sql.size()) {
    char c = sql[i];
    if (c == quote) {
      if (i + 1 < sql.size() && sql[i + 1] == quote) {  // doubled quote
        out->push_back(quote);
        i += 2;
        continue;
      }
      return i + 1;
    }
    if (c == '\\' && i + 1 < sql.size()) {
      char n = sql[i + 1];
      i += 2;
      switch (n) {
        case '0':
          out->push_back('\0');
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'Z':
          out->push_back('\x1A');
          break;
        case '%':
        case '_':
          out->push_back('\\');
          out->push_back(n);
          break;
        case 'u': {
          uint32_t cp = 0;
          for (int k = 0; k < 4; ++k) {
            int h = i + k < sql.size() ? HexValue(sql[i + k]) : -1;
            if (h < 0) {
              return error(static_cast<int32_t>(i - 2),
                           "invalid \\u escape (expected 4 hex digits)");
            }
            cp = cp * 16 + static_cast<uint32_t>(h);
          }
          i += 4;
          if (cp >= 0xD800 && cp <= 0xDFFF) {
            return error(static_cast<int32_t>(i - 6), "\\u escape is a lone surrogate");
          }
          AppendUtf8(out, cp);
          break;
        }
        default:
          out->push_back(n);
      }
      continue;
    }
    out->push_back(c);
    ++i;
  }
  return error(static_cast<int32_t>(start), "unterminated string literal");
}

}  // namespace

// How much of a statement's line a syntax error echoes.
constexpr size_t kEchoBytes = 400;

Error ExprSyntaxError(std::string_view sql, int32_t pos, std::string_view what) {
  if (pos < 0) pos = 0;
  if (static_cast<size_t>(pos) > sql.size()) pos = static_cast<int32_t>(sql.size());
  // Show the line holding `pos`; tabs become spaces so the caret lines up.
  size_t newline = sql.substr(0, pos).rfind('\n');
  size_t line_start = newline == std::string_view::npos ? 0 : newline + 1;
  size_t line_end = sql.find('\n', pos);
  if (line_end == std::string_view::npos) line_end = sql.size();
  std::string line(sql.substr(line_start, line_end - line_start));
  for (char& c : line) {
    if (c == '\t' || c == '\r') c = ' ';
  }
  // The statement is user text: escape control bytes and bound what is echoed.
  return MakeError(ErrorCode::kParseError, "{} at position {}\n  {}\n  {}^",
                   EscapeControlCharacters(what), pos + 1,
                   EscapeForMessage(line, kEchoBytes),
                   std::string(std::min<size_t>(pos - line_start, kEchoBytes), ' '));
}

LineColumn LineColumnAt(std::string_view text, int32_t pos) {
  size_t end = std::min(static_cast<size_t>(std::max(pos, 0)), text.size());
  LineColumn lc{1, 1};
  for (size_t i = 0; i < end; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++lc.line;
      lc.column = 1;
    } else if ((c & 0xC0) != 0x80) {
      ++lc.column;
    }
  }
  return lc;
}

Error ScriptSyntaxError(std::string_view script, int32_t pos, std::string_view what) {
  size_t at = std::min(static_cast<size_t>(std::max(pos, 0)), script.size());
  LineColumn lc = LineColumnAt(script, static_cast<int32_t>(at));
  size_t newline = script.substr(0, at).rfind('\n');
  size_t line_start = newline == std::string_view::npos ? 0 : newline + 1;
  size_t line_end = script.find('\n', at);
  if (line_end == std::string_view::npos) line_end = script.size();
  std::string line(script.substr(line_start, line_end - line_start));
  for (char& c : line) {
    if (c == '\t' || c == '\r') c = ' ';
  }
  return MakeError(ErrorCode::kParseError,
                   "syntax error at line {}, column {}: {}\n  {}\n  {}^", lc.line,
                   lc.column, EscapeControlCharacters(what),
                   EscapeForMessage(line, kEchoBytes),
                   std::string(std::min<size_t>(lc.column - 1, kEchoBytes), ' '));
}

Result<std::vector<Token>> Tokenize(std::string_view sql) {
  return Tokenize(sql, [sql](int32_t pos, std::string_view what) {
    return ExprSyntaxError(sql, pos, what);
  });
}

Result<std::vector<Token>> Tokenize(std::string_view sql, const SyntaxErrorFn& error) {
  if (sql.size() > (1u << 30)) {
    return MakeError(ErrorCode::kParseError, "expression is too long ({} bytes)",
                     sql.size());
  }
  // Every identifier, literal and comment is UTF-8: Delta stores names, CHECK text and
  // values as UTF-8 strings that other engines decode strictly.
  if (size_t bad = 0; !IsValidUtf8(sql, &bad)) {
    return error(static_cast<int32_t>(bad),
                 fmt::format("invalid UTF-8 (byte {}); SQL text must be UTF-8",
                             EscapeForMessage(sql.substr(bad, 1))));
  }
  std::vector<Token> tokens;
  size_t i = 0;
  auto push = [&](TokenKind kind, std::string text, size_t start, size_t end) {
    tokens.push_back(Token{kind, std::move(text), static_cast<int32_t>(start),
                           static_cast<int32_t>(end)});
  };
  while (i < sql.size()) {
    char c = sql[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      while (i < sql.size() && sql[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < sql.size() && sql[i + 1] == '*') {
      size_t close = sql.find("*/", i + 2);
      if (close == std::string_view::npos) {
        return error(static_cast<int32_t>(i), "unterminated comment");
      }
      i = close + 2;
      continue;
    }
    size_t start = i;
    // X'hex' binary literal.
    if ((c == 'x' || c == 'X') && i + 1 < sql.size() && sql[i + 1] == '\'') {
      size_t close = sql.find('\'', i + 2);
      if (close == std::string_view::npos) {
        return error(static_cast<int32_t>(i), "unterminated binary literal");
      }
      std::string hex(sql.substr(i + 2, close - i - 2));
      for (size_t k = 0; k < hex.size(); ++k) {
        if (HexValue(hex[k]) < 0) {
          return error(static_cast<int32_t>(i + 2 + k),
                       "invalid hex digit in binary literal");
        }
      }
      push(TokenKind::kBinary, std::move(hex), start, close + 1);
      i = close + 1;
      continue;
    }
    if (IsIdentStart(c)) {
      while (i < sql.size() && IsIdentChar(sql[i])) ++i;
      push(TokenKind::kIdent, std::string(sql.substr(start, i - start)), start, i);
      continue;
    }
    if (IsDigit(c) || (c == '.' && i + 1 < sql.size() && IsDigit(sql[i + 1]))) {
      while (i < sql.size() && IsDigit(sql[i])) ++i;
      if (i < sql.size() && sql[i] == '.') {
        ++i;
        while (i < sql.size() && IsDigit(sql[i])) ++i;
      }
      if (i < sql.size() && (sql[i] == 'e' || sql[i] == 'E')) {
        size_t j = i + 1;
        if (j < sql.size() && (sql[j] == '+' || sql[j] == '-')) ++j;
        if (j < sql.size() && IsDigit(sql[j])) {
          i = j;
          while (i < sql.size() && IsDigit(sql[i])) ++i;
        }
      }
      // Suffix letters (L, S, Y, D, F, BD) belong to the number; anything else glued
      // to it is an error, reported by the parser's literal conversion.
      while (i < sql.size() && IsIdentChar(sql[i])) ++i;
      push(TokenKind::kNumber, std::string(sql.substr(start, i - start)), start, i);
      continue;
    }
    if (c == '\'' || c == '"') {
      std::string value;
      DELTA_ASSIGN_OR_RETURN(size_t end, LexString(sql, i, &value, error));
      push(TokenKind::kString, std::move(value), start, end);
      i = end;
      continue;
    }
    if (c == '`') {
      std::string name;
      ++i;
      bool closed = false;
      while (i < sql.size()) {
        if (sql[i] == '`') {
          if (i + 1 < sql.size() && sql[i + 1] == '`') {
            name.push_back('`');
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        name.push_back(sql[i++]);
      }
      if (!closed) {
        return error(static_cast<int32_t>(start), "unterminated quoted identifier");
      }
      push(TokenKind::kQuotedIdent, std::move(name), start, i);
      continue;
    }
    static constexpr std::string_view kThree[] = {"<=>"};
    static constexpr std::string_view kTwo[] = {
        "==", "<>", "!=", "<=", ">=", "||", "=>", "->"};
    std::string_view rest = sql.substr(i);
    size_t len = 0;
    for (auto s : kThree) {
      if (rest.substr(0, 3) == s) len = 3;
    }
    if (len == 0) {
      for (auto s : kTwo) {
        if (rest.substr(0, 2) == s) len = 2;
      }
    }
    if (len == 0 &&
        std::string_view("(),.+-*/%=<>:;[]").find(c) != std::string_view::npos) {
      len = 1;
    }
    if (len == 0) {
      return error(
          static_cast<int32_t>(i),
          fmt::format("unexpected character '{}'", EscapeForMessage(sql.substr(i, 1))));
    }
    push(TokenKind::kSymbol, std::string(rest.substr(0, len)), start, i + len);
    i += len;
  }
  push(TokenKind::kEnd, "", sql.size(), sql.size());
  return tokens;
}

}  // namespace deltaguard::internal
