/// \file deltaguard/ingest/reader.h
/// Reading the files of one micro-batch into record batches of the ingest schema:
/// JSON lines (or whole-file JSON with multiLine), CSV and text, read in blocks through
/// the FileSystem so memory stays bounded by the batch size, not the file size.
///
/// Every record lands: fields that do not fit go to the rescued column
/// (ingest/values.h); a malformed record (invalid JSON, a CSV row with the wrong number
/// of fields) is kept whole in the corrupt-record column, or in the rescued column as
/// {"_corrupt_record": text, "_line": n, "_file_path": path}; with mode FAILFAST it is
/// an error naming the file and line, and with DROPMALFORMED it is counted and left
/// out. With neither column to keep it, a malformed record is an error: it would be
/// lost (docs/ingest.md "Malformed records").
#pragma once

#include <arrow/record_batch.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "deltaguard/ingest/options.h"
#include "deltaguard/ingest/values.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// A source file of a micro-batch, as listed.
struct IngestFile {
  std::string path;  ///< full path, as the FileSystem takes it
  int64_t size = 0;
  int64_t modification_time = 0;  ///< milliseconds since the epoch
  /// `/key=value/` directories of the path, for cloudFiles.partitionColumns.
  std::vector<std::pair<std::string, std::string>> partition_values;
};

/// What to read and how.
struct ReadSpec {
  IngestOptions options;
  /// The data columns (the schema location's newest schema; partition columns
  /// included, filled from the path).
  SchemaRef data_schema;
  /// Whether an unknown field (or a value of another type) changes the schema: at
  /// the first one the reader stops adding rows and only looks for more of them, and
  /// the batch fails (addNewColumns, failOnNewColumns, ...WithTypeWidening). Null:
  /// nothing does (rescue, none).
  std::function<bool(const UnknownField&)> evolves;
  int64_t batch_rows = 64 * 1024;
  /// Reader threads (ingest/parallel_reader.h); 0: one per core (at most 4) when the
  /// batch has several files and at least `parallel_min_bytes`.
  int parallelism = 0;
  int64_t parallel_min_bytes = 16 << 20;
  int64_t ingested_at_micros = 0;  ///< the _ingested_at value
  /// The columns a query reads (SQL's read_files), by name, case-insensitive; unset:
  /// all. When set, and it names neither the rescued nor the raw column (which see
  /// every column of a record), a Parquet reader decodes only the data columns named
  /// and its batches hold only the named columns of IngestOutputSchema, in its order.
  /// Other formats parse whole records anyway and keep IngestOutputSchema.
  std::optional<std::vector<std::string>> columns;
};

/// Counts of one micro-batch's read, filled as the reader goes.
struct ReadStats {
  int64_t files = 0;
  int64_t rows = 0;
  int64_t bytes = 0;
  int64_t rescued_rows = 0;
  int64_t malformed_rows = 0;  ///< kept in the corrupt-record or rescued column
  int64_t dropped_rows = 0;    ///< DROPMALFORMED
  /// Fields the schema lacks (and, with report_mismatches, values of another type),
  /// merged by path; in order of first sight.
  std::vector<UnknownField> unknown;
};

/// How values are read under `options` (the readers' and inference's one mapping).
ValueOptions IngestValueOptions(const IngestOptions& options);

/// The columns the reader produces: the data columns, then the rescued, corrupt-record
/// and raw columns when set, then the metadata columns asked for.
Result<SchemaRef> IngestOutputSchema(const ReadSpec& spec);

/// Where each column of IngestOutputSchema sits: the data columns the records fill
/// (`record`, their schema `record_schema`), those read from `key=value` directories
/// (`partition`), and the extra columns (-1: absent).
struct IngestLayout {
  std::vector<size_t> record;
  std::vector<size_t> partition;
  SchemaRef record_schema;
  int rescued = -1, corrupt = -1, raw = -1;
  std::vector<std::pair<std::string, int>> metadata;  ///< name, index
};
IngestLayout MakeIngestLayout(const ReadSpec& spec);

/// Which columns of IngestOutputSchema a Parquet reader of `spec` produces
/// (ReadSpec::columns), one flag per column; empty: all of them (no columns set, a
/// name that is not an output column, the rescued or raw column named, or not
/// Parquet).
std::vector<bool> IngestProjection(const ReadSpec& spec);

/// `schema` narrowed to the columns `keep` marks (empty: all).
std::shared_ptr<arrow::Schema> ProjectSchema(const std::shared_ptr<arrow::Schema>& schema,
                                             const std::vector<bool>& keep);

/// A reader over `files`, in order. Errors (a file that vanished, FAILFAST, a
/// malformed record with nowhere to go) name the file and line. When the spec says
/// `evolves` and such fields were seen, the reader ends with kSchemaMismatch after
/// every file was looked at, so `stats->unknown` lists all of them.
Result<std::shared_ptr<arrow::RecordBatchReader>> OpenIngestReader(
    FileSystemRef fs, std::vector<IngestFile> files, ReadSpec spec,
    std::shared_ptr<ReadStats> stats);

/// UNKNOWN_FIELD_EXCEPTION naming the fields of `unknown` that `evolves` says change
/// the schema: how a reader ends a batch that evolves it.
Error NewFieldsError(const std::vector<UnknownField>& unknown,
                     const std::function<bool(const UnknownField&)>& evolves);

/// Adds `field` to `list`, merging with an entry of the same path (case-insensitive).
void MergeUnknownField(UnknownField field, std::vector<UnknownField>* list);

}  // namespace deltaguard
