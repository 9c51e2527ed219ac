// Joins (WIP, branch wip-joins): a join of two sources as one SourcePlan.
//
// Columns: the left source's, then the right's, each with the qualifiers of its
// relation (SourcePlan::columns). Names that repeat across the join get internal
// names (`name#i`) so binding and evaluation by name stay unambiguous; queries refer
// to them qualified (`o.id`), and an unqualified name that fits several columns is
// Spark's AMBIGUOUS_REFERENCE. USING (c, ...) and NATURAL put one column per name
// first (the left's, the right's for RIGHT joins, their coalesce for FULL joins) and
// keep both sides' columns reachable qualified only.
//
// Execution: the right side is read whole and its keys grouped (an Arrow grouper; a
// row with a NULL key never matches, as Spark's equi-join); the left side streams,
// each batch's keys looked up, matching pairs taken from both sides, the residual
// condition (the rest of ON) applied to the pairs. LEFT/FULL add left rows without a
// passing match, RIGHT/FULL the right rows never matched, at the end. SEMI and ANTI
// keep left rows with / without a passing match. Without equality keys every pair is
// a candidate (a nested loop over the right rows).

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/compute/row/grouper.h>
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/expr_eval.h"
#include "deltaguard/sql/query_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::query_internal {
namespace {

using Type = JoinClause::Type;

constexpr int64_t kMaxPairs = 1 << 20;  // candidate pairs per probe step, without keys

// The columns of a source as ColumnSource entries (a join's own, or one per field).
std::vector<ColumnSource> ColumnsOf(const SourcePlan& src) {
  if (!src.columns.empty()) return src.columns;
  std::vector<ColumnSource> out;
  for (const auto& f : src.schema->fields()) {
    out.push_back(ColumnSource{f.name, src.qualifiers, true, true});
  }
  return out;
}

// Splits `e` into its AND-ed conjuncts.
void Conjuncts(const ExprRef& e, std::vector<ExprRef>* out) {
  if (e->kind == ExprKind::kBinary && e->op == ExprOp::kAnd) {
    for (const auto& c : e->children) Conjuncts(c, out);
    return;
  }
  out->push_back(e);
}

std::vector<std::string> FieldNames(const StructType& schema) {
  std::vector<std::string> out;
  for (const auto& f : schema.fields()) out.push_back(f.name);
  return out;
}

// The one column named `name` (unqualified) of `cols`, or -1.
int FindUnqualified(const std::vector<ColumnSource>& cols, const std::string& name) {
  int found = -1;
  for (size_t i = 0; i < cols.size(); ++i) {
    if (cols[i].unqualified && EqualsIgnoreCase(cols[i].name, name)) {
      if (found >= 0) return -2;
      found = static_cast<int>(i);
    }
  }
  return found;
}

struct Side {
  SourcePlan plan;
  std::vector<ColumnSource> columns;
  std::shared_ptr<arrow::Schema> arrow_schema;
};

// What the join reader needs, fixed at planning.
struct JoinSpec {
  Type type = Type::kInner;
  std::vector<BoundExprRef> left_keys, right_keys;  // over each side's schema
  std::vector<std::shared_ptr<arrow::DataType>> key_types;
  BoundExprRef residual;  // over the pairs schema (left then right), may be null
  std::shared_ptr<arrow::Schema> pairs_schema;
  std::shared_ptr<arrow::Schema> output_schema;
  // Output columns: USING columns (left index, right index), then left, then right.
  std::vector<std::pair<int, int>> using_columns;
  bool keep_right = true;  // not for SEMI/ANTI
  int64_t now_micros = 0;
};

Result<std::shared_ptr<arrow::Array>> NullsLike(const std::shared_ptr<arrow::DataType>& t,
                                                int64_t n) {
  DELTA_ARROW_ASSIGN_OR_RETURN(auto a, arrow::MakeArrayOfNull(t, n), ErrorCode::kInternal,
                               "join");
  return a;
}

Result<std::shared_ptr<arrow::Array>> TakeArray(
    const std::shared_ptr<arrow::Array>& a, const std::shared_ptr<arrow::Array>& idx) {
  DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum d, arrow::compute::Take(a, idx),
                               ErrorCode::kInternal, "join");
  return d.make_array();
}

class JoinReader final : public arrow::RecordBatchReader {
 public:
  JoinReader(std::shared_ptr<const JoinSpec> spec, ReaderRef left, BatchRef right)
      : spec_(std::move(spec)), left_(std::move(left)), right_(std::move(right)) {}

  Status Build() {
    matched_right_.assign(static_cast<size_t>(right_->num_rows()), false);
    if (spec_->left_keys.empty()) return OkStatus();
    DELTA_ASSIGN_OR_RETURN(auto keys, Keys(spec_->right_keys, *right_));
    std::vector<arrow::TypeHolder> types;
    for (const auto& t : spec_->key_types) types.emplace_back(t);
    DELTA_ARROW_ASSIGN_OR_RETURN(grouper_, arrow::compute::Grouper::Make(types),
                                 ErrorCode::kUnsupportedFeature, "JOIN keys");
    if (right_->num_rows() == 0) return OkStatus();
    arrow::compute::ExecBatch exec(keys, right_->num_rows());
    DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum ids,
                                 grouper_->Consume(arrow::compute::ExecSpan(exec)),
                                 ErrorCode::kInternal, "JOIN build");
    auto id_array = ids.make_array();
    const auto& g = static_cast<const arrow::UInt32Array&>(*id_array);
    for (int64_t r = 0; r < g.length(); ++r) {
      if (AnyNull(keys, r)) continue;  // a NULL key never matches
      const uint32_t group = g.Value(r);
      if (rows_of_.size() <= group) rows_of_.resize(group + 1);
      rows_of_[group].push_back(r);
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
  // Whether a key of `row` is NULL (the keys are arrays: Datum::array() is no copy).
  static bool AnyNull(const std::vector<arrow::Datum>& keys, int64_t row) {
    for (const auto& k : keys) {
      if (!arrow::ArraySpan(*k.array()).IsValid(row)) return true;
    }
    return false;
  }

  Result<std::vector<arrow::Datum>> Keys(const std::vector<BoundExprRef>& exprs,
                                         const arrow::RecordBatch& batch) {
    std::vector<arrow::Datum> out;
    EvalOptions eval;
    eval.now_micros = spec_->now_micros;
    for (size_t i = 0; i < exprs.size(); ++i) {
      DELTA_ASSIGN_OR_RETURN(auto a, Evaluate(*exprs[i], batch, eval));
      if (!a->type()->Equals(*spec_->key_types[i])) {
        DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum c,
                                     arrow::compute::Cast(a, spec_->key_types[i]),
                                     ErrorCode::kSchemaMismatch, "JOIN key");
        a = c.make_array();
      }
      out.emplace_back(a);
    }
    return out;
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

  Status NextPending(BatchRef* out) {
    while (!pending_.empty()) {
      BatchRef batch = std::move(pending_.front());
      pending_.pop_front();
      DELTA_ASSIGN_OR_RETURN(BatchRef joined, Probe(batch));
      if (joined != nullptr && joined->num_rows() > 0) {
        *out = std::move(joined);
        return OkStatus();
      }
    }
    return OkStatus();
  }

  // The candidate pairs of a left batch, filtered by the residual.
  Result<BatchRef> Probe(const BatchRef& batch) {
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
      arrow::compute::ExecBatch exec(keys, batch->num_rows());
      DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum ids,
                                   grouper_->Lookup(arrow::compute::ExecSpan(exec)),
                                   ErrorCode::kInternal, "JOIN probe");
      auto id_array = ids.make_array();
      const auto& g = static_cast<const arrow::UInt32Array&>(*id_array);
      for (int64_t l = 0; l < g.length(); ++l) {
        if (g.IsNull(l) || AnyNull(keys, l) || g.Value(l) >= rows_of_.size()) continue;
        for (int64_t r : rows_of_[g.Value(l)]) {
          li.push_back(l);
          ri.push_back(r);
        }
      }
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
    std::vector<int64_t> out_l, out_r;
    for (size_t k = 0; k < li.size(); ++k) {
      if (!keep[k]) continue;
      left_matched[static_cast<size_t>(li[k])] = true;
      matched_right_[static_cast<size_t>(ri[k])] = true;
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
        return Output(batch, out_l, out_r);
      }
      default:
        return Output(batch, out_l, out_r);
    }
  }

  static Result<std::shared_ptr<arrow::Array>> Indices(const std::vector<int64_t>& rows) {
    arrow::Int64Builder b;
    for (int64_t r : rows) {
      DELTA_ARROW_RETURN_NOT_OK(r < 0 ? b.AppendNull() : b.Append(r),
                                ErrorCode::kInternal, "join");
    }
    std::shared_ptr<arrow::Array> out;
    DELTA_ARROW_RETURN_NOT_OK(b.Finish(&out), ErrorCode::kInternal, "join");
    return out;
  }

  Result<BatchRef> Pairs(const BatchRef& batch, const std::vector<int64_t>& li,
                         const std::vector<int64_t>& ri) {
    DELTA_ASSIGN_OR_RETURN(auto l_idx, Indices(li));
    DELTA_ASSIGN_OR_RETURN(auto r_idx, Indices(ri));
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (const auto& c : batch->columns()) {
      DELTA_ASSIGN_OR_RETURN(auto t, TakeArray(c, l_idx));
      columns.push_back(std::move(t));
    }
    for (const auto& c : right_->columns()) {
      DELTA_ASSIGN_OR_RETURN(auto t, TakeArray(c, r_idx));
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
    DELTA_ASSIGN_OR_RETURN(auto l_idx, Indices(li));
    DELTA_ASSIGN_OR_RETURN(auto r_idx, Indices(ri));
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
        DELTA_ASSIGN_OR_RETURN(auto t, TakeArray(batch->column(c), l_idx));
        left_cols.push_back(std::move(t));
      }
    }
    if (spec_->keep_right) {
      for (const auto& c : right_->columns()) {
        DELTA_ASSIGN_OR_RETURN(auto t, TakeArray(c, r_idx));
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
  std::unique_ptr<arrow::compute::Grouper> grouper_;
  std::vector<std::vector<int64_t>> rows_of_;
  std::vector<bool> matched_right_;
  std::deque<BatchRef> pending_;  // left slices not probed yet
  bool left_done_ = false;
  bool emitted_unmatched_right_ = false;
};

// `e` with its column references resolved against `cols` (internal names of
// `schema`); `*missing` when a reference is not among them.
Result<ExprRef> Resolve(const ExprRef& e, const std::vector<ColumnSource>& cols,
                        const StructType& schema, bool* missing) {
  if (e == nullptr) return e;
  if (e->kind == ExprKind::kColumn) {
    DELTA_ASSIGN_OR_RETURN(auto resolved, ResolveColumnPath(e->path, cols, schema));
    if (!resolved) {
      *missing = true;
      return e;
    }
    auto copy = std::make_shared<Expr>(*e);
    copy->path = std::move(*resolved);
    return ExprRef(copy);
  }
  auto copy = std::make_shared<Expr>(*e);
  for (auto& c : copy->children) {
    DELTA_ASSIGN_OR_RETURN(c, Resolve(c, cols, schema, missing));
  }
  return ExprRef(copy);
}

}  // namespace

Result<std::optional<std::vector<std::string>>> ResolveColumnPath(
    const std::vector<std::string>& path, const std::vector<ColumnSource>& cols,
    const StructType& schema) {
  std::vector<std::pair<size_t, size_t>> hits;  // column, parts consumed
  for (size_t i = 0; i < cols.size(); ++i) {
    for (const auto& q : cols[i].qualifiers) {
      std::vector<std::string_view> parts = Split(q, '.');
      if (path.size() <= parts.size()) continue;
      bool match = EqualsIgnoreCase(cols[i].name, path[parts.size()]);
      for (size_t k = 0; k < parts.size() && match; ++k) {
        match = EqualsIgnoreCase(parts[k], path[k]);
      }
      if (match) {
        hits.emplace_back(i, parts.size() + 1);
        break;
      }
    }
  }
  if (hits.empty()) {
    for (size_t i = 0; i < cols.size(); ++i) {
      if (cols[i].unqualified && EqualsIgnoreCase(cols[i].name, path[0])) {
        hits.emplace_back(i, 1);
      }
    }
  }
  if (hits.empty()) return std::optional<std::vector<std::string>>();
  if (hits.size() > 1) {
    std::vector<std::string> could;
    for (const auto& [i, used] : hits) {
      const auto& q = cols[i].qualifiers;
      could.push_back(q.empty() ? fmt::format("`{}`", cols[i].name)
                                : fmt::format("`{}`.`{}`", q[0], cols[i].name));
    }
    std::string shown;
    for (size_t k = 0; k < path.size(); ++k) shown += (k ? "." : "") + path[k];
    return MakeError(ErrorCode::kInvalidArgument,
                     "AMBIGUOUS_REFERENCE: Reference `{}` is ambiguous, could be: [{}]",
                     shown, fmt::join(could, ", "));
  }
  std::vector<std::string> out{schema.field(hits[0].first).name};
  out.insert(out.end(), path.begin() + static_cast<std::ptrdiff_t>(hits[0].second),
             path.end());
  return std::optional<std::vector<std::string>>(std::move(out));
}

Result<SourcePlan> PlanJoin(const FromClause& from, const QueryContext& context,
                            int depth) {
  const JoinClause& j = *from.join;
  Side left, right;
  DELTA_ASSIGN_OR_RETURN(left.plan, PlanFrom(j.left, context, nullptr, depth + 1));
  DELTA_ASSIGN_OR_RETURN(right.plan, PlanFrom(j.right, context, nullptr, depth + 1));
  for (Side* s : {&left, &right}) {
    s->columns = ColumnsOf(s->plan);
    DELTA_ASSIGN_OR_RETURN(s->arrow_schema, ToArrowSchema(*s->plan.schema));
  }
  auto spec = std::make_shared<JoinSpec>();
  spec->type = j.type;
  spec->now_micros = context.now_micros;
  spec->keep_right = j.type != Type::kLeftSemi && j.type != Type::kLeftAnti;

  // USING (or NATURAL): the pairs of columns, by name.
  std::vector<std::string> using_names = j.using_columns;
  if (j.natural) {
    for (const auto& c : left.columns) {
      if (c.unqualified && FindUnqualified(right.columns, c.name) >= 0) {
        using_names.push_back(c.name);
      }
    }
  }
  std::vector<std::pair<int, int>> using_pairs;
  for (const auto& name : using_names) {
    const int l = FindUnqualified(left.columns, name);
    const int r = FindUnqualified(right.columns, name);
    if (l < 0 || r < 0) {
      return MakeError(ErrorCode::kNotFound,
                       "UNRESOLVED_USING_COLUMN_FOR_JOIN: USING column `{}` cannot be "
                       "resolved on the {} side of the join",
                       name, l < 0 ? "left" : "right");
    }
    using_pairs.emplace_back(l, r);
    spec->left_keys.push_back(BoundColumn(left.plan.schema->field(l).name,
                                          left.plan.schema->field(l).type, true));
    spec->right_keys.push_back(BoundColumn(right.plan.schema->field(r).name,
                                           right.plan.schema->field(r).type, true));
  }

  // The output columns and their internal names.
  std::vector<ColumnSource> cols;
  std::vector<StructField> fields;
  for (const auto& [l, r] : using_pairs) {
    const auto& lf = left.plan.schema->field(static_cast<size_t>(l));
    const auto& rf = right.plan.schema->field(static_cast<size_t>(r));
    DataTypeRef type = CommonTypeOf(lf.type, rf.type);
    if (type == nullptr) {
      return MakeError(ErrorCode::kSchemaMismatch,
                       "USING column `{}` is {} on the left and {} on the right", lf.name,
                       lf.type->ToString(), rf.type->ToString());
    }
    if (spec->keep_right) {
      // As Spark: the left's column (the right's for RIGHT joins); FULL joins their
      // coalesce, of the common type.
      DataTypeRef out = j.type == Type::kFull    ? type
                        : j.type == Type::kRight ? rf.type
                                                 : lf.type;
      cols.push_back(
          ColumnSource{left.columns[static_cast<size_t>(l)].name, {}, true, true});
      fields.push_back(StructField{lf.name, out, true, {}});
    }
  }
  auto hidden = [&](const std::vector<std::pair<int, int>>& pairs, bool is_left,
                    size_t i) {
    for (const auto& p : pairs) {
      if (static_cast<size_t>(is_left ? p.first : p.second) == i) return true;
    }
    return false;
  };
  const size_t using_count = cols.size();
  for (size_t i = 0; i < left.columns.size(); ++i) {
    ColumnSource c = left.columns[i];
    if (spec->keep_right && hidden(using_pairs, true, i))
      c.unqualified = c.in_star = false;
    cols.push_back(std::move(c));
    fields.push_back(left.plan.schema->field(i));
  }
  if (spec->keep_right) {
    for (size_t i = 0; i < right.columns.size(); ++i) {
      ColumnSource c = right.columns[i];
      if (hidden(using_pairs, false, i)) c.unqualified = c.in_star = false;
      cols.push_back(std::move(c));
      fields.push_back(right.plan.schema->field(i));
    }
  }
  // Outer joins make the padded side nullable.
  for (size_t k = using_count; k < fields.size(); ++k) {
    const bool from_left = k < using_count + left.columns.size();
    if ((from_left && (j.type == Type::kRight || j.type == Type::kFull)) ||
        (!from_left && (j.type == Type::kLeft || j.type == Type::kFull))) {
      fields[k].nullable = true;
    }
  }
  std::map<std::string, int> seen;
  for (const auto& c : cols) ++seen[AsciiToLower(c.name)];
  for (size_t k = 0; k < fields.size(); ++k) {
    fields[k].name = seen[AsciiToLower(cols[k].name)] > 1
                         ? fmt::format("{}#{}", cols[k].name, k)
                         : cols[k].name;
  }
  auto schema = std::make_shared<const StructType>(fields);

  // The pairs schema: the left then the right columns under their output names.
  std::vector<StructField> pair_fields;
  std::vector<ColumnSource> pair_cols;
  for (size_t k = using_count; k < fields.size(); ++k) {
    pair_fields.push_back(fields[k]);
    pair_cols.push_back(cols[k]);
  }
  if (!spec->keep_right) {  // SEMI/ANTI: the right side only for the condition
    std::map<std::string, int> both;
    for (const auto& c : left.columns) ++both[AsciiToLower(c.name)];
    for (const auto& c : right.columns) ++both[AsciiToLower(c.name)];
    for (size_t i = 0; i < right.columns.size(); ++i) {
      StructField f = right.plan.schema->field(i);
      f.name = both[AsciiToLower(right.columns[i].name)] > 1
                   ? fmt::format("{}#r{}", right.columns[i].name, i)
                   : right.columns[i].name;
      pair_fields.push_back(std::move(f));
      pair_cols.push_back(right.columns[i]);
    }
  }
  const StructType pairs(pair_fields);

  // ON: equalities between the sides are keys, the rest the residual.
  if (j.on != nullptr) {
    std::vector<ExprRef> conjuncts, rest;
    Conjuncts(j.on, &conjuncts);
    for (const auto& c : conjuncts) {
      bool keyed = false;
      if (c->kind == ExprKind::kBinary && c->op == ExprOp::kEq &&
          c->children.size() == 2) {
        for (int swap = 0; swap < 2 && !keyed; ++swap) {
          bool lm = false, rm = false;
          DELTA_ASSIGN_OR_RETURN(ExprRef le, Resolve(c->children[swap], left.columns,
                                                     *left.plan.schema, &lm));
          DELTA_ASSIGN_OR_RETURN(ExprRef re, Resolve(c->children[1 - swap], right.columns,
                                                     *right.plan.schema, &rm));
          if (lm || rm) continue;
          auto lb = Bind(*le, *left.plan.schema);
          auto rb = Bind(*re, *right.plan.schema);
          if (!lb || !rb) continue;
          spec->left_keys.push_back(*lb);
          spec->right_keys.push_back(*rb);
          keyed = true;
        }
      }
      if (!keyed) rest.push_back(c);
    }
    if (!rest.empty()) {
      ExprRef residual = rest[0];
      for (size_t k = 1; k < rest.size(); ++k) {
        residual = Expr::Binary(ExprOp::kAnd, residual, rest[k]);
      }
      bool missing = false;
      DELTA_ASSIGN_OR_RETURN(residual, Resolve(residual, pair_cols, pairs, &missing));
      DELTA_ASSIGN_OR_RETURN(spec->residual, BindPredicate(*residual, pairs));
    }
  }
  for (size_t k = 0; k < spec->left_keys.size(); ++k) {
    DataTypeRef type = CommonTypeOf(spec->left_keys[k]->type, spec->right_keys[k]->type);
    if (type == nullptr) {
      return MakeError(
          ErrorCode::kSchemaMismatch, "JOIN condition: cannot compare {} with {}",
          spec->left_keys[k]->type->ToString(), spec->right_keys[k]->type->ToString());
    }
    DELTA_ASSIGN_OR_RETURN(auto arrow_type, ToArrowType(*type));
    spec->key_types.push_back(arrow_type);
  }
  DELTA_ASSIGN_OR_RETURN(spec->pairs_schema, ToArrowSchema(pairs));
  DELTA_ASSIGN_OR_RETURN(spec->output_schema, ToArrowSchema(*schema));
  std::vector<std::pair<int, int>> using_out;
  if (spec->keep_right) {
    for (const auto& [l, r] : using_pairs) using_out.emplace_back(l, r);
  }
  spec->using_columns = using_out;

  SourcePlan out;
  out.schema = schema;
  out.columns = cols;
  out.name = fmt::format("{} JOIN {}", left.plan.name, right.plan.name);
  std::shared_ptr<const JoinSpec> fixed = spec;
  auto left_open = left.plan.open;
  auto right_open = right.plan.open;
  auto left_names = FieldNames(*left.plan.schema);
  auto right_names = FieldNames(*right.plan.schema);
  auto right_schema = right.arrow_schema;
  out.open = [=](const std::vector<std::string>&) -> Result<ReaderRef> {
    DELTA_ASSIGN_OR_RETURN(ReaderRef r, right_open(right_names));
    DELTA_ASSIGN_OR_RETURN(auto table, ReadAll(r, right_schema, "JOIN right side"));
    DELTA_ARROW_ASSIGN_OR_RETURN(BatchRef right_batch, table->CombineChunksToBatch(),
                                 ErrorCode::kInternal, "JOIN right side");
    DELTA_ASSIGN_OR_RETURN(ReaderRef l, left_open(left_names));
    auto reader =
        std::make_shared<JoinReader>(fixed, std::move(l), std::move(right_batch));
    DELTA_RETURN_IF_ERROR(reader->Build());
    return ReaderRef(std::move(reader));
  };
  return out;
}

}  // namespace deltaguard::query_internal
