#include "deltaguard/io/parquet/data_file_writer.h"

#include <arrow/array.h>
#include <arrow/array/data.h>
#include <arrow/array/util.h>
#include <arrow/table.h>
#include <arrow/util/byte_size.h>
#include <arrow/util/decimal.h>
#include <fmt/format.h>
#include <parquet/properties.h>

#include <algorithm>
#include <string_view>
#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/io/parquet/data_file_layout_internal.h"
#include "deltaguard/io/parquet/data_file_stream_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

constexpr char kHiveDefaultPartition[] = "__HIVE_DEFAULT_PARTITION__";
constexpr int64_t kMaxRowGroupBytes = 128LL << 20;
// The last rows of a write are split between the streams only from this many rows per
// part: smaller row groups would cost more in per-row-group overhead than they save.
constexpr int64_t kMinSplitRowGroupRows = 64 * 1024;

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
  // A string dictionary keeps its type: the file's STRING has nothing to rename.
  if (IsStringDictionary(*data->type)) return data;
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

class DataFileWriter::Impl {
 public:
  // Fixed by Make.
  internal::DataFileConfig config;  // properties/num_streams set by the first Write
  Codec codec;
  std::vector<std::shared_ptr<arrow::DataType>> expected;  // normalized logical types
  int64_t row_group_bytes = kMaxRowGroupBytes;

  // Created by the first Write with rows.
  std::vector<std::unique_ptr<internal::DataFileStream>> streams;
  // Rows not yet in a row group.
  std::vector<std::shared_ptr<arrow::RecordBatch>> pending;
  int64_t pending_rows = 0;
  int64_t pending_bytes = 0;
  int64_t next_row_group = 0;
  int64_t submitted_rows = 0;  // rows of the row groups handed to the streams
  bool finished = false;

  const DataFileWriterOptions& options() const { return config.options; }

  // `bytes_per_row`: the first batch's in-memory size per row (as Write measures it).
  Status Start(const arrow::RecordBatch& first, double bytes_per_row) {
    // Rows a row group will hold: cut by rows or by bytes, whichever comes first.
    int64_t rows = options().row_group_rows;
    if (bytes_per_row > 0) {
      rows = std::min(
          rows,
          std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(row_group_bytes) /
                                                    bytes_per_row)));
    }
    config.properties = internal::WriterPropertiesFor(codec.type, first, rows);
    config.num_streams = std::max(1, options().file_streams);
    auto shared = std::make_shared<const internal::DataFileConfig>(config);
    for (int i = 0; i < config.num_streams; ++i)
      streams.push_back(std::make_unique<internal::DataFileStream>(shared, i));
    return OkStatus();
  }

  // Hand the pending rows, as the next row group, to its stream.
  // `stream_index` < 0: row group i goes to stream i % num_streams.
  Status FlushRowGroup(int stream_index = -1) {
    if (pending_rows == 0) return OkStatus();
    if (next_row_group == 0) {
      DELTA_RETURN_IF_ERROR(config.fs->CreateDirs(
          config.directory.empty() ? config.table_root
                                   : JoinPath(config.table_root, config.directory)));
    }
    // A failure in any stream stops the write at the next row group.
    for (const auto& stream : streams) DELTA_RETURN_IF_ERROR(stream->status());
    internal::RowGroupWork work;
    work.index = next_row_group++;
    work.batches = std::move(pending);
    pending.clear();
    submitted_rows += pending_rows;
    pending_rows = 0;
    pending_bytes = 0;
    auto& stream = *streams[static_cast<size_t>(
        stream_index >= 0 ? stream_index : work.index % config.num_streams)];
    return stream.Submit(std::move(work), options().threads);
  }

  // The rows left at the end, cut into row groups for the streams that will be free
  // first (SplitLastRows), so that the write does not end with one stream encoding
  // alone. Deterministic: it depends only on the row counts, never on timing.
  Status FlushLastRowGroups() {
    if (pending_rows == 0) return OkStatus();
    const std::vector<int64_t> rows =
        internal::SplitLastRows(next_row_group, submitted_rows, pending_rows,
                                config.num_streams, kMinSplitRowGroupRows);
    const int n = config.num_streams;
    std::vector<std::shared_ptr<arrow::RecordBatch>> input = std::move(pending);
    pending.clear();
    const double bytes_per_row =
        static_cast<double>(pending_bytes) / static_cast<double>(pending_rows);
    pending_rows = 0;
    pending_bytes = 0;
    size_t batch = 0;
    int64_t offset = 0;  // within input[batch]
    for (int s = 0; s < n; ++s) {
      int64_t want = rows[static_cast<size_t>(s)];
      while (want > 0) {
        const auto& b = input[batch];
        const int64_t take = std::min(want, b->num_rows() - offset);
        pending.push_back(b->Slice(offset, take));
        pending_rows += take;
        want -= take;
        offset += take;
        if (offset == b->num_rows()) {
          ++batch;
          offset = 0;
        }
      }
      pending_bytes =
          static_cast<int64_t>(bytes_per_row * static_cast<double>(pending_rows));
      DELTA_RETURN_IF_ERROR(FlushRowGroup(s));
    }
    return OkStatus();
  }

  // Every stream's files, ordered by their first row group.
  std::vector<internal::StreamFile> TakeFiles() {
    std::vector<internal::StreamFile> files;
    for (const auto& stream : streams) {
      for (auto& f : stream->TakeFiles()) files.push_back(std::move(f));
    }
    std::stable_sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
      return a.first_row_group < b.first_row_group;
    });
    return files;
  }

  // Stop every stream and delete every file published so far.
  void Abort() {
    for (const auto& stream : streams) stream->Abandon();
    for (const auto& f : TakeFiles()) {
      auto decoded = PercentDecode(f.file.relative_path);
      if (!decoded) continue;
      (void)config.fs->Delete(JoinPath(config.table_root, *decoded));
    }
    pending.clear();
    finished = true;
  }

  Status Check(const arrow::RecordBatch& batch) const {
    const auto& in = *batch.schema();
    const StructType& schema = *config.schema;
    if (in.num_fields() != static_cast<int>(schema.num_fields())) {
      return MakeError(ErrorCode::kSchemaMismatch,
                       "data file writer: table has {} data columns, batch has {} ({})",
                       schema.num_fields(), in.num_fields(), in.ToString());
    }
    for (int i = 0; i < in.num_fields(); ++i) {
      const StructField& f = schema.field(static_cast<size_t>(i));
      if (in.field(i)->name() != f.name) {
        return MakeError(ErrorCode::kSchemaMismatch,
                         "data file writer: column {} is '{}' in the table, '{}' in the "
                         "batch",
                         i, f.name, in.field(i)->name());
      }
      std::shared_ptr<arrow::DataType> type = in.field(i)->type();
      if (IsStringDictionary(*type)) type = arrow::utf8();  // written as STRING values
      if (!Normalize(type)->Equals(*expected[static_cast<size_t>(i)])) {
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
  if (options.target_file_size_bytes < 1 || options.row_group_rows < 1 ||
      options.file_streams < 1) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        "data file writer: target file size ({}), row group rows ({}) and file streams "
        "({}) must be positive",
        options.target_file_size_bytes, options.row_group_rows, options.file_streams);
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
  internal::DataFileConfig& c = impl->config;
  c.file_schema = arrow::schema(std::move(file_fields));
  for (auto& [key, value] : partition_values) {
    if (value && value->empty()) value.reset();  // "" is null (PROTOCOL.md)
  }
  c.directory = PartitionDirectory(partition_values);
  c.fs = std::move(fs);
  c.table_root = std::move(table_root);
  c.schema = std::move(logical_schema);
  c.mode = mode;
  c.partition_values = std::move(partition_values);
  c.file_infix = std::string(impl->codec.file_infix);
  impl->row_group_bytes = std::min(options.target_file_size_bytes, kMaxRowGroupBytes);
  c.options = std::move(options);
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
    columns.push_back(arrow::MakeArray(
        Retype(batch.column_data(i), s.config.file_schema->field(i)->type())));
  }
  auto file_batch =
      arrow::RecordBatch::Make(s.config.file_schema, batch.num_rows(), columns);
  DELTA_ARROW_ASSIGN_OR_RETURN(int64_t bytes, arrow::util::ReferencedBufferSize(batch),
                               ErrorCode::kInternal, "data file writer");
  const double bytes_per_row =
      static_cast<double>(bytes) / static_cast<double>(batch.num_rows());
  if (s.streams.empty()) DELTA_RETURN_IF_ERROR(s.Start(*file_batch, bytes_per_row));
  int64_t offset = 0;
  while (offset < batch.num_rows()) {
    int64_t room = s.options().row_group_rows - s.pending_rows;
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
    if (s.pending_rows >= s.options().row_group_rows ||
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
  Status st = s.FlushLastRowGroups();
  // Streams close their last files in parallel.
  if (st) {
    for (const auto& stream : s.streams) stream->RequestFinish();
  }
  for (const auto& stream : s.streams) {
    Status done = st ? stream->Finish() : OkStatus();
    if (st && !done) st = done;
  }
  if (!st) {
    s.Abort();  // nothing of a failed writer survives
    return st.error();
  }
  s.finished = true;
  std::vector<WrittenFile> files;
  for (auto& f : s.TakeFiles()) files.push_back(std::move(f.file));
  return files;
}

void DataFileWriter::Abort() {
  if (!impl_->finished) impl_->Abort();
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
      return TrimFractionZeros(std::move(text));
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
