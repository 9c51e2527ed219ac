// Higher-order functions (BoundFn::kHigherOrder, typed in expr/binder_lambda.cc): a
// lambda's body runs once over all the elements of the batch's arrays, as a batch of
// its own whose rows are the elements: the parameters are its columns (`path` names
// them), and the outer columns the body reads are taken along, one row per element.
// transform and zip_with rebuild lists of the results, filter keeps the elements whose
// predicate is true, exists/forall fold the predicate three-valued (exists: true if
// any is true, else NULL if any is NULL, else false). aggregate runs its merge once per
// element position, over the rows that still have an element there, since each step
// reads the previous accumulator.

#include <arrow/array/concatenate.h>
#include <arrow/builder.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/expr_eval_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {

namespace cp = arrow::compute;
using arrow::Datum;

namespace {

// The names of top-level columns `e` reads.
void ReadColumns(const BoundExpr& e, std::vector<std::string>* names) {
  if (e.kind == BoundKind::kColumn && !e.path.empty()) names->push_back(e.path[0]);
  for (const auto& a : e.args) ReadColumns(*a, names);
}

Result<std::shared_ptr<arrow::Array>> Int64Array(
    const std::vector<int64_t>& v, const std::vector<bool>* valid = nullptr) {
  arrow::Int64Builder b;
  arrow::Status st = arrow::Status::OK();
  if (!v.empty()) st = valid ? b.AppendValues(v, *valid) : b.AppendValues(v);
  std::shared_ptr<arrow::Array> out;
  if (st.ok()) st = b.Finish(&out);
  DELTA_ARROW_RETURN_NOT_OK(st, ErrorCode::kInternal, "a lambda's rows");
  return out;
}

Result<std::shared_ptr<arrow::Array>> Take(const std::shared_ptr<arrow::Array>& values,
                                           const std::shared_ptr<arrow::Array>& idx) {
  DELTA_ARROW_ASSIGN_OR_RETURN(Datum out, cp::Take(values, idx), ErrorCode::kInternal,
                               "a lambda's rows");
  return out.make_array();
}

// The elements of a list's rows: their values (referenced ones only), the row each
// belongs to and its position in the row, and the rows' offsets rebased to 0.
struct Elements {
  std::shared_ptr<arrow::ListArray> list;
  std::shared_ptr<arrow::Array> values;
  std::vector<int64_t> row;
  std::vector<int32_t> offsets;
};

Result<Elements> ElementsOf(const std::shared_ptr<arrow::Array>& a) {
  Elements el;
  el.list = std::static_pointer_cast<arrow::ListArray>(a);
  const auto& l = *el.list;
  const int32_t begin = l.value_offset(0), end = l.value_offset(l.length());
  el.values = l.values()->Slice(begin, end - begin);
  el.row.reserve(static_cast<size_t>(end - begin));
  el.offsets.reserve(static_cast<size_t>(l.length()) + 1);
  for (int64_t r = 0; r < l.length(); ++r) {
    el.offsets.push_back(l.value_offset(r) - begin);
    for (int32_t k = l.value_offset(r); k < l.value_offset(r + 1); ++k)
      el.row.push_back(r);
  }
  el.offsets.push_back(end - begin);
  return el;
}

Result<std::shared_ptr<arrow::Array>> ListOf(const DataType& type, int64_t rows,
                                             std::vector<int32_t> offsets,
                                             const std::shared_ptr<arrow::Array>& values,
                                             std::shared_ptr<arrow::Buffer> validity,
                                             int64_t nulls) {
  DELTA_ASSIGN_OR_RETURN(auto arrow_type, ArrowTypeOf(type));
  return std::make_shared<arrow::ListArray>(arrow_type, rows,
                                            arrow::Buffer::FromVector(std::move(offsets)),
                                            values, std::move(validity), nulls);
}

}  // namespace

Result<std::shared_ptr<arrow::Array>> Evaluator::RunLambda(
    const BoundExpr& body, const std::vector<size_t>& own,
    const std::vector<std::string>& columns,
    std::vector<std::shared_ptr<arrow::Array>> vars, const std::vector<int64_t>& rows,
    int64_t length) {
  std::vector<std::string> read;
  ReadColumns(body, &read);
  std::vector<std::shared_ptr<arrow::Field>> fields;
  std::vector<std::shared_ptr<arrow::Array>> arrays;
  for (size_t i : own) {
    fields.push_back(arrow::field(columns[i], vars[i]->type()));
    arrays.push_back(vars[i]);
  }
  std::shared_ptr<arrow::Array> idx;
  const auto& schema = *batch_.schema();
  for (int i = 0; i < schema.num_fields(); ++i) {
    const std::string& name = schema.field(i)->name();
    bool wanted = false;
    for (const auto& r : read) wanted = wanted || EqualsIgnoreCase(r, name);
    for (const auto& f : fields) wanted = wanted && !EqualsIgnoreCase(f->name(), name);
    if (!wanted) continue;
    if (idx == nullptr) {
      DELTA_ASSIGN_OR_RETURN(idx, Int64Array(rows));
    }
    DELTA_ASSIGN_OR_RETURN(auto taken, Take(batch_.column(i), idx));
    fields.push_back(schema.field(i));
    arrays.push_back(std::move(taken));
  }
  auto batch = arrow::RecordBatch::Make(arrow::schema(fields), length, arrays);
  Evaluator sub(*batch, EvalOptions{now_micros_});
  DELTA_ASSIGN_OR_RETURN(Datum out, sub.Eval(body));
  return AsArray(out, length);
}

Result<Datum> Evaluator::HigherOrder(const BoundExpr& e) {
  const int64_t n = batch_.num_rows();
  DELTA_ASSIGN_OR_RETURN(Datum first, Eval(*e.args[0]));
  DELTA_ASSIGN_OR_RETURN(auto array, AsArray(first, n));
  DELTA_ASSIGN_OR_RETURN(Elements el, ElementsOf(array));
  const auto count = static_cast<int64_t>(el.row.size());
  if (e.name == "aggregate") return Aggregate(e, el.list);
  if (e.name == "zip_with") return ZipWith(e, el.list);
  std::vector<std::shared_ptr<arrow::Array>> vars{el.values};
  if (e.path.size() > 1) {
    arrow::Int32Builder pos;
    DELTA_ARROW_RETURN_NOT_OK(pos.Reserve(count), ErrorCode::kInternal, "lambda");
    for (int64_t r = 0; r < el.list->length(); ++r) {
      for (int32_t k = 0; k < el.list->value_length(r); ++k) pos.UnsafeAppend(k);
    }
    std::shared_ptr<arrow::Array> positions;
    DELTA_ARROW_RETURN_NOT_OK(pos.Finish(&positions), ErrorCode::kInternal, "lambda");
    vars.push_back(positions);
  }
  std::vector<size_t> own(e.path.size());
  for (size_t i = 0; i < own.size(); ++i) own[i] = i;
  DELTA_ASSIGN_OR_RETURN(auto out,
                         RunLambda(*e.args[1], own, e.path, vars, el.row, count));
  DELTA_ASSIGN_OR_RETURN(auto validity, BitmapAtZero(*el.list));
  if (e.name == "transform") {
    DELTA_ASSIGN_OR_RETURN(auto list, ListOf(*e.type, n, std::move(el.offsets), out,
                                             validity, el.list->null_count()));
    return Datum(list);
  }
  const auto& p = static_cast<const arrow::BooleanArray&>(*out);
  if (e.name == "filter") {
    std::vector<int64_t> keep;
    std::vector<int32_t> offsets{0};
    for (int64_t r = 0; r < n; ++r) {
      for (int32_t k = el.offsets[r]; k < el.offsets[r + 1]; ++k) {
        if (p.IsValid(k) && p.Value(k)) keep.push_back(k);
      }
      offsets.push_back(static_cast<int32_t>(keep.size()));
    }
    DELTA_ASSIGN_OR_RETURN(auto idx, Int64Array(keep));
    DELTA_ASSIGN_OR_RETURN(auto kept, Take(el.values, idx));
    DELTA_ASSIGN_OR_RETURN(auto list, ListOf(*e.type, n, std::move(offsets), kept,
                                             validity, el.list->null_count()));
    return Datum(list);
  }
  // exists: the first true decides; forall: the first false.
  const bool decisive = e.name == "exists";
  arrow::BooleanBuilder b;
  DELTA_ARROW_RETURN_NOT_OK(b.Reserve(n), ErrorCode::kInternal, "lambda");
  for (int64_t r = 0; r < n; ++r) {
    bool decided = false, unknown = false;
    for (int32_t k = el.offsets[r]; !decided && k < el.offsets[r + 1]; ++k) {
      unknown = unknown || p.IsNull(k);
      decided = p.IsValid(k) && p.Value(k) == decisive;
    }
    if (el.list->IsNull(r) || (!decided && unknown)) {
      b.UnsafeAppendNull();
    } else {
      b.UnsafeAppend(decided ? decisive : !decisive);
    }
  }
  std::shared_ptr<arrow::Array> result;
  DELTA_ARROW_RETURN_NOT_OK(b.Finish(&result), ErrorCode::kInternal, "lambda");
  return Datum(result);
}

Result<Datum> Evaluator::ZipWith(const BoundExpr& e,
                                 const std::shared_ptr<arrow::ListArray>& a) {
  const int64_t n = batch_.num_rows();
  DELTA_ASSIGN_OR_RETURN(Datum second, Eval(*e.args[1]));
  DELTA_ASSIGN_OR_RETURN(auto b_array, AsArray(second, n));
  const auto& b = static_cast<const arrow::ListArray&>(*b_array);
  std::vector<int64_t> rows, xi, yi;
  std::vector<bool> xv, yv, valid;
  std::vector<int32_t> offsets{0};
  for (int64_t r = 0; r < n; ++r) {
    const bool null = a->IsNull(r) || b.IsNull(r);
    valid.push_back(!null);
    const int32_t la = a->value_length(r), lb = b.value_length(r);
    for (int32_t k = 0; !null && k < std::max(la, lb); ++k) {
      rows.push_back(r);
      xi.push_back(k < la ? a->value_offset(r) + k : 0);
      xv.push_back(k < la);
      yi.push_back(k < lb ? b.value_offset(r) + k : 0);
      yv.push_back(k < lb);
    }
    offsets.push_back(static_cast<int32_t>(rows.size()));
  }
  DELTA_ASSIGN_OR_RETURN(auto xidx, Int64Array(xi, &xv));
  DELTA_ASSIGN_OR_RETURN(auto yidx, Int64Array(yi, &yv));
  DELTA_ASSIGN_OR_RETURN(auto x, Take(a->values(), xidx));
  DELTA_ASSIGN_OR_RETURN(auto y, Take(b.values(), yidx));
  const auto count = static_cast<int64_t>(rows.size());
  DELTA_ASSIGN_OR_RETURN(auto out,
                         RunLambda(*e.args[2], {0, 1}, e.path, {x, y}, rows, count));
  arrow::BooleanBuilder vb;
  DELTA_ARROW_RETURN_NOT_OK(vb.AppendValues(valid), ErrorCode::kInternal, "zip_with");
  std::shared_ptr<arrow::BooleanArray> v;
  DELTA_ARROW_RETURN_NOT_OK(vb.Finish(&v), ErrorCode::kInternal, "zip_with");
  const int64_t nulls = v->false_count();
  DELTA_ASSIGN_OR_RETURN(auto list, ListOf(*e.type, n, std::move(offsets), out,
                                           nulls > 0 ? v->values() : nullptr, nulls));
  return Datum(list);
}

Result<Datum> Evaluator::Aggregate(const BoundExpr& e,
                                   const std::shared_ptr<arrow::ListArray>& list) {
  const int64_t n = batch_.num_rows();
  DELTA_ASSIGN_OR_RETURN(Datum start, Eval(*e.args[1]));
  DELTA_ASSIGN_OR_RETURN(auto acc, AsArray(start, n));
  int32_t longest = 0;
  for (int64_t r = 0; r < n; ++r) {
    if (!list->IsNull(r)) longest = std::max(longest, list->value_length(r));
  }
  std::vector<int64_t> all(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) all[static_cast<size_t>(r)] = r;
  // Step k: the rows with a k-th element merge it into their accumulator; the others
  // keep theirs (position r of [acc, merged] is r; merged row j is at n + j).
  for (int32_t k = 0; k < longest; ++k) {
    std::vector<int64_t> rows, elements, pick(all);
    for (int64_t r = 0; r < n; ++r) {
      if (list->IsNull(r) || list->value_length(r) <= k) continue;
      pick[static_cast<size_t>(r)] = n + static_cast<int64_t>(rows.size());
      rows.push_back(r);
      elements.push_back(list->value_offset(r) + k);
    }
    DELTA_ASSIGN_OR_RETURN(auto ridx, Int64Array(rows));
    DELTA_ASSIGN_OR_RETURN(auto eidx, Int64Array(elements));
    DELTA_ASSIGN_OR_RETURN(auto acc_rows, Take(acc, ridx));
    DELTA_ASSIGN_OR_RETURN(auto x, Take(list->values(), eidx));
    DELTA_ASSIGN_OR_RETURN(auto merged,
                           RunLambda(*e.args[2], {0, 1}, e.path, {acc_rows, x}, rows,
                                     static_cast<int64_t>(rows.size())));
    DELTA_ARROW_ASSIGN_OR_RETURN(auto both, arrow::Concatenate({acc, merged}),
                                 ErrorCode::kInternal, "aggregate");
    DELTA_ASSIGN_OR_RETURN(auto pidx, Int64Array(pick));
    DELTA_ASSIGN_OR_RETURN(acc, Take(both, pidx));
  }
  if (e.args.size() > 3) {
    DELTA_ASSIGN_OR_RETURN(
        acc, RunLambda(*e.args[3], {2}, e.path, {nullptr, nullptr, acc}, all, n));
  }
  // A NULL array's result is NULL.
  if (list->null_count() > 0) {
    std::vector<bool> valid(static_cast<size_t>(n));
    for (int64_t r = 0; r < n; ++r) valid[static_cast<size_t>(r)] = !list->IsNull(r);
    DELTA_ASSIGN_OR_RETURN(auto idx, Int64Array(all, &valid));
    DELTA_ASSIGN_OR_RETURN(acc, Take(acc, idx));
  }
  return Datum(acc);
}

}  // namespace deltaguard::internal
