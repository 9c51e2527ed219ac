/// \file deltaguard/schema/column_path.h
/// Dotted column paths as users write them ("a.b", "`x.y`.z"): the one parser shared
/// by scan projections, stats column lists and, later, SQL identifiers, and the one
/// printer of each form a path is shown in (messages and the log).
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

/// The parts joined by '.' as they are, no quoting ({"a", "b.c"} -> "a.b.c"): the raw
/// form messages use for a column named by its stored path.
std::string JoinColumnPath(const std::vector<std::string>& parts);

/// `name` under the raw path `parent` ("" -> "name", "s" -> "s.name"), no quoting; the
/// step of a walk that builds JoinColumnPath's form one level at a time.
std::string ChildColumnPath(std::string_view parent, std::string_view name);

/// One part in the form ParseColumnPath reads back: as it is, or in backticks (inner
/// backticks doubled) when it holds a '.' or a '`'.
std::string QuoteColumnPathPart(std::string_view part);

/// The parts quoted by QuoteColumnPathPart joined by '.' ({"a", "b.c"} -> "a.`b.c`"):
/// the form Spark prints a column path in, and the inverse of ParseColumnPath.
std::string FormatColumnPath(const std::vector<std::string>& parts);

/// `name` quoted by QuoteColumnPathPart under the formatted path `parent` (as
/// ChildColumnPath): the step of a walk that builds FormatColumnPath's form.
std::string FormatChildColumnPath(std::string_view parent, std::string_view name);

}  // namespace deltaguard
