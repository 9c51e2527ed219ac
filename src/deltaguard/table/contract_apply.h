/// \file deltaguard/table/contract_apply.h
/// `contract apply`: make a table carry what Delta can carry of a contract natively,
/// so every engine that writes it enforces that part (docs/contracts.md "Apply"), in
/// one metadata-only commit:
///  - NOT NULL on the columns the contract marks `required`;
///  - a CHECK constraint `contract_<id>` for each row check that must hold on every
///    row (accepted values, minimum/maximum, lengths, patterns); constraints an earlier
///    applied version added and this one no longer implies are dropped;
///  - column comments from descriptions;
///  - the contract itself in table properties: `deltaguard.contract.id`, `.version`,
///    `.hash` and `.yaml` (the text, so writes check against it without the file), and
///    `.constraints` (the names this contract added).
/// Existing rows are checked first, as ADD CONSTRAINT and SET NOT NULL do: a violation
/// refuses the whole apply with kConstraintViolation naming each check, its count and
/// sample rows. A declared column the table lacks, or has with another type, is
/// kSchemaMismatch: apply changes no column's type and adds no column.
#pragma once

#include <string>

#include "deltaguard/contract/contract.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/table/alter.h"
#include "deltaguard/write/write_types.h"

namespace deltaguard {

/// Apply `object` of `contract` (its text `yaml`, as read) to the table at `path`.
Result<AlterResult> ApplyContract(FileSystemRef fs, const std::string& path,
                                  const Contract& contract, const ContractObject& object,
                                  const std::string& yaml,
                                  const SessionSettings& session = {});

}  // namespace deltaguard
