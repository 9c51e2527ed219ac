#include "deltaguard/exec/input_source.h"

#include <arrow/compute/cast.h>
#include <arrow/csv/api.h>
#include <arrow/ipc/reader.h>
#include <arrow/json/api.h>
#include <fmt/format.h>
#include <parquet/arrow/reader.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <utility>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/text_stream_internal.h"
#include "deltaguard/exec/text_values_internal.h"
#include "deltaguard/exec/utf8_check_internal.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/io/parquet/parquet_file.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {

using internal::FromArrowStatus;
using internal::ToArrowStatus;

namespace {

/// What the user can do about an Arrow CSV/JSON error, by its wording ("" if nothing).
std::string ThirdPartyHint(std::string_view message) {
  if (message.find("Empty CSV file") != std::string_view::npos) {
    return "; the file (or its first block) has no header line: a CSV input needs one "
           "(or --no-header with at least one row)";
  }
  if (message.find("Expected ") != std::string_view::npos &&
      message.find(" columns, got ") != std::string_view::npos) {
    return "; every row must have as many fields as the header: quote values that "
           "contain the delimiter, or check --delimiter";
  }
  if (message.find("magic bytes") != std::string_view::npos) {
    return "; the file is not Parquet: check its extension, or name the format with "
           "--format";
  }
  if (message.find("size is 0 bytes") != std::string_view::npos) {
    return "; the file is empty";
  }
  if (message.find("deserialize thrift") != std::string_view::npos ||
      message.find("footer") != std::string_view::npos) {
    return "; the file is truncated or corrupt (an interrupted copy?): write it again";
  }
  if (message.find("straddl") != std::string_view::npos) {
    return "; one record is larger than the reader's block (for JSON, raise "
           "`--json-block-size BYTES`, InputOptions::json_block_size)";
  }
  return "";
}

// ---------------------------------------------------------------------------------
// The reader every format goes through: re-chunks to batch_rows, converts text
// columns to table types and turns Arrow errors into Errors naming the file.

using NextBatchFn = std::function<arrow::Status(std::shared_ptr<arrow::RecordBatch>*)>;

class InputBatchReader final : public arrow::RecordBatchReader {
 public:
  InputBatchReader(std::string path, ErrorCode code,
                   std::shared_ptr<arrow::Schema> schema, NextBatchFn next,
                   std::vector<TextColumnConversion> conversions, int64_t batch_rows,
                   bool check_utf8)
      : path_(std::move(path)),
        code_(code),
        schema_(std::move(schema)),
        next_(std::move(next)),
        conversions_(std::move(conversions)),
        batch_rows_(std::max<int64_t>(batch_rows, 1)),
        check_utf8_(check_utf8) {}

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    *out = nullptr;
    if (pending_ == nullptr || pending_offset_ >= pending_->num_rows()) {
      pending_ = nullptr;
      pending_offset_ = 0;
      std::shared_ptr<arrow::RecordBatch> batch;
      while (true) {
        arrow::Status st = next_(&batch);
        if (!st.ok()) return ToArrowStatus(StreamError(st));
        if (batch == nullptr) return arrow::Status::OK();  // end of input
        if (batch->num_rows() > 0) break;
      }
      if (check_utf8_) {
        Status valid = CheckUtf8Columns(*batch, path_, rows_read_);
        if (!valid) return ToArrowStatus(valid.error());
      }
      auto converted =
          ConvertTextColumns(batch, conversions_, schema_, path_, rows_read_);
      if (!converted) return ToArrowStatus(converted.error());
      pending_ = std::move(*converted);
    }
    int64_t n = std::min(batch_rows_, pending_->num_rows() - pending_offset_);
    *out = (pending_offset_ == 0 && n == pending_->num_rows())
               ? pending_
               : pending_->Slice(pending_offset_, n);
    pending_offset_ += n;
    rows_read_ += n;
    return arrow::Status::OK();
  }

 private:
  Error StreamError(const arrow::Status& st) const {
    if (HasDeltaDetail(st)) return FromArrowStatus(st, code_, "");
    // A third-party message may quote input bytes: escape and bound it.
    arrow::Status safe = st.WithMessage(EscapeForMessage(st.message(), 500));
    Error e = FromArrowStatus(safe, code_,
                              fmt::format("input file '{}'", EscapeForMessage(path_)));
    e.message += fmt::format(" (in the block after row {}){}", rows_read_,
                             ThirdPartyHint(st.message()));
    return e;
  }
  static bool HasDeltaDetail(const arrow::Status& st) {
    return st.detail() != nullptr &&
           std::string_view(st.detail()->type_id()) == "deltaguard::DeltaErrorDetail";
  }

  std::string path_;
  ErrorCode code_;
  std::shared_ptr<arrow::Schema> schema_;
  NextBatchFn next_;
  std::vector<TextColumnConversion> conversions_;
  int64_t batch_rows_;
  bool check_utf8_;
  std::shared_ptr<arrow::RecordBatch> pending_;
  int64_t pending_offset_ = 0;
  int64_t rows_read_ = 0;
};

/// Everything needed to open (and describe) one input.
struct OpenedInput {
  std::shared_ptr<arrow::Schema> schema;  ///< after text conversions
  NextBatchFn next;
  std::vector<TextColumnConversion> conversions;
};

// Every input is read through the FileSystem seam (InputOptions::fs, null: local).
Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputFile(
    const std::string& path, const InputOptions& options) {
  FileSystemRef fs = options.fs != nullptr ? options.fs : MakeLocalFileSystem();
  auto file = FileSystemRandomAccessFile::Open(std::move(fs), path);
  if (!file) {
    Error e = file.error();
    e.message = fmt::format("cannot open input file '{}': {}", path, e.message);
    return tl::unexpected(std::move(e));
  }
  return std::shared_ptr<arrow::io::RandomAccessFile>(std::move(*file));
}

/// A CSV (`csv_delimiter` set) or JSON file read through the checks of
/// text_stream_internal.h.
Result<std::shared_ptr<arrow::io::InputStream>> OpenText(
    const std::string& path, const InputOptions& options,
    std::optional<char> csv_delimiter) {
  DELTA_ASSIGN_OR_RETURN(auto file, OpenInputFile(path, options));
  TextStreamChecks checks;
  checks.path = path;
  checks.replace_invalid_utf8 =
      options.invalid_utf8 == InputOptions::InvalidUtf8::kReplace;
  if (csv_delimiter) {
    checks.csv = true;
    checks.csv_delimiter = *csv_delimiter;
    checks.csv_multi_line = options.csv_multi_line;
  } else {
    checks.json_lines = true;
    checks.max_line_bytes = options.json_block_size;
    checks.max_line_hint =
        "the block size (`--json-block-size BYTES`, InputOptions::json_block_size)";
  }
  return MakeCheckedTextStream(std::move(file), std::move(checks));
}

Result<int32_t> JsonBlockSize(const InputOptions& options) {
  constexpr int64_t kMax = int64_t{1} << 30;
  if (options.json_block_size < 1024 || options.json_block_size > kMax) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the JSON block size must be between 1024 bytes and 1 GiB, got {}",
                     options.json_block_size);
  }
  return static_cast<int32_t>(options.json_block_size);
}

/// An Arrow error from opening a CSV/JSON reader (which reads the first block), with
/// the file named and its input bytes escaped; a DeltaErrorDetail passes unchanged.
Error OpenError(const arrow::Status& st, const std::string& path,
                std::string_view format) {
  if (st.detail() != nullptr &&
      std::string_view(st.detail()->type_id()) == "deltaguard::DeltaErrorDetail") {
    return FromArrowStatus(st, ErrorCode::kParseError, "");
  }
  Error e = FromArrowStatus(
      st.WithMessage(EscapeForMessage(st.message(), 500)), ErrorCode::kParseError,
      fmt::format("cannot read {} file '{}'", format, EscapeForMessage(path)));
  e.message += ThirdPartyHint(st.message());
  return e;
}

Result<OpenedInput> OpenParquet(const std::string& path, const InputOptions& options) {
  DELTA_RETURN_IF_ERROR(InitializeArrowCompute());
  // Columns decode in parallel on the CPU pool: input decoding is half of a write.
  auto props = DefaultArrowReaderProperties(/*use_threads=*/true, options.batch_rows);
  auto opened =
      OpenParquetFile(options.fs != nullptr ? options.fs : MakeLocalFileSystem(), path,
                      props, ErrorCode::kCorruptData);
  if (!opened) {
    Error e = opened.error();
    e.message += ThirdPartyHint(e.message);
    return tl::unexpected(std::move(e));
  }
  std::shared_ptr<parquet::arrow::FileReader> reader = std::move(*opened);
  std::string context = fmt::format("cannot read Parquet file '{}'", path);
  // Row group by row group: the reader decodes one row group's columns at a time, only
  // the columns a query reads.
  std::optional<std::vector<int>> fields;
  if (options.columns) {
    std::shared_ptr<arrow::Schema> schema;
    DELTA_ARROW_RETURN_NOT_OK(reader->GetSchema(&schema), ErrorCode::kCorruptData,
                              context);
    fields = InputColumns(*schema, *options.columns);
  }
  arrow::Result<std::unique_ptr<arrow::RecordBatchReader>> opened_batches;
  if (fields) {
    std::vector<int> leaves;
    for (const int f : *fields) {
      CollectParquetLeaves(reader->manifest().schema_fields[static_cast<size_t>(f)],
                           &leaves);
    }
    std::vector<int> row_groups(static_cast<size_t>(reader->num_row_groups()));
    for (size_t g = 0; g < row_groups.size(); ++g) row_groups[g] = static_cast<int>(g);
    opened_batches = reader->GetRecordBatchReader(row_groups, leaves);
  } else {
    opened_batches = reader->GetRecordBatchReader();
  }
  DELTA_ARROW_ASSIGN_OR_RETURN(std::shared_ptr<arrow::RecordBatchReader> batches,
                               std::move(opened_batches), ErrorCode::kCorruptData,
                               context);
  OpenedInput out;
  out.schema = batches->schema();
  out.next = [reader, batches](std::shared_ptr<arrow::RecordBatch>* b) {
    return batches->ReadNext(b);
  };
  return out;
}

Result<OpenedInput> OpenIpc(const std::string& path, const InputOptions& options) {
  DELTA_ASSIGN_OR_RETURN(auto file, OpenInputFile(path, options));
  std::string context = fmt::format("cannot read Arrow IPC file '{}'", path);
  auto file_reader = arrow::ipc::RecordBatchFileReader::Open(file);
  OpenedInput out;
  if (file_reader.ok()) {
    std::shared_ptr<arrow::ipc::RecordBatchFileReader> reader = *file_reader;
    out.schema = reader->schema();
    auto index = std::make_shared<int>(0);
    out.next = [reader, index](std::shared_ptr<arrow::RecordBatch>* b) {
      *b = nullptr;
      if (*index >= reader->num_record_batches()) return arrow::Status::OK();
      ARROW_ASSIGN_OR_RAISE(*b, reader->ReadRecordBatch((*index)++));
      return arrow::Status::OK();
    };
    return out;
  }
  // Not the file format: try the streaming format from the start.
  DELTA_ARROW_RETURN_NOT_OK(file->Seek(0), ErrorCode::kIOError, context);
  auto stream_reader = arrow::ipc::RecordBatchStreamReader::Open(file);
  if (!stream_reader.ok()) {
    return FromArrowStatus(stream_reader.status(), ErrorCode::kCorruptData,
                           fmt::format("{} (neither the IPC file nor the stream format; "
                                       "as a file: {})",
                                       context, file_reader.status().message()));
  }
  std::shared_ptr<arrow::RecordBatchReader> reader = *stream_reader;
  out.schema = reader->schema();
  out.next = [reader, file](std::shared_ptr<arrow::RecordBatch>* b) {
    return reader->ReadNext(b);
  };
  return out;
}

/// The table column matching `name` case-insensitively, or nullptr.
const StructField* HintFor(const InputOptions& options, const std::string& name) {
  if (options.type_hint == nullptr) return nullptr;
  int i = options.type_hint->FieldIndexCaseInsensitive(name);
  return i < 0 ? nullptr : &options.type_hint->field(static_cast<size_t>(i));
}

arrow::csv::ConvertOptions CsvConvertOptions() {
  auto convert = arrow::csv::ConvertOptions::Defaults();
  // Spark: an empty field is NULL in every column; a quoted "" is the empty string.
  convert.null_values = {""};
  convert.strings_can_be_null = true;
  convert.quoted_strings_can_be_null = false;
  return convert;
}

Result<OpenedInput> OpenCsv(const std::string& path, const InputOptions& options,
                            char delimiter) {
  std::string context = fmt::format("cannot read CSV file '{}'", path);
  auto read = arrow::csv::ReadOptions::Defaults();
  read.use_threads = false;
  read.autogenerate_column_names = !options.csv_header;
  if (delimiter == '"' || delimiter == '\n' || delimiter == '\r') {
    return MakeError(ErrorCode::kInvalidArgument,
                     "CSV delimiter {} cannot be a quote or a line break",
                     EscapeForMessage(std::string(1, delimiter)));
  }
  auto parse = arrow::csv::ParseOptions::Defaults();
  parse.delimiter = delimiter;
  parse.newlines_in_values = options.csv_multi_line;
  auto convert = CsvConvertOptions();
  // The bytes are checked as they are read (text_stream_internal.h), with their line.
  convert.check_utf8 = false;
  auto io_context = arrow::io::default_io_context();

  // Probe the first block for the column names and the inferred types.
  DELTA_ASSIGN_OR_RETURN(auto probe_file, OpenText(path, options, delimiter));
  auto probed =
      arrow::csv::StreamingReader::Make(io_context, probe_file, read, parse, convert);
  if (!probed.ok()) return OpenError(probed.status(), path, "CSV");
  std::shared_ptr<arrow::csv::StreamingReader> probe = *probed;
  std::shared_ptr<arrow::Schema> inferred = probe->schema();
  DELTA_ARROW_RETURN_NOT_OK(probe_file->Close(), ErrorCode::kIOError, context);

  std::vector<std::string> names;
  for (const auto& f : inferred->fields()) names.push_back(f->name());
  if (!options.csv_header) {
    if (options.type_hint != nullptr) {
      if (options.type_hint->num_fields() != names.size()) {
        return MakeError(ErrorCode::kSchemaMismatch,
                         "headerless CSV file '{}' has {} columns but the table has {}; "
                         "positional columns must match the table's columns one to one",
                         path, names.size(), options.type_hint->num_fields());
      }
      for (size_t i = 0; i < names.size(); ++i)
        names[i] = options.type_hint->field(i).name;
    } else {
      for (size_t i = 0; i < names.size(); ++i) names[i] = fmt::format("_c{}", i);
    }
    read.column_names = names;
    read.autogenerate_column_names = false;
  }

  OpenedInput out;
  arrow::FieldVector fields;
  for (size_t i = 0; i < names.size(); ++i) {
    const StructField* hint = HintFor(options, names[i]);
    std::shared_ptr<arrow::DataType> read_type =
        inferred->field(static_cast<int>(i))->type();
    std::shared_ptr<arrow::DataType> out_type = read_type;
    if (hint != nullptr && hint->type->is_primitive() &&
        hint->type->kind() != TypeKind::kVoid) {
      // Parse as text, then convert to the table's type ourselves (exact errors).
      DELTA_ASSIGN_OR_RETURN(
          auto conversion, MakeTextConversion(static_cast<int>(i), names[i], hint->type));
      read_type = arrow::utf8();
      if (conversion) {
        out_type = conversion->output_type;
        out.conversions.push_back(std::move(*conversion));
      } else {
        out_type = read_type;
      }
    } else if (read_type->id() == arrow::Type::NA) {
      read_type = out_type = arrow::utf8();  // all empty in the first block
    }
    convert.column_types[names[i]] = read_type;
    fields.push_back(arrow::field(names[i], out_type));
  }
  out.schema = arrow::schema(std::move(fields));

  DELTA_ASSIGN_OR_RETURN(auto file, OpenText(path, options, delimiter));
  auto made = arrow::csv::StreamingReader::Make(io_context, file, read, parse, convert);
  if (!made.ok()) return OpenError(made.status(), path, "CSV");
  std::shared_ptr<arrow::csv::StreamingReader> reader = *made;
  out.next = [reader, names](std::shared_ptr<arrow::RecordBatch>* b) {
    arrow::Status st = reader->ReadNext(b);
    return st.ok() ? st : NameCsvColumn(st, names);
  };
  return out;
}

Result<OpenedInput> OpenJson(const std::string& path, const InputOptions& options) {
  std::string context = fmt::format("cannot read JSON file '{}'", path);
  auto read = arrow::json::ReadOptions::Defaults();
  read.use_threads = false;
  DELTA_ASSIGN_OR_RETURN(read.block_size, JsonBlockSize(options));
  auto parse = arrow::json::ParseOptions::Defaults();
  // Every line is checked before Arrow's reader parses it (text_stream_internal.h).
  DELTA_ASSIGN_OR_RETURN(auto probe_file, OpenText(path, options, std::nullopt));
  auto probed = arrow::json::StreamingReader::Make(probe_file, read, parse);
  if (!probed.ok()) return OpenError(NameJsonLine(probed.status(), 0), path, "JSON");
  std::shared_ptr<arrow::json::StreamingReader> probe = *probed;
  std::shared_ptr<arrow::Schema> inferred = probe->schema();
  DELTA_ARROW_RETURN_NOT_OK(probe_file->Close(), ErrorCode::kIOError, context);

  OpenedInput out;
  arrow::FieldVector read_fields;
  arrow::FieldVector out_fields;
  for (int i = 0; i < inferred->num_fields(); ++i) {
    const std::string& name = inferred->field(i)->name();
    const StructField* hint = HintFor(options, name);
    std::shared_ptr<arrow::DataType> read_type = inferred->field(i)->type();
    std::shared_ptr<arrow::DataType> out_type = read_type;
    if (hint != nullptr) {
      DELTA_ASSIGN_OR_RETURN(auto json_type, JsonReadType(i, name, hint->type));
      if (json_type.read_type != nullptr) {
        read_type = json_type.read_type;
        out_type = read_type;
        if (json_type.conversion) {
          out_type = json_type.conversion->output_type;
          out.conversions.push_back(std::move(*json_type.conversion));
        }
      }
    }
    read_fields.push_back(arrow::field(name, read_type));
    out_fields.push_back(arrow::field(name, out_type));
  }
  parse.explicit_schema = arrow::schema(std::move(read_fields));
  // A key first seen after the first block would change the schema mid-stream; fail
  // rather than drop it.
  parse.unexpected_field_behavior = arrow::json::UnexpectedFieldBehavior::Error;
  out.schema = arrow::schema(std::move(out_fields));

  DELTA_ASSIGN_OR_RETURN(auto file, OpenText(path, options, std::nullopt));
  // Make reads the first block, so its errors get their line too.
  auto made = arrow::json::StreamingReader::Make(file, read, parse);
  if (!made.ok()) return OpenError(NameJsonLine(made.status(), 0), path, "JSON");
  std::shared_ptr<arrow::json::StreamingReader> reader = *made;
  auto rows = std::make_shared<int64_t>(0);
  out.next = [reader, rows](std::shared_ptr<arrow::RecordBatch>* b) {
    arrow::Status st = reader->ReadNext(b);
    if (!st.ok()) return NameJsonLine(st, *rows);
    if (*b != nullptr) *rows += (*b)->num_rows();
    return st;
  };
  return out;
}

Result<OpenedInput> OpenAny(const std::string& path, InputFormat format,
                            const InputOptions& options) {
  switch (format) {
    case InputFormat::kParquet:
      return OpenParquet(path, options);
    case InputFormat::kArrowIpc:
      return OpenIpc(path, options);
    case InputFormat::kCsv: {
      char delimiter = options.csv_delimiter;
      if (options.format == InputFormat::kAuto && delimiter == ',' &&
          AsciiToLower(PathExtension(path)) == ".tsv") {
        delimiter = '\t';
      }
      return OpenCsv(path, options, delimiter);
    }
    case InputFormat::kJson:
      return OpenJson(path, options);
    case InputFormat::kAuto:
      break;
  }
  return MakeError(ErrorCode::kInternal, "input file '{}': unresolved format", path);
}

}  // namespace

Result<InputFile> InspectInput(const std::string& path, const InputOptions& options) {
  DELTA_ASSIGN_OR_RETURN(InputFormat format, ResolveInputFormat(path, options));
  DELTA_ASSIGN_OR_RETURN(OpenedInput opened, OpenAny(path, format, options));
  return InputFile{path, format, std::move(opened.schema)};
}

std::optional<std::vector<int>> InputColumns(const arrow::Schema& schema,
                                             const std::vector<std::string>& names) {
  std::vector<int> fields;
  for (const auto& name : names) {
    int at = -1;
    for (int i = 0; i < schema.num_fields() && at < 0; ++i) {
      if (EqualsIgnoreCase(schema.field(i)->name(), name)) at = i;
    }
    if (at < 0) return std::nullopt;
    fields.push_back(at);
  }
  std::sort(fields.begin(), fields.end());
  fields.erase(std::unique(fields.begin(), fields.end()), fields.end());
  if (fields.empty() && schema.num_fields() > 0) fields.push_back(0);
  return fields;
}

Result<std::shared_ptr<arrow::RecordBatchReader>> OpenInput(const InputFile& file,
                                                            const InputOptions& options) {
  InputFormat format = file.format;
  if (format == InputFormat::kAuto) {
    DELTA_ASSIGN_OR_RETURN(format, ResolveInputFormat(file.path, options));
  }
  DELTA_ASSIGN_OR_RETURN(OpenedInput opened, OpenAny(file.path, format, options));
  std::shared_ptr<arrow::Schema> expected = file.schema;
  if (expected != nullptr && format == InputFormat::kParquet && options.columns) {
    if (auto fields = InputColumns(*expected, *options.columns)) {
      arrow::FieldVector kept;
      for (const int f : *fields) kept.push_back(expected->field(f));
      expected = arrow::schema(std::move(kept), expected->metadata());
    }
  }
  if (expected != nullptr && !expected->Equals(*opened.schema, false)) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        "input file '{}' changed since it was inspected: schema was {}, is {}", file.path,
        file.schema->ToString(), opened.schema->ToString());
  }
  ErrorCode code = (format == InputFormat::kCsv || format == InputFormat::kJson)
                       ? ErrorCode::kParseError
                       : ErrorCode::kCorruptData;
  return std::make_shared<InputBatchReader>(
      file.path, code, std::move(opened.schema), std::move(opened.next),
      std::move(opened.conversions), options.batch_rows,
      /*check_utf8=*/code == ErrorCode::kCorruptData);
}

}  // namespace deltaguard
