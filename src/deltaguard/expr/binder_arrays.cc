// The array functions beyond the library's table (docs/sql.md "Functions", arrays):
// concat of arrays, flatten, slice, reverse of an array, array_join, array_position,
// array_remove, array_union, array_intersect, array_except, arrays_overlap,
// array_max, array_min, array_compact, array_append, array_prepend, array_repeat and
// sequence. Their types follow Spark's: arrays and values meet at a common element type
// (ARRAY<VOID> meets any array), results keep the array's type. Each binds to a library
// call whose kernel is in exec/expr_eval_array_more.cc.

#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "deltaguard/expr/binder_internal.h"
#include "deltaguard/expr/printer.h"

namespace deltaguard::internal {
namespace {

constexpr const char* kArrayFunctions[] = {
    "flatten",        "slice",         "array_join",      "array_position",
    "array_remove",   "array_union",   "array_intersect", "array_except",
    "arrays_overlap", "array_max",     "array_min",       "array_compact",
    "array_append",   "array_prepend", "array_repeat",    "sequence"};

bool IsArray(const BoundExpr& e) { return e.type->kind() == TypeKind::kArray; }
bool IsVoid(const BoundExpr& e) { return e.type->kind() == TypeKind::kVoid; }

const DataTypeRef& ElementOf(const BoundExpr& e) {
  return static_cast<const ArrayType&>(*e.type).element_type();
}

Error TypeError(const Expr& node, size_t i, const BoundExpr& arg, std::string_view need) {
  return ArgTypeError(node, i, need, DescribeOperand(arg));
}

// Argument i as an ARRAY: a NULL literal becomes a NULL array of `like` (or of VOID).
Status NeedArray(const Expr& node, std::vector<BoundExprRef>* args, size_t i) {
  BoundExprRef& a = (*args)[i];
  if (IsVoid(*a)) {
    a = NullOf(std::make_shared<ArrayType>(DataType::Void(), true));
    return OkStatus();
  }
  if (!IsArray(*a)) return TypeError(node, i, *a, "an ARRAY");
  return OkStatus();
}

// Argument i as an integer (INT), for positions, lengths and counts.
Status NeedInt(const Expr& node, std::vector<BoundExprRef>* args, size_t i) {
  BoundExprRef& a = (*args)[i];
  if (IsVoid(*a)) {
    a = NullOf(DataType::Integer());
    return OkStatus();
  }
  if (!a->type->is_integral() || a->type->kind() == TypeKind::kLong) {
    return TypeError(node, i, *a, "an INT");
  }
  DELTA_ASSIGN_OR_RETURN(a, CastTo(a, DataType::Integer()));
  return OkStatus();
}

// Arrays `args[from..]` at their common array type, which is returned.
Result<DataTypeRef> CommonArrays(const Expr& node, std::vector<BoundExprRef>* args,
                                 size_t from) {
  for (size_t i = from; i < args->size(); ++i) {
    DELTA_RETURN_IF_ERROR(NeedArray(node, args, i));
  }
  std::vector<BoundExprRef> arrays(args->begin() + static_cast<std::ptrdiff_t>(from),
                                   args->end());
  DELTA_ASSIGN_OR_RETURN(DataTypeRef common,
                         Unify(&arrays, fmt::format("function {}()", node.text)));
  for (size_t i = from; i < args->size(); ++i) (*args)[i] = arrays[i - from];
  return common;
}

// The array (argument 0) and a value (argument 1) at a common element type, as Spark's
// array_contains/array_position: the array is recast when its elements widen.
Result<DataTypeRef> ArrayAndValue(const Expr& node, std::vector<BoundExprRef>* args) {
  DELTA_RETURN_IF_ERROR(NeedArray(node, args, 0));
  BoundExprRef& array = (*args)[0];
  BoundExprRef& value = (*args)[1];
  DataTypeRef common = CommonTypeOf(ElementOf(*array), value->type);
  if (common == nullptr) {
    return TypeError(node, 1, *value,
                     fmt::format("{} (the element type)", TypeToSql(*ElementOf(*array))));
  }
  if (!common->Equals(*ElementOf(*array))) {
    DELTA_ASSIGN_OR_RETURN(array,
                           CastTo(array, std::make_shared<ArrayType>(common, true)));
  }
  DELTA_ASSIGN_OR_RETURN(value, CastTo(value, common));
  return array->type;
}

bool Orderable(const DataType& t) {
  if (t.kind() == TypeKind::kMap || t.kind() == TypeKind::kVariant) return false;
  if (t.kind() == TypeKind::kArray) {
    return Orderable(*static_cast<const ArrayType&>(t).element_type());
  }
  if (t.kind() == TypeKind::kStruct) {
    for (const auto& f : static_cast<const StructType&>(t).fields()) {
      if (!Orderable(*f.type)) return false;
    }
  }
  return true;
}

BoundExprRef Call(const Expr& node, DataTypeRef type, std::vector<BoundExprRef> args,
                  std::string name = "") {
  return MakeCall(BoundFn::kLibrary, std::move(type), std::move(args),
                  name.empty() ? node.text : std::move(name));
}

Result<BoundExprRef> BindSequence(const Expr& node, std::vector<BoundExprRef> args) {
  DELTA_RETURN_IF_ERROR(CheckArgCount(node, args.size(), 2, 3));
  for (size_t i = 0; i < args.size(); ++i) {
    if (IsVoid(*args[i])) args[i] = NullOf(DataType::Integer());
    if (!args[i]->type->is_integral()) {
      return TypeError(node, i, *args[i], "an integer (TINYINT to BIGINT)");
    }
  }
  DELTA_ASSIGN_OR_RETURN(DataTypeRef common, Unify(&args, "function sequence()"));
  std::vector<BoundExprRef> wide;
  for (auto& a : args) {
    DELTA_ASSIGN_OR_RETURN(auto w, CastTo(a, DataType::Long()));
    wide.push_back(std::move(w));
  }
  // The kernel counts in BIGINT; the result has the arguments' common type.
  BoundExprRef call =
      Call(node, std::make_shared<ArrayType>(DataType::Long(), false), std::move(wide));
  if (common->kind() == TypeKind::kLong) return call;
  return CastTo(call, std::make_shared<ArrayType>(common, false));
}

}  // namespace

bool IsArrayCall(std::string_view name, const std::vector<BoundExprRef>& args) {
  for (const char* n : kArrayFunctions) {
    if (name == n) return true;
  }
  // concat and reverse take arrays as well as strings.
  if (name == "concat") {
    for (const auto& a : args) {
      if (IsArray(*a)) return true;
    }
  }
  return name == "reverse" && args.size() == 1 && IsArray(*args[0]);
}

std::string ArrayFunctionNames() {
  std::string out;
  for (const char* n : kArrayFunctions) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

Result<BoundExprRef> BindArrayCall(const Expr& node, std::vector<BoundExprRef> args) {
  const std::string& name = node.text;
  if (node.star || node.distinct) {
    return MakeError(ErrorCode::kInvalidArgument, "function {}() does not take {}", name,
                     node.star ? "*" : "DISTINCT");
  }
  const size_t n = args.size();
  if (name == "sequence") return BindSequence(node, std::move(args));
  if (name == "concat") {
    // concat(array, ...): NULL when an argument is NULL, as Spark.
    DELTA_ASSIGN_OR_RETURN(DataTypeRef type, CommonArrays(node, &args, 0));
    return Call(node, type, std::move(args), "array_concat");
  }
  if (name == "array_repeat") {
    DELTA_RETURN_IF_ERROR(CheckArgCount(node, n, 2, 2));
    DELTA_RETURN_IF_ERROR(NeedInt(node, &args, 1));
    DataTypeRef element = args[0]->type;
    return Call(node, std::make_shared<ArrayType>(element, true), std::move(args));
  }
  if (name == "array_union" || name == "array_intersect" || name == "array_except" ||
      name == "arrays_overlap") {
    DELTA_RETURN_IF_ERROR(CheckArgCount(node, n, 2, 2));
    DELTA_ASSIGN_OR_RETURN(DataTypeRef type, CommonArrays(node, &args, 0));
    const DataType& element = *static_cast<const ArrayType&>(*type).element_type();
    if (element.is_nested() || element.kind() == TypeKind::kVariant) {
      // Elements are hashed to compare them (exec/expr_eval_array_set.cc).
      return MakeError(ErrorCode::kUnsupportedFeature,
                       "function {}() of arrays of {} is not supported yet (elements of "
                       "primitive types are)",
                       name, TypeToSql(element));
    }
    if (name == "arrays_overlap") {
      return Call(node, DataType::Boolean(), std::move(args));
    }
    return Call(node, type, std::move(args));
  }
  if (name == "array_position" || name == "array_remove" || name == "array_append" ||
      name == "array_prepend") {
    DELTA_RETURN_IF_ERROR(CheckArgCount(node, n, 2, 2));
    DELTA_ASSIGN_OR_RETURN(DataTypeRef type, ArrayAndValue(node, &args));
    if (name == "array_position") return Call(node, DataType::Long(), std::move(args));
    return Call(node, type, std::move(args));
  }
  if (name == "slice") {
    DELTA_RETURN_IF_ERROR(CheckArgCount(node, n, 3, 3));
    DELTA_RETURN_IF_ERROR(NeedArray(node, &args, 0));
    DELTA_RETURN_IF_ERROR(NeedInt(node, &args, 1));
    DELTA_RETURN_IF_ERROR(NeedInt(node, &args, 2));
    DataTypeRef type = args[0]->type;
    return Call(node, type, std::move(args));
  }
  if (name == "array_join") {
    // array_join(array, delimiter [, nullReplacement]): the elements as strings.
    DELTA_RETURN_IF_ERROR(CheckArgCount(node, n, 2, 3));
    DELTA_RETURN_IF_ERROR(NeedArray(node, &args, 0));
    auto strings = std::make_shared<ArrayType>(DataType::String(), true);
    if (!ElementOf(*args[0])->is_primitive()) {
      return TypeError(node, 0, *args[0], "an ARRAY of strings, numbers or dates");
    }
    DELTA_ASSIGN_OR_RETURN(args[0], CastTo(args[0], strings));
    for (size_t i = 1; i < n; ++i) {
      if (IsVoid(*args[i])) args[i] = NullOf(DataType::String());
      if (args[i]->type->kind() != TypeKind::kString) {
        return TypeError(node, i, *args[i], "a STRING");
      }
    }
    return Call(node, DataType::String(), std::move(args));
  }
  // One array argument: flatten, reverse, array_max, array_min, array_compact.
  DELTA_RETURN_IF_ERROR(CheckArgCount(node, n, 1, 1));
  DELTA_RETURN_IF_ERROR(NeedArray(node, &args, 0));
  DataTypeRef type = args[0]->type;
  const DataTypeRef& element = ElementOf(*args[0]);
  if (name == "flatten") {
    if (element->kind() == TypeKind::kVoid) {
      return Call(node, std::make_shared<ArrayType>(DataType::Void(), true),
                  std::move(args));
    }
    if (element->kind() != TypeKind::kArray) {
      return TypeError(node, 0, *args[0], "an ARRAY of ARRAY");
    }
    return Call(node, element, std::move(args));
  }
  if (name == "array_max" || name == "array_min") {
    if (!Orderable(*element))
      return TypeError(node, 0, *args[0], "an ARRAY of orderable values");
    return Call(node, element, std::move(args));
  }
  if (name == "reverse") return Call(node, type, std::move(args), "array_reverse");
  // array_compact
  return Call(node, std::make_shared<ArrayType>(element, false), std::move(args));
}

}  // namespace deltaguard::internal
