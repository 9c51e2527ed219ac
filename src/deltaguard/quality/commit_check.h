/// \file deltaguard/quality/commit_check.h
/// Data tests at commit time (docs/data_tests.md "At commit time"): a write with
/// WriteOptions::check profiles its rows and counts its row tests in the same pass as
/// the data files are written, then, after the files are staged and before the commit,
/// decides the suite against the table's stored profiles exactly as `deltaguard check`
/// would decide the commit afterwards (quality/data_test_eval.h).
///
/// What a failure does (CheckFailureAction): fail commits nothing and names the tests;
/// warn commits and reports; quarantine routes the rows breaking a row test to the
/// quarantine table (RowConstraints) and, when a test of the whole batch fails (a
/// detector, row_count, unique...), holds the whole batch there instead of the table.
/// WriteTable and the quarantine write (table/) and MERGE, UPDATE and DELETE (dml/,
/// through SessionSettings' check settings) make one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "deltaguard/constraints/constraints.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/quality/check_report.h"
#include "deltaguard/quality/data_tests.h"
#include "deltaguard/quality/row_tests.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"
#include "deltaguard/write/write_types.h"

namespace deltaguard {

class CommitCheck {
 public:
  /// Loads the tests (`options.tests`: "auto", a tests file or a contract) and the
  /// profile history of the table at `table_root` (none when `table_exists` is false),
  /// and binds the row tests to `schema`, the table's schema after the write.
  static Result<std::shared_ptr<CommitCheck>> Make(
      const FileSystemRef& fs, const std::string& table_root, const std::string& name,
      const WriteCheckOptions& options, bool table_exists, const StructType& schema);

  const WriteCheckOptions& options() const { return options_; }
  const DataTestSuite& suite() const { return suite_; }
  /// The batch observer counting the row tests; null when the suite has none.
  std::shared_ptr<RowTestObserver> row_observer() const { return rows_; }

  /// The row tests one row can break (not_null, accepted_values, range, pattern,
  /// expression_is_true, a contract's predicates), as constraints a quarantine router
  /// checks per row ("data test accepted_values(status)").
  std::vector<Constraint> RowConstraints() const;

  /// The suite on the staged rows, whose profile is `profile` (version -1: not
  /// committed; timestamp_ms: the commit's time). The caller keeps the profile to
  /// store it after the commit, so it is taken from the observer once.
  Result<CheckReport> Decide(const TableProfile& profile) const;

  /// For a MERGE, UPDATE or DELETE: turns off the detectors that compare the rows'
  /// mix with a load's (VOLUME_ANOMALY, DISTRIBUTION_SHIFT, CATEGORY_DROPPED). A
  /// rewrite holds the rows of the files it touched, a subset chosen by its predicate,
  /// so their number and mix legitimately differ from a load's; what the rows mean
  /// (scale, time zone, new values, format, NULLs) and the named tests still apply.
  void ForRewrite();

 private:
  CommitCheck() = default;
  WriteCheckOptions options_;
  DataTestSuite suite_;
  BaselineSpec spec_;
  std::string name_;
  std::vector<TableProfile> history_;
  std::shared_ptr<RowTestObserver> rows_;
};

/// The summary a WriteResult carries.
WriteCheckSummary SummarizeCheck(const CheckReport& report);

/// The warnings a write reports for the findings that did not pass (warned, failed
/// under --on-check-failure warn, or could not run): "data test NEW_CATEGORY status:
/// ...".
std::vector<std::string> CheckWarnings(const CheckReport& report);

/// The failed tests in one line ("SCALE_SHIFT amount (factor 100); NEW_CATEGORY
/// status"), as a held batch's `_violated_constraint` and the error name them.
std::string FailedTests(const CheckReport& report);

/// kConstraintViolation: the write to `name` committed nothing because these tests
/// failed; details carry "constraint" (the failed tests) and "check_report" (JSON).
Error CheckFailedError(const CheckReport& report, const std::string& name);

}  // namespace deltaguard
