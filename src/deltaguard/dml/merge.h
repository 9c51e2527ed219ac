/// \file deltaguard/dml/merge.h
/// MERGE INTO a Delta table from a source of Arrow batches, with Spark's clause
/// semantics and deltaguard's schema rules (docs/decisions.md §3): the library entry
/// point `Merge` (used by the SQL layer) and `MergeBuilder` (DeltaTable.merge-like).
///
/// Semantics (Spark Delta's MERGE, docs/spark_semantics.md §5.6):
///  1. Names: columns are `<alias>.<column>` or unqualified; an unqualified name present
///     in both target and source is an error naming both. WHEN NOT MATCHED clauses see
///     only the source, WHEN NOT MATCHED BY SOURCE only the target.
///  2. A target row is matched when some source row satisfies `on`. Matched rows go to
///     the first WHEN MATCHED clause whose condition is TRUE; source rows matching no
///     target row to the first NOT MATCHED clause; target rows matching no source row
///     to the first NOT MATCHED BY SOURCE clause. No clause: the row is kept as is.
///     Within a kind only the last clause may omit its condition.
///  3. A target row matched by more than one source row is
///     DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE (kInvalidArgument, naming
///     the key), unless the only WHEN MATCHED clause is an unconditional DELETE.
///  4. `UPDATE SET *` / `INSERT *` assign every source column (minus EXCEPT) to the
///     target column of the same name. Without schema evolution a source column (or
///     nested field) the target lacks fails the MERGE before anything is written,
///     listing the columns and the three ways out; with
///     `ignore_unmatched_source_columns` it is dropped with a warning instead (Spark's
///     behaviour) and reported in MergeResult. A target column the source lacks is an
///     error without evolution (DELTA_MERGE_UNRESOLVED_EXPRESSION); with evolution it
///     keeps its value (UPDATE) or is NULL (INSERT).
///  5. With schema evolution (`schema_evolution`, else SessionSettings::auto_merge) the
///     assigned source columns and nested struct fields (also inside arrays) the target
///     lacks are added, nullable (evolution/write_schema.h), explicit assignments to
///     new columns add them too, and with delta.enableTypeWidening types widen.
///     NOT MATCHED BY SOURCE clauses never add columns.
///  6. Values are cast only losslessly (exec/batch_conformer.h); an explicit assignment
///     of a numeric expression to a numeric column of another type is a checked CAST
///     (a value that does not fit fails, never becomes NULL). NOT NULL at every depth and
///     CHECK constraints are enforced on every updated and inserted row.
///  7. Copy-on-write: only files with an updated or deleted row are rewritten (with
///     their other rows copied); with an equality on an integral target column in `on`
///     and no NOT MATCHED BY SOURCE clause, files whose min/max stats (or partition
///     value) cannot hold any source key are not even read. One commit: removes of the
///     rewritten files, adds of the new ones, operation "MERGE" with Spark's
///     operationParameters and operationMetrics. The files read are the read set: a
///     concurrent commit removing one fails the MERGE with kCommitConflict, a blind
///     append is rebased over (like Databricks' WriteSerializable). Any failure deletes
///     the files written; nothing is committed.
///  8. The source is read once (hash join on the equality keys of `on`, other
///     conditions evaluated on the candidate pairs). Above `source_memory_limit` bytes
///     it is spilled to a temporary file the join reads memory-mapped, so RAM holds
///     only the join keys and the hash index (merge_source_internal.h).
///  9. Under a data contract (`contract`, or the one the table carries;
///     write/contract_write.h ContractForWrite) the source is conformed to it first, as
///     a write under the contract is (docs/contracts.md "MERGE"): declared columns
///     matched by name or alias and cast to the declared types, a required column
///     missing or NULL refused. Undeclared source columns stay readable by `on` and the
///     clause conditions but are left out of every `*` clause (reported as ignored).
///     A bronze contract conforms nothing and turns schema evolution on unless the
///     MERGE says otherwise. commitInfo records the contract.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/expr/ast.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/util/result.h"
#include "deltaguard/write/write_types.h"

namespace deltaguard {

struct TableProfile;

/// The session setting the SQL layer maps to MergeSpec::ignore_unmatched_source_columns.
inline constexpr std::string_view kMergeIgnoreUnmatchedSourceColumnsSetting =
    "deltaguard.merge.ignoreUnmatchedSourceColumns";

/// `column = value` of UPDATE SET / INSERT. `column` is a target column, optionally
/// qualified by the target alias ({"t", "amount"}); in an UPDATE it may be an existing
/// nested field ({"t", "customer", "name"}): that field is replaced, the struct's other
/// fields keep their values (a NULL struct becomes one with them NULL), as in Spark.
struct MergeAssignment {
  std::vector<std::string> column;
  ExprRef value;
};

/// One WHEN clause. (Named apart from the SQL AST's MergeClause, sql/parse/statement.h.)
struct MergeWhen {
  enum class Kind : uint8_t {
    kMatchedUpdate,
    kMatchedUpdateAll,
    kMatchedDelete,
    kNotMatchedInsert,
    kNotMatchedInsertAll,
    kNotMatchedBySourceUpdate,
    kNotMatchedBySourceDelete,
  };
  Kind kind = Kind::kMatchedDelete;
  ExprRef condition;                                     ///< `AND cond`; null: always
  std::vector<MergeAssignment> assignments;              ///< k*Update
  std::vector<std::vector<std::string>> insert_columns;  ///< kNotMatchedInsert
  std::vector<ExprRef> insert_values;                    ///< as many as insert_columns
  std::vector<std::vector<std::string>> except_columns;  ///< k*All: `* EXCEPT (...)`
};

struct MergeSpec {
  /// The source; its `delta_schema`, when set, is the source schema (made nullable) and
  /// the batches are conformed to it; otherwise it is derived from the Arrow schema.
  BatchSource source;
  /// Qualifiers of the two sides (case-insensitive, must differ). The SQL layer passes
  /// the table name when no alias is written.
  std::string target_alias = "target";
  std::string source_alias = "source";
  ExprRef on;
  std::vector<MergeWhen> clauses;
  /// WITH SCHEMA EVOLUTION / withSchemaEvolution(); nullopt: SessionSettings::auto_merge.
  std::optional<bool> schema_evolution;
  /// Spark's behaviour: source columns `*` cannot store are dropped with a warning
  /// (kMergeIgnoreUnmatchedSourceColumnsSetting).
  bool ignore_unmatched_source_columns = false;
  /// Bytes of source data held in RAM; above it the source is spilled to a
  /// memory-mapped temporary file (merge_source_internal.h). < 0: no limit; nullopt:
  /// SessionSettings::merge_source_memory_limit.
  std::optional<int64_t> source_memory_limit;
  /// How the user's interface spells schema evolution, for the refusal's message.
  std::string evolution_option_hint = "builder: WithSchemaEvolution()";
  /// The data contract the MERGE follows (rule 9); null: the table's, if any.
  /// `contract_object` names its schema object ("" = the only one).
  std::shared_ptr<const Contract> contract;
  std::string contract_object;
};

struct MergeResult {
  int64_t version = -1;  ///< the committed version
  int64_t num_source_rows = 0;
  /// Bytes of source data spilled to disk (0: the source stayed in memory).
  int64_t source_spilled_bytes = 0;
  int64_t num_target_rows_inserted = 0;
  int64_t num_target_rows_updated = 0;
  int64_t num_target_rows_matched_updated = 0;
  int64_t num_target_rows_not_matched_by_source_updated = 0;
  int64_t num_target_rows_deleted = 0;
  int64_t num_target_rows_matched_deleted = 0;
  int64_t num_target_rows_not_matched_by_source_deleted = 0;
  int64_t num_target_rows_copied = 0;
  int64_t num_output_rows = 0;
  int64_t num_target_files_added = 0;
  int64_t num_target_files_removed = 0;
  int64_t num_target_files_scanned = 0;  ///< files read (after pruning)
  int64_t num_target_files_skipped = 0;  ///< files pruned by stats
  int64_t num_target_bytes_added = 0;
  int64_t num_target_bytes_removed = 0;
  /// Source columns (dotted paths) dropped under ignore_unmatched_source_columns.
  std::vector<std::string> ignored_source_columns;
  std::vector<std::string> added_columns;    ///< added by schema evolution
  std::vector<std::string> widened_columns;  ///< "qty: integer -> long"
  std::vector<std::string> warnings;
  int commit_attempts = 0;
  /// Set when the MERGE followed a contract (rule 9).
  std::optional<ContractWriteSummary> contract;
  /// The committed rows' profile when the table keeps profiles (docs/profiles.md); the
  /// caller stores it (table/profiles.h StoreCommitProfile), since dml cannot write
  /// the profile table itself.
  std::shared_ptr<const TableProfile> profile;
};

/// Run a MERGE into the table at `path` (see the file comment).
Result<MergeResult> Merge(FileSystemRef fs, const std::string& path, MergeSpec spec,
                          const SessionSettings& session = {});

/// DeltaTable.merge-like builder; conditions, values and paths are SQL text, parsed
/// when given (the first error is returned by Execute).
///
///     auto r = MergeBuilder(fs, "/data/orders", source, "t.id = s.id", "t", "s")
///                  .WhenMatchedUpdateAll("s.updated_at > t.updated_at")
///                  .WhenNotMatchedInsertAll()
///                  .WithSchemaEvolution()
///                  .Execute();
class MergeBuilder {
 public:
  using Sets = std::vector<std::pair<std::string, std::string>>;  ///< column, SQL value

  MergeBuilder(FileSystemRef fs, std::string path, BatchSource source,
               std::string_view on, std::string target_alias = "target",
               std::string source_alias = "source");

  MergeBuilder& WhenMatchedUpdateAll(std::string_view condition = {},
                                     const std::vector<std::string>& except = {});
  MergeBuilder& WhenMatchedUpdate(std::string_view condition, const Sets& set);
  MergeBuilder& WhenMatchedDelete(std::string_view condition = {});
  MergeBuilder& WhenNotMatchedInsertAll(std::string_view condition = {},
                                        const std::vector<std::string>& except = {});
  MergeBuilder& WhenNotMatchedInsert(std::string_view condition, const Sets& values);
  MergeBuilder& WhenNotMatchedBySourceUpdate(std::string_view condition, const Sets& set);
  MergeBuilder& WhenNotMatchedBySourceDelete(std::string_view condition = {});
  MergeBuilder& WithSchemaEvolution(bool enabled = true);
  MergeBuilder& IgnoreUnmatchedSourceColumns(bool enabled = true);
  MergeBuilder& SourceMemoryLimit(int64_t bytes);
  /// How errors name WithSchemaEvolution (Python: "with_schema_evolution()").
  MergeBuilder& EvolutionOptionHint(std::string hint);
  /// The contract the MERGE follows (rule 9); `object` "" = its only schema object.
  MergeBuilder& WithContract(std::shared_ptr<const Contract> contract,
                             std::string object = "");

  const MergeSpec& spec() const { return spec_; }
  Result<MergeResult> Execute(const SessionSettings& session = {});

 private:
  MergeBuilder& Add(MergeWhen::Kind kind, std::string_view condition, const Sets& sets,
                    const std::vector<std::string>& except);
  FileSystemRef fs_;
  std::string path_;
  MergeSpec spec_;
  std::optional<Error> error_;
};

}  // namespace deltaguard
