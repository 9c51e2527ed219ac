/// \file deltaguard/exec/input_source.h
/// Streaming input files for writes: Parquet, CSV, NDJSON and Arrow IPC, read batch by
/// batch with bounded memory, with the table schema as a type hint for untyped text.
///
/// docs/decisions.md §1, §2: nothing is lost silently. CSV/JSON columns that match a
/// table column (case-insensitively) are parsed AS the table's type, so "007" into a
/// string column stays "007", and a value that does not parse fails the read with an
/// error naming the file, row and column; it never becomes NULL. Errors raised while
/// streaming travel through arrow::Status as a DeltaErrorDetail
/// (arrow/status.h), so FromArrowStatus gives back the Error.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/type.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

enum class InputFormat : uint8_t { kAuto, kParquet, kCsv, kJson /*NDJSON*/, kArrowIpc };

/// "parquet", "csv", "json"/"ndjson"/"jsonl", "arrow"/"ipc"/"feather", "auto"
/// (case-insensitive); anything else is kInvalidArgument.
Result<InputFormat> ParseInputFormat(std::string_view name);
std::string_view InputFormatName(InputFormat format);

struct InputOptions {
  /// kAuto: by extension (.parquet/.pq, .csv/.tsv, .json/.ndjson/.jsonl,
  /// .arrow/.ipc/.feather); another extension is kInvalidArgument naming the file.
  InputFormat format = InputFormat::kAuto;
  /// false: the CSV has no header; columns are named after `type_hint` in order (a
  /// column-count mismatch is an error), or _c0, _c1, ... without a hint.
  bool csv_header = true;
  /// ',' by default; a .tsv file read with format kAuto uses '\t'.
  char csv_delimiter = ',';
  /// CSV: a quoted value may contain line breaks (Spark's `multiLine`, off by default).
  /// Off, a line break inside a quoted field is kInvalidArgument naming the line where
  /// the quote opened; on or off, a quote still open at the end of the file is too.
  bool csv_multi_line = false;
  /// CSV and JSON: kFail refuses an ill-formed UTF-8 sequence (kInvalidArgument naming
  /// the file, line and column); kReplace stores U+FFFD in its place. Parquet and IPC
  /// inputs are always checked and refused (docs/behaviour.md "CSV and JSON input").
  enum class InvalidUtf8 : uint8_t { kFail, kReplace };
  InvalidUtf8 invalid_utf8 = InvalidUtf8::kFail;
  /// JSON: the reader's block in bytes, also the longest line (one JSON value) it reads;
  /// a longer line is kInvalidArgument naming it and this option
  /// (`--json-block-size`).
  int64_t json_block_size = int64_t{1} << 20;
  /// The table schema (may be null). CSV/JSON columns whose names match a table column
  /// case-insensitively are parsed as the table's type; unmatched columns are inferred
  /// from the first block.
  SchemaRef type_hint;
  int64_t batch_rows = 256 * 1024;
  /// Where the input files are read from (null: the local file system). Every read of
  /// an input, and the expansion of directories and globs, goes through it.
  FileSystemRef fs;
  /// Parquet only: the top-level columns a query reads (InputColumns); a Parquet file
  /// decodes only those and its batches hold only those. Unset: every column. Other
  /// formats parse whole records and keep every column.
  std::optional<std::vector<std::string>> columns;
};

/// The fields of `schema` named in `names` (case-insensitive), in the schema's order;
/// the first field when none is named (a count still needs the rows); nullopt (read
/// everything) when a name is not a field.
std::optional<std::vector<int>> InputColumns(const arrow::Schema& schema,
                                             const std::vector<std::string>& names);

/// "fail" or "replace" (case-insensitive); anything else is kInvalidArgument.
Result<InputOptions::InvalidUtf8> ParseInvalidUtf8Policy(std::string_view name);

/// An inspected input: its resolved format and the Arrow schema OpenInput will yield.
struct InputFile {
  std::string path;
  InputFormat format = InputFormat::kAuto;
  std::shared_ptr<arrow::Schema> schema;
};

/// Expand command-line arguments into input files: plain files as given, directories
/// to their data files (recursively, sorted, skipping names starting with '.' or '_'),
/// globs with '*' and '?' in the last path component. A missing file or a pattern
/// without matches is kNotFound naming it. `fs` null: the local file system.
Result<std::vector<std::string>> ExpandInputPaths(const std::vector<std::string>& args,
                                                  const FileSystemRef& fs = nullptr);

/// The format of `path` under `options` (kAuto resolved by extension).
Result<InputFormat> ResolveInputFormat(const std::string& path,
                                       const InputOptions& options);

/// The schema of an input without reading the whole file (Parquet/IPC: the footer or
/// stream header; CSV/JSON: the first block).
Result<InputFile> InspectInput(const std::string& path, const InputOptions& options);

/// A streaming reader over `file` (from InspectInput with the same options). Batches
/// follow file.schema (its InputColumns with `options.columns` for Parquet). Parquet is
/// read row group by row group, CSV/JSON block by block, IPC batch by batch. Stream
/// errors are kCorruptData (Parquet/IPC) or kParseError (CSV/JSON) and name the file and,
/// where known, the row and column.
Result<std::shared_ptr<arrow::RecordBatchReader>> OpenInput(const InputFile& file,
                                                            const InputOptions& options);

}  // namespace deltaguard
