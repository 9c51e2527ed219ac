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
#include <cmath>
#include <limits>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "deltaguard/io/parquet/arrow_schema.h"
#include "deltaguard/io/parquet/arrow_status_internal.h"
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

// Dictionary encoding pays only when values repeat: Parquet tries it for every
// column, hashing each value until the dictionary outgrows its page limit (1 MiB) and
// the column falls back to PLAIN, which makes nearly-unique columns (ids, measurements,
// timestamps) cost a hash-table insert per value for no gain. So the first batch is
// sampled (up to kDictionarySample rows); a primitive column (top level or inside
// structs) whose sample holds at least kDictionaryMinSample non-null values is written
// PLAIN when
//  - at least kDictionaryMaxDistinct of them are distinct, or
//  - the dictionary of a whole row group would still outgrow the page limit. The
//    number of distinct values D behind the sample is estimated as if values were
//    drawn uniformly: d distinct among n sampled values solves D * (1 - e^(-n/D)) = d
//    (the method-of-moments estimator); a row group of N rows then holds
//    D * (1 - e^(-N/D)) of them, each costing its PLAIN size in the dictionary page.
//    Skewed data looks like fewer distinct values, so the estimate errs towards
//    keeping the dictionary (the Parquet default). Such a column (say 100k customer
//    codes of 7 characters in 1M-row row groups) would hash the first few hundred
//    thousand values and then fall back anyway, and its file is about the same size
//    either way; 100k distinct 8-byte values (800 KB) keep their dictionary.
// Deterministic: it depends only on the first batch. Lists and maps keep the default.
constexpr int64_t kDictionarySample = 64 * 1024;
constexpr int64_t kDictionaryMinSample = 8 * 1024;
constexpr double kDictionaryMaxDistinct = 0.9;

// Bytes of one PLAIN value of a fixed-width Arrow type in the file: INT8/16 are stored as
// INT32, DECIMAL(p <= 9) / (p <= 18) as INT32 / INT64 (enable_store_decimal_as_integer),
// wider decimals in the fewest bytes that hold p digits.
int64_t PlainWidth(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::UINT8:
    case arrow::Type::UINT16:
      return 4;
    case arrow::Type::DECIMAL128:
    case arrow::Type::DECIMAL256: {
      const int p = static_cast<const arrow::DecimalType&>(type).precision();
      if (p <= 9) return 4;
      if (p <= 18) return 8;
      return static_cast<int64_t>(std::ceil((p * std::log2(10.0) + 1) / 8));
    }
    default:
      return static_cast<const arrow::FixedWidthType&>(type).bit_width() / 8;
  }
}

struct DistinctSample {
  int64_t non_null = 0;
  int64_t distinct = 0;
  int64_t value_bytes = 0;  // PLAIN bytes of the distinct values
  bool sampled = false;     // false: type not sampled
};

// Distinct non-null values among the first `n` of `a`.
DistinctSample CountDistinct(const arrow::Array& a, int64_t n) {
  DistinctSample out;
  const arrow::ArrayData& d = *a.data();
  auto valid = [&a](int64_t i) { return a.null_count() == 0 || a.IsValid(i); };
  std::unordered_set<std::string_view> seen;
  seen.reserve(static_cast<size_t>(n));
  // Added to each value's Arrow size: PLAIN BYTE_ARRAY has a 4-byte length first;
  // fixed-width values differ by their Parquet physical type.
  int64_t length_prefix = 0;
  if (arrow::is_base_binary_like(a.type_id())) {
    const auto& b = static_cast<const arrow::BinaryArray&>(a);
    const auto& lb = static_cast<const arrow::LargeBinaryArray&>(a);
    const bool large = arrow::is_large_binary_like(a.type_id());
    for (int64_t i = 0; i < n; ++i) {
      if (!valid(i)) continue;
      ++out.non_null;
      seen.insert(large ? lb.GetView(i) : b.GetView(i));
    }
    length_prefix = 4;
  } else {
    const auto* fixed = dynamic_cast<const arrow::FixedWidthType*>(a.type().get());
    if (fixed == nullptr || a.type_id() == arrow::Type::BOOL || d.buffers.size() < 2 ||
        !d.buffers[1]) {
      return out;
    }
    const int width = fixed->bit_width() / 8;
    const uint8_t* values = d.buffers[1]->data() + d.offset * width;
    length_prefix = PlainWidth(*a.type()) - width;  // the Parquet value's size
    for (int64_t i = 0; i < n; ++i) {
      if (!valid(i)) continue;
      ++out.non_null;
      seen.insert(std::string_view(reinterpret_cast<const char*>(values + i * width),
                                   static_cast<size_t>(width)));
    }
  }
  out.sampled = true;
  out.distinct = static_cast<int64_t>(seen.size());
  for (const auto& value : seen) {
    out.value_bytes += length_prefix + static_cast<int64_t>(value.size());
  }
  return out;
}

// Whether the dictionary of a row group of `row_group_rows` rows, shaped like the sample,
// would outgrow `limit` bytes (see above).
bool DictionaryOverflows(const DistinctSample& s, int64_t row_group_rows, int64_t limit) {
  if (s.distinct == 0) return false;
  if (s.non_null >= row_group_rows || s.distinct >= s.non_null) {
    return s.value_bytes > limit;
  }
  const double n = static_cast<double>(s.non_null);
  const double d = static_cast<double>(s.distinct);
  auto expected_distinct = [](double population, double draws) {
    return population * -std::expm1(-draws / population);
  };
  // Bisection for D (the expected distinct count grows with D towards n).
  double lo = d, hi = d;
  while (expected_distinct(hi, n) < d && hi < 1e15) hi *= 2;
  for (int i = 0; i < 100 && hi - lo > 0.5; ++i) {
    const double mid = (lo + hi) / 2;
    (expected_distinct(mid, n) < d ? lo : hi) = mid;
  }
  const double in_row_group = expected_distinct(hi, static_cast<double>(row_group_rows));
  return in_row_group * (static_cast<double>(s.value_bytes) / d) >
         static_cast<double>(limit);
}

void ChoosePlainColumns(const std::string& path, const arrow::Array& a,
                        int64_t row_group_rows, int64_t dictionary_limit,
                        parquet::WriterProperties::Builder* builder) {
  if (a.type_id() == arrow::Type::STRUCT) {
    const auto& st = static_cast<const arrow::StructArray&>(a);
    for (int i = 0; i < st.num_fields(); ++i) {
      ChoosePlainColumns(path + "." + st.struct_type()->field(i)->name(), *st.field(i),
                         row_group_rows, dictionary_limit, builder);
    }
    return;
  }
  const DistinctSample s = CountDistinct(a, std::min(a.length(), kDictionarySample));
  if (!s.sampled || s.non_null < kDictionaryMinSample) return;
  if (static_cast<double>(s.distinct) >=
          kDictionaryMaxDistinct * static_cast<double>(s.non_null) ||
      DictionaryOverflows(s, row_group_rows, dictionary_limit)) {
    builder->disable_dictionary(path);
  }
}

// `row_group_rows`: the rows a row group is expected to hold.
std::shared_ptr<parquet::WriterProperties> WriterPropertiesFor(
    parquet::Compression::type codec, const arrow::RecordBatch& first,
    int64_t row_group_rows) {
  parquet::WriterProperties::Builder builder;
  builder.compression(codec)
      ->version(parquet::ParquetVersion::PARQUET_2_6)
      // Row groups are cut by DataFileWriter, never by the Parquet writer.
      ->max_row_group_length(std::numeric_limits<int64_t>::max())
      // DECIMAL(p <= 9) as INT32 and DECIMAL(p <= 18) as INT64, as Spark writes them
      // (parquet-format LogicalTypes "DECIMAL"); cheaper to encode and to compare than
      // 16-byte FIXED_LEN_BYTE_ARRAY, and every Delta reader reads all three.
      ->enable_store_decimal_as_integer();
  const int64_t dictionary_limit = builder.build()->dictionary_pagesize_limit();
  for (int i = 0; i < first.num_columns(); ++i) {
    ChoosePlainColumns(first.schema()->field(i)->name(), *first.column(i), row_group_rows,
                       dictionary_limit, &builder);
  }
  return builder.build();
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

  Status Start(const arrow::RecordBatch& first) {
    // Rows a row group will hold: cut by rows or by bytes, whichever comes first.
    int64_t rows = options().row_group_rows;
    DELTA_ARROW_ASSIGN_OR_RETURN(int64_t bytes, arrow::util::ReferencedBufferSize(first),
                                 ErrorCode::kInternal, "data file writer");
    if (bytes > 0 && first.num_rows() > 0) {
      const double per_row =
          static_cast<double>(bytes) / static_cast<double>(first.num_rows());
      rows = std::min(
          rows,
          std::max<int64_t>(
              1, static_cast<int64_t>(static_cast<double>(row_group_bytes) / per_row)));
    }
    config.properties = WriterPropertiesFor(codec.type, first, rows);
    config.num_streams = std::max(1, options().file_streams);
    auto shared = std::make_shared<const internal::DataFileConfig>(config);
    for (int i = 0; i < config.num_streams; ++i)
      streams.push_back(std::make_unique<internal::DataFileStream>(shared, i));
    return OkStatus();
  }

  // Hand the pending rows, as the next row group, to its stream.
  // `stream` < 0: row group i goes to stream i % num_streams.
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
  // first, so that the write does not end with one stream encoding alone. Streams get
  // row groups in turn, so the one that got the last full row group finishes latest:
  // with n streams busy, each row group interval puts a stream 1/n row group of
  // encoding ahead of the next. The rows are water-filled over those estimated finish
  // times; parts under kMinSplitRowGroupRows are not cut. Deterministic: it depends
  // only on the row counts, never on timing.
  Status FlushLastRowGroups() {
    const int n = config.num_streams;
    if (pending_rows == 0) return OkStatus();
    // Finish time of each stream, in row groups, relative to the latest one.
    std::vector<double> finish(static_cast<size_t>(n), 0.0);
    for (int s = 0; s < n; ++s) {
      // Row groups since stream s got its last one (all of them: it got none).
      const int64_t since = next_row_group == 0          ? 0
                            : next_row_group - 1 - s < 0 ? next_row_group
                                                         : (next_row_group - 1 - s) % n;
      finish[static_cast<size_t>(s)] = -static_cast<double>(since) / n;
    }
    const double group_rows = next_row_group == 0
                                  ? static_cast<double>(pending_rows)
                                  : static_cast<double>(submitted_rows) / next_row_group;
    const double work = static_cast<double>(pending_rows) / group_rows;
    // Water-fill `work` over the active streams: each gets (level - its finish time)
    // if positive. While a share is too small for a row group of its own, the latest
    // of the streams that would get one drops out and the fill is redone.
    std::vector<bool> active(static_cast<size_t>(n), true);
    std::vector<int64_t> rows(static_cast<size_t>(n), 0);
    while (true) {
      std::vector<double> lows;
      for (int s = 0; s < n; ++s) {
        if (active[static_cast<size_t>(s)])
          lows.push_back(finish[static_cast<size_t>(s)]);
      }
      std::sort(lows.begin(), lows.end());
      double level = lows[0] + work;
      double below = 0;
      for (size_t k = 1; k <= lows.size(); ++k) {
        below += lows[k - 1];
        level = (work + below) / static_cast<double>(k);
        if (k == lows.size() || level <= lows[k]) break;
      }
      int latest = -1;  // the latest active stream with a share under the minimum
      for (int s = 0; s < n; ++s) {
        const auto i = static_cast<size_t>(s);
        rows[i] = 0;
        if (!active[i] || level <= finish[i]) continue;
        rows[i] = static_cast<int64_t>((level - finish[i]) * group_rows);
        if (rows[i] < kMinSplitRowGroupRows &&
            (latest < 0 || finish[i] >= finish[static_cast<size_t>(latest)])) {
          latest = s;
        }
      }
      int64_t sharing = 0;
      for (int64_t r : rows) sharing += r > 0;
      if (latest < 0 || sharing <= 1) break;
      active[static_cast<size_t>(latest)] = false;
    }
    // Rounding goes to the earliest stream (the one with the largest share).
    int64_t assigned = 0;
    for (int64_t r : rows) assigned += r;
    const auto first = static_cast<size_t>(
        std::min_element(finish.begin(), finish.end()) - finish.begin());
    rows[first] += pending_rows - assigned;
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
  if (s.streams.empty()) DELTA_RETURN_IF_ERROR(s.Start(*file_batch));
  DELTA_ARROW_ASSIGN_OR_RETURN(int64_t bytes, arrow::util::ReferencedBufferSize(batch),
                               ErrorCode::kInternal, "data file writer");
  const double bytes_per_row =
      static_cast<double>(bytes) / static_cast<double>(batch.num_rows());
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
