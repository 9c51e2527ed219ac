#include "deltaguard/io/parquet/checkpoint_reader.h"

#include <arrow/record_batch.h>
#include <fmt/format.h>
#include <parquet/arrow/schema.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>
#include <parquet/schema.h>
#include <parquet/statistics.h>

#include <exception>

#include "deltaguard/arrow/status.h"
#include "deltaguard/io/parquet/batch_pipeline_internal.h"
#include "deltaguard/io/parquet/column_access_internal.h"
#include "deltaguard/io/parquet/parquet_file.h"

namespace deltaguard {
namespace {

using internal::BoolColumn;
using internal::IntColumn;
using internal::StringColumn;
using internal::StringListColumn;
using internal::StringMapColumn;
using internal::StructColumn;

// Rows per decoded batch. Small batches keep Arrow's buffers small and cache-resident
// (64k-row batches grow each string column by reallocation and cost ~100 MB more peak
// memory for a 200k-file checkpoint, and are slower); below ~2k rows the per-batch
// overhead of ~50 leaf columns starts to show.
constexpr int64_t kCheckpointBatchSize = 4096;

// Bytes of a column chunk read at a time (instead of whole chunks up front).
constexpr int64_t kCheckpointReadBufferSize = 1 << 20;

constexpr std::string_view kActionColumns[] = {
    "add", "remove",         "metaData",           "protocol",
    "txn", "domainMetadata", "checkpointMetadata", "sidecar"};

bool IsActionColumn(std::string_view name) {
  for (std::string_view c : kActionColumns) {
    if (c == name) return true;
  }
  return false;
}

// True when the footer statistics prove leaf `column` (not under a repeated field) null
// in every row: its chunk in every row group holds one value per row, all null.
bool LeafIsAllNull(const parquet::FileMetaData& metadata, int column) {
  try {
    if (metadata.schema()->Column(column)->max_repetition_level() != 0) return false;
    for (int g = 0; g < metadata.num_row_groups(); ++g) {
      auto row_group = metadata.RowGroup(g);
      auto chunk = row_group->ColumnChunk(column);
      std::shared_ptr<parquet::Statistics> stats = chunk->statistics();
      if (stats == nullptr || !stats->HasNullCount() ||
          chunk->num_values() != row_group->num_rows() ||
          stats->null_count() != row_group->num_rows()) {
        return false;
      }
    }
  } catch (const std::exception&) {
    return false;  // unreadable metadata: read the column and let decoding report it
  }
  return true;
}

// True when the footer statistics prove the optional struct `field` (e.g. "remove" or
// "add.deletionVector") null in every row, so that its columns need not be decoded
// (absent columns read as null). The proof: a required leaf directly under it (e.g.
// remove.path) is null exactly where the struct (or an ancestor) is, and it is null in
// every row. Without such a leaf or statistics, the struct is read.
bool StructIsAllNull(const parquet::FileMetaData& metadata,
                     const parquet::arrow::SchemaField& field) {
  if (field.is_leaf() || !field.field->nullable() ||
      field.field->type()->id() != arrow::Type::STRUCT) {
    return false;
  }
  for (const auto& child : field.children) {
    if (child.is_leaf() && !child.field->nullable()) {
      return LeafIsAllNull(metadata, child.column_index);
    }
  }
  return false;
}

// Leaf column indices under `field`, except subtrees the statistics prove null in every
// row (see above). stats_parsed / partitionValues_parsed (typed copies of stats and
// partition values, PROTOCOL.md "Checkpoint Schema") are never read.
void CollectLeaves(const parquet::FileMetaData& metadata,
                   const parquet::arrow::SchemaField& field, bool top_level,
                   std::vector<int>* out) {
  if (field.is_leaf()) {
    if (!LeafIsAllNull(metadata, field.column_index)) out->push_back(field.column_index);
    return;
  }
  if (StructIsAllNull(metadata, field)) return;
  const size_t before = out->size();
  const parquet::arrow::SchemaField* first_leaf = nullptr;
  for (const auto& child : field.children) {
    if (top_level && (child.field->name() == "stats_parsed" ||
                      child.field->name() == "partitionValues_parsed")) {
      continue;
    }
    if (first_leaf == nullptr && child.is_leaf()) first_leaf = &child;
    CollectLeaves(metadata, child, false, out);
  }
  // Every field is null but the struct itself may not be: keep one column so that the
  // struct's own validity is still read.
  if (out->size() == before && first_leaf != nullptr) {
    out->push_back(first_leaf->column_index);
  }
}

std::string Name(std::string_view parent, std::string_view child) {
  return fmt::format("{}.{}", parent, child);
}

Error NullField(int64_t row, std::string_view column) {
  return MakeError(ErrorCode::kCorruptLog, "row {}: required field '{}' is null", row,
                   column);
}

// ---------------------------------------------------------------------------------------
// One decoder per action column. Init() binds typed accessors to the batch's arrays;
// Decode(i) builds the action of row i. REQUIRES for Decode: !s.IsNull(i).

struct DvDecoder {
  StructColumn s;
  StringColumn storage_type, path_or_inline;
  IntColumn offset, size_in_bytes, cardinality, max_row_index;

  Status Init(std::shared_ptr<arrow::Array> array, const std::string& name) {
    DELTA_RETURN_IF_ERROR(s.Init(std::move(array), name));
    DELTA_RETURN_IF_ERROR(
        storage_type.Init(s.Child("storageType"), Name(name, "storageType")));
    DELTA_RETURN_IF_ERROR(
        path_or_inline.Init(s.Child("pathOrInlineDv"), Name(name, "pathOrInlineDv")));
    DELTA_RETURN_IF_ERROR(offset.Init(s.Child("offset"), Name(name, "offset")));
    DELTA_RETURN_IF_ERROR(
        size_in_bytes.Init(s.Child("sizeInBytes"), Name(name, "sizeInBytes")));
    DELTA_RETURN_IF_ERROR(
        cardinality.Init(s.Child("cardinality"), Name(name, "cardinality")));
    return max_row_index.Init(s.Child("maxRowIndex"), Name(name, "maxRowIndex"));
  }

  Result<std::optional<DeletionVectorDescriptor>> Decode(int64_t i, int64_t row) const {
    if (s.IsNull(i)) return std::nullopt;
    if (storage_type.IsNull(i) || storage_type.View(i).size() != 1) {
      return MakeError(ErrorCode::kCorruptLog,
                       "row {}: deletionVector.storageType is not a single character",
                       row);
    }
    if (path_or_inline.IsNull(i)) return NullField(row, "deletionVector.pathOrInlineDv");
    DeletionVectorDescriptor dv;
    dv.storage_type = storage_type.View(i)[0];
    dv.path_or_inline_dv = std::string(path_or_inline.View(i));
    if (auto v = offset.Get(i)) dv.offset = static_cast<int32_t>(*v);
    dv.size_in_bytes = static_cast<int32_t>(size_in_bytes.Get(i).value_or(0));
    dv.cardinality = cardinality.Get(i).value_or(0);
    dv.max_row_index = max_row_index.Get(i);
    return dv;
  }
};

struct AddDecoder {
  StructColumn s;
  StringColumn path, stats, clustering_provider;
  StringMapColumn partition_values, tags;
  IntColumn size, modification_time, base_row_id, default_row_commit_version;
  BoolColumn data_change;
  DvDecoder dv;

  Status Init(std::shared_ptr<arrow::Array> array) {
    DELTA_RETURN_IF_ERROR(s.Init(std::move(array), "add"));
    DELTA_RETURN_IF_ERROR(path.Init(s.Child("path"), "add.path"));
    DELTA_RETURN_IF_ERROR(stats.Init(s.Child("stats"), "add.stats"));
    DELTA_RETURN_IF_ERROR(clustering_provider.Init(s.Child("clusteringProvider"),
                                                   "add.clusteringProvider"));
    DELTA_RETURN_IF_ERROR(
        partition_values.Init(s.Child("partitionValues"), "add.partitionValues"));
    DELTA_RETURN_IF_ERROR(tags.Init(s.Child("tags"), "add.tags"));
    DELTA_RETURN_IF_ERROR(size.Init(s.Child("size"), "add.size"));
    DELTA_RETURN_IF_ERROR(
        modification_time.Init(s.Child("modificationTime"), "add.modificationTime"));
    DELTA_RETURN_IF_ERROR(base_row_id.Init(s.Child("baseRowId"), "add.baseRowId"));
    DELTA_RETURN_IF_ERROR(default_row_commit_version.Init(
        s.Child("defaultRowCommitVersion"), "add.defaultRowCommitVersion"));
    DELTA_RETURN_IF_ERROR(data_change.Init(s.Child("dataChange"), "add.dataChange"));
    return dv.Init(s.Child("deletionVector"), "add.deletionVector");
  }

  // Decodes straight into `add` (a default-constructed element of the output vector),
  // so that no 312-byte AddFile is built and then moved.
  Status DecodeInto(int64_t i, int64_t row, AddFile& add) const {
    if (path.IsNull(i)) return NullField(row, "add.path");
    add.path.assign(path.View(i));
    add.partition_values = partition_values.GetWithNulls(i);
    add.size = size.Get(i).value_or(0);
    add.modification_time = modification_time.Get(i).value_or(0);
    add.data_change = data_change.Get(i).value_or(false);
    if (!stats.IsNull(i)) add.stats.emplace(stats.View(i));
    add.tags = tags.Get(i);
    DELTA_ASSIGN_OR_RETURN(add.deletion_vector, dv.Decode(i, row));
    add.base_row_id = base_row_id.Get(i);
    add.default_row_commit_version = default_row_commit_version.Get(i);
    if (!clustering_provider.IsNull(i)) {
      add.clustering_provider.emplace(clustering_provider.View(i));
    }
    return OkStatus();
  }
};

struct RemoveDecoder {
  StructColumn s;
  StringColumn path, stats;
  StringMapColumn partition_values, tags;
  IntColumn deletion_timestamp, size, base_row_id, default_row_commit_version;
  BoolColumn data_change, extended_file_metadata;
  DvDecoder dv;

  Status Init(std::shared_ptr<arrow::Array> array) {
    DELTA_RETURN_IF_ERROR(s.Init(std::move(array), "remove"));
    DELTA_RETURN_IF_ERROR(path.Init(s.Child("path"), "remove.path"));
    DELTA_RETURN_IF_ERROR(stats.Init(s.Child("stats"), "remove.stats"));
    DELTA_RETURN_IF_ERROR(
        partition_values.Init(s.Child("partitionValues"), "remove.partitionValues"));
    DELTA_RETURN_IF_ERROR(tags.Init(s.Child("tags"), "remove.tags"));
    DELTA_RETURN_IF_ERROR(deletion_timestamp.Init(s.Child("deletionTimestamp"),
                                                  "remove.deletionTimestamp"));
    DELTA_RETURN_IF_ERROR(size.Init(s.Child("size"), "remove.size"));
    DELTA_RETURN_IF_ERROR(base_row_id.Init(s.Child("baseRowId"), "remove.baseRowId"));
    DELTA_RETURN_IF_ERROR(default_row_commit_version.Init(
        s.Child("defaultRowCommitVersion"), "remove.defaultRowCommitVersion"));
    DELTA_RETURN_IF_ERROR(data_change.Init(s.Child("dataChange"), "remove.dataChange"));
    DELTA_RETURN_IF_ERROR(extended_file_metadata.Init(s.Child("extendedFileMetadata"),
                                                      "remove.extendedFileMetadata"));
    return dv.Init(s.Child("deletionVector"), "remove.deletionVector");
  }

  Result<RemoveFile> Decode(int64_t i, int64_t row) const {
    if (path.IsNull(i)) return NullField(row, "remove.path");
    RemoveFile rm;
    rm.path = std::string(path.View(i));
    rm.deletion_timestamp = deletion_timestamp.Get(i);
    rm.data_change = data_change.Get(i).value_or(false);
    rm.extended_file_metadata = extended_file_metadata.Get(i);
    if (!partition_values.IsNull(i))
      rm.partition_values = partition_values.GetWithNulls(i);
    rm.size = size.Get(i);
    rm.stats = stats.Get(i);
    rm.tags = tags.Get(i);
    DELTA_ASSIGN_OR_RETURN(rm.deletion_vector, dv.Decode(i, row));
    rm.base_row_id = base_row_id.Get(i);
    rm.default_row_commit_version = default_row_commit_version.Get(i);
    return rm;
  }
};

struct MetadataDecoder {
  StructColumn s, format;
  StringColumn id, name, description, schema_string, provider;
  StringMapColumn options, configuration;
  StringListColumn partition_columns;
  IntColumn created_time;

  Status Init(std::shared_ptr<arrow::Array> array) {
    DELTA_RETURN_IF_ERROR(s.Init(std::move(array), "metaData"));
    DELTA_RETURN_IF_ERROR(id.Init(s.Child("id"), "metaData.id"));
    DELTA_RETURN_IF_ERROR(name.Init(s.Child("name"), "metaData.name"));
    DELTA_RETURN_IF_ERROR(
        description.Init(s.Child("description"), "metaData.description"));
    DELTA_RETURN_IF_ERROR(
        schema_string.Init(s.Child("schemaString"), "metaData.schemaString"));
    DELTA_RETURN_IF_ERROR(format.Init(s.Child("format"), "metaData.format"));
    DELTA_RETURN_IF_ERROR(
        provider.Init(format.Child("provider"), "metaData.format.provider"));
    DELTA_RETURN_IF_ERROR(
        options.Init(format.Child("options"), "metaData.format.options"));
    DELTA_RETURN_IF_ERROR(
        configuration.Init(s.Child("configuration"), "metaData.configuration"));
    DELTA_RETURN_IF_ERROR(
        partition_columns.Init(s.Child("partitionColumns"), "metaData.partitionColumns"));
    return created_time.Init(s.Child("createdTime"), "metaData.createdTime");
  }

  Result<Action> Decode(int64_t i, int64_t row) const {
    if (id.IsNull(i)) return NullField(row, "metaData.id");
    Metadata md;
    md.id = std::string(id.View(i));
    md.name = name.Get(i);
    md.description = description.Get(i);
    if (!format.IsNull(i)) {
      if (auto p = provider.Get(i)) md.format.provider = std::move(*p);
      md.format.options = options.Get(i);
    }
    md.schema_string = schema_string.Get(i).value_or("");
    md.partition_columns = partition_columns.Get(i).value_or(std::vector<std::string>{});
    md.configuration = configuration.Get(i);
    md.created_time = created_time.Get(i);
    return Action(std::move(md));
  }
};

struct ProtocolDecoder {
  StructColumn s;
  IntColumn min_reader, min_writer;
  StringListColumn reader_features, writer_features;

  Status Init(std::shared_ptr<arrow::Array> array) {
    DELTA_RETURN_IF_ERROR(s.Init(std::move(array), "protocol"));
    DELTA_RETURN_IF_ERROR(
        min_reader.Init(s.Child("minReaderVersion"), "protocol.minReaderVersion"));
    DELTA_RETURN_IF_ERROR(
        min_writer.Init(s.Child("minWriterVersion"), "protocol.minWriterVersion"));
    DELTA_RETURN_IF_ERROR(
        reader_features.Init(s.Child("readerFeatures"), "protocol.readerFeatures"));
    return writer_features.Init(s.Child("writerFeatures"), "protocol.writerFeatures");
  }

  Result<Action> Decode(int64_t i, int64_t row) const {
    if (min_reader.IsNull(i)) return NullField(row, "protocol.minReaderVersion");
    if (min_writer.IsNull(i)) return NullField(row, "protocol.minWriterVersion");
    Protocol p;
    p.min_reader_version = static_cast<int32_t>(min_reader.Value(i));
    p.min_writer_version = static_cast<int32_t>(min_writer.Value(i));
    p.reader_features = reader_features.Get(i);
    p.writer_features = writer_features.Get(i);
    return Action(std::move(p));
  }
};

struct TxnDecoder {
  StructColumn s;
  StringColumn app_id;
  IntColumn version, last_updated;

  Status Init(std::shared_ptr<arrow::Array> array) {
    DELTA_RETURN_IF_ERROR(s.Init(std::move(array), "txn"));
    DELTA_RETURN_IF_ERROR(app_id.Init(s.Child("appId"), "txn.appId"));
    DELTA_RETURN_IF_ERROR(version.Init(s.Child("version"), "txn.version"));
    return last_updated.Init(s.Child("lastUpdated"), "txn.lastUpdated");
  }

  Result<Action> Decode(int64_t i, int64_t row) const {
    if (app_id.IsNull(i)) return NullField(row, "txn.appId");
    if (version.IsNull(i)) return NullField(row, "txn.version");
    SetTransaction txn;
    txn.app_id = std::string(app_id.View(i));
    txn.version = version.Value(i);
    txn.last_updated = last_updated.Get(i);
    return Action(std::move(txn));
  }
};

struct DomainMetadataDecoder {
  StructColumn s;
  StringColumn domain, configuration;
  BoolColumn removed;

  Status Init(std::shared_ptr<arrow::Array> array) {
    DELTA_RETURN_IF_ERROR(s.Init(std::move(array), "domainMetadata"));
    DELTA_RETURN_IF_ERROR(domain.Init(s.Child("domain"), "domainMetadata.domain"));
    DELTA_RETURN_IF_ERROR(
        configuration.Init(s.Child("configuration"), "domainMetadata.configuration"));
    return removed.Init(s.Child("removed"), "domainMetadata.removed");
  }

  Result<Action> Decode(int64_t i, int64_t row) const {
    if (domain.IsNull(i)) return NullField(row, "domainMetadata.domain");
    DomainMetadata dm;
    dm.domain = std::string(domain.View(i));
    dm.configuration = configuration.Get(i).value_or("");
    dm.removed = removed.Get(i).value_or(false);
    return Action(std::move(dm));
  }
};

struct CheckpointMetadataDecoder {
  StructColumn s;
  IntColumn version;
  StringMapColumn tags;

  Status Init(std::shared_ptr<arrow::Array> array) {
    DELTA_RETURN_IF_ERROR(s.Init(std::move(array), "checkpointMetadata"));
    DELTA_RETURN_IF_ERROR(version.Init(s.Child("version"), "checkpointMetadata.version"));
    return tags.Init(s.Child("tags"), "checkpointMetadata.tags");
  }

  Result<Action> Decode(int64_t i, int64_t row) const {
    if (version.IsNull(i)) return NullField(row, "checkpointMetadata.version");
    CheckpointMetadata cm;
    cm.version = version.Value(i);
    cm.tags = tags.Get(i);
    return Action(std::move(cm));
  }
};

struct SidecarDecoder {
  StructColumn s;
  StringColumn path;
  IntColumn size_in_bytes, modification_time;
  StringMapColumn tags;

  Status Init(std::shared_ptr<arrow::Array> array) {
    DELTA_RETURN_IF_ERROR(s.Init(std::move(array), "sidecar"));
    DELTA_RETURN_IF_ERROR(path.Init(s.Child("path"), "sidecar.path"));
    DELTA_RETURN_IF_ERROR(
        size_in_bytes.Init(s.Child("sizeInBytes"), "sidecar.sizeInBytes"));
    DELTA_RETURN_IF_ERROR(
        modification_time.Init(s.Child("modificationTime"), "sidecar.modificationTime"));
    return tags.Init(s.Child("tags"), "sidecar.tags");
  }

  Result<Action> Decode(int64_t i, int64_t row) const {
    if (path.IsNull(i)) return NullField(row, "sidecar.path");
    Sidecar sc;
    sc.path = std::string(path.View(i));
    sc.size_in_bytes = size_in_bytes.Get(i).value_or(0);
    sc.modification_time = modification_time.Get(i).value_or(0);
    sc.tags = tags.Get(i);
    return Action(std::move(sc));
  }
};

// All decoders for one record batch.
struct BatchDecoder {
  AddDecoder add;
  RemoveDecoder remove;
  MetadataDecoder metadata;
  ProtocolDecoder protocol;
  TxnDecoder txn;
  DomainMetadataDecoder domain;
  CheckpointMetadataDecoder checkpoint_metadata;
  SidecarDecoder sidecar;

  Status Init(const arrow::RecordBatch& batch) {
    DELTA_RETURN_IF_ERROR(add.Init(batch.GetColumnByName("add")));
    DELTA_RETURN_IF_ERROR(remove.Init(batch.GetColumnByName("remove")));
    DELTA_RETURN_IF_ERROR(metadata.Init(batch.GetColumnByName("metaData")));
    DELTA_RETURN_IF_ERROR(protocol.Init(batch.GetColumnByName("protocol")));
    DELTA_RETURN_IF_ERROR(txn.Init(batch.GetColumnByName("txn")));
    DELTA_RETURN_IF_ERROR(domain.Init(batch.GetColumnByName("domainMetadata")));
    DELTA_RETURN_IF_ERROR(
        checkpoint_metadata.Init(batch.GetColumnByName("checkpointMetadata")));
    return sidecar.Init(batch.GetColumnByName("sidecar"));
  }

  template <typename D, typename Sink>
  static Status DecodeIfPresent(const D& d, int64_t i, int64_t row, Sink& sink) {
    if (d.s.IsNull(i)) return OkStatus();
    DELTA_ASSIGN_OR_RETURN(auto action, d.Decode(i, row));
    sink.Put(std::move(action));
    return OkStatus();
  }

  // Sink: AddFile& NewAdd(), Put(RemoveFile&&), Put(Action&&); statically dispatched.
  template <typename Sink>
  Status DecodeAll(int64_t num_rows, int64_t first_row, Sink& sink) const {
    for (int64_t i = 0; i < num_rows; ++i) {
      int64_t row = first_row + i;
      // Adds dominate checkpoints: test them first.
      if (!add.s.IsNull(i)) DELTA_RETURN_IF_ERROR(add.DecodeInto(i, row, sink.NewAdd()));
      DELTA_RETURN_IF_ERROR(DecodeIfPresent(remove, i, row, sink));
      DELTA_RETURN_IF_ERROR(DecodeIfPresent(metadata, i, row, sink));
      DELTA_RETURN_IF_ERROR(DecodeIfPresent(protocol, i, row, sink));
      DELTA_RETURN_IF_ERROR(DecodeIfPresent(txn, i, row, sink));
      DELTA_RETURN_IF_ERROR(DecodeIfPresent(domain, i, row, sink));
      DELTA_RETURN_IF_ERROR(DecodeIfPresent(checkpoint_metadata, i, row, sink));
      DELTA_RETURN_IF_ERROR(DecodeIfPresent(sidecar, i, row, sink));
    }
    return OkStatus();
  }
};

// All actions in row order.
struct FlatSink {
  std::vector<Action> actions;
  void Reserve(size_t n, size_t /*extra_adds*/) { actions.reserve(n); }
  AddFile& NewAdd() { return std::get<AddFile>(actions.emplace_back(AddFile())); }
  void Put(RemoveFile&& r) { actions.emplace_back(std::move(r)); }
  void Put(Action&& a) { actions.push_back(std::move(a)); }
};

// Adds and removes built straight into their own vectors (no Action round trip).
struct SplitSink {
  CheckpointActions out;
  void Reserve(size_t n, size_t extra_adds) { out.adds.reserve(n + extra_adds); }
  AddFile& NewAdd() { return out.adds.emplace_back(); }
  void Put(RemoveFile&& r) { out.removes.push_back(std::move(r)); }
  void Put(Action&& a) { out.others.push_back(std::move(a)); }
};

// Read the action columns of `path` into `sink`. The file is decoded in small batches
// (see kCheckpointBatchSize) and only one column chunk page at a time is buffered, so
// Arrow's share of the peak memory stays a few MB whatever the checkpoint's size.
template <typename Sink>
Status ReadInto(const FileSystemRef& fs, bool use_threads, const std::string& path,
                size_t extra_adds, Sink& sink) {
  std::string context = fmt::format("checkpoint '{}'", path);
  // Arrow's own column parallelism does not pay off for checkpoints (mostly-null
  // columns); the pipeline below uses the second core instead.
  auto props = DefaultArrowReaderProperties(/*use_threads=*/false, kCheckpointBatchSize);
  props.set_pre_buffer(false);
  DELTA_ASSIGN_OR_RETURN(auto reader,
                         OpenParquetFile(fs, path, props, ErrorCode::kCorruptLog,
                                         kCheckpointReadBufferSize));
  const parquet::FileMetaData& metadata = *reader->parquet_reader()->metadata();
  std::vector<int> leaves;
  for (const auto& field : reader->manifest().schema_fields) {
    if (IsActionColumn(field.field->name())) {
      CollectLeaves(metadata, field, true, &leaves);
    }
  }
  if (leaves.empty()) return OkStatus();
  sink.Reserve(static_cast<size_t>(metadata.num_rows()), extra_adds);

  std::vector<int> row_groups(reader->num_row_groups());
  for (int i = 0; i < reader->num_row_groups(); ++i) row_groups[i] = i;
  try {
    DELTA_ARROW_ASSIGN_OR_RETURN(auto batches,
                                 reader->GetRecordBatchReader(row_groups, leaves),
                                 ErrorCode::kCorruptLog, context);
    internal::BatchPipeline pipeline(*batches, use_threads);
    int64_t first_row = 0;
    BatchDecoder decoder;
    while (true) {
      DELTA_ARROW_ASSIGN_OR_RETURN(std::shared_ptr<arrow::RecordBatch> batch,
                                   pipeline.Next(), ErrorCode::kCorruptLog, context);
      if (batch == nullptr) break;
      DELTA_ARROW_RETURN_NOT_OK(batch->Validate(), ErrorCode::kCorruptLog, context);
      Status st = decoder.Init(*batch);
      if (st) st = decoder.DecodeAll(batch->num_rows(), first_row, sink);
      if (!st) return WithContext(st.error(), context);
      first_row += batch->num_rows();
    }
  } catch (const std::exception& e) {
    return MakeError(ErrorCode::kCorruptLog, "{}: {}", context, e.what());
  }
  return OkStatus();
}

}  // namespace

Result<std::vector<Action>> ParquetCheckpointReader::ReadCheckpoint(
    const std::string& path) const {
  FlatSink sink;
  DELTA_RETURN_IF_ERROR(ReadInto(fs_, use_threads_, path, 0, sink));
  return std::move(sink.actions);
}

Result<CheckpointActions> ParquetCheckpointReader::ReadCheckpointSplit(
    const std::string& path) const {
  return ReadCheckpointForReplay(path, 0);
}

Result<CheckpointActions> ParquetCheckpointReader::ReadCheckpointForReplay(
    const std::string& path, size_t extra_adds) const {
  SplitSink sink;
  DELTA_RETURN_IF_ERROR(ReadInto(fs_, use_threads_, path, extra_adds, sink));
  return std::move(sink.out);
}

}  // namespace deltaguard
