/// \file deltaguard/quality/check_outcome.h
/// The outcome of one check, shared by contract tests (contract_check.h) and data
/// tests (detectors.h): passed, warning (a rule of severity warning, or a detector
/// that warns), failed, error (the check could not run: a sql rule that fails to
/// execute), skipped (not enough data, or a rule deltaguard cannot evaluate).
#pragma once

#include <cstdint>
#include <string_view>

namespace deltaguard {

enum class CheckOutcome : uint8_t { kPassed, kWarning, kFailed, kError, kSkipped };
std::string_view CheckOutcomeName(CheckOutcome outcome);  ///< "passed", ...

}  // namespace deltaguard
