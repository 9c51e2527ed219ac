#include "deltaguard/io/parquet/checkpoint_writer.h"

#include <arrow/array/builder_binary.h>
#include <arrow/array/builder_nested.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/builder.h>
#include <arrow/io/memory.h>
#include <arrow/record_batch.h>
#include <arrow/table.h>
#include <fmt/format.h>
#include <parquet/arrow/writer.h>
#include <parquet/properties.h>

#include <charconv>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "deltaguard/arrow/status.h"
#include "deltaguard/log/log_path.h"
#include "deltaguard/protocol/protocol.h"
#include "deltaguard/util/string_util.h"
#include "deltaguard/util/uuid.h"

namespace deltaguard {
namespace {

constexpr int64_t kDefaultCheckpointInterval = 10;
constexpr std::string_view kDefaultDeletedFileRetention = "interval 1 week";
// Spark leaves nonFileActions out of _last_checkpoint beyond this many actions
// (LastCheckpointInfo: the hint must stay small).
constexpr size_t kMaxNonFileActionsInHint = 30;

// ---------------------------------------------------------------------------------------
// Arrow types of the checkpoint columns, as Spark writes them (all fields nullable).

std::shared_ptr<arrow::DataType> StringMapType() {
  return arrow::map(arrow::utf8(), arrow::utf8());
}

std::shared_ptr<arrow::DataType> StringListType() {
  return arrow::list(arrow::field("element", arrow::utf8()));
}

std::shared_ptr<arrow::DataType> DvType() {
  return arrow::struct_({arrow::field("storageType", arrow::utf8()),
                         arrow::field("pathOrInlineDv", arrow::utf8()),
                         arrow::field("offset", arrow::int32()),
                         arrow::field("sizeInBytes", arrow::int32()),
                         arrow::field("cardinality", arrow::int64()),
                         arrow::field("maxRowIndex", arrow::int64())});
}

// Column order inside the file and in Columns::builders.
enum Column : int {
  kTxn,
  kAdd,
  kRemove,
  kMetaData,
  kProtocol,
  kDomainMetadata,
  kCheckpointMetadata,
};

std::shared_ptr<arrow::Schema> CheckpointSchema(const Protocol& protocol, bool v2) {
  std::vector<std::shared_ptr<arrow::Field>> protocol_fields = {
      arrow::field("minReaderVersion", arrow::int32()),
      arrow::field("minWriterVersion", arrow::int32())};
  if (protocol.reader_features) {
    protocol_fields.push_back(arrow::field("readerFeatures", StringListType()));
  }
  if (protocol.writer_features) {
    protocol_fields.push_back(arrow::field("writerFeatures", StringListType()));
  }
  std::vector<std::shared_ptr<arrow::Field>> fields = {
      arrow::field("txn", arrow::struct_({arrow::field("appId", arrow::utf8()),
                                          arrow::field("version", arrow::int64()),
                                          arrow::field("lastUpdated", arrow::int64())})),
      arrow::field(
          "add", arrow::struct_({arrow::field("path", arrow::utf8()),
                                 arrow::field("partitionValues", StringMapType()),
                                 arrow::field("size", arrow::int64()),
                                 arrow::field("modificationTime", arrow::int64()),
                                 arrow::field("dataChange", arrow::boolean()),
                                 arrow::field("tags", StringMapType()),
                                 arrow::field("deletionVector", DvType()),
                                 arrow::field("baseRowId", arrow::int64()),
                                 arrow::field("defaultRowCommitVersion", arrow::int64()),
                                 arrow::field("clusteringProvider", arrow::utf8()),
                                 arrow::field("stats", arrow::utf8())})),
      arrow::field(
          "remove",
          arrow::struct_({arrow::field("path", arrow::utf8()),
                          arrow::field("deletionTimestamp", arrow::int64()),
                          arrow::field("dataChange", arrow::boolean()),
                          arrow::field("extendedFileMetadata", arrow::boolean()),
                          arrow::field("partitionValues", StringMapType()),
                          arrow::field("size", arrow::int64()),
                          arrow::field("deletionVector", DvType()),
                          arrow::field("baseRowId", arrow::int64()),
                          arrow::field("defaultRowCommitVersion", arrow::int64())})),
      arrow::field(
          "metaData",
          arrow::struct_(
              {arrow::field("id", arrow::utf8()), arrow::field("name", arrow::utf8()),
               arrow::field("description", arrow::utf8()),
               arrow::field("format",
                            arrow::struct_({arrow::field("provider", arrow::utf8()),
                                            arrow::field("options", StringMapType())})),
               arrow::field("schemaString", arrow::utf8()),
               arrow::field("partitionColumns", StringListType()),
               arrow::field("configuration", StringMapType()),
               arrow::field("createdTime", arrow::int64())})),
      arrow::field("protocol", arrow::struct_(protocol_fields)),
      arrow::field("domainMetadata",
                   arrow::struct_({arrow::field("domain", arrow::utf8()),
                                   arrow::field("configuration", arrow::utf8()),
                                   arrow::field("removed", arrow::boolean())})),
  };
  if (v2) {
    fields.push_back(arrow::field(
        "checkpointMetadata", arrow::struct_({arrow::field("version", arrow::int64()),
                                              arrow::field("tags", StringMapType())})));
  }
  return arrow::schema(std::move(fields));
}

// ---------------------------------------------------------------------------------------
// Typed appends. Builders are reached by field position in the types above.

template <typename B>
B* Child(arrow::StructBuilder* s, int i) {
  return static_cast<B*>(s->field_builder(i));
}

arrow::Status AppendOpt(arrow::StringBuilder* b, const std::optional<std::string>& v) {
  return v ? b->Append(*v) : b->AppendNull();
}
arrow::Status AppendOpt(arrow::Int64Builder* b, const std::optional<int64_t>& v) {
  return v ? b->Append(*v) : b->AppendNull();
}
arrow::Status AppendOpt(arrow::Int32Builder* b, const std::optional<int32_t>& v) {
  return v ? b->Append(*v) : b->AppendNull();
}
arrow::Status AppendOpt(arrow::BooleanBuilder* b, const std::optional<bool>& v) {
  return v ? b->Append(*v) : b->AppendNull();
}

// An empty map is written as null when `empty_as_null` (tags: Spark omits empty ones).
arrow::Status AppendMap(arrow::MapBuilder* b, const StringMap& map, bool empty_as_null) {
  if (map.empty() && empty_as_null) return b->AppendNull();
  ARROW_RETURN_NOT_OK(b->Append());
  auto* keys = static_cast<arrow::StringBuilder*>(b->key_builder());
  auto* values = static_cast<arrow::StringBuilder*>(b->item_builder());
  for (const auto& [key, value] : map) {
    ARROW_RETURN_NOT_OK(keys->Append(key));
    ARROW_RETURN_NOT_OK(values->Append(value));
  }
  return arrow::Status::OK();
}

// Partition values keep JSON nulls as null map values (PROTOCOL.md "Partition Value
// Serialization": null partition values are null, not "").
arrow::Status AppendPartitionValues(arrow::MapBuilder* b, const PartitionValues& values) {
  ARROW_RETURN_NOT_OK(b->Append());
  auto* keys = static_cast<arrow::StringBuilder*>(b->key_builder());
  auto* items = static_cast<arrow::StringBuilder*>(b->item_builder());
  for (const auto& [key, value] : values) {
    ARROW_RETURN_NOT_OK(keys->Append(key));
    ARROW_RETURN_NOT_OK(AppendOpt(items, value));
  }
  return arrow::Status::OK();
}

arrow::Status AppendList(arrow::ListBuilder* b, const std::vector<std::string>& list) {
  ARROW_RETURN_NOT_OK(b->Append());
  auto* items = static_cast<arrow::StringBuilder*>(b->value_builder());
  for (const auto& item : list) ARROW_RETURN_NOT_OK(items->Append(item));
  return arrow::Status::OK();
}

arrow::Status AppendDv(arrow::StructBuilder* b,
                       const std::optional<DeletionVectorDescriptor>& dv) {
  if (!dv) return b->AppendNull();
  ARROW_RETURN_NOT_OK(b->Append());
  ARROW_RETURN_NOT_OK(
      Child<arrow::StringBuilder>(b, 0)->Append(std::string(1, dv->storage_type)));
  ARROW_RETURN_NOT_OK(Child<arrow::StringBuilder>(b, 1)->Append(dv->path_or_inline_dv));
  ARROW_RETURN_NOT_OK(AppendOpt(Child<arrow::Int32Builder>(b, 2), dv->offset));
  ARROW_RETURN_NOT_OK(Child<arrow::Int32Builder>(b, 3)->Append(dv->size_in_bytes));
  ARROW_RETURN_NOT_OK(Child<arrow::Int64Builder>(b, 4)->Append(dv->cardinality));
  return AppendOpt(Child<arrow::Int64Builder>(b, 5), dv->max_row_index);
}

// Checkpoint rows carry dataChange=false (PROTOCOL.md "Checkpoints": the state, not a
// change).
arrow::Status AppendAdd(arrow::StructBuilder* b, const AddFile& add) {
  ARROW_RETURN_NOT_OK(b->Append());
  ARROW_RETURN_NOT_OK(Child<arrow::StringBuilder>(b, 0)->Append(add.path));
  ARROW_RETURN_NOT_OK(
      AppendPartitionValues(Child<arrow::MapBuilder>(b, 1), add.partition_values));
  ARROW_RETURN_NOT_OK(Child<arrow::Int64Builder>(b, 2)->Append(add.size));
  ARROW_RETURN_NOT_OK(Child<arrow::Int64Builder>(b, 3)->Append(add.modification_time));
  ARROW_RETURN_NOT_OK(Child<arrow::BooleanBuilder>(b, 4)->Append(false));
  ARROW_RETURN_NOT_OK(AppendMap(Child<arrow::MapBuilder>(b, 5), add.tags, true));
  ARROW_RETURN_NOT_OK(AppendDv(Child<arrow::StructBuilder>(b, 6), add.deletion_vector));
  ARROW_RETURN_NOT_OK(AppendOpt(Child<arrow::Int64Builder>(b, 7), add.base_row_id));
  ARROW_RETURN_NOT_OK(
      AppendOpt(Child<arrow::Int64Builder>(b, 8), add.default_row_commit_version));
  ARROW_RETURN_NOT_OK(
      AppendOpt(Child<arrow::StringBuilder>(b, 9), add.clustering_provider));
  return AppendOpt(Child<arrow::StringBuilder>(b, 10), add.stats);
}

arrow::Status AppendRemove(arrow::StructBuilder* b, const RemoveFile& rm) {
  ARROW_RETURN_NOT_OK(b->Append());
  ARROW_RETURN_NOT_OK(Child<arrow::StringBuilder>(b, 0)->Append(rm.path));
  ARROW_RETURN_NOT_OK(AppendOpt(Child<arrow::Int64Builder>(b, 1), rm.deletion_timestamp));
  ARROW_RETURN_NOT_OK(Child<arrow::BooleanBuilder>(b, 2)->Append(false));
  ARROW_RETURN_NOT_OK(
      AppendOpt(Child<arrow::BooleanBuilder>(b, 3), rm.extended_file_metadata));
  auto* pv = Child<arrow::MapBuilder>(b, 4);
  ARROW_RETURN_NOT_OK(rm.partition_values
                          ? AppendPartitionValues(pv, *rm.partition_values)
                          : pv->AppendNull());
  ARROW_RETURN_NOT_OK(AppendOpt(Child<arrow::Int64Builder>(b, 5), rm.size));
  ARROW_RETURN_NOT_OK(AppendDv(Child<arrow::StructBuilder>(b, 6), rm.deletion_vector));
  ARROW_RETURN_NOT_OK(AppendOpt(Child<arrow::Int64Builder>(b, 7), rm.base_row_id));
  return AppendOpt(Child<arrow::Int64Builder>(b, 8), rm.default_row_commit_version);
}

arrow::Status AppendMetadata(arrow::StructBuilder* b, const Metadata& md) {
  ARROW_RETURN_NOT_OK(b->Append());
  ARROW_RETURN_NOT_OK(Child<arrow::StringBuilder>(b, 0)->Append(md.id));
  ARROW_RETURN_NOT_OK(AppendOpt(Child<arrow::StringBuilder>(b, 1), md.name));
  ARROW_RETURN_NOT_OK(AppendOpt(Child<arrow::StringBuilder>(b, 2), md.description));
  auto* format = Child<arrow::StructBuilder>(b, 3);
  ARROW_RETURN_NOT_OK(format->Append());
  ARROW_RETURN_NOT_OK(Child<arrow::StringBuilder>(format, 0)->Append(md.format.provider));
  ARROW_RETURN_NOT_OK(
      AppendMap(Child<arrow::MapBuilder>(format, 1), md.format.options, false));
  ARROW_RETURN_NOT_OK(Child<arrow::StringBuilder>(b, 4)->Append(md.schema_string));
  ARROW_RETURN_NOT_OK(AppendList(Child<arrow::ListBuilder>(b, 5), md.partition_columns));
  ARROW_RETURN_NOT_OK(AppendMap(Child<arrow::MapBuilder>(b, 6), md.configuration, false));
  return AppendOpt(Child<arrow::Int64Builder>(b, 7), md.created_time);
}

arrow::Status AppendProtocol(arrow::StructBuilder* b, const Protocol& p) {
  ARROW_RETURN_NOT_OK(b->Append());
  ARROW_RETURN_NOT_OK(Child<arrow::Int32Builder>(b, 0)->Append(p.min_reader_version));
  ARROW_RETURN_NOT_OK(Child<arrow::Int32Builder>(b, 1)->Append(p.min_writer_version));
  int next = 2;  // the feature columns exist only when the lists do
  if (p.reader_features) {
    ARROW_RETURN_NOT_OK(
        AppendList(Child<arrow::ListBuilder>(b, next++), *p.reader_features));
  }
  if (p.writer_features) {
    ARROW_RETURN_NOT_OK(
        AppendList(Child<arrow::ListBuilder>(b, next++), *p.writer_features));
  }
  return arrow::Status::OK();
}

arrow::Status AppendTxn(arrow::StructBuilder* b, const SetTransaction& txn) {
  ARROW_RETURN_NOT_OK(b->Append());
  ARROW_RETURN_NOT_OK(Child<arrow::StringBuilder>(b, 0)->Append(txn.app_id));
  ARROW_RETURN_NOT_OK(Child<arrow::Int64Builder>(b, 1)->Append(txn.version));
  return AppendOpt(Child<arrow::Int64Builder>(b, 2), txn.last_updated);
}

arrow::Status AppendDomain(arrow::StructBuilder* b, const DomainMetadata& dm) {
  ARROW_RETURN_NOT_OK(b->Append());
  ARROW_RETURN_NOT_OK(Child<arrow::StringBuilder>(b, 0)->Append(dm.domain));
  ARROW_RETURN_NOT_OK(Child<arrow::StringBuilder>(b, 1)->Append(dm.configuration));
  return Child<arrow::BooleanBuilder>(b, 2)->Append(dm.removed);
}

arrow::Status AppendCheckpointMetadata(arrow::StructBuilder* b,
                                       const CheckpointMetadata& cm) {
  ARROW_RETURN_NOT_OK(b->Append());
  ARROW_RETURN_NOT_OK(Child<arrow::Int64Builder>(b, 0)->Append(cm.version));
  return AppendMap(Child<arrow::MapBuilder>(b, 1), cm.tags, true);
}

// ---------------------------------------------------------------------------------------

// Builds the rows of one checkpoint and encodes them as Parquet in memory. Invariant:
// every column builder holds `rows_` entries; each row has exactly one non-null column.
class CheckpointEncoder {
 public:
  CheckpointEncoder(std::shared_ptr<arrow::Schema> schema, int64_t row_group_rows)
      : schema_(std::move(schema)), row_group_rows_(row_group_rows) {}

  arrow::Status Open() {
    for (const auto& field : schema_->fields()) {
      std::unique_ptr<arrow::ArrayBuilder> builder;
      ARROW_RETURN_NOT_OK(
          arrow::MakeBuilder(arrow::default_memory_pool(), field->type(), &builder));
      builders_.emplace_back(static_cast<arrow::StructBuilder*>(builder.release()));
    }
    ARROW_ASSIGN_OR_RAISE(sink_, arrow::io::BufferOutputStream::Create());
    auto props = parquet::WriterProperties::Builder()
                     .compression(parquet::Compression::SNAPPY)
                     ->version(parquet::ParquetVersion::PARQUET_2_6)
                     ->build();
    ARROW_ASSIGN_OR_RAISE(
        writer_, parquet::arrow::FileWriter::Open(*schema_, arrow::default_memory_pool(),
                                                  sink_, props));
    return arrow::Status::OK();
  }

  // Append one row whose non-null column is `column`, filled by `fill`.
  template <typename Fill>
  arrow::Status Row(Column column, Fill&& fill) {
    for (size_t i = 0; i < builders_.size(); ++i) {
      if (static_cast<int>(i) != column) ARROW_RETURN_NOT_OK(builders_[i]->AppendNull());
    }
    ARROW_RETURN_NOT_OK(fill(builders_[column].get()));
    ++num_rows_;
    if (++pending_ >= row_group_rows_) return Flush();
    return arrow::Status::OK();
  }

  arrow::Result<std::shared_ptr<arrow::Buffer>> Finish() {
    ARROW_RETURN_NOT_OK(Flush());
    ARROW_RETURN_NOT_OK(writer_->Close());
    return sink_->Finish();
  }

  int64_t num_rows() const { return num_rows_; }

 private:
  // Write the pending rows as one row group.
  arrow::Status Flush() {
    if (pending_ == 0) return arrow::Status::OK();
    std::vector<std::shared_ptr<arrow::Array>> arrays;
    for (auto& builder : builders_) {
      std::shared_ptr<arrow::Array> array;
      ARROW_RETURN_NOT_OK(builder->Finish(&array));
      arrays.push_back(std::move(array));
    }
    auto batch = arrow::RecordBatch::Make(schema_, pending_, std::move(arrays));
    ARROW_ASSIGN_OR_RAISE(auto table, arrow::Table::FromRecordBatches(schema_, {batch}));
    ARROW_RETURN_NOT_OK(writer_->WriteTable(*table, pending_));
    pending_ = 0;
    return arrow::Status::OK();
  }

  std::shared_ptr<arrow::Schema> schema_;
  int64_t row_group_rows_;
  std::vector<std::unique_ptr<arrow::StructBuilder>> builders_;
  std::shared_ptr<arrow::io::BufferOutputStream> sink_;
  std::unique_ptr<parquet::arrow::FileWriter> writer_;
  int64_t num_rows_ = 0;
  int64_t pending_ = 0;
};

// Microseconds per unit of a Spark interval (months and years are not durations).
std::optional<int64_t> UnitMicros(std::string_view unit) {
  std::string u = AsciiToLower(unit);
  if (u.size() > 1 && u.back() == 's') u.pop_back();
  if (u == "microsecond") return 1;
  if (u == "millisecond") return 1000;
  if (u == "second") return 1000 * 1000;
  if (u == "minute") return 60LL * 1000 * 1000;
  if (u == "hour") return 3600LL * 1000 * 1000;
  if (u == "day") return 86400LL * 1000 * 1000;
  if (u == "week") return 7 * 86400LL * 1000 * 1000;
  return std::nullopt;
}

// `key` as a duration in ms, or `fallback` when absent.
Result<std::optional<int64_t>> DurationProperty(
    const Metadata& md, std::string_view key, std::optional<std::string_view> fallback) {
  std::optional<std::string> value = md.GetConfig(key);
  if (!value && !fallback) return std::optional<int64_t>();
  std::string text = value ? *value : std::string(*fallback);
  Result<int64_t> ms = ParseIntervalMs(text);
  if (!ms) {
    return MakeError(ErrorCode::kCorruptLog, "table property '{}' = '{}': {}", key, text,
                     ms.error().message);
  }
  return std::optional<int64_t>(*ms);
}

int64_t SaturatingSub(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_sub_overflow(a, b, &out)) return std::numeric_limits<int64_t>::min();
  return out;
}

}  // namespace

Result<int64_t> ParseIntervalMs(std::string_view text) {
  std::vector<std::string_view> tokens;
  for (std::string_view t : Split(Trim(text), ' ')) {
    if (!Trim(t).empty()) tokens.push_back(Trim(t));
  }
  size_t i = 0;
  if (!tokens.empty() && EqualsIgnoreCase(tokens[0], "interval")) i = 1;
  if (i == tokens.size() || (tokens.size() - i) % 2 != 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "interval '{}' is not of the form 'interval <n> <unit> ...'", text);
  }
  int64_t micros = 0;
  for (; i < tokens.size(); i += 2) {
    int64_t n = 0;
    std::string_view num = tokens[i];
    auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), n);
    if (ec != std::errc() || end != num.data() + num.size() || n < 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "interval '{}': '{}' is not a non-negative integer", text, num);
    }
    std::optional<int64_t> unit = UnitMicros(tokens[i + 1]);
    if (!unit) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "interval '{}': unit '{}' is not one of microsecond, millisecond, "
                       "second, minute, hour, day, week",
                       text, tokens[i + 1]);
    }
    int64_t part;
    if (__builtin_mul_overflow(n, *unit, &part) ||
        __builtin_add_overflow(micros, part, &micros)) {
      return MakeError(ErrorCode::kInvalidArgument, "interval '{}' is too large", text);
    }
  }
  return micros / 1000;
}

Result<bool> ShouldCheckpoint(int64_t version, const Metadata& metadata) {
  int64_t interval = kDefaultCheckpointInterval;
  if (std::optional<std::string> value =
          metadata.GetConfig(kCheckpointIntervalProperty)) {
    std::string_view text = Trim(*value);
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), interval);
    if (ec != std::errc() || end != text.data() + text.size() || interval <= 0) {
      return MakeError(ErrorCode::kCorruptLog,
                       "table property '{}' = '{}' is not a positive integer",
                       kCheckpointIntervalProperty, *value);
    }
  }
  return version > 0 && version % interval == 0;
}

Result<CheckpointInfo> WriteCheckpoint(const Snapshot& snapshot,
                                       const CheckpointOptions& options) {
  if (options.row_group_rows <= 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "checkpoint row_group_rows must be positive, got {}",
                     options.row_group_rows);
  }
  const Metadata& md = snapshot.metadata();
  const Protocol& protocol = snapshot.protocol();
  const int64_t version = snapshot.version();
  // PROTOCOL.md "V2 Checkpoints": with v2Checkpoint supported, classic multi-part files
  // are forbidden and the file must carry checkpointMetadata; a UUID name is the norm.
  const bool v2 = IsFeatureSupported(protocol, "v2Checkpoint");

  DELTA_ASSIGN_OR_RETURN(std::optional<int64_t> tombstone_retention,
                         DurationProperty(md, kDeletedFileRetentionDurationProperty,
                                          kDefaultDeletedFileRetention));
  DELTA_ASSIGN_OR_RETURN(
      std::optional<int64_t> txn_retention,
      DurationProperty(md, kSetTransactionRetentionDurationProperty, std::nullopt));
  const int64_t tombstone_cutoff = SaturatingSub(options.now_ms, *tombstone_retention);

  // Non-file actions (also embedded in a V2 _last_checkpoint).
  std::vector<Action> non_file;
  non_file.emplace_back(protocol);
  non_file.emplace_back(md);
  if (v2) non_file.emplace_back(CheckpointMetadata{version, {}});
  for (const auto& [app_id, txn] : snapshot.transactions()) {
    if (txn_retention && txn.last_updated &&
        *txn.last_updated < SaturatingSub(options.now_ms, *txn_retention)) {
      continue;
    }
    non_file.emplace_back(txn);
  }
  for (const DomainMetadata& dm : snapshot.domain_metadata()) {
    if (!dm.removed) non_file.emplace_back(dm);  // removed domains are tombstones
  }

  const std::string file_name = v2 ? fmt::format("{}.checkpoint.{}.parquet",
                                                 VersionPrefix(version), GenerateUuidV4())
                                   : CheckpointFileName(version);
  const std::string path = JoinPath(snapshot.log_dir(), file_name);
  const std::string context = fmt::format("checkpoint '{}'", path);

  CheckpointEncoder encoder(CheckpointSchema(protocol, v2), options.row_group_rows);
  DELTA_ARROW_RETURN_NOT_OK(encoder.Open(), ErrorCode::kInternal, context);
  for (const Action& action : non_file) {
    arrow::Status st;
    if (const auto* p = std::get_if<Protocol>(&action)) {
      st = encoder.Row(kProtocol, [&](auto* b) { return AppendProtocol(b, *p); });
    } else if (const auto* m = std::get_if<Metadata>(&action)) {
      st = encoder.Row(kMetaData, [&](auto* b) { return AppendMetadata(b, *m); });
    } else if (const auto* c = std::get_if<CheckpointMetadata>(&action)) {
      st = encoder.Row(kCheckpointMetadata,
                       [&](auto* b) { return AppendCheckpointMetadata(b, *c); });
    } else if (const auto* t = std::get_if<SetTransaction>(&action)) {
      st = encoder.Row(kTxn, [&](auto* b) { return AppendTxn(b, *t); });
    } else if (const auto* d = std::get_if<DomainMetadata>(&action)) {
      st = encoder.Row(kDomainMetadata, [&](auto* b) { return AppendDomain(b, *d); });
    }
    DELTA_ARROW_RETURN_NOT_OK(st, ErrorCode::kInternal, context);
  }
  for (const RemoveFile& rm : snapshot.tombstones()) {
    // Unexpired tombstones only (PROTOCOL.md "Checkpoints"); kept without a timestamp.
    if (rm.deletion_timestamp && *rm.deletion_timestamp <= tombstone_cutoff) continue;
    DELTA_ARROW_RETURN_NOT_OK(
        encoder.Row(kRemove, [&](auto* b) { return AppendRemove(b, rm); }),
        ErrorCode::kInternal, context);
  }
  for (const AddFile& add : snapshot.files()) {
    DELTA_ARROW_RETURN_NOT_OK(
        encoder.Row(kAdd, [&](auto* b) { return AppendAdd(b, add); }),
        ErrorCode::kInternal, context);
  }
  DELTA_ARROW_ASSIGN_OR_RETURN(std::shared_ptr<arrow::Buffer> buffer, encoder.Finish(),
                               ErrorCode::kInternal, context);

  const FileSystemRef& fs = snapshot.fs();
  Status written =
      fs->Write(path, std::string_view(reinterpret_cast<const char*>(buffer->data()),
                                       static_cast<size_t>(buffer->size())));
  if (!written) return WithContext(written.error(), "writing " + context);

  CheckpointInfo info;
  info.version = version;
  info.path = path;
  info.num_actions = encoder.num_rows();
  info.num_add_files = static_cast<int64_t>(snapshot.files().size());
  info.size_in_bytes = buffer->size();
  info.v2 = v2;

  // PROTOCOL.md "Last Checkpoint File Schema"; the v2Checkpoint object as Spark writes
  // it.
  std::string hint =
      fmt::format(R"({{"version":{},"size":{},"sizeInBytes":{},)"
                  R"("numOfAddFiles":{})",
                  version, info.num_actions, info.size_in_bytes, info.num_add_files);
  if (v2) {
    DELTA_ASSIGN_OR_RETURN(FileInfo stat, fs->Stat(path));
    hint += fmt::format(R"(,"v2Checkpoint":{{"path":{},"sizeInBytes":{},)"
                        R"("modificationTime":{})",
                        JsonQuote(file_name), info.size_in_bytes, stat.modification_time);
    if (non_file.size() <= kMaxNonFileActionsInHint) {
      hint += R"(,"nonFileActions":[)";
      for (size_t i = 0; i < non_file.size(); ++i) {
        if (i > 0) hint += ',';
        hint += ActionToJson(non_file[i]);
      }
      hint += ']';
    }
    hint += R"(,"sidecarFiles":[]})";
  }
  hint += '}';
  const std::string hint_path = JoinPath(snapshot.log_dir(), kLastCheckpointFileName);
  Status hinted = fs->Write(hint_path, hint);
  if (!hinted) return WithContext(hinted.error(), fmt::format("writing '{}'", hint_path));
  return info;
}

}  // namespace deltaguard
