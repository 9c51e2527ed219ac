/// \file deltaguard/sql/query.h
/// Plan and run a SELECT over its source (a table at a version, a temp view, a WITH
/// query, a file function, inline VALUES, a subquery, a join of those (query_join.cc),
/// or none) with projections, WHERE, GROUP BY with count/sum/min/max/avg, HAVING,
/// DISTINCT, ORDER BY and LIMIT; and set operations of such queries (query_set.cc).
///
/// Planning binds every expression (expr/binder.h) and fixes the output schema without
/// reading data, so an INSERT can check schemas before anything is written and a
/// semantic error names the column and both types before any file is opened. Running
/// streams: scan -> filter -> project -> limit never holds more than a few batches;
/// GROUP BY, DISTINCT and ORDER BY hold their input (their memory is the result's, or
/// the sorted input's, size; past QueryContext::memory's limit held rows spill, docs/
/// sql.md "Memory and spilling").
///
/// Output column names follow Spark: the alias, else the column's own name for a
/// column reference (`t.a` -> `a`), else the expression's canonical SQL
/// (expr/printer.h), e.g. `count(1)`, `(amount * 2)`.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/type_fwd.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "deltaguard/exec/query_memory.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/sql/catalog.h"
#include "deltaguard/sql/parse/statement.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// A planned query: its schema and a way to run it (once or more).
struct QueryPlan {
  /// Delta types and nullability of the output columns, with their output names.
  SchemaRef schema;
  std::shared_ptr<arrow::Schema> arrow_schema;
  /// Runs the query; each call starts from the beginning (sources are reopened).
  std::function<Result<std::shared_ptr<arrow::RecordBatchReader>>()> open;
  /// "delta.`/x` version 3", "read_csv('in/*.csv')", "VALUES" (for messages).
  std::string source_name;
  /// Each output row depends on one input row only (no aggregate, DISTINCT, ORDER BY
  /// or LIMIT): the query may run batch by batch over a stream.
  bool row_by_row = false;
};

/// A WITH query as planned where it was defined (sql/query_set.cc); each reference
/// runs it again. `columns` rename its columns when the WITH clause lists them.
struct CtePlan {
  QueryPlan plan;
  std::vector<std::string> columns;
};

/// The rows of one micro-batch of a stream: the columns the ingestion reads (data,
/// rescued and metadata columns) and the reader of its rows (opened once).
struct StreamBatch {
  SchemaRef schema;
  std::function<Result<std::shared_ptr<arrow::RecordBatchReader>>()> open;
};

/// Everything a query reads besides its text. Views are keyed lower-case.
struct QueryContext {
  FileSystemRef fs;
  const Catalog* catalog = nullptr;
  std::string current_database = "default";
  const std::map<std::string, SelectRef>* temp_views = nullptr;
  /// Arrow data registered as temp views by a front end (Python's
  /// Session.register), keyed lower-case; SQL temp views of the same name win.
  const std::map<std::string, std::shared_ptr<arrow::Table>>* data_views = nullptr;
  /// The statement's instant for current_date()/current_timestamp(), microseconds since
  /// the epoch, fixed once per statement as Spark does.
  int64_t now_micros = 0;
  /// The micro-batch a streaming INSERT is writing (docs/ingest.md "SQL"): what its
  /// `STREAM read_files(...)` source reads. Null: such a source is refused.
  const StreamBatch* stream_batch = nullptr;
  /// The WITH queries in scope, keyed lower-case; they shadow views and tables.
  const std::map<std::string, CtePlan>* ctes = nullptr;
  /// The statement's RAM budget for rows its joins, windows, sorts and set operations
  /// hold (`deltaguard.query.memoryLimit`); past it they spill (docs/sql.md "Memory
  /// and spilling"). Null: no limit.
  QueryMemoryRef memory;
};

struct PlanOptions {
  /// INSERT ... VALUES: when set and the query is a bare VALUES list (or SELECT * over
  /// one), column i of the VALUES is typed as field i of this struct: literals convert
  /// exactly (numbers that fit, strings to DATE/TIMESTAMP/DECIMAL by parsing); a value
  /// that does not fit is kInvalidArgument naming the row, the column and both types,
  /// never a NULL. Other expressions keep their own type (the write then enforces).
  const StructType* values_target = nullptr;
};

/// Errors: kNotFound for a missing table, view, file or column (naming it and the
/// available columns); kSchemaMismatch for type errors (column and both types);
/// kInvalidArgument for misuse (a non-aggregated column outside GROUP BY, an unknown
/// function argument, ...).
Result<QueryPlan> PlanQuery(const SelectStmt& query, const QueryContext& context,
                            const PlanOptions& options = {});

/// Run a plan and collect every row.
Result<std::shared_ptr<arrow::Table>> CollectQuery(const QueryPlan& plan);

}  // namespace deltaguard
