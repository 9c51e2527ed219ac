/// \file deltaguard/schema/column_path.h
/// Dotted column paths as users write them ("a.b", "`x.y`.z"): the one parser shared
/// by scan projections, stats column lists and, later, SQL identifiers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/util/result.h"

namespace deltaguard {

/// Split a dotted path into its parts: "a.b" -> {"a", "b"}. Backticks quote a part that
/// contains dots ("`a.b`.c" -> {"a.b", "c"}); a doubled backtick inside quotes is a
/// literal backtick. Whitespace around each part is trimmed. An unbalanced backtick or
/// an empty part is kInvalidArgument naming the path.
Result<std::vector<std::string>> ParseColumnPath(std::string_view text);

}  // namespace deltaguard
