#include "deltaguard/evolution/type_rules.h"

namespace deltaguard {

int IntegralDigits(TypeKind kind) {
  switch (kind) {
    case TypeKind::kByte:
      return 3;
    case TypeKind::kShort:
      return 5;
    case TypeKind::kInteger:
      return 10;
    case TypeKind::kLong:
      return 19;
    default:
      return 0;
  }
}

namespace {

// Shared by both relations: the widenings Delta 4.x lists, all of which are lossless.
bool IsStrictWidening(const DataType& from, const DataType& to) {
  const TypeKind f = from.kind();
  const TypeKind t = to.kind();
  if (IntegralRank(f) > 0 && IntegralRank(t) > 0)
    return IntegralRank(f) < IntegralRank(t);
  if (f == TypeKind::kFloat && t == TypeKind::kDouble) return true;
  if (t == TypeKind::kDouble) return IntegralRank(f) > 0 && f != TypeKind::kLong;
  if (t == TypeKind::kDecimal) {
    const auto& dt = static_cast<const DecimalType&>(to);
    if (IntegralRank(f) > 0) return dt.precision() - dt.scale() >= IntegralDigits(f);
    if (f == TypeKind::kDecimal) {
      const auto& df = static_cast<const DecimalType&>(from);
      if (df.precision() == dt.precision() && df.scale() == dt.scale()) return false;
      return dt.scale() >= df.scale() &&
             dt.precision() - dt.scale() >= df.precision() - df.scale();
    }
    return false;
  }
  return f == TypeKind::kDate && t == TypeKind::kTimestampNtz;
}

}  // namespace

bool IsLosslessWriteCast(const DataType& from, const DataType& to) {
  if (from.is_nested() || to.is_nested()) return false;
  if (from.Equals(to)) return true;
  if (from.kind() == TypeKind::kVoid) return true;
  return IsStrictWidening(from, to);
}

bool IsTypeWideningSupported(const DataType& from, const DataType& to) {
  if (from.is_nested() || to.is_nested()) return false;
  // Delta asks integral -> decimal for decimal(10 + k1, k2) from byte/short/integer and
  // decimal(20 + k1, k2) from long: more integer digits than strictly needed.
  if (to.kind() == TypeKind::kDecimal && IntegralRank(from.kind()) > 0) {
    const auto& dt = static_cast<const DecimalType&>(to);
    return dt.precision() - dt.scale() >= (from.kind() == TypeKind::kLong ? 20 : 10);
  }
  return IsStrictWidening(from, to);
}

}  // namespace deltaguard
