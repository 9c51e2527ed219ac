// A fast path of SortIndices for the common window and ORDER BY keys: integers, dates
// and timestamps, NULLs allowed. Each key becomes an order-preserving code of as few
// bits as its values span (value - min ascending, max - value descending, NULL one
// code below or above them all); the codes are concatenated, most significant key
// first, and the row number breaks ties, so the sort is stable like Arrow's. Entries
// are as narrow as the codes allow: one 64-bit word holding codes and row when they
// fit (a dedup over 10M order ids and a version: 26 + 24 bits), else a key word and a
// row, else two key words and a row. They are dealt by 8-bit digits in place and the
// small buckets sorted with std::sort, on both cores. The sorted codes also give the
// partition and peer boundaries of a window without comparing its keys again.

#include <arrow/api.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include "deltaguard/arrow/status.h"
#include "deltaguard/sql/query_internal.h"

namespace deltaguard::query_internal {

namespace {

using U128 = unsigned __int128;

int BitWidth(uint64_t v) { return v == 0 ? 0 : 64 - __builtin_clzll(v); }

int TypeBits(arrow::Type::type id) {
  switch (id) {
    case arrow::Type::INT8:
      return 8;
    case arrow::Type::INT16:
      return 16;
    case arrow::Type::INT32:
    case arrow::Type::DATE32:
      return 32;
    case arrow::Type::INT64:
    case arrow::Type::TIMESTAMP:
      return 64;
    default:
      return 0;
  }
}

// One key's codes in [0, 2^width): equal values get equal codes, order is the key's
// order (direction and NULL placement included).
class KeyCode {
 public:
  // nullopt when the column's type does not pack or its codes need more than 64 bits.
  static std::optional<KeyCode> Make(std::shared_ptr<arrow::ArrayData> data,
                                     const SortKeySpec& spec) {
    KeyCode k;
    k.bits_ = TypeBits(data->type->id());
    if (k.bits_ == 0) return std::nullopt;
    k.data_ = std::move(data);
    k.descending_ = spec.descending;
    k.nulls_first_ = spec.nulls_first;
    k.nulls_ = k.data_->GetNullCount() > 0;
    bool any = false;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int64_t i = 0; i < k.data_->length; ++i) {
      if (k.nulls_ && k.data_->IsNull(i)) continue;
      const int64_t v = k.At(i);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      any = true;
    }
    if (!any) return k;  // every value NULL: one code, no bits
    k.min_ = lo;
    k.max_ = hi;
    const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    if (k.nulls_ && range == UINT64_MAX) return std::nullopt;
    k.null_code_ = k.nulls_first_ ? 0 : range + (k.nulls_ ? 1 : 0);
    k.width_ = BitWidth(range + (k.nulls_ ? 1 : 0));
    return k;
  }

  int width() const { return width_; }

  uint64_t Of(int64_t i) const {
    if (width_ == 0) return 0;
    if (nulls_ && data_->IsNull(i)) return null_code_;
    const auto v = static_cast<uint64_t>(At(i));
    const uint64_t code =
        descending_ ? static_cast<uint64_t>(max_) - v : v - static_cast<uint64_t>(min_);
    return code + (nulls_ && nulls_first_ ? 1 : 0);
  }

 private:
  int64_t At(int64_t i) const {
    switch (bits_) {
      case 8:
        return data_->GetValues<int8_t>(1)[i];
      case 16:
        return data_->GetValues<int16_t>(1)[i];
      case 32:
        return data_->GetValues<int32_t>(1)[i];
      default:
        return data_->GetValues<int64_t>(1)[i];
    }
  }

  std::shared_ptr<arrow::ArrayData> data_;
  int bits_ = 0;
  bool descending_ = false, nulls_first_ = true, nulls_ = false;
  int64_t min_ = 0, max_ = 0;
  uint64_t null_code_ = 0;
  int width_ = 0;
};

// Codes and row in one word: codes << row_bits | row.
struct Word {
  uint64_t w = 0;
  bool operator<(const Word& o) const { return w < o.w; }
};
// Codes in one word, then the row.
struct KeyRow {
  uint64_t key = 0;
  uint64_t row = 0;
  bool operator<(const KeyRow& o) const {
    return key != o.key ? key < o.key : row < o.row;
  }
};
// Codes in two words, then the row.
struct WideRow {
  uint64_t hi = 0;
  uint64_t lo = 0;
  uint64_t row = 0;
  bool operator<(const WideRow& o) const {
    if (hi != o.hi) return hi < o.hi;
    if (lo != o.lo) return lo < o.lo;
    return row < o.row;
  }
};

// Per entry type: the concatenated codes, the row, and adding one key's code.
struct Traits {
  int row_bits = 0;
  U128 Codes(const Word& e) const { return e.w >> row_bits; }
  U128 Codes(const KeyRow& e) const { return e.key; }
  U128 Codes(const WideRow& e) const { return (static_cast<U128>(e.hi) << 64) | e.lo; }
  uint64_t Row(const Word& e) const { return e.w & ((uint64_t{1} << row_bits) - 1); }
  uint64_t Row(const KeyRow& e) const { return e.row; }
  uint64_t Row(const WideRow& e) const { return e.row; }
  void Init(Word* e, uint64_t row) const { e->w = row; }
  void Init(KeyRow* e, uint64_t row) const { e->row = row; }
  void Init(WideRow* e, uint64_t row) const { e->row = row; }
  void Add(Word* e, uint64_t code, int shift) const {
    e->w |= code << (shift + row_bits);
  }
  void Add(KeyRow* e, uint64_t code, int shift) const { e->key |= code << shift; }
  void Add(WideRow* e, uint64_t code, int shift) const {
    const U128 c = static_cast<U128>(code) << shift;
    e->hi |= static_cast<uint64_t>(c >> 64);
    e->lo |= static_cast<uint64_t>(c);
  }
};

// The word the radix passes deal by, rebased to start at 0: for two-word codes the
// first word when it varies, else the second.
struct RadixKey {
  bool hi = true;
  uint64_t base = 0;
  int bits = 0;
  uint64_t Of(const Word& x) const { return x.w - base; }
  uint64_t Of(const KeyRow& x) const { return x.key - base; }
  uint64_t Of(const WideRow& x) const { return (hi ? x.hi : x.lo) - base; }
};

template <typename E>
std::optional<RadixKey> FindRadixKey(const std::vector<E>& e) {
  RadixKey k;
  uint64_t lo = UINT64_MAX, hi = 0;
  if constexpr (std::is_same_v<E, WideRow>) {
    uint64_t lo2 = UINT64_MAX, hi2 = 0;
    for (const auto& x : e) {
      lo = std::min(lo, x.hi);
      hi = std::max(hi, x.hi);
      lo2 = std::min(lo2, x.lo);
      hi2 = std::max(hi2, x.lo);
    }
    k.hi = hi != lo;
    if (!k.hi) {
      lo = lo2;
      hi = hi2;
    }
  } else {
    for (const auto& x : e) {
      const uint64_t v = k.Of(x);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (hi == lo) return std::nullopt;
  k.base = lo;
  k.bits = BitWidth(hi - lo);
  return k;
}

// Deals [begin, end) in place by the 8-bit digit of the radix key at `shift` (an
// American flag sort pass: 256 write positions stay in cache); bucket d is then
// [bounds[d], bounds[d + 1]).
template <typename E>
void DealByDigit(E* begin, E* end, const RadixKey& key, int shift,
                 size_t (&bounds)[257]) {
  auto digit = [&](const E& x) { return (key.Of(x) >> shift) & 255; };
  std::fill(bounds, bounds + 257, size_t{0});
  for (E* x = begin; x != end; ++x) ++bounds[digit(*x) + 1];
  for (int d = 1; d <= 256; ++d) bounds[d] += bounds[d - 1];
  size_t next[256];
  std::copy(bounds, bounds + 256, next);
  for (size_t d = 0; d < 256; ++d) {
    while (next[d] < bounds[d + 1]) {
      E v = begin[next[d]];
      size_t to = digit(v);
      while (to != d) {
        std::swap(v, begin[next[to]++]);
        to = digit(v);
      }
      begin[next[d]++] = v;
    }
  }
}

// Sorts [begin, end) by digits below bit `top` while the range is large, then by
// std::sort. Bucket order is key order, and std::sort breaks ties by row, so the
// result is the full comparison's.
template <typename E>
void FlagSort(E* begin, E* end, const RadixKey& key, int top) {
  if (end - begin < 256 || top <= 0) {
    std::sort(begin, end);
    return;
  }
  const int shift = std::max(top - 8, 0);
  size_t bounds[257];
  DealByDigit(begin, end, key, shift, bounds);
  for (size_t d = 0; d < 256; ++d) {
    FlagSort(begin + bounds[d], begin + bounds[d + 1], key, shift);
  }
}

// Sorts the entries: a first radix pass on this thread, then its 256 buckets on two
// threads (each a run of buckets holding about half the entries).
template <typename E>
void SortBothCores(std::vector<E>* entries) {
  auto& e = *entries;
  const auto key = FindRadixKey(e);
  if (e.size() < (1u << 16) || !key) {
    std::sort(e.begin(), e.end());  // small, or one key (the row numbers decide)
    return;
  }
  const int shift = std::max(key->bits - 8, 0);
  size_t bounds[257];
  DealByDigit(e.data(), e.data() + e.size(), *key, shift, bounds);
  auto sort_buckets = [&](size_t from, size_t to) {
    for (size_t d = from; d < to; ++d) {
      FlagSort(e.data() + bounds[d], e.data() + bounds[d + 1], *key, shift);
    }
  };
  size_t split = 0;
  while (split < 256 && bounds[split] < e.size() / 2) ++split;
  std::thread other([&] { sort_buckets(0, split); });
  sort_buckets(split, 256);
  other.join();
}

// Positions where the codes above `low_bits` change, then the row count.
template <typename E>
std::vector<int64_t> Starts(const std::vector<E>& e, const Traits& t, int low_bits) {
  std::vector<int64_t> out;
  out.reserve(e.size() + 1);  // untouched pages cost nothing; regrowing copies them
  auto prefix = [&](const E& x) {
    return low_bits >= 128 ? U128{0} : t.Codes(x) >> low_bits;
  };
  for (size_t i = 0; i < e.size(); ++i) {
    if (i == 0 || prefix(e[i - 1]) != prefix(e[i]))
      out.push_back(static_cast<int64_t>(i));
  }
  out.push_back(static_cast<int64_t>(e.size()));
  return out;
}

// A buffer over the first `size` bytes of a vector it owns.
template <typename E>
class VectorBuffer final : public arrow::Buffer {
 public:
  VectorBuffer(std::vector<E> v, int64_t size)
      : arrow::Buffer(reinterpret_cast<const uint8_t*>(v.data()), size),
        vector_(std::move(v)) {}

 private:
  std::vector<E> vector_;
};

template <typename E>
std::shared_ptr<arrow::Array> PackAndSort(const std::vector<KeyCode>& codes, int64_t n,
                                          const Traits& t, int leading,
                                          SortBoundaries* boundaries) {
  std::vector<E> entries(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) t.Init(&entries[static_cast<size_t>(i)], i);
  int below = 0;  // bits of the keys after the current one
  for (const auto& c : codes) below += c.width();
  int leading_low = below;  // bits below the first `leading` keys
  for (size_t k = 0; k < codes.size(); ++k) {
    below -= codes[k].width();
    if (static_cast<int>(k) == leading) leading_low = below + codes[k].width();
    if (codes[k].width() == 0) continue;
    for (int64_t i = 0; i < n; ++i) {
      t.Add(&entries[static_cast<size_t>(i)], codes[k].Of(i), below);
    }
  }
  if (leading >= static_cast<int>(codes.size())) leading_low = 0;
  SortBothCores(&entries);
  if (boundaries != nullptr) {
    boundaries->leading = Starts(entries, t, leading_low);
    if (boundaries->want_all) boundaries->all = Starts(entries, t, 0);
  }
  // The row numbers overwrite the sorted entries from the front (row i lands in bytes
  // [8i, 8i + 8), inside entries already read), so no second array is touched; the
  // buffer keeps the entries' memory.
  auto* bytes = reinterpret_cast<unsigned char*>(entries.data());
  for (size_t i = 0; i < entries.size(); ++i) {
    const uint64_t row = t.Row(entries[i]);
    std::memcpy(bytes + i * sizeof(uint64_t), &row, sizeof(row));
  }
  auto buffer = std::make_shared<VectorBuffer<E>>(std::move(entries), n * 8);
  return std::make_shared<arrow::UInt64Array>(n, std::move(buffer));
}

}  // namespace

Result<std::shared_ptr<arrow::Array>> PackedSortIndices(
    const std::shared_ptr<arrow::Table>& table, const std::vector<SortKeySpec>& keys,
    int leading, SortBoundaries* boundaries) {
  std::vector<KeyCode> codes;
  int total = 0;
  for (const auto& k : keys) {
    const auto& column = table->column(k.column);
    std::shared_ptr<arrow::Array> array;
    if (column->num_chunks() == 1) {
      array = column->chunk(0);
    } else if (TypeBits(column->type()->id()) != 0) {
      DELTA_ARROW_ASSIGN_OR_RETURN(array, arrow::Concatenate(column->chunks()),
                                   ErrorCode::kInternal, "sort");
    } else {
      return std::shared_ptr<arrow::Array>();
    }
    auto code = KeyCode::Make(array->data(), k);
    if (!code) return std::shared_ptr<arrow::Array>();
    total += code->width();
    if (total > 128) return std::shared_ptr<arrow::Array>();
    codes.push_back(std::move(*code));
  }
  const int64_t n = table->num_rows();
  Traits t;
  t.row_bits = std::max(BitWidth(static_cast<uint64_t>(std::max<int64_t>(n, 1) - 1)), 1);
  if (total + t.row_bits <= 64)
    return PackAndSort<Word>(codes, n, t, leading, boundaries);
  if (total <= 64) return PackAndSort<KeyRow>(codes, n, t, leading, boundaries);
  return PackAndSort<WideRow>(codes, n, t, leading, boundaries);
}

}  // namespace deltaguard::query_internal
