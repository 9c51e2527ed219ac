// NormalizeTablePath (table_path.h).

#include "deltaguard/write/table_path.h"

#include <fmt/format.h>

#include <filesystem>

#include "deltaguard/util/string_util.h"

namespace deltaguard {

Result<std::string> NormalizeTablePath(const std::string& path) {
  if (path.empty()) return MakeError(ErrorCode::kInvalidArgument, "empty table path");
  std::string local = path;
  if (std::string_view(path).starts_with("file:")) {
    std::string_view rest = std::string_view(path).substr(5);
    if (rest.starts_with("//")) {
      rest.remove_prefix(2);
      size_t slash = rest.find('/');
      std::string_view host = rest.substr(0, slash);
      if (!host.empty() && host != "localhost") {
        return MakeError(ErrorCode::kInvalidArgument,
                         "table URI '{}' names remote host '{}'; only local paths are "
                         "supported",
                         path, host);
      }
      rest = slash == std::string_view::npos ? std::string_view("/") : rest.substr(slash);
    }
    auto decoded = PercentDecode(rest);
    if (!decoded)
      return WithContext(decoded.error(), fmt::format("table URI '{}'", path));
    local = std::move(*decoded);
  } else if (auto colon = path.find("://");
             colon != std::string::npos && path.find('/') > colon) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "table URI '{}': scheme '{}' is not supported (local paths only)",
                     path, path.substr(0, colon));
  }
  // Pure path arithmetic on a local path (the working directory joined, `.`/`..`
  // folded); no file is touched, so this is not I/O past the FileSystem seam.
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(local, ec);
  if (ec) {
    return MakeError(ErrorCode::kInvalidArgument, "cannot make '{}' absolute: {}", path,
                     ec.message());
  }
  std::string out = abs.lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

}  // namespace deltaguard
