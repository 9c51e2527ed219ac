// Function signatures: argument checks, implicit casts and result types of the
// built-in functions (binder.h lists them).

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/expr/binder_internal.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {
namespace {

constexpr std::string_view kSupported =
    "coalesce, if, iff, nvl, ifnull, nvl2, nullif, length, lower, upper, trim, ltrim, "
    "rtrim, substring, substr, concat, abs, "
    "round, bround, greatest, least, floor, ceil, ceiling, current_date, "
    "current_timestamp, date_add, date_sub, year, month, day, "
    "dayofmonth, to_date, to_timestamp, try_to_timestamp, count, sum, min, max, avg, "
    "try_add, try_subtract, try_multiply, try_divide, try_mod, try_element_at, map, "
    "map_keys, map_values, map_entries, map_contains_key, map_from_arrays, "
    "schema_of_json";

struct Fn {
  std::string_view name;
  BoundFn fn;
};

constexpr Fn kFunctions[] = {
    {"coalesce", BoundFn::kCoalesce},
    {"length", BoundFn::kLength},
    {"char_length", BoundFn::kLength},
    {"lower", BoundFn::kLower},
    {"lcase", BoundFn::kLower},
    {"upper", BoundFn::kUpper},
    {"ucase", BoundFn::kUpper},
    {"trim", BoundFn::kTrim},
    {"ltrim", BoundFn::kLTrim},
    {"rtrim", BoundFn::kRTrim},
    {"substring", BoundFn::kSubstring},
    {"substr", BoundFn::kSubstring},
    {"concat", BoundFn::kConcat},
    {"abs", BoundFn::kAbs},
    {"round", BoundFn::kRound},
    {"bround", BoundFn::kRound},  // HALF_EVEN (the evaluator reads the name)
    {"greatest", BoundFn::kGreatest},
    {"least", BoundFn::kLeast},
    {"floor", BoundFn::kFloor},
    {"ceil", BoundFn::kCeil},
    {"ceiling", BoundFn::kCeil},
    {"current_date", BoundFn::kCurrentDate},
    {"current_timestamp", BoundFn::kCurrentTimestamp},
    {"now", BoundFn::kCurrentTimestamp},
    {"date_add", BoundFn::kDateAdd},
    {"date_sub", BoundFn::kDateSub},
    {"year", BoundFn::kYear},
    {"month", BoundFn::kMonth},
    {"day", BoundFn::kDay},
    {"dayofmonth", BoundFn::kDay},
    {"to_date", BoundFn::kToDate},
    {"to_timestamp", BoundFn::kToTimestamp},
    {"try_to_timestamp", BoundFn::kToTimestamp},
    {"count", BoundFn::kAggregate},
    {"sum", BoundFn::kAggregate},
    {"min", BoundFn::kAggregate},
    {"max", BoundFn::kAggregate},
    {"avg", BoundFn::kAggregate},
    {"mean", BoundFn::kAggregate},
    {"try_sum", BoundFn::kAggregate},  // NULL where sum overflows
    {"try_avg", BoundFn::kAggregate},  // NULL where avg's sum overflows
};

Status Arity(const Expr& node, size_t n, size_t min, size_t max) {
  if (n >= min && n <= max) return OkStatus();
  std::string expected = min == max        ? std::to_string(min)
                         : max == SIZE_MAX ? fmt::format("at least {}", min)
                                           : fmt::format("{} to {}", min, max);
  return MakeError(ErrorCode::kInvalidArgument,
                   "WRONG_NUM_ARGS: function {}() takes {} argument{}, got {}", node.text,
                   expected, (min == 1 && max == 1) ? "" : "s", n);
}

Error ArgTypeError(const Expr& node, size_t i, const BoundExpr& arg,
                   std::string_view need) {
  return MakeError(ErrorCode::kSchemaMismatch,
                   "function {}(): argument {} must be {}, got {}", node.text, i + 1,
                   need, DescribeOperand(arg));
}

// Strings, or primitives cast to STRING as Spark's implicit cast does.
Result<BoundExprRef> AsString(const Expr& node, size_t i, const BoundExprRef& arg) {
  TypeKind k = arg->type->kind();
  if (k == TypeKind::kString) return arg;
  if (k == TypeKind::kVoid) return NullOf(DataType::String());
  if (arg->type->is_nested() || k == TypeKind::kBinary || k == TypeKind::kVariant) {
    return ArgTypeError(node, i, *arg, "STRING");
  }
  return CastTo(arg, DataType::String());
}

Result<BoundExprRef> AsDate(const Expr& node, size_t i, const BoundExprRef& arg) {
  TypeKind k = arg->type->kind();
  if (k == TypeKind::kDate) return arg;
  if (k == TypeKind::kVoid ||
      (arg->kind == BoundKind::kLiteral && k == TypeKind::kString)) {
    return CastTo(arg, DataType::Date());
  }
  if (k == TypeKind::kTimestamp || k == TypeKind::kTimestampNtz) {
    return CastTo(arg, DataType::Date());
  }
  return ArgTypeError(node, i, *arg, "DATE");
}

Result<BoundExprRef> IntLiteralArg(const Expr& node, size_t i, const BoundExprRef& arg) {
  if (arg->kind != BoundKind::kLiteral || !arg->type->is_integral() ||
      arg->literal.is_null()) {
    return ArgTypeError(node, i, *arg, "an integer literal");
  }
  return arg;
}

}  // namespace

ExprRef RewriteForSchema(const Expr& e, const StructType& schema) {
  if (e.kind == ExprKind::kFunction && e.text == "input_file_name" &&
      e.children.empty() && !e.star) {
    for (const auto& f : schema.fields()) {
      if (EqualsIgnoreCase(f.name, "_metadata") && f.type->kind() == TypeKind::kStruct) {
        return Expr::Column({f.name, "file_path"}, e.position);
      }
    }
    return Expr::String("");
  }
  return ExpandStarArgument(e, schema);
}

Result<ExprRef> RewriteCall(const Expr& e, const StructType& schema) {
  if (ExprRef r = RewriteForSchema(e, schema)) return r;
  return RewriteConditional(e);
}

// try_add(a, b), try_subtract, try_multiply, try_divide, try_mod, try_element_at:
// the strict call, marked `try_cast` so that binding marks the bound call lenient
// (MarkTry; the evaluator's TryCall makes the rows the call fails on NULL).
Result<ExprRef> RewriteTry(const Expr& e) {
  static constexpr std::pair<std::string_view, ExprOp> kOps[] = {
      {"try_add", ExprOp::kAdd},
      {"try_subtract", ExprOp::kSubtract},
      {"try_multiply", ExprOp::kMultiply},
      {"try_divide", ExprOp::kDivide},
      {"try_mod", ExprOp::kModulo}};
  const std::string& name = e.text;
  ExprRef strict;
  for (const auto& [try_name, op] : kOps) {
    if (name != try_name) continue;
    if (e.children.size() != 2 || e.star || e.distinct) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "WRONG_NUM_ARGS: function {}() takes 2 arguments, got {}", name,
                       e.children.size());
    }
    strict = Expr::Binary(op, e.children[0], e.children[1], e.position);
  }
  if (name == "try_element_at") {
    auto call = std::make_shared<Expr>(e);
    call->text = "element_at";
    strict = call;
  }
  if (strict == nullptr) return ExprRef();
  auto marked = std::make_shared<Expr>(*strict);
  marked->try_cast = true;
  return ExprRef(marked);
}

Result<BoundExprRef> MarkTry(Result<BoundExprRef> bound, bool lenient) {
  if (!lenient || !bound || (*bound)->kind != BoundKind::kCall) return bound;
  auto call = std::make_shared<BoundExpr>(**bound);
  call->try_cast = true;
  return BoundExprRef(call);
}

// Spark's conditional functions as the CASE (or coalesce) they mean:
//   if(c, a, b), iff: CASE WHEN c THEN a ELSE b END
//   nvl(a, b), ifnull: coalesce(a, b)
//   nvl2(a, b, c): CASE WHEN a IS NOT NULL THEN b ELSE c END
//   nullif(a, b): CASE WHEN a = b THEN NULL ELSE a END
//   mod(a, b): a % b; pmod(a, b): CASE WHEN a % b < 0 THEN (a % b + b) % b ELSE a % b
// Null: not one of them. The result names keep the call as written (the query
// names columns from the unbound expression).
Result<ExprRef> RewriteConditional(const Expr& e) {
  const std::string& name = e.text;
  DELTA_ASSIGN_OR_RETURN(ExprRef lenient, RewriteTry(e));
  if (lenient != nullptr) return lenient;
  const bool is_if = name == "if" || name == "iff";
  const bool is_nvl = name == "nvl" || name == "ifnull";
  const bool is_mod = name == "mod" || name == "pmod";
  if (!is_if && !is_nvl && !is_mod && name != "nvl2" && name != "nullif") {
    return ExprRef();
  }
  const size_t want = is_if || name == "nvl2" ? 3 : 2;
  if (e.children.size() != want || e.star || e.distinct) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "WRONG_NUM_ARGS: function {}() takes {} arguments, got {}", name,
                     want, e.children.size());
  }
  const auto& a = e.children;
  if (is_nvl) return Expr::Function("coalesce", {a[0], a[1]}, e.position);
  auto mod = Expr::Binary(ExprOp::kModulo, a[0], a[1], e.position);
  if (name == "mod") return mod;
  auto when = std::make_shared<Expr>();
  when->kind = ExprKind::kCase;
  when->has_else = true;
  when->position = e.position;
  if (name == "pmod") {
    // Spark: r = a % n; if r < 0 then (r + n) % n else r.
    auto negative =
        Expr::Binary(ExprOp::kLt, mod, Expr::Literal(LiteralKind::kInteger, "0"));
    auto wrapped =
        Expr::Binary(ExprOp::kModulo, Expr::Binary(ExprOp::kAdd, mod, a[1]), a[1]);
    when->children = {negative, wrapped, mod};
    return ExprRef(when);
  }
  if (is_if) {
    when->children = {a[0], a[1], a[2]};
  } else if (name == "nvl2") {
    auto not_null = std::make_shared<Expr>();
    not_null->kind = ExprKind::kIsNull;
    not_null->negated = true;
    not_null->children = {a[0]};
    when->children = {not_null, a[1], a[2]};
  } else {  // nullif
    when->children = {Expr::Binary(ExprOp::kEq, a[0], a[1]), Expr::Null(), a[0]};
  }
  return ExprRef(when);
}

Result<BoundExprRef> BindFunction(const Expr& node, std::vector<BoundExprRef> args) {
  const Fn* found = nullptr;
  for (const auto& f : kFunctions) {
    if (f.name == node.text) found = &f;
  }
  if (node.text == "typeof") {
    // The argument's type as Spark's catalog string ("int", "decimal(3,0)").
    DELTA_RETURN_IF_ERROR(Arity(node, args.size(), 1, 1));
    return MakeLiteral(
        LiteralValue{DataType::String(), CatalogTypeString(*args[0]->type)});
  }
  if (node.text == "schema_of_json") return BindSchemaOfJson(node, args);
  if (IsArrayCall(node.text, args)) return BindArrayCall(node, std::move(args));
  if (found == nullptr && IsCollectionCall(node.text, args)) {
    return BindCollectionCall(node, std::move(args));
  }
  if (found == nullptr && IsLibraryAggregate(node.text)) {
    return BindLibraryAggregate(node, std::move(args));
  }
  if (found == nullptr && IsLibraryFunction(node.text)) {
    return BindLibraryFunction(node, std::move(args));
  }
  if (found == nullptr) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "UNRESOLVED_ROUTINE: unknown function {}(); supported: {}, mod, "
                     "pmod, typeof, {}, {}, {}",
                     node.text, kSupported, LibraryFunctionNames(), ArrayFunctionNames(),
                     LibraryAggregateNames());
  }
  const std::string& name = node.text;
  size_t n = args.size();
  if (found->fn != BoundFn::kAggregate && (node.star || node.distinct)) {
    return MakeError(ErrorCode::kInvalidArgument, "function {}() does not take {}", name,
                     node.star ? "*" : "DISTINCT");
  }
  auto call = [&](BoundFn fn, DataTypeRef type) {
    return MakeCall(fn, std::move(type), std::move(args), name);
  };
  switch (found->fn) {
    case BoundFn::kCoalesce: {
      DELTA_RETURN_IF_ERROR(Arity(node, n, 1, SIZE_MAX));
      DELTA_ASSIGN_OR_RETURN(DataTypeRef type, Unify(&args, "coalesce"));
      return call(BoundFn::kCoalesce, type);
    }
    case BoundFn::kLength: {
      DELTA_RETURN_IF_ERROR(Arity(node, n, 1, 1));
      if (args[0]->type->kind() != TypeKind::kBinary) {
        DELTA_ASSIGN_OR_RETURN(args[0], AsString(node, 0, args[0]));
      }
      return call(BoundFn::kLength, DataType::Integer());
    }
    case BoundFn::kLower:
    case BoundFn::kUpper:
    case BoundFn::kTrim:
    case BoundFn::kLTrim:
    case BoundFn::kRTrim: {
      DELTA_RETURN_IF_ERROR(Arity(node, n, 1, 1));
      DELTA_ASSIGN_OR_RETURN(args[0], AsString(node, 0, args[0]));
      return call(found->fn, DataType::String());
    }
    case BoundFn::kSubstring: {
      DELTA_RETURN_IF_ERROR(Arity(node, n, 2, 3));
      DELTA_ASSIGN_OR_RETURN(args[0], AsString(node, 0, args[0]));
      for (size_t i = 1; i < n; ++i) {
        DELTA_ASSIGN_OR_RETURN(args[i], IntLiteralArg(node, i, args[i]));
      }
      return call(BoundFn::kSubstring, DataType::String());
    }
    case BoundFn::kConcat: {
      DELTA_RETURN_IF_ERROR(Arity(node, n, 1, SIZE_MAX));
      for (size_t i = 0; i < n; ++i) {
        DELTA_ASSIGN_OR_RETURN(args[i], AsString(node, i, args[i]));
      }
      return call(BoundFn::kConcat, DataType::String());
    }
    case BoundFn::kAbs: {
      DELTA_RETURN_IF_ERROR(Arity(node, n, 1, 1));
      if (!args[0]->type->is_numeric()) return ArgTypeError(node, 0, *args[0], "numeric");
      DataTypeRef t = args[0]->type;
      return call(BoundFn::kAbs, t);
    }
    case BoundFn::kRound: {
      DELTA_RETURN_IF_ERROR(Arity(node, n, 1, 2));
      if (!args[0]->type->is_numeric()) return ArgTypeError(node, 0, *args[0], "numeric");
      if (n == 1)
        args.push_back(MakeLiteral(LiteralValue{DataType::Integer(), int64_t{0}}));
      DELTA_ASSIGN_OR_RETURN(args[1], IntLiteralArg(node, 1, args[1]));
      DataTypeRef t = args[0]->type;
      if (t->kind() == TypeKind::kDecimal) {
        const auto& d = static_cast<const DecimalType&>(*t);
        int digits = static_cast<int>(std::get<int64_t>(args[1]->literal.value));
        if (digits < d.scale()) {
          int scale = std::max(digits, 0);
          t = BoundedDecimal(d.precision() - d.scale() + scale + 1, scale);
        }
      }
      return call(BoundFn::kRound, t);
    }
    case BoundFn::kGreatest:
    case BoundFn::kLeast: {
      DELTA_RETURN_IF_ERROR(Arity(node, n, 2, SIZE_MAX));
      DELTA_ASSIGN_OR_RETURN(DataTypeRef type, Unify(&args, name));
      if (type->is_nested() || type->kind() == TypeKind::kVariant) {
        return ArgTypeError(node, 0, *args[0], "an orderable type");
      }
      if (type->kind() == TypeKind::kVoid) return NullOf(type);
      return call(found->fn, type);
    }
    case BoundFn::kFloor:
    case BoundFn::kCeil: {
      DELTA_RETURN_IF_ERROR(Arity(node, n, 1, 1));
      TypeKind k = args[0]->type->kind();
      if (k == TypeKind::kString || k == TypeKind::kVoid) {
        DELTA_ASSIGN_OR_RETURN(args[0], CastTo(args[0], DataType::Double()));
      } else if (!args[0]->type->is_numeric()) {
        return ArgTypeError(node, 0, *args[0], "numeric");
      }
      DataTypeRef t = DataType::Long();
      if (args[0]->type->kind() == TypeKind::kDecimal) {
        const auto& d = static_cast<const DecimalType&>(*args[0]->type);
        t = d.scale() == 0 ? args[0]->type
                           : BoundedDecimal(d.precision() - d.scale() + 1, 0);
      }
      return call(found->fn, t);
    }
    case BoundFn::kCurrentDate:
      DELTA_RETURN_IF_ERROR(Arity(node, n, 0, 0));
      return call(BoundFn::kCurrentDate, DataType::Date());
    case BoundFn::kCurrentTimestamp:
      DELTA_RETURN_IF_ERROR(Arity(node, n, 0, 0));
      return call(BoundFn::kCurrentTimestamp, DataType::Timestamp());
    case BoundFn::kDateAdd:
    case BoundFn::kDateSub: {
      DELTA_RETURN_IF_ERROR(Arity(node, n, 2, 2));
      DELTA_ASSIGN_OR_RETURN(args[0], AsDate(node, 0, args[0]));
      if (!args[1]->type->is_integral() && args[1]->type->kind() != TypeKind::kVoid) {
        return ArgTypeError(node, 1, *args[1], "an integer");
      }
      DELTA_ASSIGN_OR_RETURN(args[1], CastTo(args[1], DataType::Integer()));
      return call(found->fn, DataType::Date());
    }
    case BoundFn::kYear:
    case BoundFn::kMonth:
    case BoundFn::kDay: {
      DELTA_RETURN_IF_ERROR(Arity(node, n, 1, 1));
      TypeKind k = args[0]->type->kind();
      if (k != TypeKind::kTimestamp && k != TypeKind::kTimestampNtz) {
        DELTA_ASSIGN_OR_RETURN(args[0], AsDate(node, 0, args[0]));
      }
      return call(found->fn, DataType::Integer());
    }
    case BoundFn::kToDate:
    case BoundFn::kToTimestamp: {
      DELTA_RETURN_IF_ERROR(Arity(node, n, 1, 2));
      const bool to_date = found->fn == BoundFn::kToDate;
      const bool lenient = name == "try_to_timestamp";
      DataTypeRef result = to_date ? DataType::Date() : DataType::Timestamp();
      TypeKind k = args[0]->type->kind();
      if (n == 2) {
        // A Spark datetime pattern (exec/datetime_format.h) read from a string.
        if (k == TypeKind::kVoid) args[0] = NullOf(DataType::String());
        if (args[0]->type->kind() != TypeKind::kString) {
          return ArgTypeError(node, 0, *args[0], "STRING when a format is given");
        }
        if (args[1]->kind != BoundKind::kLiteral ||
            args[1]->type->kind() != TypeKind::kString || args[1]->literal.is_null()) {
          return ArgTypeError(node, 1, *args[1], "a string literal (the format)");
        }
        auto c = std::make_shared<BoundExpr>(*call(found->fn, result));
        c->try_cast = lenient;
        return BoundExprRef(c);
      }
      if (k != TypeKind::kString && k != TypeKind::kDate && k != TypeKind::kTimestamp &&
          k != TypeKind::kTimestampNtz && k != TypeKind::kVoid) {
        return ArgTypeError(node, 0, *args[0], "STRING, DATE or TIMESTAMP");
      }
      if (args[0]->type->Equals(*result)) return args[0];
      if (lenient) {
        auto c = std::make_shared<BoundExpr>();
        c->kind = BoundKind::kCast;
        c->type = result;
        c->try_cast = true;
        c->args.push_back(args[0]);
        return BoundExprRef(c);
      }
      DELTA_ASSIGN_OR_RETURN(BoundExprRef cast, CastTo(args[0], result));
      if (cast->kind == BoundKind::kLiteral) return cast;
      if (!to_date) return cast;
      return call(BoundFn::kToDate, DataType::Date());
    }
    case BoundFn::kAggregate: {
      DataTypeRef type;
      if (name == "count") {
        if (!node.star) DELTA_RETURN_IF_ERROR(Arity(node, n, 1, SIZE_MAX));
        type = DataType::Long();
      } else {
        DELTA_RETURN_IF_ERROR(Arity(node, n, 1, 1));
        DataTypeRef arg = args[0]->type;
        const bool sum = name == "sum" || name == "try_sum";
        if (name == "min" || name == "max") {
          type = arg;
        } else if (!arg->is_numeric()) {
          return ArgTypeError(node, 0, *args[0], "numeric");
        } else if (arg->kind() == TypeKind::kDecimal) {
          const auto& d = static_cast<const DecimalType&>(*arg);
          type = sum ? BoundedDecimal(d.precision() + 10, d.scale())
                     : BoundedDecimal(d.precision() + 4, d.scale() + 4);
        } else if (sum) {
          type = arg->is_integral() ? DataType::Long() : DataType::Double();
        } else {
          type = DataType::Double();
        }
      }
      auto agg = std::make_shared<BoundExpr>(*call(BoundFn::kAggregate, type));
      agg->star = node.star;
      agg->distinct = node.distinct;
      return BoundExprRef(agg);
    }
    default:
      break;
  }
  return MakeError(ErrorCode::kInternal, "function {}() has no signature", name);
}

}  // namespace deltaguard::internal

namespace deltaguard {

bool IsAggregateName(std::string_view name) {
  for (const auto& f : internal::kFunctions) {
    if (f.name == name && f.fn == BoundFn::kAggregate) return true;
  }
  return internal::IsLibraryAggregate(name);
}

ExprRef ExpandStarArgument(const Expr& e, const StructType& schema) {
  if (!e.star || !e.children.empty() || e.text == "count") return nullptr;
  auto all = std::make_shared<Expr>(e);
  all->star = false;
  for (const auto& f : schema.fields()) {
    all->children.push_back(Expr::Column({f.name}, e.position));
  }
  return all;
}

}  // namespace deltaguard
