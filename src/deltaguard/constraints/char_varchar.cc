// CHAR/VARCHAR length limits from the schema (char_varchar.h).

#include "deltaguard/constraints/char_varchar.h"

#include <fmt/format.h>

namespace deltaguard {

std::string CharVarcharLimit::Path() const {
  std::string out = column;
  for (const TypeStep& step : leaf.steps) {
    switch (step.kind) {
      case TypeStep::Kind::kField:
        out += "." + step.field;
        break;
      case TypeStep::Kind::kElement:
        out += ".element";
        break;
      case TypeStep::Kind::kKey:
        out += ".key";
        break;
      case TypeStep::Kind::kValue:
        out += ".value";
        break;
    }
  }
  return out;
}

std::string CharVarcharLimit::TypeName() const {
  return fmt::format("{}({})", leaf.is_char ? "char" : "varchar", leaf.length);
}

std::string CharVarcharLimit::CheckText() const {
  for (const TypeStep& step : leaf.steps) {
    if (step.kind != TypeStep::Kind::kField) {
      return fmt::format("every {} is NULL or at most {} characters", Path(),
                         leaf.length);
    }
  }
  const std::string path = Path();
  return fmt::format("(({} IS NULL) OR (length({}) <= {}))", path, path, leaf.length);
}

std::string CharVarcharLimit::Describe() const {
  return fmt::format("length of column {} {}", Path(), TypeName());
}

Result<std::vector<CharVarcharLimit>> CharVarcharLimits(const StructType& schema) {
  std::vector<CharVarcharLimit> out;
  for (const StructField& field : schema.fields()) {
    const std::string* raw = field.metadata.FindRaw(kCharVarcharTypeKey);
    if (raw == nullptr) continue;
    std::optional<std::string> type = field.metadata.GetString(kCharVarcharTypeKey);
    if (!type) {
      return MakeError(ErrorCode::kCorruptLog,
                       "column '{}': field metadata {} must be a JSON string, found {}",
                       field.name, kCharVarcharTypeKey, *raw);
    }
    auto leaves = ParseCharVarcharLeaves(*type);
    if (!leaves) {
      return MakeError(ErrorCode::kCorruptLog,
                       "column '{}': field metadata {} is not a type: {}", field.name,
                       kCharVarcharTypeKey, leaves.error().message);
    }
    for (CharVarcharLeaf& leaf : *leaves) {
      out.push_back(CharVarcharLimit{field.name, *type, std::move(leaf)});
    }
  }
  return out;
}

}  // namespace deltaguard
