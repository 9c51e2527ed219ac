#include "deltaguard/exec/datetime_format.h"

#include <arrow/builder.h>

#include <algorithm>
#include <string>

#include "deltaguard/arrow/status.h"
#include "deltaguard/util/civil_date.h"

namespace deltaguard {
namespace {

constexpr int64_t kMicrosPerDay = 86'400'000'000;

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

constexpr std::string_view kLetters = "yMdHmsS";

Error ParseError(std::string_view text, std::string_view pattern, size_t at,
                 std::string_view why) {
  return MakeError(
      ErrorCode::kInvalidArgument,
      "CANNOT_PARSE_TIMESTAMP: Text '{}' could not be parsed with pattern "
      "'{}' at index {} ({}). Use try_to_timestamp to tolerate invalid input "
      "string and return NULL instead",
      text, pattern, at, why);
}

}  // namespace

Status CheckDatetimePattern(std::string_view pattern) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\'') {
      size_t close = i + 1;
      while (close < pattern.size()) {
        if (pattern[close] == '\'') {
          if (close + 1 < pattern.size() && pattern[close + 1] == '\'') {
            close += 2;  // '' inside quotes is a quote
            continue;
          }
          break;
        }
        ++close;
      }
      if (close >= pattern.size()) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "datetime pattern '{}' has an unterminated quote at index {}",
                         pattern, i);
      }
      i = close;
    } else if (IsAsciiLetter(c) && kLetters.find(c) == std::string_view::npos) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "datetime pattern '{}': letter '{}' is not supported (supported: "
                       "y, M, d, H, m, s, S and quoted text)",
                       pattern, c);
    }
  }
  return OkStatus();
}

Result<int64_t> ParseWithPattern(std::string_view text, std::string_view pattern) {
  DELTA_RETURN_IF_ERROR(CheckDatetimePattern(pattern));
  int64_t year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0, micros = 0;
  size_t t = 0;  // position in text
  size_t p = 0;  // position in pattern
  auto literal = [&](char want) -> Status {
    if (t >= text.size() || text[t] != want) {
      return ParseError(text, pattern, t, fmt::format("expected '{}'", want));
    }
    ++t;
    return OkStatus();
  };
  while (p < pattern.size()) {
    char c = pattern[p];
    if (c == '\'') {
      if (p + 1 < pattern.size() && pattern[p + 1] == '\'') {
        DELTA_RETURN_IF_ERROR(literal('\''));
        p += 2;
        continue;
      }
      ++p;
      while (p < pattern.size()) {
        if (pattern[p] == '\'') {
          if (p + 1 < pattern.size() && pattern[p + 1] == '\'') {
            DELTA_RETURN_IF_ERROR(literal('\''));
            p += 2;
            continue;
          }
          break;
        }
        DELTA_RETURN_IF_ERROR(literal(pattern[p]));
        ++p;
      }
      ++p;  // closing quote (CheckDatetimePattern guarantees it)
      continue;
    }
    if (!IsAsciiLetter(c)) {
      DELTA_RETURN_IF_ERROR(literal(c));
      ++p;
      continue;
    }
    size_t count = 0;
    while (p + count < pattern.size() && pattern[p + count] == c) ++count;
    p += count;
    // Width: one letter reads 1-2 digits (the year any number up to 9); two letters
    // exactly two; y with 3+ letters at least that many (up to 9); S exactly `count`.
    size_t min_w = count, max_w = count;
    if (c == 'y') {
      min_w = count == 2 ? 2 : count;
      max_w = count == 2 ? 2 : 9;
      if (count == 1) min_w = 1;
    } else if (c != 'S' && count == 1) {
      min_w = 1;
      max_w = 2;
    }
    // Adjacent value parsing (as java.time does): a field directly followed by another
    // numeric field reads exactly its width, so "yyyyMMdd" splits 20240229.
    if (p < pattern.size() && kLetters.find(pattern[p]) != std::string_view::npos) {
      min_w = std::max(min_w, count);
      max_w = min_w;
    }
    size_t start = t;
    int64_t value = 0;
    while (t < text.size() && t - start < max_w && IsDigit(text[t])) {
      value = value * 10 + (text[t] - '0');
      ++t;
    }
    if (t - start < min_w) {
      return ParseError(text, pattern, start,
                        fmt::format("expected {} digit{} for '{}'", min_w,
                                    min_w == 1 ? "" : "s", std::string(count, c)));
    }
    switch (c) {
      case 'y':
        year = count == 2 ? 2000 + value : value;
        break;
      case 'M':
        month = value;
        break;
      case 'd':
        day = value;
        break;
      case 'H':
        hour = value;
        break;
      case 'm':
        minute = value;
        break;
      case 's':
        second = value;
        break;
      default: {  // 'S': fraction of a second, microsecond precision kept
        int64_t frac = value;
        size_t digits = count;
        while (digits > 6) {
          frac /= 10;
          --digits;
        }
        while (digits < 6) {
          frac *= 10;
          ++digits;
        }
        micros = frac;
        break;
      }
    }
  }
  if (t != text.size()) {
    return ParseError(text, pattern, t, "unparsed text found");
  }
  if (month < 1 || month > 12) {
    return ParseError(text, pattern, 0, fmt::format("invalid month {}", month));
  }
  if (day < 1 || day > DaysInMonth(year, month)) {
    return ParseError(text, pattern, 0,
                      fmt::format("invalid date {:04}-{:02}-{:02}", year, month, day));
  }
  if (hour > 23 || minute > 59 || second > 59) {
    return ParseError(
        text, pattern, 0,
        fmt::format("invalid time {:02}:{:02}:{:02}", hour, minute, second));
  }
  return DaysFromCivil(year, month, day) * kMicrosPerDay +
         ((hour * 60 + minute) * 60 + second) * 1'000'000 + micros;
}

Result<std::shared_ptr<arrow::Array>> ParseDatetimeArray(const arrow::Array& strings,
                                                         std::string_view pattern,
                                                         bool to_date, bool lenient) {
  if (strings.type_id() != arrow::Type::STRING) {
    return MakeError(ErrorCode::kInternal, "datetime parsing of {}",
                     strings.type()->ToString());
  }
  DELTA_RETURN_IF_ERROR(CheckDatetimePattern(pattern));
  const auto& arr = static_cast<const arrow::StringArray&>(strings);
  auto wrap = [](const arrow::Status& st) -> Status {
    if (st.ok()) return OkStatus();
    return internal::FromArrowStatus(st, ErrorCode::kInternal,
                                     "building a datetime column");
  };
  arrow::Date32Builder dates;
  arrow::TimestampBuilder stamps(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
                                 arrow::default_memory_pool());
  for (int64_t i = 0; i < arr.length(); ++i) {
    if (arr.IsNull(i)) {
      DELTA_RETURN_IF_ERROR(wrap(to_date ? dates.AppendNull() : stamps.AppendNull()));
      continue;
    }
    Result<int64_t> v = ParseWithPattern(arr.GetView(i), pattern);
    if (!v) {
      if (!lenient) return v.error();
      DELTA_RETURN_IF_ERROR(wrap(to_date ? dates.AppendNull() : stamps.AppendNull()));
    } else if (to_date) {
      int64_t days =
          *v >= 0 ? *v / kMicrosPerDay : -((-*v + kMicrosPerDay - 1) / kMicrosPerDay);
      DELTA_RETURN_IF_ERROR(wrap(dates.Append(static_cast<int32_t>(days))));
    } else {
      DELTA_RETURN_IF_ERROR(wrap(stamps.Append(*v)));
    }
  }
  std::shared_ptr<arrow::Array> out;
  DELTA_RETURN_IF_ERROR(wrap(to_date ? dates.Finish(&out) : stamps.Finish(&out)));
  return out;
}

}  // namespace deltaguard
