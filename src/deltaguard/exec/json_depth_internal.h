/// \file deltaguard/exec/json_depth_internal.h
/// Refuse NDJSON input nested deeper than a Delta column can hold before Arrow's JSON
/// reader sees it (Arrow recurses per level while parsing and converting), with the
/// file and line named. A byte scan: brackets outside strings, escapes skipped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "deltaguard/util/depth_guard.h"
#include "deltaguard/util/result.h"

namespace deltaguard::internal {

/// Incremental nesting scan over text fed in chunks of any size (a chunk may end inside
/// a string or an escape).
class JsonDepthScanner {
 public:
  explicit JsonDepthScanner(int limit) : limit_(limit) {}
  /// False once a value nested deeper than the limit was seen; `line()` is then its
  /// 1-based line.
  bool Feed(std::string_view chunk);
  int64_t line() const { return line_; }
  int limit() const { return limit_; }

 private:
  int limit_;
  int depth_ = 0;
  int64_t line_ = 1;
  bool in_string_ = false;
  bool escaped_ = false;
};

/// kInvalidArgument naming `path`, the line and the limit when a record of the NDJSON
/// file nests deeper than `limit` (kMaxInputJsonDepth: the record object plus the
/// deepest Delta type); kIOError when the file cannot be read.
Status CheckJsonInputDepth(const std::string& path, int limit = kMaxInputJsonDepth);

}  // namespace deltaguard::internal
