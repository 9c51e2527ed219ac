/// \file deltaguard/exec/constraint_checker.h
/// Vectorised enforcement of CHECK constraints and legacy column invariants over Arrow
/// batches, and a full-table scan that counts the rows violating a predicate.
///
/// PROTOCOL.md "CHECK Constraints" / "Column Invariants": a row violates a constraint
/// when the expression evaluates to FALSE *or NULL* (docs/spark_semantics.md §4.3-4.4).
/// NOT NULL is enforced by exec/batch_conformer.h, not here.
///
/// Using the checker on a write path (table/write.cc does this for every batch):
///
///     DELTA_ASSIGN_OR_RETURN(auto checker, ConstraintChecker::Make(metadata, *schema,
///                                                                  table_path));
///     DELTA_RETURN_IF_ERROR(checker.Check(*conformed_batch));  // fails the write
///
/// Quarantine instead of failing (`--on-violation quarantine=TABLE`): create the
/// quarantine table with QuarantineSchema(table schema), then for each batch
///
///     DELTA_ASSIGN_OR_RETURN(auto split, checker.Split(*conformed_batch));
///     // write split.good into the table, split.violating into the quarantine table
///
/// `violating` holds the failing rows with two extra columns: the first constraint each
/// row violates and the time of the split.
#pragma once

#include <arrow/array.h>
#include <arrow/record_batch.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/constraints/char_varchar.h"
#include "deltaguard/constraints/constraints.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// The rows of a batch or a table that violate one constraint or predicate.
struct ConstraintViolation {
  /// Constraint name (CHECK constraint name, or the column path of an invariant).
  std::string constraint;
  /// The expression as stored in the table.
  std::string expression;
  /// Number of violating rows (FALSE or NULL).
  int64_t count = 0;
  /// Up to `max_samples` violating rows, rendered `{col: value, ...}` with the columns
  /// the expression references.
  std::vector<std::string> samples;
};

/// The violation as Error::details: "constraint", "expression", "violating_rows" and
/// one "sample_row" per sample (python/ raises them as ConstraintViolationError's
/// attributes).
std::vector<std::pair<std::string, std::string>> ViolationDetails(
    const ConstraintViolation& v);

/// "<what> (<expression>) violated by <count> rows, e.g. <sample>, <sample>": the
/// message body of every violation (`what` is e.g. "CHECK constraint c").
std::string DescribeViolation(std::string_view what, const ConstraintViolation& v);

/// Extra columns of a quarantined row (after the table's columns).
inline constexpr std::string_view kQuarantineConstraintColumn = "_violated_constraint";
inline constexpr std::string_view kQuarantineTimeColumn = "_quarantined_at";

/// The schema of a quarantine table for a table with `schema`: the same columns, all
/// nullable and without field metadata other than comments (no invariants, which would
/// reject the very rows quarantined, and no column-mapping ids, which the new table
/// assigns itself), plus `_violated_constraint STRING` and `_quarantined_at TIMESTAMP`.
/// kInvalidArgument when the table already has a column of either name.
Result<SchemaRef> QuarantineSchema(const StructType& schema);

/// The rows of one batch split by the constraints.
struct SplitBatch {
  /// One value per input row, never NULL: true when the row satisfies every constraint.
  std::shared_ptr<arrow::BooleanArray> good_mask;
  /// The rows that satisfy every constraint (the input itself when all do).
  std::shared_ptr<arrow::RecordBatch> good;
  /// The other rows: the input columns, then `_violated_constraint` (the Describe() of
  /// the first constraint the row violates, in checker order) and `_quarantined_at`
  /// (timestamp(us, UTC)). Zero rows when all rows pass.
  std::shared_ptr<arrow::RecordBatch> violating;
  int64_t num_violating = 0;
};

/// Evaluates the CHECK constraints, invariants and CHAR/VARCHAR length limits of one
/// table over batches in the table's logical schema (columns matched by name,
/// case-insensitively). A row violates a constraint when the predicate is FALSE or NULL,
/// and a limit when a value it covers is longer (constraints/char_varchar.h). Order, as
/// in Spark's Constraints.getAll: CHECK constraints, invariants, then length limits.
/// Immutable after Make; safe to use from several threads.
class ConstraintChecker {
 public:
  /// Bind every constraint of the table (constraints/constraints.h BindAllConstraints)
  /// and read its length limits (CharVarcharLimits). A constraint that no longer binds
  /// is an error naming it: the write cannot proceed without enforcing it.
  static Result<ConstraintChecker> Make(const Metadata& metadata,
                                        const StructType& schema, std::string table_name);
  ConstraintChecker(std::vector<BoundConstraint> constraints,
                    std::vector<CharVarcharLimit> limits, std::string table_name);

  bool empty() const { return constraints_.empty() && limits_.empty(); }
  const std::vector<BoundConstraint>& constraints() const { return constraints_; }
  const std::vector<CharVarcharLimit>& limits() const { return limits_; }

  /// OK when every row satisfies every constraint; otherwise kConstraintViolation for
  /// the first violated constraint (checker order):
  /// "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES: table 't': CHECK constraint c (a > 0)
  /// violated by 3 rows, e.g. {a: -1}, {a: 0}, {a: NULL}". Evaluation errors (overflow
  /// in the expression, ...) are returned naming the constraint. A length limit fails
  /// with kConstraintViolation "DELTA_EXCEED_CHAR_VARCHAR_LIMIT: table 't': column v is
  /// varchar(3) and 2 rows hold longer values (up to 6 characters), e.g. ...", naming
  /// Spark's check and the ALTER that would widen the column. Values are never cut.
  Status Check(const arrow::RecordBatch& batch) const;

  /// The first violated constraint with its count and up to `max_samples` rows, or
  /// nullopt when the batch satisfies every constraint.
  Result<std::optional<ConstraintViolation>> FirstViolation(
      const arrow::RecordBatch& batch, size_t max_samples = 5) const;

  /// Split a batch for quarantine (see SplitBatch). `now_micros` < 0 means now.
  Result<SplitBatch> Split(const std::shared_ptr<arrow::RecordBatch>& batch,
                           int64_t now_micros = -1) const;

 private:
  std::vector<BoundConstraint> constraints_;
  std::vector<CharVarcharLimit> limits_;
  std::string table_name_;
};

/// The rows of `batch` where `predicate` (bound BOOLEAN) is not TRUE: their count, and
/// rendered samples (`{col: value}` over `columns`, the column paths it reads) appended
/// to `samples` until it holds `max_samples`. What `contract test` counts per check.
Result<int64_t> CountPredicateViolations(
    const BoundExpr& predicate, const std::vector<std::vector<std::string>>& columns,
    const arrow::RecordBatch& batch, size_t max_samples,
    std::vector<std::string>* samples);

/// `rows` with the quarantine table's two columns appended: `_violated_constraint` =
/// reasons[i] for row i and `_quarantined_at` = `now_micros` (UTC). `reasons` has one
/// entry per row.
Result<std::shared_ptr<arrow::RecordBatch>> WithQuarantineColumns(
    const std::shared_ptr<arrow::RecordBatch>& rows,
    const std::vector<std::string>& reasons, int64_t now_micros);

/// Scans every live row of `snapshot` and counts the rows where `predicate_sql` is not
/// TRUE (FALSE or NULL), keeping up to `max_samples` sample rows. `name` only labels
/// the result. Errors: the predicate does not parse or bind to BOOLEAN against the
/// snapshot's schema; a data file cannot be read.
Result<ConstraintViolation> FindViolations(SnapshotRef snapshot, const std::string& name,
                                           const std::string& predicate_sql,
                                           size_t max_samples = 5);

}  // namespace deltaguard
