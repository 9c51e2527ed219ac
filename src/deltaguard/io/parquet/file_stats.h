/// \file deltaguard/io/parquet/file_stats.h
/// Per-file statistics of a data file as written into add.stats (PROTOCOL.md "Per-file
/// Statistics"; digest §6.2), computed from the Arrow batches a writer puts in the file.
///
/// Output: {"numRecords":N,"minValues":{...},"maxValues":{...},"nullCount":{...}},
/// nested like the schema and keyed by physical names under column mapping. The three
/// objects are always present (possibly empty); `tightBounds` is omitted because fresh
/// files carry no deletion vectors.
///
/// Which leaves are indexed: the first `num_indexed_cols` leaves in schema order (structs
/// are recursed; arrays, maps and variants are single leaves; -1 = all), or, when
/// `stats_columns` is set (delta.dataSkippingStatsColumns), exactly the leaves under the
/// named logical paths (case-insensitive; names not in the schema are ignored, e.g.
/// partition columns, which are not part of the data schema).
///
/// min/max only for byte/short/integer/long/float/double/decimal/date/timestamp/
/// timestamp_ntz/string; nullCount for every indexed leaf. A nested leaf counts as null
/// where it or any enclosing struct is null. Value rendering:
///  - integers and decimals: JSON numbers (decimals with their full scale, "12.30");
///  - float/double: JSON numbers in Java's Double.toString style ("1.5", "1.0E10");
///    a column containing NaN or an infinity gets no min/max (JSON cannot hold them and
///    Spark orders NaN above everything);
///  - date "2024-01-01"; timestamp "2024-01-01T12:00:00.123Z" (UTC); timestamp_ntz
///    "2024-01-01T12:00:00.123" — truncated (floored) to milliseconds, as Spark does;
///    readers add 1 ms to the max;
///  - strings are compared by UTF-8 bytes (= code point order) and cut to
///    `string_prefix_length` code points (never inside a code point, so never between
///    surrogate halves). The min is the plain prefix (a prefix is <= the value). A
///    truncated max gets the tie-breaker U+10FFFF, the largest code point, appended after
///    the first code point < U+10FFFF at position >= prefix; if none is found within
///    2 x prefix code points the max is omitted. A column holding invalid UTF-8 gets no
///    string min/max.
///
/// Bounds from the Parquet footer (FileStatsOptions::bounds_from_parquet): the Parquet
/// writer already computes each column chunk's min/max, so for the leaves where those
/// are exactly the values above (integers, dates, microsecond timestamps, decimals,
/// strings; not float/double, whose Parquet bounds skip NaN and normalize -0.0/+0.0)
/// the collector takes the min of the row groups' mins and the max of their maxes
/// (UseParquetBounds + AddParquetBounds) instead of comparing every value. The rendering
/// rules above (flooring, scale, truncation, UTF-8 check) apply unchanged, so the JSON is
/// byte-identical to the batch-computed one; null counts always come from the batches.
#pragma once

#include <arrow/record_batch.h>
#include <parquet/type_fwd.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/protocol/table_properties.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

struct FileStatsOptions {
  int num_indexed_cols = 32;  ///< delta.dataSkippingNumIndexedCols; -1 = all leaves
  /// delta.dataSkippingStatsColumns (logical dotted paths, backticks allowed); when set,
  /// it replaces num_indexed_cols.
  std::optional<std::vector<std::string>> stats_columns;
  int string_prefix_length = 32;  ///< delta.dataSkippingStringPrefixLength
  /// Writers: take min/max from the Parquet writer's column-chunk statistics where they
  /// are exact (see the file comment). false: compare every value (the reference path).
  bool bounds_from_parquet = true;
};

/// Accumulates statistics over the batches of one data file.
class FileStatsCollector {
 public:
  /// `schema` is the logical data schema (no partition columns). Options out of range
  /// (num_indexed_cols < -1, string_prefix_length < 1) are kInvalidArgument.
  static Result<std::unique_ptr<FileStatsCollector>> Make(SchemaRef schema,
                                                          ColumnMappingMode mode,
                                                          FileStatsOptions options);
  ~FileStatsCollector();
  FileStatsCollector(const FileStatsCollector&) = delete;
  FileStatsCollector& operator=(const FileStatsCollector&) = delete;

  /// Add a batch. REQUIRES: its columns follow `schema` in order with the Arrow types of
  /// ToArrowType(kLogical) (names and nullability are not checked here).
  Status Update(const arrow::RecordBatch& batch);

  /// Take the min/max of the eligible indexed leaves from the footer of the Parquet
  /// file the batches go into; `schema` and `properties` are that file writer's.
  /// Leaves whose Parquet column is not an exact match stay on the batch path. Returns
  /// the number of leaves switched. REQUIRES: before the first Update.
  int UseParquetBounds(const parquet::SchemaDescriptor& schema,
                       const parquet::WriterProperties& properties);
  /// Fold in the row groups' min/max from the closed file's footer (same file as
  /// UseParquetBounds). A leaf whose chunk bounds are missing where it has values
  /// (never seen with Arrow's writer) gets no min/max, which is always a valid bound.
  void AddParquetBounds(const parquet::FileMetaData& metadata);

  int64_t num_records() const;
  /// The stats JSON (see the file comment).
  std::string ToJson() const;

  struct Node;

 private:
  FileStatsCollector() = default;
  std::unique_ptr<Node> root_;
  int64_t num_records_ = 0;
  int string_prefix_length_ = 32;
};

/// "yyyy-MM-dd" for days since the epoch (proleptic Gregorian; years outside 0..9999
/// get a sign and at least 4 digits, which ParseDateDays reads back).
std::string FormatDateDays(int64_t days);

/// "yyyy-MM-ddTHH:mm:ss" plus a fraction of `fraction_digits` (0, 3 or 6) digits, for
/// microseconds since the epoch (floored to the precision). No zone suffix.
std::string FormatTimestampMicros(int64_t micros, int fraction_digits);

/// Java's Double.toString / Float.toString rendering ("1.0", "1.0E10", "1.234E-5",
/// "NaN", "Infinity"), with the shortest digits that round-trip.
std::string FormatJavaDouble(double value);
std::string FormatJavaFloat(float value);

/// The min bound of a string column value: its first `prefix_length` code points.
std::string TruncateStringMin(std::string_view value, int prefix_length);
/// The max bound (see the file comment); nullopt when no bound can be built.
std::optional<std::string> TruncateStringMax(std::string_view value, int prefix_length);

}  // namespace deltaguard
