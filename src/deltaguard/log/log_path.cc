#include "deltaguard/log/log_path.h"

#include <fmt/format.h>

#include <charconv>

#include "deltaguard/io/fs/file_system.h"

namespace deltaguard {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Parse a run of digits at the front of `s` (1..19 digits, fits int64); advances `s`.
std::optional<int64_t> TakeNumber(std::string_view* s) {
  size_t n = 0;
  while (n < s->size() && IsDigit((*s)[n])) ++n;
  if (n == 0 || n > 20) return std::nullopt;
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s->data(), s->data() + n, v);
  if (ec != std::errc() || v > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  s->remove_prefix(n);
  return static_cast<int64_t>(v);
}

bool TakePrefix(std::string_view* s, std::string_view prefix) {
  if (s->substr(0, prefix.size()) != prefix) return false;
  s->remove_prefix(prefix.size());
  return true;
}

// "file:" URI → local path (already decoded); nullopt if not a file: URI.
std::optional<std::string_view> StripFileScheme(std::string_view s) {
  if (s.size() < 5) return std::nullopt;
  std::string_view scheme = s.substr(0, 5);
  if (scheme != "file:" && scheme != "FILE:") return std::nullopt;
  s.remove_prefix(5);
  if (TakePrefix(&s, "//")) {
    // file://<authority>/path: only an empty authority or localhost is local.
    size_t slash = s.find('/');
    if (slash == std::string_view::npos) return std::nullopt;
    std::string_view host = s.substr(0, slash);
    if (!host.empty() && host != "localhost") return std::nullopt;
    s.remove_prefix(slash);
  }
  return s;
}

// True for "scheme://..." (RFC 3986 scheme characters before "://").
bool HasUriScheme(std::string_view s) {
  size_t colon = s.find("://");
  if (colon == std::string_view::npos || colon == 0) return false;
  for (size_t i = 0; i < colon; ++i) {
    char c = s[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (i > 0 && (IsDigit(c) || c == '+' || c == '-' || c == '.'));
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::optional<LogFileName> ParseLogFileName(std::string_view name) {
  std::string_view s = name;
  std::optional<int64_t> version = TakeNumber(&s);
  if (!version) return std::nullopt;
  LogFileName out;
  out.version = *version;
  if (s == ".json") {
    out.type = LogFileType::kCommit;
    return out;
  }
  if (s == ".crc") {
    out.type = LogFileType::kChecksum;
    return out;
  }
  if (TakePrefix(&s, ".checkpoint.")) {
    if (s == "parquet") {
      out.type = LogFileType::kCheckpointClassic;
      return out;
    }
    // Multi-part: <part>.<num_parts>.parquet, both numeric.
    std::string_view t = s;
    std::optional<int64_t> part = TakeNumber(&t);
    if (part && TakePrefix(&t, ".")) {
      std::optional<int64_t> num = TakeNumber(&t);
      if (num && t == ".parquet") {
        if (*part < 1 || *num < 1 || *part > *num || *num > INT32_MAX)
          return std::nullopt;
        out.type = LogFileType::kCheckpointMultiPart;
        out.part = static_cast<int32_t>(*part);
        out.num_parts = static_cast<int32_t>(*num);
        return out;
      }
    }
    // UUID-named V2: <uuid>.json|parquet, the uuid holding no '.'.
    size_t dot = s.find('.');
    if (dot == 0 || dot == std::string_view::npos) return std::nullopt;
    std::string_view ext = s.substr(dot);
    if (ext == ".json") {
      out.type = LogFileType::kCheckpointV2Json;
      return out;
    }
    if (ext == ".parquet") {
      out.type = LogFileType::kCheckpointV2Parquet;
      return out;
    }
    return std::nullopt;
  }
  if (TakePrefix(&s, ".")) {
    std::optional<int64_t> end = TakeNumber(&s);
    if (end && s == ".compacted.json" && *end >= out.version) {
      out.type = LogFileType::kCompaction;
      out.end_version = *end;
      return out;
    }
  }
  return std::nullopt;
}

std::string VersionPrefix(int64_t version) { return fmt::format("{:020d}", version); }

std::string CommitFileName(int64_t version) {
  return fmt::format("{:020d}.json", version);
}

std::string CheckpointFileName(int64_t version) {
  return fmt::format("{:020d}.checkpoint.parquet", version);
}

std::string MultiPartCheckpointFileName(int64_t version, int32_t part,
                                        int32_t num_parts) {
  return fmt::format("{:020d}.checkpoint.{:010d}.{:010d}.parquet", version, part,
                     num_parts);
}

std::string_view BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string NormalizeTableRoot(std::string_view table_root) {
  std::string out;
  if (std::optional<std::string_view> local = StripFileScheme(table_root)) {
    out = PercentDecodeLenient(*local);
  } else {
    out = std::string(table_root);
  }
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string LogDirOf(std::string_view table_root) {
  return JoinPath(table_root, kDeltaLogDirName);
}

std::string PercentDecodeLenient(std::string_view s) {
  if (s.find('%') == std::string_view::npos) return std::string(s);
  auto hex = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      int hi = hex(s[i + 1]);
      int lo = hex(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

std::string ResolveLogPath(std::string_view base_dir, std::string_view logged_path) {
  // Fast path (almost every path Spark writes): relative, nothing to decode.
  if (!logged_path.empty() && logged_path.front() != '/' &&
      logged_path.find_first_of("%:") == std::string_view::npos) {
    while (base_dir.size() > 1 && base_dir.back() == '/') base_dir.remove_suffix(1);
    std::string out;
    out.reserve(base_dir.size() + 1 + logged_path.size());
    out.append(base_dir);
    if (!out.empty() && out.back() != '/') out.push_back('/');
    out.append(logged_path);
    return out;
  }
  if (std::optional<std::string_view> local = StripFileScheme(logged_path)) {
    return PercentDecodeLenient(*local);
  }
  if (HasUriScheme(logged_path)) return PercentDecodeLenient(logged_path);
  std::string decoded = PercentDecodeLenient(logged_path);
  if (!decoded.empty() && decoded.front() == '/') return decoded;
  return JoinPath(base_dir, decoded);
}

std::optional<std::string> NormalizePathLexically(std::string_view path) {
  const bool absolute = !path.empty() && path.front() == '/';
  std::string out;
  out.reserve(path.size());
  if (absolute) out.push_back('/');
  const size_t base = out.size();  // out[0, base) is never removed
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view seg = path.substr(pos, slash - pos);
    pos = slash + 1;
    if (seg.empty() || seg == ".") continue;
    if (seg == "..") {
      if (out.size() == base) return std::nullopt;
      size_t cut = out.rfind('/');
      cut = (cut == std::string::npos || cut < base) ? base : cut;
      out.resize(cut);
      continue;
    }
    if (out.size() > base) out.push_back('/');
    out.append(seg);
  }
  return out;
}

bool IsUnderRoot(std::string_view path, std::string_view root) {
  if (root.empty()) return false;
  if (path.substr(0, root.size()) != root) return false;
  if (path.size() == root.size() || root == "/") return true;
  return path[root.size()] == '/';
}

std::string QuoteForMessage(std::string_view s) {
  constexpr size_t kMaxBytes = 200;
  std::string out = "\"";
  for (size_t i = 0; i < s.size() && i < kMaxBytes; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20 || c >= 0x7f) {
      out.append(fmt::format("\\x{:02x}", c));
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  out.push_back('"');
  if (s.size() > kMaxBytes) out.append("...");
  return out;
}

namespace {

Error OutsideRoot(std::string_view logged_path, std::string_view table_root,
                  std::string_view why) {
  return MakeError(ErrorCode::kCorruptLog, "path {} {} {}", QuoteForMessage(logged_path),
                   why, QuoteForMessage(table_root));
}

}  // namespace

Result<std::string> ResolveTablePath(std::string_view table_root,
                                     std::string_view logged_path,
                                     const LogPathPolicy& policy) {
  // Fast path (every path Spark writes into its own table): relative, nothing to decode,
  // no ".." segment, so it cannot leave the root.
  if (!logged_path.empty() && logged_path.front() != '/' &&
      logged_path.find_first_of(std::string_view("%:\0", 3)) == std::string_view::npos &&
      logged_path.find("..") == std::string_view::npos) {
    return ResolveLogPath(table_root, logged_path);
  }
  std::string resolved = ResolveLogPath(table_root, logged_path);
  if (resolved.find('\0') != std::string::npos) {
    return MakeError(ErrorCode::kCorruptLog, "path {} holds a NUL byte",
                     QuoteForMessage(logged_path));
  }
  if (policy.allow_outside_root) return resolved;
  std::optional<std::string_view> local = StripFileScheme(logged_path);
  if (!local && HasUriScheme(logged_path)) {
    return OutsideRoot(logged_path, table_root, "is a URI outside the table root");
  }
  std::string decoded = PercentDecodeLenient(local ? *local : logged_path);
  std::optional<std::string> root = NormalizePathLexically(table_root);
  if (!decoded.empty() && decoded.front() == '/') {
    std::optional<std::string> abs = NormalizePathLexically(decoded);
    if (!abs || !root || !IsUnderRoot(*abs, *root)) {
      return OutsideRoot(logged_path, table_root,
                         "is an absolute path outside the table root");
    }
    return *abs;
  }
  std::optional<std::string> rel = NormalizePathLexically(decoded);
  if (!rel || !root)
    return OutsideRoot(logged_path, table_root, "climbs out of the table root");
  if (rel->empty()) return OutsideRoot(logged_path, table_root, "names the table root");
  return JoinPath(*root, *rel);
}

}  // namespace deltaguard
