#include "deltaguard/util/result.h"

namespace deltaguard {

std::string_view ErrorCodePrefix(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "Invalid Input Error";
    case ErrorCode::kNotFound:
      return "Not Found Error";
    case ErrorCode::kAlreadyExists:
      return "Already Exists Error";
    case ErrorCode::kCorruptLog:
      return "Corrupt Log Error";
    case ErrorCode::kCorruptData:
      return "Corrupt Data Error";
    case ErrorCode::kUnsupportedFeature:
      return "Unsupported Feature Error";
    case ErrorCode::kSchemaMismatch:
      return "Schema Error";
    case ErrorCode::kConstraintViolation:
      return "Constraint Error";
    case ErrorCode::kCommitConflict:
      return "Conflict Error";
    case ErrorCode::kIOError:
      return "IO Error";
    case ErrorCode::kParseError:
      return "Parser Error";
    case ErrorCode::kInternal:
      return "Internal Error";
  }
  return "Error";
}

std::string Error::ToString() const {
  return fmt::format("{}: {}", ErrorCodePrefix(code), message);
}

}  // namespace deltaguard
