// CheckOutcomeName (quality/check_outcome.h).

#include "deltaguard/quality/check_outcome.h"

namespace deltaguard {

std::string_view CheckOutcomeName(CheckOutcome outcome) {
  switch (outcome) {
    case CheckOutcome::kPassed:
      return "passed";
    case CheckOutcome::kWarning:
      return "warning";
    case CheckOutcome::kFailed:
      return "failed";
    case CheckOutcome::kError:
      return "error";
    case CheckOutcome::kSkipped:
      return "skipped";
  }
  return "error";
}

}  // namespace deltaguard
