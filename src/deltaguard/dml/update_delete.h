/// \file deltaguard/dml/update_delete.h
/// UPDATE t SET ... [WHERE ...] and DELETE FROM t [WHERE ...] on the MERGE machinery
/// (copy-on-write, one commit; docs/spark_semantics.md §1.6, Spark's
/// DeltaOperations.Update/Delete).
///
/// Semantics:
///  1. A row is selected when WHERE is TRUE (FALSE and NULL rows stay as they are); no
///     WHERE selects every row. Columns may be qualified by `alias`.
///  2. Files with a selected row are removed and rewritten with their other rows copied
///     (dataChange true; DVs in the target are honoured by the scan, written files have
///     none). A WHERE on partition columns only skips the files of other partitions
///     without reading them; DELETE with such a WHERE (or none) removes whole files
///     without rewriting anything.
///  3. UPDATE values follow MERGE's rules (merge.h rule 6): lossless casts, a checked
///     CAST between numeric types, NOT NULL at every depth and CHECK constraints on every
///     updated row. Assignments name existing columns; a nested field (`SET s.a.b = v`,
///     resolved case-insensitively) replaces that field and keeps the struct's others
///     (Spark rebuilds the struct: a NULL parent becomes a struct whose other fields are
///     NULL). A column may not be assigned both whole and in its fields.
///  4. commitInfo operation "UPDATE"/"DELETE", operationParameters.predicate as Spark
///     writes it, metrics numUpdatedRows/numDeletedRows, numCopiedRows, numAddedFiles,
///     numRemovedFiles, numAddedBytes, numRemovedBytes. The files read are the read set
///     (a concurrent removal of one is kCommitConflict; blind appends are rebased over).
///     Any failure deletes the files written; nothing is committed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "deltaguard/dml/merge.h"
#include "deltaguard/expr/ast.h"
#include "deltaguard/expr/binder.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/util/result.h"
#include "deltaguard/write/write_types.h"

namespace deltaguard {

struct TableProfile;

/// Runs an uncorrelated subquery of a WHERE or a SET value once and gives its value(s)
/// (the SQL session's query engine, sql/session_dml.cc); unset, subqueries are refused.
/// OSS Delta refuses every subquery here (DELTA_UNSUPPORTED_SUBQUERY); docs/
/// behaviour.md "MERGE, UPDATE, DELETE".
using SubqueryRunner = std::function<Result<SubqueryValues>(const Expr& subquery)>;

struct UpdateSpec {
  std::string alias;  ///< optional qualifier of the table's columns
  std::vector<MergeAssignment> assignments;
  ExprRef where;  ///< null: every row
  SubqueryRunner subquery;
};

struct DeleteSpec {
  std::string alias;
  ExprRef where;  ///< null: every row
  SubqueryRunner subquery;
};

struct DmlResult {
  int64_t version = -1;
  int64_t num_updated_rows = 0;
  /// -1 when unknown (whole files removed whose stats lack numRecords).
  int64_t num_deleted_rows = 0;
  int64_t num_copied_rows = 0;
  int64_t num_added_files = 0;
  int64_t num_removed_files = 0;
  int64_t num_added_bytes = 0;
  int64_t num_removed_bytes = 0;
  int64_t num_files_scanned = 0;  ///< files read (whole-file deletes read none)
  int commit_attempts = 0;
  /// The committed rows' profile when the table keeps profiles (docs/profiles.md); the
  /// caller stores it (table/profiles.h StoreCommitProfile), since dml cannot write
  /// the profile table itself.
  std::shared_ptr<const TableProfile> profile;
  /// What the user must see (data tests that warned).
  std::vector<std::string> warnings;
};

Result<DmlResult> Update(FileSystemRef fs, const std::string& path,
                         const UpdateSpec& spec, const SessionSettings& session = {});
Result<DmlResult> Delete(FileSystemRef fs, const std::string& path,
                         const DeleteSpec& spec, const SessionSettings& session = {});

/// SQL-text conveniences: `set` is {column, SQL value}; empty `where` means none.
Result<DmlResult> UpdateSql(FileSystemRef fs, const std::string& path,
                            const std::vector<std::pair<std::string, std::string>>& set,
                            const std::string& where,
                            const SessionSettings& session = {});
Result<DmlResult> DeleteSql(FileSystemRef fs, const std::string& path,
                            const std::string& where,
                            const SessionSettings& session = {});

}  // namespace deltaguard
