// A fast path of SortIndices for the common window and ORDER BY keys: integers, dates
// and timestamps without NULLs. Each row's keys are packed, order-preserving, into at
// most two 64-bit words (sign bit flipped, all bits inverted for DESC), and the
// (words, row) entries are sorted with std::sort on both cores (two halves, then a
// merge). The row number breaks ties, so the sort is stable like Arrow's. Sorted rows
// are read back a slice of row numbers at a time (SortedReader), so ORDER BY streams
// its output instead of building a sorted copy of its input.

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <optional>
#include <thread>
#include <vector>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/spill_memory_pool.h"
#include "deltaguard/sql/query_internal.h"

namespace deltaguard::query_internal {

namespace {

struct Entry {
  uint64_t hi = 0;
  uint64_t lo = 0;
  uint64_t row = 0;
  bool operator<(const Entry& o) const {
    if (hi != o.hi) return hi < o.hi;
    if (lo != o.lo) return lo < o.lo;
    return row < o.row;
  }
};

int KeyBits(arrow::Type::type id) {
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

int64_t SignedAt(const arrow::ArrayData& d, int bits, int64_t i) {
  switch (bits) {
    case 8:
      return d.GetValues<int8_t>(1)[i];
    case 16:
      return d.GetValues<int16_t>(1)[i];
    case 32:
      return d.GetValues<int32_t>(1)[i];
    default:
      return d.GetValues<int64_t>(1)[i];
  }
}

// The varying word of the entries' keys, rebased to start at 0: the first word when
// it varies, else the second; nullopt when every key is equal.
struct RadixKey {
  bool hi = true;
  uint64_t base = 0;
  int bits = 0;  // significant bits of (word - base)
  uint64_t Of(const Entry& x) const { return (hi ? x.hi : x.lo) - base; }
};

std::optional<RadixKey> FindRadixKey(const std::vector<Entry>& e) {
  uint64_t min_hi = UINT64_MAX, max_hi = 0, min_lo = UINT64_MAX, max_lo = 0;
  for (const auto& x : e) {
    min_hi = std::min(min_hi, x.hi);
    max_hi = std::max(max_hi, x.hi);
    min_lo = std::min(min_lo, x.lo);
    max_lo = std::max(max_lo, x.lo);
  }
  RadixKey k;
  k.hi = max_hi != min_hi;
  if (!k.hi && max_lo == min_lo) return std::nullopt;
  k.base = k.hi ? min_hi : min_lo;
  k.bits = 64 - __builtin_clzll(k.hi ? max_hi - min_hi : max_lo - min_lo);
  return k;
}

// Deals [begin, end) in place by the 8-bit digit of the radix key at `shift` (an
// American flag sort pass: 256 write positions stay in cache); bucket d is then
// [bounds[d], bounds[d + 1]).
void DealByDigit(Entry* begin, Entry* end, const RadixKey& key, int shift,
                 size_t (&bounds)[257]) {
  auto digit = [&](const Entry& x) { return (key.Of(x) >> shift) & 255; };
  std::fill(bounds, bounds + 257, size_t{0});
  for (Entry* x = begin; x != end; ++x) ++bounds[digit(*x) + 1];
  for (int d = 1; d <= 256; ++d) bounds[d] += bounds[d - 1];
  size_t next[256];
  std::copy(bounds, bounds + 256, next);
  for (size_t d = 0; d < 256; ++d) {
    while (next[d] < bounds[d + 1]) {
      Entry v = begin[next[d]];
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
void FlagSort(Entry* begin, Entry* end, const RadixKey& key, int top) {
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

// The rows of `entries` in sorted order: a first radix pass on this thread, then its
// 256 buckets sorted on two threads (each a run of buckets holding about half the
// entries).
std::vector<uint64_t> SortBothCores(std::vector<Entry>* entries) {
  auto& e = *entries;
  std::vector<uint64_t> rows(e.size());
  const auto key = FindRadixKey(e);
  if (e.size() < (1u << 16) || !key) {
    std::sort(e.begin(), e.end());  // small, or one key (the row numbers decide)
  } else {
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
  for (size_t i = 0; i < e.size(); ++i) rows[i] = e[i].row;
  return rows;
}

// The sorted rows, one slice of the row numbers at a time; `pool` (when not null) owns
// the combined columns' buffers and is declared first, so it goes after them.
class SortedSliceReader final : public arrow::RecordBatchReader {
 public:
  static constexpr int64_t kRows = 1 << 16;

  SortedSliceReader(std::unique_ptr<SpillMemoryPool> pool,
                    std::shared_ptr<arrow::Schema> schema,
                    std::vector<std::shared_ptr<arrow::Array>> columns,
                    std::shared_ptr<arrow::Array> indices)
      : pool_(std::move(pool)),
        schema_(std::move(schema)),
        columns_(std::move(columns)),
        indices_(std::move(indices)) {}

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    *out = nullptr;
    if (next_ >= indices_->length()) return arrow::Status::OK();
    const int64_t n = std::min(kRows, indices_->length() - next_);
    auto slice = indices_->Slice(next_, n);
    next_ += n;
    std::vector<std::shared_ptr<arrow::Array>> taken;
    for (const auto& c : columns_) {
      ARROW_ASSIGN_OR_RAISE(arrow::Datum d, arrow::compute::Take(c, slice));
      taken.push_back(d.make_array());
    }
    *out = arrow::RecordBatch::Make(schema_, n, std::move(taken));
    return arrow::Status::OK();
  }

 private:
  std::unique_ptr<SpillMemoryPool> pool_;
  std::shared_ptr<arrow::Schema> schema_;
  std::vector<std::shared_ptr<arrow::Array>> columns_;
  std::shared_ptr<arrow::Array> indices_;
  int64_t next_ = 0;
};

}  // namespace

Result<ReaderRef> SortedReader(const std::shared_ptr<arrow::Table>& table,
                               const std::vector<SortKeySpec>& keys, int visible,
                               std::optional<int64_t> limit,
                               const QueryMemoryRef& spilled) {
  std::shared_ptr<arrow::Array> indices;
  if (table->num_rows() <= 1) {
    indices = std::make_shared<arrow::UInt64Array>(
        table->num_rows(),
        arrow::Buffer::FromVector(std::vector<uint64_t>(table->num_rows() == 1 ? 1 : 0)));
  } else {
    DELTA_ASSIGN_OR_RETURN(indices, SortIndices(table, keys));
  }
  if (limit && *limit < indices->length()) indices = indices->Slice(0, *limit);
  // Rows that came from a spill file are combined into file-backed memory, which the
  // kernel writes back and drops under pressure (exec/spill_memory_pool.h).
  std::unique_ptr<SpillMemoryPool> pool;
  if (spilled != nullptr) {
    DELTA_ASSIGN_OR_RETURN(pool, SpillMemoryPool::Make(spilled->spill_dir()));
  }
  std::vector<std::shared_ptr<arrow::Field>> fields;
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int c = 0; c < visible; ++c) {
    fields.push_back(table->schema()->field(c));
    const auto& chunks = table->column(c)->chunks();
    if (chunks.size() == 1) {
      columns.push_back(chunks[0]);
      continue;
    }
    std::shared_ptr<arrow::Array> combined;
    if (chunks.empty()) {
      DELTA_ARROW_ASSIGN_OR_RETURN(
          combined, arrow::MakeEmptyArray(table->schema()->field(c)->type()),
          ErrorCode::kInternal, "ORDER BY");
    } else {
      DELTA_ARROW_ASSIGN_OR_RETURN(
          combined,
          arrow::Concatenate(chunks, pool ? pool.get() : arrow::default_memory_pool()),
          ErrorCode::kInternal, "ORDER BY");
    }
    columns.push_back(std::move(combined));
  }
  return ReaderRef(std::make_shared<SortedSliceReader>(
      std::move(pool), arrow::schema(std::move(fields)), std::move(columns),
      std::move(indices)));
}

Result<std::shared_ptr<arrow::Array>> PackedSortIndices(
    const std::shared_ptr<arrow::Table>& table, const std::vector<SortKeySpec>& keys) {
  struct Key {
    std::shared_ptr<arrow::ArrayData> data;
    int bits = 0;
    bool descending = false;
    int word = 0;   // 0: hi, 1: lo
    int shift = 0;  // position of the key's lowest bit in its word
  };
  std::vector<Key> packed;
  int word = 0;
  int used = 0;
  for (const auto& k : keys) {
    const auto& column = table->column(k.column);
    const int bits = KeyBits(column->type()->id());
    if (bits == 0 || column->null_count() > 0) return std::shared_ptr<arrow::Array>();
    if (used + bits > 64) {
      ++word;
      used = 0;
    }
    if (word > 1) return std::shared_ptr<arrow::Array>();
    std::shared_ptr<arrow::Array> array;
    if (column->num_chunks() == 1) {
      array = column->chunk(0);
    } else {
      DELTA_ARROW_ASSIGN_OR_RETURN(array, arrow::Concatenate(column->chunks()),
                                   ErrorCode::kInternal, "sort");
    }
    used += bits;
    packed.push_back({array->data(), bits, k.descending, word, 64 - used});
  }
  const int64_t n = table->num_rows();
  std::vector<Entry> entries(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) entries[static_cast<size_t>(i)].row = i;
  for (const auto& k : packed) {
    const uint64_t mask = k.bits == 64 ? ~uint64_t{0} : (uint64_t{1} << k.bits) - 1;
    const uint64_t sign = uint64_t{1} << (k.bits - 1);
    for (int64_t i = 0; i < n; ++i) {
      uint64_t u = (static_cast<uint64_t>(SignedAt(*k.data, k.bits, i)) & mask) ^ sign;
      if (k.descending) u = ~u & mask;
      Entry& e = entries[static_cast<size_t>(i)];
      (k.word == 0 ? e.hi : e.lo) |= u << k.shift;
    }
  }
  std::vector<uint64_t> rows = SortBothCores(&entries);
  entries = {};
  return std::shared_ptr<arrow::Array>(std::make_shared<arrow::UInt64Array>(
      n, arrow::Buffer::FromVector(std::move(rows))));
}

}  // namespace deltaguard::query_internal
