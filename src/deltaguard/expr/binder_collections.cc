// Access into structs, arrays and maps and the map functions (docs/sql.md "Structs,
// arrays and maps"): `base[key]` and `base.field` (the parser's internal functions "[]"
// and "."), map, map_keys, map_values, map_entries, map_contains_key,
// map_from_arrays, and element_at/size on a MAP. Each binds to a library call
// (BoundFn::kLibrary) whose kernel is in exec/expr_eval_map.cc.

#include <string>
#include <utility>
#include <vector>

#include "deltaguard/expr/binder_internal.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {
namespace {

// How a call is named in messages: `[]` and `.` as the syntax they come from.
std::string Shown(const Expr& node) {
  if (node.text == "[]") return "subscript []";
  if (node.text == ".") return "field access '.'";
  return "function " + node.text + "()";
}

Error TypeError(const Expr& node, size_t i, const BoundExpr& arg, std::string_view need) {
  return MakeError(ErrorCode::kSchemaMismatch,
                   "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE: {}: argument {} must be "
                   "{}, got {}",
                   Shown(node), i + 1, need, DescribeOperand(arg));
}

Status Arity(const Expr& node, size_t n, size_t lo, size_t hi) {
  if (n >= lo && n <= hi) return OkStatus();
  return MakeError(ErrorCode::kInvalidArgument,
                   "WRONG_NUM_ARGS: {} takes {} argument{}, got {}", Shown(node),
                   lo == hi ? std::to_string(lo) : fmt::format("{} to {}", lo, hi),
                   hi == 1 ? "" : "s", n);
}

const MapType& AsMap(const BoundExpr& e) { return static_cast<const MapType&>(*e.type); }
bool IsMap(const BoundExpr& e) { return e.type->kind() == TypeKind::kMap; }
bool IsKind(const BoundExpr& e, TypeKind k) { return e.type->kind() == k; }

BoundExprRef IntLiteral(int64_t v) {
  return MakeLiteral(LiteralValue{DataType::Integer(), v});
}

// The key argument cast to the map's key type (Spark casts the key implicitly).
Result<BoundExprRef> KeyFor(const Expr& node, const BoundExpr& map, BoundExprRef key) {
  const DataTypeRef& want = AsMap(map).key_type();
  if (key->type->kind() == TypeKind::kVoid) return NullOf(want);
  DataTypeRef common = CommonTypeOf(want, key->type);
  if (common == nullptr || !common->Equals(*want)) {
    if (key->kind == BoundKind::kLiteral && key->type->kind() == TypeKind::kString) {
      return CastTo(key, want);
    }
    return TypeError(node, 1, *key, TypeToSql(*want) + " (the map's key type)");
  }
  return CastTo(key, want);
}

// base.field on a STRUCT (the field), or on an ARRAY of STRUCT (an array of the
// field's values, Spark's GetArrayStructFields).
Result<BoundExprRef> Field(BoundExprRef base, const std::string& name) {
  const DataType* type = base->type.get();
  const bool over_array = type->kind() == TypeKind::kArray;
  if (over_array) type = static_cast<const ArrayType&>(*type).element_type().get();
  if (type->kind() != TypeKind::kStruct) {
    return MakeError(ErrorCode::kSchemaMismatch,
                     "INVALID_EXTRACT_BASE_FIELD_TYPE: cannot read field '{}' from {}; "
                     "only a STRUCT (or an ARRAY of STRUCT) has fields",
                     name, DescribeOperand(*base));
  }
  const auto& fields = static_cast<const StructType&>(*type).fields();
  for (size_t f = 0; f < fields.size(); ++f) {
    if (!EqualsIgnoreCase(fields[f].name, name)) continue;
    DataTypeRef result = fields[f].type;
    if (over_array) result = std::make_shared<ArrayType>(result, true);
    return MakeCall(BoundFn::kLibrary, result,
                    {base, IntLiteral(static_cast<int64_t>(f))},
                    over_array ? "array_struct_field" : "struct_field");
  }
  std::vector<std::string> names;
  for (const auto& f : fields) names.push_back(f.name);
  return MakeError(ErrorCode::kNotFound,
                   "FIELD_NOT_FOUND: no field '{}' in {}; fields: {}", name,
                   TypeToSql(*base->type), fmt::join(names, ", "));
}

Result<BoundExprRef> Subscript(const Expr& node, std::vector<BoundExprRef> args) {
  BoundExprRef base = args[0], key = args[1];
  if (IsKind(*base, TypeKind::kArray)) {
    if (key->type->kind() != TypeKind::kVoid && !key->type->is_integral()) {
      return TypeError(node, 1, *key, "an integer index");
    }
    DELTA_ASSIGN_OR_RETURN(key, CastTo(key, DataType::Integer()));
    DataTypeRef element = static_cast<const ArrayType&>(*base->type).element_type();
    return MakeCall(BoundFn::kLibrary, element, {base, key}, "array_subscript");
  }
  if (IsMap(*base)) {
    DELTA_ASSIGN_OR_RETURN(key, KeyFor(node, *base, key));
    DataTypeRef value = AsMap(*base).value_type();
    return MakeCall(BoundFn::kLibrary, value, {base, key}, "map_value");
  }
  if (IsKind(*base, TypeKind::kStruct) && key->kind == BoundKind::kLiteral &&
      key->type->kind() == TypeKind::kString && !key->literal.is_null()) {
    return Field(std::move(base), std::get<std::string>(key->literal.value));
  }
  return MakeError(ErrorCode::kSchemaMismatch,
                   "INVALID_EXTRACT_BASE_FIELD_TYPE: {} cannot be subscripted; [] reads "
                   "an ARRAY by index, a MAP by key or a STRUCT by a field name literal",
                   DescribeOperand(*base));
}

// map(k1, v1, k2, v2, ...): keys of one common type, values of another.
Result<BoundExprRef> MapOf(std::vector<BoundExprRef> args) {
  if (args.size() % 2 != 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "WRONG_NUM_ARGS: function map() takes key, value pairs, got {} "
                     "arguments",
                     args.size());
  }
  std::vector<BoundExprRef> keys, values;
  for (size_t i = 0; i < args.size(); i += 2) {
    keys.push_back(args[i]);
    values.push_back(args[i + 1]);
  }
  if (args.empty()) {
    // map() is MAP<VOID, VOID>, as in Spark, so it meets any map.
    return MakeCall(BoundFn::kLibrary,
                    std::make_shared<MapType>(DataType::Void(), DataType::Void(), true),
                    {}, "map");
  }
  DataTypeRef key_type, value_type;
  DELTA_ASSIGN_OR_RETURN(key_type, Unify(&keys, "map keys"));
  DELTA_ASSIGN_OR_RETURN(value_type, Unify(&values, "map values"));
  if (key_type->kind() == TypeKind::kVoid) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "NULL_MAP_KEY: function map(): a map key cannot be NULL");
  }
  if (key_type->kind() == TypeKind::kMap) {
    return MakeError(ErrorCode::kSchemaMismatch,
                     "DATATYPE_MISMATCH.INVALID_MAP_KEY_TYPE: function map(): a key "
                     "cannot be a MAP");
  }
  if (value_type->kind() == TypeKind::kVoid) {
    value_type = DataType::String();
    for (auto& v : values) v = NullOf(value_type);
  }
  std::vector<BoundExprRef> pairs;
  for (size_t i = 0; i < keys.size(); ++i) {
    pairs.push_back(keys[i]);
    pairs.push_back(values[i]);
  }
  return MakeCall(BoundFn::kLibrary,
                  std::make_shared<MapType>(key_type, value_type, true), std::move(pairs),
                  "map");
}

Result<BoundExprRef> MapFunction(const Expr& node, std::vector<BoundExprRef> args) {
  const std::string& name = node.text;
  if (name == "map") return MapOf(std::move(args));
  if (name == "map_from_arrays") {
    DELTA_RETURN_IF_ERROR(Arity(node, args.size(), 2, 2));
    for (size_t i = 0; i < 2; ++i) {
      if (!IsKind(*args[i], TypeKind::kArray))
        return TypeError(node, i, *args[i], "an ARRAY");
    }
    const auto& k = static_cast<const ArrayType&>(*args[0]->type).element_type();
    const auto& v = static_cast<const ArrayType&>(*args[1]->type).element_type();
    return MakeCall(BoundFn::kLibrary, std::make_shared<MapType>(k, v, true),
                    std::move(args), "map_from_arrays");
  }
  if (name == "str_to_map") {
    // str_to_map(text [, pairDelim [, keyValueDelim]]): delimiters are literals (they
    // are regular expressions, compiled once per query).
    DELTA_RETURN_IF_ERROR(Arity(node, args.size(), 1, 3));
    if (IsKind(*args[0], TypeKind::kVoid)) args[0] = NullOf(DataType::String());
    for (size_t i = 0; i < args.size(); ++i) {
      if (!IsKind(*args[i], TypeKind::kString)) {
        return TypeError(node, i, *args[i], "a STRING");
      }
      if (i > 0 && (args[i]->kind != BoundKind::kLiteral ||
                    !std::holds_alternative<std::string>(args[i]->literal.value))) {
        return TypeError(node, i, *args[i], "a STRING literal");
      }
    }
    return MakeCall(
        BoundFn::kLibrary,
        std::make_shared<MapType>(DataType::String(), DataType::String(), true),
        std::move(args), name);
  }
  const size_t want = name == "map_contains_key" || name == "element_at" ? 2 : 1;
  DELTA_RETURN_IF_ERROR(Arity(node, args.size(), want, want));
  if (!IsMap(*args[0])) return TypeError(node, 0, *args[0], "a MAP");
  const MapType& map = AsMap(*args[0]);
  if (name == "map_keys" || name == "map_values") {
    const bool keys = name == "map_keys";
    return MakeCall(
        BoundFn::kLibrary,
        std::make_shared<ArrayType>(keys ? map.key_type() : map.value_type(), !keys),
        std::move(args), name);
  }
  if (name == "map_entries") {
    std::vector<StructField> fields{{"key", map.key_type(), false, {}},
                                    {"value", map.value_type(), true, {}}};
    return MakeCall(BoundFn::kLibrary,
                    std::make_shared<ArrayType>(
                        std::make_shared<StructType>(std::move(fields)), false),
                    std::move(args), name);
  }
  if (name == "map_contains_key" || name == "element_at") {
    DELTA_ASSIGN_OR_RETURN(args[1], KeyFor(node, *args[0], args[1]));
    if (name == "element_at") {
      DataTypeRef value = map.value_type();
      return MakeCall(BoundFn::kLibrary, value, std::move(args), "map_value");
    }
    return MakeCall(BoundFn::kLibrary, DataType::Boolean(), std::move(args), name);
  }
  // size, cardinality, array_size
  return MakeCall(BoundFn::kLibrary, DataType::Integer(), std::move(args), "map_size");
}

}  // namespace

bool IsCollectionCall(std::string_view name, const std::vector<BoundExprRef>& args) {
  if (name == "[]" || name == "." || name == "map" || name == "map_keys" ||
      name == "map_values" || name == "map_entries" || name == "map_contains_key" ||
      name == "map_from_arrays" || name == "str_to_map") {
    return true;
  }
  // The array functions that also take a MAP.
  return (name == "element_at" || name == "size" || name == "cardinality") &&
         !args.empty() && IsMap(*args[0]);
}

Result<BoundExprRef> BindCollectionCall(const Expr& node,
                                        std::vector<BoundExprRef> args) {
  if (node.star || node.distinct) {
    return MakeError(ErrorCode::kInvalidArgument, "{} does not take {}", Shown(node),
                     node.star ? "*" : "DISTINCT");
  }
  if (node.text == "[]") return Subscript(node, std::move(args));
  if (node.text == ".") {
    // The parser gives the field name as a string literal.
    return Field(args[0], std::get<std::string>(args[1]->literal.value));
  }
  return MapFunction(node, std::move(args));
}

}  // namespace deltaguard::internal
