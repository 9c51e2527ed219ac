#include "deltaguard/io/parquet/data_file_writer.h"

#include <arrow/array/data.h>
#include <arrow/array/util.h>
#include <arrow/io/buffered.h>
#include <arrow/io/interfaces.h>
#include <arrow/io/memory.h>
#include <arrow/table.h>
#include <arrow/util/byte_size.h>
#include <arrow/util/decimal.h>
#include <fmt/format.h>
#include <parquet/arrow/writer.h>
#include <parquet/properties.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "deltaguard/io/parquet/arrow_schema.h"
#include "deltaguard/io/parquet/arrow_status_internal.h"
#include "deltaguard/util/string_util.h"
#include "deltaguard/util/uuid.h"

namespace deltaguard {
namespace {

constexpr char kHiveDefaultPartition[] = "__HIVE_DEFAULT_PARTITION__";
constexpr int64_t kMaxRowGroupBytes = 128LL << 20;

// The shape used to compare an input batch with the schema: every field nullable, no
// metadata, canonical list/map child names, any time zone read as "UTC".
std::shared_ptr<arrow::DataType> Normalize(const std::shared_ptr<arrow::DataType>& t) {
  switch (t->id()) {
    case arrow::Type::STRUCT: {
      std::vector<std::shared_ptr<arrow::Field>> fields;
      for (const auto& f : t->fields())
        fields.push_back(arrow::field(f->name(), Normalize(f->type())));
      return arrow::struct_(std::move(fields));
    }
    case arrow::Type::LIST:
      return arrow::list(arrow::field("element", Normalize(t->field(0)->type())));
    case arrow::Type::MAP: {
      const auto& m = static_cast<const arrow::MapType&>(*t);
      return std::make_shared<arrow::MapType>(
          arrow::field("key", Normalize(m.key_type()), false),
          arrow::field("value", Normalize(m.item_type())));
    }
    case arrow::Type::TIMESTAMP: {
      const auto& ts = static_cast<const arrow::TimestampType&>(*t);
      if (ts.timezone().empty()) return t;
      return arrow::timestamp(ts.unit(), "UTC");
    }
    default:
      return t;
  }
}

// The file's field: optional at every level (map keys stay required), metadata kept.
std::shared_ptr<arrow::Field> MakeOptional(const std::shared_ptr<arrow::Field>& f,
                                           bool nullable = true) {
  const auto& t = f->type();
  std::shared_ptr<arrow::DataType> type = t;
  if (t->id() == arrow::Type::STRUCT) {
    std::vector<std::shared_ptr<arrow::Field>> fields;
    for (const auto& child : t->fields()) fields.push_back(MakeOptional(child));
    type = arrow::struct_(std::move(fields));
  } else if (t->id() == arrow::Type::LIST) {
    type = arrow::list(MakeOptional(t->field(0)));
  } else if (t->id() == arrow::Type::MAP) {
    const auto& m = static_cast<const arrow::MapType&>(*t);
    type = std::make_shared<arrow::MapType>(MakeOptional(m.key_field(), false),
                                            MakeOptional(m.item_field()));
  }
  return f->WithType(std::move(type))->WithNullable(nullable);
}

// Same buffers, the file's type (names/field ids/nullability differ only).
std::shared_ptr<arrow::ArrayData> Retype(const std::shared_ptr<arrow::ArrayData>& data,
                                         const std::shared_ptr<arrow::DataType>& type) {
  auto out = data->Copy();
  out->type = type;
  for (size_t i = 0; i < out->child_data.size(); ++i) {
    out->child_data[i] =
        Retype(out->child_data[i], type->field(static_cast<int>(i))->type());
  }
  return out;
}

struct Codec {
  parquet::Compression::type type;
  std::string_view file_infix;  // Spark's file-name codec part
};

Result<Codec> ParseCodec(std::string_view name) {
  std::string lower = AsciiToLower(name);
  if (lower == "snappy") return Codec{parquet::Compression::SNAPPY, ".snappy"};
  if (lower == "zstd") return Codec{parquet::Compression::ZSTD, ".zstd"};
  if (lower == "gzip") return Codec{parquet::Compression::GZIP, ".gz"};
  if (lower == "uncompressed" || lower == "none")
    return Codec{parquet::Compression::UNCOMPRESSED, ""};
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown Parquet compression '{}' (expected snappy, zstd, gzip or "
                   "uncompressed)",
                   name);
}

}  // namespace

namespace {

// arrow::io::OutputStream over a FileSystem OutputFile: the Parquet writer streams the
// file to storage instead of building it in memory. Close() publishes it.
class OutputFileStream final : public arrow::io::OutputStream {
 public:
  explicit OutputFileStream(std::unique_ptr<OutputFile> file) : file_(std::move(file)) {}
  arrow::Status Close() override {
    if (closed_) return arrow::Status::OK();
    closed_ = true;
    Status st = file_->Close();
    return st ? arrow::Status::OK() : internal::ToArrowStatus(st.error());
  }
  bool closed() const override { return closed_; }
  /// Give up the file: later writes fail, Close() does not publish, the temporary is
  /// removed when the OutputFile goes away.
  void Abandon() { closed_ = true; }
  arrow::Result<int64_t> Tell() const override { return position_; }
  arrow::Status Write(const void* data, int64_t nbytes) override {
    if (closed_) return arrow::Status::Invalid("write to a closed data file");
    Status st = file_->Append(
        std::string_view(static_cast<const char*>(data), static_cast<size_t>(nbytes)));
    if (!st) return internal::ToArrowStatus(st.error());
    position_ += nbytes;
    return arrow::Status::OK();
  }

 private:
  std::unique_ptr<OutputFile> file_;
  int64_t position_ = 0;
  bool closed_ = false;
};

}  // namespace

class DataFileWriter::Impl {
 public:
  FileSystemRef fs;
  std::string table_root;
  SchemaRef schema;
  ColumnMappingMode mode = ColumnMappingMode::kNone;
  PartitionValues partition_values;
  DataFileWriterOptions options;
  Codec codec;
  std::string directory;  // Hive partition directory, not URI-encoded
  std::shared_ptr<arrow::Schema> file_schema;
  std::vector<std::shared_ptr<arrow::DataType>> expected;  // normalized logical types
  int64_t row_group_bytes = kMaxRowGroupBytes;

  // Current file.
  std::shared_ptr<arrow::io::OutputStream> sink;  // buffered, over an OutputFile
  std::string file_path;
  OutputFileStream* raw_stream = nullptr;  // owned by `sink`

  // A writer dropped before Finish() must not publish its half-written file (the
  // Parquet writer and the buffered stream both close from their destructors).
  ~Impl() {
    if (raw_stream && writer) raw_stream->Abandon();
  }
  std::unique_ptr<parquet::arrow::FileWriter> writer;
  std::unique_ptr<FileStatsCollector> stats;
  std::string file_name;
  // Rows not yet in a row group.
  std::vector<std::shared_ptr<arrow::RecordBatch>> pending;
  int64_t pending_rows = 0;
  int64_t pending_bytes = 0;

  int file_counter = 0;
  bool finished = false;
  std::vector<WrittenFile> written;

  Status OpenFile() {
    file_name = fmt::format("part-{:05d}-{}.c000{}.parquet", file_counter++,
                            GenerateUuidV4(), codec.file_infix);
    std::string dir = directory.empty() ? table_root : JoinPath(table_root, directory);
    file_path = JoinPath(dir, file_name);
    DELTA_RETURN_IF_ERROR(fs->CreateDirs(dir));
    DELTA_ASSIGN_OR_RETURN(auto output, fs->OpenForWrite(file_path));
    auto raw = std::make_shared<OutputFileStream>(std::move(output));
    raw_stream = raw.get();
    // 1 MiB writes: few system calls, no whole-file buffer.
    DELTA_ARROW_ASSIGN_OR_RETURN(sink,
                                 arrow::io::BufferedOutputStream::Create(
                                     1 << 20, arrow::default_memory_pool(), raw),
                                 ErrorCode::kIOError, "data file " + file_name);
    auto props = parquet::WriterProperties::Builder()
                     .compression(codec.type)
                     ->version(parquet::ParquetVersion::PARQUET_2_6)
                     // Row groups are cut by FlushRowGroup, never by the writer.
                     ->max_row_group_length(std::numeric_limits<int64_t>::max())
                     ->build();
    // Columns of a row group are encoded in parallel on Arrow's CPU pool.
    auto arrow_props =
        parquet::ArrowWriterProperties::Builder().set_use_threads(true)->build();
    DELTA_ARROW_ASSIGN_OR_RETURN(
        writer,
        parquet::arrow::FileWriter::Open(*file_schema, arrow::default_memory_pool(), sink,
                                         props, arrow_props),
        ErrorCode::kInternal, "data file " + file_name);
    DELTA_ASSIGN_OR_RETURN(stats, FileStatsCollector::Make(schema, mode, options.stats));
    return OkStatus();
  }

  Status FlushRowGroup() {
    if (pending_rows == 0) return OkStatus();
    if (!writer) DELTA_RETURN_IF_ERROR(OpenFile());
    std::string context = "data file " + file_name;
    // A buffered row group fed batch by batch: with use_threads the writer encodes the
    // columns of each batch in parallel (WriteTable would encode them one by one).
    DELTA_ARROW_RETURN_NOT_OK(writer->NewBufferedRowGroup(), ErrorCode::kIOError,
                              context);
    for (const auto& batch : pending) {
      // Pending batches already carry the file schema (Write retypes them).
      DELTA_ARROW_RETURN_NOT_OK(writer->WriteRecordBatch(*batch), ErrorCode::kIOError,
                                context);
    }
    for (const auto& batch : pending) DELTA_RETURN_IF_ERROR(stats->Update(*batch));
    pending.clear();
    pending_rows = 0;
    pending_bytes = 0;
    DELTA_ARROW_ASSIGN_OR_RETURN(int64_t size, sink->Tell(), ErrorCode::kIOError,
                                 context);
    if (size >= options.target_file_size_bytes) DELTA_RETURN_IF_ERROR(CloseFile());
    return OkStatus();
  }

  Status CloseFile() {
    std::string context = "data file " + file_name;
    DELTA_ARROW_RETURN_NOT_OK(writer->Close(), ErrorCode::kIOError, context);
    writer.reset();
    // Publishes the file (atomically) once every byte is flushed.
    DELTA_ARROW_RETURN_NOT_OK(sink->Close(), ErrorCode::kIOError, context);
    sink.reset();
    raw_stream = nullptr;
    const std::string path = file_path;
    DELTA_ASSIGN_OR_RETURN(FileInfo info, fs->Stat(path));
    WrittenFile file;
    file.relative_path =
        PercentEncodePath(directory.empty() ? file_name : directory + "/" + file_name);
    file.partition_values = partition_values;
    file.size = info.size;
    file.modification_time = info.modification_time;
    file.stats_json = stats->ToJson();
    file.num_records = stats->num_records();
    stats.reset();
    written.push_back(std::move(file));
    return OkStatus();
  }

  Status Check(const arrow::RecordBatch& batch) const {
    const auto& in = *batch.schema();
    if (in.num_fields() != static_cast<int>(schema->num_fields())) {
      return MakeError(ErrorCode::kSchemaMismatch,
                       "data file writer: table has {} data columns, batch has {} ({})",
                       schema->num_fields(), in.num_fields(), in.ToString());
    }
    for (int i = 0; i < in.num_fields(); ++i) {
      const StructField& f = schema->field(static_cast<size_t>(i));
      if (in.field(i)->name() != f.name) {
        return MakeError(ErrorCode::kSchemaMismatch,
                         "data file writer: column {} is '{}' in the table, '{}' in the "
                         "batch",
                         i, f.name, in.field(i)->name());
      }
      if (!Normalize(in.field(i)->type())->Equals(*expected[static_cast<size_t>(i)])) {
        return MakeError(ErrorCode::kSchemaMismatch,
                         "data file writer: column '{}': table has {} ({}), batch has {}",
                         f.name, f.type->ToString(),
                         expected[static_cast<size_t>(i)]->ToString(),
                         in.field(i)->type()->ToString());
      }
    }
    return OkStatus();
  }
};

DataFileWriter::DataFileWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DataFileWriter::~DataFileWriter() = default;

Result<std::unique_ptr<DataFileWriter>> DataFileWriter::Make(
    FileSystemRef fs, std::string table_root, SchemaRef logical_schema,
    ColumnMappingMode mode, PartitionValues partition_values,
    DataFileWriterOptions options) {
  if (options.target_file_size_bytes < 1 || options.row_group_rows < 1) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        "data file writer: target file size ({}) and row group rows ({}) must "
        "be positive",
        options.target_file_size_bytes, options.row_group_rows);
  }
  auto impl = std::make_unique<Impl>();
  DELTA_ASSIGN_OR_RETURN(impl->codec, ParseCodec(options.compression));
  // Validate the stats options now rather than at the first row group.
  DELTA_RETURN_IF_ERROR(FileStatsCollector::Make(logical_schema, mode, options.stats));
  DELTA_ASSIGN_OR_RETURN(auto logical, ToArrowSchema(*logical_schema));
  for (const auto& f : logical->fields()) impl->expected.push_back(Normalize(f->type()));
  ArrowSchemaView view = mode == ColumnMappingMode::kNone ? ArrowSchemaView::kLogical
                                                          : ArrowSchemaView::kPhysical;
  DELTA_ASSIGN_OR_RETURN(auto physical, ToArrowSchema(*logical_schema, view));
  std::vector<std::shared_ptr<arrow::Field>> file_fields;
  for (const auto& f : physical->fields()) {
    auto field = MakeOptional(f);
    // Only field ids matter in the file; drop comments of the logical view.
    if (view == ArrowSchemaView::kLogical) field = field->RemoveMetadata();
    file_fields.push_back(std::move(field));
  }
  impl->file_schema = arrow::schema(std::move(file_fields));
  for (auto& [key, value] : partition_values) {
    if (value && value->empty()) value.reset();  // "" is null (PROTOCOL.md)
  }
  impl->directory = PartitionDirectory(partition_values);
  impl->fs = std::move(fs);
  impl->table_root = std::move(table_root);
  impl->schema = std::move(logical_schema);
  impl->mode = mode;
  impl->partition_values = std::move(partition_values);
  impl->row_group_bytes = std::min(options.target_file_size_bytes, kMaxRowGroupBytes);
  impl->options = std::move(options);
  return std::unique_ptr<DataFileWriter>(new DataFileWriter(std::move(impl)));
}

Status DataFileWriter::Write(const arrow::RecordBatch& batch) {
  Impl& s = *impl_;
  if (s.finished) {
    return MakeError(ErrorCode::kInvalidArgument, "data file writer: Write after Finish");
  }
  DELTA_RETURN_IF_ERROR(s.Check(batch));
  if (batch.num_rows() == 0) return OkStatus();
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int i = 0; i < batch.num_columns(); ++i) {
    columns.push_back(
        arrow::MakeArray(Retype(batch.column_data(i), s.file_schema->field(i)->type())));
  }
  auto file_batch = arrow::RecordBatch::Make(s.file_schema, batch.num_rows(), columns);
  DELTA_ARROW_ASSIGN_OR_RETURN(int64_t bytes, arrow::util::ReferencedBufferSize(batch),
                               ErrorCode::kInternal, "data file writer");
  const double bytes_per_row =
      static_cast<double>(bytes) / static_cast<double>(batch.num_rows());
  int64_t offset = 0;
  while (offset < batch.num_rows()) {
    int64_t room = s.options.row_group_rows - s.pending_rows;
    if (bytes_per_row > 0) {
      int64_t by_bytes =
          static_cast<int64_t>((s.row_group_bytes - s.pending_bytes) / bytes_per_row);
      room = std::min(room, std::max<int64_t>(by_bytes, 1));
    }
    int64_t n = std::min(room, batch.num_rows() - offset);
    s.pending.push_back(file_batch->Slice(offset, n));
    s.pending_rows += n;
    s.pending_bytes += static_cast<int64_t>(bytes_per_row * static_cast<double>(n));
    offset += n;
    if (s.pending_rows >= s.options.row_group_rows ||
        s.pending_bytes >= s.row_group_bytes)
      DELTA_RETURN_IF_ERROR(s.FlushRowGroup());
  }
  return OkStatus();
}

Result<std::vector<WrittenFile>> DataFileWriter::Finish() {
  Impl& s = *impl_;
  if (s.finished) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "data file writer: Finish called twice");
  }
  s.finished = true;
  DELTA_RETURN_IF_ERROR(s.FlushRowGroup());
  if (s.writer) DELTA_RETURN_IF_ERROR(s.CloseFile());
  return std::move(s.written);
}

// ---------------------------------------------------------------------------------------
// Partition values.

Result<std::optional<std::string>> EncodePartitionValue(const arrow::Scalar& value,
                                                        const DataType& type) {
  DELTA_ASSIGN_OR_RETURN(auto arrow_type, ToArrowType(type));
  if (!value.type->Equals(*arrow_type)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "partition value of type {} given as Arrow {} (expected {})",
                     type.ToString(), value.type->ToString(), arrow_type->ToString());
  }
  if (!value.is_valid) return std::optional<std::string>();
  switch (type.kind()) {
    case TypeKind::kByte:
      return fmt::format("{}", static_cast<const arrow::Int8Scalar&>(value).value);
    case TypeKind::kShort:
      return fmt::format("{}", static_cast<const arrow::Int16Scalar&>(value).value);
    case TypeKind::kInteger:
      return fmt::format("{}", static_cast<const arrow::Int32Scalar&>(value).value);
    case TypeKind::kLong:
      return fmt::format("{}", static_cast<const arrow::Int64Scalar&>(value).value);
    case TypeKind::kFloat:
      return FormatJavaFloat(static_cast<const arrow::FloatScalar&>(value).value);
    case TypeKind::kDouble:
      return FormatJavaDouble(static_cast<const arrow::DoubleScalar&>(value).value);
    case TypeKind::kDecimal:
      return static_cast<const arrow::Decimal128Scalar&>(value).value.ToString(
          static_cast<const DecimalType&>(type).scale());
    case TypeKind::kBoolean:
      return std::string(static_cast<const arrow::BooleanScalar&>(value).value ? "true"
                                                                               : "false");
    case TypeKind::kDate:
      return FormatDateDays(static_cast<const arrow::Date32Scalar&>(value).value);
    case TypeKind::kTimestamp:
      return FormatTimestampMicros(
                 static_cast<const arrow::TimestampScalar&>(value).value, 6) +
             "Z";
    case TypeKind::kTimestampNtz: {
      std::string text = FormatTimestampMicros(
          static_cast<const arrow::TimestampScalar&>(value).value, 6);
      text[text.find('T')] = ' ';
      while (text.back() == '0') text.pop_back();
      if (text.back() == '.') text.pop_back();
      return text;
    }
    case TypeKind::kString:
    case TypeKind::kBinary: {
      std::string bytes(static_cast<const arrow::BaseBinaryScalar&>(value).view());
      if (!IsValidUtf8(bytes)) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "{} partition value is not valid UTF-8", type.ToString());
      }
      if (bytes.empty()) return std::optional<std::string>();  // "" is null
      return bytes;
    }
    default:
      return MakeError(ErrorCode::kInvalidArgument,
                       "type {} cannot be a partition column", type.ToString());
  }
}

std::string EscapePartitionPathName(std::string_view s) {
  static constexpr std::string_view kSpecial = "\"#%'*/:=?\\\x7F{[]^";
  std::string out;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if ((u >= 0x01 && u < 0x20) || kSpecial.find(c) != std::string_view::npos) {
      out += fmt::format("%{:02X}", u);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string PartitionDirectory(const PartitionValues& values) {
  std::string out;
  for (const auto& [key, value] : values) {
    if (!out.empty()) out.push_back('/');
    out += EscapePartitionPathName(key);
    out.push_back('=');
    out += value && !value->empty() ? EscapePartitionPathName(*value)
                                    : std::string(kHiveDefaultPartition);
  }
  return out;
}

}  // namespace deltaguard
