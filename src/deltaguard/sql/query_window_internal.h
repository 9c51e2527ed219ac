/// \file deltaguard/sql/query_window_internal.h
/// The window stage's pieces shared by its files: the rows in window order
/// (query_window_exec.cc) and the functions over frames (query_window_frames.cc).
/// Internal to sql/.
#pragma once

#include <arrow/api.h>

#include <memory>
#include <string>
#include <vector>

#include "deltaguard/arrow/status.h"
#include "deltaguard/sql/query_internal.h"

namespace deltaguard::query_internal {

using ArrayRef = std::shared_ptr<arrow::Array>;

// Row numbers in window order, read in place from the sort's indices (no copy).
struct RowView {
  const int64_t* data = nullptr;
  size_t count = 0;
  int64_t operator[](int64_t i) const { return data[i]; }
  size_t size() const { return count; }
};

// The rows in window order, with partition and peer-group starts (each list ends with
// the row count; a partition always starts a peer group).
struct Layout {
  RowView rows;
  std::vector<int64_t> own_rows;          ///< input order, when nothing is sorted
  std::shared_ptr<arrow::Array> indices;  ///< `rows` for Take; null: input order
  std::vector<int64_t> partitions;
  /// Empty when no call over the layout reads peer groups (row_number, lag/lead,
  /// ntile and ROWS frames): each partition is then walked as one group.
  std::vector<int64_t> peers;
  std::vector<ArrayRef> order_keys;  ///< evaluated, in input order
  /// Results in window order (the stage then emits its rows in that order) instead
  /// of at each row's input position.
  bool window_order = false;
  /// Where the result of window position i goes.
  int64_t Slot(int64_t i) const { return window_order ? i : rows[i]; }
};

// One sorted position: its partition [ps, pe), its peer group [gs, ge), and the
// number of peer groups before it in the partition.
struct Position {
  int64_t i, ps, pe, gs, ge, peer_rank;
};

template <typename Fn>
Status ForEachPosition(const Layout& layout, Fn&& fn) {
  const std::vector<int64_t>& peers =
      layout.peers.empty() ? layout.partitions : layout.peers;
  size_t g = 0;
  for (size_t p = 0; p + 1 < layout.partitions.size(); ++p) {
    const int64_t ps = layout.partitions[p];
    const int64_t pe = layout.partitions[p + 1];
    const size_t first_peer = g;
    for (int64_t i = ps; i < pe; ++i) {
      if (peers[g + 1] <= i) ++g;
      Position pos{i,        ps,           pe,
                   peers[g], peers[g + 1], static_cast<int64_t>(g - first_peer)};
      DELTA_RETURN_IF_ERROR(fn(pos));
    }
    ++g;  // the next partition starts a peer group
  }
  return OkStatus();
}

struct CallContext {
  const WindowCall& call;
  const Layout& layout;
  std::vector<ArrayRef> args;  ///< evaluated, input order
  std::string what;            ///< "rank()" for messages
  int64_t n = 0;
};

/// `values` (in input order) in window order.
Result<ArrayRef> InWindowOrder(const Layout& layout, const ArrayRef& values);

/// Gathers `source` at the input rows in `index` (-1: NULL).
Result<ArrayRef> Gather(const ArrayRef& source, const std::vector<int64_t>& index,
                        const std::string& what);

// Output columns, indexed by input row.
template <typename BuilderT, typename T>
Result<ArrayRef> BuildArray(const std::vector<T>& values,
                            const std::vector<uint8_t>* valid, const std::string& what) {
  BuilderT builder;
  arrow::Status st =
      builder.AppendValues(values.data(), static_cast<int64_t>(values.size()),
                           valid == nullptr ? nullptr : valid->data());
  DELTA_ARROW_RETURN_NOT_OK(st, ErrorCode::kInternal, what);
  DELTA_ARROW_ASSIGN_OR_RETURN(ArrayRef out, builder.Finish(), ErrorCode::kInternal,
                               what);
  return out;
}

// A numeric output column over the vector's own memory (no copy); `valid` (one byte
// per row, null: every row valid) becomes its validity bitmap.
template <typename ArrowType, typename T>
Result<ArrayRef> VectorArray(std::vector<T>&& values, const std::vector<uint8_t>* valid,
                             const std::string& what) {
  static_assert(sizeof(T) == sizeof(typename ArrowType::c_type));
  const auto n = static_cast<int64_t>(values.size());
  std::shared_ptr<arrow::Buffer> bitmap;
  int64_t nulls = 0;
  if (valid != nullptr) {
    for (uint8_t v : *valid) nulls += v == 0 ? 1 : 0;
  }
  if (nulls > 0) {
    DELTA_ARROW_ASSIGN_OR_RETURN(bitmap, arrow::AllocateEmptyBitmap(n),
                                 ErrorCode::kInternal, what);
    uint8_t* bits = bitmap->mutable_data();
    for (int64_t i = 0; i < n; ++i) {
      if ((*valid)[static_cast<size_t>(i)] != 0) arrow::bit_util::SetBit(bits, i);
    }
  }
  auto data = arrow::ArrayData::Make(
      arrow::TypeTraits<ArrowType>::type_singleton(), n,
      {std::move(bitmap), arrow::Buffer::FromVector(std::move(values))}, nulls);
  return arrow::MakeArray(data);
}

/// count/sum/avg/min/max, first/last/nth_value and any_value over each row's frame
/// (query_window_frames.cc).
Result<ArrayRef> FrameFunction(const CallContext& c);

}  // namespace deltaguard::query_internal
