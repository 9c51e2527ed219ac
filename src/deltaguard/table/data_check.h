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

/// Reads a tests file, or an ODCS contract (its quality rules and implied checks as
/// row tests; `contract_object` names its schema object when it has several), from the
/// local file system. Errors name the file and the line.
Result<DataTestSuite> LoadDataTests(const FileSystem& fs, const std::string& path,
                                    const std::string& contract_object = "");

/// The history a check needs: the stored profiles of the commits before `version`
/// (those the spec selects are profiled from their files when not stored, and not
/// stored: `deltaguard profile` stores them) and, when `version` >= 0, its own.
Result<std::vector<TableProfile>> CheckHistory(const FileSystemRef& fs,
                                               const std::string& table_root,
                                               int64_t version, const BaselineSpec& spec);

/// Checks the commit `options.version` of the table at `root`. A commit without a
/// stored profile is profiled from its files; row tests read the rows it added. A
/// commit that added no rows is checked for volume only.
Result<CheckReport> CheckTableData(FileSystemRef fs, const std::string& root,
                                   const DataCheckOptions& options = {});

}  // namespace deltaguard
