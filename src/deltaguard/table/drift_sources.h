/// \file deltaguard/table/drift_sources.h
/// The two sides of a drift comparison, resolved, and the report built from them
/// (docs/drift.md): a table version, data files, an in-memory batch stream or schema
/// text. The CLI's `drift` and `diff`, SQL `DESCRIBE DRIFT` and the Python package's
/// `Table.drift` / `diff` all go through `BuildDriftReport`, so they never disagree.
/// Reads are bounded: footers and stream headers for schemas, one batch of at most
/// kDriftSampleRows rows per data side, add statistics of the latest files for a table.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "deltaguard/drift/classify.h"
#include "deltaguard/drift/compat.h"
#include "deltaguard/drift/report.h"
#include "deltaguard/exec/input_source.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// One side of a comparison.
struct DriftSource {
  std::string label;  ///< "orders@v3", "part-0.parquet", "schema text"
  DriftSide side;
  std::vector<ColumnEvidence> evidence;
  /// A data side (file, batch stream): its nullability says nothing about the column
  /// (docs/drift.md "Data inputs"), and it has no partitioning or constraints.
  bool data = false;
  /// Matched by position (headerless CSV): a reorder is high risk.
  bool positional = false;
  /// CSV/JSON inputs: the inferred types and the cast a write would need.
  std::vector<InferredColumn> inferred;
  /// A table version: the table and its version, for transitive modes.
  FileSystemRef fs;
  std::string table_root;
  int64_t version = -1;
};

/// A table at the version `snapshot` holds; `label` defaults to "<root>@v<version>".
Result<DriftSource> TableDriftSource(const FileSystemRef& fs, const Snapshot& snapshot,
                                     std::string label = "");

/// Data files, directories or globs, as `write` reads them: the schema the write would
/// see (`table` as type hint; a headerless CSV is read without it and named after the
/// table's columns by position, or by type family when the families form a
/// permutation, so a reorder is reported), value evidence from the first batch of the
/// first file, and for CSV/JSON the inferred types. The first file's schema is the
/// one compared.
Result<DriftSource> FileDriftSource(const std::vector<std::string>& inputs,
                                    InputOptions options, const SchemaRef& table,
                                    std::string label = "");

/// In-memory data (a SQL source, Python's Arrow producers): its schema in Delta types
/// and value evidence from its first batch (at most kDriftSampleRows rows are used).
/// `first_batch` may be null (an empty stream: the types still compare).
DriftSource BatchDriftSource(SchemaRef schema, const arrow::RecordBatch* first_batch,
                             std::string label);
/// The same for a stream known by its Arrow schema (mapped as a write maps it).
Result<DriftSource> ArrowBatchDriftSource(const arrow::Schema& schema,
                                          const arrow::RecordBatch* first_batch,
                                          std::string label);

/// A schema given as DDL text or Delta schema JSON (a schema side: its nullability is
/// compared).
Result<DriftSource> SchemaDriftSource(const SchemaRef& schema, std::string label);

/// `diff`'s side specification: a table (`path`, `path@v12`, `path@<timestamp>`), a
/// data file, directory or glob, a schema file, or schema text (a DDL column list or
/// Delta schema JSON). `hint` is the other side's schema (type hint for CSV/JSON).
/// kNotFound for a path that does not exist, kParseError for text that is no schema.
Result<DriftSource> ResolveDriftSource(const FileSystemRef& fs, const std::string& spec,
                                       const InputOptions& options,
                                       const SchemaRef& hint);

struct DriftReportOptions {
  /// The registry mode to judge with; none: no verdict unless fail_on is kBreaking,
  /// which judges BACKWARD (the registry default).
  std::optional<CompatMode> mode;
  /// What fails the report; none: kBreaking with a mode, else kHigh.
  std::optional<FailBar> fail_on;
};

/// Classify `before` -> `after` with both sides' evidence and judge the changes. A
/// transitive mode with a table version before judges `after` against every earlier
/// schema of the table (or, when both sides are versions of one table, every pair
/// between them); breaking changes of other pairs are appended to the changes with the
/// versions as evidence.
Result<DriftReport> BuildDriftReport(const DriftSource& before, const DriftSource& after,
                                     const DriftReportOptions& options = {});

}  // namespace deltaguard
