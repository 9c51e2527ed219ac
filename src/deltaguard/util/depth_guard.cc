#include "deltaguard/util/depth_guard.h"

namespace deltaguard {

JsonDepthScan JsonNestingDepth(std::string_view text, int limit) {
  JsonDepthScan scan;
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '{':
      case '[':
        if (++depth > scan.max_depth) scan.max_depth = depth;
        if (depth > limit) {
          scan.exceeded_at = i;
          return scan;
        }
        break;
      case '}':
      case ']':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return scan;
}

}  // namespace deltaguard
