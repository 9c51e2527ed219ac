// VACUUM's I/O: walk the table directory, commit VACUUM START, delete, commit VACUUM END.

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <deque>

#include "deltaguard/log/log_path.h"
#include "deltaguard/protocol/protocol.h"
#include "deltaguard/protocol/write_protocol.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/vacuum.h"
#include "deltaguard/write/commit_funnel.h"

namespace deltaguard {
namespace {

int64_t SystemNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string_view RelativeTo(std::string_view root, std::string_view full) {
  return full.substr(root == "/" ? 1 : root.size() + 1);
}

// Every file and directory under `root`, hidden directories listed but not entered.
Result<std::vector<VacuumEntry>> WalkTable(const FileSystem& fs, const std::string& root,
                                           const std::vector<std::string>& partitions,
                                           int64_t* dirs_scanned) {
  std::vector<VacuumEntry> out;
  std::deque<std::string> pending{root};
  while (!pending.empty()) {
    std::string dir = std::move(pending.front());
    pending.pop_front();
    ++*dirs_scanned;
    Result<std::vector<FileInfo>> files = fs.List(dir);
    if (!files && files.error().code == ErrorCode::kNotFound && dir != root) {
      continue;  // removed while we walked
    }
    if (!files) return tl::unexpected(std::move(files).error());
    for (FileInfo& f : *files) {
      out.push_back({std::string(RelativeTo(root, f.path)), false, false, f.size,
                     f.modification_time});
    }
    DELTA_ASSIGN_OR_RETURN(std::vector<FileInfo> dirs, fs.ListDirs(dir));
    for (FileInfo& d : dirs) {
      std::string rel(RelativeTo(root, d.path));
      std::string_view name = BaseName(rel);
      const bool reserved =
          dir == root && (name == kDeltaLogDirName || name == "_deltaguard");
      const bool walk = !reserved && !IsHiddenVacuumName(name, partitions);
      out.push_back({rel, true, !walk, 0, d.modification_time});
      if (walk) pending.push_back(std::move(d.path));
    }
  }
  return out;
}

OperationInfo StartInfo(const VacuumOptions& options, int64_t default_retention_ms,
                        const VacuumPlan& plan) {
  OperationInfo op;
  op.operation = "VACUUM START";
  op.parameters_json.emplace_back("retentionCheckEnabled",
                                  options.retention_check ? "true" : "false");
  if (options.retain_hours) {
    op.parameters_json.emplace_back(
        "specifiedRetentionMillis",
        std::to_string(static_cast<int64_t>(std::llround(*options.retain_hours)) *
                       3600000));
  }
  op.parameters_json.emplace_back("defaultRetentionMillis",
                                  std::to_string(default_retention_ms));
  op.metrics = {{"numFilesToDelete", static_cast<int64_t>(plan.files.size())},
                {"sizeOfDataToDelete", plan.bytes}};
  return op;
}

// VACUUM START / END commit no data and change nothing but the log, through the one
// commit funnel (so the checkpoint interval applies to them as to every commit).
Result<int64_t> CommitMarker(const FileSystemRef& fs, const std::string& root,
                             const VacuumOptions& options, const OperationInfo& op) {
  DELTA_ASSIGN_OR_RETURN(SnapshotRef latest, OpenSnapshot(fs, root));
  FunnelPlan plan;
  plan.metadata = latest->metadata();
  SessionSettings session;
  session.engine_info = options.engine_info;
  DELTA_ASSIGN_OR_RETURN(
      auto funnel, CommitFunnel::Open(FunnelTable{fs, root, root, std::move(latest)},
                                      std::move(plan), CommitHooks{}, session));
  DELTA_ASSIGN_OR_RETURN(CommitOutcome committed, funnel->Commit(op));
  return committed.version;
}

}  // namespace

Result<VacuumResult> Vacuum(FileSystemRef fs, const std::string& path,
                            const VacuumOptions& options) {
  DELTA_ASSIGN_OR_RETURN(std::string root, NormalizeTablePath(path));
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot, OpenSnapshot(fs, root));
  const Metadata& metadata = snapshot->metadata();
  // PROTOCOL.md "Vacuum Protocol Check": a VACUUM must understand the table's writer
  // protocol, or it could delete files a feature it does not know needs.
  if (IsFeatureSupported(snapshot->protocol(), "vacuumProtocolCheck")) {
    Status st = CheckWriteSupported(snapshot->protocol(), metadata, *snapshot->schema(),
                                    root, /*can_evaluate_constraints=*/true);
    if (!st) {
      return WithContext(std::move(st).error(),
                         "VACUUM (the table has the vacuumProtocolCheck feature)");
    }
  }
  DELTA_ASSIGN_OR_RETURN(int64_t default_retention,
                         VacuumRetentionMs(metadata, std::nullopt, false));
  DELTA_ASSIGN_OR_RETURN(
      int64_t retention,
      VacuumRetentionMs(metadata, options.retain_hours, options.retention_check));
  VacuumResult result;
  result.table_root = root;
  result.dry_run = options.dry_run;
  result.retention_ms = retention;
  const int64_t now = options.now_ms != 0 ? options.now_ms : SystemNowMs();
  result.delete_before_ms = now - retention;
  DELTA_ASSIGN_OR_RETURN(auto retained,
                         RetainedFiles(*snapshot, result.delete_before_ms));
  DELTA_ASSIGN_OR_RETURN(
      std::vector<VacuumEntry> listing,
      WalkTable(*fs, root, metadata.partition_columns, &result.dirs_scanned));
  VacuumPlan plan =
      PlanVacuum(listing, retained, metadata.partition_columns, result.delete_before_ms);
  result.bytes = plan.bytes;
  for (const VacuumEntry& f : plan.files) result.files.push_back(JoinPath(root, f.path));
  if (options.dry_run) return result;

  if (options.logging) {
    DELTA_ASSIGN_OR_RETURN(
        result.start_version,
        CommitMarker(fs, root, options, StartInfo(options, default_retention, plan)));
  }
  int64_t deleted = 0;
  for (const std::string& file : result.files) {
    Status st = fs->Delete(file);
    if (!st && st.error().code != ErrorCode::kNotFound) {
      return WithContext(std::move(st).error(),
                         fmt::format("VACUUM of '{}' after deleting {} of {} files", root,
                                     deleted, result.files.size()));
    }
    ++deleted;
  }
  for (const std::string& dir : plan.dirs) {
    // A directory a concurrent writer has just filled again stays: not an error.
    if (fs->DeleteEmptyDir(JoinPath(root, dir))) ++result.dirs_deleted;
  }
  if (options.logging) {
    OperationInfo end;
    end.operation = "VACUUM END";
    end.parameters_json.emplace_back("status", "\"COMPLETED\"");
    end.metrics = {{"numDeletedFiles", deleted},
                   {"numVacuumedDirectories", result.dirs_scanned}};
    DELTA_ASSIGN_OR_RETURN(result.end_version, CommitMarker(fs, root, options, end));
  }
  return result;
}

}  // namespace deltaguard
