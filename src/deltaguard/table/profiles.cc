// Profiles of a table's commits (table/profiles.h): the profile table appended, and
// backfill from the files a commit added (reading is quality/profile_store.h's).

#include "deltaguard/table/profiles.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <set>

#include "deltaguard/arrow/status.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/quality/profile_table.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/vacuum.h"
#include "deltaguard/table/write.h"
#include "deltaguard/util/string_util.h"
#include "deltaguard/write/table_path.h"
#include "deltaguard/write/table_state.h"

namespace deltaguard {

namespace {

// The rows of a table scan whose `version` is in [lo, hi], as an Arrow reader.
class VersionRows final : public arrow::RecordBatchReader {
 public:
  VersionRows(std::unique_ptr<TableScan> scan, int64_t lo, int64_t hi)
      : scan_(std::move(scan)), lo_(lo), hi_(hi) {}
  std::shared_ptr<arrow::Schema> schema() const override {
    return scan_->output_schema();
  }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    while (true) {
      auto next = scan_->Next();
      if (!next) return internal::ToArrowStatus(next.error());
      *out = std::move(*next);
      if (*out == nullptr) return arrow::Status::OK();
      auto versions = std::dynamic_pointer_cast<arrow::Int64Array>(
          (*out)->GetColumnByName("version"));
      if (!versions) return arrow::Status::Invalid("the profile table has no version");
      arrow::BooleanBuilder keep;
      ARROW_RETURN_NOT_OK(keep.Reserve(versions->length()));
      int64_t kept = 0;
      for (int64_t i = 0; i < versions->length(); ++i) {
        const bool in = versions->IsValid(i) && versions->Value(i) >= lo_ &&
                        versions->Value(i) <= hi_;
        keep.UnsafeAppend(in);
        kept += in ? 1 : 0;
      }
      if (kept == (*out)->num_rows()) return arrow::Status::OK();
      if (kept == 0) continue;
      std::shared_ptr<arrow::Array> mask;
      ARROW_RETURN_NOT_OK(keep.Finish(&mask));
      ARROW_ASSIGN_OR_RAISE(auto filtered, arrow::compute::Filter(*out, mask));
      *out = filtered.record_batch();
      return arrow::Status::OK();
    }
  }

 private:
  std::unique_ptr<TableScan> scan_;
  int64_t lo_;
  int64_t hi_;
};

}  // namespace

Status CompactProfileTable(FileSystemRef fs, const std::string& root) {
  DELTA_ASSIGN_OR_RETURN(std::string table_root, NormalizeTablePath(root));
  const std::string path = ProfileTablePath(table_root);
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot, OpenSnapshot(fs, path));
  // The per-commit files (one version each) become one file of their version range;
  // files already compacted stay, so each compacted file keeps a narrow range and a
  // check of the last 14 commits still reads one or two files.
  int64_t lo = std::numeric_limits<int64_t>::max();
  int64_t hi = std::numeric_limits<int64_t>::min();
  int64_t singles = 0;
  for (const auto& f : snapshot->files()) {
    auto v = FileVersions(f);
    if (!v || v->first != v->second) continue;
    lo = std::min(lo, v->first);
    hi = std::max(hi, v->second);
    ++singles;
  }
  if (singles < 2) return OkStatus();
  ScanOptions scan_options;
  scan_options.file_filter = [lo, hi](const AddFile& f) {
    auto v = FileVersions(f);
    return !v || (v->second >= lo && v->first <= hi);
  };
  DELTA_ASSIGN_OR_RETURN(auto scan, TableScan::Make(snapshot, scan_options));
  std::vector<BatchSource> sources;
  sources.push_back(SourceFromReader(
      "the profile table", std::make_shared<VersionRows>(std::move(scan), lo, hi)));
  // replaceWhere over the version range: files wholly inside are removed, a compacted
  // file it overlaps (a backfilled old version) is rewritten without those rows.
  WriteOptions options;
  options.mode = WriteMode::kOverwrite;
  options.replace_where = fmt::format("version >= {} AND version <= {}", lo, hi);
  options.operation = "OPTIMIZE";
  auto rewritten = WriteTable(fs, path, std::move(sources), options);
  if (!rewritten) {
    return WithContext(rewritten.error(), fmt::format("compacting '{}'", path));
  }
  // Files the rewrite removed stay for the table's retention (time travel, readers in
  // flight); older ones go now.
  VacuumOptions vacuum;
  vacuum.logging = false;
  auto vacuumed = Vacuum(fs, path, vacuum);
  if (!vacuumed)
    return WithContext(vacuumed.error(), fmt::format("vacuuming '{}'", path));
  return OkStatus();
}

Result<int64_t> StoreProfile(FileSystemRef fs, const std::string& root,
                             const TableProfile& profile,
                             std::vector<std::string>* warnings) {
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
  // A profile table written by an older release gains the columns added since.
  options.merge_schema = true;
  const std::string path = ProfileTablePath(table_root);
  auto written = WriteTable(fs, path, std::move(sources), options);
  if (!written) {
    return WithContext(
        written.error(),
        fmt::format("storing the profile of version {} in '{}'", profile.version, path));
  }
  // One small file per commit would make reading a year of profiles open hundreds of
  // files: every kCompactProfilesEvery versions they become one (docs/profiles.md
  // "Storage"). A failed compaction leaves the appended profile in place.
  if (written->version > 0 && written->version % kCompactProfilesEvery == 0) {
    auto compacted = CompactProfileTable(fs, table_root);
    if (!compacted && warnings != nullptr) {
      warnings->push_back(
          fmt::format("the profile table was not compacted ({}); the next "
                      "compaction tries again",
                      compacted.error().message));
    }
  }
  return written->version;
}

void StoreCommitProfile(FileSystemRef fs, const std::string& root,
                        const std::shared_ptr<const TableProfile>& profile,
                        std::vector<std::string>* warnings) {
  if (!profile || profile->columns.empty()) return;
  auto stored = StoreProfile(fs, root, *profile, warnings);
  if (!stored) {
    warnings->push_back(fmt::format(
        "the profile of version {} was not stored ({}); `deltaguard profile {}` "
        "computes it again from the data",
        profile->version, stored.error().message, root));
  }
}

void StoreWriteProfile(FileSystemRef fs, const std::string& root, TableProfile profile,
                       int64_t version, int64_t timestamp_ms, std::string operation,
                       std::vector<std::string>* warnings) {
  if (profile.columns.empty()) return;  // the commit added no rows
  profile.version = version;
  profile.timestamp_ms = timestamp_ms;
  profile.operation = std::move(operation);
  auto stored = StoreProfile(fs, root, profile, warnings);
  if (!stored) {
    warnings->push_back(fmt::format(
        "the profile of version {} was not stored ({}); `deltaguard profile {}` "
        "computes it again from the data",
        version, stored.error().message, root));
  }
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
