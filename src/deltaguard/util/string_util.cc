#include "deltaguard/util/string_util.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>

#include "deltaguard/util/civil_date.h"

namespace deltaguard {

char AsciiToLower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string AsciiToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiToLower(c);
  return out;
}

std::string AsciiToUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CompareIgnoreCase(a, b) == 0;
}

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() &&
         EqualsIgnoreCase(s.substr(0, prefix.size()), prefix);
}

int CompareIgnoreCase(std::string_view a, std::string_view b) {
  size_t n = a.size() < b.size() ? a.size() : b.size();
  for (size_t i = 0; i < n; ++i) {
    unsigned char x = static_cast<unsigned char>(AsciiToLower(a[i]));
    unsigned char y = static_cast<unsigned char>(AsciiToLower(b[i]));
    if (x != y) return x < y ? -1 : 1;
  }
  if (a.size() == b.size()) return 0;
  return a.size() < b.size() ? -1 : 1;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

bool IsAsciiSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && IsAsciiSpace(s[b])) ++b;
  while (e > b && IsAsciiSpace(s[e - 1])) --e;
  return s.substr(b, e - b);
}

namespace {
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
constexpr char kUpperHex[] = "0123456789ABCDEF";
}  // namespace

Result<std::string> PercentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    int hi = i + 1 < s.size() ? HexValue(s[i + 1]) : -1;
    int lo = i + 2 < s.size() ? HexValue(s[i + 2]) : -1;
    if (hi < 0 || lo < 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "malformed percent escape at offset {} in '{}'", i, s);
    }
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

std::string PercentEncodePath(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    bool keep = c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                (c >= '0' && c <= '9');
    if (!keep) {
      switch (c) {
        case '-':
        case '_':
        case '.':
        case '!':
        case '~':
        case '*':
        case '\'':
        case '(':
        case ')':
        case ':':
        case '@':
        case '&':
        case '=':
        case '+':
        case '$':
        case ',':
        case ';':
        case '/':
          keep = true;
          break;
        default:
          break;
      }
    }
    if (keep) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kUpperHex[c >> 4]);
      out.push_back(kUpperHex[c & 15]);
    }
  }
  return out;
}

bool IsValidUtf8(std::string_view s, size_t* error_offset) {
  size_t i = 0;
  auto fail = [&] {
    if (error_offset != nullptr) *error_offset = i;
    return false;
  };
  while (i < s.size()) {
    // ASCII eight bytes at a time (the common case of ingested text).
    while (i + 8 <= s.size()) {
      uint64_t word;
      std::memcpy(&word, s.data() + i, 8);
      if ((word & 0x8080808080808080ULL) != 0) break;
      i += 8;
    }
    if (i >= s.size()) break;
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int extra;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      extra = 1;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      extra = 2;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      extra = 3;
      cp = c & 0x07;
    } else {
      return fail();  // continuation byte, overlong lead (C0, C1) or F5..FF
    }
    if (s.size() - i <= static_cast<size_t>(extra)) return fail();  // truncated
    for (int k = 1; k <= extra; ++k) {
      auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return fail();
      cp = (cp << 6) | (cc & 0x3F);
    }
    bool overlong = (extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000);
    bool surrogate = cp >= 0xD800 && cp <= 0xDFFF;
    if (overlong || surrogate || cp > 0x10FFFF) return fail();
    i += static_cast<size_t>(extra) + 1;
  }
  return true;
}

size_t Utf8InvalidSequenceLength(std::string_view s, size_t at) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[at + k]); };
  const unsigned char c = byte(0);
  int extra = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the first continuation byte
  if (c >= 0xC2 && c <= 0xDF) {
    extra = 1;
  } else if (c >= 0xE0 && c <= 0xEF) {
    extra = 2;
    if (c == 0xE0) lo = 0xA0;  // no overlong forms
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    extra = 3;
    if (c == 0xF0) lo = 0x90;  // no overlong forms
    if (c == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return 1;
  }
  size_t n = 1;
  for (int k = 1; k <= extra && at + n < s.size(); ++k) {
    const unsigned char cc = byte(n);
    if (k == 1 ? (cc < lo || cc > hi) : (cc & 0xC0) != 0x80) break;
    ++n;
  }
  return n;
}

std::string ReplaceInvalidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t offset = 0;
  while (!IsValidUtf8(s, &offset)) {
    out.append(s.substr(0, offset));
    out.append("\xEF\xBF\xBD");  // U+FFFD
    s.remove_prefix(offset + Utf8InvalidSequenceLength(s, offset));
  }
  out.append(s);
  return out;
}

namespace {

// Append `s` escaped for a message (see EscapeForMessage); returns the bytes of `s` used.
size_t AppendEscaped(std::string* out, std::string_view s, size_t max_bytes,
                     bool keep_newline_tab) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = 1;
    if (c >= 0x80) {  // len 0: s[i] is a byte of an ill-formed sequence
      len = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
      if (i + len > s.size() || !IsValidUtf8(s.substr(i, len))) len = 0;
    }
    const size_t take = len == 0 ? 1 : len;
    if (i + take > max_bytes) break;
    if (len == 0) {
      out->append(fmt::format("\\x{:02X}", c));
    } else if (c < 0x20 || c == 0x7F) {
      if (keep_newline_tab && (c == '\n' || c == '\t')) {
        out->push_back(static_cast<char>(c));
      } else if (c == '\n') {
        out->append("\\n");
      } else if (c == '\r') {
        out->append("\\r");
      } else if (c == '\t') {
        out->append("\\t");
      } else {
        out->append(fmt::format("\\x{:02X}", c));
      }
    } else if (c < 0x80) {
      out->push_back(static_cast<char>(c));
    } else {
      uint32_t cp = 0;
      if (len == 2) cp = ((c & 0x1Fu) << 6) | (s[i + 1] & 0x3F);
      if (len == 3) {
        cp = ((c & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3F);
      }
      const bool c1 = cp >= 0x80 && cp <= 0x9F;
      const bool bidi = (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
      if (c1 || bidi) {
        out->append(fmt::format("\\u{:04X}", cp));
      } else {
        out->append(s.substr(i, len));
      }
    }
    i += take;
  }
  return i;
}

}  // namespace

std::string EscapeForMessage(std::string_view s, size_t max_bytes) {
  std::string out;
  const size_t used = AppendEscaped(&out, s, max_bytes, /*keep_newline_tab=*/false);
  if (used < s.size()) out += fmt::format("... ({} more bytes)", s.size() - used);
  return out;
}

std::string EscapeControlCharacters(std::string_view s) {
  std::string out;
  AppendEscaped(&out, s, s.size(), /*keep_newline_tab=*/true);
  return out;
}

void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  size_t run_start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(s.data() + run_start, i - run_start);
    run_start = i + 1;
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        out->append("\\u00");
        out->push_back(kUpperHex[c >> 4]);
        out->push_back(kUpperHex[c & 15]);
    }
  }
  out->append(s.data() + run_start, s.size() - run_start);
  out->push_back('"');
}

int64_t Utf8CodePoints(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string BacktickQuote(std::string_view name) {
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out.push_back('`');
    out.push_back(c);
  }
  out.push_back('`');
  return out;
}

std::string TrimFractionZeros(std::string text) {
  if (text.find('.') == std::string::npos) return text;
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

std::string JsonQuote(std::string_view s) {
  std::string out;
  AppendJsonString(&out, s);
  return out;
}

void AppendJsonStringArray(const std::vector<std::string>& values, std::string* out) {
  out->push_back('[');
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out->push_back(',');
    AppendJsonString(out, values[i]);
  }
  out->push_back(']');
}

std::string FormatTimestampMillis(int64_t ms) {
  int64_t days = ms / 86400000;
  int64_t rem = ms % 86400000;
  if (rem < 0) {
    rem += 86400000;
    --days;
  }
  const CivilDate date = CivilFromDays(days);
  int64_t secs = rem / 1000;
  return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}.{:03d}Z", date.year,
                     date.month, date.day, secs / 3600, (secs / 60) % 60, secs % 60,
                     rem % 1000);
}

}  // namespace deltaguard
