/// \file deltaguard/ingest/parallel_reader.h
/// Reading a micro-batch's files on several threads: the files are dealt to workers
/// (each file to the one with the fewest bytes so far, in listing order), each worker
/// runs its own reader (ingest/reader.h) over its files, and batches are taken from
/// the workers in turn, so the order of rows is the same on every run.
///
/// Invariants: each worker buffers at most `depth` batches (memory stays bounded by
/// the batch size, not the backlog); the counts of every worker are added to the
/// shared ReadStats before the end (or an error) is returned; when a worker stops
/// for new columns (UNKNOWN_FIELD_EXCEPTION), the others finish their scan first, so
/// the stats list every new column of the batch; any other error stops the others.
#pragma once

#include <arrow/record_batch.h>

#include <functional>
#include <memory>
#include <vector>

#include "deltaguard/ingest/reader.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// Opens one worker's reader over `files`, counting into `stats`.
using OpenWorkerReader = std::function<Result<std::shared_ptr<arrow::RecordBatchReader>>(
    std::vector<IngestFile> files, std::shared_ptr<ReadStats> stats)>;

/// A reader over `files` on `workers` threads (>= 2, at most the number of files).
Result<std::shared_ptr<arrow::RecordBatchReader>> OpenParallelReader(
    const std::vector<IngestFile>& files, int workers, std::shared_ptr<ReadStats> stats,
    std::shared_ptr<arrow::Schema> schema, const OpenWorkerReader& open, int depth = 2);

/// How many workers to read `files` with: `requested` when positive, else one per
/// core (at most 4) when the files are several and hold at least `min_bytes`; 1
/// means one thread.
int IngestWorkers(const std::vector<IngestFile>& files, int requested, int64_t min_bytes);

}  // namespace deltaguard
