#include "deltaguard/util/timestamp_text.h"

#include <string>

#include "deltaguard/util/civil_date.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

bool ReadDigits(const std::string& s, size_t* pos, size_t n, int64_t* out) {
  if (*pos + n > s.size()) return false;
  int64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[*pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

}  // namespace

Result<int64_t> ParseUserTimestampMillis(std::string_view text) {
  auto bad = [&]() {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cannot parse timestamp '{}' (expected e.g. 2024-01-31, "
                     "'2024-01-31 12:00:00', 2024-01-31T12:00:00Z or epoch milliseconds)",
                     text);
  };
  std::string s(Trim(text));
  if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos) {
    if (s.size() > 18) return bad();  // beyond int64 milliseconds
    return static_cast<int64_t>(std::stoll(s));
  }
  size_t pos = 0;
  int64_t year, month, day, hour = 0, minute = 0, second = 0, millis = 0;
  if (!ReadDigits(s, &pos, 4, &year) || pos >= s.size() || s[pos++] != '-' ||
      !ReadDigits(s, &pos, 2, &month) || pos >= s.size() || s[pos++] != '-' ||
      !ReadDigits(s, &pos, 2, &day)) {
    return bad();
  }
  if (month < 1 || month > 12 || day < 1 || day > 31) return bad();
  if (pos < s.size() && (s[pos] == ' ' || s[pos] == 'T')) {
    ++pos;
    if (!ReadDigits(s, &pos, 2, &hour) || pos >= s.size() || s[pos++] != ':' ||
        !ReadDigits(s, &pos, 2, &minute)) {
      return bad();
    }
    if (pos < s.size() && s[pos] == ':') {
      ++pos;
      if (!ReadDigits(s, &pos, 2, &second)) return bad();
      if (pos < s.size() && s[pos] == '.') {
        ++pos;
        int64_t scale = 100;
        bool any = false;
        while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
          millis += (s[pos] - '0') * scale;
          scale /= 10;
          ++pos;
          any = true;
        }
        if (!any) return bad();
      }
    }
    if (hour > 23 || minute > 59 || second > 60) return bad();
  }
  int64_t offset_minutes = 0;
  if (pos < s.size()) {
    if (s[pos] == 'Z' && pos + 1 == s.size()) {
      ++pos;
    } else if (s[pos] == '+' || s[pos] == '-') {
      int sign = s[pos] == '-' ? -1 : 1;
      ++pos;
      int64_t oh, om = 0;
      if (!ReadDigits(s, &pos, 2, &oh)) return bad();
      if (pos < s.size() && s[pos] == ':') ++pos;
      if (pos < s.size() && !ReadDigits(s, &pos, 2, &om)) return bad();
      offset_minutes = sign * (oh * 60 + om);
    }
    if (pos != s.size()) return bad();
  }
  int64_t days = DaysFromCivil(year, month, day);
  int64_t secs = days * 86400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
  return secs * 1000 + millis;
}

}  // namespace deltaguard
