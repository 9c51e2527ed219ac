#include "deltaguard/exec/json_depth_internal.h"

#include <arrow/buffer.h>
#include <arrow/io/file.h>

#include "deltaguard/io/parquet/arrow_status_internal.h"

namespace deltaguard::internal {

bool JsonDepthScanner::Feed(std::string_view chunk) {
  for (char c : chunk) {
    if (c == '\n') ++line_;
    if (in_string_) {
      if (escaped_) {
        escaped_ = false;
      } else if (c == '\\') {
        escaped_ = true;
      } else if (c == '"') {
        in_string_ = false;
      }
      continue;
    }
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      if (++depth_ > limit_) return false;
    } else if ((c == '}' || c == ']') && depth_ > 0) {
      --depth_;
    } else if (c == '\n') {
      depth_ = 0;  // NDJSON: a record ends at its line; a broken one is Arrow's to report
    }
  }
  return true;
}

Status CheckJsonInputDepth(const std::string& path, int limit) {
  std::string context = fmt::format("cannot read JSON file '{}'", path);
  DELTA_ARROW_ASSIGN_OR_RETURN(auto file, arrow::io::ReadableFile::Open(path),
                               ErrorCode::kIOError, context);
  constexpr int64_t kChunk = 1 << 20;
  JsonDepthScanner scanner(limit);
  while (true) {
    DELTA_ARROW_ASSIGN_OR_RETURN(std::shared_ptr<arrow::Buffer> chunk, file->Read(kChunk),
                                 ErrorCode::kIOError, context);
    if (chunk->size() == 0) break;
    if (!scanner.Feed(std::string_view(reinterpret_cast<const char*>(chunk->data()),
                                       static_cast<size_t>(chunk->size())))) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "JSON file '{}' line {}: objects and arrays nest deeper than {} "
                       "levels (a Delta column holds at most {} levels of nested "
                       "types); flatten the record or store the value as a JSON string",
                       path, scanner.line(), limit, kMaxTypeDepth);
    }
  }
  return OkStatus();
}

}  // namespace deltaguard::internal
