// The stored profiles of a table's commits read, and a commit's rows profiled from its
// files (quality/profile_store.h).

#include "deltaguard/quality/profile_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <set>

#include "deltaguard/io/parquet/checkpoint_reader.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/log/add_stats.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/quality/profile_table.h"
#include "deltaguard/write/table_path.h"
#include "deltaguard/write/table_state.h"

namespace deltaguard {
namespace {

struct CommitFacts {
  std::set<std::string> added;  // add paths with dataChange
  int64_t timestamp_ms = 0;
  std::string operation;
};

Result<CommitFacts> ReadCommitFacts(const FileSystemRef& fs, const std::string& root,
                                    int64_t version) {
  DELTA_ASSIGN_OR_RETURN(auto actions, ReadCommit(*fs, root, version));
  CommitFacts facts;
  for (const auto& action : actions) {
    if (const auto* add = std::get_if<AddFile>(&action)) {
      if (add->data_change) facts.added.insert(add->path);
    } else if (const auto* info = std::get_if<CommitInfo>(&action)) {
      facts.timestamp_ms =
          info->in_commit_timestamp.value_or(info->timestamp.value_or(0));
      facts.operation = info->operation.value_or("");
    }
  }
  return facts;
}

}  // namespace

std::optional<std::pair<int64_t, int64_t>> FileVersions(const AddFile& f) {
  if (!f.stats) return std::nullopt;
  auto stats = ParseAddStats(*f.stats);
  if (!stats) return std::nullopt;  // advisory (log/add_stats.h): read the file
  const ColumnStats* v = stats->Find({"version"});
  if (v == nullptr) return std::nullopt;
  auto lo = ColumnStats::Int(v->min);
  auto hi = ColumnStats::Int(v->max);
  if (!lo || !hi) return std::nullopt;
  return std::make_pair(*lo, *hi);
}

Result<std::vector<TableProfile>> ReadProfiles(FileSystemRef fs, const std::string& root,
                                               int64_t from, int64_t to,
                                               bool number_distinct) {
  DELTA_ASSIGN_OR_RETURN(std::string table_root, NormalizeTablePath(root));
  const std::string path = ProfileTablePath(table_root);
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot, internal::LoadIfExists(fs, path));
  if (!snapshot) return std::vector<TableProfile>{};
  // A profile table that does not read is an error naming it, never "no profiles".
  // Files whose statistics show no version in [from, to] are not read.
  ScanOptions options;
  options.file_filter = [from, to](const AddFile& f) {
    auto versions = FileVersions(f);
    return !versions || (versions->second >= from && (to < 0 || versions->first <= to));
  };
  auto read = [&]() -> Result<std::vector<TableProfile>> {
    DELTA_ASSIGN_OR_RETURN(auto scan, TableScan::Make(snapshot, options));
    std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
    while (true) {
      DELTA_ASSIGN_OR_RETURN(auto batch, scan->Next());
      if (!batch) break;
      batches.push_back(std::move(batch));
    }
    return ProfilesFromRows(batches, from, to, number_distinct);
  };
  auto profiles = read();
  if (!profiles) {
    return WithContext(profiles.error(), fmt::format("profile table '{}'", path));
  }
  std::vector<TableProfile> out;
  for (auto& p : *profiles) {
    if (p.version >= from && (to < 0 || p.version <= to)) out.push_back(std::move(p));
  }
  return out;
}

Result<std::optional<std::vector<int64_t>>> ListProfileVersions(FileSystemRef fs,
                                                                const std::string& root) {
  DELTA_ASSIGN_OR_RETURN(std::string table_root, NormalizeTablePath(root));
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot,
                         internal::LoadIfExists(fs, ProfileTablePath(table_root)));
  std::vector<int64_t> out;
  if (!snapshot) return std::optional<std::vector<int64_t>>(out);
  for (const auto& f : snapshot->files()) {
    auto versions = FileVersions(f);
    if (!versions) return std::nullopt;
    // A compacted file holds a range; the versions in it are taken to be all there
    // (a commit without rows has no profile: CheckHistory reads further back when the
    // range held fewer).
    for (int64_t v = versions->first; v <= versions->second; ++v) out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return std::optional<std::vector<int64_t>>(std::move(out));
}

Result<std::set<std::string>> CommitAddedFiles(const FileSystemRef& fs,
                                               const std::string& root, int64_t version) {
  DELTA_ASSIGN_OR_RETURN(CommitFacts facts, ReadCommitFacts(fs, root, version));
  return std::move(facts.added);
}

Result<TableProfile> ProfileCommit(FileSystemRef fs, const std::string& root,
                                   int64_t version) {
  DELTA_ASSIGN_OR_RETURN(std::string table_root, NormalizeTablePath(root));
  DELTA_ASSIGN_OR_RETURN(CommitFacts facts, ReadCommitFacts(fs, table_root, version));
  TableProfile out;
  out.version = version;
  out.timestamp_ms = facts.timestamp_ms;
  out.operation = facts.operation;
  if (facts.added.empty()) return out;
  SnapshotSpec spec;
  spec.version = version;
  ParquetCheckpointReader checkpoint_reader(fs);
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot,
                         Snapshot::Load(fs, table_root, checkpoint_reader, spec));
  ScanOptions options;
  options.file_filter = [&facts](const AddFile& f) {
    return facts.added.count(f.path) > 0;
  };
  DELTA_ASSIGN_OR_RETURN(auto scan, TableScan::Make(snapshot, options));
  DELTA_ASSIGN_OR_RETURN(Profiler profiler, Profiler::Make(scan->output_schema()));
  while (true) {
    DELTA_ASSIGN_OR_RETURN(auto batch, scan->Next());
    if (!batch) break;
    DELTA_RETURN_IF_ERROR(profiler.Add(*batch));
  }
  TableProfile profiled = profiler.Snapshot();
  profiled.version = out.version;
  profiled.timestamp_ms = out.timestamp_ms;
  profiled.operation = out.operation;
  return profiled;
}

Result<std::vector<TableProfile>> CheckHistory(const FileSystemRef& fs,
                                               const std::string& table_root,
                                               int64_t version,
                                               const BaselineSpec& spec) {
  const int64_t last = version >= 0 ? version : std::numeric_limits<int64_t>::max();
  // A trailing number of commits needs only the newest profiles: find the oldest one
  // the spec can select from the profile table's file statistics, and read from there.
  int64_t from = 0;
  if (spec.kind == BaselineSpec::Kind::kCommits) {
    DELTA_ASSIGN_OR_RETURN(auto stored, ListProfileVersions(fs, table_root));
    if (stored) {
      std::vector<int64_t> before;
      for (int64_t v : *stored) {
        if (v < last) before.push_back(v);
      }
      if (static_cast<int64_t>(before.size()) > spec.commits) {
        from = before[before.size() - static_cast<size_t>(spec.commits)];
      }
    }
  }
  DELTA_ASSIGN_OR_RETURN(auto history, ReadProfiles(fs, table_root, from,
                                                    version >= 0 ? version : -1, false));
  if (spec.kind == BaselineSpec::Kind::kCommits && from > 0) {
    int64_t before = 0;
    for (const auto& p : history) before += p.version < last ? 1 : 0;
    if (before < spec.commits) {  // the ranges had gaps: read all of it
      DELTA_ASSIGN_OR_RETURN(
          history, ReadProfiles(fs, table_root, 0, version >= 0 ? version : -1, false));
    }
  }
  // Profile the commits the check needs that have no stored profile: the checked one,
  // and (for a trailing number of commits) the ones before it, newest first.
  std::set<int64_t> have;
  for (const auto& p : history) have.insert(p.version);
  DELTA_ASSIGN_OR_RETURN(auto versions, ListCommitVersions(*fs, table_root));
  std::vector<int64_t> wanted;
  const int64_t reach = spec.commits + (version >= 0 ? 1 : 0);
  for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
    if (*it > last) continue;
    const bool in_reach = spec.kind == BaselineSpec::Kind::kDuration ||
                          static_cast<int64_t>(wanted.size()) < reach;
    if (!in_reach) break;
    wanted.push_back(*it);
  }
  for (int64_t v : wanted) {
    if (have.count(v)) continue;
    auto computed = ProfileCommit(fs, table_root, v);
    if (!computed) {
      return WithContext(computed.error(), fmt::format("profiling version {} of '{}' for "
                                                       "the check",
                                                       v, table_root));
    }
    history.push_back(std::move(*computed));
  }
  return history;
}

}  // namespace deltaguard
