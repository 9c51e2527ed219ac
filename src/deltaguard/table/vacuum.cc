// VACUUM: the pure decision (what to keep, what to delete) and the retention rules.
// The walk of the directory and the deletions are in vacuum_run.cc.

#include "deltaguard/table/vacuum.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "deltaguard/io/parquet/checkpoint_writer.h"
#include "deltaguard/io/parquet/deletion_vector.h"
#include "deltaguard/log/log_path.h"

namespace deltaguard {
namespace {

constexpr int64_t kMsPerHour = 3600LL * 1000;
constexpr std::string_view kDefaultDeletedFileRetention = "interval 1 week";

std::string_view LastComponent(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Directories VACUUM never enters, whatever the partition columns are called.
bool IsReservedTopLevel(std::string_view name) {
  return name == kDeltaLogDirName || name == "_deltaguard";
}

// True when a directory component of `path` (not its last one) is hidden.
bool UnderHiddenDir(std::string_view path, const std::vector<std::string>& partitions) {
  size_t start = 0;
  bool top = true;
  for (size_t slash; (slash = path.find('/', start)) != std::string_view::npos;) {
    std::string_view dir = path.substr(start, slash - start);
    if ((top && IsReservedTopLevel(dir)) || IsHiddenVacuumName(dir, partitions)) {
      return true;
    }
    top = false;
    start = slash + 1;
  }
  return false;
}

// `abs` relative to `root`, lexically normal; nullopt when it is not below the root.
std::optional<std::string> RelativeToRoot(std::string_view root, std::string_view abs) {
  std::optional<std::string> r = NormalizePathLexically(root);
  std::optional<std::string> p = NormalizePathLexically(abs);
  if (!r || !p || !IsUnderRoot(*p, *r) || *p == *r) return std::nullopt;
  return p->substr(*r == "/" ? 1 : r->size() + 1);
}

template <typename F>
Status Retain(const std::string& root, const F& file,
              std::unordered_set<std::string>* out) {
  Result<std::string> abs = ResolveTablePath(root, file.path);
  if (abs) {
    if (std::optional<std::string> rel = RelativeToRoot(root, *abs)) {
      out->insert(std::move(*rel));
    }
  }
  if (file.deletion_vector && file.deletion_vector->storage_type != 'i') {
    DELTA_ASSIGN_OR_RETURN(std::string dv,
                           DeletionVectorPath(*file.deletion_vector, root));
    if (std::optional<std::string> rel = RelativeToRoot(root, dv)) {
      out->insert(std::move(*rel));
    }
  }
  return OkStatus();
}

}  // namespace

bool IsHiddenVacuumName(std::string_view name,
                        const std::vector<std::string>& partition_columns) {
  if (name.empty() || (name.front() != '_' && name.front() != '.')) return false;
  if (name.starts_with("_change_data")) return false;
  for (const std::string& col : partition_columns) {
    if (name.size() > col.size() && name.starts_with(col) && name[col.size()] == '=') {
      return false;
    }
  }
  return true;
}

bool IsAbandonedTempName(std::string_view name) {
  // "." + name + "." + 16 hex + ".tmp", name non-empty.
  constexpr size_t kHex = 16;
  constexpr std::string_view kSuffix = ".tmp";
  if (name.size() < 1 + 1 + 1 + kHex + kSuffix.size() || name.front() != '.' ||
      !name.ends_with(kSuffix)) {
    return false;
  }
  std::string_view rest = name.substr(0, name.size() - kSuffix.size());
  std::string_view hex = rest.substr(rest.size() - kHex);
  if (rest[rest.size() - kHex - 1] != '.') return false;
  return std::all_of(hex.begin(), hex.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

Result<std::unordered_set<std::string>> RetainedFiles(const Snapshot& snapshot,
                                                      int64_t delete_before_ms) {
  std::unordered_set<std::string> out;
  out.reserve(snapshot.files().size() + snapshot.tombstones().size());
  const std::string& root = snapshot.table_root();
  for (const AddFile& add : snapshot.files()) {
    DELTA_RETURN_IF_ERROR(Retain(root, add, &out));
  }
  for (const RemoveFile& rm : snapshot.tombstones()) {
    // Spark: RemoveFile.delTimestamp is deletionTimestamp, or 0 when absent.
    if (rm.deletion_timestamp.value_or(0) > delete_before_ms) {
      DELTA_RETURN_IF_ERROR(Retain(root, rm, &out));
    }
  }
  return out;
}

VacuumPlan PlanVacuum(const std::vector<VacuumEntry>& listing,
                      const std::unordered_set<std::string>& retained,
                      const std::vector<std::string>& partition_columns,
                      int64_t delete_before_ms) {
  VacuumPlan plan;
  // Directories that keep something below them, so must stay.
  std::unordered_set<std::string> nonempty;
  auto keep = [&](std::string_view path) {
    for (size_t slash = path.rfind('/'); slash != std::string_view::npos && slash > 0;
         slash = path.rfind('/', slash - 1)) {
      if (!nonempty.emplace(path.substr(0, slash)).second) break;
    }
  };
  std::vector<const VacuumEntry*> dirs;
  for (const VacuumEntry& e : listing) {
    std::string_view name = LastComponent(e.path);
    const bool top = e.path.find('/') == std::string::npos;
    if (e.path.empty() || UnderHiddenDir(e.path, partition_columns) ||
        (top && IsReservedTopLevel(name))) {
      keep(e.path);
      continue;
    }
    const bool hidden = IsHiddenVacuumName(name, partition_columns);
    if (e.is_dir) {
      if (hidden || e.not_walked) {
        keep(e.path);
      } else {
        dirs.push_back(&e);
      }
      continue;
    }
    bool remove;
    if (hidden) {
      remove = IsAbandonedTempName(name) && e.modification_time < delete_before_ms;
    } else {
      remove = !retained.count(e.path) && e.modification_time < delete_before_ms;
    }
    if (remove) {
      plan.files.push_back(e);
      plan.bytes += e.size;
    } else {
      keep(e.path);
    }
  }
  std::sort(plan.files.begin(), plan.files.end(),
            [](const VacuumEntry& a, const VacuumEntry& b) { return a.path < b.path; });
  // Deepest first, so a directory is removed after its (emptied) subdirectories.
  std::sort(dirs.begin(), dirs.end(), [](const VacuumEntry* a, const VacuumEntry* b) {
    auto depth = [](const std::string& p) { return std::count(p.begin(), p.end(), '/'); };
    if (depth(a->path) != depth(b->path)) return depth(a->path) > depth(b->path);
    return a->path < b->path;
  });
  for (const VacuumEntry* d : dirs) {
    if (!nonempty.count(d->path)) plan.dirs.push_back(d->path);
  }
  return plan;
}

Result<int64_t> VacuumRetentionMs(const Metadata& metadata,
                                  std::optional<double> retain_hours, bool check) {
  std::optional<std::string> configured_text =
      metadata.GetConfig(kDeletedFileRetentionDurationProperty);
  std::string text = configured_text.value_or(std::string(kDefaultDeletedFileRetention));
  Result<int64_t> configured = ParseIntervalMs(text);
  if (!configured) {
    return MakeError(ErrorCode::kCorruptLog, "table property '{}' = '{}': {}",
                     kDeletedFileRetentionDurationProperty, text,
                     configured.error().message);
  }
  if (!retain_hours) return *configured;
  if (!std::isfinite(*retain_hours) || *retain_hours < 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "[DELTA_VACUUM_RETENTION_PERIOD_NEGATIVE] Retention period for "
                     "Vacuum can't be less than 0 hours.");
  }
  // Spark: TimeUnit.HOURS.toMillis(math.round(hours)).
  const double rounded = std::round(*retain_hours);
  if (rounded > static_cast<double>(INT64_MAX / kMsPerHour)) {
    return MakeError(ErrorCode::kInvalidArgument, "RETAIN {} HOURS is too large",
                     *retain_hours);
  }
  const int64_t ms = static_cast<int64_t>(rounded) * kMsPerHour;
  if (check && ms < *configured) {
    // Spark rounds the configured retention up to whole hours for the message.
    const int64_t hours = (*configured + kMsPerHour - 1) / kMsPerHour;
    return MakeError(
        ErrorCode::kInvalidArgument,
        "[DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT] The specified VACUUM retention period "
        "is too low and may corrupt this Delta table if any writes are in progress.\n\n"
        "If no operations (insert, upsert, delete, optimize) are running, you can "
        "disable this safety check by setting:\n"
        "spark.databricks.delta.retentionDurationCheck.enabled = false\n\n"
        "Otherwise, use a retention period of at least {} hours.",
        hours);
  }
  return ms;
}

}  // namespace deltaguard
