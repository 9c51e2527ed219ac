/// \file deltaguard/exec/json_line_check_internal.h
/// What a line of NDJSON input must be before Arrow's JSON reader sees it (the checking
/// stream, text_stream_internal.h, calls this once per physical line): blank, or exactly
/// one JSON object, syntactically valid and nested no deeper than a Delta column can
/// hold (kMaxInputJsonDepth). Arrow's reader recurses per nesting level, reads a
/// top-level `null` at the start of a file out of bounds (a SEGV found by fuzzing,
/// test/fuzz/corpus/json_input), and names a syntax error by record count rather than
/// line; checked here first, every such line is an error naming its line and column
/// (docs/behaviour.md "CSV and JSON input").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "deltaguard/util/depth_guard.h"
#include "deltaguard/util/result.h"

namespace deltaguard::internal {

/// Why a line was refused: `column` is 1-based, in bytes from the start of the line;
/// `code` is kParseError for what is not one JSON object, kInvalidArgument for nesting
/// deeper than the limit.
struct JsonLineProblem {
  ErrorCode code = ErrorCode::kParseError;
  int64_t column = 0;
  std::string message;
};

/// nullopt when `line` (one physical line, without its '\n') is blank or holds one JSON
/// object. The parse is RapidJSON's iterative SAX parse with a handler that keeps no
/// values, so it uses no stack per level and no memory per value.
std::optional<JsonLineProblem> CheckJsonLine(std::string_view line,
                                             int depth_limit = kMaxInputJsonDepth);

}  // namespace deltaguard::internal
