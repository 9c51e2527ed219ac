/// \file deltaguard/drift/compat.h
/// Compatibility verdicts with the schema-registry mode names (docs/drift.md "Modes"):
/// BACKWARD (the new schema reads data written with the old one), FORWARD (readers of
/// the old schema read data written with the new one), FULL (both), each against the
/// latest schema or, _TRANSITIVE, against every earlier one; NONE checks nothing. Each
/// change carries its own BACKWARD/FORWARD effect (drift/classify.h sets it); these
/// functions only combine them, so a verdict never disagrees with the change list.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/drift/change.h"
#include "deltaguard/drift/classify.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

enum class CompatMode : uint8_t {
  kNone,
  kBackward,
  kBackwardTransitive,
  kForward,
  kForwardTransitive,
  kFull,
  kFullTransitive,
};

std::string_view CompatModeName(CompatMode mode);  ///< "BACKWARD_TRANSITIVE"
/// The mode named `name` (case-insensitive, '-' read as '_'); else kInvalidArgument
/// listing the names.
Result<CompatMode> ParseCompatMode(std::string_view name);
bool IsTransitive(CompatMode mode);
bool ChecksBackward(CompatMode mode);
bool ChecksForward(CompatMode mode);

/// One change that breaks the mode, and why.
struct BreakingChange {
  size_t change = 0;      ///< index into the judged change list
  std::string direction;  ///< "BACKWARD" or "FORWARD"
  std::string reason;     ///< from the change's backward/forward reason
  /// Transitive judgements over a sequence: the indices of the two schemas compared.
  size_t from_schema = 0;
  size_t to_schema = 0;
};

struct Verdict {
  CompatMode mode = CompatMode::kNone;
  bool compatible = true;
  std::vector<BreakingChange> breaking;
};

/// Judge one change list (old -> new) under `mode`; a transitive mode judges it as its
/// plain counterpart (one pair is one step).
Verdict JudgeChanges(const std::vector<DriftChange>& changes, CompatMode mode);

/// A judged pair of a sequence.
struct SequenceStep {
  size_t from = 0;
  size_t to = 0;
  std::vector<DriftChange> changes;
};

/// Judge a sequence of schemas (oldest first) under `mode`: plain modes compare each
/// schema with the one before it; transitive modes compare each with every earlier one
/// (so a column dropped in v2 and re-added with another type in v3 breaks BACKWARD
/// between v1 and v3 although each step passes). `steps` receives every compared pair
/// with its changes (may be null); BreakingChange::change indexes its step's changes.
/// `evidence` is passed to every classification (its flags matter most: positional,
/// ignore_new_nullability).
Verdict JudgeSequence(const std::vector<DriftSide>& schemas, CompatMode mode,
                      std::vector<SequenceStep>* steps = nullptr,
                      const DriftEvidence& evidence = {});

/// Judge `latest` against every schema of `previous` (oldest first) under `mode`, as a
/// schema registry checks a new schema: a transitive mode compares it with all of them,
/// a plain mode with the last one only. Steps are (i, previous.size()).
Verdict JudgeAgainstPrevious(const std::vector<DriftSide>& previous,
                             const DriftSide& latest, CompatMode mode,
                             std::vector<SequenceStep>* steps = nullptr,
                             const DriftEvidence& evidence = {});

}  // namespace deltaguard
