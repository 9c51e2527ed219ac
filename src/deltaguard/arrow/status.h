/// \file deltaguard/arrow/status.h
/// The only bridge between arrow::Status and deltaguard::Error, in both directions.
///
/// Arrow never throws, but every call returns a Status that must be checked and turned
/// into our Error. Errors that start in our own FileSystem travel through Arrow as a
/// StatusDetail so that their ErrorCode (kIOError, kNotFound, ...) survives the trip.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "deltaguard/util/result.h"

namespace deltaguard::internal {

/// Carries a deltaguard Error inside an arrow::Status.
class DeltaErrorDetail final : public arrow::StatusDetail {
 public:
  explicit DeltaErrorDetail(Error error) : error_(std::move(error)) {}
  const char* type_id() const override;
  std::string ToString() const override { return error_.ToString(); }
  const Error& error() const { return error_; }

 private:
  Error error_;
};

/// Wrap our Error into an arrow::Status (IOError) that remembers the original Error.
arrow::Status ToArrowStatus(const Error& error);

/// Convert a failed arrow::Status. A status that carries a DeltaErrorDetail gives back
/// the original error; NotImplemented becomes kUnsupportedFeature; OutOfMemory becomes
/// kIOError; anything else gets `code`. `context` names the object ("data file 'x'").
/// REQUIRES: !status.ok().
Error FromArrowStatus(const arrow::Status& status, ErrorCode code,
                      std::string_view context);

}  // namespace deltaguard::internal

/// Return a deltaguard Error from the current function if an arrow::Status expression
/// failed. `context` is only evaluated on failure.
#define DELTA_ARROW_RETURN_NOT_OK(expr, code, context)                                  \
  do {                                                                                  \
    ::arrow::Status _delta_arrow_st = (expr);                                           \
    if (!_delta_arrow_st.ok()) {                                                        \
      return tl::unexpected(                                                            \
          ::deltaguard::internal::FromArrowStatus(_delta_arrow_st, (code), (context))); \
    }                                                                                   \
  } while (false)

// WARNING: expands into multiple statements (see DELTA_ASSIGN_OR_RETURN).
#define DELTA_ARROW_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr, code, context)          \
  auto tmp = (rexpr);                                                              \
  if (!tmp.ok()) {                                                                 \
    return tl::unexpected(                                                         \
        ::deltaguard::internal::FromArrowStatus(tmp.status(), (code), (context))); \
  }                                                                                \
  lhs = std::move(tmp).ValueUnsafe()

/// `DELTA_ARROW_ASSIGN_OR_RETURN(auto x, arrow_call(), ErrorCode::kCorruptData, ctx);`
#define DELTA_ARROW_ASSIGN_OR_RETURN(lhs, rexpr, code, context)                      \
  DELTA_ARROW_ASSIGN_OR_RETURN_IMPL(DELTA_CONCAT(_delta_arrow_result_, __COUNTER__), \
                                    lhs, rexpr, code, context)
