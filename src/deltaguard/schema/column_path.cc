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

}  // namespace deltaguard
