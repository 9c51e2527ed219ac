/// \file deltaguard/table/constraints_ddl.h
/// ALTER TABLE ADD CONSTRAINT name CHECK (expr) and DROP CONSTRAINT [IF EXISTS] name on
/// an existing Delta table (PROTOCOL.md "CHECK Constraints"; digest §4.4).
///
/// Both are one metadata-only commit through the ALTER commit path (alter_internal.h):
///  - ADD validates the constraint (constraints/constraints.h), then scans every live
///    row (docs/decisions.md §4) and refuses with kConstraintViolation
///    "DELTA_NEW_CHECK_CONSTRAINT_VIOLATION" naming the count and up to 5 sample rows
///    when any row makes the expression FALSE or NULL. Otherwise it stores
///    `delta.constraints.<lower-case name>` = the expression text as given (Spark stores
///    its token-joined text; the SQL layer passes that), upgrades the protocol to the
///    checkConstraints feature (writer 3, or the feature on a writer-7 table), and logs
///    commitInfo operation "ADD CONSTRAINT" with parameters name and expr. The commit
///    reads the whole table, so a concurrent write makes it fail with kCommitConflict.
///  - DROP removes the property (every key equal to it up to case) and logs "DROP
///    CONSTRAINT" with name (and expr when it existed); the protocol keeps the feature.
///    An absent constraint is kNotFound "DELTA_CONSTRAINT_DOES_NOT_EXIST" unless
///    `if_exists`, in which case nothing is committed (AlterResult::version is -1).
/// Enforcement on writes is table/write.cc's job (exec/constraint_checker.h).
#pragma once

#include <string>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/table/alter.h"
#include "deltaguard/table/write.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// ALTER TABLE ADD CONSTRAINT `name` CHECK (`expr_sql`); see the file comment.
Result<AlterResult> AddConstraint(FileSystemRef fs, const std::string& path,
                                  const std::string& name, const std::string& expr_sql,
                                  const SessionSettings& session = {});

/// ALTER TABLE DROP CONSTRAINT [IF EXISTS] `name`; see the file comment.
Result<AlterResult> DropConstraint(FileSystemRef fs, const std::string& path,
                                   const std::string& name, bool if_exists,
                                   const SessionSettings& session = {});

}  // namespace deltaguard
