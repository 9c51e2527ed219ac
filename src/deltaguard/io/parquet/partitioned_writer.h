/// \file deltaguard/io/parquet/partitioned_writer.h
/// Writes conformed table rows as data files, one DataFileWriter per partition.
///
/// Input batches carry every table column (data and partition columns) in the table's
/// logical Arrow schema. Rows are grouped by the values of the partition columns
/// (dictionary-encoding each partition column, so the per-row cost is a hash of small
/// integers), the partition columns are dropped from the rows (PROTOCOL.md "Partition
/// Value Serialization": partition values live in the log, not in the files), and each
/// group goes to the writer of its partition. Writers stay open until Finish, so a
/// partition receives few, large files; memory is about one row group per open
/// partition.
#pragma once

#include <arrow/record_batch.h>

#include <memory>
#include <string>
#include <vector>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/io/parquet/data_file_writer.h"
#include "deltaguard/protocol/table_properties.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

class PartitionedWriter {
 public:
  /// `table_schema`: the full logical schema (with column-mapping metadata when `mode`
  /// is not kNone). `partition_columns`: canonical (logical) names, each a top-level
  /// primitive column of `table_schema`.
  static Result<std::unique_ptr<PartitionedWriter>> Make(
      FileSystemRef fs, std::string table_root, SchemaRef table_schema,
      std::vector<std::string> partition_columns, ColumnMappingMode mode,
      DataFileWriterOptions options);
  ~PartitionedWriter();
  PartitionedWriter(const PartitionedWriter&) = delete;
  PartitionedWriter& operator=(const PartitionedWriter&) = delete;

  /// REQUIRES: `batch` has exactly the fields of ToArrowSchema(table_schema) (logical).
  Status Write(const std::shared_ptr<arrow::RecordBatch>& batch);

  /// Close every partition's writer and return all files written, partitions in the
  /// order they were first seen.
  Result<std::vector<WrittenFile>> Finish();

  /// Close whatever is open and delete every file written so far (used when a write
  /// fails before its commit; the files were never referenced by the log).
  void Abort();

  int64_t rows_written() const { return rows_; }

  class Impl;

 private:
  explicit PartitionedWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  int64_t rows_ = 0;
};

}  // namespace deltaguard
