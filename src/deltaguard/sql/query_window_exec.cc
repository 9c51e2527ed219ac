// Window functions, execution: the layout and the functions of positions (ranking,
// lag/lead); functions over frames are in query_window_frames.cc. The stage holds its
// input (the rows after WHERE, or the groups after HAVING), sorts row numbers by
// (partition keys, order keys) once per distinct window, finds the partitions and the
// peer groups (rows equal on every order key) in that order, and computes each call per
// sorted position:
//  - ranking and offset functions from positions alone;
//  - frame functions over [lo, hi) of the frame (ROWS by position, RANGE by value or
//    peers): count/sum/avg from per-partition prefix sums (exact: 128-bit for integers
//    and decimals; doubles are added in frame order as Spark's frames add them),
//    min/max and first/last/nth_value by row index, then gathered with Take so any
//    type keeps its exact Arrow type.
// Results are written at each row's input position, so the stage keeps row order.

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <numeric>
#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/sql/query_window_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::query_internal {

namespace {

struct KeyColumn {
  ArrayRef array;
  Comparator compare = nullptr;
};

bool SameKey(const KeyColumn& k, int64_t a, int64_t b) {
  const bool na = k.array->IsNull(a);
  const bool nb = k.array->IsNull(b);
  if (na || nb) return na && nb;
  return k.compare(*k.array, a, *k.array, b) == 0;
}

Result<KeyColumn> EvaluateKey(const BoundExpr& e, const arrow::RecordBatch& batch,
                              const EvalOptions& eval) {
  KeyColumn k;
  DELTA_ASSIGN_OR_RETURN(k.array, Evaluate(e, batch, eval));
  DELTA_ASSIGN_OR_RETURN(k.compare, ComparatorFor(*k.array->type(), "a window key"));
  return k;
}

Result<Layout> MakeLayout(const arrow::RecordBatch& batch, const WindowCall& call,
                          bool need_peers, const EvalOptions& eval) {
  const int64_t n = batch.num_rows();
  std::vector<KeyColumn> part;
  std::vector<KeyColumn> order;
  std::vector<std::shared_ptr<arrow::Field>> fields;
  std::vector<ArrayRef> columns;
  std::vector<SortKeySpec> keys;
  auto add = [&](const KeyColumn& k, SortKeySpec spec) {
    spec.column = static_cast<int>(columns.size());
    fields.push_back(arrow::field("k" + std::to_string(columns.size()), k.array->type()));
    columns.push_back(k.array);
    keys.push_back(spec);
  };
  for (const auto& p : call.partition) {
    DELTA_ASSIGN_OR_RETURN(KeyColumn k, EvaluateKey(*p, batch, eval));
    add(k, SortKeySpec{});
    part.push_back(std::move(k));
  }
  for (size_t i = 0; i < call.order.size(); ++i) {
    DELTA_ASSIGN_OR_RETURN(KeyColumn k, EvaluateKey(*call.order[i], batch, eval));
    add(k, call.order_dirs[i]);
    order.push_back(std::move(k));
  }
  Layout out;
  for (const auto& k : order) out.order_keys.push_back(k.array);
  if (keys.empty() || n <= 1) {
    out.own_rows.resize(static_cast<size_t>(n));
    std::iota(out.own_rows.begin(), out.own_rows.end(), 0);
    out.rows = {out.own_rows.data(), out.own_rows.size()};
  } else {
    auto table = arrow::Table::Make(arrow::schema(fields), columns, n);
    // Integer keys: the packed sort finds the partitions and peer groups from its
    // codes, without reading the keys again.
    SortBoundaries bounds;
    bounds.want_all = need_peers;
    DELTA_ASSIGN_OR_RETURN(
        out.indices,
        PackedSortIndices(table, keys, static_cast<int>(part.size()), &bounds));
    if (out.indices != nullptr) {
      out.partitions = std::move(bounds.leading);
      out.peers = std::move(bounds.all);
    } else {
      DELTA_ASSIGN_OR_RETURN(out.indices, SortIndices(table, keys));
    }
    // UInt64 indices below 2^63: the same bits as int64.
    const auto* idx = static_cast<const arrow::UInt64Array&>(*out.indices).raw_values();
    out.rows = {reinterpret_cast<const int64_t*>(idx), static_cast<size_t>(n)};
    if (!out.partitions.empty()) return out;
    // Keys gathered in window order once (independent loads the CPU overlaps), then
    // compared neighbour to neighbour sequentially.
    for (auto* group : {&part, &order}) {
      for (auto& k : *group) {
        DELTA_ASSIGN_OR_RETURN(k.array, InWindowOrder(out, k.array));
      }
    }
  }
  out.partitions.reserve(static_cast<size_t>(n) + 1);  // untouched pages cost nothing
  if (need_peers) out.peers.reserve(static_cast<size_t>(n) + 1);
  for (int64_t i = 0; i < n; ++i) {
    bool new_partition = i == 0;
    for (size_t k = 0; k < part.size() && !new_partition; ++k) {
      new_partition = !SameKey(part[k], i - 1, i);
    }
    if (new_partition) out.partitions.push_back(i);
    if (!need_peers) continue;
    bool new_peer = new_partition;
    for (size_t k = 0; k < order.size() && !new_peer; ++k) {
      new_peer = !SameKey(order[k], i - 1, i);
    }
    if (new_peer) out.peers.push_back(i);
  }
  out.partitions.push_back(n);
  if (need_peers) out.peers.push_back(n);
  return out;
}

// Whether the call reads peer groups (rows equal on every ORDER BY key).
bool NeedsPeers(const WindowCall& call) {
  const std::string& fn = call.name;
  if (fn == "rank" || fn == "dense_rank" || fn == "percent_rank" || fn == "cume_dist") {
    return true;
  }
  return !IsRankingWindowFunction(fn) && !call.frame.rows;
}

bool SameWindow(const WindowCall& a, const WindowCall& b) {
  if (a.partition.size() != b.partition.size() || a.order.size() != b.order.size()) {
    return false;
  }
  for (size_t i = 0; i < a.partition.size(); ++i) {
    if (!SameBound(*a.partition[i], *b.partition[i])) return false;
  }
  for (size_t i = 0; i < a.order.size(); ++i) {
    if (!SameBound(*a.order[i], *b.order[i]) ||
        a.order_dirs[i].descending != b.order_dirs[i].descending ||
        a.order_dirs[i].nulls_first != b.order_dirs[i].nulls_first) {
      return false;
    }
  }
  return true;
}

Result<ArrayRef> Ranking(const CallContext& c) {
  // The function, resolved once: the loop runs per row.
  enum class Fn { kRowNumber, kRank, kDenseRank, kPercentRank, kCumeDist, kNtile };
  const std::string& name = c.call.name;
  const Fn fn = name == "row_number"     ? Fn::kRowNumber
                : name == "rank"         ? Fn::kRank
                : name == "dense_rank"   ? Fn::kDenseRank
                : name == "percent_rank" ? Fn::kPercentRank
                : name == "cume_dist"    ? Fn::kCumeDist
                                         : Fn::kNtile;
  std::vector<int32_t> ints;
  std::vector<double> doubles;
  if (fn == Fn::kPercentRank || fn == Fn::kCumeDist) {
    doubles.resize(static_cast<size_t>(c.n));
  } else {
    ints.resize(static_cast<size_t>(c.n));
  }
  if (fn == Fn::kRowNumber) {  // a dedup's row_number: partitions alone, no peers
    const std::vector<int64_t>& parts = c.layout.partitions;
    for (size_t k = 0; k + 1 < parts.size(); ++k) {
      for (int64_t i = parts[k]; i < parts[k + 1]; ++i) {
        ints[c.layout.Slot(i)] = static_cast<int32_t>(i - parts[k] + 1);
      }
    }
    return VectorArray<arrow::Int32Type>(std::move(ints), nullptr, c.what);
  }
  DELTA_RETURN_IF_ERROR(ForEachPosition(c.layout, [&](const Position& p) -> Status {
    const int64_t row = c.layout.Slot(p.i);
    const int64_t size = p.pe - p.ps;
    switch (fn) {
      case Fn::kRowNumber:
        ints[row] = static_cast<int32_t>(p.i - p.ps + 1);
        break;
      case Fn::kRank:
        ints[row] = static_cast<int32_t>(p.gs - p.ps + 1);
        break;
      case Fn::kDenseRank:
        ints[row] = static_cast<int32_t>(p.peer_rank + 1);
        break;
      case Fn::kPercentRank:
        doubles[row] =
            size <= 1 ? 0.0
                      : static_cast<double>(p.gs - p.ps) / static_cast<double>(size - 1);
        break;
      case Fn::kCumeDist:
        doubles[row] = static_cast<double>(p.ge - p.ps) / static_cast<double>(size);
        break;
      case Fn::kNtile: {  // the first size % n buckets hold one row more
        const int64_t buckets = c.call.offset;
        const int64_t base = size / buckets;
        const int64_t extra = size % buckets;
        const int64_t r = p.i - p.ps;
        const int64_t big = extra * (base + 1);
        ints[row] = static_cast<int32_t>(
            r < big ? r / (base + 1) + 1
                    : (r - big) / std::max<int64_t>(base, 1) + extra + 1);
        break;
      }
    }
    return OkStatus();
  }));
  if (fn == Fn::kPercentRank || fn == Fn::kCumeDist) {
    return VectorArray<arrow::DoubleType>(std::move(doubles), nullptr, c.what);
  }
  return VectorArray<arrow::Int32Type>(std::move(ints), nullptr, c.what);
}

// lag/lead: the value `offset` rows before/after in the partition, else the default.
Result<ArrayRef> Offset(const CallContext& c) {
  const int64_t step = c.call.name == "lag" ? -c.call.offset : c.call.offset;
  const arrow::Array& values = *c.args[0];
  std::vector<int64_t> source(static_cast<size_t>(c.n), -1);
  std::vector<uint8_t> use_default(static_cast<size_t>(c.n), 0);
  std::vector<int64_t> non_null;  // IGNORE NULLS: positions of non-NULL values
  int64_t current_ps = -1;
  DELTA_RETURN_IF_ERROR(ForEachPosition(c.layout, [&](const Position& p) -> Status {
    const int64_t row = c.layout.Slot(p.i);
    int64_t target = -1;
    if (!c.call.ignore_nulls) {
      if (p.i + step >= p.ps && p.i + step < p.pe) target = p.i + step;
    } else {
      if (p.ps != current_ps) {
        current_ps = p.ps;
        non_null.clear();
        for (int64_t j = p.ps; j < p.pe; ++j) {
          if (values.IsValid(c.layout.rows[j])) non_null.push_back(j);
        }
      }
      // Non-NULL values strictly before (lag) or after (lead) the current row.
      auto before = std::lower_bound(non_null.begin(), non_null.end(), p.i);
      auto after = std::upper_bound(non_null.begin(), non_null.end(), p.i);
      const int64_t k = step < 0 ? (before - non_null.begin()) + step
                                 : (after - non_null.begin()) + step - 1;
      if (step == 0) {
        target = p.i;
      } else if (k >= 0 && k < static_cast<int64_t>(non_null.size())) {
        target = non_null[static_cast<size_t>(k)];
      }
    }
    if (target >= 0) {
      source[row] = c.layout.rows[target];
    } else {
      use_default[row] = 1;
    }
    return OkStatus();
  }));
  DELTA_ASSIGN_OR_RETURN(ArrayRef taken, Gather(c.args[0], source, c.what));
  if (c.args.size() < 3) return taken;
  DELTA_ASSIGN_OR_RETURN(
      ArrayRef mask, (BuildArray<arrow::BooleanBuilder>(use_default, nullptr, c.what)));
  ArrayRef fallback = c.args[2];  // input order, like the results unless in window order
  if (c.layout.window_order) {
    DELTA_ASSIGN_OR_RETURN(fallback, InWindowOrder(c.layout, fallback));
  }
  DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum out,
                               arrow::compute::IfElse(mask, fallback, taken),
                               ErrorCode::kInternal, c.what);
  return out.make_array();
}

Result<ArrayRef> ComputeCall(const WindowCall& call, const Layout& layout,
                             const arrow::RecordBatch& batch, const EvalOptions& eval) {
  CallContext c{call, layout, {}, call.name + "()", batch.num_rows()};
  for (const auto& a : call.args) {
    DELTA_ASSIGN_OR_RETURN(ArrayRef v, Evaluate(*a, batch, eval));
    c.args.push_back(std::move(v));
  }
  if (call.name == "lag" || call.name == "lead") return Offset(c);
  if (IsRankingWindowFunction(call.name)) return Ranking(c);
  return FrameFunction(c);
}

}  // namespace

// `values` (in input order) in window order.
Result<ArrayRef> InWindowOrder(const Layout& layout, const ArrayRef& values) {
  if (layout.indices == nullptr) return values;
  DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum d,
                               arrow::compute::Take(values, layout.indices),
                               ErrorCode::kInternal, "window");
  return d.make_array();
}

// Gathers `source` at the input rows in `index` (-1: NULL).
Result<ArrayRef> Gather(const ArrayRef& source, const std::vector<int64_t>& index,
                        const std::string& what) {
  DELTA_ASSIGN_OR_RETURN(ArrayRef idx, IndexArray(index));
  DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum out, arrow::compute::Take(source, idx),
                               ErrorCode::kInternal, what);
  return out.make_array();
}

Result<BatchRef> ComputeWindows(const BatchRef& rows,
                                const std::vector<WindowCall>& calls,
                                const EvalOptions& eval,
                                const std::vector<std::string>* keep) {
  std::vector<Layout> layouts;
  std::vector<size_t> layout_of;  // per call
  for (size_t i = 0; i < calls.size(); ++i) {
    size_t j = 0;
    while (j < i && !SameWindow(calls[j], calls[i])) ++j;
    if (j < i) {
      layout_of.push_back(layout_of[j]);
      continue;
    }
    bool need_peers = false;
    for (const auto& other : calls) {
      need_peers = need_peers || (SameWindow(calls[i], other) && NeedsPeers(other));
    }
    DELTA_ASSIGN_OR_RETURN(Layout layout, MakeLayout(*rows, calls[i], need_peers, eval));
    layout_of.push_back(layouts.size());
    layouts.push_back(std::move(layout));
  }
  BatchRef out = rows;
  if (keep != nullptr && layouts.size() == 1 && layouts[0].indices != nullptr) {
    // Few columns read on: taking them into window order costs less than storing
    // each result at its input position, so results are written in order.
    std::vector<int> kept;
    for (int c = 0; c < rows->num_columns(); ++c) {
      bool named = false;
      for (const auto& k : *keep) {
        named = named || EqualsIgnoreCase(k, rows->schema()->field(c)->name());
      }
      if (named) kept.push_back(c);
    }
    if (kept.size() <= calls.size()) {
      layouts[0].window_order = true;
      std::vector<std::shared_ptr<arrow::Field>> fields;
      std::vector<ArrayRef> columns;
      for (int c : kept) {
        fields.push_back(rows->schema()->field(c));
        DELTA_ASSIGN_OR_RETURN(ArrayRef v, InWindowOrder(layouts[0], rows->column(c)));
        columns.push_back(std::move(v));
      }
      out = arrow::RecordBatch::Make(arrow::schema(std::move(fields)), rows->num_rows(),
                                     std::move(columns));
    }
  }
  for (size_t i = 0; i < calls.size(); ++i) {
    DELTA_ASSIGN_OR_RETURN(ArrayRef column,
                           ComputeCall(calls[i], layouts[layout_of[i]], *rows, eval));
    DELTA_ASSIGN_OR_RETURN(auto type, ToArrowType(*calls[i].type));
    if (!column->type()->Equals(*type)) {
      DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum cast, arrow::compute::Cast(column, type),
                                   ErrorCode::kInternal, calls[i].name + "()");
      column = cast.make_array();
    }
    DELTA_ARROW_ASSIGN_OR_RETURN(
        out,
        out->AddColumn(out->num_columns(),
                       arrow::field(WindowColumnName(i), type, calls[i].nullable),
                       column),
        ErrorCode::kInternal, "window stage");
  }
  return out;
}

}  // namespace deltaguard::query_internal
