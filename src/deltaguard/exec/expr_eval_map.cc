// Kernels for access into structs, arrays and maps and for the map functions (bound
// in expr/binder_collections.cc): array_subscript (`a[i]`, 0-based, ANSI
// INVALID_ARRAY_INDEX), map_value (`m[k]`, element_at(m, k): NULL for a missing key, as
// Spark 3.4+), struct_field and array_struct_field (`s.f`), map, map_from_arrays
// (NULL_MAP_KEY, DUPLICATED_MAP_KEY as Spark's default EXCEPTION dedup policy),
// map_keys, map_values, map_entries, map_contains_key and map_size.
//
// Invariant: a MAP is an Arrow map array (arrow/schema.h: entries struct<key, value>);
// keys arrive cast to the map's key type, so a key and the map's keys share one Arrow
// type and compare with RangeEquals.

#include <arrow/array/concatenate.h>
#include <arrow/compute/api.h>

#include <string>
#include <vector>

#include "deltaguard/exec/expr_eval_library_internal.h"

namespace deltaguard::internal {

using arrow::Datum;

namespace {

namespace cp = arrow::compute;

int64_t Rows(const LibraryCall& c) { return c.all_scalar() ? 1 : c.length; }

Result<std::shared_ptr<arrow::Array>> Checked(
    const arrow::Result<std::shared_ptr<arrow::Array>>& r, const LibraryCall& c) {
  if (!r.ok()) return EvalError(r.status(), c.e.name, *c.e.type);
  return *r;
}

// Rows of `values` picked by `indices` (-1: NULL).
Result<std::shared_ptr<arrow::Array>> Pick(const LibraryCall& c,
                                           const std::shared_ptr<arrow::Array>& values,
                                           const std::vector<int64_t>& indices) {
  arrow::Int64Builder b;
  DELTA_RETURN_IF_ERROR(Appended(b.Reserve(indices.size()), c));
  for (int64_t k : indices) {
    if (k < 0) {
      b.UnsafeAppendNull();
    } else {
      b.UnsafeAppend(k);
    }
  }
  std::shared_ptr<arrow::Array> idx;
  DELTA_RETURN_IF_ERROR(Appended(b.Finish(&idx), c));
  DELTA_ASSIGN_OR_RETURN(Datum taken, CallArrow(c, "take", {values, idx}));
  return taken.make_array();
}

// The values in `values` at `index` (int32 per row) counted as `base` does; -1 for
// NULL rows or (when `strict` is false) indices outside.
Result<Datum> ArraySubscript(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto args, ArgArrays(c));
  const auto& list = static_cast<const arrow::ListArray&>(*args[0]);
  const auto& index = static_cast<const arrow::Int32Array&>(*args[1]);
  std::vector<int64_t> picks(list.length(), -1);
  for (int64_t i = 0; i < list.length(); ++i) {
    if (list.IsNull(i) || index.IsNull(i)) continue;
    const int64_t n = list.value_length(i), k = index.Value(i);
    if (k < 0 || k >= n) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "INVALID_ARRAY_INDEX: the index {} is out of bounds; the array "
                       "has {} elements (use try_element_at(a, i + 1) for NULL instead)",
                       k, n);
    }
    picks[i] = list.value_offset(i) + k;
  }
  DELTA_ASSIGN_OR_RETURN(auto out, Pick(c, list.values(), picks));
  return Shaped(c, out);
}

// For each row, the entry of the map whose key equals the key argument; -1 if none.
std::vector<int64_t> FindKeys(const arrow::MapArray& map, const arrow::Array& key) {
  std::vector<int64_t> found(map.length(), -1);
  const auto& keys = *map.keys();
  for (int64_t i = 0; i < map.length(); ++i) {
    if (map.IsNull(i) || key.IsNull(i)) continue;
    for (int64_t k = map.value_offset(i); k < map.value_offset(i + 1); ++k) {
      if (keys.RangeEquals(k, k + 1, i, key)) {
        found[i] = k;
        break;
      }
    }
  }
  return found;
}

Result<Datum> MapValue(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto args, ArgArrays(c));
  const auto& map = static_cast<const arrow::MapArray&>(*args[0]);
  const std::vector<int64_t> found = FindKeys(map, *args[1]);
  DELTA_ASSIGN_OR_RETURN(auto out, Pick(c, map.items(), found));
  return Shaped(c, out);
}

Result<Datum> MapContainsKey(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto args, ArgArrays(c));
  const auto& map = static_cast<const arrow::MapArray&>(*args[0]);
  const std::vector<int64_t> found = FindKeys(map, *args[1]);
  arrow::BooleanBuilder b;
  DELTA_RETURN_IF_ERROR(Appended(b.Reserve(map.length()), c));
  for (int64_t i = 0; i < map.length(); ++i) {
    if (map.IsNull(i) || args[1]->IsNull(i)) {
      b.UnsafeAppendNull();
    } else {
      b.UnsafeAppend(found[i] >= 0);
    }
  }
  std::shared_ptr<arrow::Array> out;
  DELTA_RETURN_IF_ERROR(Appended(b.Finish(&out), c));
  return Shaped(c, out);
}

// The struct's field (its index is the literal argument 1), NULL where the struct is.
Result<std::shared_ptr<arrow::Array>> FieldOf(const LibraryCall& c,
                                              const arrow::StructArray& st) {
  auto field = st.GetFlattenedField(static_cast<int>(c.IntLiteral(1)));
  if (!field.ok()) return EvalError(field.status(), c.e.name, *c.e.type);
  return *field;
}

Result<Datum> StructField(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto base, ArgArray(c, c.args[0], Rows(c)));
  DELTA_ASSIGN_OR_RETURN(auto out,
                         FieldOf(c, static_cast<const arrow::StructArray&>(*base)));
  return Shaped(c, out);
}

// The field of each struct element, as a list with the array's offsets and nulls.
Result<Datum> ArrayStructField(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto base, ArgArray(c, c.args[0], Rows(c)));
  const auto& list = static_cast<const arrow::ListArray&>(*base);
  DELTA_ASSIGN_OR_RETURN(
      auto values, FieldOf(c, static_cast<const arrow::StructArray&>(*list.values())));
  DELTA_ASSIGN_OR_RETURN(auto type, ArrowTypeOf(*c.e.type));
  auto data = list.data()->Copy();
  data->type = type;
  data->child_data = {values->data()};
  return Shaped(c, arrow::MakeArray(data));
}

// Keys, values or entries of a map as lists sharing its offsets and nulls.
Result<Datum> MapPart(const LibraryCall& c, int part) {
  DELTA_ASSIGN_OR_RETURN(auto base, ArgArray(c, c.args[0], Rows(c)));
  const auto& map = static_cast<const arrow::MapArray&>(*base);
  DELTA_ASSIGN_OR_RETURN(auto type, ArrowTypeOf(*c.e.type));
  auto data = map.data()->Copy();
  data->type = type;
  const auto& entries = static_cast<const arrow::StructArray&>(*map.values());
  if (part < 2) {
    // The entries' field, sliced to the entries' rows as the offsets count them.
    data->child_data = {entries.field(part)->data()};
  } else {
    // list<struct<key, value>>: the entries under the result's field names.
    auto child = entries.data()->Copy();
    child->type = static_cast<const arrow::ListType&>(*type).value_type();
    data->child_data = {child};
  }
  return Shaped(c, arrow::MakeArray(data));
}

Result<Datum> MapSize(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto base, ArgArray(c, c.args[0], Rows(c)));
  const auto& map = static_cast<const arrow::MapArray&>(*base);
  arrow::Int32Builder b;
  DELTA_RETURN_IF_ERROR(Appended(b.Reserve(map.length()), c));
  for (int64_t i = 0; i < map.length(); ++i) {
    if (map.IsNull(i)) {
      b.UnsafeAppendNull();
    } else {
      b.UnsafeAppend(map.value_length(i));
    }
  }
  std::shared_ptr<arrow::Array> out;
  DELTA_RETURN_IF_ERROR(Appended(b.Finish(&out), c));
  return Shaped(c, out);
}

// A map per row from `offsets` into `keys` and `values`: NULL keys and a key given
// twice in one map are errors (Spark's NULL_MAP_KEY, DUPLICATED_MAP_KEY).
Result<Datum> BuildMap(const LibraryCall& c, const std::vector<int32_t>& offsets,
                       const std::shared_ptr<arrow::Array>& keys,
                       const std::shared_ptr<arrow::Array>& values,
                       std::shared_ptr<arrow::Buffer> nulls) {
  for (size_t r = 0; r + 1 < offsets.size(); ++r) {
    if (nulls != nullptr && !arrow::bit_util::GetBit(nulls->data(), r)) continue;
    for (int64_t k = offsets[r]; k < offsets[r + 1]; ++k) {
      if (keys->IsNull(k)) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "NULL_MAP_KEY: function {}(): a map key cannot be NULL",
                         c.e.name);
      }
      for (int64_t j = offsets[r]; j < k; ++j) {
        if (keys->RangeEquals(j, j + 1, k, *keys)) {
          auto shown = keys->GetScalar(k);
          return MakeError(ErrorCode::kInvalidArgument,
                           "DUPLICATED_MAP_KEY: function {}(): duplicate map key {} "
                           "(Spark's default spark.sql.mapKeyDedupPolicy EXCEPTION)",
                           c.e.name, shown.ok() ? (*shown)->ToString() : "?");
        }
      }
    }
  }
  arrow::Int32Builder ob;
  DELTA_RETURN_IF_ERROR(Appended(ob.AppendValues(offsets), c));
  std::shared_ptr<arrow::Array> offset_array;
  DELTA_RETURN_IF_ERROR(Appended(ob.Finish(&offset_array), c));
  DELTA_ASSIGN_OR_RETURN(auto type, ArrowTypeOf(*c.e.type));
  DELTA_ASSIGN_OR_RETURN(
      auto out, Checked(arrow::MapArray::FromArrays(type, offset_array, keys, values,
                                                    arrow::default_memory_pool(), nulls),
                        c));
  return Shaped(c, out);
}

// map(k1, v1, ...): row r's entries are the pairs' row r.
Result<Datum> MapOf(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto args, ArgArrays(c));
  const int64_t n = Rows(c);
  const int64_t pairs = static_cast<int64_t>(args.size() / 2);
  std::vector<int32_t> offsets(n + 1);
  std::vector<int64_t> order;
  for (int64_t r = 0; r < n; ++r) {
    offsets[r + 1] = static_cast<int32_t>((r + 1) * pairs);
    for (int64_t p = 0; p < pairs; ++p) order.push_back(p * n + r);
  }
  arrow::ArrayVector key_parts, value_parts;
  for (int64_t p = 0; p < pairs; ++p) {
    key_parts.push_back(args[2 * p]);
    value_parts.push_back(args[2 * p + 1]);
  }
  DELTA_ASSIGN_OR_RETURN(auto key_type, ArrowTypeOf(*c.e.type));
  const auto& map_type = static_cast<const arrow::MapType&>(*key_type);
  std::shared_ptr<arrow::Array> keys, values;
  if (pairs == 0) {
    DELTA_ASSIGN_OR_RETURN(keys, Checked(arrow::MakeEmptyArray(map_type.key_type()), c));
    DELTA_ASSIGN_OR_RETURN(values,
                           Checked(arrow::MakeEmptyArray(map_type.item_type()), c));
  } else {
    DELTA_ASSIGN_OR_RETURN(auto all_keys, Checked(arrow::Concatenate(key_parts), c));
    DELTA_ASSIGN_OR_RETURN(auto all_values, Checked(arrow::Concatenate(value_parts), c));
    DELTA_ASSIGN_OR_RETURN(keys, Pick(c, all_keys, order));
    DELTA_ASSIGN_OR_RETURN(values, Pick(c, all_values, order));
  }
  return BuildMap(c, offsets, keys, values, nullptr);
}

// map_from_arrays(keys, values): arrays of equal length per row; NULL if either is.
Result<Datum> MapFromArrays(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto args, ArgArrays(c));
  const auto& ks = static_cast<const arrow::ListArray&>(*args[0]);
  const auto& vs = static_cast<const arrow::ListArray&>(*args[1]);
  const int64_t n = ks.length();
  std::vector<int32_t> offsets(n + 1, 0);
  std::vector<int64_t> key_rows, value_rows;
  arrow::TypedBufferBuilder<bool> valid;
  DELTA_RETURN_IF_ERROR(Appended(valid.Reserve(n), c));
  for (int64_t r = 0; r < n; ++r) {
    const bool null = ks.IsNull(r) || vs.IsNull(r);
    valid.UnsafeAppend(!null);
    if (!null && ks.value_length(r) != vs.value_length(r)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "INVALID_PARAMETER_VALUE: function map_from_arrays(): the key "
                       "and value arrays differ in length ({} and {})",
                       ks.value_length(r), vs.value_length(r));
    }
    const int64_t len = null ? 0 : ks.value_length(r);
    for (int64_t k = 0; k < len; ++k) {
      key_rows.push_back(ks.value_offset(r) + k);
      value_rows.push_back(vs.value_offset(r) + k);
    }
    offsets[r + 1] = static_cast<int32_t>(offsets[r] + len);
  }
  std::shared_ptr<arrow::Buffer> nulls;
  DELTA_RETURN_IF_ERROR(Appended(valid.Finish(&nulls), c));
  DELTA_ASSIGN_OR_RETURN(auto keys, Pick(c, ks.values(), key_rows));
  DELTA_ASSIGN_OR_RETURN(auto values, Pick(c, vs.values(), value_rows));
  return BuildMap(c, offsets, keys, values, nulls);
}

// str_to_map(text [, pairDelim [, keyValueDelim]]) as Spark's StringToMap: the text
// split by pairDelim (default ','), each pair split once by keyValueDelim (default
// ':'); a pair without it maps to NULL. Delimiters are regular expressions, as Spark's
// split; one that matches the empty string is refused (it would split between
// characters, which RE2's splitter does not do the Java way).
Result<Datum> StrToMap(const LibraryCall& c) {
  const std::string pair_delim = c.args.size() > 1 ? c.StrLiteral(1) : ",";
  const std::string kv_delim = c.args.size() > 2 ? c.StrLiteral(2) : ":";
  for (const auto* delim : {&pair_delim, &kv_delim}) {
    cp::MatchSubstringOptions probe(*delim);
    DELTA_ASSIGN_OR_RETURN(
        Datum empty_match,
        CallArrow(c, "match_substring_regex",
                  {Datum(std::make_shared<arrow::StringScalar>(""))}, &probe));
    if (delim->empty() || empty_match.scalar_as<arrow::BooleanScalar>().value) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "str_to_map(): the delimiter '{}' matches the empty string",
                       *delim);
    }
  }
  DELTA_ASSIGN_OR_RETURN(auto args, ArgArrays(c));
  cp::SplitPatternOptions by_pair(pair_delim);
  DELTA_ASSIGN_OR_RETURN(Datum split,
                         CallArrow(c, "split_pattern_regex", {args[0]}, &by_pair));
  const auto pairs = std::static_pointer_cast<arrow::ListArray>(split.make_array());
  DELTA_ASSIGN_OR_RETURN(auto flat, Checked(pairs->Flatten(), c));
  cp::SplitPatternOptions by_kv(kv_delim, 1);
  DELTA_ASSIGN_OR_RETURN(Datum halves,
                         CallArrow(c, "split_pattern_regex", {flat}, &by_kv));
  const auto kv = std::static_pointer_cast<arrow::ListArray>(halves.make_array());
  std::vector<int64_t> key_rows, value_rows;
  for (int64_t p = 0; p < kv->length(); ++p) {
    key_rows.push_back(kv->value_offset(p));
    value_rows.push_back(kv->value_length(p) > 1 ? kv->value_offset(p) + 1 : -1);
  }
  std::vector<int32_t> offsets(static_cast<size_t>(pairs->length()) + 1, 0);
  for (int64_t r = 0; r < pairs->length(); ++r) {
    offsets[r + 1] = offsets[r] + (pairs->IsNull(r) ? 0 : pairs->value_length(r));
  }
  DELTA_ASSIGN_OR_RETURN(auto keys, Pick(c, kv->values(), key_rows));
  DELTA_ASSIGN_OR_RETURN(auto values, Pick(c, kv->values(), value_rows));
  std::shared_ptr<arrow::Buffer> nulls;
  if (pairs->null_count() > 0) {
    auto bitmap = arrow::AllocateEmptyBitmap(pairs->length());
    if (!bitmap.ok()) return EvalError(bitmap.status(), c.e.name, *c.e.type);
    nulls = std::move(*bitmap);
    for (int64_t r = 0; r < pairs->length(); ++r) {
      if (pairs->IsValid(r)) arrow::bit_util::SetBit(nulls->mutable_data(), r);
    }
  }
  return BuildMap(c, offsets, keys, values, std::move(nulls));
}

}  // namespace

std::vector<KernelEntry> MapKernels() {
  return {
      {"array_subscript", ArraySubscript},
      {"map_value", MapValue},
      {"map_contains_key", MapContainsKey},
      {"struct_field", StructField},
      {"array_struct_field", ArrayStructField},
      {"map_keys", [](const LibraryCall& c) { return MapPart(c, 0); }},
      {"map_values", [](const LibraryCall& c) { return MapPart(c, 1); }},
      {"map_entries", [](const LibraryCall& c) { return MapPart(c, 2); }},
      {"map_size", MapSize},
      {"map", MapOf},
      {"map_from_arrays", MapFromArrays},
      {"str_to_map", StrToMap},
  };
}

}  // namespace deltaguard::internal
