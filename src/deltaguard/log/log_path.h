/// \file deltaguard/log/log_path.h
/// Names of the files in `_delta_log` (PROTOCOL.md "Delta Log Entries", "Checkpoints";
/// digest §1.1): building them from versions and recognising them in a listing, plus the
/// path helpers the log needs (table-root normalisation, URI decoding of logged paths).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "deltaguard/util/result.h"

namespace deltaguard {

inline constexpr std::string_view kDeltaLogDirName = "_delta_log";
inline constexpr std::string_view kSidecarDirName = "_sidecars";
inline constexpr std::string_view kLastCheckpointFileName = "_last_checkpoint";

enum class LogFileType : uint8_t {
  kCommit,               ///< v.json
  kCheckpointClassic,    ///< v.checkpoint.parquet (V1, or V2 with sidecars)
  kCheckpointMultiPart,  ///< v.checkpoint.p.n.parquet (V1 only)
  kCheckpointV2Json,     ///< v.checkpoint.<uuid>.json
  kCheckpointV2Parquet,  ///< v.checkpoint.<uuid>.parquet
  kCompaction,           ///< v.w.compacted.json (optional; deltaguard ignores them)
  kChecksum,             ///< v.crc (optional; ignored)
};

/// A recognised `_delta_log` file name.
struct LogFileName {
  LogFileType type = LogFileType::kCommit;
  int64_t version = 0;      ///< the (start) version
  int64_t end_version = 0;  ///< compaction only: last version covered
  int32_t part = 0;         ///< multi-part only: 1-based part number
  int32_t num_parts = 0;    ///< multi-part only

  bool is_checkpoint() const {
    return type == LogFileType::kCheckpointClassic ||
           type == LogFileType::kCheckpointMultiPart ||
           type == LogFileType::kCheckpointV2Json ||
           type == LogFileType::kCheckpointV2Parquet;
  }
};

/// Recognise a file name (no directory). Anything not matching one of the patterns above
/// (temp files, `_last_checkpoint`, hidden/Hadoop side files, staged commits) yields
/// std::nullopt and must be ignored by readers.
std::optional<LogFileName> ParseLogFileName(std::string_view file_name);

/// "%020d": the zero-padded version, the common prefix of all files of a version.
std::string VersionPrefix(int64_t version);
/// "%020d.json".
std::string CommitFileName(int64_t version);
/// "%020d.checkpoint.parquet".
std::string CheckpointFileName(int64_t version);
/// "%020d.checkpoint.%010d.%010d.parquet".
std::string MultiPartCheckpointFileName(int64_t version, int32_t part, int32_t num_parts);

/// The last path component.
std::string_view BaseName(std::string_view path);

/// Normalise a user-supplied table root: accept `file:///abs`, `file:/abs` and
/// `file://localhost/abs` URIs (percent-decoded), and strip trailing '/' (keeping "/").
std::string NormalizeTableRoot(std::string_view table_root);

/// `<table_root>/_delta_log`.
std::string LogDirOf(std::string_view table_root);

/// RFC 3986 percent-decoding that keeps malformed escapes literally ("a%2Fb%zz" gives
/// "a/b%zz") instead of failing as util's PercentDecode does: a reader should still
/// find the file.
std::string PercentDecodeLenient(std::string_view s);

/// Resolve a path as found in the log (add/remove/sidecar path, RFC 2396 URI) against
/// `base_dir`: percent-decode it; `file:` URIs become local absolute paths; other
/// `scheme://` URIs are returned decoded; absolute paths stay; relative paths are joined
/// to `base_dir`.
/// Does not check where the path points: readers use ResolveTablePath, which does.
std::string ResolveLogPath(std::string_view base_dir, std::string_view logged_path);

/// Lexical normalisation of a '/'-separated path: empty and "." segments are dropped and
/// ".." removes the segment before it. A leading '/' is kept. std::nullopt when a ".."
/// has nothing left to remove (the path climbs above where it starts; for an absolute
/// path, above "/"). Symbolic links are not looked at.
std::optional<std::string> NormalizePathLexically(std::string_view path);

/// True when `path` is `root` or lies below it; both must be lexically normal.
bool IsUnderRoot(std::string_view path, std::string_view root);

/// What a logged path may point at (docs/behaviour.md "Paths in the log").
struct LogPathPolicy {
  /// Accept absolute paths and URIs outside the table root, and relative paths that
  /// climb out of it, as Spark does (shallow clones log absolute URIs of the source
  /// table's files). Off by default: a log then names only files under the root.
  bool allow_outside_root = false;
};

/// Resolve a logged add/remove/deletion-vector path (RFC 2396 URI, URI-encoded) against
/// the table root, as ResolveLogPath does, and check where it points. Relative paths are
/// normalised lexically and must stay under the root; absolute paths (`/abs`, local
/// `file:` URIs) must lie under the root; other URIs (`s3://...`) and paths holding a NUL
/// byte are refused. With `policy.allow_outside_root` only the NUL check remains.
/// Errors are kCorruptLog naming the path (escaped) and the root; callers add the log
/// file and the action.
Result<std::string> ResolveTablePath(std::string_view table_root,
                                     std::string_view logged_path,
                                     const LogPathPolicy& policy = {});

/// `s` in double quotes for an error message: control and non-ASCII bytes as \xNN,
/// quotes and backslashes escaped, at most 200 bytes of `s` (then "...").
std::string QuoteForMessage(std::string_view s);

}  // namespace deltaguard
