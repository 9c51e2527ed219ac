#include "deltaguard/exec/csv_scan_internal.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace deltaguard {

namespace {
constexpr char kQuote = '"';
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

bool IsLineEnd(char c) { return c == '\n' || c == '\r'; }

// The offset of the next `c` in `s` at or after `from`, or s.size().
size_t Next(std::string_view s, size_t from, char c) {
  const size_t at = s.find(c, from);  // safe on an empty view without data
  return at == std::string_view::npos ? s.size() : at;
}
}  // namespace

int64_t CsvQuoteScanner::CountLineEnds(std::string_view s, bool* prev_cr) {
  if (s.empty()) return 0;
  int64_t n = 0;
  if (std::memchr(s.data(), '\r', s.size()) == nullptr) {
    n = std::count(s.begin(), s.end(), '\n');
    if (*prev_cr && s[0] == '\n') --n;  // the second half of a "\r\n"
  } else {
    bool cr = *prev_cr;
    for (char c : s) {
      if (c == '\r' || (c == '\n' && !cr)) ++n;
      cr = c == '\r';
    }
  }
  *prev_cr = s.back() == '\r';
  return n;
}

int64_t CsvQuoteScanner::LineAt(std::string_view s, size_t pos) const {
  bool cr = prev_cr_;
  return line_ + CountLineEnds(s.substr(0, pos), &cr);
}

std::optional<std::string> CsvQuoteScanner::Scan(std::string_view s) {
  if (problem_) return problem_;
  if (at_start_ && !s.empty()) {
    at_start_ = false;
    // Arrow skips a leading byte order mark; the field after it starts the file.
    if (s.substr(0, kUtf8Bom.size()) == kUtf8Bom) s.remove_prefix(kUtf8Bom.size());
  }
  quote_pos_ = std::string_view::npos;
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    switch (state_) {
      case State::kFieldStart:
      case State::kUnquoted: {
        // Unquoted text: only the next quote matters, and whether a field starts there.
        const size_t q = Next(s, i, kQuote);
        bool field_start = state_ == State::kFieldStart;
        if (q > i) {
          const char prev = s[q - 1];
          field_start = prev == delimiter_ || IsLineEnd(prev);
        }
        if (q == n) {
          state_ = field_start ? State::kFieldStart : State::kUnquoted;
          i = n;
          break;
        }
        i = q + 1;
        if (field_start) {
          state_ = State::kQuoted;
          quote_pos_ = q;
        } else {
          state_ = State::kUnquoted;  // a literal quote inside unquoted text
        }
        break;
      }
      case State::kQuoted: {
        size_t j = i;
        if (multi_line_) {
          j = Next(s, i, kQuote);
        } else {
          while (j < n && s[j] != kQuote && !IsLineEnd(s[j])) ++j;
        }
        if (j == n) {
          i = n;
          break;
        }
        i = j + 1;
        if (s[j] == kQuote) {
          state_ = State::kQuoteInQuoted;
          break;
        }
        // A line end inside a quoted field (strict mode): the quote is on this line.
        const int64_t line =
            quote_pos_ != std::string_view::npos ? LineAt(s, quote_pos_) : quote_line_;
        Fail(fmt::format(
            "line {}: the quoted field that opens on this line is not closed before "
            "the end of the line; a quoted value spans lines only with multiLine "
            "(`--multi-line`, `read_csv(..., multiLine => true)`); a quote inside a "
            "quoted value is written as two quotes (\"\")",
            line));
        return problem_;
      }
      case State::kQuoteInQuoted:
        if (s[i] == kQuote) {  // "" inside a quoted field: a literal quote
          ++i;
          state_ = State::kQuoted;
        } else if (s[i] == delimiter_ || IsLineEnd(s[i])) {
          ++i;
          state_ = State::kFieldStart;  // closed, and the field ends here
        } else {
          state_ = State::kUnquoted;  // closed; s[i] is unquoted text
        }
        break;
    }
  }
  const bool open = state_ == State::kQuoted || state_ == State::kQuoteInQuoted;
  if (open && quote_pos_ != std::string_view::npos) quote_line_ = LineAt(s, quote_pos_);
  line_ += CountLineEnds(s, &prev_cr_);
  return std::nullopt;
}

std::optional<std::string> CsvQuoteScanner::Finish() {
  if (problem_) return problem_;
  if (state_ == State::kQuoted) {
    Fail(fmt::format(
        "line {}: the quoted field that opens on this line is not closed before the end "
        "of the file; close the quote (a quote inside a quoted value is written as two "
        "quotes (\"\"))",
        quote_line_));
  }
  return problem_;
}

}  // namespace deltaguard
