/// \file deltaguard/sql/contract_sql.h
/// Contract tests with their sql rules run by the SQL engine: the entry point the CLI,
/// SQL and Python share (docs/contracts.md "Test").
#pragma once

#include "deltaguard/quality/contract_check.h"
#include "deltaguard/sql/session.h"

namespace deltaguard {

/// A runner for contract sql rules: each query runs in a fresh session over `options`
/// and must be one SELECT returning one row whose first column is a number (NULL
/// counts as 0, as COUNT over no rows would); anything else is kInvalidArgument naming
/// the query.
SqlMetricRunner MakeSqlMetricRunner(SessionOptions options);

/// TestContract with `{object}` naming the snapshot's table by path at its version, and
/// sql rules run
/// through MakeSqlMetricRunner.
Result<ContractTestReport> TestContractWithSql(const Contract& contract,
                                               const ContractObject& object,
                                               const SnapshotRef& snapshot,
                                               SessionOptions options);

}  // namespace deltaguard
