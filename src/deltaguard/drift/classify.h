/// \file deltaguard/drift/classify.h
/// The drift classifier: a pure function from two schemas (with their partitioning,
/// constraints and column-mapping state) and optional evidence from the data to a list
/// of classified changes (drift/change.h). Column changes come from DiffSchemas
/// (schema/schema_diff.h); this layer names each one with its class, risk and
/// compatibility, and adds the heuristic classes (COLUMN_RENAME_SUSPECTED,
/// COLUMN_ALL_NULL), which are reported with a score and their evidence and never
/// acted on (docs/drift.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/drift/change.h"
#include "deltaguard/protocol/metadata.h"
#include "deltaguard/schema/data_type.h"

namespace deltaguard {

/// One side of a comparison. Partitioning and constraints are compared only when both
/// sides know them (a data file has neither).
struct DriftSide {
  SchemaRef schema;
  std::optional<std::vector<std::string>> partition_columns;
  /// CHECK constraints as (name, expression text), e.g. from DriftConstraints.
  std::optional<std::vector<std::pair<std::string, std::string>>> constraints;
  /// The table uses column mapping (delta.columnMapping.mode name or id): fields carry
  /// ids and a rename keeps the column's identity.
  bool column_mapping = false;
};

/// The table side of a comparison from its metaData: schema, partition columns,
/// `delta.constraints.*` and column mapping. kCorruptLog when the schema does not parse.
Result<DriftSide> DriftSideFromMetadata(const Metadata& metadata);
/// The same with the schema already parsed from `metadata.schema_string` (a caller
/// that replays the log has it), so it is not parsed twice.
DriftSide DriftSideFromMetadata(const Metadata& metadata, SchemaRef schema);

/// What is known about one column's values on one side. Counts come from file
/// statistics (add-action stats or Parquet footers); min/max are the values' text (as
/// in Delta stats JSON, numbers unquoted); samples are a bounded sample of values.
struct ColumnEvidence {
  std::string path;  ///< FormatColumnPath form, as DriftChange::path
  std::optional<int64_t> null_count;
  std::optional<int64_t> num_records;
  std::optional<std::string> min;
  std::optional<std::string> max;
  std::vector<std::string> samples;
};

struct DriftEvidence {
  std::vector<ColumnEvidence> before;
  std::vector<ColumnEvidence> after;
  /// The new side is matched by position (headerless CSV, INSERT without a column
  /// list): a reorder puts values into the wrong columns, so it is high risk.
  bool positional = false;
  /// The new side is data (a file, not a table): its nullability says nothing about
  /// the column (Spark makes input nullable, docs/spark_semantics.md §5.2), so no
  /// NULLABILITY_* change is reported and added columns count as nullable.
  bool ignore_new_nullability = false;
};

/// Rename suspicions below this score are not reported.
inline constexpr double kRenameSuspicionThreshold = 0.5;

/// Classify every change from `before` to `after`, in DiffSchemas order (added,
/// renamed, type, nullability, comment, metadata per field, moves and removals per
/// struct), then partitioning, constraints, and the heuristic classes. Each change has
/// its class's default risk (a reorder of a positional input is high) and its
/// BACKWARD/FORWARD compatibility (drift/compat.h documents the rules).
std::vector<DriftChange> ClassifyDrift(const DriftSide& before, const DriftSide& after,
                                       const DriftEvidence& evidence = {});

/// How alike two column names are, in [0, 1]: the better of the edit-distance ratio and
/// the share of the shorter name's `_`/case-separated words that equal or abbreviate
/// (are a prefix of) a word of the other ("cust_id" vs "customer_id" -> 1.0).
double NameSimilarity(std::string_view a, std::string_view b);

}  // namespace deltaguard
