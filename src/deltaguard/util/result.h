/// \file deltaguard/util/result.h
/// Error values for the whole library: Error, ErrorCode, Result<T> and Status.
///
/// The library never throws. Every fallible function returns Result<T> (or Status),
/// and callers branch on the ErrorCode. Messages name the object and both sides of a
/// mismatch ("column 'a': table has integer, input has string").
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <utility>
#include <vector>

namespace deltaguard {

/// Domain error codes. Retry semantics:
///  - kCommitConflict: rebase the *transaction* on the new snapshot and try again.
///  - kIOError: the storage call failed; retrying the *call* may succeed.
///  - kUnsupportedFeature: never retry; the table needs a feature we do not implement.
enum class ErrorCode : uint8_t {
  kInvalidArgument,      ///< bad user input: flags, values, expressions
  kNotFound,             ///< table, file, version or column does not exist
  kAlreadyExists,        ///< put-if-absent found the target; table exists
  kCorruptLog,           ///< the Delta log or a checkpoint breaks the protocol
  kCorruptData,          ///< a data file or deletion vector is unreadable
  kUnsupportedFeature,   ///< protocol version / table feature / type we do not support
  kSchemaMismatch,       ///< a write or read does not fit the table's schema
  kConstraintViolation,  ///< NOT NULL / CHECK / invariant violated
  kCommitConflict,       ///< lost an optimistic-concurrency race that cannot be retried
  kIOError,              ///< the file system failed
  kParseError,           ///< text (JSON, SQL, DDL) could not be parsed
  kInternal,             ///< a deltaguard bug; please report it
};

/// The stable prefix of a message for each code ("Schema Error: ...").
std::string_view ErrorCodePrefix(ErrorCode code);

struct Error {
  ErrorCode code;
  std::string message;
  /// Facts the message already states, as key/value text for front ends that show
  /// them as fields (the Python exceptions' attributes, docs/python.md "Errors"). A key
  /// may repeat (one "sample_row" per row). Optional: the message is complete alone.
  std::vector<std::pair<std::string, std::string>> details;

  /// Return "<prefix>: <message>", the form shown to users and matched by golden tests.
  std::string ToString() const;
};

template <typename T>
class [[nodiscard]] Result : public tl::expected<T, Error> {
 public:
  using Base = tl::expected<T, Error>;
  using Base::Base;
  Result(tl::unexpected<Error> e) : Base(std::move(e)) {}  // NOLINT(runtime/explicit)
  Result(Error e) : Base(tl::unexpected<Error>(std::move(e))) {}  // NOLINT
};

using Status = Result<void>;

inline Status OkStatus() { return Status(); }

/// Build an error with a fmt-formatted message: `return MakeError(ErrorCode::kNotFound,
/// "table '{}' has no _delta_log", path);`
template <typename... Args>
Error MakeError(ErrorCode code, fmt::format_string<Args...> format, Args&&... args) {
  return Error{code, fmt::format(format, std::forward<Args>(args)...)};
}

/// Prepend context to an error's message, keeping its code.
inline Error WithContext(Error e, std::string_view context) {
  e.message = fmt::format("{}: {}", context, e.message);
  return e;
}

}  // namespace deltaguard

#define DELTA_CONCAT_IMPL(x, y) x##y
#define DELTA_CONCAT(x, y) DELTA_CONCAT_IMPL(x, y)

/// Return the error of a Status/Result expression from the current function.
#define DELTA_RETURN_IF_ERROR(expr)                                   \
  do {                                                                \
    auto&& _delta_status = (expr);                                    \
    if (!_delta_status) return tl::unexpected(_delta_status.error()); \
  } while (false)

// WARNING: DELTA_ASSIGN_OR_RETURN expands into multiple statements; it cannot be used
// in a single-statement context such as the body of an if without braces.
#define DELTA_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr)       \
  auto tmp = (rexpr);                                      \
  if (!tmp) return tl::unexpected(std::move(tmp).error()); \
  lhs = std::move(tmp).value()

/// `DELTA_ASSIGN_OR_RETURN(auto x, Compute());` assigns the value or returns the error.
#define DELTA_ASSIGN_OR_RETURN(lhs, rexpr) \
  DELTA_ASSIGN_OR_RETURN_IMPL(DELTA_CONCAT(_delta_result_, __COUNTER__), lhs, rexpr)

/// Invariant check for our own bugs only, never for user input.
#define DELTA_DCHECK(cond)                                                             \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      fmt::print(stderr, "deltaguard internal invariant failed: {} at {}:{}\n", #cond, \
                 __FILE__, __LINE__);                                                  \
      std::abort();                                                                    \
    }                                                                                  \
  } while (false)
