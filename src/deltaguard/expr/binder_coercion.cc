// Type coercion for the binder: common types, implicit casts, castability (see
// binder_internal.h).

#include <algorithm>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "deltaguard/expr/binder_internal.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace internal {

BoundExprRef MakeCall(BoundFn fn, DataTypeRef type, std::vector<BoundExprRef> args,
                      std::string name) {
  auto e = std::make_shared<BoundExpr>();
  e->kind = BoundKind::kCall;
  e->fn = fn;
  e->type = std::move(type);
  e->args = std::move(args);
  e->name = std::move(name);
  return e;
}

BoundExprRef MakeLiteral(LiteralValue value) {
  auto e = std::make_shared<BoundExpr>();
  e->kind = BoundKind::kLiteral;
  e->type = value.type;
  e->nullable = value.is_null();
  e->literal = std::move(value);
  return e;
}

BoundExprRef NullOf(DataTypeRef type) {
  LiteralValue v;
  v.type = std::move(type);
  return MakeLiteral(std::move(v));
}

namespace {

bool IsStringLiteral(const BoundExpr& e) {
  return e.kind == BoundKind::kLiteral && !e.literal.is_null() &&
         e.type->kind() == TypeKind::kString;
}
bool IsNullLiteral(const BoundExpr& e) {
  return e.kind == BoundKind::kLiteral && e.literal.is_null();
}
bool IsDateTime(TypeKind k) {
  return k == TypeKind::kDate || k == TypeKind::kTimestamp ||
         k == TypeKind::kTimestampNtz;
}

DataTypeRef CommonType(const DataTypeRef& a, const DataTypeRef& b);

// Common type of two arrays, maps or structs of the same kind: their parts' common
// types, NULLs allowed where either allows them (Spark's findWiderTypeForTwo). Struct
// fields pair by position and must have the same names (ignoring case; the first
// side's spelling is kept). nullptr when a part has none.
DataTypeRef CommonNestedType(const DataType& a, const DataType& b) {
  switch (a.kind()) {
    case TypeKind::kArray: {
      const auto& x = static_cast<const ArrayType&>(a);
      const auto& y = static_cast<const ArrayType&>(b);
      DataTypeRef element = CommonType(x.element_type(), y.element_type());
      if (!element) return nullptr;
      return std::make_shared<ArrayType>(element, x.contains_null() || y.contains_null());
    }
    case TypeKind::kMap: {
      const auto& x = static_cast<const MapType&>(a);
      const auto& y = static_cast<const MapType&>(b);
      DataTypeRef key = CommonType(x.key_type(), y.key_type());
      DataTypeRef value = CommonType(x.value_type(), y.value_type());
      if (!key || !value) return nullptr;
      return std::make_shared<MapType>(
          key, value, x.value_contains_null() || y.value_contains_null());
    }
    case TypeKind::kStruct: {
      const auto& x = static_cast<const StructType&>(a);
      const auto& y = static_cast<const StructType&>(b);
      if (x.num_fields() != y.num_fields()) return nullptr;
      std::vector<StructField> fields;
      for (size_t i = 0; i < x.num_fields(); ++i) {
        if (!EqualsIgnoreCase(x.field(i).name, y.field(i).name)) return nullptr;
        DataTypeRef type = CommonType(x.field(i).type, y.field(i).type);
        if (!type) return nullptr;
        StructField f = x.field(i);
        f.type = type;
        f.nullable = x.field(i).nullable || y.field(i).nullable;
        fields.push_back(std::move(f));
      }
      return std::make_shared<StructType>(std::move(fields));
    }
    default:
      return nullptr;
  }
}

// Common type of two non-string-literal operand types, or nullptr.
DataTypeRef CommonType(const DataTypeRef& a, const DataTypeRef& b) {
  if (a->Equals(*b)) return a;
  if (a->kind() == TypeKind::kVoid) return b;
  if (b->kind() == TypeKind::kVoid) return a;
  if (a->kind() == b->kind() && a->is_nested()) return CommonNestedType(*a, *b);
  if (a->is_numeric() && b->is_numeric()) return WiderNumeric(*a, *b);
  if (IsDateTime(a->kind()) && IsDateTime(b->kind())) {
    if (a->kind() == TypeKind::kTimestamp || b->kind() == TypeKind::kTimestamp) {
      return DataType::Timestamp();
    }
    return DataType::TimestampNtz();
  }
  return nullptr;
}

}  // namespace

std::string DescribeOperand(const BoundExpr& e) {
  std::string type = TypeToSql(*e.type);
  if (e.kind == BoundKind::kColumn) {
    std::string path;
    for (const auto& p : e.path) path += (path.empty() ? "" : ".") + p;
    return fmt::format("column '{}' ({})", path, type);
  }
  if (e.kind == BoundKind::kLiteral)
    return fmt::format("literal {} ({})", e.literal.ToString(), type);
  return type;
}

Error ArgTypeError(const Expr& node, size_t i, std::string_view need,
                   std::string_view got) {
  return MakeError(ErrorCode::kSchemaMismatch,
                   "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE: function {}(): argument {} "
                   "must be {}, got {}",
                   node.text, i + 1, need, got);
}

Status CheckArgCount(const Expr& node, size_t n, size_t lo, size_t hi) {
  if (n >= lo && n <= hi) return OkStatus();
  return MakeError(ErrorCode::kInvalidArgument,
                   "WRONG_NUM_ARGS: function {}() takes {}{} argument{}, got {}",
                   node.text, lo, hi == lo ? "" : fmt::format(" to {}", hi),
                   hi == 1 ? "" : "s", n);
}

DataTypeRef IntegralAsDecimal(const DataType& t) {
  switch (t.kind()) {
    case TypeKind::kByte:
      return std::make_shared<DecimalType>(3, 0);
    case TypeKind::kShort:
      return std::make_shared<DecimalType>(5, 0);
    case TypeKind::kInteger:
      return std::make_shared<DecimalType>(10, 0);
    default:
      return std::make_shared<DecimalType>(20, 0);
  }
}

DataTypeRef IntegralOperandAsDecimal(const BoundExpr& e) {
  const BoundExpr* lit = &e;
  if (e.kind == BoundKind::kCall && e.fn == BoundFn::kNegate && e.args.size() == 1) {
    lit = e.args[0].get();
  }
  if (lit->kind != BoundKind::kLiteral || lit->literal.is_null() ||
      !std::holds_alternative<int64_t>(lit->literal.value)) {
    return IntegralAsDecimal(*e.type);
  }
  int64_t v = std::get<int64_t>(lit->literal.value);
  uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  int digits = 1;
  while (magnitude >= 10) {
    magnitude /= 10;
    ++digits;
  }
  return std::make_shared<DecimalType>(digits, 0);
}

DataTypeRef BoundedDecimal(int precision, int scale) {
  if (precision <= DecimalType::kMaxPrecision) {
    return std::make_shared<DecimalType>(std::max(precision, 1), scale);
  }
  int int_digits = precision - scale;
  int min_scale = std::min(scale, 6);
  int adjusted = std::max(DecimalType::kMaxPrecision - int_digits, min_scale);
  return std::make_shared<DecimalType>(DecimalType::kMaxPrecision, adjusted);
}

DataTypeRef WiderNumeric(const DataType& a, const DataType& b) {
  TypeKind ka = a.kind(), kb = b.kind();
  if (ka == TypeKind::kDouble || kb == TypeKind::kDouble) return DataType::Double();
  if (ka == TypeKind::kFloat || kb == TypeKind::kFloat) {
    if (ka == TypeKind::kDecimal || kb == TypeKind::kDecimal) return DataType::Double();
    return DataType::Float();
  }
  if (ka == TypeKind::kDecimal || kb == TypeKind::kDecimal) {
    DataTypeRef da = ka == TypeKind::kDecimal ? nullptr : IntegralAsDecimal(a);
    DataTypeRef db = kb == TypeKind::kDecimal ? nullptr : IntegralAsDecimal(b);
    const auto& x = static_cast<const DecimalType&>(da ? *da : a);
    const auto& y = static_cast<const DecimalType&>(db ? *db : b);
    int scale = std::max(x.scale(), y.scale());
    int int_digits = std::max(x.precision() - x.scale(), y.precision() - y.scale());
    int precision = std::min(int_digits + scale, DecimalType::kMaxPrecision);
    return std::make_shared<DecimalType>(precision, std::min(scale, precision));
  }
  return IntegralRank(ka) >= IntegralRank(kb)
             ? (ka == TypeKind::kLong      ? DataType::Long()
                : ka == TypeKind::kInteger ? DataType::Integer()
                : ka == TypeKind::kShort   ? DataType::Short()
                                           : DataType::Byte())
             : WiderNumeric(b, a);
}

Result<BoundExprRef> CastTo(const BoundExprRef& e, const DataTypeRef& type) {
  if (e->type->Equals(*type)) return e;
  if (IsNullLiteral(*e)) return NullOf(type);
  if (IsStringLiteral(*e) && type->kind() != TypeKind::kString) {
    DELTA_ASSIGN_OR_RETURN(
        LiteralValue v,
        CoerceStringLiteral(std::get<std::string>(e->literal.value), *type));
    BoundExprRef lit = MakeLiteral(std::move(v));
    if (lit->type->Equals(*type)) return lit;
    return CastTo(lit, type);
  }
  auto c = std::make_shared<BoundExpr>();
  c->kind = BoundKind::kCast;
  c->type = type;
  c->nullable = e->nullable;
  c->args.push_back(e);
  return BoundExprRef(c);
}

Result<DataTypeRef> Unify(std::vector<BoundExprRef>* args, std::string_view what) {
  DataTypeRef common;
  const BoundExpr* first = nullptr;
  bool any_string_literal = false;
  for (const auto& a : *args) {
    if (IsStringLiteral(*a)) {
      any_string_literal = true;
      continue;
    }
    if (!common) {
      common = a->type;
      first = a.get();
      continue;
    }
    DataTypeRef next = CommonType(common, a->type);
    if (!next) {
      return MakeError(ErrorCode::kSchemaMismatch, "{}: cannot combine {} with {}", what,
                       DescribeOperand(*first), DescribeOperand(*a));
    }
    common = next;
  }
  if (common && any_string_literal && common->kind() != TypeKind::kVoid &&
      common->kind() != TypeKind::kString) {
    // Spark casts the literal side: convert string literals first (a number keeps its
    // own exact type, '1.5' is DECIMAL(2,1)), then find the common type again.
    for (auto& a : *args) {
      if (!IsStringLiteral(*a)) continue;
      auto v = CoerceStringLiteral(std::get<std::string>(a->literal.value), *common);
      if (!v) return WithContext(v.error(), what);
      a = MakeLiteral(std::move(*v));
      DataTypeRef next = CommonType(common, a->type);
      if (!next) {
        return MakeError(ErrorCode::kSchemaMismatch, "{}: cannot combine {} with {}",
                         what, DescribeOperand(*first), DescribeOperand(*a));
      }
      common = next;
    }
  }
  if (!common || (common->kind() == TypeKind::kVoid && any_string_literal)) {
    common = any_string_literal ? DataType::String() : DataType::Void();
  }
  if (common->kind() == TypeKind::kString) {
    for (const auto& a : *args) {
      if (!a->type->Equals(*common) && !IsNullLiteral(*a)) {
        return MakeError(ErrorCode::kSchemaMismatch, "{}: cannot combine STRING with {}",
                         what, DescribeOperand(*a));
      }
    }
  }
  for (auto& a : *args) {
    auto cast = CastTo(a, common);
    if (!cast) return WithContext(cast.error(), what);
    a = *cast;
  }
  return common;
}

Status CheckCastable(const DataType& from, const DataType& to) {
  TypeKind f = from.kind(), t = to.kind();
  bool ok = false;
  if (from.Equals(to) || f == TypeKind::kVoid) {
    ok = true;
  } else if (t == TypeKind::kString) {
    ok = from.is_primitive() && f != TypeKind::kVariant;
  } else if (from.is_numeric() || f == TypeKind::kBoolean) {
    ok = to.is_numeric() || t == TypeKind::kBoolean ||
         (f != TypeKind::kBoolean && t == TypeKind::kTimestamp && from.is_integral());
  } else if (f == TypeKind::kString) {
    ok = to.is_primitive() && t != TypeKind::kVariant;
  } else if (IsDateTime(f)) {
    ok = IsDateTime(t);
  } else if (f == t && f == TypeKind::kArray) {
    // Spark casts collections part by part (Cast.canCast): elements, keys and values,
    // struct fields by position whatever their names.
    return CheckCastable(*static_cast<const ArrayType&>(from).element_type(),
                         *static_cast<const ArrayType&>(to).element_type());
  } else if (f == t && f == TypeKind::kMap) {
    const auto& x = static_cast<const MapType&>(from);
    const auto& y = static_cast<const MapType&>(to);
    DELTA_RETURN_IF_ERROR(CheckCastable(*x.key_type(), *y.key_type()));
    return CheckCastable(*x.value_type(), *y.value_type());
  } else if (f == t && f == TypeKind::kStruct) {
    const auto& x = static_cast<const StructType&>(from);
    const auto& y = static_cast<const StructType&>(to);
    ok = x.num_fields() == y.num_fields();
    for (size_t i = 0; ok && i < x.num_fields(); ++i) {
      DELTA_RETURN_IF_ERROR(CheckCastable(*x.field(i).type, *y.field(i).type));
    }
  }
  if (!ok) {
    return MakeError(ErrorCode::kSchemaMismatch, "cannot cast {} to {}", TypeToSql(from),
                     TypeToSql(to));
  }
  return OkStatus();
}

}  // namespace internal

DataTypeRef CommonTypeOf(const DataTypeRef& a, const DataTypeRef& b) {
  return internal::CommonType(a, b);
}

}  // namespace deltaguard
