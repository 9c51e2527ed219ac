/// \file deltaguard/util/json_bounded.h
/// The one way the engine parses JSON text into a RapidJSON DOM: the nesting is checked
/// first (util/depth_guard.h kMaxJsonDepth, a byte scan) and the parse is iterative, so
/// neither the parser nor any recursive walk of the DOM afterwards (Accept, Writer)
/// can overflow the stack on hostile input.
#pragma once

#include <rapidjson/document.h>

#include <string_view>

#include "deltaguard/util/depth_guard.h"

namespace deltaguard {

/// Why ParseBoundedJson failed.
enum class JsonParseOutcome { kOk, kTooDeep, kInvalid };

/// Parse `text` into `doc` (any GenericDocument). kTooDeep leaves `doc` null; kInvalid
/// leaves RapidJSON's error in `doc` (GetParseError, GetErrorOffset).
template <typename Document>
JsonParseOutcome ParseBoundedJson(std::string_view text, Document* doc,
                                  int limit = kMaxJsonDepth) {
  if (JsonNestingDepth(text, limit).exceeded_at != std::string_view::npos) {
    doc->SetNull();
    return JsonParseOutcome::kTooDeep;
  }
  doc->template Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
  return doc->HasParseError() ? JsonParseOutcome::kInvalid : JsonParseOutcome::kOk;
}

}  // namespace deltaguard
