#include "deltaguard/drift/compat.h"

#include <array>

#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

constexpr std::array<std::string_view, 7> kModeNames = {
    "NONE", "BACKWARD",       "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE",
    "FULL", "FULL_TRANSITIVE"};

void JudgeInto(const std::vector<DriftChange>& changes, CompatMode mode, size_t from,
               size_t to, Verdict* verdict) {
  for (size_t i = 0; i < changes.size(); ++i) {
    const DriftChange& c = changes[i];
    if (ChecksBackward(mode) && c.backward == Compat::kBreak) {
      verdict->breaking.push_back({i, "BACKWARD", c.backward_reason, from, to});
    }
    if (ChecksForward(mode) && c.forward == Compat::kBreak) {
      verdict->breaking.push_back({i, "FORWARD", c.forward_reason, from, to});
    }
  }
  verdict->compatible = verdict->breaking.empty();
}

}  // namespace

std::string_view CompatModeName(CompatMode mode) {
  return kModeNames[static_cast<size_t>(mode)];
}

Result<CompatMode> ParseCompatMode(std::string_view name) {
  std::string upper;
  for (char c : name) upper += c == '-' ? '_' : static_cast<char>(std::toupper(c));
  for (size_t i = 0; i < kModeNames.size(); ++i) {
    if (upper == kModeNames[i]) return static_cast<CompatMode>(i);
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown compatibility mode '{}' (one of {})", name,
                   fmt::join(kModeNames, ", "));
}

bool IsTransitive(CompatMode mode) {
  return mode == CompatMode::kBackwardTransitive ||
         mode == CompatMode::kForwardTransitive || mode == CompatMode::kFullTransitive;
}

bool ChecksBackward(CompatMode mode) {
  return mode == CompatMode::kBackward || mode == CompatMode::kBackwardTransitive ||
         mode == CompatMode::kFull || mode == CompatMode::kFullTransitive;
}

bool ChecksForward(CompatMode mode) {
  return mode == CompatMode::kForward || mode == CompatMode::kForwardTransitive ||
         mode == CompatMode::kFull || mode == CompatMode::kFullTransitive;
}

Verdict JudgeChanges(const std::vector<DriftChange>& changes, CompatMode mode) {
  Verdict verdict;
  verdict.mode = mode;
  JudgeInto(changes, mode, 0, 1, &verdict);
  return verdict;
}

Verdict JudgeSequence(const std::vector<DriftSide>& schemas, CompatMode mode,
                      std::vector<SequenceStep>* steps, const DriftEvidence& evidence) {
  Verdict verdict;
  verdict.mode = mode;
  for (size_t to = 1; to < schemas.size(); ++to) {
    size_t first = IsTransitive(mode) ? 0 : to - 1;
    for (size_t from = first; from < to; ++from) {
      std::vector<DriftChange> changes =
          ClassifyDrift(schemas[from], schemas[to], evidence);
      JudgeInto(changes, mode, from, to, &verdict);
      if (steps) steps->push_back({from, to, std::move(changes)});
    }
  }
  verdict.compatible = verdict.breaking.empty();
  return verdict;
}

Verdict JudgeAgainstPrevious(const std::vector<DriftSide>& previous,
                             const DriftSide& latest, CompatMode mode,
                             std::vector<SequenceStep>* steps,
                             const DriftEvidence& evidence) {
  Verdict verdict;
  verdict.mode = mode;
  size_t n = previous.size();
  size_t first = IsTransitive(mode) || n == 0 ? 0 : n - 1;
  for (size_t from = first; from < n; ++from) {
    std::vector<DriftChange> changes = ClassifyDrift(previous[from], latest, evidence);
    JudgeInto(changes, mode, from, n, &verdict);
    if (steps) steps->push_back({from, n, std::move(changes)});
  }
  verdict.compatible = verdict.breaking.empty();
  return verdict;
}

}  // namespace deltaguard
