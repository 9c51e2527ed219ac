/// \file deltaguard/drift/change.h
/// The result model of drift detection: a closed set of change classes and one
/// classified change, with everything a report shows (docs/drift.md). Text, JSON, SQL
/// rows and Python objects are all built from `DriftChange`; the per-class facts (risk,
/// what Spark Delta and deltaguard do on append, the option that lets the change
/// through) come from one table, `ChangeClassInfoFor`, so no front end restates them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/util/result.h"

namespace deltaguard {

/// The closed set of change classes. Names (ChangeClassName) are stable API: JSON
/// output, SQL rows and the Python package use them verbatim.
enum class ChangeClass : uint8_t {
  kColumnAddedNullable,      ///< COLUMN_ADDED_NULLABLE
  kColumnAddedNotNull,       ///< COLUMN_ADDED_NOT_NULL
  kColumnRemoved,            ///< COLUMN_REMOVED
  kColumnRenamed,            ///< COLUMN_RENAMED (column-mapping ids match)
  kColumnRenameSuspected,    ///< COLUMN_RENAME_SUSPECTED (heuristic, scored)
  kColumnCaseChanged,        ///< COLUMN_CASE_CHANGED
  kColumnReordered,          ///< COLUMN_REORDERED
  kTypeWidened,              ///< TYPE_WIDENED (Delta's type widening list)
  kTypeNarrowed,             ///< TYPE_NARROWED (the reverse of a widening or cast)
  kTypeChangedIncompatible,  ///< TYPE_CHANGED_INCOMPATIBLE
  kNullabilityRelaxed,       ///< NULLABILITY_RELAXED (NOT NULL -> nullable)
  kNullabilityTightened,     ///< NULLABILITY_TIGHTENED (nullable -> NOT NULL)
  kCommentChanged,           ///< COMMENT_CHANGED
  kMetadataChanged,          ///< METADATA_CHANGED (other field metadata)
  kPartitioningChanged,      ///< PARTITIONING_CHANGED
  kConstraintAdded,          ///< CONSTRAINT_ADDED (CHECK constraint)
  kConstraintDropped,        ///< CONSTRAINT_DROPPED
  kColumnAllNull,            ///< COLUMN_ALL_NULL (from statistics; heuristic evidence)
};
inline constexpr int kNumChangeClasses = 18;

enum class Risk : uint8_t { kLow, kHigh, kVeryHigh };

/// How a change affects one compatibility direction (drift/compat.h): BACKWARD asks
/// whether the new schema reads data written with the old one, FORWARD whether readers
/// of the old schema read data written with the new one.
enum class Compat : uint8_t {
  kOk,
  kBreak,
  kNotJudged,  ///< heuristic classes: the factual changes beside them are judged
};

/// The fixed facts of one class.
struct ChangeClassInfo {
  ChangeClass cls;
  std::string_view name;        ///< "COLUMN_ADDED_NULLABLE"
  Risk risk;                    ///< default risk (a change may raise it, e.g. reorder)
  std::string_view spark;       ///< what Spark Delta does with it on append by default
  std::string_view deltaguard;  ///< what deltaguard does with it on append
  std::string_view option;      ///< what lets it through, "" when nothing is needed
  bool heuristic;               ///< a suspicion with a score, never acted on
};

const ChangeClassInfo& ChangeClassInfoFor(ChangeClass cls);
std::string_view ChangeClassName(ChangeClass cls);
/// The class named `name` (case-insensitive); anything else is kInvalidArgument.
Result<ChangeClass> ParseChangeClass(std::string_view name);
std::string_view RiskName(Risk risk);        ///< "low", "high", "very high"
std::string_view CompatName(Compat compat);  ///< "ok", "break", "not judged"

/// One classified change. `path` is the column path in FormatColumnPath form
/// (schema/column_path.h), nested parts through structs, `element`, `key`, `value`; the
/// new path for changes of an existing column, the old one for COLUMN_REMOVED, the
/// constraint name for CONSTRAINT_*, empty for PARTITIONING_CHANGED.
struct DriftChange {
  ChangeClass cls = ChangeClass::kColumnAddedNullable;
  std::string path;
  std::string old_path;  ///< renames (exact or suspected): the old column's path
  std::string before;    ///< the old type / nullability / comment / position / expr
  std::string after;     ///< the new one
  Risk risk = Risk::kLow;
  Compat backward = Compat::kOk;
  Compat forward = Compat::kOk;
  /// Heuristic classes: a score in [0, 1] and the evidence it was computed from.
  std::optional<double> score;
  std::string evidence;
  /// Why the change breaks BACKWARD / FORWARD when it does ("" otherwise).
  std::string backward_reason;
  std::string forward_reason;

  const ChangeClassInfo& info() const { return ChangeClassInfoFor(cls); }
  /// One line: "TYPE_WIDENED qty: integer -> long (risk low)".
  std::string Summary() const;
};

}  // namespace deltaguard
