/// \file deltaguard/exec/prefetch_reader.h
/// A RecordBatchReader that reads ahead on a background thread, so that decoding the
/// input overlaps with encoding the output (a write's two halves).
///
/// Invariants: batches come out in the inner reader's order; at most `depth` batches are
/// buffered (bounded memory); the first error is returned in order, after the batches
/// read before it; destroying the reader stops the thread and waits for it.
#pragma once

#include <arrow/record_batch.h>

#include <memory>

namespace deltaguard {

std::shared_ptr<arrow::RecordBatchReader> MakePrefetchingReader(
    std::shared_ptr<arrow::RecordBatchReader> inner, int depth = 2);

}  // namespace deltaguard
