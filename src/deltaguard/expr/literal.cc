#include "deltaguard/expr/literal.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "deltaguard/util/civil_date.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Read 1..max_digits digits at *i.
bool ReadInt(std::string_view s, size_t* i, int min_digits, int max_digits,
             int64_t* out) {
  int64_t v = 0;
  int n = 0;
  while (*i < s.size() && IsDigit(s[*i]) && n < max_digits) {
    v = v * 10 + (s[*i] - '0');
    ++*i;
    ++n;
  }
  *out = v;
  return n >= min_digits;
}

// Parse the date prefix; *i is left after it.
Result<int64_t> ParseDatePrefix(std::string_view s, size_t* i, std::string_view what) {
  int64_t y = 0, m = 0, d = 0;
  auto bad = [&]() {
    return MakeError(ErrorCode::kInvalidArgument, "invalid {} value '{}'", what, s);
  };
  if (!ReadInt(s, i, 4, 4, &y) || *i >= s.size() || s[*i] != '-') return bad();
  ++*i;
  if (!ReadInt(s, i, 1, 2, &m) || *i >= s.size() || s[*i] != '-') return bad();
  ++*i;
  if (!ReadInt(s, i, 1, 2, &d)) return bad();
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, m)) return bad();
  return DaysFromCivil(y, m, d);
}

}  // namespace

Result<int32_t> ParseDateLiteral(std::string_view text) {
  std::string_view s = Trim(text);
  size_t i = 0;
  DELTA_ASSIGN_OR_RETURN(int64_t days, ParseDatePrefix(s, &i, "DATE"));
  if (i < s.size() && s[i] != ' ' && s[i] != 'T') {
    return MakeError(ErrorCode::kInvalidArgument, "invalid DATE value '{}'", text);
  }
  return static_cast<int32_t>(days);
}

Result<int64_t> ParseTimestampLiteral(std::string_view text, bool allow_zone) {
  std::string_view s = Trim(text);
  const char* what = allow_zone ? "TIMESTAMP" : "TIMESTAMP_NTZ";
  auto bad = [&]() {
    return MakeError(ErrorCode::kInvalidArgument, "invalid {} value '{}'", what, text);
  };
  size_t i = 0;
  DELTA_ASSIGN_OR_RETURN(int64_t days, ParseDatePrefix(s, &i, what));
  int64_t micros = 0;
  if (i < s.size() && (s[i] == ' ' || s[i] == 'T') && i + 1 < s.size() &&
      IsDigit(s[i + 1])) {
    ++i;
    int64_t hh = 0, mm = 0, ss = 0;
    if (!ReadInt(s, &i, 1, 2, &hh) || i >= s.size() || s[i] != ':') return bad();
    ++i;
    if (!ReadInt(s, &i, 1, 2, &mm)) return bad();
    if (i < s.size() && s[i] == ':') {
      ++i;
      if (!ReadInt(s, &i, 1, 2, &ss)) return bad();
      if (i < s.size() && s[i] == '.') {
        ++i;
        int64_t frac = 0;
        int digits = 0;
        while (i < s.size() && IsDigit(s[i])) {
          if (digits < 6) frac = frac * 10 + (s[i] - '0');
          ++digits;
          ++i;
        }
        if (digits == 0 || digits > 9) return bad();
        for (int k = digits; k < 6; ++k) frac *= 10;
        micros += frac;
      }
    }
    if (hh > 23 || mm > 59 || ss > 59) return bad();
    micros += ((hh * 60 + mm) * 60 + ss) * 1000000;
  }
  while (i < s.size() && s[i] == ' ') ++i;
  if (i < s.size()) {
    if (!allow_zone) return bad();
    std::string_view zone = s.substr(i);
    int64_t offset_minutes = 0;
    if (EqualsIgnoreCase(zone, "Z") || EqualsIgnoreCase(zone, "UTC")) {
      offset_minutes = 0;
    } else if (zone[0] == '+' || zone[0] == '-') {
      size_t j = 1;
      int64_t oh = 0, om = 0;
      if (!ReadInt(zone, &j, 1, 2, &oh)) return bad();
      if (j < zone.size() && zone[j] == ':') ++j;
      if (j < zone.size() && !ReadInt(zone, &j, 2, 2, &om)) return bad();
      if (j != zone.size() || oh > 18 || om > 59) return bad();
      offset_minutes = (oh * 60 + om) * (zone[0] == '-' ? -1 : 1);
    } else {
      return bad();
    }
    micros -= offset_minutes * 60 * 1000000;
  }
  return days * 86400LL * 1000000 + micros;
}

std::string FormatDate(int64_t days) {
  const CivilDate c = CivilFromDays(days);
  return fmt::format("{:04d}-{:02d}-{:02d}", c.year, c.month, c.day);
}

std::string FormatTimestamp(int64_t micros) {
  int64_t day_micros = 86400LL * 1000000;
  int64_t days = micros / day_micros;
  int64_t rem = micros % day_micros;
  if (rem < 0) {
    rem += day_micros;
    --days;
  }
  int64_t secs = rem / 1000000;
  std::string out = fmt::format("{} {:02d}:{:02d}:{:02d}", FormatDate(days), secs / 3600,
                                secs / 60 % 60, secs % 60);
  if (rem % 1000000 != 0) out += fmt::format(".{:06d}", rem % 1000000);
  return out;
}

Result<Int128> ParseDecimalText(std::string_view text, int precision, int scale) {
  auto bad = [&](std::string_view why) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cannot convert '{}' to decimal({},{}): {}", text, precision, scale,
                     why);
  };
  std::string_view s = Trim(text);
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  Int128 v = 0;
  int frac_digits = 0, int_digits = 0;
  bool point = false, any = false;
  for (char c : s) {
    if (c == '.' && !point) {
      point = true;
      continue;
    }
    if (!IsDigit(c)) return bad("not a number");
    any = true;
    if (point) {
      if (++frac_digits > scale) {
        if (c != '0') return bad("too many fractional digits");
        continue;
      }
    } else if (int_digits > 0 || c != '0') {
      ++int_digits;
    }
    if (int_digits + (point ? frac_digits : 0) > 38) return bad("too many digits");
    v = v * 10 + (c - '0');
  }
  if (!any) return bad("not a number");
  for (int k = std::min(frac_digits, scale); k < scale; ++k) v *= 10;
  if (int_digits > precision - scale) return bad("too many integer digits");
  return neg ? -v : v;
}

std::string FormatDecimal(Int128 unscaled, int scale) {
  bool neg = unscaled < 0;
  unsigned __int128 mag = neg ? -static_cast<unsigned __int128>(unscaled)
                              : static_cast<unsigned __int128>(unscaled);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(mag % 10)));
    mag /= 10;
  } while (mag != 0);
  while (static_cast<int>(digits.size()) <= scale) digits.insert(digits.begin(), '0');
  if (scale > 0) digits.insert(digits.end() - scale, '.');
  return neg ? "-" + digits : digits;
}

Result<std::pair<LiteralKind, std::string>> ClassifyNumber(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return MakeError(ErrorCode::kParseError, "invalid numeric literal '{}': {}", text,
                     why);
  };
  std::string sign;
  std::string_view s = text;
  if (!s.empty() && s[0] == '-') {
    sign = "-";
    s.remove_prefix(1);
  }
  size_t suffix_start = s.size();
  while (suffix_start > 0 &&
         std::isalpha(static_cast<unsigned char>(s[suffix_start - 1]))) {
    --suffix_start;
  }
  std::string suffix = AsciiToLower(s.substr(suffix_start));
  std::string_view body = s.substr(0, suffix_start);
  size_t i = 0, int_start = 0;
  while (i < body.size() && IsDigit(body[i])) ++i;
  std::string int_part(body.substr(int_start, i));
  std::string frac_part;
  bool point = false, exp = false;
  if (i < body.size() && body[i] == '.') {
    point = true;
    size_t f = ++i;
    while (i < body.size() && IsDigit(body[i])) ++i;
    frac_part = std::string(body.substr(f, i - f));
  }
  if (int_part.empty() && frac_part.empty()) return bad("no digits");
  if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    exp = true;
    ++i;
    if (i < body.size() && (body[i] == '+' || body[i] == '-')) ++i;
    size_t e = i;
    while (i < body.size() && IsDigit(body[i])) ++i;
    if (i == e) return bad("exponent has no digits");
  }
  if (i != body.size()) return bad("unexpected character");
  if (suffix == "d" || suffix == "f" || (exp && suffix.empty())) {
    std::string t = sign + std::string(body);
    double v = std::strtod(t.c_str(), nullptr);
    if (!std::isfinite(v)) return bad("out of range");
    return std::make_pair(suffix == "f" ? LiteralKind::kFloat : LiteralKind::kDouble, t);
  }
  if (exp) return bad("an exponent needs the D or F suffix or none");
  size_t nz = int_part.find_first_not_of('0');
  int_part = nz == std::string::npos ? "0" : int_part.substr(nz);
  if (suffix == "bd" || point) {
    if (int_part.size() + frac_part.size() > 38 + (int_part == "0" ? 1 : 0)) {
      return bad("more than 38 digits");
    }
    std::string t = sign + int_part + (frac_part.empty() ? "" : "." + frac_part);
    return std::make_pair(LiteralKind::kDecimal, t);
  }
  if (!suffix.empty() && suffix != "l" && suffix != "s" && suffix != "y") {
    return bad(fmt::format("unknown suffix '{}'", s.substr(suffix_start)));
  }
  if (int_part == "0") sign.clear();
  if (int_part.size() > 38) return bad("more than 38 digits");
  Int128 v = 0;
  for (char c : int_part) v = v * 10 + (c - '0');
  if (!sign.empty()) v = -v;
  std::string t = sign + int_part;
  auto in_range = [&](int64_t lo, int64_t hi) { return v >= lo && v <= hi; };
  if (suffix == "y") {
    if (!in_range(INT8_MIN, INT8_MAX)) return bad("out of range for TINYINT");
    return std::make_pair(LiteralKind::kByte, t);
  }
  if (suffix == "s") {
    if (!in_range(INT16_MIN, INT16_MAX)) return bad("out of range for SMALLINT");
    return std::make_pair(LiteralKind::kShort, t);
  }
  if (suffix == "l") {
    if (!in_range(INT64_MIN, INT64_MAX)) return bad("out of range for BIGINT");
    return std::make_pair(LiteralKind::kLong, t);
  }
  if (in_range(INT32_MIN, INT32_MAX)) return std::make_pair(LiteralKind::kInteger, t);
  if (in_range(INT64_MIN, INT64_MAX)) return std::make_pair(LiteralKind::kLong, t);
  return std::make_pair(LiteralKind::kDecimal, t);
}

namespace {

Result<LiteralValue> Make(DataTypeRef type, LiteralValue::ValueType v) {
  LiteralValue out;
  out.type = std::move(type);
  out.value = std::move(v);
  return out;
}

}  // namespace

Result<LiteralValue> EvaluateLiteral(const Expr& lit) {
  const std::string& t = lit.text;
  switch (lit.literal_kind) {
    case LiteralKind::kNull:
      return Make(DataType::Void(), std::monostate{});
    case LiteralKind::kBoolean:
      return Make(DataType::Boolean(), t == "true");
    case LiteralKind::kByte:
    case LiteralKind::kShort:
    case LiteralKind::kInteger:
    case LiteralKind::kLong: {
      errno = 0;
      char* end = nullptr;
      int64_t v = std::strtoll(t.c_str(), &end, 10);
      if (t.empty() || errno == ERANGE || *end != '\0') {
        return MakeError(ErrorCode::kParseError, "invalid integer literal '{}'", t);
      }
      DataTypeRef type = lit.literal_kind == LiteralKind::kByte    ? DataType::Byte()
                         : lit.literal_kind == LiteralKind::kShort ? DataType::Short()
                         : lit.literal_kind == LiteralKind::kLong  ? DataType::Long()
                                                                   : DataType::Integer();
      if ((lit.literal_kind == LiteralKind::kInteger &&
           (v < INT32_MIN || v > INT32_MAX)) ||
          (lit.literal_kind == LiteralKind::kShort && (v < INT16_MIN || v > INT16_MAX)) ||
          (lit.literal_kind == LiteralKind::kByte && (v < INT8_MIN || v > INT8_MAX))) {
        return MakeError(ErrorCode::kParseError,
                         "integer literal '{}' out of range for {}", t, type->ToString());
      }
      return Make(type, v);
    }
    case LiteralKind::kDecimal: {
      std::string_view digits = t;
      if (!digits.empty() && digits[0] == '-') digits.remove_prefix(1);
      size_t point = digits.find('.');
      int scale = point == std::string_view::npos
                      ? 0
                      : static_cast<int>(digits.size() - point - 1);
      std::string_view int_part = digits.substr(0, point);
      size_t nz = int_part.find_first_not_of('0');
      int int_digits =
          nz == std::string_view::npos ? 0 : static_cast<int>(int_part.size() - nz);
      int precision = std::max(1, int_digits + scale);
      DELTA_ASSIGN_OR_RETURN(auto type, DecimalType::Make(precision, scale));
      auto v = ParseDecimalText(t, precision, scale);
      if (!v) return MakeError(ErrorCode::kParseError, "{}", v.error().message);
      return Make(type, *v);
    }
    case LiteralKind::kDouble:
    case LiteralKind::kFloat: {
      double v = std::strtod(t.c_str(), nullptr);
      if (lit.literal_kind == LiteralKind::kFloat) {
        v = static_cast<double>(static_cast<float>(v));
        return Make(DataType::Float(), v);
      }
      return Make(DataType::Double(), v);
    }
    case LiteralKind::kString:
      return Make(DataType::String(), t);
    case LiteralKind::kBinary: {
      if (t.size() % 2 != 0) {
        return MakeError(ErrorCode::kParseError,
                         "binary literal X'{}' has an odd number of hex digits", t);
      }
      std::string bytes;
      for (size_t i = 0; i + 1 < t.size(); i += 2) {
        bytes.push_back(static_cast<char>(std::stoi(t.substr(i, 2), nullptr, 16)));
      }
      return Make(DataType::Binary(), bytes);
    }
    case LiteralKind::kDate: {
      DELTA_ASSIGN_OR_RETURN(int32_t days, ParseDateLiteral(t));
      return Make(DataType::Date(), static_cast<int64_t>(days));
    }
    case LiteralKind::kTimestamp:
    case LiteralKind::kTimestampNtz: {
      bool ntz = lit.literal_kind == LiteralKind::kTimestampNtz;
      DELTA_ASSIGN_OR_RETURN(int64_t micros, ParseTimestampLiteral(t, !ntz));
      return Make(ntz ? DataType::TimestampNtz() : DataType::Timestamp(), micros);
    }
  }
  return MakeError(ErrorCode::kInternal, "unknown literal kind");
}

Result<LiteralValue> CoerceStringLiteral(const std::string& text,
                                         const DataType& target) {
  auto fail = [&]() {
    return MakeError(ErrorCode::kInvalidArgument,
                     "CAST_INVALID_INPUT: cannot cast string '{}' to {}", text,
                     target.ToString());
  };
  std::string_view s = Trim(text);
  if (target.is_numeric()) {
    for (char c : s) {
      if (std::isalpha(static_cast<unsigned char>(c)) && c != 'e' && c != 'E')
        return fail();
    }
    std::string body(s);
    if (!body.empty() && body[0] == '+') body.erase(0, 1);
    auto cls = ClassifyNumber(body);
    if (!cls) return fail();
    Expr lit;
    lit.literal_kind = cls->first;
    lit.text = cls->second;
    auto v = EvaluateLiteral(lit);
    if (!v) return fail();
    return v;
  }
  switch (target.kind()) {
    case TypeKind::kString:
      return Make(DataType::String(), text);
    case TypeKind::kBoolean: {
      std::string l = AsciiToLower(s);
      if (l == "true" || l == "t" || l == "yes" || l == "y" || l == "1") {
        return Make(DataType::Boolean(), true);
      }
      if (l == "false" || l == "f" || l == "no" || l == "n" || l == "0") {
        return Make(DataType::Boolean(), false);
      }
      return fail();
    }
    case TypeKind::kDate: {
      auto d = ParseDateLiteral(s);
      if (!d) return fail();
      return Make(DataType::Date(), static_cast<int64_t>(*d));
    }
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz: {
      bool ntz = target.kind() == TypeKind::kTimestampNtz;
      auto t = ParseTimestampLiteral(s, !ntz);
      if (!t) return fail();
      return Make(ntz ? DataType::TimestampNtz() : DataType::Timestamp(), *t);
    }
    default:
      return fail();
  }
}

bool operator==(const NestedValue& a, const NestedValue& b) { return a.items == b.items; }

bool operator==(const LiteralValue& a, const LiteralValue& b) {
  if ((a.type == nullptr) != (b.type == nullptr)) return false;
  if (a.type != nullptr && !a.type->Equals(*b.type)) return false;
  return a.value == b.value;
}

namespace {

std::string NestedToString(const DataType& type, const NestedValue& v) {
  std::vector<std::string> parts;
  parts.reserve(v.items.size() * 2);
  if (type.kind() == TypeKind::kStruct) {
    const auto& st = static_cast<const StructType&>(type);
    for (size_t i = 0; i < v.items.size() && i < st.num_fields(); ++i) {
      parts.push_back(LiteralValue{DataType::String(), st.field(i).name}.ToString());
      parts.push_back(v.items[i].ToString());
    }
    return fmt::format("named_struct({})", fmt::join(parts, ", "));
  }
  for (const auto& item : v.items) parts.push_back(item.ToString());
  return fmt::format("{}({})", type.kind() == TypeKind::kMap ? "map" : "array",
                     fmt::join(parts, ", "));
}

}  // namespace

std::string LiteralValue::ToString() const {
  if (is_null()) return "NULL";
  if (const auto* nested = std::get_if<NestedValue>(&value)) {
    return NestedToString(*type, *nested);
  }
  switch (type->kind()) {
    case TypeKind::kBoolean:
      return std::get<bool>(value) ? "TRUE" : "FALSE";
    case TypeKind::kByte:
    case TypeKind::kShort:
    case TypeKind::kInteger:
    case TypeKind::kLong:
      return std::to_string(std::get<int64_t>(value));
    case TypeKind::kFloat:
    case TypeKind::kDouble:
      return fmt::format("{}", std::get<double>(value));
    case TypeKind::kDecimal:
      return FormatDecimal(std::get<Int128>(value),
                           static_cast<const DecimalType&>(*type).scale());
    case TypeKind::kDate:
      return "DATE '" + FormatDate(std::get<int64_t>(value)) + "'";
    case TypeKind::kTimestamp:
      return "TIMESTAMP '" + FormatTimestamp(std::get<int64_t>(value)) + "Z'";
    case TypeKind::kTimestampNtz:
      return "TIMESTAMP_NTZ '" + FormatTimestamp(std::get<int64_t>(value)) + "'";
    case TypeKind::kBinary:
      return fmt::format("X'<{} bytes>'", std::get<std::string>(value).size());
    default:
      return "'" + std::get<std::string>(value) + "'";
  }
}

}  // namespace deltaguard
