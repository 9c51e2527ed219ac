/// \file deltaguard/exec/text_stream_internal.h
/// The byte stream Arrow's CSV and JSON readers read an input file through
/// (input_source.cc only). It checks, in one pass ahead of the parser and with exact
/// physical line numbers, what the parser would accept silently or report without a
/// line (docs/behaviour.md "CSV and JSON input"):
/// - UTF-8: an ill-formed sequence is kInvalidArgument naming the file, line and column,
///   or is replaced by U+FFFD when the user asks for it;
/// - CSV quotes (csv_scan_internal.h): an unterminated quote never merges rows;
/// - JSON lines longer than the reader's block, which Arrow can only refuse with
///   "straddling object straddles two block boundaries";
/// - NDJSON lines (json_line_check_internal.h): each is blank or one valid JSON object
///   nested no deeper than a Delta column can hold.
#pragma once

#include <arrow/io/interfaces.h>

#include <cstdint>
#include <memory>
#include <string>

namespace deltaguard {

struct TextStreamChecks {
  std::string path;  ///< for messages
  bool replace_invalid_utf8 = false;
  /// CSV: track quotes with this delimiter (multi_line: quoted values may span lines).
  bool csv = false;
  char csv_delimiter = ',';
  bool csv_multi_line = false;
  /// NDJSON: check every line with CheckJsonLine.
  bool json_lines = false;
  /// > 0: a line longer than this many bytes is kInvalidArgument naming it, the limit and
  /// `max_line_hint` (what the user can set to raise it).
  int64_t max_line_bytes = 0;
  std::string max_line_hint;
};

/// `inner` read through the checks. Errors are returned by Read as an arrow::Status that
/// carries the deltaguard Error (arrow/status.h).
std::shared_ptr<arrow::io::InputStream> MakeCheckedTextStream(
    std::shared_ptr<arrow::io::InputStream> inner, TextStreamChecks checks);

}  // namespace deltaguard
