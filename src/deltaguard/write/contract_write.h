/// \file deltaguard/write/contract_write.h
/// A write under a contract (docs/contracts.md "Writes"): the input is conformed to the
/// contract's schema object in the write itself, as seed 001's `conform()` does by hand.
///  - The declared columns are projected in declared order, matched by name
///    (case-insensitively) or by a listed alias; columns the contract does not declare
///    are left out and reported (a warning, and in commitInfo).
///  - A required column missing from the input, or one that no cast reaches, fails the
///    write (kSchemaMismatch, naming the changes as drift classifies them); a missing
///    optional column is written as NULL.
///  - Values are cast to the declared types. castPolicy strict (the default): a cast
///    that fails for a value (a string that is no number) or would lose digits
///    (12.345 -> DECIMAL(10,2)) fails the write naming the column, the count and sample
///    values. castPolicy try: failing values become NULL, counted per column; more than
///    maxCastNulls (default 0) in all fails the write (kConstraintViolation).
///  - A required column holding NULL fails the write (kConstraintViolation), and so
///    does a row breaking a row rule of the contract (accepted values, ranges, lengths,
///    patterns: the checks `contract apply` would make CHECK constraints), naming the
///    rule, the count and sample rows; quarantine routes such rows instead.
/// The conformed batches then go through the table's own enforcement, so a contract
/// adds to Delta's rules and never loosens them.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/constraints/constraints.h"
#include "deltaguard/contract/contract.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/txn/commit_info.h"
#include "deltaguard/write/write_types.h"

namespace deltaguard {

/// What conforming did; filled while batches stream (thread-safe).
struct ContractWriteReport {
  std::string contract_id;
  std::string contract_version;
  std::vector<std::string> ignored_columns;  ///< input columns the contract leaves out
  std::vector<std::string> renamed;          ///< "cust_id -> customer_id (alias)"
  std::vector<std::string> cast_columns;     ///< "amount: string -> decimal(10,2)"
  /// try casts: NULLs introduced per column, in declared order.
  std::vector<std::pair<std::string, int64_t>> cast_nulls;
  std::mutex mutex;
};

/// How ConformToContract treats what a plain write refuses.
struct ContractConformOptions {
  /// Keep the input columns the contract does not declare after the declared ones,
  /// unchanged (still reported as ignored). MERGE: its conditions may read them, and
  /// its `*` clauses leave them out (dml/merge.h).
  bool keep_undeclared = false;
  /// The contract's row rules (ContractRowConstraints) are left to a router that
  /// checks them itself (quarantine); otherwise a row breaking one fails the write.
  bool route_row_rules = false;
};

/// `input` conformed to `object` of `contract`. Schema problems are found here, before
/// any row is read; value problems while the batches stream (the error then fails the
/// write through the commit funnel, which commits nothing).
Result<BatchSource> ConformToContract(BatchSource input, const Contract& contract,
                                      const ContractObject& object,
                                      std::shared_ptr<ContractWriteReport> report,
                                      const ContractConformOptions& options = {});

/// The contract's rules that every row must satisfy, as constraints of kind
/// kContractRule over the declared column names: `<column> IS NOT NULL` per required
/// property, then the row checks `contract apply` would add as CHECK constraints
/// (contract/checks.h `as_constraint`). Each is named "<rule id> (<contract id>
/// <version>)", so a quarantined row says which rule of which contract it broke.
std::vector<Constraint> ContractRowConstraints(const Contract& contract,
                                               const ContractObject& object,
                                               bool include_required = true);

/// The summary of a finished write under `contract` (ContractWriteSummaryJson), and
/// what the commit records: operationParameters `contract` ("<id> <version>") and
/// `contractIgnoredColumns`, and a warning naming the ignored columns in `warnings`.
ContractWriteSummary FinishContractWrite(const Contract& contract,
                                         const ContractWriteReport& report,
                                         OperationInfo* op,
                                         std::vector<std::string>* warnings);

/// The schema text inputs (CSV, JSON) are read with under a contract: the declared
/// types (castPolicy try: only the STRING columns; the others are inferred and the
/// contract's TRY_CAST decides), with each alias of a property hinted like the
/// property.
SchemaRef ContractTypeHint(const Contract& contract, const ContractObject& object);

/// {"id","version","layer","ignored_columns":[..],"renamed":[..],"cast_columns":[..],
///  "cast_nulls":{column: count}}: the `contract` member of `write --output json` and of
/// Python's write result.
std::string ContractWriteSummaryJson(const ContractWriteSummary& summary);

/// The contract a write must follow: `given` (null: none given) checked against the one
/// the table carries (table/contract_apply.h). No contract anywhere: null. A table
/// contract and none given: the table's. Both, with the same hash: it. Different: the
/// change from the table's to the given one must be compatible under the table
/// contract's mode, else kSchemaMismatch naming the breaking changes (apply the new
/// version first: `deltaguard contract apply`).
Result<std::shared_ptr<const Contract>> ContractForWrite(
    const Snapshot* snapshot, std::shared_ptr<const Contract> given);

}  // namespace deltaguard
