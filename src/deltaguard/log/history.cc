// History, single-commit reads and timestamp → version resolution.

#include "deltaguard/log/history.h"

#include <algorithm>
#include <chrono>

#include "deltaguard/log/log_path.h"
#include "deltaguard/log/log_segment.h"
#include "deltaguard/protocol/table_properties.h"

namespace deltaguard {
namespace {

Result<std::vector<CommitFile>> ListCommits(const FileSystem& fs,
                                            const std::string& root) {
  Result<LogListing> listing = ListLog(fs, LogDirOf(root), 0);
  if (!listing) {
    if (listing.error().code == ErrorCode::kNotFound) {
      return MakeError(ErrorCode::kNotFound,
                       "table '{}' is not a Delta table: no _delta_log directory", root);
    }
    return tl::unexpected(std::move(listing).error());
  }
  return std::move(listing->commits);
}

const CommitInfo* FindCommitInfo(const std::vector<Action>& actions) {
  for (const Action& a : actions) {
    if (const auto* ci = std::get_if<CommitInfo>(&a)) return ci;
  }
  return nullptr;
}

// In-commit timestamp of one commit; kCorruptLog when the commit lacks it.
Result<int64_t> ReadInCommitTimestamp(const FileSystem& fs, const std::string& root,
                                      int64_t version) {
  DELTA_ASSIGN_OR_RETURN(std::vector<Action> actions, ReadCommit(fs, root, version));
  const CommitInfo* ci = FindCommitInfo(actions);
  if (ci == nullptr || !ci->in_commit_timestamp) {
    return MakeError(ErrorCode::kCorruptLog,
                     "table '{}': in-commit timestamps are enabled but commit {} has no "
                     "commitInfo.inCommitTimestamp",
                     root, version);
  }
  return *ci->in_commit_timestamp;
}

}  // namespace

std::string FormatTimestampMs(int64_t timestamp_ms) {
  using namespace std::chrono;
  sys_time<milliseconds> tp{milliseconds(timestamp_ms)};
  sys_days day = floor<days>(tp);
  year_month_day ymd{day};
  hh_mm_ss<milliseconds> tod{tp - day};
  return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}.{:03d}Z",
                     static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                     static_cast<unsigned>(ymd.day()), tod.hours().count(),
                     tod.minutes().count(), tod.seconds().count(),
                     tod.subseconds().count());
}

Result<std::vector<int64_t>> ListCommitVersions(const FileSystem& fs,
                                                const std::string& table_root) {
  std::string root = NormalizeTableRoot(table_root);
  DELTA_ASSIGN_OR_RETURN(std::vector<CommitFile> commits, ListCommits(fs, root));
  std::vector<int64_t> out;
  out.reserve(commits.size());
  for (const CommitFile& c : commits) out.push_back(c.version);
  return out;
}

Result<std::vector<Action>> ReadCommit(const FileSystem& fs,
                                       const std::string& table_root, int64_t version) {
  std::string root = NormalizeTableRoot(table_root);
  std::string path = JoinPath(LogDirOf(root), CommitFileName(version));
  Result<std::string> content = fs.ReadFile(path);
  if (!content) {
    if (content.error().code == ErrorCode::kNotFound) {
      return MakeError(ErrorCode::kNotFound,
                       "table '{}': commit version {} not found ({})", root, version,
                       path);
    }
    return tl::unexpected(std::move(content).error());
  }
  return ParseCommitFile(*content, path);
}

Result<std::vector<CommitSummary>> ReadHistory(const FileSystem& fs,
                                               const std::string& table_root) {
  std::string root = NormalizeTableRoot(table_root);
  DELTA_ASSIGN_OR_RETURN(std::vector<CommitFile> commits, ListCommits(fs, root));
  std::vector<CommitSummary> out;
  out.reserve(commits.size());
  std::optional<InCommitTimestampConfig> ict;  // as of the newest metaData seen so far
  int64_t prev_mtime_ts = INT64_MIN;
  for (const CommitFile& c : commits) {
    DELTA_ASSIGN_OR_RETURN(std::string content, fs.ReadFile(c.file.path));
    DELTA_ASSIGN_OR_RETURN(std::vector<Action> actions,
                           ParseCommitFile(content, c.file.path));
    CommitSummary s;
    s.version = c.version;
    for (Action& a : actions) {
      if (auto* ci = std::get_if<CommitInfo>(&a)) {
        if (!s.commit_info) s.commit_info = std::move(*ci);
      } else if (auto* md = std::get_if<Metadata>(&a)) {
        s.metadata = std::move(*md);
      } else if (auto* p = std::get_if<Protocol>(&a)) {
        s.protocol = std::move(*p);
      }
    }
    if (s.metadata) {
      Result<InCommitTimestampConfig> config = GetInCommitTimestampConfig(*s.metadata);
      ict = config ? *config : InCommitTimestampConfig{};
    }
    std::optional<int64_t> in_commit =
        s.commit_info ? s.commit_info->in_commit_timestamp : std::nullopt;
    // Before any metaData is seen (history cleaned up) trust the field's presence.
    bool use_ict = in_commit && (!ict || ict->AppliesTo(c.version));
    if (use_ict) {
      s.timestamp_ms = *in_commit;
    } else {
      s.timestamp_ms =
          std::max(c.file.modification_time,
                   prev_mtime_ts == INT64_MIN ? INT64_MIN : prev_mtime_ts + 1);
      prev_mtime_ts = s.timestamp_ms;
    }
    out.push_back(std::move(s));
  }
  return out;
}

namespace {

// Spark's DeltaHistoryManager errors for a time-travel instant outside the table's
// commits (time travel never returns the last commit for a later instant).
Error BeforeEarliest(const std::string& root, int64_t timestamp_ms, int64_t version,
                     int64_t earliest_ms) {
  return MakeError(
      ErrorCode::kNotFound,
      "DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION: The provided timestamp "
      "({}) is before the earliest version available to this table ('{}'): "
      "version {} at {}. Please use a timestamp after {}.",
      FormatTimestampMs(timestamp_ms), root, version, FormatTimestampMs(earliest_ms),
      FormatTimestampMs(earliest_ms));
}

Error AfterLatest(const std::string& root, int64_t timestamp_ms, int64_t latest_ms) {
  return MakeError(ErrorCode::kInvalidArgument,
                   "DELTA_TIMESTAMP_GREATER_THAN_COMMIT: The provided timestamp ({}) is "
                   "after the latest version available to this table ('{}'). Please use "
                   "a timestamp before or at {}.",
                   FormatTimestampMs(timestamp_ms), root, FormatTimestampMs(latest_ms));
}

}  // namespace

Result<int64_t> VersionAtTimestamp(const FileSystemRef& fs, const std::string& table_root,
                                   const CheckpointReader& checkpoint_reader,
                                   int64_t timestamp_ms) {
  std::string root = NormalizeTableRoot(table_root);
  DELTA_ASSIGN_OR_RETURN(SnapshotRef latest, Snapshot::Load(fs, root, checkpoint_reader));
  DELTA_ASSIGN_OR_RETURN(InCommitTimestampConfig ict,
                         GetInCommitTimestampConfig(latest->metadata()));
  DELTA_ASSIGN_OR_RETURN(std::vector<CommitFile> commits, ListCommits(*fs, root));
  // Only commits up to the loaded latest version take part (a concurrent commit may
  // have landed since).
  while (!commits.empty() && commits.back().version > latest->version())
    commits.pop_back();
  if (commits.empty()) {
    return MakeError(ErrorCode::kNotFound,
                     "table '{}' has no commit files to resolve a timestamp against",
                     root);
  }
  int64_t ict_start = ict.enabled ? ict.enablement_version.value_or(0) : INT64_MAX;
  auto split =
      std::lower_bound(commits.begin(), commits.end(), ict_start,
                       [](const CommitFile& c, int64_t v) { return c.version < v; });

  // In-commit timestamps are strictly increasing: binary search them.
  if (split != commits.end()) {
    DELTA_ASSIGN_OR_RETURN(int64_t first_ict,
                           ReadInCommitTimestamp(*fs, root, split->version));
    if (first_ict <= timestamp_ms) {
      auto lo = split;  // invariant: ICT(lo) <= timestamp
      auto hi = commits.end();
      while (hi - lo > 1) {
        auto mid = lo + (hi - lo) / 2;
        DELTA_ASSIGN_OR_RETURN(int64_t t, ReadInCommitTimestamp(*fs, root, mid->version));
        if (t <= timestamp_ms) {
          lo = mid;
        } else {
          hi = mid;
        }
      }
      if (hi == commits.end() && lo->version == latest->version()) {
        DELTA_ASSIGN_OR_RETURN(int64_t last,
                               ReadInCommitTimestamp(*fs, root, lo->version));
        if (last < timestamp_ms) return AfterLatest(root, timestamp_ms, last);
      }
      return lo->version;
    }
    if (split == commits.begin()) {
      return BeforeEarliest(root, timestamp_ms, split->version, first_ict);
    }
  }
  // Versions before in-commit timestamps: file modification times, made increasing.
  std::vector<int64_t> ts;
  ts.reserve(static_cast<size_t>(split - commits.begin()));
  for (auto it = commits.begin(); it != split; ++it) {
    int64_t t = it->file.modification_time;
    if (!ts.empty()) t = std::max(t, ts.back() + 1);
    ts.push_back(t);
  }
  if (timestamp_ms < ts.front()) {
    return BeforeEarliest(root, timestamp_ms, commits.front().version, ts.front());
  }
  size_t idx = static_cast<size_t>(std::upper_bound(ts.begin(), ts.end(), timestamp_ms) -
                                   ts.begin()) -
               1;
  if (split == commits.end() && idx + 1 == ts.size() && ts.back() < timestamp_ms) {
    return AfterLatest(root, timestamp_ms, ts.back());
  }
  return commits[idx].version;
}

}  // namespace deltaguard
