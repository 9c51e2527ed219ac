/// \file deltaguard/exec/csv_scan_internal.h
/// The quote state of a CSV byte stream, tracked ahead of Arrow's parser (input_source.cc
/// only), so that an unterminated quote never merges rows silently (docs/behaviour.md
/// "CSV and JSON input").
///
/// The rules are the parser's (Arrow's CSV ParseOptions with quoting on, escaping off and
/// double_quote on): a quote opens a quoted field only as the field's first byte; inside
/// one, `""` is a literal quote and a lone quote closes it; after the closing quote the
/// rest of the field is unquoted text, where quotes are literal. A line ends at `\n`,
/// `\r\n` or a lone `\r`. Without multiLine a line end inside a quoted field is an error
/// naming the (1-based, physical) line where the quote opened; with it, the line end is
/// part of the value, but the end of the input inside a quoted field is still an error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace deltaguard {

class CsvQuoteScanner {
 public:
  CsvQuoteScanner(char delimiter, bool multi_line)
      : delimiter_(delimiter), multi_line_(multi_line) {}

  /// Feed the next bytes of the input. Returns the problem (without the file name) the
  /// first time the input breaks the rules, then the same problem on every later call.
  std::optional<std::string> Scan(std::string_view bytes);
  /// The input ended: an open quoted field is a problem.
  std::optional<std::string> Finish();

  /// Line ends in `s`, where a '\n' right after a '\r' (also one that ended the previous
  /// piece: `*prev_cr`) is the second half of a "\r\n"; updates `*prev_cr`.
  static int64_t CountLineEnds(std::string_view s, bool* prev_cr);

 private:
  enum class State : uint8_t { kFieldStart, kUnquoted, kQuoted, kQuoteInQuoted };

  // The line of byte `pos` of the piece being scanned (`s`).
  int64_t LineAt(std::string_view s, size_t pos) const;
  void Fail(std::string problem) { problem_ = std::move(problem); }

  char delimiter_;
  bool multi_line_;
  State state_ = State::kFieldStart;
  bool at_start_ = true;  // no byte seen yet (a UTF-8 byte order mark is skipped)
  // Lines are counted once per piece (vectorised), and inside a piece only where a
  // problem is reported or a quoted field is still open at the piece's end.
  int64_t line_ = 1;                           // the line the current piece starts on
  bool prev_cr_ = false;                       // the previous piece ended with '\r'
  int64_t quote_line_ = 0;                     // the line of the open quote, once known
  size_t quote_pos_ = std::string_view::npos;  // its offset in the current piece
  std::optional<std::string> problem_;
};

}  // namespace deltaguard
