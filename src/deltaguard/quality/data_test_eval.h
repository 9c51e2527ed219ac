/// \file deltaguard/quality/data_test_eval.h
/// A suite (quality/data_tests.h) decided on one commit: pure, from the commit's
/// profile, the baseline commits' profiles and the exact row-test counts over the
/// commit's rows. What `deltaguard check` and a write with `--check` both call, so they
/// give the same answers (docs/data_tests.md).
#pragma once

#include <vector>

#include "deltaguard/quality/data_tests.h"
#include "deltaguard/quality/detectors.h"
#include "deltaguard/quality/profile.h"
#include "deltaguard/quality/row_tests.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// The findings of `suite` on `current`: the detectors first (the suite's tuning and
/// severities applied; only those listed when `suite.defaults` is false), then every
/// test in file order. `rows` are RowTestRunner's counts over the same rows (row tests
/// without a count are errors). kInvalidArgument naming the tests file and line for a
/// profile test on a column the commit does not have (when it added rows).
Result<std::vector<Finding>> EvaluateDataTests(
    const DataTestSuite& suite, const TableProfile& current,
    const std::vector<const TableProfile*>& baseline,
    const std::vector<RowTestCount>& rows, const DetectorOptions& defaults = {});

}  // namespace deltaguard
