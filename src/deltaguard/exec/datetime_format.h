/// \file deltaguard/exec/datetime_format.h
/// Parsing strings with Spark datetime patterns (to_date(str, fmt), to_timestamp(str,
/// fmt)): the letters y (year), M (month), d (day), H (hour 0-23), m, s, S (fraction of
/// a second, as many digits as letters), text in single quotes ('' is a quote) and any
/// other non-letter character matched literally.
///
/// Invariants: the whole input must match the pattern (Spark's formatter leaves no
/// unparsed text); the date and time must exist (2023-02-29 is an error); the session
/// time zone is UTC, so a timestamp is the UTC instant of the parsed wall time. With
/// ANSI mode (always on here) a string that does not match is an error
/// (CANNOT_PARSE_TIMESTAMP); `lenient` (try_to_timestamp) gives NULL instead.
#pragma once

#include <arrow/array.h>

#include <cstdint>
#include <memory>
#include <string_view>

#include "deltaguard/util/result.h"

namespace deltaguard {

/// kInvalidArgument naming the letter when `pattern` uses a letter that is not
/// supported, or has an unterminated quote.
Status CheckDatetimePattern(std::string_view pattern);

/// Microseconds since the epoch (UTC) of `text` read with `pattern`.
/// kInvalidArgument "CANNOT_PARSE_TIMESTAMP: Text '<text>' could not be parsed ..."
Result<int64_t> ParseWithPattern(std::string_view text, std::string_view pattern);

/// Parse every string of `strings` (arrow utf8) with `pattern` into date32 (`to_date`)
/// or timestamp[us, UTC] values; NULL stays NULL; a failure is an error, or NULL when
/// `lenient`.
Result<std::shared_ptr<arrow::Array>> ParseDatetimeArray(const arrow::Array& strings,
                                                         std::string_view pattern,
                                                         bool to_date, bool lenient);

/// `micros` (since the epoch, UTC) written with a Spark datetime pattern, as
/// date_format and from_unixtime do (datetime_print.cc): G (era), y, M and L (3 letters
/// "Jan", 4 "January"), d, D (day of year), Q and q (quarter), E ("Mon", 4 letters
/// "Monday"), a (AM/PM), H, h, K, k, m, s, S (fraction, truncated), the zone letters z,
/// Z, X, x (the session zone is UTC), quoted text and other characters as they are.
/// kInvalidArgument naming the letter for any other letter or an unterminated quote.
Result<std::string> FormatWithPattern(int64_t micros, std::string_view pattern);

/// kInvalidArgument when FormatWithPattern would refuse `pattern`.
Status CheckFormatPattern(std::string_view pattern);

}  // namespace deltaguard
