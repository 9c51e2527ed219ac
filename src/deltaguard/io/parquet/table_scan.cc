#include "deltaguard/io/parquet/table_scan.h"

#include <arrow/array/util.h>
#include <arrow/buffer.h>
#include <arrow/compute/api_vector.h>
#include <arrow/datum.h>
#include <arrow/util/bit_util.h>
#include <fmt/format.h>
#include <parquet/arrow/schema.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>

#include <algorithm>
#include <cstring>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/io/parquet/deletion_vector.h"
#include "deltaguard/io/parquet/parquet_file.h"
#include "deltaguard/io/parquet/partition_value.h"
#include "deltaguard/io/parquet/read_convert.h"
#include "deltaguard/io/parquet/scan_read_ahead_internal.h"
#include "deltaguard/schema/column_path.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

// One output column: a (possibly nested) path of table fields.
struct OutputColumn {
  std::string name;                      // output name: the dotted logical path
  std::vector<const StructField*> path;  // top-level field first; leaf last
  bool partition = false;                // value comes from add.partitionValues
  std::string partition_key;             // physical name under column mapping
  const DataType& type() const { return *path.back()->type; }
};

bool ContainsVariant(const DataType& type) {
  switch (type.kind()) {
    case TypeKind::kVariant:
      return true;
    case TypeKind::kStruct:
      for (const auto& f : static_cast<const StructType&>(type).fields()) {
        if (ContainsVariant(*f.type)) return true;
      }
      return false;
    case TypeKind::kArray:
      return ContainsVariant(*static_cast<const ArrayType&>(type).element_type());
    case TypeKind::kMap: {
      const auto& m = static_cast<const MapType&>(type);
      return ContainsVariant(*m.key_type()) || ContainsVariant(*m.value_type());
    }
    default:
      return false;
  }
}

const StructField* FindField(const StructType& st, std::string_view name) {
  int idx = st.FieldIndex(name);
  if (idx < 0) idx = st.FieldIndexCaseInsensitive(name);
  return idx < 0 ? nullptr : &st.field(static_cast<size_t>(idx));
}

std::string FieldNames(const StructType& st) {
  std::string out;
  for (const auto& f : st.fields()) {
    if (!out.empty()) out += ", ";
    out += f.name;
  }
  return out;
}

// Resolve one requested column against the table schema.
Result<std::vector<const StructField*>> ResolveColumn(const StructType& schema,
                                                      const std::string& text,
                                                      const std::string& table) {
  // A top-level name that itself contains dots ("id.num") wins over a nested path.
  if (const StructField* f = FindField(schema, text)) return std::vector{f};
  DELTA_ASSIGN_OR_RETURN(auto parts, ParseColumnPath(text));
  std::vector<const StructField*> path;
  const StructType* level = &schema;
  for (size_t i = 0; i < parts.size(); ++i) {
    const StructField* f = level == nullptr ? nullptr : FindField(*level, parts[i]);
    if (f == nullptr) {
      const StructType& where = level == nullptr ? schema : *level;
      return MakeError(
          ErrorCode::kInvalidArgument,
          "column '{}' does not exist in table '{}'; available columns{}: {}", text,
          table,
          i == 0 || level == nullptr ? std::string()
                                     : fmt::format(" of '{}'", parts[i - 1]),
          FieldNames(where));
    }
    path.push_back(f);
    level = f->type->kind() == TypeKind::kStruct
                ? static_cast<const StructType*>(f->type.get())
                : nullptr;
  }
  return path;
}

bool IsPartitionColumn(const Metadata& md, const StructField& field) {
  for (const auto& p : md.partition_columns) {
    if (EqualsIgnoreCase(p, field.name)) return true;
  }
  return false;
}

const std::optional<std::string>* FindPartitionValue(const PartitionValues& values,
                                                     std::string_view key) {
  for (const auto& [k, v] : values) {
    if (k == key) return &v;
  }
  for (const auto& [k, v] : values) {
    if (EqualsIgnoreCase(k, key)) return &v;
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------

class ParquetTableScan final : public TableScan {
 public:
  ParquetTableScan(SnapshotRef snapshot, ScanOptions options,
                   std::vector<const AddFile*> files, std::vector<OutputColumn> columns,
                   std::shared_ptr<arrow::Schema> schema)
      : snapshot_(std::move(snapshot)),
        options_(std::move(options)),
        files_(std::move(files)),
        columns_(std::move(columns)),
        schema_(std::move(schema)),
        remaining_(options_.limit.value_or(-1)) {}

  const std::shared_ptr<arrow::Schema>& output_schema() const override { return schema_; }

  const AddFile* current_file() const override { return current_; }

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    if (failed_) return *failed_;  // errors are sticky: the scan cannot resume
    auto batch = NextBatch();
    if (!batch) failed_ = batch.error();
    return batch;
  }

 private:
  Result<std::shared_ptr<arrow::RecordBatch>> NextBatch() {
    while (true) {
      if (remaining_ == 0) return nullptr;
      if (!file_) {
        if (next_file_ >= files_.size()) return nullptr;
        auto st = OpenFile(*files_[next_file_++]);
        if (!st) {
          file_.reset();
          return st.error();
        }
        continue;
      }
      auto batch = NextFromFile();
      if (!batch) {
        Error e = WithContext(batch.error(), fmt::format("data file '{}'", file_->path));
        file_.reset();
        return e;
      }
      if (*batch == nullptr) {
        file_.reset();
        continue;
      }
      if ((*batch)->num_rows() == 0) continue;
      if (remaining_ > 0 && (*batch)->num_rows() > remaining_) {
        *batch = (*batch)->Slice(0, remaining_);
      }
      if (remaining_ > 0) remaining_ -= (*batch)->num_rows();
      current_ = files_[next_file_ - 1];
      return *batch;
    }
  }

  struct FileState {
    std::string path;  // resolved local path
    std::unique_ptr<parquet::arrow::FileReader> reader;
    std::shared_ptr<arrow::RecordBatchReader> batches;  // null: rows are synthesized
    int64_t synthetic_rows_left = 0;
    std::vector<int> batch_column;  // per output column: batch column, or -1 (absent)
    std::vector<std::shared_ptr<arrow::Scalar>> partition_values;  // per output column
    std::vector<bool> dictionary;           // per output column: read dictionary-encoded
    std::shared_ptr<arrow::Schema> schema;  // output_schema(), dictionaries shown
    std::optional<DeletionVector> dv;
    int64_t position = 0;  // rows of this file consumed so far (DV row index)
  };

  Status OpenFile(const AddFile& add) {
    auto state = std::make_unique<FileState>();
    state->path = snapshot_->ResolveDataPath(add.path);
    auto ctx = [&](const Error& e) {
      return WithContext(e, fmt::format("data file '{}'", state->path));
    };
    state->partition_values.resize(columns_.size());
    bool needs_file_columns = false;
    for (size_t i = 0; i < columns_.size(); ++i) {
      const OutputColumn& col = columns_[i];
      if (!col.partition) {
        needs_file_columns = true;
        continue;
      }
      const std::optional<std::string>* raw =
          FindPartitionValue(add.partition_values, col.partition_key);
      auto scalar = ParsePartitionValue(raw ? *raw : std::nullopt, col.type());
      if (!scalar) {
        return WithContext(
            scalar.error(),
            fmt::format("data file '{}': partition column '{}'", add.path, col.name));
      }
      state->partition_values[i] = std::move(*scalar);
    }
    if (add.deletion_vector) {
      auto dv = LoadDeletionVector(*snapshot_->fs(), *add.deletion_vector,
                                   snapshot_->table_root(), state->path);
      if (!dv) return dv.error();
      state->dv = std::move(*dv);
    }
    auto props = DefaultArrowReaderProperties(options_.use_threads, options_.batch_size);
    state->dictionary.assign(columns_.size(), false);
    ConfigureArrowReader configure;
    if (needs_file_columns && !options_.dictionary_columns.empty()) {
      configure = [this, &state](const parquet::FileMetaData& md,
                                 parquet::ArrowReaderProperties* p) {
        ChooseDictionaryColumns(md, p, &state->dictionary);
      };
    }
    auto reader =
        OpenParquetFile(snapshot_->fs(), state->path, props, ErrorCode::kCorruptData, 0,
                        configure, options_.memory_pool);
    if (!reader) return ctx(reader.error());
    state->reader = std::move(*reader);
    state->schema = schema_;
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (!state->dictionary[i]) continue;
      const auto& field = schema_->field(static_cast<int>(i));
      DELTA_ARROW_ASSIGN_OR_RETURN(
          state->schema,
          state->schema->SetField(static_cast<int>(i),
                                  field->WithType(StringDictionaryType())),
          ErrorCode::kInternal, "scan schema");
    }

    // Map output columns to top-level file fields; read only those.
    const auto& manifest = state->reader->manifest();
    arrow::FieldVector file_fields;
    for (const auto& f : manifest.schema_fields) file_fields.push_back(f.field);
    std::vector<int> top(columns_.size(), -1);
    std::vector<int> selected;
    if (needs_file_columns) {
      for (size_t i = 0; i < columns_.size(); ++i) {
        if (columns_[i].partition) continue;
        top[i] = FindFileField(file_fields, *columns_[i].path[0], mode());
        if (top[i] >= 0) selected.push_back(top[i]);
      }
    }
    std::sort(selected.begin(), selected.end());
    selected.erase(std::unique(selected.begin(), selected.end()), selected.end());
    state->batch_column.assign(columns_.size(), -1);
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (top[i] < 0) continue;
      state->batch_column[i] = static_cast<int>(
          std::lower_bound(selected.begin(), selected.end(), top[i]) - selected.begin());
    }
    if (selected.empty()) {
      // Nothing to decode: only the row count matters.
      state->synthetic_rows_left =
          state->reader->parquet_reader()->metadata()->num_rows();
    } else {
      std::vector<int> leaves;
      for (int idx : selected) CollectParquetLeaves(manifest.schema_fields[idx], &leaves);
      auto sizes = CheckColumnChunkSizes(*state->reader->parquet_reader()->metadata(),
                                         leaves, state->path);
      if (!sizes) return sizes.error();
      std::vector<int> row_groups(state->reader->num_row_groups());
      for (size_t g = 0; g < row_groups.size(); ++g) row_groups[g] = static_cast<int>(g);
      auto batches = state->reader->GetRecordBatchReader(row_groups, leaves);
      if (!batches.ok()) {
        return ctx(internal::FromArrowStatus(batches.status(), ErrorCode::kCorruptData,
                                             "cannot read"));
      }
      state->batches = std::move(*batches);
    }
    file_ = std::move(state);
    return OkStatus();
  }

  // The dictionary_columns this file stores dictionary-encoded in every data page are
  // read as dictionaries (`chosen`, per output column).
  void ChooseDictionaryColumns(const parquet::FileMetaData& md,
                               parquet::ArrowReaderProperties* props,
                               std::vector<bool>* chosen) const {
    parquet::arrow::SchemaManifest manifest;
    if (!parquet::arrow::SchemaManifest::Make(md.schema(), md.key_value_metadata(),
                                              *props, &manifest)
             .ok()) {
      return;  // the reader reports the broken schema
    }
    arrow::FieldVector file_fields;
    for (const auto& f : manifest.schema_fields) file_fields.push_back(f.field);
    for (size_t i = 0; i < columns_.size(); ++i) {
      const OutputColumn& col = columns_[i];
      if (col.partition || col.path.size() != 1 ||
          col.type().kind() != TypeKind::kString ||
          std::find(options_.dictionary_columns.begin(),
                    options_.dictionary_columns.end(),
                    col.name) == options_.dictionary_columns.end()) {
        continue;
      }
      const int idx = FindFileField(file_fields, *col.path[0], mode());
      if (idx < 0) continue;
      const auto& field = manifest.schema_fields[static_cast<size_t>(idx)];
      if (!field.is_leaf() || field.field->type()->id() != arrow::Type::STRING ||
          !AllPagesDictionaryEncoded(md, field.column_index)) {
        continue;
      }
      props->set_read_dictionary(field.column_index, true);
      (*chosen)[i] = true;
    }
  }

  ColumnMappingMode mode() const { return snapshot_->column_mapping_mode(); }
  arrow::MemoryPool* pool() const {
    return options_.memory_pool != nullptr ? options_.memory_pool
                                           : arrow::default_memory_pool();
  }

  // The next batch of the current file in the output schema, DV applied; nullptr at the
  // end of the file.
  Result<std::shared_ptr<arrow::RecordBatch>> NextFromFile() {
    FileState& f = *file_;
    std::shared_ptr<arrow::RecordBatch> file_batch;
    int64_t n = 0;
    if (f.batches) {
      DELTA_ARROW_RETURN_NOT_OK(f.batches->ReadNext(&file_batch), ErrorCode::kCorruptData,
                                "cannot read");
      if (file_batch == nullptr) return nullptr;
      DELTA_ARROW_RETURN_NOT_OK(file_batch->Validate(), ErrorCode::kCorruptData,
                                "invalid batch");
      n = file_batch->num_rows();
    } else {
      if (f.synthetic_rows_left == 0) return nullptr;
      n = std::min(f.synthetic_rows_left, options_.batch_size);
      f.synthetic_rows_left -= n;
    }
    std::vector<std::shared_ptr<arrow::Array>> arrays;
    arrays.reserve(columns_.size());
    for (size_t i = 0; i < columns_.size(); ++i) {
      DELTA_ASSIGN_OR_RETURN(auto array, BuildColumn(i, file_batch.get(), n));
      arrays.push_back(std::move(array));
    }
    auto batch = arrow::RecordBatch::Make(f.schema, n, std::move(arrays));
    int64_t first = f.position;
    f.position += n;
    if (!f.dv) return batch;
    return ApplyDeletionVector(std::move(batch), *f.dv, first);
  }

  Result<std::shared_ptr<arrow::Array>> BuildColumn(size_t i,
                                                    const arrow::RecordBatch* batch,
                                                    int64_t n) {
    const OutputColumn& col = columns_[i];
    const FileState& f = *file_;
    if (col.partition) {
      DELTA_ARROW_ASSIGN_OR_RETURN(
          auto a, arrow::MakeArrayFromScalar(*f.partition_values[i], n, pool()),
          ErrorCode::kInternal, "partition column");
      return a;
    }
    std::shared_ptr<arrow::Array> array;
    if (f.batch_column[i] >= 0) array = batch->column(f.batch_column[i]);
    if (f.dictionary[i]) {  // ScanOptions::dictionary_columns
      if (array == nullptr || !IsStringDictionary(*array->type())) {
        return MakeError(ErrorCode::kInternal,
                         "column '{}': expected dictionary-encoded strings, read {}",
                         col.name,
                         array == nullptr ? "nothing" : array->type()->ToString());
      }
      // Parquet's dictionary decoder does not bound-check the indices it appends: a
      // corrupt page must fail here, not index past the dictionary downstream.
      DELTA_ARROW_RETURN_NOT_OK(array->ValidateFull(), ErrorCode::kCorruptData,
                                fmt::format("column '{}': invalid dictionary", col.name));
      return array;
    }
    // Walk a nested selection ("b.c"), folding parent nulls into the child.
    for (size_t step = 1; array != nullptr && step < col.path.size(); ++step) {
      if (array->type_id() != arrow::Type::STRUCT) {
        return MakeError(ErrorCode::kSchemaMismatch,
                         "column '{}': the data file has type {} where the table has a "
                         "struct",
                         col.name, array->type()->ToString());
      }
      const auto& st = static_cast<const arrow::StructArray&>(*array);
      int idx = FindFileField(st.type()->fields(), *col.path[step], mode());
      if (idx < 0) {
        array = nullptr;
        break;
      }
      DELTA_ARROW_ASSIGN_OR_RETURN(array, st.GetFlattenedField(idx),
                                   ErrorCode::kCorruptData,
                                   fmt::format("column '{}'", col.name));
    }
    if (array == nullptr) {
      DELTA_ASSIGN_OR_RETURN(auto type, ToArrowType(col.type()));
      DELTA_ARROW_ASSIGN_OR_RETURN(auto nulls, arrow::MakeArrayOfNull(type, n, pool()),
                                   ErrorCode::kInternal, "null column");
      return nulls;
    }
    return ConvertArray(array, col.type(), mode(), col.name);
  }

  // PROTOCOL.md "Deletion Vectors": row i of the file (0-based, in file order) is deleted
  // when i is in the DV.
  static Result<std::shared_ptr<arrow::RecordBatch>> ApplyDeletionVector(
      std::shared_ptr<arrow::RecordBatch> batch, const DeletionVector& dv,
      int64_t first) {
    int64_t n = batch->num_rows();
    std::vector<uint64_t> deleted =
        dv.RowsInRange(static_cast<uint64_t>(first), static_cast<uint64_t>(first + n));
    if (deleted.empty()) return batch;
    if (static_cast<int64_t>(deleted.size()) == n) return batch->Slice(0, 0);
    DELTA_ARROW_ASSIGN_OR_RETURN(auto bitmap, arrow::AllocateBitmap(n),
                                 ErrorCode::kIOError, "deletion vector mask");
    std::memset(bitmap->mutable_data(), 0xFF, static_cast<size_t>(bitmap->size()));
    for (uint64_t row : deleted) {
      arrow::bit_util::ClearBit(bitmap->mutable_data(),
                                static_cast<int64_t>(row) - first);
    }
    arrow::BooleanArray mask(n, std::move(bitmap));
    DELTA_ARROW_ASSIGN_OR_RETURN(
        auto filtered, arrow::compute::Filter(arrow::Datum(batch), arrow::Datum(mask)),
        ErrorCode::kInternal, "applying the deletion vector");
    return filtered.record_batch();
  }

  SnapshotRef snapshot_;
  ScanOptions options_;
  std::vector<const AddFile*> files_;  // the live files to read, in snapshot order
  std::vector<OutputColumn> columns_;
  std::shared_ptr<arrow::Schema> schema_;
  size_t next_file_ = 0;
  std::unique_ptr<FileState> file_;
  const AddFile* current_ = nullptr;  ///< the file of the last batch returned
  int64_t remaining_;                 // rows still allowed by the limit; -1 = no limit
  std::optional<Error> failed_;
};

}  // namespace

Result<std::unique_ptr<TableScan>> TableScan::Make(SnapshotRef snapshot,
                                                   const ScanOptions& options) {
  DELTA_RETURN_IF_ERROR(InitializeArrowCompute());
  if (snapshot == nullptr || snapshot->schema() == nullptr) {
    return MakeError(ErrorCode::kInvalidArgument, "TableScan needs a loaded snapshot");
  }
  if (options.batch_size <= 0) {
    return MakeError(ErrorCode::kInvalidArgument, "batch size must be positive, got {}",
                     options.batch_size);
  }
  if (options.limit && *options.limit < 0) {
    return MakeError(ErrorCode::kInvalidArgument, "limit must be >= 0, got {}",
                     *options.limit);
  }
  const StructType& schema = *snapshot->schema();
  const Metadata& md = snapshot->metadata();
  bool mapped = snapshot->column_mapping_mode() != ColumnMappingMode::kNone;
  std::vector<OutputColumn> columns;
  if (options.columns.empty()) {
    for (const StructField& f : schema.fields()) columns.push_back({f.name, {&f}});
  } else {
    for (const std::string& name : options.columns) {
      DELTA_ASSIGN_OR_RETURN(auto path,
                             ResolveColumn(schema, name, snapshot->table_root()));
      std::string out_name = path[0]->name;
      for (size_t i = 1; i < path.size(); ++i) out_name += "." + path[i]->name;
      columns.push_back({std::move(out_name), std::move(path)});
    }
  }
  arrow::FieldVector fields;
  for (OutputColumn& col : columns) {
    if (ContainsVariant(col.type())) {
      return MakeError(ErrorCode::kUnsupportedFeature,
                       "scanning variant column '{}' is not supported yet", col.name);
    }
    const StructField& top = *col.path[0];
    if (col.path.size() == 1 && IsPartitionColumn(md, top)) {
      col.partition = true;
      // PROTOCOL.md "Column Mapping": partitionValues are keyed by physical name.
      col.partition_key = mapped ? top.physical_name().value_or(top.name) : top.name;
    }
    bool nullable = false;
    for (const StructField* f : col.path) nullable = nullable || f->nullable;
    DELTA_ASSIGN_OR_RETURN(auto field, ToArrowField(*col.path.back()));
    // A nested selection is null where any ancestor is null.
    fields.push_back(field->WithName(col.name)->WithNullable(nullable));
  }
  auto out_schema = arrow::schema(std::move(fields));
  std::vector<const AddFile*> files;
  for (const AddFile& add : snapshot->files()) {
    if (!options.file_filter || options.file_filter(add)) files.push_back(&add);
  }
  if (options.read_ahead_files > 1 && !options.limit && files.size() > 1) {
    // Each file gets its own sequential scan; the read-ahead scan keeps them in order.
    auto open_file = [snapshot, options, columns, out_schema](
                         const AddFile& add) -> Result<std::unique_ptr<TableScan>> {
      return std::unique_ptr<TableScan>(
          new ParquetTableScan(snapshot, options, {&add}, columns, out_schema));
    };
    auto scan = parquet_internal::MakeReadAheadScan(
        out_schema, files, std::move(open_file), options.read_ahead_files,
        options.read_ahead_batches == 0 ? SIZE_MAX : options.read_ahead_batches);
    if (scan != nullptr) return scan;
  }
  return std::unique_ptr<TableScan>(
      new ParquetTableScan(std::move(snapshot), options, std::move(files),
                           std::move(columns), std::move(out_schema)));
}

}  // namespace deltaguard
