/// \file python/src/py_arrow.h
/// Arrow data across the Python boundary through the Arrow PyCapsule interface
/// (__arrow_c_stream__ / __arrow_c_array__ / __arrow_c_schema__): zero-copy, and any
/// producer or consumer that speaks it (pyarrow, polars, pandas, DuckDB, arro3) works.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/type_fwd.h>

#include <memory>

#include "py_common.h"

namespace deltaguard::python {

/// A reader over `data`: an object with __arrow_c_stream__, or __arrow_c_array__ (one
/// struct array: a record batch), or, failing both, whatever `pyarrow.table(data)`
/// accepts (a dict of columns, a pandas DataFrame). kInvalidArgument-style TypeError
/// otherwise. Needs the GIL.
std::shared_ptr<arrow::RecordBatchReader> ImportReader(nb::handle data);

/// A schema from an object with __arrow_c_schema__ (pyarrow.Schema, ...).
std::shared_ptr<arrow::Schema> ImportSchema(nb::handle schema);

/// A PyCapsule "arrow_array_stream" that owns `reader` (consumed once).
nb::object ExportReaderCapsule(std::shared_ptr<arrow::RecordBatchReader> reader);

/// A PyCapsule "arrow_schema".
nb::object ExportSchemaCapsule(const arrow::Schema& schema);

}  // namespace deltaguard::python
