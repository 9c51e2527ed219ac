// Evaluate / EvaluatePredicate, and the evaluator's core: the walk over bound nodes,
// literals, column lookup (nested paths descend struct columns), kernel calls and
// conforming a kernel's result to the node's type. The other node kinds live beside
// it (expr_eval_internal.h lists where).

#include "deltaguard/exec/expr_eval.h"

#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/util/decimal.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/expr_eval_internal.h"
#include "deltaguard/exec/spark_cast_internal.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/io/parquet/parquet_file.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace internal {

namespace cp = arrow::compute;
using arrow::Datum;

Error EvalError(const arrow::Status& st, std::string_view what, const DataType& type) {
  std::string msg = st.message();
  std::string lower = AsciiToLower(msg);
  if (lower.find("divide by zero") != std::string::npos ||
      lower.find("division by zero") != std::string::npos) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "DIVIDE_BY_ZERO: division by zero in '{}'", what);
  }
  if (lower.find("overflow") != std::string::npos) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "ARITHMETIC_OVERFLOW: '{}' overflows {} ({})", what, TypeToSql(type),
                     msg);
  }
  return internal::FromArrowStatus(
      st, ErrorCode::kInvalidArgument,
      fmt::format("evaluating '{}' ({})", what, TypeToSql(type)));
}

Result<std::shared_ptr<arrow::DataType>> ArrowTypeOf(const DataType& type) {
  return ToArrowType(type);
}

namespace {

// An array of `type` holding `items` in order.
Result<std::shared_ptr<arrow::Array>> ItemsArray(
    const std::vector<LiteralValue>& items,
    const std::shared_ptr<arrow::DataType>& type) {
  std::unique_ptr<arrow::ArrayBuilder> builder;
  DELTA_ARROW_RETURN_NOT_OK(
      arrow::MakeBuilder(arrow::default_memory_pool(), type, &builder),
      ErrorCode::kInternal, "a nested literal");
  for (const auto& item : items) {
    DELTA_ASSIGN_OR_RETURN(auto scalar, ToScalar(item));
    DELTA_ARROW_RETURN_NOT_OK(builder->AppendScalar(*scalar), ErrorCode::kInternal,
                              "a nested literal");
  }
  std::shared_ptr<arrow::Array> out;
  DELTA_ARROW_RETURN_NOT_OK(builder->Finish(&out), ErrorCode::kInternal,
                            "a nested literal");
  return out;
}

// A nested value (NestedValue) as the Arrow scalar of its type: a list of its
// elements, a struct of its fields, a map of its key/value pairs.
Result<std::shared_ptr<arrow::Scalar>> NestedScalar(
    const LiteralValue& v, const std::shared_ptr<arrow::DataType>& type) {
  const auto& items = std::get<NestedValue>(v.value).items;
  switch (type->id()) {
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST: {
      const auto& list = static_cast<const arrow::BaseListType&>(*type);
      DELTA_ASSIGN_OR_RETURN(auto values, ItemsArray(items, list.value_type()));
      if (type->id() == arrow::Type::LARGE_LIST) {
        return std::make_shared<arrow::LargeListScalar>(values, type);
      }
      return std::make_shared<arrow::ListScalar>(values, type);
    }
    case arrow::Type::STRUCT: {
      std::vector<std::shared_ptr<arrow::Scalar>> fields;
      for (const auto& item : items) {
        DELTA_ASSIGN_OR_RETURN(auto scalar, ToScalar(item));
        fields.push_back(std::move(scalar));
      }
      return std::make_shared<arrow::StructScalar>(std::move(fields), type);
    }
    case arrow::Type::MAP: {
      const auto& map = static_cast<const arrow::MapType&>(*type);
      std::vector<LiteralValue> keys, values;
      for (size_t i = 0; i + 1 < items.size(); i += 2) {
        keys.push_back(items[i]);
        values.push_back(items[i + 1]);
      }
      DELTA_ASSIGN_OR_RETURN(auto key_array, ItemsArray(keys, map.key_type()));
      DELTA_ASSIGN_OR_RETURN(auto value_array, ItemsArray(values, map.item_type()));
      DELTA_ARROW_ASSIGN_OR_RETURN(
          auto entries,
          arrow::StructArray::Make({key_array, value_array},
                                   {map.key_field(), map.item_field()}),
          ErrorCode::kInternal, "a nested literal");
      return std::make_shared<arrow::MapScalar>(entries, type);
    }
    default:
      return MakeError(ErrorCode::kInternal, "a nested literal of type {}",
                       TypeToSql(*v.type));
  }
}

}  // namespace

Result<std::shared_ptr<arrow::Scalar>> ToScalar(const LiteralValue& v) {
  DELTA_ASSIGN_OR_RETURN(auto type, ArrowTypeOf(*v.type));
  if (v.is_null()) return arrow::MakeNullScalar(type);
  if (std::holds_alternative<NestedValue>(v.value)) return NestedScalar(v, type);
  switch (v.type->kind()) {
    case TypeKind::kBoolean:
      return std::make_shared<arrow::BooleanScalar>(std::get<bool>(v.value));
    case TypeKind::kByte:
      return std::make_shared<arrow::Int8Scalar>(
          static_cast<int8_t>(std::get<int64_t>(v.value)));
    case TypeKind::kShort:
      return std::make_shared<arrow::Int16Scalar>(
          static_cast<int16_t>(std::get<int64_t>(v.value)));
    case TypeKind::kInteger:
      return std::make_shared<arrow::Int32Scalar>(
          static_cast<int32_t>(std::get<int64_t>(v.value)));
    case TypeKind::kLong:
      return std::make_shared<arrow::Int64Scalar>(std::get<int64_t>(v.value));
    case TypeKind::kFloat:
      return std::make_shared<arrow::FloatScalar>(
          static_cast<float>(std::get<double>(v.value)));
    case TypeKind::kDouble:
      return std::make_shared<arrow::DoubleScalar>(std::get<double>(v.value));
    case TypeKind::kDecimal: {
      Int128 u = std::get<Int128>(v.value);
      arrow::Decimal128 d(static_cast<int64_t>(u >> 64),
                          static_cast<uint64_t>(static_cast<unsigned __int128>(u)));
      return std::make_shared<arrow::Decimal128Scalar>(d, type);
    }
    case TypeKind::kString:
      return std::make_shared<arrow::StringScalar>(std::get<std::string>(v.value));
    case TypeKind::kBinary:
      return std::make_shared<arrow::BinaryScalar>(
          arrow::Buffer::FromString(std::get<std::string>(v.value)));
    case TypeKind::kDate:
      return std::make_shared<arrow::Date32Scalar>(
          static_cast<int32_t>(std::get<int64_t>(v.value)));
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
      return std::make_shared<arrow::TimestampScalar>(std::get<int64_t>(v.value), type);
    default:
      return MakeError(ErrorCode::kUnsupportedFeature,
                       "literal of type {} in an expression", TypeToSql(*v.type));
  }
}

Evaluator::Evaluator(const arrow::RecordBatch& batch, const EvalOptions& options)
    : batch_(batch), now_micros_(options.now_micros) {
  if (now_micros_ < 0) {
    now_micros_ = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  }
}

Result<Datum> Evaluator::Eval(const BoundExpr& e) {
  // Bound trees are at most kMaxBoundExprDepth deep (binder.cc); the guard also holds
  // trees built in code to that bound.
  DepthGuard guard(&budget_);
  if (guard.exceeded()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "expression nested too deeply to evaluate (more than {} levels)",
                     budget_.limit());
  }
  switch (e.kind) {
    case BoundKind::kLiteral: {
      DELTA_ASSIGN_OR_RETURN(auto scalar, ToScalar(e.literal));
      return Datum(scalar);
    }
    case BoundKind::kColumn:
      return Column(e);
    case BoundKind::kCast: {
      DELTA_ASSIGN_OR_RETURN(Datum arg, Eval(*e.args[0]));
      return Cast(arg, *e.type, e.try_cast);
    }
    case BoundKind::kCase:
      return Case(e);
    case BoundKind::kCall: {
      if (e.fn == BoundFn::kHigherOrder) return HigherOrder(e);
      if (e.try_cast && e.fn != BoundFn::kToTimestamp) return TryCall(e);
      DELTA_ASSIGN_OR_RETURN(Datum out, CallFn(e));
      return Conform(out, e);
    }
  }
  return MakeError(ErrorCode::kInternal, "unknown bound expression kind");
}

Result<Datum> Evaluator::Call(const std::string& fn, const std::vector<Datum>& args,
                              const BoundExpr& e, const cp::FunctionOptions* opts) {
  auto r = cp::CallFunction(fn, args, opts);
  if (!r.ok()) return EvalError(r.status(), e.name.empty() ? fn : e.name, *e.type);
  return std::move(r).ValueUnsafe();
}

// try_add, try_divide, try_element_at, ...: the call's own errors (overflow, division
// by zero, an index out of range) make its row NULL, while errors of its arguments
// still fail the statement, as Spark's EvalMode.TRY. The arguments are evaluated once;
// when the call fails over the whole batch it runs again row by row on them.
Result<Datum> Evaluator::TryCall(const BoundExpr& e) {
  std::vector<Datum> values;
  bool all_scalar = true;
  for (const auto& a : e.args) {
    DELTA_ASSIGN_OR_RETURN(Datum v, Eval(*a));
    all_scalar = all_scalar && v.is_scalar();
    values.push_back(std::move(v));
  }
  const int64_t rows = all_scalar ? 1 : batch_.num_rows();
  arrow::FieldVector fields;
  arrow::ArrayVector columns;
  BoundExpr strict = e;
  strict.try_cast = false;
  for (size_t k = 0; k < values.size(); ++k) {
    DELTA_ASSIGN_OR_RETURN(auto column, AsArray(values[k], rows));
    const std::string name = "__try" + std::to_string(k);
    fields.push_back(arrow::field(name, column->type()));
    columns.push_back(std::move(column));
    auto ref = std::make_shared<BoundExpr>(*e.args[k]);
    ref->kind = BoundKind::kColumn;
    ref->path = {name};
    ref->args.clear();
    strict.args[k] = std::move(ref);
  }
  auto batch = arrow::RecordBatch::Make(arrow::schema(fields), rows, columns);
  EvalOptions options;
  options.now_micros = now_micros_;
  DELTA_ASSIGN_OR_RETURN(auto type, ArrowTypeOf(*e.type));
  auto whole = Evaluator(*batch, options).Eval(strict);
  std::shared_ptr<arrow::Array> out;
  if (whole) {
    DELTA_ASSIGN_OR_RETURN(out, AsArray(*whole, rows));
  } else {
    std::unique_ptr<arrow::ArrayBuilder> b;
    auto st = arrow::MakeBuilder(arrow::default_memory_pool(), type, &b);
    for (int64_t i = 0; st.ok() && i < rows; ++i) {
      auto one = batch->Slice(i, 1);
      auto r = Evaluator(*one, options).Eval(strict);
      // Spark's try_element_at still fails on index 0 (not an out-of-range index).
      if (!r && r.error().message.rfind("INVALID_INDEX_OF_ZERO", 0) == 0)
        return r.error();
      if (!r) {
        st = b->AppendNull();
        continue;
      }
      DELTA_ASSIGN_OR_RETURN(auto value, AsArray(*r, 1));
      st = b->AppendArraySlice(*value->data(), 0, 1);
    }
    if (st.ok()) st = b->Finish(&out);
    if (!st.ok()) return EvalError(st, e.name, *e.type);
  }
  if (!all_scalar) return Datum(out);
  DELTA_ARROW_ASSIGN_OR_RETURN(auto scalar, out->GetScalar(0), ErrorCode::kInternal,
                               "a constant try_ call");
  return Datum(scalar);
}

// Cast a computed value to the node's type when Arrow chose another (decimals).
Result<Datum> Evaluator::Conform(const Datum& d, const BoundExpr& e) {
  DELTA_ASSIGN_OR_RETURN(auto want, ArrowTypeOf(*e.type));
  if (d.type()->Equals(*want)) return d;
  if (e.type->kind() == TypeKind::kDecimal &&
      internal::NeedsSparkCast(*d.type(), *e.type)) {
    // Rounded HALF_UP to the result scale, as Spark's DecimalPrecision does.
    return SparkCastDatum(d, *e.type, false);
  }
  cp::CastOptions opts = cp::CastOptions::Safe(want);
  opts.allow_decimal_truncate = true;
  auto r = cp::Cast(d, opts);
  if (!r.ok()) return EvalError(r.status(), e.name, *e.type);
  return std::move(r).ValueUnsafe();
}

Result<Datum> Evaluator::Column(const BoundExpr& e) {
  const auto& schema = *batch_.schema();
  int idx = -1;
  for (int i = 0; i < schema.num_fields(); ++i) {
    if (EqualsIgnoreCase(schema.field(i)->name(), e.path[0])) idx = i;
  }
  if (idx < 0) {
    return MakeError(ErrorCode::kNotFound,
                     "column '{}' is not in the batch (columns: {})", e.path[0],
                     fmt::join(schema.field_names(), ", "));
  }
  std::shared_ptr<arrow::Array> array = batch_.column(idx);
  for (size_t p = 1; p < e.path.size(); ++p) {
    if (array->type_id() != arrow::Type::STRUCT) {
      return MakeError(ErrorCode::kSchemaMismatch,
                       "column '{}' is not a struct in the batch", e.path[p - 1]);
    }
    const auto& st = static_cast<const arrow::StructArray&>(*array);
    int child = -1;
    for (int i = 0; i < st.struct_type()->num_fields(); ++i) {
      if (EqualsIgnoreCase(st.struct_type()->field(i)->name(), e.path[p])) child = i;
    }
    if (child < 0) {
      return MakeError(ErrorCode::kNotFound, "field '{}' is not in struct column '{}'",
                       e.path[p], e.path[p - 1]);
    }
    DELTA_ARROW_ASSIGN_OR_RETURN(array, st.GetFlattenedField(child),
                                 ErrorCode::kInvalidArgument, "reading struct field");
  }
  return Datum(array);
}

}  // namespace internal

using arrow::Datum;
using internal::Evaluator;

Result<std::shared_ptr<arrow::Array>> Evaluate(const BoundExpr& expr,
                                               const arrow::RecordBatch& batch,
                                               const EvalOptions& options) {
  DELTA_RETURN_IF_ERROR(InitializeArrowCompute());
  Evaluator ev(batch, options);
  DELTA_ASSIGN_OR_RETURN(Datum d, ev.Eval(expr));
  if (d.is_array()) return d.make_array();
  if (d.is_scalar()) {
    DELTA_ARROW_ASSIGN_OR_RETURN(
        auto array, arrow::MakeArrayFromScalar(*d.scalar(), batch.num_rows()),
        ErrorCode::kInternal, "expanding a constant");
    return array;
  }
  return MakeError(ErrorCode::kInternal, "expression evaluated to {}", d.ToString());
}

Result<std::shared_ptr<arrow::BooleanArray>> EvaluatePredicate(
    const BoundExpr& expr, const arrow::RecordBatch& batch, const EvalOptions& options) {
  if (expr.type->kind() == TypeKind::kVoid) {
    DELTA_ARROW_ASSIGN_OR_RETURN(
        auto nulls, arrow::MakeArrayOfNull(arrow::boolean(), batch.num_rows()),
        ErrorCode::kInternal, "NULL predicate");
    return std::static_pointer_cast<arrow::BooleanArray>(nulls);
  }
  if (expr.type->kind() != TypeKind::kBoolean) {
    return MakeError(ErrorCode::kSchemaMismatch,
                     "predicate must be BOOLEAN, but it is {}", TypeToSql(*expr.type));
  }
  DELTA_ASSIGN_OR_RETURN(auto array, Evaluate(expr, batch, options));
  return std::static_pointer_cast<arrow::BooleanArray>(array);
}

}  // namespace deltaguard
