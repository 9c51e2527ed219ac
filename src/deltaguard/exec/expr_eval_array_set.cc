// Array kernels that compare elements across a row (bound by expr/binder_arrays.cc):
// array_union, array_intersect and array_except (distinct elements, first occurrences
// in order, NULL equal to NULL, as Spark), arrays_overlap (true when a non-NULL element
// is common; else NULL when both are non-empty and one holds a NULL; else false),
// array_max / array_min (NULLs skipped) and array_join. Elements are hashed together
// with their row by Arrow's Grouper, so "equal" is one group id.

#include <arrow/array/concatenate.h>
#include <arrow/compute/row/grouper.h>

#include <memory>
#include <string>
#include <vector>

#include "deltaguard/exec/expr_eval_array_internal.h"

namespace deltaguard::internal {

namespace cp = arrow::compute;
using arrow::Datum;

namespace {

// The elements of two list arguments side by side: every element of `a`, then every
// element of `b`, each with the group id of (its row, its value).
struct TwoLists {
  std::shared_ptr<arrow::ListArray> a, b;
  std::shared_ptr<arrow::Array> values;  // a's referenced elements, then b's
  std::vector<uint32_t> id;              // per position in `values`
  uint32_t groups = 0;
  int64_t a_base = 0, b_base = 0;  // position in `values` = base + list offset
  int64_t APos(int64_t k) const { return a_base + k; }
  int64_t BPos(int64_t k) const { return b_base + k; }
};

Result<TwoLists> Group(const LibraryCall& c) {
  TwoLists t;
  DELTA_ASSIGN_OR_RETURN(t.a, ListOf(c, 0));
  DELTA_ASSIGN_OR_RETURN(t.b, ListOf(c, 1));
  const int64_t a0 = t.a->value_offset(0), a1 = t.a->value_offset(t.a->length());
  const int64_t b0 = t.b->value_offset(0), b1 = t.b->value_offset(t.b->length());
  t.a_base = -a0;
  t.b_base = (a1 - a0) - b0;
  auto values = arrow::Concatenate(
      {t.a->values()->Slice(a0, a1 - a0), t.b->values()->Slice(b0, b1 - b0)});
  if (!values.ok()) return EvalError(values.status(), c.e.name, *c.e.type);
  t.values = *values;
  const int64_t n = t.values->length();
  if (n == 0) return t;
  arrow::UInt32Builder rows;
  auto st = rows.Reserve(n);
  for (const auto* list : {t.a.get(), t.b.get()}) {
    for (int64_t r = 0; st.ok() && r < list->length(); ++r) {
      for (int64_t k = list->value_offset(r); k < list->value_offset(r + 1); ++k)
        rows.UnsafeAppend(static_cast<uint32_t>(r));
    }
  }
  std::shared_ptr<arrow::Array> row_ids;
  if (st.ok()) st = rows.Finish(&row_ids);
  if (!st.ok()) return EvalError(st, c.e.name, *c.e.type);
  auto grouper = cp::Grouper::Make({arrow::uint32(), t.values->type()});
  if (!grouper.ok()) return EvalError(grouper.status(), c.e.name, *c.e.type);
  cp::ExecBatch batch({Datum(row_ids), Datum(t.values)}, n);
  auto ids = (*grouper)->Consume(cp::ExecSpan(batch));
  if (!ids.ok()) return EvalError(ids.status(), c.e.name, *c.e.type);
  auto id_array = ids->array_as<arrow::UInt32Array>();
  t.id.assign(id_array->raw_values(), id_array->raw_values() + n);
  t.groups = (*grouper)->num_groups();
  return t;
}

Result<Datum> SetOp(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(TwoLists t, Group(c));
  const std::string& fn = c.e.name;
  std::vector<bool> in_b(t.groups, false), seen(t.groups, false);
  for (int64_t r = 0; fn != "array_union" && r < t.b->length(); ++r) {
    for (int64_t k = t.b->value_offset(r); k < t.b->value_offset(r + 1); ++k)
      in_b[t.id[t.BPos(k)]] = true;
  }
  Picks p;
  auto emit = [&](int64_t pos, bool wanted) {
    const uint32_t g = t.id[pos];
    if (!wanted || seen[g]) return;
    seen[g] = true;
    p.idx.push_back(pos);
  };
  for (int64_t r = 0; r < Rows(c); ++r) {
    if (t.a->IsNull(r) || t.b->IsNull(r)) {
      p.NullRow();
      continue;
    }
    for (int64_t k = t.a->value_offset(r); k < t.a->value_offset(r + 1); ++k) {
      const int64_t pos = t.APos(k);
      emit(pos, fn == "array_union" || (fn == "array_intersect") == in_b[t.id[pos]]);
    }
    for (int64_t k = t.b->value_offset(r);
         fn == "array_union" && k < t.b->value_offset(r + 1); ++k) {
      emit(t.BPos(k), true);
    }
    p.EndRow(true);
  }
  return FinishPicks(c, t.values, p);
}

Result<Datum> Overlap(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(TwoLists t, Group(c));
  std::vector<bool> in_b(t.groups, false);
  for (int64_t r = 0; r < t.b->length(); ++r) {
    for (int64_t k = t.b->value_offset(r); k < t.b->value_offset(r + 1); ++k) {
      if (t.values->IsValid(t.BPos(k))) in_b[t.id[t.BPos(k)]] = true;
    }
  }
  auto has_null = [&](const arrow::ListArray& l, int64_t base, int64_t r) {
    for (int64_t k = l.value_offset(r); k < l.value_offset(r + 1); ++k) {
      if (t.values->IsNull(base + k)) return true;
    }
    return false;
  };
  return MapRows<arrow::BooleanBuilder>(
      c, false, [&](const std::vector<ArgRows>&, int64_t r, arrow::BooleanBuilder& b) {
        if (t.a->IsNull(r) || t.b->IsNull(r)) return Appended(b.AppendNull(), c);
        for (int64_t k = t.a->value_offset(r); k < t.a->value_offset(r + 1); ++k) {
          if (t.values->IsValid(t.APos(k)) && in_b[t.id[t.APos(k)]]) {
            return Appended(b.Append(true), c);
          }
        }
        const bool unknown = t.a->value_length(r) > 0 && t.b->value_length(r) > 0 &&
                             (has_null(*t.a, t.a_base, r) || has_null(*t.b, t.b_base, r));
        return Appended(unknown ? b.AppendNull() : b.Append(false), c);
      });
}

// array_max / array_min: the row's elements sorted with NULLs last; the first of each
// row is its answer (NULL when the row has no non-NULL element).
Result<Datum> Extreme(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto list, ListOf(c, 0));
  const int64_t begin = list->value_offset(0);
  const int64_t end = list->value_offset(list->length());
  auto values = list->values()->Slice(begin, end - begin);
  std::vector<int64_t> parent;
  parent.reserve(static_cast<size_t>(end - begin));
  for (int64_t r = 0; r < list->length(); ++r) {
    for (int64_t k = list->value_offset(r); k < list->value_offset(r + 1); ++k)
      parent.push_back(r);
  }
  DELTA_ASSIGN_OR_RETURN(auto parents, Int64s(c, parent));
  auto batch =
      arrow::RecordBatch::Make(arrow::schema({arrow::field("p", arrow::int64()),
                                              arrow::field("v", values->type())}),
                               values->length(), {parents, values});
  const bool max = c.e.name == "array_max";
  cp::SortOptions opts(
      {cp::SortKey("p", cp::SortOrder::Ascending),
       cp::SortKey("v", max ? cp::SortOrder::Descending : cp::SortOrder::Ascending)},
      cp::NullPlacement::AtEnd);
  DELTA_ASSIGN_OR_RETURN(Datum order,
                         CallArrow(c, "sort_indices", {Datum(batch)}, &opts));
  auto sorted = order.array_as<arrow::UInt64Array>();
  std::vector<int64_t> pick(static_cast<size_t>(list->length()), 0);
  std::vector<bool> valid(static_cast<size_t>(list->length()), false);
  for (int64_t r = 0; r < list->length(); ++r) {
    // Rows keep their order and sizes in the sort, so row r's first is at its offset.
    if (list->IsNull(r) || list->value_length(r) == 0) continue;
    const auto first = static_cast<int64_t>(sorted->Value(list->value_offset(r) - begin));
    if (values->IsNull(first)) continue;
    pick[static_cast<size_t>(r)] = first;
    valid[static_cast<size_t>(r)] = true;
  }
  DELTA_ASSIGN_OR_RETURN(auto idx, Int64s(c, pick, &valid));
  DELTA_ASSIGN_OR_RETURN(Datum out, CallArrow(c, "take", {values, idx}));
  return Shaped(c, out.make_array());
}

// array_join(a, delimiter [, nullReplacement]): NULL elements are left out, or replaced
// when a replacement is given (a NULL replacement makes the row NULL).
Result<Datum> Join(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto list, ListOf(c, 0));
  const auto& values = static_cast<const arrow::StringArray&>(*list->values());
  const bool replaces = c.args.size() > 2;
  return MapRows<arrow::StringBuilder>(
      c, true, [&](const std::vector<ArgRows>& a, int64_t r, arrow::StringBuilder& b) {
        std::string out;
        bool first = true;
        for (int64_t k = list->value_offset(r); k < list->value_offset(r + 1); ++k) {
          if (values.IsNull(k) && !replaces) continue;
          if (!first) out.append(a[1].Str(r));
          first = false;
          out.append(values.IsNull(k) ? a[2].Str(r) : values.GetView(k));
        }
        return Appended(b.Append(out), c);
      });
}

}  // namespace

std::vector<KernelEntry> ArraySetKernels() {
  return {
      {"array_union", SetOp},      {"array_intersect", SetOp}, {"array_except", SetOp},
      {"arrays_overlap", Overlap}, {"array_max", Extreme},     {"array_min", Extreme},
      {"array_join", Join},
  };
}

}  // namespace deltaguard::internal
