// Signatures of the function library (binder.h BoundFn::kLibrary): string, math, date
// and time, and hashing functions, each described by a table row so that argument
// checks, Spark's implicit casts and the result type follow one rule per letter. The
// kernels are in exec/expr_eval_library*.cc, found by the canonical name.

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/expr/binder_internal.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {
namespace {

// Argument letters (the last one repeats for variadic functions):
//   S  string: strings; other primitives cast to STRING (Spark's implicit cast)
//   s  a non-NULL string literal (a pattern or a format the kernel compiles once)
//   I  integer: integral types cast to INT      L  integral cast to BIGINT
//   i  a non-NULL integer literal               F  numeric cast to DOUBLE
//   D  date: DATE, TIMESTAMP or STRING cast to DATE
//   T  timestamp: TIMESTAMP, TIMESTAMP_NTZ, DATE or STRING cast to TIMESTAMP
//   Y  bytes: BINARY or STRING (read as its UTF-8 bytes)  b  BOOLEAN
//   A  an ARRAY                                 *  any type
// Result letters: S I L F D T b as above, Y binary, e the element type of the first
// argument's array, 0 the first argument's type, w ARRAY<STRING>, a an ARRAY of the
// arguments' common type (the arguments cast to it).
struct LibraryFn {
  std::string_view name;       ///< as written in SQL
  std::string_view canonical;  ///< the kernel's name (aliases share one kernel)
  size_t min_args;
  size_t max_args;  ///< SIZE_MAX: variadic
  std::string_view args;
  char result;
};

constexpr size_t kMany = SIZE_MAX;

constexpr LibraryFn kLibrary[] = {
    // strings
    {"concat_ws", "concat_ws", 1, kMany, "SS", 'S'},
    {"lpad", "lpad", 2, 3, "SIS", 'S'},
    {"rpad", "rpad", 2, 3, "SIS", 'S'},
    {"initcap", "initcap", 1, 1, "S", 'S'},
    {"instr", "instr", 2, 2, "SS", 'I'},
    {"locate", "locate", 2, 3, "SSI", 'I'},
    {"position", "locate", 2, 3, "SSI", 'I'},
    {"replace", "replace", 2, 3, "SSS", 'S'},
    {"translate", "translate", 3, 3, "SSS", 'S'},
    {"regexp_extract", "regexp_extract", 2, 3, "Ssi", 'S'},
    {"regexp_replace", "regexp_replace", 3, 4, "Sssi", 'S'},
    {"regexp_like", "regexp_like", 2, 2, "Ss", 'b'},
    {"reverse", "reverse", 1, 1, "S", 'S'},
    {"repeat", "repeat", 2, 2, "SI", 'S'},
    {"left", "left", 2, 2, "SI", 'S'},
    {"right", "right", 2, 2, "SI", 'S'},
    {"ascii", "ascii", 1, 1, "S", 'I'},
    {"startswith", "startswith", 2, 2, "SS", 'b'},
    {"endswith", "endswith", 2, 2, "SS", 'b'},
    {"contains", "contains", 2, 2, "SS", 'b'},
    {"btrim", "btrim", 1, 2, "SS", 'S'},
    {"format_string", "format_string", 1, kMany, "SP", 'S'},
    {"printf", "format_string", 1, kMany, "SP", 'S'},
    {"split_part", "split_part", 3, 3, "SSI", 'S'},
    {"split", "split", 2, 3, "Ssi", 'w'},
    {"space", "space", 1, 1, "I", 'S'},
    {"octet_length", "octet_length", 1, 1, "S", 'I'},
    {"bit_length", "bit_length", 1, 1, "S", 'I'},
    // math
    {"pow", "power", 2, 2, "FF", 'F'},
    {"power", "power", 2, 2, "FF", 'F'},
    {"sqrt", "sqrt", 1, 1, "F", 'F'},
    {"cbrt", "cbrt", 1, 1, "F", 'F'},
    {"exp", "exp", 1, 1, "F", 'F'},
    {"ln", "ln", 1, 1, "F", 'F'},
    {"log10", "log10", 1, 1, "F", 'F'},
    {"log2", "log2", 1, 1, "F", 'F'},
    {"log", "log", 1, 2, "FF", 'F'},
    {"sign", "signum", 1, 1, "F", 'F'},
    {"signum", "signum", 1, 1, "F", 'F'},
    {"degrees", "degrees", 1, 1, "F", 'F'},
    {"radians", "radians", 1, 1, "F", 'F'},
    {"sin", "sin", 1, 1, "F", 'F'},
    {"cos", "cos", 1, 1, "F", 'F'},
    {"tan", "tan", 1, 1, "F", 'F'},
    {"asin", "asin", 1, 1, "F", 'F'},
    {"acos", "acos", 1, 1, "F", 'F'},
    {"atan", "atan", 1, 1, "F", 'F'},
    {"atan2", "atan2", 2, 2, "FF", 'F'},
    {"pi", "pi", 0, 0, "", 'F'},
    {"e", "e", 0, 0, "", 'F'},
    // date and time (the session time zone is UTC, exec/datetime_format.h)
    {"hour", "hour", 1, 1, "T", 'I'},
    {"minute", "minute", 1, 1, "T", 'I'},
    {"second", "second", 1, 1, "T", 'I'},
    {"dayofweek", "dayofweek", 1, 1, "D", 'I'},
    {"weekday", "weekday", 1, 1, "D", 'I'},
    {"dayofyear", "dayofyear", 1, 1, "D", 'I'},
    {"weekofyear", "weekofyear", 1, 1, "D", 'I'},
    {"quarter", "quarter", 1, 1, "D", 'I'},
    {"datediff", "datediff", 2, 2, "DD", 'I'},
    {"date_diff", "datediff", 2, 2, "DD", 'I'},
    {"months_between", "months_between", 2, 3, "TTb", 'F'},
    {"add_months", "add_months", 2, 2, "DI", 'D'},
    {"last_day", "last_day", 1, 1, "D", 'D'},
    {"date_format", "date_format", 2, 2, "Ts", 'S'},
    {"date_trunc", "date_trunc", 2, 2, "sT", 'T'},
    {"trunc", "trunc", 2, 2, "Ds", 'D'},
    {"unix_timestamp", "unix_timestamp", 0, 2, "Ts", 'L'},
    {"to_unix_timestamp", "unix_timestamp", 1, 2, "Ts", 'L'},
    {"from_unixtime", "from_unixtime", 1, 2, "Ls", 'S'},
    {"make_date", "make_date", 3, 3, "III", 'D'},
    {"make_timestamp", "make_timestamp", 6, 7, "IIIIIFs", 'T'},
    {"from_utc_timestamp", "from_utc_timestamp", 2, 2, "Ts", 'T'},
    {"to_utc_timestamp", "to_utc_timestamp", 2, 2, "Ts", 'T'},
    {"timestamp_seconds", "timestamp_seconds", 1, 1, "L", 'T'},
    {"unix_seconds", "unix_seconds", 1, 1, "T", 'L'},
    {"unix_date", "unix_date", 1, 1, "D", 'I'},
    {"date_from_unix_date", "date_from_unix_date", 1, 1, "I", 'D'},
    // hashing
    {"md5", "md5", 1, 1, "Y", 'S'},
    {"sha1", "sha1", 1, 1, "Y", 'S'},
    {"sha", "sha1", 1, 1, "Y", 'S'},
    {"sha2", "sha2", 2, 2, "Yi", 'S'},
    {"crc32", "crc32", 1, 1, "Y", 'L'},
    {"hash", "hash", 1, kMany, "H", 'I'},
    {"xxhash64", "xxhash64", 1, kMany, "H", 'L'},
    // arrays ('e': the element type of argument 1; '0': argument 1's type)
    {"size", "size", 1, 1, "A", 'I'},
    {"cardinality", "size", 1, 1, "A", 'I'},
    {"array_size", "size", 1, 1, "A", 'I'},
    {"element_at", "element_at", 2, 2, "AI", 'e'},
    {"array_contains", "array_contains", 2, 2, "A*", 'b'},
    {"sort_array", "sort_array", 1, 2, "Ab", '0'},
    {"array_sort", "array_sort", 1, 1, "A", '0'},
    {"array_distinct", "array_distinct", 1, 1, "A", '0'},
    {"array", "array", 0, kMany, "*", 'a'},
    // structs and JSON ('r': a STRUCT built from the arguments; 'j': the STRUCT the
    // schema literal names)
    {"named_struct", "named_struct", 2, kMany, "s*", 'r'},
    {"struct", "struct", 1, kMany, "*", 'r'},
    {"get_json_object", "get_json_object", 2, 2, "Ss", 'S'},
    {"to_json", "to_json", 1, 1, "N", 'S'},
    {"from_json", "from_json", 2, 2, "Ss", 'j'},
};

DataTypeRef ResultType(char letter) {
  switch (letter) {
    case 'S':
      return DataType::String();
    case 'I':
      return DataType::Integer();
    case 'L':
      return DataType::Long();
    case 'F':
      return DataType::Double();
    case 'D':
      return DataType::Date();
    case 'T':
      return DataType::Timestamp();
    case 'Y':
      return DataType::Binary();
    default:
      return DataType::Boolean();
  }
}

Error ArgError(const LibraryFn& f, size_t i, const BoundExpr& arg,
               std::string_view need) {
  return MakeError(
      ErrorCode::kSchemaMismatch,
      "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE: function {}(): argument {} must be "
      "{}, got {}",
      f.name, i + 1, need, DescribeOperand(arg));
}

bool IsLiteralOf(const BoundExpr& arg, TypeKind kind) {
  return arg.kind == BoundKind::kLiteral && !arg.literal.is_null() &&
         arg.type->kind() == kind;
}

bool IsTimeKind(TypeKind k) {
  return k == TypeKind::kTimestamp || k == TypeKind::kTimestampNtz ||
         k == TypeKind::kDate;
}

// One argument by its letter: checked, and cast where Spark casts implicitly.
Result<BoundExprRef> ConformArg(const LibraryFn& f, size_t i, char letter,
                                BoundExprRef arg) {
  const TypeKind k = arg->type->kind();
  const bool null = k == TypeKind::kVoid;
  const bool primitive =
      !arg->type->is_nested() && k != TypeKind::kBinary && k != TypeKind::kVariant;
  switch (letter) {
    case 'S':
      if (k == TypeKind::kString) return arg;
      if (null || primitive) return CastTo(arg, DataType::String());
      return ArgError(f, i, *arg, "STRING");
    case 's':
      if (IsLiteralOf(*arg, TypeKind::kString)) return arg;
      return ArgError(f, i, *arg, "a string literal");
    case 'I':
    case 'L':
      if (null || arg->type->is_integral()) {
        return CastTo(arg, letter == 'I' ? DataType::Integer() : DataType::Long());
      }
      return ArgError(f, i, *arg, "an integer");
    case 'i':
      if (arg->kind == BoundKind::kLiteral && !arg->literal.is_null() &&
          arg->type->is_integral()) {
        return CastTo(arg, DataType::Integer());
      }
      return ArgError(f, i, *arg, "an integer literal");
    case 'F':
      if (null || arg->type->is_numeric()) return CastTo(arg, DataType::Double());
      if (k == TypeKind::kString) return CastTo(arg, DataType::Double());
      return ArgError(f, i, *arg, "numeric");
    case 'D':
      if (k == TypeKind::kDate) return arg;
      if (null || IsTimeKind(k) || k == TypeKind::kString) {
        return CastTo(arg, DataType::Date());
      }
      return ArgError(f, i, *arg, "DATE");
    case 'T':
      if (k == TypeKind::kTimestamp) return arg;
      if (null || IsTimeKind(k) || k == TypeKind::kString) {
        return CastTo(arg, DataType::Timestamp());
      }
      return ArgError(f, i, *arg, "TIMESTAMP");
    case 'Y':
      // A STRING stays a string: the kernels hash its UTF-8 bytes, which is what
      // Spark's cast to BINARY gives.
      if (k == TypeKind::kBinary || k == TypeKind::kString) return arg;
      if (null) return CastTo(arg, DataType::String());
      return ArgError(f, i, *arg, "BINARY");
    case 'b':
      if (null || k == TypeKind::kBoolean) return CastTo(arg, DataType::Boolean());
      return ArgError(f, i, *arg, "BOOLEAN");
    case 'A':
      if (k == TypeKind::kArray) return arg;
      return ArgError(f, i, *arg, "an ARRAY");
    case 'N':
      if (arg->type->is_nested()) return arg;
      return ArgError(f, i, *arg, "a STRUCT, ARRAY or MAP");
    case 'P':
      if (primitive || null) return arg;
      return ArgError(f, i, *arg, "a number, string, boolean, date or timestamp");
    case 'H':
      if (!arg->type->is_nested() && k != TypeKind::kVariant) return arg;
      if (k == TypeKind::kArray || k == TypeKind::kStruct) {
        // MAP nested anywhere is refused too, as Spark's HASH_MAP_TYPE.
        if (TypeToSql(*arg->type).find("MAP<") == std::string::npos) return arg;
      }
      return MakeError(ErrorCode::kSchemaMismatch,
                       "DATATYPE_MISMATCH.HASH_MAP_TYPE: function {}(): argument {} "
                       "is {}; a MAP cannot be hashed (its entries have no order)",
                       f.name, i + 1, TypeToSql(*arg->type));
    case '*':
      return arg;
    default:
      break;
  }
  return MakeError(ErrorCode::kInternal, "function {}(): bad signature letter '{}'",
                   f.name, letter);
}

// Checks a signature cannot state: literal values the kernel relies on.
Status CheckLiterals(const LibraryFn& f, const std::vector<BoundExprRef>& args) {
  auto int_at = [&](size_t i) { return std::get<int64_t>(args[i]->literal.value); };
  if (f.canonical == "sha2") {
    int64_t bits = int_at(1);
    if (bits != 0 && bits != 224 && bits != 256 && bits != 384 && bits != 512) {
      // Spark returns NULL for other lengths; refusing them names the mistake.
      return MakeError(ErrorCode::kInvalidArgument,
                       "function sha2(): bit length must be 224, 256 (or 0), 384 or "
                       "512, got {}",
                       bits);
    }
  }
  if (f.canonical == "date_trunc" || f.canonical == "trunc") {
    // Spark returns NULL for an unknown unit; naming the units catches the typo.
    const bool date_trunc = f.canonical == "date_trunc";
    const auto& unit = std::get<std::string>(args[date_trunc ? 0 : 1]->literal.value);
    if (TruncUnitOf(unit, date_trunc) < 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "function {}(): unknown unit '{}'; expected one of {}", f.name,
                       unit,
                       date_trunc ? "YEAR, YYYY, YY, QUARTER, MONTH, MM, MON, WEEK, DAY, "
                                    "DD, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND"
                                  : "YEAR, YYYY, YY, QUARTER, MONTH, MM, MON, WEEK");
    }
  }
  if (f.canonical == "regexp_replace" && args.size() > 3 && int_at(3) < 1) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE: function regexp_replace(): "
                     "the position must be at least 1, got {}",
                     int_at(3));
  }
  if (f.canonical == "regexp_extract" && args.size() > 2 && int_at(2) < 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX: function "
                     "regexp_extract(): the group index must not be negative, got {}",
                     int_at(2));
  }
  return OkStatus();
}

// named_struct(name, value, ...) or struct(value, ...): a field per value, named by
// the literal, by the column (struct(id) has a field `id`) or colN. The name literals
// of named_struct are dropped from the call's arguments.
Result<DataTypeRef> StructResult(const LibraryFn& f, const Expr& node,
                                 std::vector<BoundExprRef>* args) {
  std::vector<StructField> fields;
  std::vector<BoundExprRef> values;
  const bool named = f.canonical == "named_struct";
  if (named && args->size() % 2 != 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "WRONG_NUM_ARGS: function named_struct() takes name, value pairs, "
                     "got {} arguments",
                     args->size());
  }
  for (size_t i = 0; i < args->size(); i += named ? 2 : 1) {
    std::string name;
    if (named) {
      const BoundExpr& n = *(*args)[i];
      if (!IsLiteralOf(n, TypeKind::kString)) {
        return ArgError(f, i, n, "a string literal (a field name)");
      }
      name = std::get<std::string>(n.literal.value);
    } else if (i < node.path.size() && !node.path[i].empty()) {
      name = node.path[i];  // struct(a AS x)
    } else if (node.children[i]->kind == ExprKind::kColumn) {
      name = node.children[i]->path.back();
    } else {
      name = "col" + std::to_string(i + 1);
    }
    const BoundExprRef& v = (*args)[i + (named ? 1 : 0)];
    if (v->type->kind() == TypeKind::kVoid) {
      return ArgError(f, i + (named ? 1 : 0), *v, "a typed value (cast the NULL)");
    }
    for (const auto& seen : fields) {
      if (EqualsIgnoreCase(seen.name, name)) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "function {}(): field name '{}' is given twice", f.name, name);
      }
    }
    fields.push_back(StructField{name, v->type, true, {}});
    values.push_back(v);
  }
  *args = std::move(values);
  return DataTypeRef(std::make_shared<StructType>(std::move(fields)));
}

}  // namespace

bool IsLibraryFunction(std::string_view name) {
  return std::any_of(std::begin(kLibrary), std::end(kLibrary),
                     [&](const LibraryFn& f) { return f.name == name; });
}

std::string LibraryFunctionNames() {
  std::string out;
  for (const auto& f : kLibrary) {
    if (!out.empty()) out += ", ";
    out += f.name;
  }
  return out;
}

Result<BoundExprRef> BindLibraryFunction(const Expr& node,
                                         std::vector<BoundExprRef> args) {
  const LibraryFn* f = nullptr;
  for (const auto& candidate : kLibrary) {
    if (candidate.name == node.text) f = &candidate;
  }
  if (f == nullptr) {
    return MakeError(ErrorCode::kInternal, "{}() is not a library function", node.text);
  }
  const size_t n = args.size();
  if (n < f->min_args || n > f->max_args) {
    std::string expected = f->min_args == f->max_args ? std::to_string(f->min_args)
                           : f->max_args == kMany
                               ? fmt::format("at least {}", f->min_args)
                               : fmt::format("{} to {}", f->min_args, f->max_args);
    return MakeError(ErrorCode::kInvalidArgument,
                     "WRONG_NUM_ARGS: function {}() takes {} argument{}, got {}", f->name,
                     expected, expected == "1" ? "" : "s", n);
  }
  if (node.star || node.distinct) {
    return MakeError(ErrorCode::kInvalidArgument, "function {}() does not take {}",
                     f->name, node.star ? "*" : "DISTINCT");
  }
  for (size_t i = 0; i < n; ++i) {
    char letter = f->args[std::min(i, f->args.size() - 1)];
    // unix_timestamp(string [, format]) parses the string with the format (default
    // 'yyyy-MM-dd HH:mm:ss') rather than casting it.
    if (f->canonical == "unix_timestamp" && i == 0 &&
        args[0]->type->kind() == TypeKind::kString) {
      letter = 'S';
    }
    // concat_ws(sep, 'a', array('b', 'c')): arrays of strings join element by element.
    if (f->canonical == "concat_ws" && i > 0 &&
        args[i]->type->kind() == TypeKind::kArray) {
      const auto& element = static_cast<const ArrayType&>(*args[i]->type).element_type();
      if (element->kind() == TypeKind::kVoid) {
        // array() (ARRAY<VOID>) is an array of strings with no element.
        DELTA_ASSIGN_OR_RETURN(args[i], CastTo(args[i], std::make_shared<ArrayType>(
                                                            DataType::String(), true)));
      } else if (element->kind() != TypeKind::kString) {
        return ArgError(*f, i, *args[i], "STRING or ARRAY<STRING>");
      }
      continue;
    }
    DELTA_ASSIGN_OR_RETURN(args[i], ConformArg(*f, i, letter, std::move(args[i])));
  }
  DELTA_RETURN_IF_ERROR(CheckLiterals(*f, args));
  DataTypeRef result;
  if (f->result == 'e' || f->result == '0') {
    result = args[0]->type;
    if (f->result == 'e') {
      result = static_cast<const ArrayType&>(*result).element_type();
    }
  } else if (f->result == 'w') {
    result = std::make_shared<ArrayType>(DataType::String(), true);
  } else if (f->result == 'r') {
    DELTA_ASSIGN_OR_RETURN(result, StructResult(*f, node, &args));
  } else if (f->result == 'j') {
    // from_json(json, 'a INT, b STRING'): the schema is a DDL column list.
    const auto& ddl = std::get<std::string>(args[1]->literal.value);
    auto schema = ParseDdlSchema(ddl);
    if (!schema) {
      return MakeError(ErrorCode::kParseError, "function {}(): schema '{}': {}", f->name,
                       ddl, schema.error().message);
    }
    result = *schema;
  } else if (f->result == 'a') {
    // array(a, b, ...): elements of the common type. array() is ARRAY<VOID>, as in
    // Spark, so it meets any array (`coalesce(tags, array())`).
    DataTypeRef element = DataType::Void();
    if (!args.empty()) {
      DELTA_ASSIGN_OR_RETURN(element, Unify(&args, "array"));
    }
    result = std::make_shared<ArrayType>(element, true);
  } else {
    result = ResultType(f->result);
  }
  if (f->canonical == "array_contains") {
    // The value meets the elements at their common type.
    const auto& element = static_cast<const ArrayType&>(*args[0]->type).element_type();
    if (args[1]->type->kind() == TypeKind::kVoid) {
      return MakeError(ErrorCode::kSchemaMismatch,
                       "DATATYPE_MISMATCH.NULL_TYPE: function array_contains(): a NULL "
                       "literal cannot be looked for; cast it to the element type");
    }
    DataTypeRef common = CommonTypeOf(element, args[1]->type);
    if (common == nullptr) {
      return ArgError(*f, 1, *args[1], TypeToSql(*element) + " (the element type)");
    }
    if (!common->Equals(*element)) {
      // array_contains(array(1, 2), 2L): the elements widen to the value's type.
      DELTA_ASSIGN_OR_RETURN(args[0],
                             CastTo(args[0], std::make_shared<ArrayType>(common, true)));
    }
    DELTA_ASSIGN_OR_RETURN(args[1], CastTo(args[1], common));
  }
  return MakeCall(BoundFn::kLibrary, result, std::move(args), std::string(f->canonical));
}

}  // namespace deltaguard::internal

namespace deltaguard {

int TruncUnitOf(std::string_view unit, bool time_units) {
  std::string u(unit);
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (u == "YEAR" || u == "YYYY" || u == "YY") return kTruncYear;
  if (u == "QUARTER") return kTruncQuarter;
  if (u == "MONTH" || u == "MM" || u == "MON") return kTruncMonth;
  if (u == "WEEK") return kTruncWeek;
  if (!time_units) return -1;
  if (u == "DAY" || u == "DD") return kTruncDay;
  if (u == "HOUR") return kTruncHour;
  if (u == "MINUTE") return kTruncMinute;
  if (u == "SECOND") return kTruncSecond;
  if (u == "MILLISECOND") return kTruncMillisecond;
  if (u == "MICROSECOND") return kTruncMicrosecond;
  return -1;
}

}  // namespace deltaguard
