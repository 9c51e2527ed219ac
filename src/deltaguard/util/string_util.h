/// \file deltaguard/util/string_util.h
/// Small string helpers shared by every layer: ASCII case folding (Delta column names
/// compare case-insensitively), splitting and trimming, URI percent-coding of log paths
/// (PROTOCOL.md "Add File": `path` is a URI, e.g. `a%20b`, `x=2021-09-08%2011%253A11`),
/// and JSON string escaping as Spark's Jackson writer does it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/util/result.h"

namespace deltaguard {

// ---------------------------------------------------------------------------------------
// Case folding. Only ASCII letters fold; other bytes (incl. UTF-8) compare as-is, which
// is what Spark's case-insensitive resolution does for the identifiers Delta stores.

char AsciiToLower(char c);
std::string AsciiToLower(std::string_view s);
std::string AsciiToUpper(std::string_view s);
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
/// `s` begins with `prefix`, ASCII case folded ("Delta.Constraints.x",
/// "delta.constraints.").
bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix);
/// <0, 0, >0 like strcmp, after folding ASCII letters to lower case.
int CompareIgnoreCase(std::string_view a, std::string_view b);

// ---------------------------------------------------------------------------------------
// Splitting and trimming. Results view into the input: it must outlive them.

/// Split at every `sep`; "a,,b" gives {"a", "", "b"} and "" gives {""}.
std::vector<std::string_view> Split(std::string_view s, char sep);
/// Remove leading and trailing ASCII whitespace (space, \t, \n, \r, \f, \v).
std::string_view Trim(std::string_view s);
bool IsAsciiSpace(char c);

// ---------------------------------------------------------------------------------------
// URI percent-coding of relative paths in the log.

/// Decode `%XX` escapes. A '%' not followed by two hex digits is kInvalidArgument (a
/// Java URI would reject it too). '+' is left alone: it is not a space in a URI path.
Result<std::string> PercentDecode(std::string_view s);
/// Encode a path as java.net.URI does for its path component: ASCII letters, digits,
/// `-_.!~*'()`, `:@&=+$,;` and '/' stay; other ASCII bytes (space, '%', '#', '?', ...)
/// become `%XX` (upper-case hex). Bytes >= 0x80 (UTF-8) stay as they are, matching
/// `URI.toString()`, which Spark uses for add.path. PercentDecode inverts it.
std::string PercentEncodePath(std::string_view s);

// ---------------------------------------------------------------------------------------
// UTF-8.

/// True when `s` is well-formed UTF-8 (no overlong forms, surrogates or code points above
/// U+10FFFF). On failure, `*error_offset` (if given) is the offset of the bad sequence.
bool IsValidUtf8(std::string_view s, size_t* error_offset = nullptr);
/// Code points in UTF-8 `s` (bytes that are not continuation bytes), as Spark's length().
int64_t Utf8CodePoints(std::string_view s);
/// The length of the ill-formed sequence starting at `s[at]`: its lead byte and the
/// continuation bytes that could still have belonged to it (Unicode's "maximal subpart",
/// what Python's and ICU's decoders replace by one U+FFFD); at least 1.
size_t Utf8InvalidSequenceLength(std::string_view s, size_t at);
/// `s` with every ill-formed sequence (see above) replaced by U+FFFD.
std::string ReplaceInvalidUtf8(std::string_view s);

// ---------------------------------------------------------------------------------------
// Untrusted text in messages.

/// `s` made safe to quote in an error message, so that input data cannot write terminal
/// escapes into a terminal or a log: control characters (C0, DEL, and C1 such as U+009B)
/// become `\n`, `\r`, `\t` or `\xNN` / `\uNNNN`; bytes that are not valid UTF-8 become
/// `\xNN`; bidirectional overrides (U+202A..U+202E, U+2066..U+2069) become `\uNNNN`.
/// At most `max_bytes` bytes of `s` are shown (cut at a character boundary), followed by
/// "... (N more bytes)". Printable text, including non-ASCII letters, is unchanged.
std::string EscapeForMessage(std::string_view s, size_t max_bytes = 200);
/// The same escaping without a length bound and keeping '\n' and '\t': the last line of
/// defence where a whole message leaves the process (the CLI's stderr).
std::string EscapeControlCharacters(std::string_view s);

// ---------------------------------------------------------------------------------------
// Identifiers and numbers as text.

/// `name` in backticks, inner backticks doubled, always ("a`b" -> "`a``b`"); for a
/// name quoted only where the SQL parser needs it, see expr/printer.h QuoteIdentifier.
std::string BacktickQuote(std::string_view name);
/// Trailing zeros of a fraction removed, and the point with them when none remain:
/// "1.500" -> "1.5", "2.000" -> "2"; text without a '.' is returned unchanged.
std::string TrimFractionZeros(std::string text);

// ---------------------------------------------------------------------------------------
// JSON strings.

/// Append `s` as a quoted JSON string. Escapes exactly what JSON requires, the way
/// Jackson (Spark) writes: `\"`, `\\`, `\b \f \n \r \t`, other bytes < 0x20 as `\u00XX`
/// (upper-case hex). UTF-8 passes through unescaped. REQUIRES: `s` is valid UTF-8.
void AppendJsonString(std::string* out, std::string_view s);
/// `AppendJsonString` into a new string: JsonQuote("a\"b") == "\"a\\\"b\"".
std::string JsonQuote(std::string_view s);

/// Append `values` to `out` as a JSON array of strings.
void AppendJsonStringArray(const std::vector<std::string>& values, std::string* out);

/// Render epoch milliseconds as "2024-01-01T12:00:00.000Z" (UTC, proleptic Gregorian).
std::string FormatTimestampMillis(int64_t ms);

}  // namespace deltaguard
