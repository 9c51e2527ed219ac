/// \file deltaguard/io/parquet/data_file_writer.h
/// Writing the Parquet data files of one partition of a Delta table, with the per-file
/// statistics for add.stats (file_stats.h), plus the serialization of partition values
/// (PROTOCOL.md "Partition Value Serialization") and Hive-style partition directories.
///
/// Files are plain Parquet (format 2.6, no embedded Arrow schema, every column
/// optional as Spark writes them). Type mapping follows PROTOCOL.md's appendix:
/// timestamp -> INT64 TIMESTAMP(MICROS, isAdjustedToUTC=true), timestamp_ntz -> INT64
/// TIMESTAMP(MICROS, isAdjustedToUTC=false), decimals as Arrow writes them. Under column
/// mapping (name or id) columns carry physical names and PARQUET:field_id = column id at
/// every struct level (PROTOCOL.md "Column Mapping", writer requirements).
///
/// Files are streamed to storage (FileSystem::OpenForWrite) and published by their
/// close; a file ends within about half a row group of the target size. Row groups are
/// dealt round-robin to `file_streams` streams that encode on their own threads (see
/// data_file_stream_internal.h; the rows left at Finish go to the streams that will be
/// free first); the files written depend only on the input and the options, never on
/// thread timing. Columns whose first batch is nearly all distinct values, or whose
/// dictionary would outgrow its page within a row group, are written PLAIN instead of
/// trying dictionary encoding (data_file_writer.cc).
#pragma once

#include <arrow/record_batch.h>
#include <arrow/scalar.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/io/parquet/file_stats.h"
#include "deltaguard/log/actions.h"
#include "deltaguard/protocol/table_properties.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

struct DataFileWriterOptions {
  /// "snappy", "zstd", "gzip" or "uncompressed"; anything else is kInvalidArgument.
  std::string compression = "snappy";
  /// Files end near this size: checked after each row group, a file is closed once it
  /// reaches the target, or earlier when one more row group of the size of the last
  /// would overshoot the target by more than the file now falls short of it.
  int64_t target_file_size_bytes = 128LL << 20;
  /// A row group is closed at this many rows or when its in-memory Arrow data reaches
  /// min(target_file_size_bytes, 128 MiB).
  int64_t row_group_rows = 1 << 20;
  /// Row group i goes to file stream i % file_streams (the last rows: see
  /// data_file_stream_internal.h); each stream writes its own files, so this many row
  /// groups encode at once. 1: one file at a time, row groups in input order. Must be
  /// >= 1.
  int file_streams = 2;
  /// Encode each stream on its own thread. false: on the caller's thread, one row
  /// group at a time; the files are the same.
  bool threads = true;
  FileStatsOptions stats;
};

/// One finished data file: the fields of its add action.
struct WrittenFile {
  /// Relative to the table root, URI-encoded as add.path is
  /// ("country=US/part-00000-<uuid>.c000.snappy.parquet").
  std::string relative_path;
  PartitionValues partition_values;
  int64_t size = 0;               ///< bytes
  int64_t modification_time = 0;  ///< ms since the epoch, from FileSystem::Stat
  std::string stats_json;
  int64_t num_records = 0;
};

/// Writes batches of ONE partition (the caller splits rows by partition) given in the
/// table's logical data schema (partition columns excluded). Not thread-safe (its
/// encoding threads are internal).
class DataFileWriter {
 public:
  /// `logical_schema`: the non-partition columns. `partition_values`: serialized
  /// values keyed as in add.partitionValues (physical names under column mapping), in
  /// partition-column order; they also name the Hive-style directory.
  static Result<std::unique_ptr<DataFileWriter>> Make(FileSystemRef fs,
                                                      std::string table_root,
                                                      SchemaRef logical_schema,
                                                      ColumnMappingMode mode,
                                                      PartitionValues partition_values,
                                                      DataFileWriterOptions options);
  ~DataFileWriter();
  DataFileWriter(const DataFileWriter&) = delete;
  DataFileWriter& operator=(const DataFileWriter&) = delete;

  /// Append rows. The batch's fields must match the logical schema by name (exactly)
  /// and Arrow type (ToArrowType(kLogical); nullability and field metadata are not
  /// compared, list/map child names are free, any non-empty time zone is accepted for
  /// timestamp); a mismatch is kSchemaMismatch naming the column and both types.
  /// A top-level STRING column may also come as dictionary<int32, utf8>, in some
  /// batches or all: where the column is dictionary-encoded in the file, a row group's
  /// dictionaries are unified and their indices written without hashing each value
  /// again; where it is PLAIN, they are decoded. NOT NULL enforcement is the caller's
  /// job. The batch's buffers are shared (not
  /// copied) until its rows are encoded. An encoding error of an earlier row group
  /// (e.g. storage failing) is returned by a later Write or by Finish.
  Status Write(const arrow::RecordBatch& batch);

  /// Flush and close the open files; return every file written, ordered by their
  /// first row group. Writes no file when no rows were given. On error every file this
  /// writer published is deleted. The writer cannot be used afterwards.
  Result<std::vector<WrittenFile>> Finish();

  /// Give up: stop encoding, abandon open files and delete every file published so far
  /// (for a write that fails before its commit). No-op after a successful Finish.
  void Abort();

  class Impl;

 private:
  explicit DataFileWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Serialize a partition value as Spark does (PROTOCOL.md "Partition Value
/// Serialization"): null and "" -> nullopt (JSON null); integers plain; float/double
/// Java-style ("1.5", "1.0E10", "NaN"); decimals with their scale ("12.30"); boolean
/// "true"/"false"; date "yyyy-MM-dd"; timestamp ISO UTC "2024-01-01T12:00:00.000000Z"
/// (Spark >= 3.3); timestamp_ntz "yyyy-MM-dd HH:mm:ss[.f...]" (trailing zeros of the
/// fraction dropped); string/binary as their (UTF-8) bytes. The scalar's Arrow type must
/// be ToArrowType(type) (kInvalidArgument otherwise); ParsePartitionValue inverts it.
Result<std::optional<std::string>> EncodePartitionValue(const arrow::Scalar& value,
                                                        const DataType& type);

/// Escape one Hive path element as Spark's ExternalCatalogUtils.escapePathName: control
/// characters, `"#%'*/:=?\` DEL `{[]^` become %XX (upper-case hex).
std::string EscapePartitionPathName(std::string_view s);

/// "k1=v1/k2=v2" for the partition values (null -> __HIVE_DEFAULT_PARTITION__); ""
/// when there are none. Not URI-encoded (the file-system path).
std::string PartitionDirectory(const PartitionValues& values);

}  // namespace deltaguard
