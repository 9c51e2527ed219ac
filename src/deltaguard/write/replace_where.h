/// \file deltaguard/write/replace_where.h
/// Partial overwrite by predicate (Spark's `replaceWhere`, docs/spark_semantics.md §5.4):
/// the rows a write brings must all satisfy the predicate (else
/// DELTA_REPLACE_WHERE_MISMATCH), and the rows of the table that satisfy it are replaced.
///
/// A predicate over partition columns only is decided per file from add.partitionValues
/// (whole files are removed). A predicate over data columns is decided per row: files
/// whose rows all match are removed, files with no matching row stay, and files with
/// some matching rows are rewritten without them (copy-on-write), as Spark does with
/// `spark.databricks.delta.replaceWhere.dataColumns.enabled` (its default).
/// A row "matches" only when the predicate is TRUE; FALSE and NULL rows are kept, as in
/// DELETE. Written rows must evaluate to TRUE.
#pragma once

#include <arrow/array.h>
#include <arrow/record_batch.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "deltaguard/expr/binder.h"
#include "deltaguard/log/actions.h"
#include "deltaguard/protocol/table_properties.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

class ReplaceWhere {
 public:
  /// Parse and bind `sql` (a boolean SQL expression, deterministic, no aggregates)
  /// against the table schema `schema`.
  static Result<std::unique_ptr<ReplaceWhere>> Make(
      const std::string& sql, SchemaRef schema,
      const std::vector<std::string>& partition_columns, ColumnMappingMode mode,
      const std::string& table);
  /// The same for an already parsed predicate (UPDATE and DELETE pass their WHERE
  /// instead of printing it to SQL and parsing it again).
  static Result<std::unique_ptr<ReplaceWhere>> FromExpr(
      const Expr& parsed, SchemaRef schema,
      const std::vector<std::string>& partition_columns, ColumnMappingMode mode,
      const std::string& table);

  /// The predicate in canonical SQL (recorded in commitInfo.operationParameters).
  const std::string& Sql() const { return sql_; }
  /// True when the predicate reads partition columns only.
  bool partition_only() const { return partition_only_; }

  /// Every row of `batch` (table schema, logical names) must satisfy the predicate;
  /// `first_row` numbers the batch's rows in its input for the message.
  Status CheckRows(const arrow::RecordBatch& batch, int64_t first_row) const;

  /// REQUIRES: partition_only(). Whether files with these partition values (keys as in
  /// add.partitionValues) hold rows selected by the predicate.
  Result<bool> MatchesPartition(const PartitionValues& values) const;

  /// The rows of `batch` the predicate selects (TRUE; NULL counts as not selected).
  Result<std::shared_ptr<arrow::BooleanArray>> Select(
      const arrow::RecordBatch& batch) const;

  /// For conflict detection: does a file with these partition values possibly hold
  /// rows this overwrite reads? Data predicates (and evaluation errors) answer true.
  std::function<bool(const PartitionValues&)> PartitionPredicate() const;

 private:
  ReplaceWhere() = default;
  std::string sql_;
  std::string table_;
  SchemaRef schema_;
  BoundExprRef bound_;
  bool partition_only_ = false;
  // Partition columns: logical field and add.partitionValues key.
  std::vector<std::pair<StructField, std::string>> partition_fields_;
};

}  // namespace deltaguard
