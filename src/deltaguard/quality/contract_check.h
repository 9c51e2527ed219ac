/// \file deltaguard/quality/contract_check.h
/// `contract test`: a table version against a contract (docs/contracts.md "Test"). The
/// schema is checked through the drift classifier (contract -> table); every row-level
/// check, duplicate count and row count of contract/checks.h is computed in one pass
/// over the columns they read; sql rules run through a runner the SQL layer supplies.
/// Results use the vocabulary of datacontract-cli: passed, warning, failed, error,
/// skipped.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/contract/checks.h"
#include "deltaguard/contract/contract.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/quality/check_outcome.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

struct CheckResult {
  std::string id;
  std::string description;
  std::string kind;  ///< schema | implied | library | sql | custom | text
  std::string property;
  std::string severity;  ///< the rule's: info | warning | error
  CheckOutcome outcome = CheckOutcome::kPassed;
  std::optional<double> observed;    ///< the metric's value
  std::string threshold;             ///< "mustBe 0", "mustBeLessThan 1 (percent)"
  int64_t violating_rows = 0;        ///< row checks and duplicates
  std::vector<std::string> samples;  ///< up to 5 violating rows ({col: value})
  std::string message;
};

struct ContractTestReport {
  std::string contract_id;
  std::string contract_version;
  std::string contract_file;
  std::string object;
  std::string table;
  int64_t version = -1;
  int64_t rows = 0;
  std::vector<CheckResult> checks;
  CheckOutcome outcome = CheckOutcome::kPassed;  ///< the worst of the checks
  size_t Count(CheckOutcome outcome) const;
};

/// Runs one sql rule's query (placeholders already substituted) and returns the single
/// number it yields.
using SqlMetricRunner = std::function<Result<double>(const std::string& query)>;

struct ContractTestOptions {
  /// How sql rules name the table ({object}), e.g. delta.`/data/orders`.
  std::string table_sql;
  /// Null: sql rules are reported as errors ("needs the SQL engine").
  SqlMetricRunner sql;
  size_t max_samples = 5;
};

/// Test `snapshot` against `object` of `contract`. Fails only when the table cannot be
/// read; every problem of a check (a predicate that no longer binds, a failing query)
/// is that check's `error` outcome.
Result<ContractTestReport> TestContract(const Contract& contract,
                                        const ContractObject& object,
                                        const SnapshotRef& snapshot,
                                        const ContractTestOptions& options);

std::string ContractTestText(const ContractTestReport& report);
/// {"contract":{"id","version","file"},"object","table","version","rows","outcome",
///  "counts":{passed,warning,failed,error,skipped},"checks":[{"id","description",
///  "kind","property","severity","outcome","observed","threshold","violating_rows",
///  "samples","message"}]}
std::string ContractTestJson(const ContractTestReport& report);
std::string ContractTestJunit(const ContractTestReport& report);
std::string ContractTestGithub(const ContractTestReport& report);

}  // namespace deltaguard
