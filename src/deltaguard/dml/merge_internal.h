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
  /// Set for UPDATE SET * with evolution when the target column is a struct with
  /// nested fields the source lacks: they keep their current value, read from this
  /// target column (Spark, docs/spark_semantics.md §5.6; KeepTargetOnlyFields).
  BoundExprRef keep_from;
  /// UPDATE SET s.a.b = v: `value` is the current struct and these fields (paths below
  /// the column, values already of the field's type) are replaced in it
  /// (ReplaceNestedField), as Spark rewrites them into a struct constructor.
  std::vector<std::pair<std::vector<std::string>, BoundExprRef>> nested;
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
  SchemaEvolutionStep schema;                   ///< the table after the commit
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

/// commitInfo of a MERGE (merge_commit_info.cc): operation "MERGE" with Spark's
/// operationParameters (predicate, matched/notMatched/notMatchedBySource predicates)
/// plus addedColumns / ignoredSourceColumns when there are any.
OperationInfo MergeOperationInfo(const MergePlan& plan);

/// Spark's MERGE operationMetrics from `result` (counts and file metrics final), plus
/// numAddedColumns / numIgnoredSourceColumns.
void AddMergeMetrics(const MergeResult& result, const MergePlan& plan,
                     int64_t execution_ms, OperationInfo* info);

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

/// The common case of one integral ON key (`t.id = s.id`): an index from key value to
/// the first source row with it, instead of string keys (EncodeKeys), which dominated
/// MERGE time on large sources. Dense keys (a range under 64 values per source row) use
/// a bitmap, per-word ranks and the first rows in key order; others an open-addressing
/// hash table. Rows with equal keys are chained through `next` exactly as the string
/// index chains them (Find flags keys that have a chain); NULL keys match nothing.
class IntegralKeyIndex {
 public:
  /// Set in Find()'s result when more rows have the key: follow `next` from the row.
  static constexpr int64_t kMore = int64_t{1} << 62;

  /// True when `column` is INT8/16/32/64 (values compare as int64).
  static bool Supports(const arrow::Array& column);
  /// Index `column` (Supports() must hold); next[r] = the next row with r's key or -1.
  void Build(const arrow::Array& column, std::vector<int64_t>* next);
  /// The first row whose key is `value` (| kMore when it is not the only one), or -1.
  int64_t Find(int64_t value) const {
    if (value < min_ || value > max_) return -1;
    if (!bits_.empty()) {
      // Dense keys: most target keys miss, and a small bitmap answers without touching
      // anything else; a hit's rank among the present keys indexes the rows in key
      // order, which a target sorted by its key reads nearly sequentially.
      const auto offset = static_cast<uint64_t>(value) - static_cast<uint64_t>(min_);
      if (!((bits_[offset >> 6] >> (offset & 63)) & 1)) return -1;
      return heads_[Rank(offset)];
    }
    if (slots_.empty()) return -1;
    for (size_t i = Slot(value);; i = (i + 1) & mask_) {
      const Entry& e = slots_[i];
      if (e.row < 0) return -1;
      if (e.key == value) return e.row;
    }
  }

 private:
  struct Entry {
    int64_t key = 0;
    int64_t row = -1;  ///< -1: empty slot (| kMore: as Find returns it)
  };
  // Dense keys: the number of present keys below `offset` (= key - min_).
  uint64_t Rank(uint64_t offset) const {
    const uint64_t below = bits_[offset >> 6] & ((uint64_t{1} << (offset & 63)) - 1);
    return ranks_[offset >> 6] + static_cast<uint64_t>(__builtin_popcountll(below));
  }
  size_t Slot(int64_t value) const {
    return static_cast<size_t>((static_cast<uint64_t>(value) * 0x9E3779B97F4A7C15ULL) >>
                               shift_) &
           mask_;
  }
  // Sparse keys: open addressing (load factor <= 0.5).
  std::vector<Entry> slots_;
  size_t mask_ = 0;
  int shift_ = 0;
  // Dense keys (a key range under 64 values per row): key - min_ present, the number of
  // present keys before each bitmap word, and each present key's first row, by key.
  std::vector<uint64_t> bits_;
  std::vector<uint32_t> ranks_;
  std::vector<int64_t> heads_;
  int64_t min_ = 0;
  int64_t max_ = -1;
};

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

/// Nested assignments of an update, by top-level column: {column, {path below it,
/// value typed as the field}} (ProjectedColumn::nested).
using NestedSets = std::vector<std::pair<
    std::string, std::vector<std::pair<std::vector<std::string>, BoundExprRef>>>>;

/// `SET a.b.c = value`: resolve `path` through `schema`'s structs (case-insensitively;
/// existing fields only), bind `value` (already qualified for `bind_schema`) and type it
/// as the field (numeric: a checked CAST; otherwise lossless casts only, else
/// kSchemaMismatch naming the column and both types), then add it to `sets` (a path
/// assigned twice is kInvalidArgument). `what` prefixes errors.
Status AddNestedAssignment(const StructType& schema, std::vector<std::string> path,
                           const ExprRef& value, const StructType& bind_schema,
                           const std::string& what, NestedSets* sets);

/// `parent` (a struct array) with the field at `path` (names below it, matched
/// case-insensitively) replaced by `value`. The result and the structs on the path are
/// non-NULL (Spark builds a new struct; the other fields of a NULL parent read NULL).
Result<std::shared_ptr<arrow::Array>> ReplaceNestedField(
    const std::shared_ptr<arrow::Array>& parent, const std::vector<std::string>& path,
    const std::shared_ptr<arrow::Array>& value, size_t depth = 0);

/// True when `target` is a struct (at any depth of structs) with a field `source` lacks.
bool HasTargetOnlyFields(const DataType& source, const DataType& target);

/// `source` (a struct array) with the fields only `target` has appended, taken row by
/// row from `target` (NULL where the target struct is NULL), recursing into struct
/// fields both have; rows where `source` is NULL stay NULL. Not a struct: `source`.
Result<std::shared_ptr<arrow::Array>> KeepTargetOnlyFields(
    const std::shared_ptr<arrow::Array>& source,
    const std::shared_ptr<arrow::Array>& target);

}  // namespace deltaguard::dml_internal
