// Writing timestamps with Spark datetime patterns (datetime_format.h). Spark formats
// with java.time's DateTimeFormatter in Locale.US; the letters below render as it
// does: numbers zero-padded to the letter count, month and day names in English.

#include <string>

#include "deltaguard/exec/datetime_format.h"
#include "deltaguard/util/civil_date.h"

namespace deltaguard {
namespace {

constexpr int64_t kMicrosPerDay = 86'400'000'000;
constexpr std::string_view kFormatLetters = "GyMLdDQqEaHhKkmsSzZXx";

constexpr const char* kMonths[] = {"January",   "February", "March",    "April",
                                   "May",       "June",     "July",     "August",
                                   "September", "October",  "November", "December"};
constexpr const char* kDays[] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                 "Friday", "Saturday", "Sunday"};

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

std::string Padded(int64_t v, size_t width) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return v < 0 ? "-" + digits : digits;
}

// Splits `pattern` into runs: quoted text (as written, quotes removed), single
// non-letters, and runs of one letter. `fn(letter, count, text)` gets letter 0 for text.
template <typename Fn>
Status ForEachRun(std::string_view pattern, Fn&& fn) {
  for (size_t i = 0; i < pattern.size();) {
    char c = pattern[i];
    if (c == '\'') {
      std::string text;
      size_t j = i + 1;
      if (j < pattern.size() && pattern[j] == '\'') {
        DELTA_RETURN_IF_ERROR(fn(0, 0, "'"));
        i += 2;
        continue;
      }
      for (; j < pattern.size(); ++j) {
        if (pattern[j] != '\'') {
          text += pattern[j];
        } else if (j + 1 < pattern.size() && pattern[j + 1] == '\'') {
          text += '\'';
          ++j;
        } else {
          break;
        }
      }
      if (j >= pattern.size()) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "datetime pattern '{}' has an unterminated quote at index {}",
                         pattern, i);
      }
      DELTA_RETURN_IF_ERROR(fn(0, 0, text));
      i = j + 1;
      continue;
    }
    if (!IsAsciiLetter(c)) {
      DELTA_RETURN_IF_ERROR(fn(0, 0, std::string(1, c)));
      ++i;
      continue;
    }
    if (kFormatLetters.find(c) == std::string_view::npos) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "datetime pattern '{}': letter '{}' is not supported for "
                       "formatting (supported: {})",
                       pattern, c, kFormatLetters);
    }
    size_t count = 0;
    while (i + count < pattern.size() && pattern[i + count] == c) ++count;
    DELTA_RETURN_IF_ERROR(fn(c, count, ""));
    i += count;
  }
  return OkStatus();
}

}  // namespace

Status CheckFormatPattern(std::string_view pattern) {
  return ForEachRun(pattern, [](char, size_t, const std::string&) { return OkStatus(); });
}

Result<std::string> FormatWithPattern(int64_t micros, std::string_view pattern) {
  int64_t days = micros / kMicrosPerDay;
  int64_t in_day = micros % kMicrosPerDay;
  if (in_day < 0) {
    in_day += kMicrosPerDay;
    --days;
  }
  const CivilDate d = CivilFromDays(days);
  const int64_t hour = in_day / 3'600'000'000, minute = in_day / 60'000'000 % 60;
  const int64_t second = in_day / 1'000'000 % 60, fraction = in_day % 1'000'000;
  const int64_t weekday = ((days % 7) + 7 + 3) % 7;  // 0 = Monday; 1970-01-01 a Thursday
  const int64_t quarter = (d.month - 1) / 3 + 1;
  std::string out;
  DELTA_RETURN_IF_ERROR(
      ForEachRun(pattern, [&](char c, size_t n, const std::string& text) {
        switch (c) {
          case 0:
            out += text;
            break;
          case 'G':
            out += n >= 4 ? (d.year > 0 ? "Anno Domini" : "Before Christ")
                          : (d.year > 0 ? "AD" : "BC");
            break;
          case 'y':
            out += n == 2 ? Padded(((d.year % 100) + 100) % 100, 2) : Padded(d.year, n);
            break;
          case 'M':
          case 'L':
            out += n >= 4   ? std::string(kMonths[d.month - 1])
                   : n == 3 ? std::string(kMonths[d.month - 1], 3)
                            : Padded(d.month, n);
            break;
          case 'd':
            out += Padded(d.day, n);
            break;
          case 'D':
            out += Padded(days - DaysFromCivil(d.year, 1, 1) + 1, n);
            break;
          case 'Q':
          case 'q':
            out += n >= 4 ? Padded(quarter, 1) +
                                (quarter == 1   ? "st"
                                 : quarter == 2 ? "nd"
                                 : quarter == 3 ? "rd"
                                                : "th") +
                                " quarter"
                   : n == 3 ? "Q" + Padded(quarter, 1)
                            : Padded(quarter, n);
            break;
          case 'E':
            out += n >= 4 ? std::string(kDays[weekday]) : std::string(kDays[weekday], 3);
            break;
          case 'a':
            out += hour < 12 ? "AM" : "PM";
            break;
          case 'H':
            out += Padded(hour, n);
            break;
          case 'h':
            out += Padded(hour % 12 == 0 ? 12 : hour % 12, n);
            break;
          case 'K':
            out += Padded(hour % 12, n);
            break;
          case 'k':
            out += Padded(hour == 0 ? 24 : hour, n);
            break;
          case 'm':
            out += Padded(minute, n);
            break;
          case 's':
            out += Padded(second, n);
            break;
          case 'S': {
            std::string frac = Padded(fraction, 6);
            out += n <= 6 ? frac.substr(0, n) : frac + std::string(n - 6, '0');
            break;
          }
          case 'z':
            out += n >= 4 ? "Coordinated Universal Time" : "UTC";
            break;
          case 'Z':
            out += n <= 3 ? "+0000" : n == 4 ? "GMT" : "Z";
            break;
          case 'X':
            out += "Z";
            break;
          default:  // 'x'
            out += n == 1 ? "+00" : n == 2 || n == 4 ? "+0000" : "+00:00";
            break;
        }
        return OkStatus();
      }));
  return out;
}

}  // namespace deltaguard
