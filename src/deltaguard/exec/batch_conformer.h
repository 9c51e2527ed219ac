/// \file deltaguard/exec/batch_conformer.h
/// Make one input batch fit the table: match columns, apply lossless casts, fill
/// missing columns with NULL and enforce NOT NULL at every depth.
///
/// docs/decisions.md §1 and §2: input fields are matched to table fields by name
/// case-insensitively at every depth (struct fields, array elements, map keys and
/// values), or by position at the top level; an input field the table lacks fails;
/// a table field the input lacks becomes NULL. Types are cast only when the cast is
/// lossless (evolution/type_rules.h IsLosslessWriteCast) or the Delta types are equal
/// and only the Arrow representation differs (large_utf8, dictionary, timestamp unit
/// or zone, date64, unsigned integers, decimal256, fixed_size_list, ...). Casts are
/// checked: a value that does not fit fails the batch, it never becomes NULL.
/// NOT NULL follows Spark Delta (docs/spark_semantics.md §8): a NULL parent struct
/// violates its NOT NULL children; arrays with containsNull=false and maps with
/// valueContainsNull=false must hold no null elements/values.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/type.h>

#include <cstdint>
#include <memory>
#include <string>

#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

struct ConformOptions {
  /// Match top-level columns by position instead of by name (headerless CSV, INSERT
  /// without a column list). Nested fields are always matched by name.
  bool by_position = false;
  /// For messages.
  std::string table_name;
  /// A top-level dictionary<int32, utf8> input column of a STRING table column stays
  /// dictionary-encoded (the output field then has that dictionary type) instead of
  /// being decoded; for batches that go straight to DataFileWriter, which writes the
  /// indices as they are (MERGE's copied rows, ScanOptions::dictionary_columns).
  bool keep_dictionaries = false;
};

class BatchConformer {
 public:
  /// `target`: the resolved table schema (after schema evolution; data and partition
  /// columns). `input`: the input's Arrow schema. Fails with kSchemaMismatch when an
  /// input field has no table field or a type cannot be cast losslessly.
  static Result<std::unique_ptr<BatchConformer>> Make(
      SchemaRef target, std::shared_ptr<arrow::Schema> input, ConformOptions options);
  ~BatchConformer();
  BatchConformer(const BatchConformer&) = delete;
  BatchConformer& operator=(const BatchConformer&) = delete;

  /// ToArrowSchema(target) in logical names.
  const std::shared_ptr<arrow::Schema>& output_schema() const { return output_schema_; }

  /// The batch in output_schema(). `first_row` is the 0-based index of the batch's
  /// first row in the input file; messages give 1-based input row numbers. Errors:
  /// kSchemaMismatch "DELTA_CAST_OVERFLOW_IN_TABLE_WRITE: ..." for a value that does
  /// not fit, kConstraintViolation "DELTA_NOT_NULL_CONSTRAINT_VIOLATED: ..." for a
  /// NULL in a NOT NULL position.
  Result<std::shared_ptr<arrow::RecordBatch>> Conform(const arrow::RecordBatch& batch,
                                                      int64_t first_row = 0) const;

  struct Node;  // the per-field plan (batch_conformer.cc)

 private:
  BatchConformer(std::shared_ptr<arrow::Schema> input,
                 std::shared_ptr<arrow::Schema> output, std::unique_ptr<Node> root,
                 ConformOptions options);

  std::shared_ptr<arrow::Schema> input_schema_;
  std::shared_ptr<arrow::Schema> output_schema_;
  std::unique_ptr<Node> root_;
  ConformOptions options_;
};

}  // namespace deltaguard
