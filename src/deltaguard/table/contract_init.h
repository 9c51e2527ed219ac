/// \file deltaguard/table/contract_init.h
/// `contract init`: a first contract for an existing table (docs/contracts.md "Init").
/// Facts of the table become facts of the contract (columns, types, NOT NULL,
/// comments, partitioning, CHECK constraints as sql rules); what the data shows becomes
/// proposals, marked by comments: small sets of distinct strings as accepted values,
/// the numeric and date ranges of the add statistics as minimum/maximum.
#pragma once

#include <cstdint>
#include <string>

#include "deltaguard/contract/contract.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

struct ContractInitOptions {
  MedallionLayer layer = MedallionLayer::kNone;
  /// Rows read for accepted-value proposals (the distinct strings of each column).
  int64_t sample_rows = 1'000'000;
  /// A column with at most this many distinct non-NULL strings gets an accepted-values
  /// proposal.
  size_t max_accepted_values = 10;
  std::string id;    ///< default: the table directory's name
  std::string name;  ///< default: the same
  std::string version = "1.0.0";
};

/// The contract as YAML text, with proposal comments.
Result<std::string> InitContract(const Snapshot& snapshot,
                                 const ContractInitOptions& options);

}  // namespace deltaguard
