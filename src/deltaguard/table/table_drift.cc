#include "deltaguard/table/table_drift.h"

#include <arrow/array.h>
#include <arrow/record_batch.h>
#include <arrow/scalar.h>
#include <arrow/type_traits.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <utility>

#include "deltaguard/drift/evidence.h"
#include "deltaguard/schema/column_path.h"

namespace deltaguard {

std::vector<ColumnEvidence> TableDriftEvidence(const Snapshot& snapshot) {
  std::vector<const AddFile*> files;
  for (const auto& f : snapshot.files()) files.push_back(&f);
  std::sort(files.begin(), files.end(), [](const AddFile* a, const AddFile* b) {
    return a->modification_time > b->modification_time;
  });
  if (files.size() > kDriftEvidenceFiles) files.resize(kDriftEvidenceFiles);
  return EvidenceFromAddStats(*snapshot.schema(), files);
}

std::vector<ColumnEvidence> BatchDriftEvidence(const arrow::RecordBatch& batch) {
  std::vector<ColumnEvidence> out;
  const int64_t rows = std::min<int64_t>(batch.num_rows(), kDriftSampleRows);
  for (int c = 0; c < batch.num_columns(); ++c) {
    const auto array = batch.column(c)->Slice(0, rows);
    ColumnEvidence e;
    e.path = FormatColumnPath({batch.schema()->field(c)->name()});
    e.num_records = array->length();
    e.null_count = array->null_count();
    bool numeric = arrow::is_numeric(array->type_id());
    std::set<std::string> seen;
    std::optional<double> lo, hi;
    for (int64_t r = 0; r < array->length(); ++r) {
      if (array->IsNull(r)) continue;
      auto scalar = array->GetScalar(r);
      if (!scalar.ok()) continue;
      std::string text = (*scalar)->ToString();
      if (numeric) {
        double v = std::strtod(text.c_str(), nullptr);
        if (!lo || v < *lo) lo = v, e.min = text;
        if (!hi || v > *hi) hi = v, e.max = text;
      } else {
        if (!e.min || text < *e.min) e.min = text;
        if (!e.max || text > *e.max) e.max = text;
      }
      if (seen.size() < kDriftSampleValues && seen.insert(text).second) {
        e.samples.push_back(text);
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::vector<DriftChange>> CommitDriftTracker::Next(const CommitSummary& s,
                                                          bool classify,
                                                          SchemaRef parsed) {
  if (!s.metadata || s.metadata->schema_string.empty()) {
    return std::vector<DriftChange>{};
  }
  DriftSide new_side;
  if (parsed) {
    new_side = DriftSideFromMetadata(*s.metadata, std::move(parsed));
  } else {
    DELTA_ASSIGN_OR_RETURN(new_side, DriftSideFromMetadata(*s.metadata));
  }
  std::vector<DriftChange> changes;
  if (classify && in_force_) {
    DriftEvidence evidence;
    DELTA_ASSIGN_OR_RETURN(std::vector<Action> actions,
                           ReadCommit(fs_, table_root_, s.version));
    std::vector<const AddFile*> adds;
    for (const auto& a : actions) {
      if (const auto* add = std::get_if<AddFile>(&a)) adds.push_back(add);
    }
    if (!adds.empty()) evidence.after = EvidenceFromAddStats(*new_side.schema, adds);
    changes = ClassifyDrift(*in_force_, new_side, evidence);
  }
  in_force_ = std::move(new_side);
  return changes;
}

Result<std::vector<VersionDrift>> HistoryDrift(const FileSystem& fs,
                                               const std::string& table_root,
                                               std::optional<int64_t> from,
                                               std::optional<int64_t> to) {
  for (const auto& [name, v] : {std::pair{"from_version", from}, {"to_version", to}}) {
    if (v && *v < 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "{} must be a version (0 or more), got {}", name, *v);
    }
  }
  if (from && to && *from > *to) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "from_version {} is after to_version {}: give the older version "
                     "first",
                     *from, *to);
  }
  DELTA_ASSIGN_OR_RETURN(std::vector<CommitSummary> commits, ReadHistory(fs, table_root));
  const int64_t latest = commits.empty() ? -1 : commits.back().version;
  for (const auto& [name, v] : {std::pair{"from_version", from}, {"to_version", to}}) {
    if (v && *v > latest) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "{} {} is after the latest version {} of table '{}'", name, *v,
                       latest, table_root);
    }
  }
  std::vector<VersionDrift> out;
  CommitDriftTracker tracker(fs, table_root);
  for (const CommitSummary& s : commits) {
    if (to && s.version > *to) break;
    auto changes = tracker.Next(s, !from || s.version >= *from);
    if (!changes) {
      return WithContext(changes.error(), fmt::format("drift of version {}", s.version));
    }
    if (changes->empty()) continue;
    VersionDrift v;
    v.version = s.version;
    v.timestamp_ms = s.timestamp_ms;
    v.operation = s.commit_info && s.commit_info->operation ? *s.commit_info->operation
                                                            : std::string("UNKNOWN");
    v.changes = std::move(*changes);
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace deltaguard
