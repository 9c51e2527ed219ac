/// \file deltaguard/util/timestamp_text.h
/// The timestamps users type for time travel (`--timestamp`, Python's
/// `Table(timestamp=...)`): one parser, so every front end accepts the same texts.
#pragma once

#include <cstdint>
#include <string_view>

#include "deltaguard/util/result.h"

namespace deltaguard {

/// Epoch milliseconds from `2024-01-31`, `2024-01-31 12:00:00[.fff]`,
/// `2024-01-31T12:00:00Z`, an optional `+HH:MM`/`-HH:MM` offset (UTC without one), or
/// an integer of epoch milliseconds. Anything else is kInvalidArgument naming the text
/// and the accepted forms.
Result<int64_t> ParseUserTimestampMillis(std::string_view text);

}  // namespace deltaguard
