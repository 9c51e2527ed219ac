// The aggregate library's accumulators (names and result types in
// expr/binder_aggregates.cc): variance and standard deviation by Welford's update (the
// one Spark's CentralMomentAgg uses), count_if, bool_and/bool_or, max_by/min_by,
// first/last, approx_count_distinct (HyperLogLog, quality/sketches.h), percentiles and
// collect_list/collect_set. Accumulators that return input values keep the batches
// they came from and pick rows by (chunk, row), so every type comes back exactly.

#include <arrow/compute/api.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/quality/sketches.h"
#include "deltaguard/sql/query_aggregate_internal.h"
#include "deltaguard/sql/query_internal.h"

namespace deltaguard::query_internal {
namespace {

// A row of a consumed batch.
struct RowRef {
  int64_t chunk = -1;  ///< -1: none
  int64_t row = 0;
};

// The batches an accumulator keeps, and the rows it picks from them.
class KeptRows {
 public:
  int64_t Add(const ArrayRef& a) {
    chunks_.push_back(a);
    return static_cast<int64_t>(chunks_.size()) - 1;
  }
  const arrow::Array& at(int64_t chunk) const { return *chunks_[chunk]; }

  // The values at `refs` (a null for chunk -1) as one array of `type`.
  Result<ArrayRef> Take(const std::vector<RowRef>& refs,
                        const std::shared_ptr<arrow::DataType>& type) const {
    if (chunks_.empty()) {
      DELTA_ARROW_ASSIGN_OR_RETURN(ArrayRef nulls,
                                   arrow::MakeArrayOfNull(type, refs.size()),
                                   ErrorCode::kInternal, "aggregate");
      return nulls;
    }
    std::vector<int64_t> offsets(chunks_.size(), 0);
    for (size_t c = 1; c < chunks_.size(); ++c) {
      offsets[c] = offsets[c - 1] + chunks_[c - 1]->length();
    }
    DELTA_ARROW_ASSIGN_OR_RETURN(ArrayRef all, arrow::Concatenate(chunks_),
                                 ErrorCode::kInternal, "aggregate");
    arrow::Int64Builder idx;
    DELTA_ARROW_RETURN_NOT_OK(idx.Reserve(static_cast<int64_t>(refs.size())),
                              ErrorCode::kInternal, "aggregate");
    for (const RowRef& r : refs) {
      if (r.chunk < 0) {
        idx.UnsafeAppendNull();
      } else {
        idx.UnsafeAppend(offsets[r.chunk] + r.row);
      }
    }
    DELTA_ARROW_ASSIGN_OR_RETURN(ArrayRef indices, idx.Finish(), ErrorCode::kInternal,
                                 "aggregate");
    DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum out, arrow::compute::Take(all, indices),
                                 ErrorCode::kInternal, "aggregate");
    return out.make_array();
  }

 private:
  Arrays chunks_;
};

Result<ArrayRef> DoublesOrNull(const std::vector<double>& values,
                               const std::vector<bool>& valid) {
  arrow::DoubleBuilder b;
  if (!values.empty()) {
    DELTA_ARROW_RETURN_NOT_OK(b.AppendValues(values, valid), ErrorCode::kInternal,
                              "aggregate");
  }
  DELTA_ARROW_ASSIGN_OR_RETURN(ArrayRef out, b.Finish(), ErrorCode::kInternal,
                               "aggregate");
  return out;
}

// stddev_samp, stddev_pop, var_samp, var_pop. Sample statistics of one value are NULL
// (Spark 3+, not NaN).
class MomentsAccumulator final : public Accumulator {
 public:
  MomentsAccumulator(bool sample, bool root) : sample_(sample), root_(root) {}
  Status Consume(const Arrays& args, const uint32_t* ids, int64_t rows,
                 uint32_t num_groups) override {
    n_.resize(num_groups, 0);
    mean_.resize(num_groups, 0);
    m2_.resize(num_groups, 0);
    const auto& x = static_cast<const arrow::DoubleArray&>(*args[0]);
    for (int64_t r = 0; r < rows; ++r) {
      if (x.IsNull(r)) continue;
      const uint32_t g = ids[r];
      const double n = static_cast<double>(++n_[g]);
      const double delta = x.Value(r) - mean_[g];
      const double delta_n = delta / n;
      mean_[g] += delta_n;
      m2_[g] += delta * (delta - delta_n);
    }
    return OkStatus();
  }
  Result<ArrayRef> Finish(uint32_t num_groups) override {
    n_.resize(num_groups, 0);
    m2_.resize(num_groups, 0);
    std::vector<double> out(num_groups, 0);
    std::vector<bool> valid(num_groups, false);
    for (uint32_t g = 0; g < num_groups; ++g) {
      const int64_t divisor = sample_ ? n_[g] - 1 : n_[g];
      if (divisor <= 0) continue;
      const double v = m2_[g] / static_cast<double>(divisor);
      out[g] = root_ ? std::sqrt(v) : v;
      valid[g] = true;
    }
    return DoublesOrNull(out, valid);
  }

 private:
  bool sample_, root_;
  std::vector<int64_t> n_;
  std::vector<double> mean_, m2_;
};

class CountIfAccumulator final : public Accumulator {
 public:
  Status Consume(const Arrays& args, const uint32_t* ids, int64_t rows,
                 uint32_t num_groups) override {
    counts_.resize(num_groups, 0);
    const auto& b = static_cast<const arrow::BooleanArray&>(*args[0]);
    for (int64_t r = 0; r < rows; ++r) {
      if (b.IsValid(r) && b.Value(r)) ++counts_[ids[r]];
    }
    return OkStatus();
  }
  Result<ArrayRef> Finish(uint32_t num_groups) override {
    counts_.resize(num_groups, 0);
    arrow::Int64Builder b;
    if (!counts_.empty()) {
      DELTA_ARROW_RETURN_NOT_OK(b.AppendValues(counts_), ErrorCode::kInternal,
                                "count_if");
    }
    DELTA_ARROW_ASSIGN_OR_RETURN(ArrayRef out, b.Finish(), ErrorCode::kInternal,
                                 "count_if");
    return out;
  }

 private:
  std::vector<int64_t> counts_;
};

// bool_and / bool_or over the non-NULL values; NULL when a group has none.
class BoolAccumulator final : public Accumulator {
 public:
  explicit BoolAccumulator(bool all) : all_(all) {}
  Status Consume(const Arrays& args, const uint32_t* ids, int64_t rows,
                 uint32_t num_groups) override {
    state_.resize(num_groups, kNone);
    const auto& b = static_cast<const arrow::BooleanArray&>(*args[0]);
    for (int64_t r = 0; r < rows; ++r) {
      if (b.IsNull(r)) continue;
      int8_t& s = state_[ids[r]];
      const bool v = b.Value(r);
      if (s == kNone) {
        s = v ? kTrue : kFalse;
      } else if (all_ ? !v : v) {
        s = v ? kTrue : kFalse;
      }
    }
    return OkStatus();
  }
  Result<ArrayRef> Finish(uint32_t num_groups) override {
    state_.resize(num_groups, kNone);
    arrow::BooleanBuilder b;
    for (int8_t s : state_) {
      DELTA_ARROW_RETURN_NOT_OK(s == kNone ? b.AppendNull() : b.Append(s == kTrue),
                                ErrorCode::kInternal, "bool_and");
    }
    DELTA_ARROW_ASSIGN_OR_RETURN(ArrayRef out, b.Finish(), ErrorCode::kInternal,
                                 "bool_and");
    return out;
  }

 private:
  static constexpr int8_t kNone = 0, kTrue = 1, kFalse = 2;
  bool all_;
  std::vector<int8_t> state_;
};

// One input row per group: max_by/min_by (the value at the largest/smallest ordering
// value; the last such row read on ties, as Spark; rows with a NULL ordering skipped),
// first/last (the first/last row read, or non-NULL value with ignoreNulls).
class PickAccumulator final : public Accumulator {
 public:
  enum class Mode { kMaxBy, kMinBy, kFirst, kLast };
  PickAccumulator(Mode mode, bool ignore_nulls, Comparator compare,
                  std::shared_ptr<arrow::DataType> type)
      : mode_(mode),
        ignore_nulls_(ignore_nulls),
        compare_(compare),
        type_(std::move(type)) {}

  Status Consume(const Arrays& args, const uint32_t* ids, int64_t rows,
                 uint32_t num_groups) override {
    best_.resize(num_groups);
    const int64_t chunk = values_.Add(args[0]);
    const bool by = mode_ == Mode::kMaxBy || mode_ == Mode::kMinBy;
    if (by) orders_.Add(args[1]);
    const arrow::Array& v = *args[0];
    for (int64_t r = 0; r < rows; ++r) {
      RowRef& best = best_[ids[r]];
      if (by) {
        const arrow::Array& ord = *args[1];
        if (ord.IsNull(r)) continue;
        bool better = best.chunk < 0;
        if (!better) {
          const int c = compare_(ord, r, orders_.at(best.chunk), best.row);
          better = mode_ == Mode::kMaxBy ? c >= 0 : c <= 0;
        }
        if (better) best = {chunk, r};
      } else {
        if (ignore_nulls_ && v.IsNull(r)) continue;
        if (mode_ == Mode::kLast || best.chunk < 0) best = {chunk, r};
      }
    }
    return OkStatus();
  }
  Result<ArrayRef> Finish(uint32_t num_groups) override {
    best_.resize(num_groups);
    return values_.Take(best_, type_);
  }

 private:
  Mode mode_;
  bool ignore_nulls_;
  Comparator compare_;
  std::shared_ptr<arrow::DataType> type_;
  KeptRows values_, orders_;
  std::vector<RowRef> best_;
};

class DistinctCountAccumulator final : public Accumulator {
 public:
  Status Consume(const Arrays& args, const uint32_t* ids, int64_t rows,
                 uint32_t num_groups) override {
    while (sketches_.size() < num_groups) sketches_.emplace_back();
    const arrow::Array& a = *args[0];
    for (int64_t r = 0; r < rows; ++r) {
      if (a.IsNull(r)) continue;
      DistinctSketch& s = sketches_[ids[r]];
      switch (a.type_id()) {
        case arrow::Type::STRING:
        case arrow::Type::BINARY:
          s.Update(static_cast<const arrow::BinaryArray&>(a).GetView(r));
          break;
        case arrow::Type::FLOAT:
          s.Update(
              static_cast<double>(static_cast<const arrow::FloatArray&>(a).Value(r)));
          break;
        case arrow::Type::DOUBLE:
          s.Update(static_cast<const arrow::DoubleArray&>(a).Value(r));
          break;
        case arrow::Type::DECIMAL128:
          s.Update(std::string_view(
              reinterpret_cast<const char*>(
                  static_cast<const arrow::Decimal128Array&>(a).GetValue(r)),
              16));
          break;
        case arrow::Type::BOOL:
          s.Update(int64_t{static_cast<const arrow::BooleanArray&>(a).Value(r)});
          break;
        default: {
          // integers, dates and timestamps: their integer value
          auto scalar = a.GetScalar(r);
          if (!scalar.ok())
            return MakeError(ErrorCode::kInternal, "approx_count_distinct");
          auto as_long = (*scalar)->CastTo(arrow::int64());
          if (!as_long.ok()) {
            return MakeError(ErrorCode::kUnsupportedFeature,
                             "approx_count_distinct() of type {} is not supported",
                             a.type()->ToString());
          }
          s.Update(static_cast<const arrow::Int64Scalar&>(**as_long).value);
        }
      }
    }
    return OkStatus();
  }
  Result<ArrayRef> Finish(uint32_t num_groups) override {
    while (sketches_.size() < num_groups) sketches_.emplace_back();
    arrow::Int64Builder b;
    for (const auto& s : sketches_) {
      DELTA_ARROW_RETURN_NOT_OK(b.Append(std::llround(s.Estimate())),
                                ErrorCode::kInternal, "approx_count_distinct");
    }
    DELTA_ARROW_ASSIGN_OR_RETURN(ArrayRef out, b.Finish(), ErrorCode::kInternal,
                                 "approx_count_distinct");
    return out;
  }

 private:
  std::vector<DistinctSketch> sketches_;
};

// The non-NULL rows of each group, kept: percentiles sort them, collect_list and
// collect_set return them.
class GatherAccumulator final : public Accumulator {
 public:
  enum class Mode { kPercentileApprox, kPercentile, kList, kSet };
  GatherAccumulator(Mode mode, double p, Comparator compare,
                    std::shared_ptr<arrow::DataType> value_type,
                    std::shared_ptr<arrow::DataType> result_type)
      : mode_(mode),
        p_(p),
        compare_(compare),
        value_type_(std::move(value_type)),
        result_type_(std::move(result_type)) {}

  Status Consume(const Arrays& args, const uint32_t* ids, int64_t rows,
                 uint32_t num_groups) override {
    rows_.resize(num_groups);
    const int64_t chunk = kept_.Add(args[0]);
    for (int64_t r = 0; r < rows; ++r) {
      if (args[0]->IsValid(r)) rows_[ids[r]].push_back({chunk, r});
    }
    return OkStatus();
  }

  Result<ArrayRef> Finish(uint32_t num_groups) override {
    rows_.resize(num_groups);
    auto less = [&](const RowRef& a, const RowRef& b) {
      return compare_(kept_.at(a.chunk), a.row, kept_.at(b.chunk), b.row) < 0;
    };
    if (mode_ == Mode::kList || mode_ == Mode::kSet) return Lists(less);
    std::vector<RowRef> picks(num_groups);
    std::vector<double> values(num_groups, 0);
    std::vector<bool> valid(num_groups, false);
    for (uint32_t g = 0; g < num_groups; ++g) {
      auto& v = rows_[g];
      if (v.empty()) continue;
      const auto n = static_cast<int64_t>(v.size());
      if (mode_ == Mode::kPercentileApprox) {
        // Spark's summary answer when it holds every value: the value of rank
        // ceil(p * n) (1-based), the smallest value at or above that share.
        const int64_t k = std::clamp<int64_t>(
            static_cast<int64_t>(std::ceil(p_ * static_cast<double>(n))) - 1, 0, n - 1);
        std::nth_element(v.begin(), v.begin() + k, v.end(), less);
        picks[g] = v[k];
        continue;
      }
      // percentile/median: linear interpolation at position p * (n - 1).
      const double pos = p_ * static_cast<double>(n - 1);
      const auto lo = static_cast<int64_t>(std::floor(pos));
      const auto hi = static_cast<int64_t>(std::ceil(pos));
      std::nth_element(v.begin(), v.begin() + lo, v.end(), less);
      const double a = Value(v[lo]);
      double b = a;
      if (hi != lo) {
        std::nth_element(v.begin() + lo + 1, v.begin() + hi, v.end(), less);
        b = Value(v[hi]);
      }
      values[g] = hi == lo ? a
                           : (static_cast<double>(hi) - pos) * a +
                                 (pos - static_cast<double>(lo)) * b;
      valid[g] = true;
    }
    if (mode_ == Mode::kPercentileApprox) return kept_.Take(picks, value_type_);
    return DoublesOrNull(values, valid);
  }

 private:
  double Value(const RowRef& r) const {
    return static_cast<const arrow::DoubleArray&>(kept_.at(r.chunk)).Value(r.row);
  }

  template <typename Less>
  Result<ArrayRef> Lists(Less less) {
    std::vector<RowRef> all;
    arrow::Int32Builder offsets;
    DELTA_ARROW_RETURN_NOT_OK(offsets.Append(0), ErrorCode::kInternal, "collect_list");
    for (auto& v : rows_) {
      if (mode_ == Mode::kSet) {
        // Each value once, in the order first read (Spark's set order is its hash's).
        std::vector<size_t> order(v.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return less(v[a], v[b]); });
        std::vector<bool> keep(v.size(), false);
        for (size_t i = 0; i < order.size(); ++i) {
          keep[order[i]] = i == 0 || less(v[order[i - 1]], v[order[i]]);
        }
        for (size_t i = 0; i < v.size(); ++i) {
          if (keep[i]) all.push_back(v[i]);
        }
      } else {
        all.insert(all.end(), v.begin(), v.end());
      }
      if (all.size() > static_cast<size_t>(INT32_MAX)) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "collect_list(): more than 2^31 values in one result");
      }
      DELTA_ARROW_RETURN_NOT_OK(offsets.Append(static_cast<int32_t>(all.size())),
                                ErrorCode::kInternal, "collect_list");
    }
    DELTA_ASSIGN_OR_RETURN(ArrayRef values, kept_.Take(all, value_type_));
    DELTA_ARROW_ASSIGN_OR_RETURN(ArrayRef offs, offsets.Finish(), ErrorCode::kInternal,
                                 "collect_list");
    DELTA_ARROW_ASSIGN_OR_RETURN(
        auto list, arrow::ListArray::FromArrays(result_type_, *offs, *values),
        ErrorCode::kInternal, "collect_list");
    return ArrayRef(list);
  }

  Mode mode_;
  double p_;
  Comparator compare_;
  std::shared_ptr<arrow::DataType> value_type_, result_type_;
  KeptRows kept_;
  std::vector<std::vector<RowRef>> rows_;
};

}  // namespace

Result<std::unique_ptr<Accumulator>> MakeLibraryAccumulator(const BoundExpr& agg) {
  const std::string& n = agg.name;
  const std::string what = n + "()";
  if (n == "stddev_samp" || n == "stddev_pop" || n == "var_samp" || n == "var_pop") {
    return std::unique_ptr<Accumulator>(new MomentsAccumulator(
        n == "stddev_samp" || n == "var_samp", n == "stddev_samp" || n == "stddev_pop"));
  }
  if (n == "count_if") return std::unique_ptr<Accumulator>(new CountIfAccumulator());
  if (n == "bool_and" || n == "bool_or") {
    return std::unique_ptr<Accumulator>(new BoolAccumulator(n == "bool_and"));
  }
  if (n == "approx_count_distinct") {
    return std::unique_ptr<Accumulator>(new DistinctCountAccumulator());
  }
  DELTA_ASSIGN_OR_RETURN(auto value_type, ToArrowType(*agg.args[0]->type));
  if (n == "max_by" || n == "min_by" || n == "first" || n == "last") {
    using Mode = PickAccumulator::Mode;
    Comparator cmp = nullptr;
    if (agg.args.size() > 1 && (n == "max_by" || n == "min_by")) {
      DELTA_ASSIGN_OR_RETURN(auto ord_type, ToArrowType(*agg.args[1]->type));
      DELTA_ASSIGN_OR_RETURN(cmp, ComparatorFor(*ord_type, what));
    }
    const bool ignore_nulls = agg.args.size() > 1 && (n == "first" || n == "last") &&
                              std::get<bool>(agg.args[1]->literal.value);
    Mode mode = n == "max_by"   ? Mode::kMaxBy
                : n == "min_by" ? Mode::kMinBy
                : n == "first"  ? Mode::kFirst
                                : Mode::kLast;
    return std::unique_ptr<Accumulator>(
        new PickAccumulator(mode, ignore_nulls, cmp, value_type));
  }
  using GMode = GatherAccumulator::Mode;
  GMode mode;
  double p = 0.5;
  if (n == "percentile_approx" || n == "percentile" || n == "median") {
    mode = n == "percentile_approx" ? GMode::kPercentileApprox : GMode::kPercentile;
    if (n != "median") p = std::get<double>(agg.args[1]->literal.value);
  } else if (n == "collect_list" || n == "collect_set") {
    mode = n == "collect_list" ? GMode::kList : GMode::kSet;
  } else {
    return std::unique_ptr<Accumulator>();
  }
  Comparator cmp = nullptr;
  if (mode != GMode::kList) {
    DELTA_ASSIGN_OR_RETURN(cmp, ComparatorFor(*value_type, what));
  }
  DELTA_ASSIGN_OR_RETURN(auto result_type, ToArrowType(*agg.type));
  return std::unique_ptr<Accumulator>(
      new GatherAccumulator(mode, p, cmp, value_type, result_type));
}

}  // namespace deltaguard::query_internal
