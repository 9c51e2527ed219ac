// Profiles of a table's commits (table/profiles.h): the profile table read and
// appended, and backfill from the files a commit added.

#include "deltaguard/table/profiles.h"

#include <fmt/format.h>

#include <set>

#include "deltaguard/arrow/status.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/quality/profile_table.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/write.h"
#include "deltaguard/util/string_util.h"
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

bool ProfilesEnabled(const Metadata& metadata) {
  auto value = metadata.GetConfig(kProfilesProperty);
  return value && EqualsIgnoreCase(Trim(*value), "true");
}

Result<std::vector<TableProfile>> ReadProfiles(FileSystemRef fs, const std::string& root,
                                               int64_t from, int64_t to) {
  DELTA_ASSIGN_OR_RETURN(std::string table_root, NormalizeTablePath(root));
  const std::string path = ProfileTablePath(table_root);
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot, internal::LoadIfExists(fs, path));
  if (!snapshot) return std::vector<TableProfile>{};
  // A profile table that does not read is an error naming it, never "no profiles".
  auto read = [&]() -> Result<std::vector<TableProfile>> {
    DELTA_ASSIGN_OR_RETURN(auto scan, TableScan::Make(snapshot, ScanOptions{}));
    std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
    while (true) {
      DELTA_ASSIGN_OR_RETURN(auto batch, scan->Next());
      if (!batch) break;
      batches.push_back(std::move(batch));
    }
    return ProfilesFromRows(batches);
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

Result<int64_t> StoreProfile(FileSystemRef fs, const std::string& root,
                             const TableProfile& profile) {
  DELTA_ASSIGN_OR_RETURN(std::string table_root, NormalizeTablePath(root));
  DELTA_ASSIGN_OR_RETURN(auto rows, ProfileRows(profile));
  DELTA_ARROW_ASSIGN_OR_RETURN(auto reader,
                               arrow::RecordBatchReader::Make({rows}, rows->schema()),
                               ErrorCode::kInternal, "profile rows");
  std::vector<BatchSource> sources;
  sources.push_back(SourceFromReader("profile", std::move(reader)));
  WriteOptions options;
  // The profile table is not profiled itself.
  options.properties.emplace_back(std::string(kProfilesProperty), "false");
  options.operation = "WRITE";
  const std::string path = ProfileTablePath(table_root);
  auto written = WriteTable(fs, path, std::move(sources), options);
  if (!written) {
    return WithContext(
        written.error(),
        fmt::format("storing the profile of version {} in '{}'", profile.version, path));
  }
  return written->version;
}

void StoreWriteProfile(FileSystemRef fs, const std::string& root, TableProfile profile,
                       int64_t version, int64_t timestamp_ms, std::string operation,
                       std::vector<std::string>* warnings) {
  if (profile.columns.empty()) return;  // the commit added no rows
  profile.version = version;
  profile.timestamp_ms = timestamp_ms;
  profile.operation = std::move(operation);
  auto stored = StoreProfile(fs, root, profile);
  if (!stored) {
    warnings->push_back(fmt::format(
        "the profile of version {} was not stored ({}); `deltaguard profile {}` "
        "computes it again from the data",
        version, stored.error().message, root));
  }
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
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot, OpenSnapshot(fs, table_root, spec));
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

Result<BackfillResult> BackfillProfiles(FileSystemRef fs, const std::string& root,
                                        int64_t from, int64_t to) {
  DELTA_ASSIGN_OR_RETURN(std::string table_root, NormalizeTablePath(root));
  DELTA_ASSIGN_OR_RETURN(SnapshotRef latest, OpenSnapshot(fs, table_root));
  if (to < 0 || to > latest->version()) to = latest->version();
  DELTA_ASSIGN_OR_RETURN(auto stored, ReadProfiles(fs, table_root, from, to));
  std::set<int64_t> present;
  for (const auto& p : stored) present.insert(p.version);
  DELTA_ASSIGN_OR_RETURN(auto versions, ListCommitVersions(*fs, table_root));
  std::set<int64_t> available(versions.begin(), versions.end());
  BackfillResult result;
  for (int64_t v = std::max<int64_t>(from, 0); v <= to; ++v) {
    if (present.count(v)) {
      result.present.push_back(v);
      continue;
    }
    if (!available.count(v)) {
      result.unavailable.push_back(v);
      continue;
    }
    auto profile = ProfileCommit(fs, table_root, v);
    if (!profile) {
      return WithContext(profile.error(),
                         fmt::format("profiling version {} of '{}'", v, table_root));
    }
    if (profile->columns.empty()) {
      result.no_data.push_back(v);
      continue;
    }
    auto stored_version = StoreProfile(fs, table_root, *profile);
    if (!stored_version) return stored_version.error();
    result.profiled.push_back(v);
  }
  return result;
}

}  // namespace deltaguard
