// Source listing (ingest/listing.h).

#include "deltaguard/ingest/listing.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>

#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

bool Hidden(std::string_view name) {
  return name.empty() || name[0] == '_' || name[0] == '.';
}

std::string_view BaseName(std::string_view path) {
  auto slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

Status Walk(const FileSystem& fs, const std::string& dir, const std::string& glob,
            std::vector<std::pair<std::string, std::string>> partitions,
            std::vector<IngestFile>* out) {
  DELTA_ASSIGN_OR_RETURN(auto files, fs.List(dir));
  for (const auto& f : files) {
    const std::string_view name = BaseName(f.path);
    if (Hidden(name) || (!glob.empty() && !MatchGlob(glob, name))) continue;
    out->push_back(IngestFile{f.path, f.size, f.modification_time, partitions});
  }
  auto dirs = fs.ListDirs(dir);
  if (!dirs) {
    if (dirs.error().code == ErrorCode::kUnsupportedFeature) return OkStatus();
    return dirs.error();
  }
  for (const auto& d : *dirs) {
    const std::string_view name = BaseName(d.path);
    if (Hidden(name)) continue;
    auto sub = partitions;
    auto eq = name.find('=');
    if (eq != std::string_view::npos && eq > 0) {
      auto value = PercentDecode(name.substr(eq + 1));
      sub.emplace_back(std::string(name.substr(0, eq)),
                       value ? *value : std::string(name.substr(eq + 1)));
    }
    DELTA_RETURN_IF_ERROR(Walk(fs, d.path, glob, std::move(sub), out));
  }
  return OkStatus();
}

}  // namespace

bool MatchGlob(std::string_view pattern, std::string_view name) {
  const auto open = pattern.find('{');
  const auto close = open == std::string_view::npos ? open : pattern.find('}', open);
  if (close != std::string_view::npos) {
    const std::string_view head = pattern.substr(0, open);
    const std::string_view tail = pattern.substr(close + 1);
    for (auto alt : Split(pattern.substr(open + 1, close - open - 1), ',')) {
      std::string p = std::string(head) + std::string(alt) + std::string(tail);
      if (MatchGlob(p, name)) return true;
    }
    return false;
  }
  const std::string p(pattern);
  const std::string n(name);
  return fnmatch(p.c_str(), n.c_str(), 0) == 0;
}

Result<std::vector<IngestFile>> ListSourceFiles(const FileSystem& fs,
                                                const std::string& root,
                                                const std::string& glob) {
  std::vector<IngestFile> out;
  auto st = Walk(fs, root, glob, {}, &out);
  if (!st) {
    if (st.error().code == ErrorCode::kNotFound) {
      return MakeError(ErrorCode::kNotFound, "the source directory '{}' does not exist",
                       root);
    }
    return WithContext(st.error(), fmt::format("listing the source '{}'", root));
  }
  std::sort(out.begin(), out.end(),
            [](const IngestFile& a, const IngestFile& b) { return a.path < b.path; });
  return out;
}

}  // namespace deltaguard
