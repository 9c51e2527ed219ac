/// \file deltaguard/constraints/constraints.h
/// CHECK constraints and legacy column invariants of a table: read them from the
/// metadata and schema, validate a new CHECK constraint, and bind them for evaluation.
///
/// Storage (PROTOCOL.md "CHECK Constraints", "Column Invariants"; digest §4.3-4.4):
///  - a CHECK constraint is the table property `delta.constraints.<name>` whose value is
///    a Spark SQL boolean expression; Spark lower-cases <name> and compares names
///    case-insensitively, so a name is unique up to case;
///  - a legacy invariant is the field metadata `delta.invariants` whose value is a JSON
///    string holding `{"expression":{"expression":"<SQL>"}}`.
/// A row violates either kind when the expression is FALSE *or NULL* (stricter than SQL's
/// CHECK). NOT NULL columns are enforced by exec/batch_conformer.h, not here.
/// Errors start with Spark's error class (DELTA_CONSTRAINT_ALREADY_EXISTS, ...).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/expr/binder.h"
#include "deltaguard/protocol/metadata.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// kNotNull is only made by NotNullConstraints (quarantine routing); tables store NOT
/// NULL as field nullability, enforced by exec/batch_conformer.h. kContractRule is a
/// row rule of a data contract a write follows (write/contract_write.h), routed by
/// quarantine like the table's own constraints; tables never store it.
enum class ConstraintKind : uint8_t {
  kCheck,
  kInvariant,
  kNotNull,
  kContractRule,
  kDataTest,  ///< a row test of a write's tests file (docs/data_tests.md)
};

/// One constraint as stored in the table.
struct Constraint {
  ConstraintKind kind = ConstraintKind::kCheck;
  /// kCheck: the name after `delta.constraints.` as stored (Spark stores it
  /// lower-case); kInvariant: the dotted path of the column carrying it.
  std::string name;
  /// The SQL text as stored.
  std::string expression;

  /// "CHECK constraint <name>", "invariant on column <name>", "NOT NULL column <name>"
  /// "contract rule <name>" or "data test <name>", for messages and
  /// `_violated_constraint`.
  std::string Describe() const;
};

/// A constraint parsed and bound against a schema, ready for exec/constraint_checker.h.
struct BoundConstraint {
  Constraint constraint;
  BoundExprRef predicate;  ///< BOOLEAN, deterministic, no aggregates
  /// Column paths the predicate reads, as spelled in the schema, without repeats.
  std::vector<std::vector<std::string>> columns;
};

/// Spark's reserved name (`CharVarcharConstraint`), refused by ADD CONSTRAINT.
inline constexpr std::string_view kReservedConstraintName =
    "__CHAR_VARCHAR_STRING_LENGTH_CHECK__";

/// `delta.constraints.<lower-case name>`: the property key Spark writes.
std::string ConstraintPropertyKey(std::string_view name);

/// The CHECK constraints of `metadata` in configuration order (keys matched
/// case-insensitively).
std::vector<Constraint> CheckConstraints(const Metadata& metadata);

/// The CHECK constraint named `name` (case-insensitive), if any.
std::optional<Constraint> FindCheckConstraint(const Metadata& metadata,
                                              std::string_view name);

/// The legacy invariants of every field at every depth of `schema` (through structs,
/// array elements and map values), depth first in schema order. kCorruptLog naming the
/// column when a `delta.invariants` value is not the JSON the protocol describes.
Result<std::vector<Constraint>> Invariants(const StructType& schema);

/// CHECK constraints, then invariants.
Result<std::vector<Constraint>> AllConstraints(const Metadata& metadata,
                                               const StructType& schema);

/// Parse and bind one constraint: the expression must parse, bind against `schema` to
/// BOOLEAN, be deterministic and hold no aggregate. Errors keep the code of the failing
/// step (kParseError, kNotFound, kSchemaMismatch) or kInvalidArgument, and name the
/// constraint and its expression.
Result<BoundConstraint> BindConstraint(const Constraint& constraint,
                                       const StructType& schema);

/// One kNotNull constraint per NOT NULL field of `schema`, top-level or nested in structs
/// (name = the dotted path, expression "`s`.`a` IS NOT NULL"), depth first in schema
/// order, each field before its children. A NULL enclosing struct makes `s`.`a` NULL, so
/// it violates the child as well, as Delta's NOT NULL check does. Used where NULLs must
/// be routed rather than fail the write (table/quarantine.h); NOT NULL elements, keys or
/// values inside arrays and maps have no such expression and are not included.
std::vector<Constraint> NotNullConstraints(const StructType& schema);

/// Bind every constraint of the table (AllConstraints + BindConstraint).
Result<std::vector<BoundConstraint>> BindAllConstraints(const Metadata& metadata,
                                                        const StructType& schema);

/// Validate `ALTER TABLE ADD CONSTRAINT name CHECK (expr_sql)` against the table's
/// current metadata and schema and return the constraint to store: name lower-cased as
/// Spark stores it, expression text as given without surrounding whitespace (the SQL
/// layer passes the token-joined text Spark stores, sql/parse/statement.h). Refuses:
///  - an empty name, one with control characters, and Spark's reserved name
///    (kInvalidArgument, DELTA_INVALID_CONSTRAINT_NAME); other characters are allowed,
///    as Spark allows them in backticks;
///  - a name already used, compared case-insensitively (kAlreadyExists,
///    DELTA_CONSTRAINT_ALREADY_EXISTS, quoting the old constraint);
///  - an expression BindConstraint refuses (DELTA_NON_BOOLEAN_CHECK_CONSTRAINT,
///    DELTA_NON_DETERMINISTIC_EXPRESSION_IN_CHECK_CONSTRAINT,
///    DELTA_AGGREGATE_IN_CHECK_CONSTRAINT, DELTA_INVALID_CHECK_CONSTRAINT_REFERENCES).
/// Existing rows are not checked here (table/constraints_ddl.h scans them).
Result<BoundConstraint> ValidateNewCheckConstraint(const Metadata& metadata,
                                                   const StructType& schema,
                                                   std::string_view name,
                                                   std::string_view expr_sql);

/// A constraint that reads a column.
struct ConstraintDependent {
  Constraint constraint;
  std::vector<std::string> column;  ///< the referenced path, as spelled in the schema
};

/// The constraints (CHECK and invariants) that read `column` or anything below or above
/// it (a constraint on `s.x` depends on `s`, one on `s` depends on `s.x`); names compared
/// case-insensitively. For ALTER TABLE's dependents check (DROP/RENAME/retype refused
/// with DELTA_CONSTRAINT_DEPENDENT_COLUMN_CHANGE). Constraints that no longer bind are
/// errors naming them.
Result<std::vector<ConstraintDependent>> ConstraintsReferencing(
    const Metadata& metadata, const StructType& schema,
    const std::vector<std::string>& column);

}  // namespace deltaguard
