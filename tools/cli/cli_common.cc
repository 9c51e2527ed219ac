#include "cli_common.h"

#include <cstdio>
#include <iostream>

#include "deltaguard/util/string_util.h"

namespace deltaguard::cli {

int ExitCodeFor(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kNotFound:
    case ErrorCode::kParseError:
      return kExitUsage;
    case ErrorCode::kAlreadyExists:
    case ErrorCode::kUnsupportedFeature:
    case ErrorCode::kSchemaMismatch:
    case ErrorCode::kConstraintViolation:
    case ErrorCode::kCommitConflict:
      return kExitRefused;
    case ErrorCode::kCorruptLog:
    case ErrorCode::kCorruptData:
    case ErrorCode::kIOError:
    case ErrorCode::kInternal:
      return kExitIo;
  }
  return kExitIo;
}

std::optional<std::string> Args::Get(const std::string& flag) const {
  auto it = values.find(flag);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

Result<Args> ParseArgs(const std::vector<std::string>& argv, const FlagSpec& spec) {
  Args args;
  bool only_positional = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (only_positional || a.size() < 2 || a[0] != '-' || a == "-") {
      args.positional.push_back(a);
      continue;
    }
    if (a == "--") {
      only_positional = true;
      continue;
    }
    std::string flag = a, value;
    bool has_inline = false;
    if (auto eq = a.find('='); eq != std::string::npos && a.rfind("--", 0) == 0) {
      flag = a.substr(0, eq);
      value = a.substr(eq + 1);
      has_inline = true;
    }
    if (spec.boolean.count(flag)) {
      if (has_inline) {
        return MakeError(ErrorCode::kInvalidArgument, "flag {} takes no value", flag);
      }
      args.switches.insert(flag);
    } else if (spec.with_value.count(flag)) {
      if (!has_inline) {
        if (i + 1 >= argv.size()) {
          return MakeError(ErrorCode::kInvalidArgument, "flag {} needs a value", flag);
        }
        value = argv[++i];
      }
      args.values[flag] = value;
      args.all_values[flag].push_back(value);
    } else {
      return MakeError(ErrorCode::kInvalidArgument, "unknown flag '{}'", a);
    }
  }
  return args;
}

Result<int64_t> ParseInt64(const std::string& text, const std::string& what) {
  if (text.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "{} must be an integer, got ''", what);
  }
  size_t pos = 0;
  bool neg = text[0] == '-';
  if (neg || text[0] == '+') pos = 1;
  if (pos >= text.size()) {
    return MakeError(ErrorCode::kInvalidArgument, "{} must be an integer, got '{}'", what,
                     text);
  }
  int64_t v = 0;
  for (; pos < text.size(); ++pos) {
    char c = text[pos];
    if (c < '0' || c > '9' || v > (INT64_MAX - (c - '0')) / 10) {
      return MakeError(ErrorCode::kInvalidArgument, "{} must be an integer, got '{}'",
                       what, text);
    }
    v = v * 10 + (c - '0');
  }
  return neg ? -v : v;
}

namespace {

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

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

Result<int64_t> ParseTimestampMillis(const std::string& text) {
  auto bad = [&]() {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cannot parse timestamp '{}' (expected e.g. 2024-01-31, "
                     "'2024-01-31 12:00:00', 2024-01-31T12:00:00Z or epoch milliseconds)",
                     text);
  };
  std::string s(Trim(text));
  if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos) {
    return ParseInt64(s, "timestamp");
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
  int64_t days =
      DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  int64_t secs = days * 86400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
  return secs * 1000 + millis;
}

std::string FormatTimestampMillis(int64_t ms) {
  int64_t days = ms / 86400000;
  int64_t rem = ms % 86400000;
  if (rem < 0) {
    rem += 86400000;
    --days;
  }
  int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400 + (m <= 2);
  int64_t secs = rem / 1000;
  return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}.{:03d}Z", y, m, d,
                     secs / 3600, (secs / 60) % 60, secs % 60, rem % 1000);
}

Result<std::string> TextOrJsonFormat(const Args& args) {
  std::string format = AsciiToLower(args.Get("--format").value_or("text"));
  if (format != "text" && format != "json") {
    return MakeError(ErrorCode::kInvalidArgument,
                     "unknown format '{}' (expected text or json)", format);
  }
  return format;
}

void AppendJsonStringArray(const std::vector<std::string>& values, std::string* out) {
  out->push_back('[');
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out->push_back(',');
    AppendJsonString(out, values[i]);
  }
  out->push_back(']');
}

int ReportError(const Error& error, const std::string& table) {
  // Multi-line messages (schemas side by side) keep their layout: the first line names
  // the table, the rest follows verbatim.
  // The last line of defence: no control character of a message (or of the table
  // path) reaches the terminal, whoever built the message.
  std::string msg = EscapeControlCharacters(error.ToString());
  while (!msg.empty() && msg.back() == '\n') msg.pop_back();
  if (table.empty()) {
    std::cerr << "deltaguard: " << msg << std::endl;
  } else {
    std::cerr << "deltaguard: " << EscapeControlCharacters(table) << ": " << msg
              << std::endl;
  }
  return ExitCodeFor(error.code);
}

}  // namespace deltaguard::cli
