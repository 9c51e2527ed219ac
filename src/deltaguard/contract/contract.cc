#include "deltaguard/contract/contract.h"

#include <fmt/format.h>

#include <charconv>

#include "deltaguard/util/string_util.h"

namespace deltaguard {

std::string_view MedallionLayerName(MedallionLayer layer) {
  switch (layer) {
    case MedallionLayer::kBronze:
      return "bronze";
    case MedallionLayer::kSilver:
      return "silver";
    case MedallionLayer::kGold:
      return "gold";
    case MedallionLayer::kNone:
      break;
  }
  return "";
}

Result<MedallionLayer> ParseMedallionLayer(std::string_view name) {
  if (EqualsIgnoreCase(name, "bronze")) return MedallionLayer::kBronze;
  if (EqualsIgnoreCase(name, "silver")) return MedallionLayer::kSilver;
  if (EqualsIgnoreCase(name, "gold")) return MedallionLayer::kGold;
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown medallion layer '{}' (one of bronze, silver, gold)",
                   EscapeForMessage(name));
}

bool QualityRule::Passes(double value) const {
  auto at = [this](size_t i) { return i < operands.size() ? operands[i] : 0.0; };
  if (op == "mustBe") return value == at(0);
  if (op == "mustNotBe") return value != at(0);
  if (op == "mustBeGreaterThan") return value > at(0);
  if (op == "mustBeGreaterOrEqualTo") return value >= at(0);
  if (op == "mustBeLessThan") return value < at(0);
  if (op == "mustBeLessOrEqualTo") return value <= at(0);
  if (op == "mustBeBetween") return value >= at(0) && value <= at(1);
  if (op == "mustNotBeBetween") return value < at(0) || value > at(1);
  return true;  // text rules compare nothing
}

std::string QualityRule::ComparisonText() const {
  auto num = [](double d) { return fmt::format("{}", d); };
  if (operands.size() == 2) {
    return fmt::format("{} [{}, {}]", op, num(operands[0]), num(operands[1]));
  }
  if (operands.size() == 1) return fmt::format("{} {}", op, num(operands[0]));
  return op;
}

Result<const ContractObject*> Contract::Object(std::string_view wanted) const {
  if (schema.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "contract {} ({}) declares no schema",
                     id, file);
  }
  if (wanted.empty()) {
    if (schema.size() == 1) return &schema[0];
    std::string names;
    for (const auto& o : schema) names += (names.empty() ? "" : ", ") + o.name;
    return MakeError(ErrorCode::kInvalidArgument,
                     "contract {} ({}) declares {} schema objects ({}); name the one "
                     "to use",
                     id, file, schema.size(), names);
  }
  for (const auto& o : schema) {
    if (EqualsIgnoreCase(o.name, wanted) || EqualsIgnoreCase(o.physical_name, wanted)) {
      return &o;
    }
  }
  return MakeError(ErrorCode::kNotFound, "contract {} ({}) has no schema object '{}'", id,
                   file, EscapeForMessage(wanted));
}

CompatMode EffectiveCompatibility(const Contract& contract) {
  if (contract.compatibility) return *contract.compatibility;
  switch (contract.layer) {
    case MedallionLayer::kBronze:
      return CompatMode::kNone;
    case MedallionLayer::kSilver:
      return CompatMode::kBackwardTransitive;
    case MedallionLayer::kGold:
      return CompatMode::kFullTransitive;
    case MedallionLayer::kNone:
      break;
  }
  return CompatMode::kBackward;
}

Result<SemVer> ParseSemVer(std::string_view text) {
  std::string_view s = Trim(text);
  if (!s.empty() && (s[0] == 'v' || s[0] == 'V')) s.remove_prefix(1);
  size_t end = s.find_first_of("-+");
  std::string_view core = s.substr(0, end);
  SemVer v;
  int64_t* parts[3] = {&v.major, &v.minor, &v.patch};
  size_t pos = 0;
  for (int i = 0; i < 3; ++i) {
    size_t dot = core.find('.', pos);
    bool last = i == 2;
    if (last != (dot == std::string_view::npos)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "version '{}' is not a semantic version MAJOR.MINOR.PATCH",
                       EscapeForMessage(text));
    }
    std::string_view part = core.substr(pos, last ? std::string_view::npos : dot - pos);
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), *parts[i]);
    if (part.empty() || ec != std::errc() || ptr != part.data() + part.size() ||
        *parts[i] < 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "version '{}' is not a semantic version MAJOR.MINOR.PATCH",
                       EscapeForMessage(text));
    }
    pos = dot + 1;
  }
  return v;
}

}  // namespace deltaguard
