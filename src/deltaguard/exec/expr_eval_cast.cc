// CAST and TRY_CAST (exec/expr_eval.h rules 2, 5 and 6): Arrow's safe casts where they
// agree with Spark's ANSI CAST, spark_cast_internal.h where they do not; TRY_CAST falls
// back to value by value, NULL where a value does not convert. Arrays, maps and structs
// cast part by part with these same rules (CastNested).

#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/util/bitmap_ops.h>

#include <memory>
#include <utility>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/expr_eval_internal.h"
#include "deltaguard/exec/spark_cast_internal.h"
#include "deltaguard/expr/printer.h"

namespace deltaguard::internal {

namespace cp = arrow::compute;
using arrow::Datum;

Result<Datum> Evaluator::CastOnce(const Datum& arg,
                                  const std::shared_ptr<arrow::DataType>& to,
                                  const DataType& target) {
  cp::CastOptions opts = cp::CastOptions::Safe(to);
  // Spark's ANSI CAST truncates fractions toward zero when going to an integer.
  opts.allow_float_truncate = true;
  if (target.is_integral()) opts.allow_decimal_truncate = true;
  auto r = cp::Cast(arg, opts);
  if (!r.ok()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "CAST_INVALID_INPUT: cannot cast {} to {}: {}",
                     arg.type()->ToString(), TypeToSql(target), r.status().message());
  }
  return std::move(r).ValueUnsafe();
}

// `d` as an array: scalars are repeated `length` times.
Result<std::shared_ptr<arrow::Array>> Evaluator::AsArray(const Datum& d, int64_t length) {
  if (d.is_array()) return d.make_array();
  DELTA_ARROW_ASSIGN_OR_RETURN(auto array,
                               arrow::MakeArrayFromScalar(*d.scalar(), length),
                               ErrorCode::kInternal, "expanding a constant");
  return array;
}

// Back to a scalar when the inputs were all scalars (`length` 1 arrays).
Result<Datum> Evaluator::Like(const std::shared_ptr<arrow::Array>& out, bool scalar) {
  if (!scalar) return Datum(out);
  DELTA_ARROW_ASSIGN_OR_RETURN(auto value, out->GetScalar(0), ErrorCode::kInternal,
                               "reading a constant");
  return Datum(value);
}

// Casts Arrow's kernels do not do as Spark does (spark_cast_internal.h).
Result<Datum> Evaluator::SparkCastDatum(const Datum& arg, const DataType& target,
                                        bool try_cast) {
  DELTA_ASSIGN_OR_RETURN(auto array, AsArray(arg, 1));
  DELTA_ASSIGN_OR_RETURN(auto out, internal::SparkCast(*array, target, try_cast));
  return Like(out, arg.is_scalar());
}

Result<std::shared_ptr<arrow::Buffer>> BitmapAtZero(const arrow::Array& a) {
  if (a.null_count() == 0 || a.null_bitmap_data() == nullptr) return nullptr;
  DELTA_ARROW_ASSIGN_OR_RETURN(
      auto bitmap,
      arrow::internal::CopyBitmap(arrow::default_memory_pool(), a.null_bitmap_data(),
                                  a.offset(), a.length()),
      ErrorCode::kInternal, "CAST");
  return bitmap;
}

// A list (or map) cast: only the values its rows reference are cast (a slice may sit
// in a larger child whose other values need not convert), under rebased offsets.
template <typename ListArray>
Result<std::shared_ptr<arrow::Array>> Evaluator::CastList(const ListArray& list,
                                                          const DataType& target,
                                                          bool try_cast) {
  using Offset = typename ListArray::offset_type;
  DELTA_ASSIGN_OR_RETURN(auto to, ArrowTypeOf(target));
  const Offset start = list.value_offset(0);
  const Offset end = list.value_offset(list.length());
  DELTA_ARROW_ASSIGN_OR_RETURN(
      auto offsets, arrow::AllocateBuffer((list.length() + 1) * sizeof(Offset)),
      ErrorCode::kInternal, "CAST");
  auto* out = reinterpret_cast<Offset*>(offsets->mutable_data());
  for (int64_t i = 0; i <= list.length(); ++i) out[i] = list.value_offset(i) - start;
  DELTA_ASSIGN_OR_RETURN(auto bitmap, BitmapAtZero(list));
  std::shared_ptr<arrow::Buffer> shared_offsets(std::move(offsets));
  if constexpr (std::is_same_v<ListArray, arrow::MapArray>) {
    const auto& map = static_cast<const MapType&>(target);
    DELTA_ASSIGN_OR_RETURN(Datum keys, Cast(Datum(list.keys()->Slice(start, end - start)),
                                            *map.key_type(), try_cast));
    DELTA_ASSIGN_OR_RETURN(Datum items,
                           Cast(Datum(list.items()->Slice(start, end - start)),
                                *map.value_type(), try_cast));
    return std::make_shared<arrow::MapArray>(to, list.length(), shared_offsets,
                                             keys.make_array(), items.make_array(),
                                             bitmap, list.null_count());
  } else {
    const auto& element = *static_cast<const ArrayType&>(target).element_type();
    DELTA_ASSIGN_OR_RETURN(
        Datum values,
        Cast(Datum(list.values()->Slice(start, end - start)), element, try_cast));
    return std::make_shared<ListArray>(to, list.length(), shared_offsets,
                                       values.make_array(), bitmap, list.null_count());
  }
}

// Spark's Cast of a collection: elements, keys and values, and struct fields (by
// position; the target's names) each cast as a value of their own type.
Result<std::shared_ptr<arrow::Array>> Evaluator::CastNested(const arrow::Array& a,
                                                            const DataType& target,
                                                            bool try_cast) {
  DELTA_ASSIGN_OR_RETURN(auto to, ArrowTypeOf(target));
  if (a.length() == 0) {
    DELTA_ARROW_ASSIGN_OR_RETURN(auto empty, arrow::MakeEmptyArray(to),
                                 ErrorCode::kInternal, "CAST");
    return empty;
  }
  switch (a.type_id()) {
    case arrow::Type::LIST:
      return CastList(static_cast<const arrow::ListArray&>(a), target, try_cast);
    case arrow::Type::LARGE_LIST:
      return CastList(static_cast<const arrow::LargeListArray&>(a), target, try_cast);
    case arrow::Type::MAP:
      return CastList(static_cast<const arrow::MapArray&>(a), target, try_cast);
    case arrow::Type::STRUCT: {
      const auto& st = static_cast<const arrow::StructArray&>(a);
      const auto& type = static_cast<const StructType&>(target);
      std::vector<std::shared_ptr<arrow::Array>> children;
      for (int i = 0; i < st.num_fields(); ++i) {
        // The field's rows are the struct's, NULL where the struct is: a value under
        // a NULL struct is not a value, so it must not fail the cast.
        DELTA_ARROW_ASSIGN_OR_RETURN(auto field, st.GetFlattenedField(i),
                                     ErrorCode::kInternal, "CAST");
        DELTA_ASSIGN_OR_RETURN(Datum child,
                               Cast(Datum(field), *type.field(i).type, try_cast));
        children.push_back(child.make_array());
      }
      DELTA_ASSIGN_OR_RETURN(auto bitmap, BitmapAtZero(st));
      return std::make_shared<arrow::StructArray>(to, st.length(), std::move(children),
                                                  bitmap, st.null_count());
    }
    default:
      return MakeError(ErrorCode::kInternal, "CAST of {} to {}", a.type()->ToString(),
                       TypeToSql(target));
  }
}

Result<Datum> Evaluator::Cast(const Datum& arg_in, const DataType& target,
                              bool try_cast) {
  DELTA_ASSIGN_OR_RETURN(auto to, ArrowTypeOf(target));
  if (arg_in.type()->Equals(*to)) return arg_in;
  if (target.is_nested() && arg_in.type()->id() != arrow::Type::NA) {
    DELTA_ASSIGN_OR_RETURN(auto array, AsArray(arg_in, 1));
    DELTA_ASSIGN_OR_RETURN(auto out, CastNested(*array, target, try_cast));
    return Like(out, arg_in.is_scalar());
  }
  Datum arg = arg_in;
  if (arg.type()->id() == arrow::Type::STRING && target.kind() != TypeKind::kBinary) {
    // Spark trims whitespace before parsing a string as a number, boolean or date.
    auto trimmed = cp::CallFunction("utf8_trim_whitespace", {arg});
    if (!trimmed.ok()) return EvalError(trimmed.status(), "CAST", target);
    arg = std::move(trimmed).ValueUnsafe();
  }
  if (internal::NeedsSparkCast(*arg.type(), target)) {
    return SparkCastDatum(arg, target, try_cast);
  }
  auto whole = CastOnce(arg, to, target);
  if (whole || !try_cast) return whole;
  // TRY_CAST: cast value by value, NULL where a value does not convert.
  std::shared_ptr<arrow::Array> array;
  if (arg.is_scalar()) {
    return Datum(arrow::MakeNullScalar(to));
  }
  array = arg.make_array();
  std::unique_ptr<arrow::ArrayBuilder> builder;
  DELTA_ARROW_ASSIGN_OR_RETURN(builder, arrow::MakeBuilder(to), ErrorCode::kInternal,
                               "TRY_CAST builder");
  for (int64_t i = 0; i < array->length(); ++i) {
    auto one = CastOnce(Datum(array->Slice(i, 1)), to, target);
    if (one) {
      DELTA_ARROW_RETURN_NOT_OK(builder->AppendArraySlice(*one->array(), 0, 1),
                                ErrorCode::kInternal, "TRY_CAST");
    } else {
      DELTA_ARROW_RETURN_NOT_OK(builder->AppendNull(), ErrorCode::kInternal, "TRY_CAST");
    }
  }
  std::shared_ptr<arrow::Array> out;
  DELTA_ARROW_RETURN_NOT_OK(builder->Finish(&out), ErrorCode::kInternal, "TRY_CAST");
  return Datum(out);
}

}  // namespace deltaguard::internal
