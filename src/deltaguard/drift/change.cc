#include "deltaguard/drift/change.h"

#include <array>

#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

// The per-class facts, in enum order (docs/drift.md holds the same table for users;
// Spark's behaviour is docs/spark_semantics.md §5.1-5.5 and §5.7, deltaguard's is
// evolution/write_schema.h and docs/behaviour.md).
constexpr std::array<ChangeClassInfo, kNumChangeClasses> kInfo = {{
    {ChangeClass::kColumnAddedNullable, "COLUMN_ADDED_NULLABLE", Risk::kLow,
     "rejected (DELTA_METADATA_MISMATCH) unless mergeSchema",
     "refused unless --merge-schema; then appended at the end, nullable",
     "mergeSchema (--merge-schema, WITH SCHEMA EVOLUTION)", false},
    {ChangeClass::kColumnAddedNotNull, "COLUMN_ADDED_NOT_NULL", Risk::kHigh,
     "rejected unless mergeSchema; then added as nullable (input nullability ignored)",
     "refused unless --merge-schema; then added as nullable; ALTER TABLE ADD COLUMNS "
     "never adds NOT NULL",
     "mergeSchema, then ALTER TABLE ... ALTER COLUMN ... SET NOT NULL", false},
    {ChangeClass::kColumnRemoved, "COLUMN_REMOVED", Risk::kHigh,
     "accepted silently: the missing column is written as NULL",
     "accepted, written as NULL; refused for a NOT NULL column "
     "(DELTA_MISSING_NOT_NULL_COLUMN_VALUE)",
     "none on append; to drop it from the table: ALTER TABLE ... DROP COLUMN (needs "
     "delta.columnMapping.mode=name)",
     false},
    {ChangeClass::kColumnRenamed, "COLUMN_RENAMED", Risk::kHigh,
     "a table change (ALTER TABLE RENAME COLUMN with column mapping); data written "
     "under the old name is a removed plus an added column",
     "as Spark: by column-mapping id the column keeps its data",
     "ALTER TABLE ... RENAME COLUMN (needs delta.columnMapping.mode=name)", false},
    {ChangeClass::kColumnRenameSuspected, "COLUMN_RENAME_SUSPECTED", Risk::kHigh,
     "the added half is rejected unless mergeSchema; with it both halves are accepted "
     "silently (old column NULL from now on)",
     "reported only, never acted on: the added and removed halves are handled as such",
     "ALTER TABLE ... RENAME COLUMN (needs delta.columnMapping.mode=name), then write",
     true},
    {ChangeClass::kColumnCaseChanged, "COLUMN_CASE_CHANGED", Risk::kLow,
     "matched case-insensitively; the table's spelling is kept",
     "matched case-insensitively at every depth; the table's spelling is kept",
     "none; ALTER TABLE ... RENAME COLUMN to change the stored spelling", false},
    {ChangeClass::kColumnReordered, "COLUMN_REORDERED", Risk::kLow,
     "matched by name (DataFrame writes); by position for INSERT without a column list",
     "matched by name; a positional input (headerless CSV) naming the table's columns "
     "in another order is refused",
     "give the input a header, or INSERT ... BY NAME", false},
    {ChangeClass::kTypeWidened, "TYPE_WIDENED", Risk::kLow,
     "rejected (DELTA_FAILED_TO_MERGE_FIELDS) unless mergeSchema with type widening",
     "refused unless --merge-schema and delta.enableTypeWidening=true; then the table "
     "type is widened and recorded in delta.typeChanges",
     "mergeSchema with delta.enableTypeWidening=true, or ALTER TABLE ... ALTER COLUMN "
     "... TYPE",
     false},
    {ChangeClass::kTypeNarrowed, "TYPE_NARROWED", Risk::kHigh,
     "a narrower input is cast to the table type; narrowing the table is refused",
     "a narrower input is cast losslessly to the table type (table unchanged); "
     "narrowing the table's type is refused",
     "none for data; the table's type cannot narrow (overwriteSchema rewrites it)",
     false},
    {ChangeClass::kTypeChangedIncompatible, "TYPE_CHANGED_INCOMPATIBLE", Risk::kHigh,
     "rejected (DELTA_FAILED_TO_MERGE_FIELDS); mergeSchema does not allow it",
     "refused; values are never cast with loss",
     "cast the input explicitly, or overwrite with overwriteSchema", false},
    {ChangeClass::kNullabilityRelaxed, "NULLABILITY_RELAXED", Risk::kLow,
     "input nullability is ignored; the table keeps NOT NULL and checks values",
     "input nullability is ignored; NOT NULL is checked on values",
     "ALTER TABLE ... ALTER COLUMN ... DROP NOT NULL", false},
    {ChangeClass::kNullabilityTightened, "NULLABILITY_TIGHTENED", Risk::kHigh,
     "input nullability is ignored; OSS Spark has no SET NOT NULL",
     "input nullability is ignored; SET NOT NULL scans the table first",
     "ALTER TABLE ... ALTER COLUMN ... SET NOT NULL (every row must have a value)",
     false},
    {ChangeClass::kCommentChanged, "COMMENT_CHANGED", Risk::kLow,
     "input metadata is ignored; the table's comment is kept",
     "input metadata is ignored; the table's comment is kept",
     "ALTER TABLE ... ALTER COLUMN ... COMMENT", false},
    {ChangeClass::kMetadataChanged, "METADATA_CHANGED", Risk::kLow,
     "input metadata is ignored; the table's metadata is kept",
     "input metadata is ignored; the table's metadata is kept", "", false},
    {ChangeClass::kPartitioningChanged, "PARTITIONING_CHANGED", Risk::kHigh,
     "an append with other partition columns is rejected; an overwrite needs "
     "overwriteSchema",
     "as Spark", "overwrite with overwriteSchema (--overwrite-schema)", false},
    {ChangeClass::kConstraintAdded, "CONSTRAINT_ADDED", Risk::kLow,
     "rows that violate it are refused (DELTA_VIOLATE_CONSTRAINT_WITH_VALUES)",
     "as Spark; ADD CONSTRAINT checks every existing row first",
     "ALTER TABLE ... ADD CONSTRAINT", false},
    {ChangeClass::kConstraintDropped, "CONSTRAINT_DROPPED", Risk::kHigh,
     "rows are no longer checked against it", "as Spark",
     "ALTER TABLE ... DROP CONSTRAINT", false},
    {ChangeClass::kColumnAllNull, "COLUMN_ALL_NULL", Risk::kVeryHigh, "accepted silently",
     "accepted; drift reports it from the file statistics", "", true},
}};

}  // namespace

const ChangeClassInfo& ChangeClassInfoFor(ChangeClass cls) {
  return kInfo[static_cast<size_t>(cls)];
}

std::string_view ChangeClassName(ChangeClass cls) { return ChangeClassInfoFor(cls).name; }

Result<ChangeClass> ParseChangeClass(std::string_view name) {
  for (const auto& info : kInfo) {
    if (EqualsIgnoreCase(info.name, name)) return info.cls;
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown change class '{}' (docs/drift.md lists the classes)", name);
}

std::string_view RiskName(Risk risk) {
  switch (risk) {
    case Risk::kLow:
      return "low";
    case Risk::kHigh:
      return "high";
    case Risk::kVeryHigh:
      return "very high";
  }
  return "low";
}

std::string_view CompatName(Compat compat) {
  switch (compat) {
    case Compat::kOk:
      return "ok";
    case Compat::kBreak:
      return "break";
    case Compat::kNotJudged:
      return "not judged";
  }
  return "ok";
}

std::string DriftChange::Summary() const {
  std::string what = path;
  if (!old_path.empty()) what = old_path + " -> " + path;
  std::string change;
  if (!before.empty() || !after.empty()) {
    change = fmt::format(": {} -> {}", before.empty() ? "(none)" : before,
                         after.empty() ? "(none)" : after);
  }
  std::string s = fmt::format("{} {}{} (risk {})", ChangeClassName(cls),
                              what.empty() ? "(table)" : what, change, RiskName(risk));
  if (score) s += fmt::format(" score {:.2f}", *score);
  return s;
}

}  // namespace deltaguard
