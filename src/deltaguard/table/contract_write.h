/// \file deltaguard/table/contract_write.h
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
///  - A required column holding NULL fails the write (kConstraintViolation).
/// The conformed batches then go through the table's own enforcement, so a contract
/// adds to Delta's rules and never loosens them.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/contract/contract.h"
#include "deltaguard/log/snapshot.h"
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

/// `input` conformed to `object` of `contract`. Schema problems are found here, before
/// any row is read; value problems while the batches stream (the error then fails the
/// write through the commit funnel, which commits nothing).
Result<BatchSource> ConformToContract(BatchSource input, const Contract& contract,
                                      const ContractObject& object,
                                      std::shared_ptr<ContractWriteReport> report);

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
