#include "deltaguard/txn/staged_actions.h"

#include <algorithm>
#include <map>
#include <utility>

#include "deltaguard/protocol/table_properties.h"

namespace deltaguard {

namespace {

std::string DvId(const std::optional<DeletionVectorDescriptor>& dv) {
  return dv ? dv->UniqueId() : std::string();
}

std::string DvText(const std::optional<DeletionVectorDescriptor>& dv) {
  return dv ? fmt::format("deletion vector '{}'", dv->UniqueId()) : "no deletion vector";
}

// The live files of `snapshot` whose path is `path` (files() is sorted by path, then
// dv id, in byte order: log/snapshot.h invariant 2).
std::pair<std::vector<AddFile>::const_iterator, std::vector<AddFile>::const_iterator>
LiveFilesWithPath(const Snapshot& snapshot, const std::string& path) {
  const auto& files = snapshot.files();
  auto lo =
      std::lower_bound(files.begin(), files.end(), path,
                       [](const AddFile& f, const std::string& p) { return f.path < p; });
  auto hi = lo;
  while (hi != files.end() && hi->path == path) ++hi;
  return {lo, hi};
}

Status CheckTableConfig(const StagedActions& s, const Snapshot* read_snapshot,
                        std::string_view root) {
  if (s.metadata.size() > 1) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "table '{}': a commit may hold at most one metaData action, got {}",
                     root, s.metadata.size());
  }
  if (s.protocol.size() > 1) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "table '{}': a commit may hold at most one protocol action, got {}",
                     root, s.protocol.size());
  }
  if (read_snapshot == nullptr && (s.metadata.empty() || s.protocol.empty())) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "table '{}': the first commit of a new table needs both a protocol "
                     "and a metaData action (has protocol: {}, has metaData: {})",
                     root, !s.protocol.empty(), !s.metadata.empty());
  }
  if (!s.metadata.empty()) {
    const Metadata& m = s.metadata.front();
    if (m.id.empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "table '{}': metaData action has an empty table id", root);
    }
    if (m.schema_string.empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "table '{}': metaData action has an empty schemaString", root);
    }
  }
  return OkStatus();
}

Status CheckNonFileActions(const StagedActions& s, std::string_view root) {
  std::set<std::string> app_ids;
  for (const SetTransaction& t : s.txns) {
    if (t.app_id.empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "table '{}': txn action with an empty appId", root);
    }
    if (!app_ids.insert(t.app_id).second) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "table '{}': two txn actions for appId '{}' in one commit", root,
                       t.app_id);
    }
  }
  std::set<std::string> domains;
  for (const DomainMetadata& d : s.domains) {
    if (d.domain.empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "table '{}': domainMetadata action with an empty domain", root);
    }
    if (!domains.insert(d.domain).second) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "table '{}': two domainMetadata actions for domain '{}' in one "
                       "commit",
                       root, d.domain);
    }
  }
  return OkStatus();
}

Status CheckFileActions(const StagedActions& s, const Snapshot* read_snapshot,
                        std::string_view root) {
  std::map<std::string, std::string> removed;  // path -> dv id
  for (const RemoveFile& r : s.removes) {
    if (r.path.empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "table '{}': remove action with an empty path", root);
    }
    if (!removed.emplace(r.path, DvId(r.deletion_vector)).second) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "table '{}': file '{}' is removed twice in one commit", root,
                       r.path);
    }
  }
  std::set<std::string> added;
  for (const AddFile& a : s.adds) {
    if (a.path.empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "table '{}': add action with an empty path", root);
    }
    if (!added.insert(a.path).second) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "table '{}': file '{}' is added twice in one commit", root,
                       a.path);
    }
    std::string dv = DvId(a.deletion_vector);
    auto rm = removed.find(a.path);
    if (rm != removed.end() && rm->second == dv) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "table '{}': file '{}' with {} is both added and removed in one "
                       "commit",
                       root, a.path, DvText(a.deletion_vector));
    }
    if (read_snapshot == nullptr) continue;
    auto [lo, hi] = LiveFilesWithPath(*read_snapshot, a.path);
    for (auto it = lo; it != hi; ++it) {
      std::string live_dv = DvId(it->deletion_vector);
      if (live_dv == dv) continue;  // re-adding the same (path, dv) is legal
      if (rm != removed.end() && rm->second == live_dv) continue;
      return MakeError(
          ErrorCode::kInvalidArgument,
          "table '{}': file '{}' is live with {} but the commit adds it with "
          "{} without removing the live one",
          root, a.path, DvText(it->deletion_vector), DvText(a.deletion_vector));
    }
  }
  return OkStatus();
}

Status CheckAppendOnly(const StagedActions& s, const Snapshot* read_snapshot,
                       std::string_view root) {
  const Metadata* m = !s.metadata.empty() ? &s.metadata.front()
                      : read_snapshot     ? &read_snapshot->metadata()
                                          : nullptr;
  if (m == nullptr) return OkStatus();
  std::optional<std::string> value = m->GetConfig("delta.appendOnly");
  if (!value) return OkStatus();
  DELTA_ASSIGN_OR_RETURN(bool append_only, ParseBoolProperty("delta.appendOnly", *value));
  if (!append_only) return OkStatus();
  for (const RemoveFile& r : s.removes) {
    if (r.data_change) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "DELTA_CANNOT_MODIFY_APPEND_ONLY: table '{}' is append-only "
                       "(delta.appendOnly=true) but the commit removes file '{}'",
                       root, r.path);
    }
  }
  return OkStatus();
}

}  // namespace

bool StagedActions::HasDataChange() const {
  for (const AddFile& a : adds) {
    if (a.data_change) return true;
  }
  for (const RemoveFile& r : removes) {
    if (r.data_change) return true;
  }
  return false;
}

bool ReadScope::CoversPartition(const PartitionValues& values) const {
  if (whole_table) return true;
  for (const auto& pred : partition_predicates) {
    if (pred(values)) return true;
  }
  return false;
}

bool IsBlindAppend(const StagedActions& staged, const ReadScope& read) {
  if (read.DependsOnFiles() || !staged.removes.empty()) return false;
  for (const AddFile& a : staged.adds) {
    if (!a.data_change) return false;
  }
  return true;
}

IsolationLevel EffectiveIsolationLevel(const StagedActions& staged,
                                       IsolationLevel table_level) {
  if (!staged.HasDataChange() && !staged.ChangesTableConfig()) {
    return IsolationLevel::kSnapshotIsolation;
  }
  return table_level;
}

Status ValidateStagedActions(const StagedActions& staged, const Snapshot* read_snapshot,
                             std::string_view table_root) {
  DELTA_RETURN_IF_ERROR(CheckTableConfig(staged, read_snapshot, table_root));
  DELTA_RETURN_IF_ERROR(CheckNonFileActions(staged, table_root));
  DELTA_RETURN_IF_ERROR(CheckFileActions(staged, read_snapshot, table_root));
  DELTA_RETURN_IF_ERROR(CheckAppendOnly(staged, read_snapshot, table_root));
  return OkStatus();
}

}  // namespace deltaguard
