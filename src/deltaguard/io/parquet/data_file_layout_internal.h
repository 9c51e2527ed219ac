/// \file deltaguard/io/parquet/data_file_layout_internal.h
/// How a DataFileWriter lays out its data, as pure functions (internal to io/parquet,
/// unit-tested on their own): the Parquet writer properties of a write (codec, which
/// columns skip dictionary encoding) and how the rows left at Finish are split between
/// the encoding streams.
#pragma once

#include <arrow/record_batch.h>
#include <parquet/properties.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace deltaguard::internal {

/// The writer properties for a write whose first batch is `first` and whose row groups
/// hold about `row_group_rows` rows: `codec`, Parquet format 2.6, row groups cut only by
/// the caller, DECIMAL(p <= 18) as INT32/INT64, and dictionary encoding disabled for the
/// columns that would not profit from it (data_file_layout.cc). Deterministic: depends
/// only on the arguments.
std::shared_ptr<parquet::WriterProperties> WriterPropertiesFor(
    parquet::Compression::type codec, const arrow::RecordBatch& first,
    int64_t row_group_rows);

/// Distinct values expected among `rows` rows when `sampled` non-null values held
/// `distinct` distinct ones, assuming values drawn uniformly (method of moments).
double EstimateDistinct(int64_t sampled, int64_t distinct, int64_t rows);

/// Rows for each of `num_streams` streams out of the `pending_rows` left at Finish, when
/// `row_groups` row groups holding `submitted_rows` rows were dealt round-robin before
/// (row group i to stream i % num_streams). The stream that got the last one finishes
/// latest; with every stream busy, each earlier row group puts a stream 1/num_streams of
/// a row group ahead. The rows are water-filled over those finish times; a stream whose
/// share would be under `min_rows` gets none (the latest such drops out first, and the
/// fill is redone), and what rounding leaves goes to the earliest stream. The result
/// sums to `pending_rows`.
std::vector<int64_t> SplitLastRows(int64_t row_groups, int64_t submitted_rows,
                                   int64_t pending_rows, int num_streams,
                                   int64_t min_rows);

}  // namespace deltaguard::internal
