// Window functions over frames: each row's frame [lo, hi) in window order (ROWS by
// position, RANGE by ORDER BY value or peers); count/sum/avg from per-partition prefix
// sums (exact: 128-bit for integers and decimals; doubles are added in frame order as
// Spark's frames add them), min/max and first/last/nth_value by row, then gathered
// with Take so every type keeps its exact Arrow type.

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/sql/query_aggregate_internal.h"
#include "deltaguard/sql/query_window_internal.h"

namespace deltaguard::query_internal {

namespace {

// Order-key values for RANGE offsets, in window order, negated for DESC so they
// always increase; `valid` marks non-NULL keys.
struct RangeKeys {
  std::vector<double> values;
  std::vector<uint8_t> valid;
};

Result<RangeKeys> MakeRangeKeys(const Layout& layout, const WindowCall& call) {
  RangeKeys out;
  DELTA_ASSIGN_OR_RETURN(ArrayRef sorted, InWindowOrder(layout, layout.order_keys[0]));
  DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum d,
                               arrow::compute::Cast(sorted, arrow::float64()),
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
    int64_t lo = Bound(f_.start, f_.start_offset, p, false);
    int64_t hi = Bound(f_.end, f_.end_offset, p, true);
    lo = std::clamp(lo, p.ps, p.pe);
    hi = std::clamp(hi, p.ps, p.pe);
    return {lo, std::max(lo, hi)};
  }

 private:
  // One end of the frame; `end` asks for the exclusive upper end.
  int64_t Bound(FrameBoundKind kind, double offset, const Position& p, bool end) const {
    switch (kind) {
      case FrameBoundKind::kUnboundedPreceding:
        return p.ps;
      case FrameBoundKind::kUnboundedFollowing:
        return p.pe;
      case FrameBoundKind::kCurrentRow:
        // ROWS: the row itself; RANGE: its peers.
        if (f_.rows) return p.i + (end ? 1 : 0);
        return end ? p.ge : p.gs;
      case FrameBoundKind::kPreceding:
      case FrameBoundKind::kFollowing:
        break;
    }
    const double signed_offset = kind == FrameBoundKind::kPreceding ? -offset : offset;
    if (f_.rows) return p.i + static_cast<int64_t>(signed_offset) + (end ? 1 : 0);
    return ValueBound(signed_offset, p, end);
  }

  // RANGE with an offset compares ORDER BY values; a NULL key's frame is its peer
  // group (NULL +/- n is NULL, equal only to NULL).
  int64_t ValueBound(double signed_offset, const Position& p, bool end) const {
    if (!keys_->valid[p.i]) return end ? p.ge : p.gs;
    if (p.ps != run_partition_) {
      // The non-NULL keys of a partition are one run (NULLs sort to one end): found
      // once per partition.
      run_partition_ = p.ps;
      run_begin_ = p.ps;
      run_end_ = p.pe;
      while (run_begin_ < run_end_ && !keys_->valid[run_begin_]) ++run_begin_;
      while (run_end_ > run_begin_ && !keys_->valid[run_end_ - 1]) --run_end_;
    }
    const double target = keys_->values[p.i] + signed_offset;
    auto first = keys_->values.begin();
    if (end)
      return std::upper_bound(first + run_begin_, first + run_end_, target) - first;
    return std::lower_bound(first + run_begin_, first + run_end_, target) - first;
  }

  const WindowFrameSpec& f_;
  const RangeKeys* keys_;
  mutable int64_t run_partition_ = -1;
  mutable int64_t run_begin_ = 0;
  mutable int64_t run_end_ = 0;
};

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
    source[c.layout.Slot(p.i)] = pick;
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
  std::vector<int64_t> counts_prefix;
  std::vector<Int128> exact_prefix;
  std::vector<double> double_prefix;
  int64_t current_ps = -1;
  const auto n = static_cast<size_t>(c.n);
  std::vector<int64_t> out_count(count ? n : 0);
  std::vector<Int128> out_exact(decimal || integer ? n : 0);
  std::vector<double> out_double(!count && !decimal && !integer ? n : 0);
  // One random store per row: the value (an average already divided), with `valid`
  // (filled sequentially) cleared only for the rare empty frame, and the count kept
  // only where a decimal average needs it.
  std::vector<uint8_t> valid(count ? 0 : n, 1);
  std::vector<int64_t> out_n(decimal && average ? n : 0);
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
    const int64_t row = c.layout.Slot(p.i);
    const int64_t cnt = c.args.empty() ? hi - lo : counts_prefix[b] - counts_prefix[a];
    if (count) {
      out_count[row] = cnt;
      return OkStatus();
    }
    if (cnt == 0) valid[row] = 0;  // sum of nothing is NULL
    if (decimal || integer) {
      out_exact[row] = exact_prefix[b] - exact_prefix[a];
      if (average) out_n[row] = cnt;
      return OkStatus();
    }
    double sum = 0;
    if (a == 0) {
      sum = double_prefix[b];  // the running sum, added in frame order
    } else {
      // A sliding frame: added afresh, as Spark's sliding frames do.
      const auto& dv = static_cast<const arrow::DoubleArray&>(*values);
      for (int64_t j = lo; j < hi; ++j) {
        if (valid_at(j)) sum += dv.Value(j);
      }
    }
    out_double[row] = average && cnt > 0 ? sum / static_cast<double>(cnt) : sum;
    return OkStatus();
  }));
  if (count) return VectorArray<arrow::Int64Type>(std::move(out_count), nullptr, c.what);
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
    return VectorArray<arrow::Int64Type>(std::move(ints), &valid, c.what);
  }
  if (!decimal) {
    return VectorArray<arrow::DoubleType>(std::move(out_double), &valid, c.what);
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
          DecimalSumResult(out_exact[r], average ? out_n[r] : 0, average, in,
                           static_cast<const DecimalType&>(*c.call.type), c.what));
      st = builder.Append(ToArrowDecimal(v));
    }
    DELTA_ARROW_RETURN_NOT_OK(st, ErrorCode::kInternal, c.what);
  }
  DELTA_ARROW_ASSIGN_OR_RETURN(ArrayRef out, builder.Finish(), ErrorCode::kInternal,
                               c.what);
  return out;
}

// A library aggregate over frames: each distinct frame (consecutive positions that
// share [lo, hi) share one) is a group of the aggregate's GROUP BY accumulator, fed
// the frame's rows in window order. A frame over the whole partition is read once;
// a running or sliding frame reads each row once per frame it is in.
Result<ArrayRef> LibraryInFrame(const CallContext& c, const FrameFinder& frames) {
  DELTA_ASSIGN_OR_RETURN(auto acc, MakeAccumulator(*c.call.aggregate));
  Arrays sorted;
  for (const auto& a : c.args) {
    DELTA_ASSIGN_OR_RETURN(ArrayRef v, InWindowOrder(c.layout, a));
    sorted.push_back(std::move(v));
  }
  std::vector<int64_t> group_of(static_cast<size_t>(c.n), -1);
  std::vector<uint32_t> ids;
  uint32_t groups = 0;
  std::pair<int64_t, int64_t> last{-1, -1};
  DELTA_RETURN_IF_ERROR(ForEachPosition(c.layout, [&](const Position& p) -> Status {
    const auto frame = frames.Of(p);
    if (groups == 0 || frame != last) {
      if (groups == UINT32_MAX) {
        return MakeError(ErrorCode::kInvalidArgument, "{}: too many frames", c.what);
      }
      const uint32_t g = groups++;
      last = frame;
      const int64_t len = frame.second - frame.first;
      ids.assign(static_cast<size_t>(len), g);
      Arrays slice;
      for (const auto& a : sorted) slice.push_back(a->Slice(frame.first, len));
      // An empty frame still makes its group (the aggregate of no rows).
      DELTA_RETURN_IF_ERROR(acc->Consume(slice, ids.data(), len, groups));
    }
    group_of[static_cast<size_t>(c.layout.Slot(p.i))] = groups - 1;
    return OkStatus();
  }));
  DELTA_ASSIGN_OR_RETURN(ArrayRef per_group, acc->Finish(groups));
  return Gather(per_group, group_of, c.what);
}

}  // namespace

Result<ArrayRef> FrameFunction(const CallContext& c) {
  const WindowCall& call = c.call;
  RangeKeys keys;
  const bool value_range =
      !call.frame.rows && (call.frame.start == FrameBoundKind::kPreceding ||
                           call.frame.start == FrameBoundKind::kFollowing ||
                           call.frame.end == FrameBoundKind::kPreceding ||
                           call.frame.end == FrameBoundKind::kFollowing);
  if (value_range) {
    DELTA_ASSIGN_OR_RETURN(keys, MakeRangeKeys(c.layout, call));
  }
  FrameFinder frames(call.frame, &keys);
  if (call.aggregate != nullptr) return LibraryInFrame(c, frames);
  if (call.name == "count" || call.name == "sum" || call.name == "avg" ||
      call.name == "mean") {
    return SumInFrame(c, frames);
  }
  return PickInFrame(c, frames);
}

}  // namespace deltaguard::query_internal
