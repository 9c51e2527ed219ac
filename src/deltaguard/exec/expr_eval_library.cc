// The function library's kernel table, the row helpers every family uses, and the
// string kernels. Strings are measured in code points as Spark's UTF8String does
// (lpad to 5 characters, instr's position), never in bytes.

#include <arrow/scalar.h>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/expr_eval_array_internal.h"
#include "deltaguard/exec/expr_eval_library_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {

namespace cp = arrow::compute;
using arrow::Datum;

bool LibraryCall::all_scalar() const {
  return std::all_of(args.begin(), args.end(),
                     [](const Datum& d) { return d.is_scalar(); });
}

const std::string& LibraryCall::StrLiteral(size_t i) const {
  return std::get<std::string>(e.args[i]->literal.value);
}

int64_t LibraryCall::IntLiteral(size_t i) const {
  return std::get<int64_t>(e.args[i]->literal.value);
}

Result<ArgRows> ArgRows::Of(const Datum& d) {
  ArgRows r;
  if (d.is_array()) {
    r.array_ = d.make_array();
    return r;
  }
  auto a = arrow::MakeArrayFromScalar(*d.scalar(), 1);
  if (!a.ok())
    return internal::FromArrowStatus(a.status(), ErrorCode::kInternal, "scalar");
  r.array_ = *a;
  r.scalar_ = true;
  return r;
}

std::string_view ArgRows::Str(int64_t i) const {
  const int64_t at = scalar_ ? 0 : i;
  return static_cast<const arrow::BinaryArray&>(*array_).GetView(at);
}

int64_t ArgRows::Int(int64_t i) const {
  // Read through the buffer: INT and DATE are 32-bit, BIGINT and TIMESTAMP 64-bit.
  const int64_t at = scalar_ ? 0 : i;
  const auto& data = *array_->data();
  switch (array_->type_id()) {
    case arrow::Type::INT32:
    case arrow::Type::DATE32:
      return data.GetValues<int32_t>(1)[at];
    default:
      return data.GetValues<int64_t>(1)[at];
  }
}

double ArgRows::Dbl(int64_t i) const {
  return static_cast<const arrow::DoubleArray&>(*array_).Value(scalar_ ? 0 : i);
}

bool ArgRows::Bool(int64_t i) const {
  return static_cast<const arrow::BooleanArray&>(*array_).Value(scalar_ ? 0 : i);
}

Result<std::shared_ptr<arrow::Array>> ArgArray(const LibraryCall& call, const Datum& d,
                                               int64_t rows) {
  if (d.is_array()) return d.make_array();
  auto a = arrow::MakeArrayFromScalar(*d.scalar(), rows);
  if (!a.ok()) return EvalError(a.status(), call.e.name, *call.e.type);
  return *a;
}

Result<std::vector<std::shared_ptr<arrow::Array>>> ArgArrays(const LibraryCall& call) {
  const int64_t rows = call.all_scalar() ? 1 : call.length;
  std::vector<std::shared_ptr<arrow::Array>> out;
  for (const auto& d : call.args) {
    DELTA_ASSIGN_OR_RETURN(auto a, ArgArray(call, d, rows));
    out.push_back(std::move(a));
  }
  return out;
}

Result<Datum> Shaped(const LibraryCall& call, const std::shared_ptr<arrow::Array>& out) {
  if (!call.all_scalar()) return Datum(out);
  auto scalar = out->GetScalar(0);
  if (!scalar.ok()) return EvalError(scalar.status(), call.e.name, *call.e.type);
  return Datum(*scalar);
}

Result<std::vector<ArgRows>> RowsOf(const LibraryCall& call) {
  std::vector<ArgRows> rows;
  for (const auto& d : call.args) {
    DELTA_ASSIGN_OR_RETURN(ArgRows r, ArgRows::Of(d));
    rows.push_back(std::move(r));
  }
  return rows;
}

Status Appended(const arrow::Status& st, const LibraryCall& call) {
  if (st.ok()) return OkStatus();
  return EvalError(st, call.e.name, *call.e.type);
}

Result<Datum> CallArrow(const LibraryCall& call, const std::string& fn,
                        const std::vector<Datum>& args, const cp::FunctionOptions* opts) {
  auto r = cp::CallFunction(fn, args, opts);
  if (!r.ok()) return EvalError(r.status(), call.e.name, *call.e.type);
  return std::move(r).ValueUnsafe();
}

namespace {

using SB = arrow::StringBuilder;

// Byte length of the UTF-8 sequence starting with `lead` (1 for a stray byte).
size_t SeqLen(unsigned char lead) {
  if (lead < 0xC0) return 1;
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  return 4;
}

// Byte offsets of each code point of `s`, plus s.size() at the end.
std::vector<size_t> CodePointOffsets(std::string_view s) {
  std::vector<size_t> at;
  at.reserve(s.size() + 1);
  for (size_t i = 0; i < s.size(); i += SeqLen(static_cast<unsigned char>(s[i]))) {
    at.push_back(i);
  }
  at.push_back(s.size());
  return at;
}

// The first `n` code points of s (all of s when shorter).
std::string_view Prefix(std::string_view s, int64_t n) {
  size_t i = 0;
  for (int64_t k = 0; k < n && i < s.size(); ++k) {
    i += SeqLen(static_cast<unsigned char>(s[i]));
  }
  return s.substr(0, std::min(i, s.size()));
}

// 1-based code point position of the first `needle` in `hay` at or after code point
// `from` (0-based); 0 when absent.
int32_t FindCodePoint(std::string_view hay, std::string_view needle, int64_t from) {
  const auto at = CodePointOffsets(hay);
  if (from >= static_cast<int64_t>(at.size())) return 0;
  size_t pos = hay.find(needle, at[from]);
  if (pos == std::string_view::npos) return 0;
  auto it = std::lower_bound(at.begin(), at.end(), pos);
  return static_cast<int32_t>(it - at.begin()) + 1;
}

Result<Datum> ConcatWs(const LibraryCall& c) {
  // NULL separator: NULL; NULL values (and NULL array elements) are skipped (Spark).
  auto row = [&](const std::vector<ArgRows>& r, int64_t i, SB& b) -> Status {
    if (r[0].IsNull(i)) return Appended(b.AppendNull(), c);
    std::string out;
    bool first = true;
    auto add = [&](std::string_view v) {
      if (!first) out += r[0].Str(i);
      out += v;
      first = false;
    };
    for (size_t k = 1; k < r.size(); ++k) {
      if (r[k].IsNull(i)) continue;
      if (const arrow::ListArray* list = r[k].List()) {
        const int64_t at = r[k].Row(i);
        const auto& strings = static_cast<const arrow::StringArray&>(*list->values());
        for (int64_t e = list->value_offset(at); e < list->value_offset(at + 1); ++e) {
          if (strings.IsValid(e)) add(strings.GetView(e));
        }
        continue;
      }
      add(r[k].Str(i));
    }
    return Appended(b.Append(out), c);
  };
  return MapRows<SB>(c, false, row);
}

Result<Datum> Pad(const LibraryCall& c, bool left) {
  return MapRows<SB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, SB& b) -> Status {
        std::string_view s = r[0].Str(i);
        const int64_t len = std::max<int64_t>(r[1].Int(i), 0);
        std::string_view pad = r.size() > 2 ? r[2].Str(i) : std::string_view(" ");
        const int64_t have = Utf8CodePoints(s);
        if (have >= len || pad.empty()) return Appended(b.Append(Prefix(s, len)), c);
        // Spark: the pad repeats and is cut to fill exactly `len - have` code points.
        const auto pad_at = CodePointOffsets(pad);
        const int64_t pad_n = static_cast<int64_t>(pad_at.size()) - 1;
        std::string fill;
        for (int64_t k = 0; k < len - have; ++k) {
          const int64_t j = k % pad_n;
          fill.append(pad.substr(pad_at[j], pad_at[j + 1] - pad_at[j]));
        }
        std::string out = left ? fill + std::string(s) : std::string(s) + fill;
        return Appended(b.Append(out), c);
      });
}

Result<Datum> Initcap(const LibraryCall& c) {
  // Spark: lower-case the string, then upper-case each character after a space (or
  // first). Arrow's case mappings keep the code point count, so the two strings line up.
  DELTA_ASSIGN_OR_RETURN(Datum lower, CallArrow(c, "utf8_lower", {c.args[0]}));
  DELTA_ASSIGN_OR_RETURN(Datum upper, CallArrow(c, "utf8_upper", {c.args[0]}));
  std::vector<Datum> both = {lower, upper};
  LibraryCall pair{c.e, both, c.length, c.now_micros};
  return MapRows<SB>(
      pair, true, [&](const std::vector<ArgRows>& r, int64_t i, SB& b) -> Status {
        std::string_view lo = r[0].Str(i), up = r[1].Str(i);
        const auto lo_at = CodePointOffsets(lo), up_at = CodePointOffsets(up);
        if (lo_at.size() != up_at.size()) return Appended(b.Append(lo), c);
        std::string out;
        for (size_t k = 0; k + 1 < lo_at.size(); ++k) {
          const bool word_start = k == 0 || lo[lo_at[k - 1]] == ' ';
          const auto& at = word_start ? up_at : lo_at;
          out.append((word_start ? up : lo).substr(at[k], at[k + 1] - at[k]));
        }
        return Appended(b.Append(out), c);
      });
}

Result<Datum> Instr(const LibraryCall& c) {
  using IB = arrow::Int32Builder;
  return MapRows<IB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, IB& b) -> Status {
        return Appended(b.Append(FindCodePoint(r[0].Str(i), r[1].Str(i), 0)), c);
      });
}

Result<Datum> Locate(const LibraryCall& c) {
  // locate(substr, str [, pos]): 1-based; a start below 1 finds nothing (Spark).
  using IB = arrow::Int32Builder;
  return MapRows<IB>(
      c, false, [&](const std::vector<ArgRows>& r, int64_t i, IB& b) -> Status {
        if (r.size() > 2 && r[2].IsNull(i)) return Appended(b.Append(0), c);
        if (r[0].IsNull(i) || r[1].IsNull(i)) return Appended(b.AppendNull(), c);
        const int64_t pos = r.size() > 2 ? r[2].Int(i) : 1;
        if (pos < 1) return Appended(b.Append(0), c);
        return Appended(b.Append(FindCodePoint(r[1].Str(i), r[0].Str(i), pos - 1)), c);
      });
}

Result<Datum> Replace(const LibraryCall& c) {
  return MapRows<SB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, SB& b) -> Status {
        std::string_view s = r[0].Str(i), from = r[1].Str(i);
        std::string_view to = r.size() > 2 ? r[2].Str(i) : std::string_view();
        if (from.empty()) return Appended(b.Append(s), c);
        std::string out;
        size_t at = 0;
        for (size_t hit; (hit = s.find(from, at)) != std::string_view::npos;
             at = hit + from.size()) {
          out.append(s.substr(at, hit - at)).append(to);
        }
        out.append(s.substr(at));
        return Appended(b.Append(out), c);
      });
}

Result<Datum> Translate(const LibraryCall& c) {
  // Each code point of `from` maps to the one at the same place in `to`, or is deleted
  // when `to` is shorter; a repeated code point keeps its first mapping.
  return MapRows<SB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, SB& b) -> Status {
        std::string_view s = r[0].Str(i), from = r[1].Str(i), to = r[2].Str(i);
        const auto f_at = CodePointOffsets(from), t_at = CodePointOffsets(to);
        const auto s_at = CodePointOffsets(s);
        std::string out;
        for (size_t k = 0; k + 1 < s_at.size(); ++k) {
          std::string_view ch = s.substr(s_at[k], s_at[k + 1] - s_at[k]);
          size_t j = 0;
          while (j + 1 < f_at.size() && from.substr(f_at[j], f_at[j + 1] - f_at[j]) != ch)
            ++j;
          if (j + 1 >= f_at.size()) {
            out.append(ch);
          } else if (j + 1 < t_at.size()) {
            out.append(to.substr(t_at[j], t_at[j + 1] - t_at[j]));
          }
        }
        return Appended(b.Append(out), c);
      });
}

Result<Datum> Reverse(const LibraryCall& c) {
  return CallArrow(c, "utf8_reverse", {c.args[0]});
}

Result<Datum> Repeat(const LibraryCall& c) {
  return MapRows<SB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, SB& b) -> Status {
        std::string_view s = r[0].Str(i);
        const int64_t times = std::max<int64_t>(r[1].Int(i), 0);
        if (static_cast<double>(s.size()) * static_cast<double>(times) > (1LL << 30)) {
          return MakeError(ErrorCode::kInvalidArgument,
                           "repeat(): the result would exceed 1 GiB ({} bytes x {})",
                           s.size(), times);
        }
        std::string out;
        out.reserve(s.size() * times);
        for (int64_t k = 0; k < times; ++k) out.append(s);
        return Appended(b.Append(out), c);
      });
}

Result<Datum> LeftRight(const LibraryCall& c, bool left) {
  return MapRows<SB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, SB& b) -> Status {
        std::string_view s = r[0].Str(i);
        const int64_t n = r[1].Int(i);
        if (n <= 0) return Appended(b.Append(""), c);
        if (left) return Appended(b.Append(Prefix(s, n)), c);
        const auto at = CodePointOffsets(s);
        const int64_t have = static_cast<int64_t>(at.size()) - 1;
        return Appended(b.Append(s.substr(at[std::max<int64_t>(have - n, 0)])), c);
      });
}

Result<Datum> Ascii(const LibraryCall& c) {
  using IB = arrow::Int32Builder;
  return MapRows<IB>(c, true,
                     [&](const std::vector<ArgRows>& r, int64_t i, IB& b) -> Status {
                       std::string_view s = r[0].Str(i);
                       if (s.empty()) return Appended(b.Append(0), c);
                       // The first code point's value (Spark's ascii() is the code point,
                       // not a byte).
                       const auto lead = static_cast<unsigned char>(s[0]);
                       const size_t len = std::min(SeqLen(lead), s.size());
                       int32_t cp = len == 1 ? lead : lead & (0xFF >> (len + 1));
                       for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (s[k] & 0x3F);
                       return Appended(b.Append(cp), c);
                     });
}

Result<Datum> Affix(const LibraryCall& c, int kind) {
  using BB = arrow::BooleanBuilder;
  return MapRows<BB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, BB& b) -> Status {
        std::string_view s = r[0].Str(i), p = r[1].Str(i);
        bool v = kind == 0   ? s.substr(0, p.size()) == p
                 : kind == 1 ? s.size() >= p.size() && s.substr(s.size() - p.size()) == p
                             : s.find(p) != std::string_view::npos;
        return Appended(b.Append(v), c);
      });
}

Result<Datum> Btrim(const LibraryCall& c) {
  return MapRows<SB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, SB& b) -> Status {
        std::string_view s = r[0].Str(i);
        std::string_view set = r.size() > 1 ? r[1].Str(i) : std::string_view(" ");
        // Trims code points of `set` from both ends.
        const auto at = CodePointOffsets(s);
        auto in_set = [&](size_t k) {
          return set.find(s.substr(at[k], at[k + 1] - at[k])) != std::string_view::npos;
        };
        size_t lo = 0, hi = at.size() - 1;
        while (lo < hi && in_set(lo)) ++lo;
        while (hi > lo && in_set(hi - 1)) --hi;
        return Appended(b.Append(s.substr(at[lo], at[hi] - at[lo])), c);
      });
}

Result<Datum> SplitPart(const LibraryCall& c) {
  return MapRows<SB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, SB& b) -> Status {
        std::string_view s = r[0].Str(i), delim = r[1].Str(i);
        const int64_t part = r[2].Int(i);
        if (part == 0) {
          return MakeError(
              ErrorCode::kInvalidArgument,
              "INVALID_INDEX_OF_ZERO: split_part(): the part number must not "
              "be 0 (parts count from 1, or from -1 at the end)");
        }
        std::vector<std::string_view> parts;
        if (delim.empty()) {
          parts.push_back(s);
        } else {
          size_t at = 0;
          for (size_t hit; (hit = s.find(delim, at)) != std::string_view::npos;
               at = hit + delim.size()) {
            parts.push_back(s.substr(at, hit - at));
          }
          parts.push_back(s.substr(at));
        }
        const int64_t n = static_cast<int64_t>(parts.size());
        const int64_t k = part > 0 ? part - 1 : n + part;
        return Appended(b.Append(k >= 0 && k < n ? parts[k] : std::string_view()), c);
      });
}

Result<Datum> Space(const LibraryCall& c) {
  return MapRows<SB>(c, true,
                     [&](const std::vector<ArgRows>& r, int64_t i, SB& b) -> Status {
                       const int64_t n = std::clamp<int64_t>(r[0].Int(i), 0, 1LL << 30);
                       return Appended(b.Append(std::string(n, ' ')), c);
                     });
}

Result<Datum> ByteLength(const LibraryCall& c, int64_t unit) {
  using IB = arrow::Int32Builder;
  return MapRows<IB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, IB& b) -> Status {
        return Appended(b.Append(static_cast<int32_t>(r[0].Str(i).size() * unit)), c);
      });
}

}  // namespace

// Regular expressions (expr_eval_regex.cc).
Result<Datum> RegexpExtract(const LibraryCall& c);
Result<Datum> RegexpReplace(const LibraryCall& c);
Result<Datum> RegexpLike(const LibraryCall& c);
Result<Datum> Split(const LibraryCall& c);

std::vector<KernelEntry> StringKernels() {
  return {
      {"concat_ws", ConcatWs},
      {"lpad", [](const LibraryCall& c) { return Pad(c, true); }},
      {"rpad", [](const LibraryCall& c) { return Pad(c, false); }},
      {"initcap", Initcap},
      {"instr", Instr},
      {"locate", Locate},
      {"replace", Replace},
      {"translate", Translate},
      {"regexp_extract", RegexpExtract},
      {"regexp_replace", RegexpReplace},
      {"regexp_like", RegexpLike},
      {"split", Split},
      {"reverse", Reverse},
      {"repeat", Repeat},
      {"left", [](const LibraryCall& c) { return LeftRight(c, true); }},
      {"right", [](const LibraryCall& c) { return LeftRight(c, false); }},
      {"ascii", Ascii},
      {"startswith", [](const LibraryCall& c) { return Affix(c, 0); }},
      {"endswith", [](const LibraryCall& c) { return Affix(c, 1); }},
      {"contains", [](const LibraryCall& c) { return Affix(c, 2); }},
      {"btrim", Btrim},
      {"split_part", SplitPart},
      {"space", Space},
      {"octet_length", [](const LibraryCall& c) { return ByteLength(c, 1); }},
      {"bit_length", [](const LibraryCall& c) { return ByteLength(c, 8); }},
  };
}

Result<Datum> CallLibrary(const LibraryCall& call) {
  static const std::vector<KernelEntry> kTable = [] {
    std::vector<KernelEntry> all = StringKernels();
    for (auto& k : DatetimeKernels()) all.push_back(k);
    for (auto& k : MathKernels()) all.push_back(k);
    for (auto& k : HashKernels()) all.push_back(k);
    for (auto& k : ArrayKernels()) all.push_back(k);
    for (auto& k : ArrayListKernels()) all.push_back(k);
    for (auto& k : ArraySetKernels()) all.push_back(k);
    for (auto& k : JsonKernels()) all.push_back(k);
    for (auto& k : FormatKernels()) all.push_back(k);
    for (auto& k : TimezoneKernels()) all.push_back(k);
    for (auto& k : MapKernels()) all.push_back(k);
    return all;
  }();
  for (const auto& k : kTable) {
    if (k.name == call.e.name) return k.kernel(call);
  }
  return MakeError(ErrorCode::kInternal, "function {}() has no kernel", call.e.name);
}

}  // namespace deltaguard::internal
