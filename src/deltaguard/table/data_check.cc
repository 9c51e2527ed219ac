// CheckTableData (table/data_check.h).

#include "deltaguard/table/data_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "deltaguard/log/snapshot.h"
#include "deltaguard/table/profiles.h"
#include "deltaguard/table/table.h"
#include "deltaguard/write/table_path.h"

namespace deltaguard {

Result<CheckReport> CheckTableData(FileSystemRef fs, const std::string& root,
                                   const DataCheckOptions& options) {
  DELTA_ASSIGN_OR_RETURN(std::string table_root, NormalizeTablePath(root));
  DELTA_ASSIGN_OR_RETURN(SnapshotRef latest, OpenSnapshot(fs, table_root));
  const int64_t version = options.version.value_or(latest->version());
  if (version < 0 || version > latest->version()) {
    return MakeError(ErrorCode::kNotFound, "table '{}' has no version {} (latest is {})",
                     root, version, latest->version());
  }
  DELTA_ASSIGN_OR_RETURN(auto history, ReadProfiles(fs, table_root, 0, version));
  // Profile the commits the check needs that have no stored profile: the checked one,
  // and (for a trailing number of commits) the ones before it, newest first.
  std::set<int64_t> have;
  for (const auto& p : history) have.insert(p.version);
  DELTA_ASSIGN_OR_RETURN(auto versions, ListCommitVersions(*fs, table_root));
  std::vector<int64_t> wanted;
  for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
    if (*it > version) continue;
    const bool in_reach = options.baseline.kind == BaselineSpec::Kind::kDuration ||
                          static_cast<int64_t>(wanted.size()) <= options.baseline.commits;
    if (!in_reach) break;
    wanted.push_back(*it);
  }
  for (int64_t v : wanted) {
    if (have.count(v)) continue;
    auto computed = ProfileCommit(fs, table_root, v);
    if (!computed) {
      return WithContext(
          computed.error(),
          fmt::format("profiling version {} of '{}' for the check", v, root));
    }
    history.push_back(std::move(*computed));
  }
  auto current = std::find_if(history.begin(), history.end(), [&](const TableProfile& p) {
    return p.version == version;
  });
  if (current == history.end()) {
    return MakeError(ErrorCode::kNotFound,
                     "version {} of '{}' has no commit file to profile (log cleanup); "
                     "check a later version",
                     version, root);
  }
  CheckReport report;
  report.table = root;
  report.version = version;
  report.rows = current->rows;
  report.baseline_spec = options.baseline.ToString();
  auto baseline = SelectBaseline(history, *current, options.baseline);
  for (const TableProfile* p : baseline) report.baseline_versions.push_back(p->version);
  report.findings = RunDetectors(*current, baseline, options.detectors);
  return report;
}

}  // namespace deltaguard
