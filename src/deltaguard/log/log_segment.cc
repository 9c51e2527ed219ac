#include "deltaguard/log/log_segment.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "deltaguard/log/json_internal.h"

namespace deltaguard {
namespace {

int TypeRank(LogFileType t) {
  switch (t) {
    case LogFileType::kCheckpointClassic:
      return 0;
    case LogFileType::kCheckpointV2Json:
      return 1;
    case LogFileType::kCheckpointV2Parquet:
      return 2;
    default:
      return 3;
  }
}

// First version in [from, to] without a commit file, or nullopt when all exist.
std::optional<int64_t> FirstMissing(const std::vector<CommitFile>& commits, int64_t from,
                                    int64_t to) {
  auto it =
      std::lower_bound(commits.begin(), commits.end(), from,
                       [](const CommitFile& c, int64_t v) { return c.version < v; });
  for (int64_t v = from; v <= to; ++v, ++it) {
    if (it == commits.end() || it->version != v) return v;
  }
  return std::nullopt;
}

Error GapError(const std::string& root, const std::vector<CommitFile>& commits,
               int64_t target, int64_t missing) {
  auto next =
      std::upper_bound(commits.begin(), commits.end(), missing,
                       [](int64_t v, const CommitFile& c) { return v < c.version; });
  std::string found_next =
      next == commits.end() ? "no later commit" : std::to_string(next->version);
  return MakeError(ErrorCode::kCorruptLog,
                   "table '{}': cannot reconstruct version {}: missing commit version {} "
                   "(found {} and {}) in _delta_log",
                   root, target, missing, missing - 1, found_next);
}

}  // namespace

std::optional<LastCheckpointHint> ReadLastCheckpointHint(const FileSystem& fs,
                                                         const std::string& log_dir) {
  Result<std::string> content = fs.ReadFile(JoinPath(log_dir, kLastCheckpointFileName));
  if (!content) return std::nullopt;
  auto parsed = internal::ThreadJsonDocument().Parse(*content);
  if (!parsed) return std::nullopt;
  const internal::JsonValue& root = **parsed;
  if (!root.IsObject()) return std::nullopt;
  auto version = root.FindMember("version");
  if (version == root.MemberEnd() || !version->value.IsInt64() ||
      version->value.GetInt64() < 0) {
    return std::nullopt;
  }
  LastCheckpointHint hint;
  hint.version = version->value.GetInt64();
  auto parts = root.FindMember("parts");
  if (parts != root.MemberEnd() && parts->value.IsInt64())
    hint.parts = parts->value.GetInt64();
  return hint;
}

Result<LogListing> ListLog(const FileSystem& fs, const std::string& log_dir,
                           int64_t start_version) {
  std::string start = start_version > 0 ? VersionPrefix(start_version) : std::string();
  DELTA_ASSIGN_OR_RETURN(std::vector<FileInfo> files, fs.List(log_dir, start));
  LogListing out;
  out.listed_from = start_version > 0 ? start_version : 0;
  out.commits.reserve(files.size());
  // Multi-part checkpoints, keyed by (version, num_parts): part number → file.
  std::map<std::pair<int64_t, int32_t>, std::map<int32_t, FileInfo>> multi;
  for (FileInfo& f : files) {
    std::optional<LogFileName> name = ParseLogFileName(BaseName(f.path));
    if (!name || name->version < out.listed_from) continue;
    switch (name->type) {
      case LogFileType::kCommit:
        out.commits.push_back({name->version, std::move(f)});
        break;
      case LogFileType::kCheckpointClassic:
      case LogFileType::kCheckpointV2Json:
      case LogFileType::kCheckpointV2Parquet:
        out.checkpoints.push_back({name->version, name->type, {std::move(f)}});
        break;
      case LogFileType::kCheckpointMultiPart:
        multi[{name->version, name->num_parts}][name->part] = std::move(f);
        break;
      case LogFileType::kCompaction:
      case LogFileType::kChecksum:
        break;
    }
  }
  for (auto& [key, parts] : multi) {
    if (static_cast<int32_t>(parts.size()) != key.second) continue;  // incomplete: ignore
    CheckpointFiles cp{key.first, LogFileType::kCheckpointMultiPart, {}};
    for (auto& [part, file] : parts) cp.files.push_back(std::move(file));
    out.checkpoints.push_back(std::move(cp));
  }
  // Listing is byte-sorted, so commits are already ascending; names with different
  // zero-padding could still collide in value: keep the first.
  std::sort(
      out.commits.begin(), out.commits.end(),
      [](const CommitFile& a, const CommitFile& b) { return a.version < b.version; });
  out.commits.erase(std::unique(out.commits.begin(), out.commits.end(),
                                [](const CommitFile& a, const CommitFile& b) {
                                  return a.version == b.version;
                                }),
                    out.commits.end());
  std::stable_sort(out.checkpoints.begin(), out.checkpoints.end(),
                   [](const CheckpointFiles& a, const CheckpointFiles& b) {
                     return std::make_tuple(a.version, TypeRank(a.type)) <
                            std::make_tuple(b.version, TypeRank(b.type));
                   });
  return out;
}

Result<LogSegment> BuildLogSegment(const FileSystem& fs, const std::string& table_root,
                                   std::optional<int64_t> version, bool use_hint) {
  if (version && *version < 0) {
    return MakeError(ErrorCode::kInvalidArgument, "table '{}': invalid version {}",
                     table_root, *version);
  }
  LogSegment seg;
  seg.table_root = table_root;
  seg.log_dir = LogDirOf(table_root);
  std::optional<LastCheckpointHint> hint;
  if (use_hint) hint = ReadLastCheckpointHint(fs, seg.log_dir);
  int64_t start = 0;
  if (hint && (!version || hint->version <= *version)) start = hint->version;

  while (true) {
    Result<LogListing> listed = ListLog(fs, seg.log_dir, start);
    if (!listed) {
      if (listed.error().code == ErrorCode::kNotFound) {
        return MakeError(ErrorCode::kNotFound,
                         "table '{}' is not a Delta table: no _delta_log directory",
                         table_root);
      }
      return tl::unexpected(std::move(listed).error());
    }
    LogListing& listing = *listed;
    bool relist = start > 0;  // a hinted listing must contain a usable checkpoint
    int64_t latest = -1;
    if (!listing.commits.empty()) latest = listing.commits.back().version;
    if (!listing.checkpoints.empty()) {
      latest = std::max(latest, listing.checkpoints.back().version);
    }
    if (latest < 0) {
      if (relist) {
        start = 0;
        continue;
      }
      return MakeError(ErrorCode::kNotFound, "table '{}' has no commits in _delta_log",
                       table_root);
    }
    int64_t target = version.value_or(latest);
    if (target > latest) {
      return MakeError(ErrorCode::kNotFound,
                       "table '{}': version {} does not exist (latest version is {})",
                       table_root, target, latest);
    }

    // Usable checkpoints: complete, <= target, commits after them contiguous to target.
    std::vector<CheckpointFiles> usable;
    std::optional<Error> gap;
    for (auto it = listing.checkpoints.rbegin(); it != listing.checkpoints.rend(); ++it) {
      if (it->version > target) continue;
      std::optional<int64_t> missing =
          FirstMissing(listing.commits, it->version + 1, target);
      if (missing) {
        if (usable.empty() && !gap)
          gap = GapError(table_root, listing.commits, target, *missing);
        break;  // older checkpoints need a superset of these commits
      }
      usable.push_back(std::move(*it));
    }
    if (gap) return std::move(*gap);
    bool from_zero =
        listing.listed_from == 0 && !FirstMissing(listing.commits, 0, target).has_value();
    if (usable.empty() && !from_zero) {
      if (relist) {
        start = 0;
        continue;
      }
      bool has_zero = !listing.commits.empty() && listing.commits.front().version == 0;
      if (has_zero) {
        return GapError(table_root, listing.commits, target,
                        *FirstMissing(listing.commits, 0, target));
      }
      if (!listing.checkpoints.empty()) {
        return MakeError(
            ErrorCode::kNotFound,
            "table '{}': version {} cannot be reconstructed: the log history "
            "before it was removed; the earliest available version is {}",
            table_root, target, listing.checkpoints.front().version);
      }
      return MakeError(
          ErrorCode::kCorruptLog,
          "table '{}': cannot reconstruct version {}: there is no checkpoint "
          "and the first commit {} is missing (earliest commit is version {})",
          table_root, target, CommitFileName(0), listing.commits.front().version);
    }

    seg.version = target;
    seg.latest_version = latest;
    seg.can_start_from_zero = from_zero;
    seg.listed_from_hint = listing.listed_from > 0;
    auto at_target =
        std::lower_bound(listing.commits.begin(), listing.commits.end(), target,
                         [](const CommitFile& c, int64_t v) { return c.version < v; });
    if (at_target != listing.commits.end() && at_target->version == target) {
      seg.version_file = at_target->file;
    } else {
      seg.version_file = usable.front().files.front();
    }
    int64_t oldest_start = from_zero ? -1 : usable.back().version;
    for (CommitFile& c : listing.commits) {
      if (c.version > oldest_start && c.version <= target)
        seg.commits.push_back(std::move(c));
    }
    seg.checkpoints = std::move(usable);
    return seg;
  }
}

}  // namespace deltaguard
