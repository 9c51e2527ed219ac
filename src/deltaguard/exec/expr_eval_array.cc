// Array kernels of the function library: size, element_at (1-based, negative from the
// end, ANSI errors out of bounds), array_contains (Spark's three-valued answer),
// sort_array (NULLs first ascending, last descending; array_sort: NULLs last),
// array_distinct (first occurrences) and the array(...) constructor. Each works on the
// list's child values at once (one Arrow call over every row's elements), never element
// by element through scalars.

#include <arrow/array/concatenate.h>
#include <arrow/compute/row/grouper.h>

#include <memory>
#include <string>
#include <vector>

#include "deltaguard/exec/expr_eval_library_internal.h"

namespace deltaguard::internal {

namespace cp = arrow::compute;
using arrow::Datum;

namespace {

// The call's first argument as a list array of the batch's length.
Result<std::shared_ptr<arrow::ListArray>> ListArg(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto a, ArgArray(c, c.args[0], c.length));
  if (a->type_id() != arrow::Type::LIST) {
    return MakeError(ErrorCode::kInternal, "{}(): expected a list, got {}", c.e.name,
                     a->type()->ToString());
  }
  return std::static_pointer_cast<arrow::ListArray>(a);
}

// The child values of rows [0, n) and, for each, the row it belongs to.
struct Elements {
  std::shared_ptr<arrow::Array> values;
  std::vector<int64_t> parent;
};

Elements ElementsOf(const arrow::ListArray& list) {
  Elements out;
  const int64_t begin = list.value_offset(0);
  const int64_t end = list.value_offset(list.length());
  out.values = list.values()->Slice(begin, end - begin);
  out.parent.reserve(static_cast<size_t>(end - begin));
  for (int64_t r = 0; r < list.length(); ++r) {
    for (int64_t k = list.value_offset(r); k < list.value_offset(r + 1); ++k) {
      out.parent.push_back(r);
    }
  }
  return out;
}

Result<std::shared_ptr<arrow::Array>> Indices(const LibraryCall& c,
                                              const std::vector<int64_t>& idx) {
  arrow::Int64Builder b;
  auto st = idx.empty() ? arrow::Status::OK() : b.AppendValues(idx);
  std::shared_ptr<arrow::Array> out;
  if (st.ok()) st = b.Finish(&out);
  if (!st.ok()) return EvalError(st, c.e.name, *c.e.type);
  return out;
}

// A list of `type` with `offsets` (rows + 1 entries), the child `values` and the
// validity of `like`.
Result<Datum> MakeList(const LibraryCall& c, const std::vector<int32_t>& offsets,
                       const std::shared_ptr<arrow::Array>& values,
                       const arrow::ListArray& like) {
  DELTA_ASSIGN_OR_RETURN(auto type, ArrowTypeOf(*c.e.type));
  auto buffer = arrow::Buffer::FromVector(offsets);
  auto list = std::make_shared<arrow::ListArray>(type, like.length(), buffer, values,
                                                 like.null_bitmap(), like.null_count(),
                                                 like.offset());
  return Shaped(c, list);
}

Result<Datum> Size(const LibraryCall& c) {
  return CallArrow(c, "list_value_length", {c.args[0]});
}

Result<Datum> ElementAt(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto list, ListArg(c));
  DELTA_ASSIGN_OR_RETURN(ArgRows index, ArgRows::Of(c.args[1]));
  std::vector<int64_t> take;
  std::vector<bool> valid;
  const int64_t n = c.all_scalar() ? 1 : c.length;
  for (int64_t r = 0; r < n; ++r) {
    if (list->IsNull(r) || index.IsNull(r)) {
      take.push_back(0);
      valid.push_back(false);
      continue;
    }
    const int64_t i = index.Int(r), len = list->value_length(r);
    if (i == 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "INVALID_INDEX_OF_ZERO: element_at(): the index 0 is invalid; "
                       "indexes count from 1 (or from -1 at the end)");
    }
    if (i > len || -i > len) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "INVALID_ARRAY_INDEX_IN_ELEMENT_AT: element_at(): the index {} is "
                       "out of bounds; the array has {} elements",
                       i, len);
    }
    take.push_back(list->value_offset(r) + (i > 0 ? i - 1 : len + i));
    valid.push_back(true);
  }
  arrow::Int64Builder b;
  auto st = take.empty() ? arrow::Status::OK() : b.AppendValues(take, valid);
  std::shared_ptr<arrow::Array> idx;
  if (st.ok()) st = b.Finish(&idx);
  if (!st.ok()) return EvalError(st, c.e.name, *c.e.type);
  DELTA_ASSIGN_OR_RETURN(Datum out, CallArrow(c, "take", {list->values(), idx}));
  return Shaped(c, out.make_array());
}

Result<Datum> ArrayContains(const LibraryCall& c) {
  // true when an element equals the value; else NULL when an element is NULL; else
  // false. A NULL array or value gives NULL.
  DELTA_ASSIGN_OR_RETURN(auto list, ListArg(c));
  Elements el = ElementsOf(*list);
  Datum value = c.args[1];
  if (value.is_array()) {
    DELTA_ASSIGN_OR_RETURN(auto idx, Indices(c, el.parent));
    DELTA_ASSIGN_OR_RETURN(value, CallArrow(c, "take", {value, idx}));
  }
  DELTA_ASSIGN_OR_RETURN(Datum eq, CallArrow(c, "equal", {el.values, value}));
  auto eq_array = std::static_pointer_cast<arrow::BooleanArray>(eq.make_array());
  DELTA_ASSIGN_OR_RETURN(ArgRows v, ArgRows::Of(c.args[1]));
  const int64_t n = c.all_scalar() ? 1 : c.length;
  std::vector<int8_t> found(static_cast<size_t>(n), 0);  // 0 no, 1 yes, 2 a NULL seen
  for (size_t k = 0; k < el.parent.size(); ++k) {
    int8_t& f = found[static_cast<size_t>(el.parent[k])];
    if (eq_array->IsNull(static_cast<int64_t>(k))) {
      if (f == 0 && el.values->IsNull(static_cast<int64_t>(k))) f = 2;
    } else if (eq_array->Value(static_cast<int64_t>(k))) {
      f = 1;
    }
  }
  return MapRows<arrow::BooleanBuilder>(
      c, true,
      [&](const std::vector<ArgRows>&, int64_t i, arrow::BooleanBuilder& b) -> Status {
        if (found[i] == 2) return Appended(b.AppendNull(), c);
        return Appended(b.Append(found[i] == 1), c);
      });
}

// The row offsets of `list` rebased to 0.
std::vector<int32_t> Offsets(const arrow::ListArray& list) {
  std::vector<int32_t> out(static_cast<size_t>(list.length()) + 1);
  const int32_t base = list.value_offset(0);
  for (int64_t r = 0; r <= list.length(); ++r) {
    out[static_cast<size_t>(r)] = list.value_offset(r) - base;
  }
  return out;
}

Result<Datum> SortArray(const LibraryCall& c) {
  // array_sort is ascending with NULLs last.
  const bool array_sort = c.e.name == "array_sort";
  const bool asc = c.args.size() < 2 || c.args[1].scalar_as<arrow::BooleanScalar>().value;
  const bool nulls_first = asc && !array_sort;
  DELTA_ASSIGN_OR_RETURN(auto list, ListArg(c));
  Elements el = ElementsOf(*list);
  arrow::Int64Builder pb;
  auto st = el.parent.empty() ? arrow::Status::OK() : pb.AppendValues(el.parent);
  std::shared_ptr<arrow::Array> parents;
  if (st.ok()) st = pb.Finish(&parents);
  if (!st.ok()) return EvalError(st, c.e.name, *c.e.type);
  auto table =
      arrow::RecordBatch::Make(arrow::schema({arrow::field("p", arrow::int64()),
                                              arrow::field("v", el.values->type())}),
                               el.values->length(), {parents, el.values});
  // Rows stay together (their parent first); sort_array puts NULLs first ascending,
  // last descending.
  cp::SortOptions opts(
      {cp::SortKey("p", cp::SortOrder::Ascending),
       cp::SortKey("v", asc ? cp::SortOrder::Ascending : cp::SortOrder::Descending)},
      nulls_first ? cp::NullPlacement::AtStart : cp::NullPlacement::AtEnd);
  DELTA_ASSIGN_OR_RETURN(Datum order,
                         CallArrow(c, "sort_indices", {Datum(table)}, &opts));
  DELTA_ASSIGN_OR_RETURN(Datum sorted, CallArrow(c, "take", {el.values, order}));
  return MakeList(c, Offsets(*list), sorted.make_array(), *list);
}

Result<Datum> ArrayDistinct(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto list, ListArg(c));
  Elements el = ElementsOf(*list);
  std::vector<int32_t> offsets(static_cast<size_t>(list->length()) + 1, 0);
  std::vector<int64_t> keep;
  if (el.values->length() > 0) {
    arrow::UInt32Builder pb;
    auto st = pb.Reserve(static_cast<int64_t>(el.parent.size()));
    for (int64_t p : el.parent) pb.UnsafeAppend(static_cast<uint32_t>(p));
    std::shared_ptr<arrow::Array> parents;
    if (st.ok()) st = pb.Finish(&parents);
    if (!st.ok()) return EvalError(st, c.e.name, *c.e.type);
    auto grouper = cp::Grouper::Make({arrow::uint32(), el.values->type()});
    if (!grouper.ok()) return EvalError(grouper.status(), c.e.name, *c.e.type);
    cp::ExecBatch batch({Datum(parents), Datum(el.values)}, el.values->length());
    auto ids = (*grouper)->Consume(cp::ExecSpan(batch));
    if (!ids.ok()) return EvalError(ids.status(), c.e.name, *c.e.type);
    auto id_array = ids->array_as<arrow::UInt32Array>();
    std::vector<bool> seen((*grouper)->num_groups(), false);
    for (int64_t k = 0; k < el.values->length(); ++k) {
      const uint32_t g = id_array->Value(k);
      if (seen[g]) continue;
      seen[g] = true;
      keep.push_back(k);
      ++offsets[static_cast<size_t>(el.parent[static_cast<size_t>(k)]) + 1];
    }
  }
  for (size_t r = 1; r < offsets.size(); ++r) offsets[r] += offsets[r - 1];
  DELTA_ASSIGN_OR_RETURN(auto idx, Indices(c, keep));
  DELTA_ASSIGN_OR_RETURN(Datum kept, CallArrow(c, "take", {el.values, idx}));
  return MakeList(c, offsets, kept.make_array(), *list);
}

Result<Datum> MakeArray(const LibraryCall& c) {
  // Row r's elements are argument j's value at r, for j in order.
  const int64_t n = c.all_scalar() ? 1 : c.length;
  const auto k = static_cast<int64_t>(c.args.size());
  DELTA_ASSIGN_OR_RETURN(auto type, ArrowTypeOf(*c.e.type));
  const auto& element_type = static_cast<const arrow::ListType&>(*type).value_type();
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (const auto& d : c.args) {
    DELTA_ASSIGN_OR_RETURN(auto a, ArgArray(c, d, n));
    columns.push_back(std::move(a));
  }
  std::shared_ptr<arrow::Array> values;
  if (columns.empty()) {
    auto empty = arrow::MakeEmptyArray(element_type);
    if (!empty.ok()) return EvalError(empty.status(), c.e.name, *c.e.type);
    values = *empty;
  } else {
    auto all = arrow::Concatenate(columns);
    if (!all.ok()) return EvalError(all.status(), c.e.name, *c.e.type);
    std::vector<int64_t> idx(static_cast<size_t>(n * k));
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t j = 0; j < k; ++j) idx[static_cast<size_t>(r * k + j)] = j * n + r;
    }
    DELTA_ASSIGN_OR_RETURN(auto indices, Indices(c, idx));
    DELTA_ASSIGN_OR_RETURN(Datum t, CallArrow(c, "take", {Datum(*all), Datum(indices)}));
    values = t.make_array();
  }
  std::vector<int32_t> offsets(static_cast<size_t>(n) + 1);
  for (int64_t r = 0; r <= n; ++r)
    offsets[static_cast<size_t>(r)] = static_cast<int32_t>(r * k);
  auto list = std::make_shared<arrow::ListArray>(
      type, n, arrow::Buffer::FromVector(offsets), values);
  return Shaped(c, list);
}

}  // namespace

std::vector<KernelEntry> ArrayKernels() {
  return {
      {"size", Size},
      {"element_at", ElementAt},
      {"array_contains", ArrayContains},
      {"sort_array", SortArray},
      {"array_sort", SortArray},
      {"array_distinct", ArrayDistinct},
      {"array", MakeArray},
  };
}

}  // namespace deltaguard::internal
