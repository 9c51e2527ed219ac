/// \file deltaguard/ingest/options.h
/// The options of an incremental ingestion, under Auto Loader's names so that what
/// users know carries over (docs/ingest.md "Options"). Every key is checked: an
/// unknown key, or a value of the wrong form, is kInvalidArgument naming the key.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

enum class IngestFormat : uint8_t { kJson, kCsv, kText, kParquet };
std::string_view IngestFormatName(IngestFormat format);
Result<IngestFormat> ParseIngestFormat(std::string_view name);

/// cloudFiles.schemaEvolutionMode (docs/ingest.md "Evolution modes").
enum class EvolutionMode : uint8_t {
  kAddNewColumns,                  ///< fail the batch, record the new columns, pick them
                                   ///< up on the next run
  kAddNewColumnsWithTypeWidening,  ///< and widen types within Delta's widening list
  kRescue,            ///< never evolve; unknown fields go to the rescued column
  kFailOnNewColumns,  ///< fail, evolve nothing
  kNone,              ///< ignore new columns (rescued when a column is set)
};
std::string_view EvolutionModeName(EvolutionMode mode);

/// How a malformed record (a broken JSON line, a CSV row with the wrong number of
/// fields) is handled: Spark's `mode` option.
enum class ParseMode : uint8_t {
  kPermissive,     ///< kept: the record's text in the corrupt-record column (or rescued)
  kFailFast,       ///< the batch fails naming the file and line; nothing committed
  kDropMalformed,  ///< dropped and counted in the progress
};

struct IngestOptions {
  IngestFormat format = IngestFormat::kJson;
  std::string schema_location;  ///< "": <checkpoint>/_schemas's parent (the checkpoint)
  std::optional<EvolutionMode> evolution_mode;  ///< unset: by whether a schema is given
  std::string schema_hints;         ///< "amount DECIMAL(10,2), tags MAP<STRING,STRING>"
  bool infer_column_types = false;  ///< false: text formats infer every leaf as STRING
  int64_t sample_files = 1000;
  int64_t sample_bytes = int64_t{50} << 30;
  int64_t max_files_per_trigger = 1000;
  int64_t max_bytes_per_trigger = 0;  ///< 0: no byte limit (a soft limit, as Spark's)
  bool include_existing_files = true;
  std::vector<std::string> partition_columns;  ///< from /key=value/ directories
  std::string path_glob_filter;                ///< on the file name, '*' and '?'
  /// rescuedDataColumn: "" = none; set by default when the schema is inferred.
  std::optional<std::string> rescued_data_column;
  bool reader_case_sensitive = true;
  /// A user-given schema (DDL); unset: inferred and kept in the schema location.
  std::string schema;
  ParseMode mode = ParseMode::kPermissive;
  std::string corrupt_record_column;  ///< columnNameOfCorruptRecord ("": rescued only)
  std::string raw_column;             ///< rawColumn: each record's text, verbatim
  /// Columns describing the source (docs/ingest.md "Metadata columns"): any of
  /// _metadata (struct of file_path, file_name, file_size, file_modification_time),
  /// _source_file, _ingested_at.
  std::vector<std::string> metadata_columns;

  // Reader options (CSV and JSON).
  bool header = true;
  char delimiter = ',';
  char quote = '"';
  char escape = '\\';
  bool multi_line = false;
  std::string timestamp_format;  ///< Spark pattern; "": ISO 8601
  std::string date_format;       ///< Spark pattern; "": yyyy-MM-dd
  std::string null_value;        ///< CSV: this text is NULL ("" by default)

  EvolutionMode EffectiveMode() const {
    return evolution_mode.value_or(schema.empty() ? EvolutionMode::kAddNewColumns
                                                  : EvolutionMode::kNone);
  }
  /// The rescued column's name, or "" when there is none.
  std::string RescuedColumn() const {
    if (rescued_data_column) return *rescued_data_column;
    return schema.empty() ? "_rescued_data" : "";
  }
};

/// Options from `key=value` pairs (Auto Loader's names, case-insensitive keys;
/// `cloudFiles.format` and `format` alike). Later pairs override earlier ones.
Result<IngestOptions> ParseIngestOptions(
    const std::vector<std::pair<std::string, std::string>>& pairs);

/// One hint of cloudFiles.schemaHints: a column path and its type.
struct SchemaHint {
  std::vector<std::string> path;  ///< {"customer", "id"} for `customer.id BIGINT`
  DataTypeRef type;
};

/// "amount DECIMAL(10,2), customer.id BIGINT, tags MAP<STRING,STRING>": entries split
/// at commas outside brackets, each a column path (dotted; backticks quote a name)
/// and a DDL type. kParseError naming the entry otherwise.
Result<std::vector<SchemaHint>> ParseSchemaHints(std::string_view text);

/// The keys ParseIngestOptions accepts, for help and error messages.
const std::vector<std::string>& IngestOptionKeys();

/// The options as key=value text, in a stable order: what the checkpoint records so a
/// restart can tell when they changed.
std::string DescribeIngestOptions(const IngestOptions& options);

}  // namespace deltaguard
