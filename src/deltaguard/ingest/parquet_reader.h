/// \file deltaguard/ingest/parquet_reader.h
/// Parquet files as an ingestion source (docs/ingest.md "Parquet sources"). Parquet is
/// typed, so inference reads the footers of the sample and merges their schemas (no
/// data is read), and records map to the schema column by column, by name:
///
/// - a column of the schema's type is taken as it is; a column of another type is
///   cast (Arrow's safe cast: no overflow, no truncation), and a value that does not
///   cast is NULL in its column and kept as it arrived in the rescued column;
/// - a column the schema lacks (or, with readerCaseSensitive, one that differs only by
///   case) goes to the rescued column, nested struct fields under their path;
/// - unknown columns and nested fields are reported from the footers, so evolution
///   (addNewColumns, ...WithTypeWidening) needs no data pass;
/// - rawColumn holds the record as JSON; there are no malformed records: a file that
///   is not Parquet fails the batch naming it.
#pragma once

#include <arrow/record_batch.h>

#include <memory>
#include <vector>

#include "deltaguard/ingest/reader.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// The data columns of one Parquet file, from its footer, every field nullable.
Result<SchemaRef> ParquetFileSchema(const FileSystemRef& fs, const IngestFile& file);

/// The reader of a micro-batch of Parquet files: batches of `output` (the data
/// columns, then the rescued, corrupt-record, raw and metadata columns).
Result<std::shared_ptr<arrow::RecordBatchReader>> OpenParquetIngestReader(
    FileSystemRef fs, std::vector<IngestFile> files, ReadSpec spec,
    std::shared_ptr<ReadStats> stats, std::shared_ptr<arrow::Schema> arrow_schema,
    SchemaRef output);

}  // namespace deltaguard
