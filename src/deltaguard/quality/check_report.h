/// \file deltaguard/quality/check_report.h
/// The result of `deltaguard check` (docs/data_tests.md): a commit's profile against
/// its baseline through the detectors, and its renderings (text, JSON, JUnit XML,
/// GitHub annotations) shared by the CLI and Python.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/quality/detectors.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

struct CheckReport {
  std::string table;
  int64_t version = -1;
  int64_t rows = 0;
  std::string baseline_spec;  ///< "trailing:14"
  std::vector<int64_t> baseline_versions;
  std::string tests;  ///< the tests file, or "auto" for the default detectors alone
  std::vector<Finding> findings;

  /// failed when any finding failed, warning when any warned, else passed.
  CheckOutcome outcome() const;
  int64_t Count(CheckOutcome outcome) const;
};

enum class CheckReportFormat : uint8_t { kText, kJson, kJunit, kGithub };
Result<CheckReportFormat> ParseCheckReportFormat(std::string_view name);

/// Text lists the failed and warning findings with observed value, baseline and
/// threshold, then the counts; JSON has every finding:
/// {"table","version","rows","baseline":{"spec","versions"},"outcome","counts":{...},
///  "findings":[{"test","column","outcome","observed","baseline","threshold","message",
///  "values","factor","hours","violating_rows","location"}]} plus "tests".
std::string RenderCheckReport(const CheckReport& report, CheckReportFormat format);

}  // namespace deltaguard
