/// \file deltaguard/expr/literal.h
/// Typed literal values: the conversion of literal text (numbers, DATE/TIMESTAMP
/// strings) into the values that the binder folds and the evaluator materialises.
///
/// Conventions (match the Arrow mapping of arrow/schema.h): dates are days
/// since 1970-01-01, timestamps microseconds since the epoch (TIMESTAMP in UTC, which
/// stands in for Spark's session time zone), decimals an unscaled 128-bit integer whose
/// scale is the type's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "deltaguard/expr/ast.h"
#include "deltaguard/schema/data_type.h"

namespace deltaguard {

using Int128 = __int128;

struct LiteralValue;

/// The items of a non-NULL ARRAY (its elements), MAP (k0, v0, k1, v1, ...) or STRUCT
/// (its fields in order), each typed as the container's type says. Only the values of
/// subqueries are nested (query_subquery.cc); SQL text has no nested literals.
struct NestedValue {
  std::vector<LiteralValue> items;
};
bool operator==(const NestedValue& a, const NestedValue& b);

struct LiteralValue {
  /// Type of the value; Void for an untyped NULL.
  DataTypeRef type;
  /// monostate = NULL; bool; int64_t for byte..long, date (days), timestamps (micros);
  /// double for float and double; Int128 for decimals; string for string and binary;
  /// NestedValue for arrays, maps and structs.
  using ValueType = std::variant<std::monostate, bool, int64_t, double, Int128,
                                 std::string, NestedValue>;
  ValueType value;

  bool is_null() const { return std::holds_alternative<std::monostate>(value); }
  /// SQL text of the value, for messages ("DATE '2024-01-01'", "'abc'", "1.50",
  /// "array(1, 2)", "named_struct('a', 1)", "map('k', 1)").
  std::string ToString() const;
};

/// Same type and value, items compared in order (NULL equals NULL).
bool operator==(const LiteralValue& a, const LiteralValue& b);

/// The typed value of a kLiteral node. kParseError for text that is not a valid
/// value of its kind (out-of-range numbers, impossible dates).
Result<LiteralValue> EvaluateLiteral(const Expr& literal);

/// The kind and canonical text of a numeric literal as written in SQL, including
/// Spark's suffixes (Y, S, L, BD, D, F) and an optional leading '-': integers are
/// INT when they fit, else BIGINT, else DECIMAL(n,0); "1.5" is DECIMAL; an exponent
/// makes DOUBLE. kParseError names the text.
Result<std::pair<LiteralKind, std::string>> ClassifyNumber(std::string_view text);

/// Days since the epoch of the text of a DATE literal, "yyyy-[m]m-[d]d" (a trailing
/// 'T...' or ' ...' is ignored, as Spark does for DATE strings).
Result<int32_t> ParseDateLiteral(std::string_view text);
/// Microseconds since the epoch of the text of a TIMESTAMP literal, "yyyy-mm-dd[(
/// |T)hh:mm[:ss[.ffffff]]][zone]" where zone is Z, UTC, or +hh[:mm]/-hh[:mm].
/// `allow_zone` is false for TIMESTAMP_NTZ.
Result<int64_t> ParseTimestampLiteral(std::string_view text, bool allow_zone);
std::string FormatDate(int64_t days);
std::string FormatTimestamp(int64_t micros);
/// "123.45" (digits, optional point, optional '-') -> unscaled value at `scale`.
/// kInvalidArgument if the text has more fractional digits than `scale` or does not
/// fit `precision`.
Result<Int128> ParseDecimalText(std::string_view text, int precision, int scale);
std::string FormatDecimal(Int128 unscaled, int scale);

/// Convert a string literal to `target` for comparisons with a column of that type
/// (Spark casts the literal side): numbers, boolean, date, timestamp, timestamp_ntz.
/// Numeric targets keep the literal's own exact numeric type (the caller then promotes
/// both sides), so '1.5' against an INT column compares as DECIMAL, never truncated.
Result<LiteralValue> CoerceStringLiteral(const std::string& text, const DataType& target);

}  // namespace deltaguard
