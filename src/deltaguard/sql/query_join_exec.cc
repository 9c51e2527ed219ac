// Joins, execution: the right side is read whole and its keys grouped (an Arrow
// grouper; a row with a NULL key never matches, as Spark's equi-join); the left side
// streams, each batch's keys looked up, matching pairs taken from both sides, the
// residual condition (the rest of ON) applied to the pairs. LEFT/FULL add left rows
// without a passing match, RIGHT/FULL the right rows never matched, at the end. SEMI
// and ANTI keep left rows with / without a passing match. Without equality keys every
// pair is a candidate (a nested loop over the right rows). Joins that never mark right
// rows probe two left batches at a time, one per core.

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/compute/row/grouper.h>
#include <arrow/util/bit_util.h>

#include <algorithm>
#include <deque>
#include <future>
#include <optional>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/expr_eval.h"
#include "deltaguard/exec/take_rows.h"
#include "deltaguard/sql/query_join_dense_internal.h"
#include "deltaguard/sql/query_join_internal.h"

namespace deltaguard::query_internal {
namespace {

using Type = JoinClause::Type;

constexpr int64_t kMaxPairs = 1 << 20;  // candidate pairs per probe step, without keys

Result<std::shared_ptr<arrow::Array>> NullsLike(const std::shared_ptr<arrow::DataType>& t,
                                                int64_t n) {
  DELTA_ARROW_ASSIGN_OR_RETURN(auto a, arrow::MakeArrayOfNull(t, n), ErrorCode::kInternal,
                               "join");
  return a;
}

class JoinReader final : public arrow::RecordBatchReader {
 public:
  JoinReader(std::shared_ptr<const JoinSpec> spec, ReaderRef left, BatchRef right)
      : spec_(std::move(spec)), left_(std::move(left)), right_(std::move(right)) {}

  Status Build() {
    matched_right_.assign(static_cast<size_t>(right_->num_rows()), false);
    if (spec_->left_keys.empty()) return OkStatus();
    DELTA_ASSIGN_OR_RETURN(auto keys, Keys(spec_->right_keys, *right_));
    // Keyed joins that never mark right rows probe two left batches at once, one per
    // core.
    parallel_ = spec_->type != Type::kRight && spec_->type != Type::kFull;
    std::shared_ptr<arrow::Array> id_array;
    int64_t num_groups = 0;
    if (keys.size() == 1) dense_ = DenseKeys::Make(*keys[0].make_array());
    if (dense_) {
      DELTA_ASSIGN_OR_RETURN(id_array, dense_->Lookup(*keys[0].make_array()));
      num_groups = dense_->groups();
    } else {
      std::vector<arrow::TypeHolder> types;
      for (const auto& t : spec_->key_types) types.emplace_back(t);
      DELTA_ARROW_ASSIGN_OR_RETURN(grouper_, arrow::compute::Grouper::Make(types),
                                   ErrorCode::kUnsupportedFeature, "JOIN keys");
      if (right_->num_rows() == 0) return OkStatus();
      arrow::compute::ExecBatch exec(keys, right_->num_rows());
      DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum ids,
                                   grouper_->Consume(arrow::compute::ExecSpan(exec)),
                                   ErrorCode::kInternal, "JOIN build");
      // Grouper::Lookup keeps scratch state, so the second probe gets a grouper of its
      // own, built from the same keys in the same order (the same group ids).
      if (parallel_) {
        DELTA_ARROW_ASSIGN_OR_RETURN(second_grouper_,
                                     arrow::compute::Grouper::Make(types),
                                     ErrorCode::kUnsupportedFeature, "JOIN keys");
        DELTA_ARROW_RETURN_NOT_OK(
            second_grouper_->Consume(arrow::compute::ExecSpan(exec)).status(),
            ErrorCode::kInternal, "JOIN build");
      }
      id_array = ids.make_array();
      num_groups = grouper_->num_groups();
    }
    const auto& g = static_cast<const arrow::UInt32Array&>(*id_array);
    // The right rows of each key, grouped by key (a counting sort): the rows of group
    // k are rows_[group_start_[k] .. group_start_[k + 1]). A NULL key never matches.
    group_start_.assign(static_cast<size_t>(num_groups) + 1, 0);
    const NullKeys null_key(keys);
    for (int64_t r = 0; r < g.length(); ++r) {
      if (!null_key(r)) ++group_start_[g.Value(r) + 1];
    }
    for (size_t k = 1; k < group_start_.size(); ++k)
      group_start_[k] += group_start_[k - 1];
    rows_.resize(static_cast<size_t>(group_start_.back()));
    std::vector<int64_t> fill(group_start_.begin(), group_start_.end() - 1);
    for (int64_t r = 0; r < g.length(); ++r) {
      if (!null_key(r)) rows_[static_cast<size_t>(fill[g.Value(r)]++)] = r;
    }
    // A dimension's unique keys: the Grouper numbers groups in order of appearance, so
    // group k is right row k and the probe needs no lookup of the row.
    identity_ = !dense_ && rows_.size() == static_cast<size_t>(g.length()) &&
                group_start_.size() == rows_.size() + 1;
    // Dense keys each on at most one right row: the row of each group (-1: none), so
    // the probe reads one array.
    bool unique = dense_.has_value();
    for (size_t k = 0; unique && k + 1 < group_start_.size(); ++k) {
      unique = group_start_[k + 1] - group_start_[k] <= 1;
    }
    if (dense_) {
      has_rows_.assign(group_start_.size() - 1, false);
      for (size_t k = 0; k + 1 < group_start_.size(); ++k) {
        has_rows_[k] = group_start_[k + 1] > group_start_[k];
      }
    }
    if (unique) {
      row_of_group_.assign(group_start_.size() - 1, -1);
      for (size_t k = 0; k + 1 < group_start_.size(); ++k) {
        if (group_start_[k + 1] > group_start_[k]) {
          row_of_group_[k] = rows_[static_cast<size_t>(group_start_[k])];
        }
      }
    }
    return OkStatus();
  }

  std::shared_ptr<arrow::Schema> schema() const override { return spec_->output_schema; }

  arrow::Status ReadNext(BatchRef* out) override {
    *out = nullptr;
    auto st = Next(out);
    if (!st) return internal::ToArrowStatus(st.error());
    return arrow::Status::OK();
  }

 private:
  // Whether a key of a row is NULL: the validity bitmaps of the keys that have NULLs,
  // read in place.
  class NullKeys {
   public:
    explicit NullKeys(const std::vector<arrow::Datum>& keys) {
      for (const auto& k : keys) {
        const arrow::ArrayData& d = *k.array();
        if (d.type->id() == arrow::Type::NA) all_null_ = true;
        if (d.GetNullCount() > 0 && d.buffers[0] != nullptr) {
          bits_.emplace_back(d.buffers[0]->data(), d.offset);
        }
      }
    }
    bool operator()(int64_t row) const {
      if (all_null_) return true;
      for (const auto& [bits, offset] : bits_) {
        if (!arrow::bit_util::GetBit(bits, offset + row)) return true;
      }
      return false;
    }

   private:
    std::vector<std::pair<const uint8_t*, int64_t>> bits_;
    bool all_null_ = false;
  };

  Result<std::vector<arrow::Datum>> Keys(const std::vector<BoundExprRef>& exprs,
                                         const arrow::RecordBatch& batch) {
    return JoinKeys(*spec_, exprs, batch);
  }

  Status Next(BatchRef* out) {
    while (true) {
      DELTA_RETURN_IF_ERROR(NextPending(out));
      if (*out != nullptr) return OkStatus();
      if (left_done_) {
        if (emitted_unmatched_right_ ||
            (spec_->type != Type::kRight && spec_->type != Type::kFull)) {
          return OkStatus();
        }
        emitted_unmatched_right_ = true;
        std::vector<int64_t> rows;
        for (size_t r = 0; r < matched_right_.size(); ++r) {
          if (!matched_right_[r]) rows.push_back(static_cast<int64_t>(r));
        }
        if (rows.empty()) return OkStatus();
        DELTA_ASSIGN_OR_RETURN(*out, Output(nullptr, {}, rows));
        return OkStatus();
      }
      BatchRef batch;
      DELTA_ARROW_RETURN_NOT_OK(left_->ReadNext(&batch), ErrorCode::kIOError,
                                "JOIN left input");
      if (batch == nullptr) {
        left_done_ = true;
        continue;
      }
      if (batch->num_rows() == 0) continue;
      // Without keys every pair is a candidate: slices of the left batch keep the
      // pairs of one step under kMaxPairs.
      const int64_t step =
          spec_->left_keys.empty()
              ? std::max<int64_t>(1, kMaxPairs / std::max<int64_t>(1, right_->num_rows()))
              : batch->num_rows();
      for (int64_t at = 0; at < batch->num_rows(); at += step) {
        pending_.push_back(batch->Slice(at, std::min(step, batch->num_rows() - at)));
      }
      continue;
    }
  }

  // Two left batches probed at once (parallel_): the second on another thread with the
  // second grouper; outputs keep the left's order.
  Status ProbePair() {
    BatchRef a = std::move(pending_.front());
    pending_.pop_front();
    BatchRef b = std::move(pending_.front());
    pending_.pop_front();
    auto other = std::async(std::launch::async,
                            [this, b] { return Probe(b, second_grouper_.get()); });
    Result<BatchRef> first = Probe(a, grouper_.get());
    Result<BatchRef> second = other.get();
    for (auto* r : {&first, &second}) {
      if (!*r) return r->error();
      if (**r != nullptr && (**r)->num_rows() > 0) ready_.push_back(std::move(**r));
    }
    return OkStatus();
  }

  Status NextPending(BatchRef* out) {
    while (!ready_.empty() || !pending_.empty()) {
      if (!ready_.empty()) {
        *out = std::move(ready_.front());
        ready_.pop_front();
        return OkStatus();
      }
      if (parallel_ && pending_.size() == 1 && !left_done_) return OkStatus();  // read on
      if (parallel_ && pending_.size() >= 2) {
        DELTA_RETURN_IF_ERROR(ProbePair());
        continue;
      }
      BatchRef batch = std::move(pending_.front());
      pending_.pop_front();
      DELTA_ASSIGN_OR_RETURN(BatchRef joined, Probe(batch, grouper_.get()));
      if (joined != nullptr && joined->num_rows() > 0) {
        *out = std::move(joined);
        return OkStatus();
      }
    }
    return OkStatus();
  }

  // The candidate pairs of a left batch, filtered by the residual.
  Result<BatchRef> Probe(const BatchRef& batch, arrow::compute::Grouper* grouper) {
    std::vector<int64_t> li, ri;
    if (spec_->left_keys.empty()) {
      for (int64_t l = 0; l < batch->num_rows(); ++l) {
        for (int64_t r = 0; r < right_->num_rows(); ++r) {
          li.push_back(l);
          ri.push_back(r);
        }
      }
    } else if (right_->num_rows() > 0) {
      DELTA_ASSIGN_OR_RETURN(auto keys, Keys(spec_->left_keys, *batch));
      const bool exists_only =
          spec_->residual == nullptr &&
          (spec_->type == Type::kLeftSemi || spec_->type == Type::kLeftAnti);
      if (dense_ && exists_only) return DenseSemiAnti(batch, *keys[0].make_array());
      if (dense_ && !row_of_group_.empty()) {
        DenseUniquePairs(*keys[0].make_array(), &li, &ri);
        return Matched(batch, std::move(li), std::move(ri));
      }
      std::shared_ptr<arrow::Array> id_array;
      if (dense_) {
        DELTA_ASSIGN_OR_RETURN(id_array, dense_->Lookup(*keys[0].make_array()));
      } else {
        arrow::compute::ExecBatch exec(keys, batch->num_rows());
        DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum ids,
                                     grouper->Lookup(arrow::compute::ExecSpan(exec)),
                                     ErrorCode::kInternal, "JOIN probe");
        id_array = ids.make_array();
      }
      const auto& g = static_cast<const arrow::UInt32Array&>(*id_array);
      if (exists_only) return SemiAnti(batch, g, keys);
      const NullKeys null_key(keys);
      if (identity_ || !row_of_group_.empty()) {
        // At most one right row per left row: written in place, no growth.
        li.resize(static_cast<size_t>(g.length()));
        ri.resize(static_cast<size_t>(g.length()));
        size_t m = 0;
        for (int64_t l = 0; l < g.length(); ++l) {
          if (g.IsNull(l) || null_key(l)) continue;
          const uint32_t k = g.Value(l);
          const int64_t r = identity_ ? int64_t{k} : row_of_group_[k];
          if (r < 0) continue;
          li[m] = l;
          ri[m] = r;
          ++m;
        }
        li.resize(m);
        ri.resize(m);
      } else {
        li.reserve(static_cast<size_t>(g.length()));
        ri.reserve(static_cast<size_t>(g.length()));
        for (int64_t l = 0; l < g.length(); ++l) {
          if (g.IsNull(l) || null_key(l)) continue;
          const uint32_t k = g.Value(l);
          for (int64_t at = group_start_[k]; at < group_start_[k + 1]; ++at) {
            li.push_back(l);
            ri.push_back(rows_[static_cast<size_t>(at)]);
          }
        }
      }
    }
    return Matched(batch, std::move(li), std::move(ri));
  }

  // The output of a left batch's candidate pairs (left rows `li` beside right rows
  // `ri`): those the residual passes, and the unmatched rows the join type keeps.
  Result<BatchRef> Matched(const BatchRef& batch, std::vector<int64_t> li,
                           std::vector<int64_t> ri) {
    if (spec_->residual == nullptr &&
        (spec_->type == Type::kInner || spec_->type == Type::kCross)) {
      return Output(batch, std::move(li), std::move(ri));  // every candidate matches
    }
    // The residual decides which candidates match.
    std::vector<bool> keep(li.size(), true);
    if (spec_->residual != nullptr && !li.empty()) {
      DELTA_ASSIGN_OR_RETURN(BatchRef pairs, Pairs(batch, li, ri));
      EvalOptions eval;
      eval.now_micros = spec_->now_micros;
      DELTA_ASSIGN_OR_RETURN(auto mask,
                             EvaluatePredicate(*spec_->residual, *pairs, eval));
      for (size_t k = 0; k < li.size(); ++k) {
        keep[k] = mask->IsValid(static_cast<int64_t>(k)) &&
                  mask->Value(static_cast<int64_t>(k));
      }
    }
    std::vector<bool> left_matched(static_cast<size_t>(batch->num_rows()), false);
    const bool track_right = spec_->type == Type::kRight || spec_->type == Type::kFull;
    std::vector<int64_t> out_l, out_r;
    for (size_t k = 0; k < li.size(); ++k) {
      if (!keep[k]) continue;
      left_matched[static_cast<size_t>(li[k])] = true;
      if (track_right) matched_right_[static_cast<size_t>(ri[k])] = true;
      out_l.push_back(li[k]);
      out_r.push_back(ri[k]);
    }
    switch (spec_->type) {
      case Type::kLeftSemi:
      case Type::kLeftAnti: {
        std::vector<int64_t> rows;
        const bool want = spec_->type == Type::kLeftSemi;
        for (size_t l = 0; l < left_matched.size(); ++l) {
          if (left_matched[l] == want) rows.push_back(static_cast<int64_t>(l));
        }
        return Output(batch, rows, {});
      }
      case Type::kLeft:
      case Type::kFull: {
        // Matched pairs, then left rows without a match (right side NULL): -1.
        for (size_t l = 0; l < left_matched.size(); ++l) {
          if (!left_matched[l]) {
            out_l.push_back(static_cast<int64_t>(l));
            out_r.push_back(-1);
          }
        }
        return Output(batch, std::move(out_l), std::move(out_r));
      }
      default:
        return Output(batch, std::move(out_l), std::move(out_r));
    }
  }

  // Dense keys on at most one right row each (row_of_group_): the candidate pairs,
  // read from the keys in place.
  void DenseUniquePairs(const arrow::Array& keys, std::vector<int64_t>* li,
                        std::vector<int64_t>* ri) const {
    li->resize(static_cast<size_t>(keys.length()));
    ri->resize(static_cast<size_t>(keys.length()));
    size_t m = 0;
    const auto groups = static_cast<uint64_t>(dense_->groups());
    const int64_t* row_of = row_of_group_.data();
    int64_t* lp = li->data();
    int64_t* rp = ri->data();
    dense_->Visit(keys, [&](int64_t l, uint64_t k) {
      if (k >= groups) return;
      const int64_t r = row_of[k];
      lp[m] = l;
      rp[m] = r;
      m += r >= 0;  // written always, kept when the group has a row
    });
    li->resize(m);
    ri->resize(m);
  }

  // SEMI / ANTI without a residual over dense keys: a key matches when its group has a
  // right row.
  Result<BatchRef> DenseSemiAnti(const BatchRef& batch, const arrow::Array& keys) {
    const bool want = spec_->type == Type::kLeftSemi;
    const auto groups = static_cast<uint64_t>(dense_->groups());
    std::vector<int64_t> rows;
    rows.reserve(static_cast<size_t>(keys.length()));
    dense_->Visit(keys, [&](int64_t l, uint64_t k) {
      const bool match = k < groups && has_rows_[k];
      if (match == want) rows.push_back(l);
    });
    return Output(batch, std::move(rows), {});
  }

  // SEMI / ANTI without a residual: a key with any non-NULL right row matches.
  Result<BatchRef> SemiAnti(const BatchRef& batch, const arrow::UInt32Array& g,
                            const std::vector<arrow::Datum>& keys) {
    const bool want = spec_->type == Type::kLeftSemi;
    const NullKeys null_key(keys);
    std::vector<int64_t> rows;
    for (int64_t l = 0; l < g.length(); ++l) {
      const bool match = g.IsValid(l) && !null_key(l) &&
                         group_start_[g.Value(l) + 1] > group_start_[g.Value(l)];
      if (match == want) rows.push_back(l);
    }
    return Output(batch, rows, {});
  }

  Result<BatchRef> Pairs(const BatchRef& batch, const std::vector<int64_t>& li,
                         const std::vector<int64_t>& ri) {
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (const auto& c : batch->columns()) {
      DELTA_ASSIGN_OR_RETURN(auto t, TakeRows(c, li));
      columns.push_back(std::move(t));
    }
    for (const auto& c : right_->columns()) {
      DELTA_ASSIGN_OR_RETURN(auto t, TakeRows(c, ri));
      columns.push_back(std::move(t));
    }
    return arrow::RecordBatch::Make(spec_->pairs_schema, static_cast<int64_t>(li.size()),
                                    std::move(columns));
  }

  // Output rows: left rows `li` (null batch or -1: NULLs) beside right rows `ri` (empty
  // for SEMI/ANTI; -1: NULLs); an empty `li` with a null batch pads the left side.
  Result<BatchRef> Output(const BatchRef& batch, std::vector<int64_t> li,
                          std::vector<int64_t> ri) {
    const int64_t n = static_cast<int64_t>(batch == nullptr ? ri.size() : li.size());
    if (batch == nullptr) li.assign(ri.size(), -1);
    if (spec_->keep_right && ri.empty()) ri.assign(li.size(), -1);
    const auto& fields = spec_->output_schema->fields();
    std::vector<std::shared_ptr<arrow::Array>> left_cols, right_cols;
    const int num_left =
        static_cast<int>(spec_->pairs_schema->num_fields()) - right_->num_columns();
    for (int c = 0; c < num_left; ++c) {
      const auto& type = spec_->pairs_schema->field(c)->type();
      if (batch == nullptr) {
        DELTA_ASSIGN_OR_RETURN(auto nulls, NullsLike(type, n));
        left_cols.push_back(std::move(nulls));
      } else {
        DELTA_ASSIGN_OR_RETURN(auto t, TakeRows(batch->column(c), li));
        left_cols.push_back(std::move(t));
      }
    }
    if (spec_->keep_right) {
      for (const auto& c : right_->columns()) {
        DELTA_ASSIGN_OR_RETURN(auto t, TakeRows(c, ri));
        right_cols.push_back(std::move(t));
      }
    }
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (const auto& [l, r] : spec_->using_columns) {
      const auto& type = fields[columns.size()]->type();
      std::shared_ptr<arrow::Array> value;
      if (spec_->type == Type::kRight) {
        value = right_cols[static_cast<size_t>(r)];
      } else if (spec_->type == Type::kFull) {
        DELTA_ARROW_ASSIGN_OR_RETURN(
            arrow::Datum d,
            arrow::compute::CallFunction(
                "coalesce",
                {left_cols[static_cast<size_t>(l)], right_cols[static_cast<size_t>(r)]}),
            ErrorCode::kInternal, "USING column");
        value = d.make_array();
      } else {
        value = left_cols[static_cast<size_t>(l)];
      }
      if (!value->type()->Equals(*type)) {
        DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum d, arrow::compute::Cast(value, type),
                                     ErrorCode::kInternal, "USING column");
        value = d.make_array();
      }
      columns.push_back(std::move(value));
    }
    for (auto& c : left_cols) columns.push_back(std::move(c));
    for (auto& c : right_cols) columns.push_back(std::move(c));
    return arrow::RecordBatch::Make(spec_->output_schema, n, std::move(columns));
  }

  std::shared_ptr<const JoinSpec> spec_;
  ReaderRef left_;
  BatchRef right_;
  std::optional<DenseKeys> dense_;  ///< one integer key over a dense range: no grouper
  std::unique_ptr<arrow::compute::Grouper> grouper_;
  std::unique_ptr<arrow::compute::Grouper> second_grouper_;  ///< parallel_ probes
  bool parallel_ = false;
  std::deque<BatchRef> ready_;         ///< joined batches of a parallel probe, in order
  std::vector<int64_t> group_start_;   ///< per key group, then the end
  std::vector<int64_t> rows_;          ///< right rows, grouped by key
  bool identity_ = false;              ///< every key once: group k is right row k
  std::vector<int64_t> row_of_group_;  ///< dense keys on one row each: the row, or -1
  std::vector<bool> has_rows_;         ///< dense keys: whether a group has a right row
  std::vector<bool> matched_right_;
  std::deque<BatchRef> pending_;  // left slices not probed yet
  bool left_done_ = false;
  bool emitted_unmatched_right_ = false;
};

}  // namespace

Result<std::vector<arrow::Datum>> JoinKeys(const JoinSpec& spec,
                                           const std::vector<BoundExprRef>& exprs,
                                           const arrow::RecordBatch& batch) {
  std::vector<arrow::Datum> out;
  EvalOptions eval;
  eval.now_micros = spec.now_micros;
  for (size_t i = 0; i < exprs.size(); ++i) {
    DELTA_ASSIGN_OR_RETURN(auto a, Evaluate(*exprs[i], batch, eval));
    if (!a->type()->Equals(*spec.key_types[i])) {
      DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum c,
                                   arrow::compute::Cast(a, spec.key_types[i]),
                                   ErrorCode::kSchemaMismatch, "JOIN key");
      a = c.make_array();
    }
    out.emplace_back(a);
  }
  return out;
}

Result<ReaderRef> OpenJoinReader(std::shared_ptr<const JoinSpec> spec, ReaderRef left,
                                 BatchRef right) {
  auto reader =
      std::make_shared<JoinReader>(std::move(spec), std::move(left), std::move(right));
  DELTA_RETURN_IF_ERROR(reader->Build());
  return ReaderRef(std::move(reader));
}

}  // namespace deltaguard::query_internal
