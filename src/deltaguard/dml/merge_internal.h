/// \file deltaguard/dml/merge_internal.h
/// The plan of one MERGE (merge_plan.cc: names, clauses, schema rules) and the join
/// helpers (merge_join.cc: key encoding, stats pruning, nested-field pruning), used by
/// merge.cc. Not part of the public API.
///
/// Expressions are bound against the *joined* schema: every target column appears as a
/// top-level field named "<target_alias>.<column>" and every source column as
/// "<source_alias>.<column>" (exec/expr_eval.h matches batch columns by these names).
#pragma once

#include <arrow/array.h>
#include <arrow/record_batch.h>

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "deltaguard/dml/dml_internal.h"
#include "deltaguard/dml/merge.h"
#include "deltaguard/exec/batch_conformer.h"
#include "deltaguard/expr/binder.h"
#include "deltaguard/log/snapshot.h"

namespace deltaguard::dml_internal {

/// One output column of a clause, in the order of the table schema after the MERGE.
struct ProjectedColumn {
  std::string name;
  BoundExprRef value;  ///< null: NULL
  /// Set: drop the nested fields the target lacks (ignore_unmatched_source_columns).
  std::shared_ptr<arrow::DataType> prune_to;
};

struct ClausePlan {
  MergeWhen::Kind kind = MergeWhen::Kind::kMatchedDelete;
  size_t index = 0;  ///< position in MergeSpec::clauses
  bool is_delete = false;
  BoundExprRef condition;     ///< null: always
  std::string condition_sql;  ///< as written (commitInfo)
  std::vector<ProjectedColumn> columns;
  std::unique_ptr<BatchConformer> conformer;  ///< projected batch -> table schema
  std::string Describe() const;               ///< "WHEN MATCHED clause 1 (UPDATE)"
};

/// An equality `target_expr = source_expr` of the ON condition.
struct JoinKey {
  BoundExprRef target;  ///< references target columns only (common type)
  BoundExprRef source;  ///< references source columns only (common type)
  /// Set when `target` is a top-level integral column: usable for stats pruning.
  std::optional<StructField> prune_column;
};

struct MergePlan {
  std::string target_alias;
  std::string source_alias;
  SchemaRef target_schema;  ///< the snapshot's schema (what scans return)
  SchemaRef source_schema;  ///< the source in Delta types, nullable
  std::shared_ptr<arrow::Schema> source_arrow;  ///< canonical Arrow of source_schema
  SchemaChange schema;                          ///< the table after the commit
  std::vector<JoinKey> keys;
  BoundExprRef residual;  ///< the rest of ON; null: none
  std::string on_sql;
  std::vector<ClausePlan> matched;
  std::vector<ClausePlan> not_matched;
  std::vector<ClausePlan> not_matched_by_source;
  bool multiple_matches_allowed = false;  ///< only clause: unconditional MATCHED DELETE
  bool modifies_rows = false;             ///< some update/delete clause
  std::vector<std::string> ignored_source_columns;
  std::vector<std::string> added_columns;
  std::vector<std::string> widened_columns;
  std::vector<std::string> warnings;
};

/// Resolve, type-check and apply the schema rules; nothing is read or written.
Result<MergePlan> PlanMerge(const DmlTarget& target, const MergeSpec& spec,
                            const SessionSettings& session);

/// "<alias>.<column>": the joined-batch name of a column.
std::string JoinedName(const std::string& alias, const std::string& column);

/// `batch` with every column renamed to JoinedName(alias, name).
Result<std::shared_ptr<arrow::RecordBatch>> Qualified(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::string& alias);

/// Row keys of the equality columns: one byte string per row (equal values of the
/// common type give equal strings; -0.0 == 0.0, NaN == NaN as in Spark); nullopt for a
/// row with a NULL key, which matches nothing.
Result<std::vector<std::optional<std::string>>> EncodeKeys(
    const std::vector<std::shared_ptr<arrow::Array>>& columns, int64_t num_rows);

/// The source's key values render for messages: "id = 7, region = 'EU'".
std::string DescribeKey(const std::vector<BoundExprRef>& keys,
                        const std::vector<std::shared_ptr<arrow::Array>>& columns,
                        int64_t row);

/// Source key range of an integral key column (min, max over non-NULL values); nullopt
/// when every value is NULL.
struct KeyRange {
  int64_t min = 0;
  int64_t max = 0;
};
Result<std::optional<KeyRange>> IntegralRange(const arrow::Array& column);

/// False when `file` certainly holds no row whose `column` value lies in `range`
/// (stats min/max and null counts, or the partition value); true when unknown.
/// `range` nullopt (no non-NULL source key) means no row can match.
bool FileMayMatch(const AddFile& file, const StructField& column, bool is_partition,
                  ColumnMappingMode mode, const std::optional<KeyRange>& range);

/// The Delta type `source` restricted to the struct fields `target` has (recursing into
/// structs, array elements and map values); `source` itself when nothing is dropped.
DataTypeRef PruneType(const DataTypeRef& source, const DataTypeRef& target);

/// `array` restricted to `type` (a PruneType result in Arrow form): struct children are
/// picked by name.
Result<std::shared_ptr<arrow::Array>> PruneArray(
    const std::shared_ptr<arrow::Array>& array,
    const std::shared_ptr<arrow::DataType>& type);

}  // namespace deltaguard::dml_internal
