// The array kernels bound by expr/binder_arrays.cc, as Spark evaluates them: concat of
// arrays (NULL when one is), flatten (NULL when an inner array is), slice (1-based,
// negative from the end), reverse, array_join, array_position (1-based, 0 when
// absent), array_remove, the set functions array_union / array_intersect /
// array_except (distinct, first occurrences in order, NULL equal to NULL) and
// arrays_overlap (three-valued), array_max / array_min (NULLs skipped),
// array_compact, array_append / array_prepend, array_repeat and sequence. A result
// list is described by the positions it picks from its input's elements (Picks) and
// built with one Arrow take; elements are compared by Arrow kernels or hashed by its
// Grouper, never one scalar at a time.

#include <arrow/array/concatenate.h>
#include <arrow/compute/row/grouper.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "deltaguard/exec/expr_eval_array_internal.h"

namespace deltaguard::internal {

namespace cp = arrow::compute;
using arrow::Datum;

int64_t Rows(const LibraryCall& c) { return c.all_scalar() ? 1 : c.length; }

Result<std::shared_ptr<arrow::ListArray>> ListOf(const LibraryCall& c, size_t i) {
  DELTA_ASSIGN_OR_RETURN(auto a, ArgArray(c, c.args[i], Rows(c)));
  if (a->type_id() != arrow::Type::LIST) {
    return MakeError(ErrorCode::kInternal, "{}(): expected a list, got {}", c.e.name,
                     a->type()->ToString());
  }
  return std::static_pointer_cast<arrow::ListArray>(a);
}

Result<std::shared_ptr<arrow::Array>> Int64s(const LibraryCall& c,
                                             const std::vector<int64_t>& v,
                                             const std::vector<bool>* valid) {
  arrow::Int64Builder b;
  arrow::Status st = arrow::Status::OK();
  if (!v.empty()) st = valid ? b.AppendValues(v, *valid) : b.AppendValues(v);
  std::shared_ptr<arrow::Array> out;
  if (st.ok()) st = b.Finish(&out);
  if (!st.ok()) return EvalError(st, c.e.name, *c.e.type);
  return out;
}

Result<Datum> FinishPicks(const LibraryCall& c,
                          const std::shared_ptr<arrow::Array>& values, const Picks& p) {
  DELTA_ASSIGN_OR_RETURN(auto idx, Int64s(c, p.idx));
  DELTA_ASSIGN_OR_RETURN(Datum taken, CallArrow(c, "take", {values, idx}));
  DELTA_ASSIGN_OR_RETURN(auto type, ArrowTypeOf(*c.e.type));
  arrow::BooleanBuilder vb;
  auto st = vb.AppendValues(p.valid);
  std::shared_ptr<arrow::BooleanArray> valid;
  if (st.ok()) st = vb.Finish(&valid);
  if (!st.ok()) return EvalError(st, c.e.name, *c.e.type);
  const int64_t nulls = valid->false_count();
  auto list = std::make_shared<arrow::ListArray>(
      type, static_cast<int64_t>(p.valid.size()), arrow::Buffer::FromVector(p.offsets),
      taken.make_array(), nulls > 0 ? valid->values() : nullptr, nulls);
  return Shaped(c, list);
}

namespace {

Result<Datum> Concat(const LibraryCall& c) {
  std::vector<std::shared_ptr<arrow::ListArray>> lists;
  std::vector<std::shared_ptr<arrow::Array>> parts;
  std::vector<int64_t> base;  // where each argument's values start in `parts`
  int64_t total = 0;
  for (size_t i = 0; i < c.args.size(); ++i) {
    DELTA_ASSIGN_OR_RETURN(auto list, ListOf(c, i));
    base.push_back(total - list->value_offset(0));
    const int64_t len = list->value_offset(list->length()) - list->value_offset(0);
    parts.push_back(list->values()->Slice(list->value_offset(0), len));
    total += len;
    lists.push_back(std::move(list));
  }
  auto values = arrow::Concatenate(parts);
  if (!values.ok()) return EvalError(values.status(), c.e.name, *c.e.type);
  Picks p;
  for (int64_t r = 0; r < Rows(c); ++r) {
    bool null = false;
    for (const auto& l : lists) null = null || l->IsNull(r);
    if (!null) {
      for (size_t i = 0; i < lists.size(); ++i) {
        for (int64_t k = lists[i]->value_offset(r); k < lists[i]->value_offset(r + 1);
             ++k)
          p.idx.push_back(base[i] + k);
      }
    }
    p.EndRow(!null);
  }
  return FinishPicks(c, *values, p);
}

Result<Datum> Flatten(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto outer, ListOf(c, 0));
  if (outer->values()->type_id() == arrow::Type::NA) {
    Picks p;  // ARRAY<VOID>: every element is NULL, so every non-empty row is
    for (int64_t r = 0; r < Rows(c); ++r) {
      p.EndRow(!outer->IsNull(r) && outer->value_length(r) == 0);
    }
    return FinishPicks(c, outer->values(), p);
  }
  const auto& inner = static_cast<const arrow::ListArray&>(*outer->values());
  Picks p;
  for (int64_t r = 0; r < Rows(c); ++r) {
    bool null = outer->IsNull(r);
    const size_t mark = p.idx.size();
    for (int64_t j = outer->value_offset(r); !null && j < outer->value_offset(r + 1);
         ++j) {
      null = inner.IsNull(j);
      for (int64_t k = inner.value_offset(j); !null && k < inner.value_offset(j + 1); ++k)
        p.idx.push_back(k);
    }
    if (null) p.idx.resize(mark);
    p.EndRow(!null);
  }
  return FinishPicks(c, inner.values(), p);
}

Result<Datum> Slice(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto list, ListOf(c, 0));
  DELTA_ASSIGN_OR_RETURN(ArgRows start, ArgRows::Of(c.args[1]));
  DELTA_ASSIGN_OR_RETURN(ArgRows length, ArgRows::Of(c.args[2]));
  Picks p;
  for (int64_t r = 0; r < Rows(c); ++r) {
    if (list->IsNull(r) || start.IsNull(r) || length.IsNull(r)) {
      p.NullRow();
      continue;
    }
    const int64_t s = start.Int(r), n = length.Int(r), len = list->value_length(r);
    if (s == 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "INVALID_PARAMETER_VALUE.START: slice(): the start 0 is invalid; "
                       "array indices start at 1 (or -1 from the end)");
    }
    if (n < 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "INVALID_PARAMETER_VALUE.LENGTH: slice(): the length {} is "
                       "negative",
                       n);
    }
    const int64_t from = s > 0 ? s - 1 : len + s;
    if (from >= 0 && from < len) {
      const int64_t to = std::min(len, from + n);
      for (int64_t k = from; k < to; ++k) p.idx.push_back(list->value_offset(r) + k);
    }
    p.EndRow(true);
  }
  return FinishPicks(c, list->values(), p);
}

Result<Datum> Reverse(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto list, ListOf(c, 0));
  Picks p;
  for (int64_t r = 0; r < Rows(c); ++r) {
    for (int64_t k = list->value_offset(r + 1) - 1;
         !list->IsNull(r) && k >= list->value_offset(r); --k)
      p.idx.push_back(k);
    p.EndRow(!list->IsNull(r));
  }
  return FinishPicks(c, list->values(), p);
}

Result<Datum> Compact(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto list, ListOf(c, 0));
  const auto& values = *list->values();
  Picks p;
  for (int64_t r = 0; r < Rows(c); ++r) {
    for (int64_t k = list->value_offset(r);
         !list->IsNull(r) && k < list->value_offset(r + 1); ++k) {
      if (!values.IsNull(k)) p.idx.push_back(k);
    }
    p.EndRow(!list->IsNull(r));
  }
  return FinishPicks(c, list->values(), p);
}

// Whether each element of a list equals its row's value (argument 1): true, false, or
// NULL where either is NULL; for position k of list.values(), at k - base.
struct Equalities {
  std::shared_ptr<arrow::BooleanArray> eq;
  int64_t base = 0;
  bool True(int64_t k) const { return eq->IsValid(k - base) && eq->Value(k - base); }
};

Result<Equalities> ElementsEqual(const LibraryCall& c, const arrow::ListArray& list) {
  const int64_t begin = list.value_offset(0);
  const int64_t end = list.value_offset(list.length());
  std::vector<int64_t> parent;
  parent.reserve(static_cast<size_t>(end - begin));
  for (int64_t r = 0; r < list.length(); ++r) {
    for (int64_t k = list.value_offset(r); k < list.value_offset(r + 1); ++k)
      parent.push_back(r);
  }
  Datum value = c.args[1];
  if (value.is_array()) {
    DELTA_ASSIGN_OR_RETURN(auto idx, Int64s(c, parent));
    DELTA_ASSIGN_OR_RETURN(value, CallArrow(c, "take", {value, idx}));
  }
  auto elements = list.values()->Slice(begin, end - begin);
  DELTA_ASSIGN_OR_RETURN(Datum eq, CallArrow(c, "equal", {elements, value}));
  return Equalities{std::static_pointer_cast<arrow::BooleanArray>(eq.make_array()),
                    begin};
}

Result<Datum> Position(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto list, ListOf(c, 0));
  DELTA_ASSIGN_OR_RETURN(auto eq, ElementsEqual(c, *list));
  DELTA_ASSIGN_OR_RETURN(ArgRows value, ArgRows::Of(c.args[1]));
  return MapRows<arrow::Int64Builder>(
      c, false, [&](const std::vector<ArgRows>&, int64_t r, arrow::Int64Builder& b) {
        if (list->IsNull(r) || value.IsNull(r)) return Appended(b.AppendNull(), c);
        int64_t at = 0;
        for (int64_t k = list->value_offset(r); at == 0 && k < list->value_offset(r + 1);
             ++k) {
          if (eq.True(k)) at = k - list->value_offset(r) + 1;
        }
        return Appended(b.Append(at), c);
      });
}

Result<Datum> Remove(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto list, ListOf(c, 0));
  DELTA_ASSIGN_OR_RETURN(auto eq, ElementsEqual(c, *list));
  DELTA_ASSIGN_OR_RETURN(ArgRows value, ArgRows::Of(c.args[1]));
  Picks p;
  for (int64_t r = 0; r < Rows(c); ++r) {
    const bool null = list->IsNull(r) || value.IsNull(r);
    for (int64_t k = list->value_offset(r); !null && k < list->value_offset(r + 1); ++k) {
      if (!eq.True(k)) p.idx.push_back(k);
    }
    p.EndRow(!null);
  }
  return FinishPicks(c, list->values(), p);
}

// array_append(a, v) / array_prepend(a, v): the value joins the elements.
Result<Datum> AppendValue(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto list, ListOf(c, 0));
  DELTA_ASSIGN_OR_RETURN(auto value, ArgArray(c, c.args[1], Rows(c)));
  const int64_t at = list->values()->length();
  auto values = arrow::Concatenate({list->values(), value});
  if (!values.ok()) return EvalError(values.status(), c.e.name, *c.e.type);
  const bool front = c.e.name == "array_prepend";
  Picks p;
  for (int64_t r = 0; r < Rows(c); ++r) {
    if (list->IsNull(r)) {
      p.NullRow();
      continue;
    }
    if (front) p.idx.push_back(at + r);
    for (int64_t k = list->value_offset(r); k < list->value_offset(r + 1); ++k)
      p.idx.push_back(k);
    if (!front) p.idx.push_back(at + r);
    p.EndRow(true);
  }
  return FinishPicks(c, *values, p);
}

Result<Datum> Repeat(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto value, ArgArray(c, c.args[0], Rows(c)));
  DELTA_ASSIGN_OR_RETURN(ArgRows count, ArgRows::Of(c.args[1]));
  Picks p;
  for (int64_t r = 0; r < Rows(c); ++r) {
    if (count.IsNull(r)) {
      p.NullRow();
      continue;
    }
    const int64_t n = count.Int(r);
    if (n >
        std::numeric_limits<int32_t>::max() - 15 - static_cast<int64_t>(p.idx.size())) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "COLLECTION_SIZE_LIMIT_EXCEEDED: array_repeat(): {} elements are "
                       "more than an array holds",
                       n);
    }
    for (int64_t k = 0; k < n; ++k) p.idx.push_back(r);
    p.EndRow(true);
  }
  return FinishPicks(c, value, p);
}

Result<Datum> Sequence(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(std::vector<ArgRows> rows, RowsOf(c));
  std::vector<int64_t> values;
  Picks p;
  for (int64_t r = 0; r < Rows(c); ++r) {
    bool null = false;
    for (const auto& a : rows) null = null || a.IsNull(r);
    if (null) {
      p.NullRow();
      continue;
    }
    const int64_t start = rows[0].Int(r), stop = rows[1].Int(r);
    const int64_t step = rows.size() > 2 ? rows[2].Int(r) : (start <= stop ? 1 : -1);
    if ((step == 0 && start != stop) || (step > 0 && start > stop) ||
        (step < 0 && start < stop)) {
      return MakeError(
          ErrorCode::kInvalidArgument,
          "INVALID_PARAMETER_VALUE: sequence(): illegal sequence boundaries: "
          "{} to {} by {}",
          start, stop, step);
    }
    const __int128 span = static_cast<__int128>(stop) - start;
    const __int128 count = step == 0 ? 1 : span / step + 1;
    if (count + static_cast<__int128>(values.size()) >
        std::numeric_limits<int32_t>::max() - 15) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "COLLECTION_SIZE_LIMIT_EXCEEDED: sequence(): {} to {} by {} has "
                       "more elements than an array holds",
                       start, stop, step);
    }
    for (__int128 k = 0; k < count; ++k) {
      p.idx.push_back(static_cast<int64_t>(values.size()));
      values.push_back(static_cast<int64_t>(start + k * step));
    }
    p.EndRow(true);
  }
  DELTA_ASSIGN_OR_RETURN(auto array, Int64s(c, values));
  return FinishPicks(c, array, p);
}

}  // namespace

std::vector<KernelEntry> ArrayListKernels() {
  return {
      {"array_concat", Concat},
      {"flatten", Flatten},
      {"slice", Slice},
      {"array_reverse", Reverse},
      {"array_compact", Compact},
      {"array_position", Position},
      {"array_remove", Remove},
      {"array_append", AppendValue},
      {"array_prepend", AppendValue},
      {"array_repeat", Repeat},
      {"sequence", Sequence},
  };
}

}  // namespace deltaguard::internal
