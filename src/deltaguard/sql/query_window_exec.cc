// Window functions, execution. The stage holds its input (the rows after WHERE, or the
// groups after HAVING), sorts row numbers by (partition keys, order keys) once per
// distinct window, finds the partitions and the peer groups (rows equal on every order
// key) in that order, and computes each call per sorted position:
//  - ranking and offset functions from positions alone;
//  - frame functions over [lo, hi) of the frame (ROWS by position, RANGE by value or
//    peers): count/sum/avg from per-partition prefix sums (exact: 128-bit for integers
//    and decimals; doubles are added in frame order as Spark's frames add them),
//    min/max and first/last/nth_value by row index, then gathered with Take so any
//    type keeps its exact Arrow type.
// Results are written at each row's input position, so the stage keeps row order.

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/util/decimal.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/sql/query_internal.h"

namespace deltaguard::query_internal {

namespace {

using ArrayRef = std::shared_ptr<arrow::Array>;

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

// The rows in window order, with partition and peer-group starts (each list ends with
// the row count; a partition always starts a peer group).
// Row numbers in window order, read in place from the sort's indices (no copy).
struct RowView {
  const int64_t* data = nullptr;
  size_t count = 0;
  int64_t operator[](int64_t i) const { return data[i]; }
  size_t size() const { return count; }
};

struct Layout {
  RowView rows;
  std::vector<int64_t> own_rows;          ///< input order, when nothing is sorted
  std::shared_ptr<arrow::Array> indices;  ///< `rows` for Take; null: input order
  std::vector<int64_t> partitions;
  std::vector<int64_t> peers;
  std::vector<ArrayRef> sorted_order_keys;  ///< evaluated, in window order
};

// `values` (in input order) in window order.
Result<ArrayRef> InWindowOrder(const Layout& layout, const ArrayRef& values) {
  if (layout.indices == nullptr) return values;
  DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum d,
                               arrow::compute::Take(values, layout.indices),
                               ErrorCode::kInternal, "window");
  return d.make_array();
}

Result<KeyColumn> EvaluateKey(const BoundExpr& e, const arrow::RecordBatch& batch,
                              const EvalOptions& eval) {
  KeyColumn k;
  DELTA_ASSIGN_OR_RETURN(k.array, Evaluate(e, batch, eval));
  DELTA_ASSIGN_OR_RETURN(k.compare, ComparatorFor(*k.array->type(), "a window key"));
  return k;
}

Result<Layout> MakeLayout(const arrow::RecordBatch& batch, const WindowCall& call,
                          const EvalOptions& eval) {
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
  if (keys.empty() || n <= 1) {
    out.own_rows.resize(static_cast<size_t>(n));
    std::iota(out.own_rows.begin(), out.own_rows.end(), 0);
    out.rows = {out.own_rows.data(), out.own_rows.size()};
  } else {
    auto table = arrow::Table::Make(arrow::schema(fields), columns, n);
    DELTA_ASSIGN_OR_RETURN(out.indices, SortIndices(table, keys));
    // UInt64 indices below 2^63: the same bits as int64.
    const auto* idx = static_cast<const arrow::UInt64Array&>(*out.indices).raw_values();
    out.rows = {reinterpret_cast<const int64_t*>(idx), static_cast<size_t>(n)};
    // Keys gathered in window order once (independent loads the CPU overlaps), then
    // compared neighbour to neighbour sequentially.
    for (auto* group : {&part, &order}) {
      for (auto& k : *group) {
        DELTA_ASSIGN_OR_RETURN(k.array, InWindowOrder(out, k.array));
      }
    }
  }
  out.partitions.reserve(static_cast<size_t>(n) + 1);  // untouched pages cost nothing
  out.peers.reserve(static_cast<size_t>(n) + 1);
  for (int64_t i = 0; i < n; ++i) {
    bool new_partition = i == 0;
    for (size_t k = 0; k < part.size() && !new_partition; ++k) {
      new_partition = !SameKey(part[k], i - 1, i);
    }
    bool new_peer = new_partition;
    for (size_t k = 0; k < order.size() && !new_peer; ++k) {
      new_peer = !SameKey(order[k], i - 1, i);
    }
    if (new_partition) out.partitions.push_back(i);
    if (new_peer) out.peers.push_back(i);
  }
  out.partitions.push_back(n);
  out.peers.push_back(n);
  for (auto& k : order) out.sorted_order_keys.push_back(std::move(k.array));
  return out;
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

// One sorted position: its partition [ps, pe), its peer group [gs, ge), and the
// number of peer groups before it in the partition.
struct Position {
  int64_t i, ps, pe, gs, ge, peer_rank;
};

template <typename Fn>
Status ForEachPosition(const Layout& layout, Fn&& fn) {
  size_t g = 0;
  for (size_t p = 0; p + 1 < layout.partitions.size(); ++p) {
    const int64_t ps = layout.partitions[p];
    const int64_t pe = layout.partitions[p + 1];
    const size_t first_peer = g;
    for (int64_t i = ps; i < pe; ++i) {
      if (layout.peers[g + 1] <= i) ++g;
      Position pos{i,
                   ps,
                   pe,
                   layout.peers[g],
                   layout.peers[g + 1],
                   static_cast<int64_t>(g - first_peer)};
      DELTA_RETURN_IF_ERROR(fn(pos));
    }
    ++g;  // the next partition starts a peer group
  }
  return OkStatus();
}

// Order-key values for RANGE offsets, in window order, negated for DESC so they
// always increase; `valid` marks non-NULL keys.
struct RangeKeys {
  std::vector<double> values;
  std::vector<uint8_t> valid;
};

Result<RangeKeys> MakeRangeKeys(const Layout& layout, const WindowCall& call) {
  RangeKeys out;
  DELTA_ARROW_ASSIGN_OR_RETURN(
      arrow::Datum d, arrow::compute::Cast(layout.sorted_order_keys[0], arrow::float64()),
      ErrorCode::kInternal, "RANGE frame");
  const ArrayRef array = d.make_array();
  const auto& values = static_cast<const arrow::DoubleArray&>(*array);
  const double sign = call.order_dirs[0].descending ? -1.0 : 1.0;
  out.values.resize(layout.rows.size());
  out.valid.resize(layout.rows.size());
  for (size_t i = 0; i < layout.rows.size(); ++i) {
    const auto r = static_cast<int64_t>(i);
    out.valid[i] = values.IsValid(r);
    out.values[i] = out.valid[i] ? sign * values.Value(r) : 0.0;
  }
  return out;
}

// The frame [lo, hi) of a position (empty frames have lo == hi).
class FrameFinder {
 public:
  FrameFinder(const WindowFrameSpec& frame, const RangeKeys* keys)
      : f_(frame), keys_(keys) {}

  std::pair<int64_t, int64_t> Of(const Position& p) const {
    int64_t lo = f_.rows ? RowsBound(f_.start, f_.start_offset, p, false)
                         : RangeBound(f_.start, f_.start_offset, p, false);
    int64_t hi = f_.rows ? RowsBound(f_.end, f_.end_offset, p, true)
                         : RangeBound(f_.end, f_.end_offset, p, true);
    lo = std::clamp(lo, p.ps, p.pe);
    hi = std::clamp(hi, p.ps, p.pe);
    return {lo, std::max(lo, hi)};
  }

 private:
  int64_t RowsBound(FrameBoundKind kind, double offset, const Position& p,
                    bool end) const {
    const auto n = static_cast<int64_t>(offset);
    switch (kind) {
      case FrameBoundKind::kUnboundedPreceding:
        return p.ps;
      case FrameBoundKind::kUnboundedFollowing:
        return p.pe;
      case FrameBoundKind::kCurrentRow:
        return p.i + (end ? 1 : 0);
      case FrameBoundKind::kPreceding:
        return p.i - n + (end ? 1 : 0);
      case FrameBoundKind::kFollowing:
        return p.i + n + (end ? 1 : 0);
    }
    return p.i;
  }

  // RANGE: CURRENT ROW means the peers; offsets compare ORDER BY values, and a NULL
  // key's frame is its peer group (NULL +/- n is NULL, equal only to NULL).
  int64_t RangeBound(FrameBoundKind kind, double offset, const Position& p,
                     bool end) const {
    switch (kind) {
      case FrameBoundKind::kUnboundedPreceding:
        return p.ps;
      case FrameBoundKind::kUnboundedFollowing:
        return p.pe;
      case FrameBoundKind::kCurrentRow:
        return end ? p.ge : p.gs;
      default:
        break;
    }
    if (!keys_->valid[p.i]) return end ? p.ge : p.gs;
    const double target =
        keys_->values[p.i] + (kind == FrameBoundKind::kPreceding ? -offset : offset);
    // The non-NULL keys of the partition are one run (NULLs sort to one end).
    int64_t a = p.ps;
    int64_t b = p.pe;
    while (a < b && !keys_->valid[a]) ++a;
    while (b > a && !keys_->valid[b - 1]) --b;
    auto first = keys_->values.begin();
    if (end) {
      return std::upper_bound(first + a, first + b, target) - first;
    }
    return std::lower_bound(first + a, first + b, target) - first;
  }

  const WindowFrameSpec& f_;
  const RangeKeys* keys_;
};

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

// Gathers `source` at the input rows in `index` (-1: NULL).
Result<ArrayRef> Gather(const ArrayRef& source, const std::vector<int64_t>& index,
                        const std::string& what) {
  std::vector<uint8_t> valid(index.size());
  for (size_t i = 0; i < index.size(); ++i) valid[i] = index[i] >= 0;
  DELTA_ASSIGN_OR_RETURN(ArrayRef idx,
                         (BuildArray<arrow::Int64Builder>(index, &valid, what)));
  DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum out, arrow::compute::Take(source, idx),
                               ErrorCode::kInternal, what);
  return out.make_array();
}

struct CallContext {
  const WindowCall& call;
  const Layout& layout;
  std::vector<ArrayRef> args;  ///< evaluated, input order
  std::string what;            ///< "rank()" for messages
  int64_t n = 0;
};

Result<ArrayRef> Ranking(const CallContext& c) {
  const std::string& fn = c.call.name;
  std::vector<int32_t> ints(static_cast<size_t>(c.n));
  std::vector<double> doubles;
  if (fn == "percent_rank" || fn == "cume_dist") doubles.resize(ints.size());
  DELTA_RETURN_IF_ERROR(ForEachPosition(c.layout, [&](const Position& p) -> Status {
    const int64_t row = c.layout.rows[p.i];
    const int64_t size = p.pe - p.ps;
    if (fn == "row_number") {
      ints[row] = static_cast<int32_t>(p.i - p.ps + 1);
    } else if (fn == "rank") {
      ints[row] = static_cast<int32_t>(p.gs - p.ps + 1);
    } else if (fn == "dense_rank") {
      ints[row] = static_cast<int32_t>(p.peer_rank + 1);
    } else if (fn == "percent_rank") {
      doubles[row] =
          size <= 1 ? 0.0
                    : static_cast<double>(p.gs - p.ps) / static_cast<double>(size - 1);
    } else if (fn == "cume_dist") {
      doubles[row] = static_cast<double>(p.ge - p.ps) / static_cast<double>(size);
    } else {  // ntile: the first size % n buckets hold one row more
      const int64_t buckets = c.call.offset;
      const int64_t base = size / buckets;
      const int64_t extra = size % buckets;
      const int64_t r = p.i - p.ps;
      const int64_t big = extra * (base + 1);
      ints[row] = static_cast<int32_t>(r < big ? r / (base + 1) + 1
                                               : (r - big) / std::max<int64_t>(base, 1) +
                                                     extra + 1);
    }
    return OkStatus();
  }));
  if (!doubles.empty()) return BuildArray<arrow::DoubleBuilder>(doubles, nullptr, c.what);
  return BuildArray<arrow::Int32Builder>(ints, nullptr, c.what);
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
    const int64_t row = c.layout.rows[p.i];
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
  DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum out,
                               arrow::compute::IfElse(mask, c.args[2], taken),
                               ErrorCode::kInternal, c.what);
  return out.make_array();
}

// first_value/last_value/nth_value/min/max: the row whose value the frame yields.
Result<ArrayRef> PickInFrame(const CallContext& c, const FrameFinder& frames) {
  const std::string& fn = c.call.name;
  const arrow::Array& values = *c.args[0];
  const auto& rows = c.layout.rows;
  const bool extreme = fn == "min" || fn == "max";
  Comparator compare = nullptr;
  if (extreme) {
    DELTA_ASSIGN_OR_RETURN(compare, ComparatorFor(*values.type(), c.what));
  }
  auto better = [&](int64_t a, int64_t b) {  // a beats b (input rows; b may be -1)
    if (b < 0) return true;
    const int cmp = compare(values, a, values, b);
    return fn == "max" ? cmp > 0 : cmp < 0;
  };
  // Frames that start at the partition grow monotonically: extend the running best.
  const bool running = c.call.frame.start == FrameBoundKind::kUnboundedPreceding;
  int64_t best = -1;
  int64_t scanned = -1;
  std::vector<int64_t> source(static_cast<size_t>(c.n), -1);
  DELTA_RETURN_IF_ERROR(ForEachPosition(c.layout, [&](const Position& p) -> Status {
    auto [lo, hi] = frames.Of(p);
    int64_t pick = -1;
    if (extreme) {
      if (!running || p.i == p.ps) {
        best = -1;
        scanned = lo;
      }
      for (int64_t j = scanned; j < hi; ++j) {
        if (values.IsValid(rows[j]) && better(rows[j], best)) best = rows[j];
      }
      scanned = std::max(scanned, hi);
      pick = best;
    } else if (fn == "nth_value") {
      int64_t seen = 0;
      for (int64_t j = lo; j < hi && pick < 0; ++j) {
        if (c.call.ignore_nulls && values.IsNull(rows[j])) continue;
        if (++seen == c.call.offset) pick = rows[j];
      }
    } else if (fn == "last_value" || fn == "last") {
      for (int64_t j = hi - 1; j >= lo && pick < 0; --j) {
        if (!c.call.ignore_nulls || values.IsValid(rows[j])) pick = rows[j];
      }
    } else {  // first_value, first, any_value
      for (int64_t j = lo; j < hi && pick < 0; ++j) {
        if (!c.call.ignore_nulls || values.IsValid(rows[j])) pick = rows[j];
      }
    }
    source[rows[p.i]] = pick;
    return OkStatus();
  }));
  return Gather(c.args[0], source, c.what);
}

// count/sum/avg over frames, from per-partition prefix sums.
Result<ArrayRef> SumInFrame(const CallContext& c, const FrameFinder& frames) {
  const std::string& fn = c.call.name;
  const bool count = fn == "count";
  const bool average = fn == "avg" || fn == "mean";
  const DataType* arg_type = c.args.empty() ? nullptr : c.call.args[0]->type.get();
  const bool decimal =
      !count && arg_type != nullptr && arg_type->kind() == TypeKind::kDecimal;
  const bool integer =
      !count && arg_type != nullptr && arg_type->is_integral() && !average;
  // The arguments in window order: the prefix sums read them sequentially.
  std::vector<ArrayRef> args;
  for (const auto& a : c.args) {
    DELTA_ASSIGN_OR_RETURN(ArrayRef sorted, InWindowOrder(c.layout, a));
    args.push_back(std::move(sorted));
  }
  ArrayRef values;
  if (!count && !decimal) {
    DELTA_ARROW_ASSIGN_OR_RETURN(
        arrow::Datum d,
        arrow::compute::Cast(args[0], integer ? arrow::int64() : arrow::float64()),
        ErrorCode::kInternal, c.what);
    values = d.make_array();
  }
  auto valid_at = [&](int64_t position) {
    for (const auto& a : args) {
      if (a->IsNull(position)) return false;
    }
    return true;
  };
  const auto& rows = c.layout.rows;
  std::vector<int64_t> counts_prefix;
  std::vector<Int128> exact_prefix;
  std::vector<double> double_prefix;
  int64_t current_ps = -1;
  const auto n = static_cast<size_t>(c.n);
  std::vector<int64_t> out_count(count ? n : 0);
  std::vector<Int128> out_exact(decimal || integer ? n : 0);
  std::vector<double> out_double(!count && !decimal && !integer ? n : 0);
  std::vector<int64_t> out_n(n);
  DELTA_RETURN_IF_ERROR(ForEachPosition(c.layout, [&](const Position& p) -> Status {
    if (p.ps != current_ps) {  // prefix sums of this partition, [0] = 0
      current_ps = p.ps;
      const auto size = static_cast<size_t>(p.pe - p.ps);
      counts_prefix.assign(size + 1, 0);
      if (decimal || integer) exact_prefix.assign(size + 1, 0);
      if (!count && !decimal && !integer) double_prefix.assign(size + 1, 0.0);
      for (size_t k = 0; k < size; ++k) {
        const int64_t row = p.ps + static_cast<int64_t>(k);  // a window position
        const bool valid = valid_at(row);
        counts_prefix[k + 1] = counts_prefix[k] + (valid ? 1 : 0);
        if (decimal) {
          exact_prefix[k + 1] =
              exact_prefix[k] +
              (valid
                   ? DecimalAt(static_cast<const arrow::Decimal128Array&>(*args[0]), row)
                   : 0);
        } else if (integer) {
          exact_prefix[k + 1] =
              exact_prefix[k] +
              (valid ? static_cast<const arrow::Int64Array&>(*values).Value(row) : 0);
        } else if (!count) {
          double_prefix[k + 1] =
              double_prefix[k] +
              (valid ? static_cast<const arrow::DoubleArray&>(*values).Value(row) : 0.0);
        }
      }
    }
    auto [lo, hi] = frames.Of(p);
    const auto a = static_cast<size_t>(lo - p.ps);
    const auto b = static_cast<size_t>(hi - p.ps);
    const int64_t row = rows[p.i];
    const int64_t cnt = c.args.empty() ? hi - lo : counts_prefix[b] - counts_prefix[a];
    out_n[row] = cnt;
    if (count) {
      out_count[row] = cnt;
    } else if (decimal || integer) {
      out_exact[row] = exact_prefix[b] - exact_prefix[a];
    } else if (a == 0) {
      out_double[row] = double_prefix[b];  // the running sum, added in frame order
    } else {
      double sum = 0;  // a sliding frame: added afresh, as Spark's sliding frames do
      const auto& dv = static_cast<const arrow::DoubleArray&>(*values);
      for (int64_t j = lo; j < hi; ++j) {
        if (valid_at(j)) sum += dv.Value(j);
      }
      out_double[row] = sum;
    }
    return OkStatus();
  }));
  if (count) return BuildArray<arrow::Int64Builder>(out_count, nullptr, c.what);
  std::vector<uint8_t> valid(n);
  for (size_t r = 0; r < n; ++r) valid[r] = out_n[r] > 0;  // sum of nothing is NULL
  if (integer) {
    std::vector<int64_t> ints(n, 0);
    for (size_t r = 0; r < n; ++r) {
      if (out_exact[r] > INT64_MAX || out_exact[r] < INT64_MIN) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "{}: arithmetic overflow, the sum does not fit BIGINT "
                         "(use CAST(... AS DECIMAL(38, 0)) or try_cast)",
                         c.what);
      }
      ints[r] = static_cast<int64_t>(out_exact[r]);
    }
    return BuildArray<arrow::Int64Builder>(ints, &valid, c.what);
  }
  if (!decimal) {
    if (average) {
      for (size_t r = 0; r < n; ++r) {
        if (valid[r]) out_double[r] /= static_cast<double>(out_n[r]);
      }
    }
    return BuildArray<arrow::DoubleBuilder>(out_double, &valid, c.what);
  }
  DELTA_ASSIGN_OR_RETURN(auto type, ToArrowType(*c.call.type));
  arrow::Decimal128Builder builder(type);
  const auto& in = static_cast<const DecimalType&>(*arg_type);
  for (size_t r = 0; r < n; ++r) {
    arrow::Status st;
    if (!valid[r]) {
      st = builder.AppendNull();
    } else {
      DELTA_ASSIGN_OR_RETURN(
          Int128 v,
          DecimalSumResult(out_exact[r], out_n[r], average, in,
                           static_cast<const DecimalType&>(*c.call.type), c.what));
      st = builder.Append(
          arrow::Decimal128(static_cast<int64_t>(v >> 64),
                            static_cast<uint64_t>(static_cast<unsigned __int128>(v))));
    }
    DELTA_ARROW_RETURN_NOT_OK(st, ErrorCode::kInternal, c.what);
  }
  DELTA_ARROW_ASSIGN_OR_RETURN(ArrayRef out, builder.Finish(), ErrorCode::kInternal,
                               c.what);
  return out;
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
  RangeKeys keys;
  const bool value_range =
      !call.frame.rows && (call.frame.start == FrameBoundKind::kPreceding ||
                           call.frame.start == FrameBoundKind::kFollowing ||
                           call.frame.end == FrameBoundKind::kPreceding ||
                           call.frame.end == FrameBoundKind::kFollowing);
  if (value_range) {
    DELTA_ASSIGN_OR_RETURN(keys, MakeRangeKeys(layout, call));
  }
  FrameFinder frames(call.frame, &keys);
  if (call.name == "count" || call.name == "sum" || call.name == "avg" ||
      call.name == "mean") {
    return SumInFrame(c, frames);
  }
  return PickInFrame(c, frames);
}

}  // namespace

Result<BatchRef> ComputeWindows(const BatchRef& rows,
                                const std::vector<WindowCall>& calls,
                                const EvalOptions& eval) {
  std::vector<Layout> layouts;
  std::vector<size_t> layout_of;  // per call
  for (size_t i = 0; i < calls.size(); ++i) {
    size_t j = 0;
    while (j < i && !SameWindow(calls[j], calls[i])) ++j;
    if (j < i) {
      layout_of.push_back(layout_of[j]);
      continue;
    }
    DELTA_ASSIGN_OR_RETURN(Layout layout, MakeLayout(*rows, calls[i], eval));
    layout_of.push_back(layouts.size());
    layouts.push_back(std::move(layout));
  }
  BatchRef out = rows;
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
