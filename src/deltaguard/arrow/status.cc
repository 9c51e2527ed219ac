#include "deltaguard/arrow/status.h"

#include <fmt/format.h>

namespace deltaguard::internal {

namespace {
constexpr char kDeltaErrorDetailTypeId[] = "deltaguard::DeltaErrorDetail";
}  // namespace

const char* DeltaErrorDetail::type_id() const { return kDeltaErrorDetailTypeId; }

arrow::Status ToArrowStatus(const Error& error) {
  return arrow::Status(arrow::StatusCode::IOError, error.message,
                       std::make_shared<DeltaErrorDetail>(error));
}

Error FromArrowStatus(const arrow::Status& status, ErrorCode code,
                      std::string_view context) {
  const auto& detail = status.detail();
  if (detail != nullptr &&
      std::string_view(detail->type_id()) == kDeltaErrorDetailTypeId) {
    // The error started in our FileSystem: keep its code and message.
    return static_cast<const DeltaErrorDetail&>(*detail).error();
  }
  if (status.IsNotImplemented()) code = ErrorCode::kUnsupportedFeature;
  if (status.IsOutOfMemory()) code = ErrorCode::kIOError;
  return Error{code, fmt::format("{}: {}", context, status.message())};
}

}  // namespace deltaguard::internal
