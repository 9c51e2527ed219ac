/// \file deltaguard/table/data_check.h
/// `deltaguard check TABLE` (docs/data_tests.md): the profile of one commit against the
/// baseline of earlier commits' profiles, through the default detectors
/// (quality/detectors.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/quality/check_report.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

struct DataCheckOptions {
  std::optional<int64_t> version;  ///< the commit to check; default the latest
  BaselineSpec baseline;
  DetectorOptions detectors;
};

/// Checks the commit `options.version` of the table at `root`. Profiles are read from
/// the profile table; a commit without a stored profile (the checked one or one of the
/// baseline) is profiled from its files for this check and not stored (`deltaguard
/// profile` stores them). A commit that added no rows is checked for volume only.
Result<CheckReport> CheckTableData(FileSystemRef fs, const std::string& root,
                                   const DataCheckOptions& options = {});

}  // namespace deltaguard
