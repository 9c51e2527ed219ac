/// \file deltaguard/table/data_check.h
/// `deltaguard check TABLE [--tests FILE]` (docs/data_tests.md): the tests of a suite
/// (quality/data_tests.h; without a file, the default detectors on every column) on one
/// commit's rows against the baseline of earlier commits' profiles.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/quality/check_report.h"
#include "deltaguard/quality/data_tests.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

struct DataCheckOptions {
  std::optional<int64_t> version;  ///< the commit to check; default the latest
  /// Default: the suite's baseline, else trailing:14.
  std::optional<BaselineSpec> baseline;
  DetectorOptions detectors;
  /// The tests; null: DataTestSuite::Auto() (the default detectors).
  std::shared_ptr<const DataTestSuite> suite;
};

/// Checks the commit `options.version` of the table at `root`. A commit without a
/// stored profile is profiled from its files; row tests read the rows it added. A
/// commit that added no rows is checked for volume only.
Result<CheckReport> CheckTableData(FileSystemRef fs, const std::string& root,
                                   const DataCheckOptions& options = {});

}  // namespace deltaguard
