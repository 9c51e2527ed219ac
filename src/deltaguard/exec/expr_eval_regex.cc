// regexp_extract, regexp_replace and regexp_like on Arrow's RE2 kernels. Spark's
// patterns are Java regular expressions; the common syntax is the same in RE2, and what
// RE2 lacks (look-around, backreferences in the pattern) is refused with RE2's message
// (docs/behaviour.md). Java's replacement syntax ($1, \$) is translated to RE2's (\1).

#include <algorithm>
#include <string>
#include <vector>

#include "deltaguard/exec/expr_eval_library_internal.h"

namespace deltaguard::internal {

namespace cp = arrow::compute;
using arrow::Datum;

namespace {

// Java replacement text as an RE2 rewrite: $n is group n, \x is x literally; RE2
// reads \n as group n and needs a literal backslash doubled.
Result<std::string> Re2Rewrite(std::string_view java) {
  std::string out;
  for (size_t i = 0; i < java.size(); ++i) {
    char ch = java[i];
    if (ch == '\\') {
      if (i + 1 >= java.size()) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "regexp_replace(): the replacement ends with a lone backslash");
      }
      ch = java[++i];
      if (ch == '\\')
        out += "\\\\";
      else
        out += ch;
    } else if (ch == '$') {
      size_t j = i + 1;
      while (j < java.size() && java[j] >= '0' && java[j] <= '9') ++j;
      if (j == i + 1) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "regexp_replace(): '$' in the replacement must name a group "
                         "($1) or be escaped (\\$)");
      }
      out += '\\';
      out.append(java.substr(i + 1, j - i - 1));
      i = j - 1;
    } else {
      out += ch;
    }
  }
  return out;
}

// The pattern with every capturing group named g1, g2, ... in order of its opening
// parenthesis and the whole match named g0 (Arrow's extract_regex returns named
// groups only). Escapes and character classes are skipped over.
std::string NameGroups(std::string_view pattern, int* groups) {
  std::string out = "(?P<g0>";
  int n = 0;
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char ch = pattern[i];
    if (ch == '\\' && i + 1 < pattern.size()) {
      out += ch;
      out += pattern[++i];
      continue;
    }
    if (in_class) {
      if (ch == ']') in_class = false;
      out += ch;
      continue;
    }
    if (ch == '[') {
      in_class = true;
      out += ch;
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];
      continue;
    }
    if (ch == '(') {
      std::string_view rest = pattern.substr(i + 1);
      const bool plain = rest.empty() || rest[0] != '?';
      // (?<name>...) and (?P<name>...) capture too; (?<= and (?<! are look-behinds.
      size_t name_at = rest.rfind("?P<", 0) == 0 ? 3
                       : (rest.rfind("?<", 0) == 0 && rest.size() > 2 && rest[2] != '=' &&
                          rest[2] != '!')
                           ? 2
                           : 0;
      if (plain || name_at > 0) {
        out += fmt::format("(?P<g{}>", ++n);
        if (name_at > 0) {
          size_t close = rest.find('>');
          i += close == std::string_view::npos ? rest.size() : close + 1;
        }
        continue;
      }
    }
    out += ch;
  }
  *groups = n;
  return out + ")";
}

}  // namespace

Result<Datum> RegexpExtract(const LibraryCall& c) {
  const int64_t idx = c.args.size() > 2 ? c.IntLiteral(2) : 1;
  int groups = 0;
  std::string named = NameGroups(c.StrLiteral(1), &groups);
  if (idx > groups) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX: regexp_extract(): the "
                     "pattern '{}' has {} group{}, but group {} was asked for",
                     c.StrLiteral(1), groups, groups == 1 ? "" : "s", idx);
  }
  cp::ExtractRegexOptions opts(named);
  DELTA_ASSIGN_OR_RETURN(Datum found, CallArrow(c, "extract_regex", {c.args[0]}, &opts));
  cp::StructFieldOptions field({static_cast<int>(idx)});
  DELTA_ASSIGN_OR_RETURN(Datum group, CallArrow(c, "struct_field", {found}, &field));
  // No match (or a group that did not take part): "" as in Spark; NULL input stays NULL.
  Datum empty(std::make_shared<arrow::StringScalar>(""));
  DELTA_ASSIGN_OR_RETURN(Datum filled, CallArrow(c, "coalesce", {group, empty}));
  DELTA_ASSIGN_OR_RETURN(Datum valid, CallArrow(c, "is_valid", {c.args[0]}));
  Datum null(arrow::MakeNullScalar(arrow::utf8()));
  return CallArrow(c, "if_else", {valid, filled, null});
}

Result<Datum> RegexpReplace(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(std::string rewrite, Re2Rewrite(c.StrLiteral(2)));
  cp::ReplaceSubstringOptions opts(c.StrLiteral(1), rewrite);
  const int64_t position = c.args.size() > 3 ? c.IntLiteral(3) : 1;
  if (position == 1) return CallArrow(c, "replace_substring_regex", {c.args[0]}, &opts);
  // From a later position (1-based, in characters): the text before it is kept as it
  // is and the pattern is matched in the rest only (so '^' anchors at the position).
  cp::SliceOptions head(0, position - 1), tail(position - 1);
  DELTA_ASSIGN_OR_RETURN(Datum before,
                         CallArrow(c, "utf8_slice_codeunits", {c.args[0]}, &head));
  DELTA_ASSIGN_OR_RETURN(Datum after,
                         CallArrow(c, "utf8_slice_codeunits", {c.args[0]}, &tail));
  DELTA_ASSIGN_OR_RETURN(Datum replaced,
                         CallArrow(c, "replace_substring_regex", {after}, &opts));
  Datum none(std::make_shared<arrow::StringScalar>(""));
  return CallArrow(c, "binary_join_element_wise", {before, replaced, none});
}

// split(str, ''): the characters (code points), the last part holding the rest when
// `limit` cuts.
Result<Datum> SplitCharacters(const LibraryCall& c, int64_t limit) {
  using LB = arrow::ListBuilder;
  return MapRows<LB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, LB& b) -> Status {
        std::string_view s = r[0].Str(i);
        DELTA_RETURN_IF_ERROR(Appended(b.Append(), c));
        auto& values = static_cast<arrow::StringBuilder&>(*b.value_builder());
        if (s.empty()) return Appended(values.Append(""), c);
        size_t at = 0;
        int64_t parts = 0;
        while (at < s.size()) {
          size_t len = 1;
          const auto lead = static_cast<unsigned char>(s[at]);
          if (lead >= 0xF0)
            len = 4;
          else if (lead >= 0xE0)
            len = 3;
          else if (lead >= 0xC0)
            len = 2;
          if (limit > 0 && parts == limit - 1) len = s.size() - at;
          len = std::min(len, s.size() - at);
          DELTA_RETURN_IF_ERROR(Appended(values.Append(s.substr(at, len)), c));
          at += len;
          ++parts;
        }
        return OkStatus();
      });
}

Result<Datum> Split(const LibraryCall& c) {
  // split(str, regex [, limit]): limit > 0 makes at most `limit` parts; otherwise every
  // part, trailing empty ones included (Spark's split(regex, -1)).
  const int64_t limit = c.args.size() > 2 ? c.IntLiteral(2) : -1;
  const std::string& pattern = c.StrLiteral(1);
  if (pattern.empty()) return SplitCharacters(c, limit);
  // A pattern that matches the empty string would split between every character in
  // Java's way (no leading empty part); Arrow's splitter does not stop on it.
  cp::MatchSubstringOptions probe(pattern);
  DELTA_ASSIGN_OR_RETURN(
      Datum empty_match,
      CallArrow(c, "match_substring_regex",
                {Datum(std::make_shared<arrow::StringScalar>(""))}, &probe));
  if (empty_match.scalar_as<arrow::BooleanScalar>().value) {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "split(): the pattern '{}' matches the empty string, which is not "
                     "supported (use '' to split into characters)",
                     pattern);
  }
  cp::SplitPatternOptions opts(pattern, limit > 0 ? limit - 1 : -1);
  return CallArrow(c, "split_pattern_regex", {c.args[0]}, &opts);
}

Result<Datum> RegexpLike(const LibraryCall& c) {
  cp::MatchSubstringOptions opts(c.StrLiteral(1));
  return CallArrow(c, "match_substring_regex", {c.args[0]}, &opts);
}

}  // namespace deltaguard::internal
