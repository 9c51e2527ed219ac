/// \file deltaguard/sql/query_join_dense_internal.h
/// One integer join key over a dense range, looked up by offset instead of hashed
/// (query_join_exec.cc; docs/sql.md "Joins"). Internal to sql/.
#pragma once

#include <arrow/api.h>
#include <arrow/util/bit_util.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "deltaguard/arrow/status.h"
#include "deltaguard/util/result.h"

namespace deltaguard::query_internal {

// A join's keys when they are one integer column whose right values span a dense
// range: a key's offset from the smallest right key is its group, so neither side is
// hashed (the perfect hash join of DuckDB and others). Qualifies when the range is at
// most four times the right rows (plus 64k): the group table then costs no more than
// a few bytes per right row.
class DenseKeys {
 public:
  static std::optional<DenseKeys> Make(const arrow::Array& keys) {
    if (!Integral(keys.type_id()) || keys.length() == keys.null_count()) return {};
    int64_t lo = INT64_MAX;
    int64_t hi = INT64_MIN;
    for (int64_t i = 0; i < keys.length(); ++i) {
      if (keys.IsNull(i)) continue;
      const int64_t v = At(keys, i);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    const auto range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    if (range >= static_cast<uint64_t>(4 * keys.length() + (1 << 16))) return {};
    return DenseKeys(lo, static_cast<int64_t>(range) + 1);
  }

  int64_t groups() const { return groups_; }

  // Calls fn(row, group) for each row of `keys`: the key's offset from the smallest
  // right key, which is >= groups() for a NULL key or one outside the range. Reads the
  // keys in place (no group array), for the probe's fused loops.
  template <typename Fn>
  void Visit(const arrow::Array& keys, Fn&& fn) const {
    const arrow::ArrayData& d = *keys.data();
    switch (keys.type_id()) {
      case arrow::Type::INT8:
        return VisitAs(d.GetValues<int8_t>(1), d, fn);
      case arrow::Type::INT16:
        return VisitAs(d.GetValues<int16_t>(1), d, fn);
      case arrow::Type::INT32:
      case arrow::Type::DATE32:
        return VisitAs(d.GetValues<int32_t>(1), d, fn);
      default:
        return VisitAs(d.GetValues<int64_t>(1), d, fn);
    }
  }

  // Each row's group; NULL for a NULL key or one outside the right keys' range.
  Result<std::shared_ptr<arrow::UInt32Array>> Lookup(const arrow::Array& keys) const {
    const int64_t n = keys.length();
    std::vector<uint32_t> ids(static_cast<size_t>(n), 0);
    DELTA_ARROW_ASSIGN_OR_RETURN(auto valid, arrow::AllocateEmptyBitmap(n),
                                 ErrorCode::kInternal, "JOIN keys");
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t at = keys.IsNull(i) ? UINT64_MAX
                                         : static_cast<uint64_t>(At(keys, i)) -
                                               static_cast<uint64_t>(min_);
      if (at < static_cast<uint64_t>(groups_)) {
        ids[static_cast<size_t>(i)] = static_cast<uint32_t>(at);
        arrow::bit_util::SetBit(valid->mutable_data(), i);
      } else {
        ++nulls;
      }
    }
    return std::make_shared<arrow::UInt32Array>(
        n, arrow::Buffer::FromVector(std::move(ids)), std::move(valid), nulls);
  }

 private:
  DenseKeys(int64_t min, int64_t groups) : min_(min), groups_(groups) {}

  static bool Integral(arrow::Type::type id) {
    return id == arrow::Type::INT8 || id == arrow::Type::INT16 ||
           id == arrow::Type::INT32 || id == arrow::Type::INT64 ||
           id == arrow::Type::DATE32;
  }
  template <typename T, typename Fn>
  void VisitAs(const T* values, const arrow::ArrayData& d, Fn& fn) const {
    const uint8_t* valid =
        d.GetNullCount() > 0 && d.buffers[0] != nullptr ? d.buffers[0]->data() : nullptr;
    const auto min = static_cast<uint64_t>(min_);
    for (int64_t i = 0; i < d.length; ++i) {
      const bool null = valid != nullptr && !arrow::bit_util::GetBit(valid, d.offset + i);
      fn(i, null ? UINT64_MAX : static_cast<uint64_t>(int64_t{values[i]}) - min);
    }
  }

  static int64_t At(const arrow::Array& a, int64_t i) {
    const arrow::ArrayData& d = *a.data();
    switch (a.type_id()) {
      case arrow::Type::INT8:
        return d.GetValues<int8_t>(1)[i];
      case arrow::Type::INT16:
        return d.GetValues<int16_t>(1)[i];
      case arrow::Type::INT32:
      case arrow::Type::DATE32:
        return d.GetValues<int32_t>(1)[i];
      default:
        return d.GetValues<int64_t>(1)[i];
    }
  }

  int64_t min_;
  int64_t groups_;
};

}  // namespace deltaguard::query_internal
