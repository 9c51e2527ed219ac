#include "deltaguard/schema/column_path.h"

#include "deltaguard/util/string_util.h"

namespace deltaguard {

Result<std::vector<std::string>> ParseColumnPath(std::string_view text) {
  std::vector<std::string> parts(1);
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '`') {
      if (quoted && i + 1 < text.size() && text[i + 1] == '`') {
        parts.back().push_back('`');
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == '.' && !quoted) {
      parts.emplace_back();
    } else {
      parts.back().push_back(c);
    }
  }
  if (quoted) {
    return MakeError(ErrorCode::kInvalidArgument, "column '{}': unbalanced backtick",
                     text);
  }
  for (auto& p : parts) {
    std::string_view trimmed = Trim(p);
    if (trimmed.empty()) {
      return MakeError(ErrorCode::kInvalidArgument, "column '{}': empty name part", text);
    }
    p = std::string(trimmed);
  }
  return parts;
}

std::string JoinColumnPath(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += '.';
    out += parts[i];
  }
  return out;
}

std::string ChildColumnPath(std::string_view parent, std::string_view name) {
  std::string out;
  out.reserve(parent.size() + 1 + name.size());
  out.append(parent);
  if (!parent.empty()) out += '.';
  out.append(name);
  return out;
}

std::string QuoteColumnPathPart(std::string_view part) {
  if (part.find_first_of(".`") == std::string_view::npos) return std::string(part);
  return BacktickQuote(part);
}

std::string FormatColumnPath(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += '.';
    out += QuoteColumnPathPart(parts[i]);
  }
  return out;
}

std::string FormatChildColumnPath(std::string_view parent, std::string_view name) {
  return ChildColumnPath(parent, QuoteColumnPathPart(name));
}

}  // namespace deltaguard
