/// \file deltaguard/contract/diff.h
/// What changed between two versions of a contract (docs/contracts.md "Diff"), keyed by
/// property identity so a rename survives: the schema changes as drift classifies them
/// (drift/classify.h, with column mapping on so renames are exact) plus the changes
/// only a contract carries (keys, constraints, accepted values, quality rules,
/// classification, objects, settings), judged with the contract's compatibility mode.
/// A breaking change without a major version bump fails, with the migration path.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "deltaguard/contract/contract.h"
#include "deltaguard/drift/change.h"
#include "deltaguard/drift/compat.h"

namespace deltaguard {

/// One change of a contract diff. Schema changes carry a drift class name
/// (`COLUMN_RENAMED`); contract changes one of: OBJECT_ADDED, OBJECT_REMOVED,
/// KEY_CHANGED, CONSTRAINT_TIGHTENED, CONSTRAINT_RELAXED, ENUM_VALUE_ADDED,
/// ENUM_VALUE_REMOVED, QUALITY_RULE_ADDED, QUALITY_RULE_REMOVED, QUALITY_RULE_CHANGED,
/// GOVERNANCE_CHANGED, SETTING_CHANGED.
struct ContractChange {
  std::string cls;
  std::string object;  ///< the schema object ("" for contract-level settings)
  std::string path;    ///< the column path, rule id or setting name
  std::string old_path;
  std::string before;
  std::string after;
  Risk risk = Risk::kLow;
  Compat backward = Compat::kOk;
  Compat forward = Compat::kOk;
  std::string reason;   ///< why it breaks, when it does
  bool breaks = false;  ///< the mode's verdict lists it
};

struct ContractDiff {
  std::string old_label;
  std::string new_label;
  std::string old_version;
  std::string new_version;
  CompatMode mode = CompatMode::kBackward;
  std::vector<ContractChange> changes;
  bool compatible = true;   ///< no change breaks the mode
  bool major_bump = false;  ///< the new major version is greater
  /// Fails: a breaking change without a major bump, or a version that went backwards.
  bool fails = false;
  std::vector<std::string> problems;   ///< why it fails, one line each
  std::vector<std::string> migration;  ///< the ways forward for breaking changes
  std::vector<std::string> notes;      ///< warnings (version unchanged, ...)
};

/// Diff `before` -> `after` and judge it with `mode` (default: the new contract's
/// EffectiveCompatibility; a transitive mode judges the pair as its plain mode).
/// kInvalidArgument when a schema object's types do not resolve.
Result<ContractDiff> DiffContracts(const Contract& before, const Contract& after,
                                   std::optional<CompatMode> mode = std::nullopt);

std::string ContractDiffText(const ContractDiff& diff);
/// {"old":{"label","version"},"new":{..},"mode","compatible","major_bump","fails",
///  "changes":[{"class","object","path","old_path","before","after","risk","backward",
///  "forward","breaks","reason"}],"problems":[..],"migration":[..],"notes":[..]}
std::string ContractDiffJson(const ContractDiff& diff);
std::string ContractDiffJunit(const ContractDiff& diff);
std::string ContractDiffGithub(const ContractDiff& diff);

}  // namespace deltaguard
