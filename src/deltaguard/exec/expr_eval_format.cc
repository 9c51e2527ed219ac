// format_string(format, args...) and printf: Java's java.util.Formatter, which Spark
// calls with Locale.US, for the conversions that make sense on SQL values:
//   %[index$][flags][width][.precision]conversion
//   s S (any value as text), d (integers), x X o (integers in two's complement of
//   their width), f e E g G (numbers), c (a code point), b B, %% and %n;
//   flags - + space 0 , ( #; `%<s` reuses the previous argument.
// Floating point rounds HALF_UP on the shortest decimal digits of the value, as Java's
// Formatter does on Double.toString's digits; DECIMAL values round their exact digits.
// A NULL argument prints "null" ("false" for %b). See docs/sql.md "Functions" and
// docs/behaviour.md for where this differs from Spark.

#include <arrow/util/decimal.h>

#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include "deltaguard/exec/datetime_format.h"
#include "deltaguard/exec/expr_eval_library_internal.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/io/parquet/file_stats.h"

namespace deltaguard::internal {

using arrow::Datum;

namespace {

struct Spec {
  std::string text;  ///< literal text when conv == 0
  int index = 0;     ///< 1-based argument; 0 ordinary (next), -1 the previous one
  std::string flags;
  int width = -1;
  int precision = -1;
  char conv = 0;
  bool Has(char f) const { return flags.find(f) != std::string::npos; }
};

Error FormatError(const LibraryCall& c, std::string_view format, std::string_view why) {
  return MakeError(ErrorCode::kInvalidArgument, "function {}(): format '{}': {}",
                   c.e.name, format, why);
}

Result<std::vector<Spec>> ParseFormat(const LibraryCall& c, std::string_view f) {
  std::vector<Spec> out;
  std::string text;
  size_t i = 0;
  auto number = [&](int* v) {
    size_t start = i;
    int64_t n = 0;
    while (i < f.size() && std::isdigit(static_cast<unsigned char>(f[i]))) {
      n = std::min<int64_t>(n * 10 + (f[i] - '0'), 1 << 20);
      ++i;
    }
    *v = static_cast<int>(n);
    return i > start;
  };
  while (i < f.size()) {
    if (f[i] != '%') {
      text += f[i++];
      continue;
    }
    if (!text.empty()) out.push_back(Spec{std::move(text)});
    text.clear();
    ++i;
    Spec s;
    // An argument index is digits followed by '$'; otherwise the digits are a width.
    size_t mark = i;
    int n = 0;
    if (number(&n) && i < f.size() && f[i] == '$') {
      if (n == 0) return FormatError(c, f, "argument index 0 (they start at 1)");
      s.index = n;
      ++i;
    } else {
      i = mark;
    }
    if (i < f.size() && f[i] == '<') {
      s.index = -1;
      ++i;
    }
    while (i < f.size() && std::string_view("-#+ 0,(").find(f[i]) != std::string::npos) {
      if (s.Has(f[i])) return FormatError(c, f, fmt::format("flag '{}' twice", f[i]));
      s.flags += f[i++];
    }
    if (number(&n)) s.width = n;
    if (i < f.size() && f[i] == '.') {
      ++i;
      if (!number(&n)) return FormatError(c, f, "'.' without a precision");
      s.precision = n;
    }
    if (i >= f.size()) return FormatError(c, f, "it ends inside a conversion");
    s.conv = f[i++];
    if (std::string_view("sSdxXofeEgGcbBn%").find(s.conv) == std::string_view::npos) {
      return FormatError(c, f,
                         fmt::format("conversion '%{}' is not supported (supported: "
                                     "s S d x X o f e E g G c b B n %)",
                                     s.conv));
    }
    if ((s.Has('-') || s.Has('0')) && s.width < 0) {
      return FormatError(c, f, "flag '-' or '0' needs a width");
    }
    out.push_back(std::move(s));
  }
  if (!text.empty()) out.push_back(Spec{std::move(text)});
  return out;
}

// A decimal number as digits d1 d2 ... dn and the place of the point: the value is
// 0.d1d2...dn * 10^point.
struct Digits {
  bool negative = false;
  std::string digits;
  int point = 0;
};

Digits FromDouble(double v, bool is_float) {
  Digits d;
  d.negative = std::signbit(v);
  char buf[64];
  auto r = is_float
               ? std::to_chars(buf, buf + sizeof(buf), std::fabs(static_cast<float>(v)),
                               std::chars_format::scientific)
               : std::to_chars(buf, buf + sizeof(buf), std::fabs(v),
                               std::chars_format::scientific);
  std::string_view s(buf, r.ptr - buf);
  const size_t e = s.find('e');
  for (char ch : s.substr(0, e)) {
    if (ch != '.') d.digits += ch;
  }
  d.point = std::atoi(std::string(s.substr(e + 1)).c_str()) + 1;
  return d;
}

Digits FromDecimal(const arrow::Decimal128& v, int scale) {
  Digits d;
  d.negative = v.IsNegative();
  arrow::Decimal128 abs = v;
  abs.Abs();
  d.digits = abs.ToIntegerString();
  d.point = static_cast<int>(d.digits.size()) - scale;
  return d;
}

// Keeps `keep` leading digits, rounding HALF_UP (the point moves on a carry out).
void RoundTo(Digits* d, int keep) {
  if (keep < 0) {
    d->digits = "0";
    d->point = 1;
    return;
  }
  if (static_cast<int>(d->digits.size()) <= keep) {
    d->digits.append(keep - d->digits.size(), '0');
    return;
  }
  const bool up = d->digits[keep] >= '5';
  d->digits.resize(keep);
  if (!up) return;
  int k = keep - 1;
  while (k >= 0 && d->digits[k] == '9') d->digits[k--] = '0';
  if (k >= 0) {
    ++d->digits[k];
  } else {
    d->digits.insert(d->digits.begin(), '1');
    ++d->point;
  }
}

// Leading zeros dropped (a zero keeps one digit).
void Normalize(Digits* d) {
  size_t z = 0;
  while (z + 1 < d->digits.size() && d->digits[z] == '0') ++z;
  d->digits.erase(0, z);
  d->point -= static_cast<int>(z);
  if (d->digits == "0") d->point = 1;
}

std::string Grouped(const std::string& whole) {
  std::string out;
  for (size_t k = 0; k < whole.size(); ++k) {
    if (k > 0 && (whole.size() - k) % 3 == 0) out += ',';
    out += whole[k];
  }
  return out;
}

// %f: `frac` digits after the point.
std::string Fixed(Digits d, int frac, bool group) {
  Normalize(&d);
  RoundTo(&d, d.point + frac);
  std::string whole, part;
  for (int k = 0; k < d.point; ++k) {
    whole += k < static_cast<int>(d.digits.size()) ? d.digits[k] : '0';
  }
  if (whole.empty()) whole = "0";
  for (int k = d.point; k < d.point + frac; ++k) {
    part += k >= 0 && k < static_cast<int>(d.digits.size()) ? d.digits[k] : '0';
  }
  if (group) whole = Grouped(whole);
  return frac > 0 ? whole + "." + part : whole;
}

// %e: one digit, the point, `frac` digits, then e+XX.
std::string Scientific(Digits d, int frac, bool upper) {
  Normalize(&d);
  const bool zero = d.digits == "0";
  RoundTo(&d, frac + 1);
  const int exp = zero ? 0 : d.point - 1;
  std::string out(1, d.digits[0]);
  if (frac > 0) out += "." + d.digits.substr(1, frac);
  out += upper ? 'E' : 'e';
  out += exp < 0 ? '-' : '+';
  std::string e = std::to_string(std::abs(exp));
  if (e.size() < 2) e = "0" + e;
  return out + e;
}

// %g: Java's rule (no trailing zeros stripped): %f when 10^-4 <= rounded value <
// 10^precision, else %e.
std::string General(Digits d, int precision, bool upper, bool group) {
  if (precision == 0) precision = 1;
  Digits r = d;
  Normalize(&r);
  const bool zero = r.digits == "0";
  RoundTo(&r, precision);
  const int exp = zero ? 0 : r.point - 1;
  if (zero || (exp >= -4 && exp < precision)) {
    return Fixed(d, precision - exp - 1, group);
  }
  return Scientific(d, precision - 1, upper);
}

// Sign, grouping and padding around the digits of a number.
std::string Signed(const Spec& s, bool negative, std::string body) {
  std::string prefix, suffix;
  if (negative) {
    if (s.Has('(')) {
      prefix = "(";
      suffix = ")";
    } else {
      prefix = "-";
    }
  } else if (s.Has('+')) {
    prefix = "+";
  } else if (s.Has(' ')) {
    prefix = " ";
  }
  if (s.Has('0')) {
    const int len = static_cast<int>(prefix.size() + body.size() + suffix.size());
    if (len < s.width) body.insert(0, s.width - len, '0');
  }
  return prefix + body + suffix;
}

std::string Padded(const Spec& s, std::string v) {
  const int len = static_cast<int>(v.size());
  if (s.width <= len) return v;
  if (s.Has('-')) return v + std::string(s.width - len, ' ');
  return std::string(s.width - len, ' ') + v;
}

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (char ch : s) n += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
  return n;
}

std::string TruncatedTo(std::string_view s, int points) {
  size_t n = 0, k = 0;
  for (; k < s.size(); ++k) {
    if ((static_cast<unsigned char>(s[k]) & 0xC0) != 0x80 && n++ == size_t(points)) break;
  }
  return std::string(s.substr(0, k));
}

void AppendUtf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// One argument value, read as the conversions need it.
class Value {
 public:
  Value(const arrow::Array& a, int64_t i) : a_(a), i_(i) {}
  bool null() const { return a_.IsNull(i_); }
  arrow::Type::type id() const { return a_.type_id(); }
  bool integral() const {
    return id() == arrow::Type::INT8 || id() == arrow::Type::INT16 ||
           id() == arrow::Type::INT32 || id() == arrow::Type::INT64;
  }
  bool numeric() const {
    return integral() || id() == arrow::Type::FLOAT || id() == arrow::Type::DOUBLE ||
           id() == arrow::Type::DECIMAL128;
  }
  int bits() const { return a_.type()->bit_width(); }
  int64_t Int() const {
    switch (id()) {
      case arrow::Type::INT8:
        return static_cast<const arrow::Int8Array&>(a_).Value(i_);
      case arrow::Type::INT16:
        return static_cast<const arrow::Int16Array&>(a_).Value(i_);
      case arrow::Type::INT32:
        return static_cast<const arrow::Int32Array&>(a_).Value(i_);
      default:
        return static_cast<const arrow::Int64Array&>(a_).Value(i_);
    }
  }
  Digits Decimal() const {
    if (integral()) {
      const int64_t v = Int();
      Digits d;
      d.negative = v < 0;
      d.digits = std::to_string(v < 0 ? -static_cast<uint64_t>(v) : uint64_t(v));
      d.point = static_cast<int>(d.digits.size());
      return d;
    }
    if (id() == arrow::Type::DECIMAL128) {
      const auto& type = static_cast<const arrow::Decimal128Type&>(*a_.type());
      return FromDecimal(
          arrow::Decimal128(static_cast<const arrow::Decimal128Array&>(a_).GetValue(i_)),
          type.scale());
    }
    return FromDouble(Double(), id() == arrow::Type::FLOAT);
  }
  double Double() const {
    if (id() == arrow::Type::FLOAT)
      return static_cast<const arrow::FloatArray&>(a_).Value(i_);
    return static_cast<const arrow::DoubleArray&>(a_).Value(i_);
  }
  bool floating() const {
    return id() == arrow::Type::FLOAT || id() == arrow::Type::DOUBLE;
  }

  // %s: the value as CAST(value AS STRING) writes it.
  Result<std::string> Text() const {
    switch (id()) {
      case arrow::Type::STRING:
        return std::string(static_cast<const arrow::StringArray&>(a_).GetView(i_));
      case arrow::Type::BOOL:
        return std::string(
            static_cast<const arrow::BooleanArray&>(a_).Value(i_) ? "true" : "false");
      case arrow::Type::FLOAT:
        return FormatJavaFloat(static_cast<float>(Double()));
      case arrow::Type::DOUBLE:
        return FormatJavaDouble(Double());
      case arrow::Type::DECIMAL128: {
        const auto& type = static_cast<const arrow::Decimal128Type&>(*a_.type());
        return arrow::Decimal128(
                   static_cast<const arrow::Decimal128Array&>(a_).GetValue(i_))
            .ToString(type.scale());
      }
      case arrow::Type::DATE32:
        return FormatWithPattern(
            int64_t{static_cast<const arrow::Date32Array&>(a_).Value(i_)} * 86400000000LL,
            "yyyy-MM-dd");
      case arrow::Type::TIMESTAMP: {
        const int64_t us = static_cast<const arrow::TimestampArray&>(a_).Value(i_);
        DELTA_ASSIGN_OR_RETURN(std::string t,
                               FormatWithPattern(us, "yyyy-MM-dd HH:mm:ss"));
        int64_t frac = ((us % 1000000) + 1000000) % 1000000;
        if (frac != 0) {
          std::string f = fmt::format("{:06d}", frac);
          while (f.back() == '0') f.pop_back();
          t += "." + f;
        }
        return t;
      }
      default:
        return std::to_string(Int());
    }
  }

 private:
  const arrow::Array& a_;
  int64_t i_;
};

Result<std::string> Convert(const LibraryCall& c, std::string_view format, const Spec& s,
                            const Value& v, const DataType& type) {
  auto mismatch = [&]() {
    return FormatError(c, format,
                       fmt::format("%{} cannot format a value of type {} "
                                   "(IllegalFormatConversion)",
                                   s.conv, TypeToSql(type)));
  };
  const char conv = s.conv;
  if (conv == 'b' || conv == 'B') {
    std::string b = v.null() ? "false" : v.id() == arrow::Type::BOOL ? *v.Text() : "true";
    if (s.precision >= 0) b = b.substr(0, s.precision);
    if (conv == 'B') b = AsciiToUpper(b);
    return Padded(s, b);
  }
  if (v.null()) {
    std::string n = conv == 'S' ? "NULL" : "null";
    if (s.precision >= 0) n = n.substr(0, s.precision);
    return Padded(s, n);
  }
  switch (conv) {
    case 's':
    case 'S': {
      DELTA_ASSIGN_OR_RETURN(std::string t, v.Text());
      if (s.precision >= 0 && CodePoints(t) > size_t(s.precision)) {
        t = TruncatedTo(t, s.precision);
      }
      if (conv == 'S') t = AsciiToUpper(t);
      const int extra = s.width - static_cast<int>(CodePoints(t));
      if (extra <= 0) return t;
      return s.Has('-') ? t + std::string(extra, ' ') : std::string(extra, ' ') + t;
    }
    case 'c': {
      if (!v.integral()) return mismatch();
      const int64_t cp = v.Int();
      if (cp < 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return FormatError(c, format, fmt::format("%c: {} is not a code point", cp));
      }
      std::string out;
      AppendUtf8(&out, static_cast<uint32_t>(cp));
      return Padded(s, out);
    }
    case 'd': {
      if (!v.integral()) return mismatch();
      Digits d = v.Decimal();
      std::string body = s.Has(',') ? Grouped(d.digits) : d.digits;
      return Padded(s, Signed(s, d.negative, body));
    }
    case 'x':
    case 'X':
    case 'o': {
      if (!v.integral()) return mismatch();
      const int bits = v.bits();
      uint64_t u = static_cast<uint64_t>(v.Int());
      if (bits < 64) u &= (uint64_t{1} << bits) - 1;  // two's complement of its width
      std::string body = conv == 'o' ? fmt::format("{:o}", u) : fmt::format("{:x}", u);
      std::string prefix;
      if (s.Has('#')) prefix = conv == 'o' ? "0" : "0x";
      if (s.Has('0') && s.width > static_cast<int>(prefix.size() + body.size())) {
        body.insert(0, s.width - prefix.size() - body.size(), '0');
      }
      body = prefix + body;
      if (conv == 'X') body = AsciiToUpper(body);
      return Padded(s, body);
    }
    default:
      break;
  }
  // f e E g G
  if (!v.numeric() || (v.integral())) return mismatch();
  if (v.floating() && !std::isfinite(v.Double())) {
    const double x = v.Double();
    std::string t = std::isnan(x) ? "NaN" : "Infinity";
    Spec plain = s;
    plain.flags.erase(std::remove(plain.flags.begin(), plain.flags.end(), '0'),
                      plain.flags.end());
    return Padded(s, std::isnan(x) ? t : Signed(plain, x < 0, t));
  }
  Digits d = v.Decimal();
  const int precision = s.precision < 0 ? 6 : s.precision;
  std::string body;
  if (conv == 'f') {
    body = Fixed(d, precision, s.Has(','));
  } else if (conv == 'e' || conv == 'E') {
    body = Scientific(d, precision, conv == 'E');
  } else {
    body = General(d, precision, conv == 'G', s.Has(','));
    if (conv == 'G') body = AsciiToUpper(body);
  }
  bool negative = d.negative;
  if (negative && body.find_first_not_of("0.,eE+-") == std::string::npos) {
    negative = std::signbit(v.floating() ? v.Double() : -1.0);  // Java keeps -0.0's sign
  }
  return Padded(s, Signed(s, negative, body));
}

Result<Datum> FormatString(const LibraryCall& c) {
  const int64_t n = c.all_scalar() ? 1 : c.length;
  DELTA_ASSIGN_OR_RETURN(auto args, ArgArrays(c));
  const auto& formats = static_cast<const arrow::StringArray&>(*args[0]);
  std::string_view parsed_for;
  std::vector<Spec> specs;
  bool parsed = false;
  arrow::StringBuilder b;
  for (int64_t i = 0; i < n; ++i) {
    if (formats.IsNull(i)) {
      DELTA_RETURN_IF_ERROR(Appended(b.AppendNull(), c));
      continue;
    }
    std::string_view format = formats.GetView(i);
    if (!parsed || format != parsed_for) {
      DELTA_ASSIGN_OR_RETURN(specs, ParseFormat(c, format));
      parsed_for = format;
      parsed = true;
    }
    std::string out;
    int ordinary = 0, last = 0;
    for (const auto& s : specs) {
      if (s.conv == 0) {
        out += s.text;
        continue;
      }
      if (s.conv == 'n' || s.conv == '%') {
        out += Padded(s, s.conv == 'n' ? "\n" : "%");
        continue;
      }
      const int arg = s.index > 0 ? s.index : s.index < 0 ? last : ++ordinary;
      if (arg < 1 || arg >= static_cast<int>(args.size())) {
        return FormatError(
            c, format,
            fmt::format("no argument {} for '%{}' (MissingFormatArgument)", arg, s.conv));
      }
      last = arg;
      DELTA_ASSIGN_OR_RETURN(
          std::string piece,
          Convert(c, format, s, Value(*args[arg], i), *c.e.args[arg]->type));
      out += piece;
    }
    DELTA_RETURN_IF_ERROR(Appended(b.Append(out), c));
  }
  std::shared_ptr<arrow::Array> out;
  DELTA_RETURN_IF_ERROR(Appended(b.Finish(&out), c));
  return Shaped(c, out);
}

}  // namespace

std::vector<KernelEntry> FormatKernels() { return {{"format_string", FormatString}}; }

}  // namespace deltaguard::internal
