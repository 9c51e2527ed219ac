// CheckTableData and LoadDataTests (table/data_check.h).

#include "deltaguard/table/data_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/quality/data_test_eval.h"
#include "deltaguard/quality/profile_store.h"
#include "deltaguard/quality/row_tests.h"
#include "deltaguard/table/profiles.h"
#include "deltaguard/table/table.h"
#include "deltaguard/write/table_path.h"

namespace deltaguard {

namespace {

// The row tests over the rows commit `version` added.
Result<std::vector<RowTestCount>> CountCommitRows(const FileSystemRef& fs,
                                                  const std::string& table_root,
                                                  const std::string& name,
                                                  int64_t version,
                                                  const DataTestSuite& suite) {
  DELTA_ASSIGN_OR_RETURN(auto added, CommitAddedFiles(fs, table_root, version));
  SnapshotSpec spec;
  spec.version = version;
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot, OpenSnapshot(fs, table_root, spec));
  DELTA_ASSIGN_OR_RETURN(RowTestRunner runner,
                         RowTestRunner::Make(suite, *snapshot->schema(), name));
  if (added.empty()) return runner.Counts();
  ScanOptions options;
  options.file_filter = [&added](const AddFile& f) { return added.count(f.path) > 0; };
  DELTA_ASSIGN_OR_RETURN(auto scan, TableScan::Make(snapshot, options));
  while (true) {
    DELTA_ASSIGN_OR_RETURN(auto batch, scan->Next());
    if (!batch) break;
    DELTA_RETURN_IF_ERROR(runner.Add(*batch));
  }
  return runner.Counts();
}

}  // namespace

Result<CheckReport> CheckTableData(FileSystemRef fs, const std::string& root,
                                   const DataCheckOptions& options) {
  DELTA_ASSIGN_OR_RETURN(std::string table_root, NormalizeTablePath(root));
  DELTA_ASSIGN_OR_RETURN(SnapshotRef latest, OpenSnapshot(fs, table_root));
  const int64_t version = options.version.value_or(latest->version());
  if (version < 0 || version > latest->version()) {
    return MakeError(ErrorCode::kNotFound, "table '{}' has no version {} (latest is {})",
                     root, version, latest->version());
  }
  static const DataTestSuite kAuto = DataTestSuite::Auto();
  const DataTestSuite& suite = options.suite ? *options.suite : kAuto;
  const BaselineSpec spec =
      options.baseline.value_or(suite.baseline.value_or(BaselineSpec{}));
  DELTA_ASSIGN_OR_RETURN(auto history, CheckHistory(fs, table_root, version, spec));
  auto current = std::find_if(history.begin(), history.end(), [&](const TableProfile& p) {
    return p.version == version;
  });
  if (current == history.end()) {
    return MakeError(ErrorCode::kNotFound,
                     "version {} of '{}' has no commit file to profile (log cleanup); "
                     "check a later version",
                     version, root);
  }
  std::vector<RowTestCount> rows;
  if (suite.HasRowTests()) {
    DELTA_ASSIGN_OR_RETURN(rows, CountCommitRows(fs, table_root, root, version, suite));
  }
  CheckReport report;
  report.table = root;
  report.version = version;
  report.rows = current->rows;
  report.tests = suite.file;
  report.baseline_spec = spec.ToString();
  auto baseline = SelectBaseline(history, *current, spec);
  for (const TableProfile* p : baseline) report.baseline_versions.push_back(p->version);
  DELTA_ASSIGN_OR_RETURN(report.findings, EvaluateDataTests(suite, *current, baseline,
                                                            rows, options.detectors));
  return report;
}

}  // namespace deltaguard
