/// \file deltaguard/contract/checks.h
/// The checks a contract implies for one schema object, as data-independent specs
/// (docs/contracts.md "Checks"): what `contract test` evaluates in one pass over a
/// table and what `contract apply` turns into Delta constraints. Pure: the SQL of each
/// row-level predicate is built here from the contract (values quoted by the
/// expression printer), never from user text except `sql` rules' queries.
#pragma once

#include <string>
#include <vector>

#include "deltaguard/contract/contract.h"

namespace deltaguard {

struct ContractCheckSpec {
  enum class Kind : uint8_t {
    kRowPredicate,  ///< `predicate` is TRUE for a good row; FALSE or NULL counts
    kDuplicates,    ///< rows whose `columns` tuple appeared before
    kRowCount,      ///< the number of rows
    kSql,           ///< `query` returns one number
    kSkipped,       ///< not run (custom and text rules): `skip_reason`
  };
  Kind kind = Kind::kRowPredicate;
  std::string id;           ///< the rule's id, or "<property>.<what>" when implied
  std::string description;  ///< "nullValues of amount mustBeLessThan 1 (percent)"
  std::string property;     ///< column path, "" at object level
  std::string predicate;    ///< kRowPredicate
  std::vector<std::string> columns;  ///< kDuplicates
  std::string query;                 ///< kSql, placeholders substituted
  std::string skip_reason;           ///< kSkipped
  /// The comparison the metric must pass, with unit and severity (implied checks:
  /// mustBe 0 rows, severity error).
  QualityRule rule;
  /// Implied by the schema (required, unique, primaryKey, logicalTypeOptions) rather
  /// than listed in quality[].
  bool implied = false;
  /// Expressible as a Delta CHECK constraint: a row predicate that must hold for
  /// every row (`contract apply` adds it). NOT NULL is applied as nullability instead.
  bool as_constraint = false;
};

/// The checks of `object`, in contract order: per property the implied ones (required,
/// unique, length, pattern, range), then its quality rules; then the object's rules and
/// a primary key's uniqueness. `table` is how sql rules name the table ({object}).
std::vector<ContractCheckSpec> PlanContractChecks(const ContractObject& object,
                                                  const std::string& table);

/// `value` as a SQL string literal ('it''s' style, as the expression printer writes).
std::string SqlStringLiteral(const std::string& value);

}  // namespace deltaguard
