#include "deltaguard/io/parquet/partitioned_writer.h"

#include <arrow/array.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/compute/api.h>
#include <arrow/record_batch.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_map>
#include <utility>

#include "deltaguard/arrow/status.h"
#include "deltaguard/io/parquet/parquet_file.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {

class PartitionedWriter::Impl {
 public:
  FileSystemRef fs;
  std::string root;
  SchemaRef table_schema;
  SchemaRef data_schema;  // table_schema without the partition columns
  ColumnMappingMode mode = ColumnMappingMode::kNone;
  DataFileWriterOptions options;
  std::vector<int> partition_indices;       // in partition-column order
  std::vector<int> data_indices;            // table columns that go into the files
  std::vector<std::string> partition_keys;  // add.partitionValues keys (physical)

  // One writer per partition, keyed by the serialized partition values.
  std::map<PartitionValues, std::unique_ptr<DataFileWriter>> writers;
  std::vector<PartitionValues> order;  // first-seen order
  std::vector<WrittenFile> finished;   // files of writers closed so far

  Result<DataFileWriter*> WriterFor(const PartitionValues& values) {
    auto it = writers.find(values);
    if (it != writers.end()) return it->second.get();
    DELTA_ASSIGN_OR_RETURN(
        auto writer, DataFileWriter::Make(fs, root, data_schema, mode, values, options));
    order.push_back(values);
    auto* raw = writer.get();
    writers.emplace(values, std::move(writer));
    return raw;
  }

  Result<std::shared_ptr<arrow::RecordBatch>> DataColumns(
      const std::shared_ptr<arrow::RecordBatch>& batch) const {
    if (partition_indices.empty()) return batch;
    std::vector<std::shared_ptr<arrow::Field>> fields;
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (int i : data_indices) {
      fields.push_back(batch->schema()->field(i));
      columns.push_back(batch->column(i));
    }
    return arrow::RecordBatch::Make(arrow::schema(std::move(fields)), batch->num_rows(),
                                    std::move(columns));
  }

  Status WritePartitioned(const std::shared_ptr<arrow::RecordBatch>& batch);
};

namespace {

// Dictionary-encoded partition column: per-row code (-1 = null) and the serialized
// value of each code.
struct EncodedColumn {
  std::vector<int32_t> codes;
  std::vector<std::optional<std::string>> values;
};

Result<EncodedColumn> EncodeColumn(const std::shared_ptr<arrow::Array>& column,
                                   const StructField& field) {
  const std::string context = fmt::format("partition column '{}'", field.name);
  DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum encoded,
                               arrow::compute::DictionaryEncode(column),
                               ErrorCode::kInternal, context);
  auto dict_array =
      std::static_pointer_cast<arrow::DictionaryArray>(encoded.make_array());
  EncodedColumn out;
  const auto& dictionary = dict_array->dictionary();
  out.values.reserve(static_cast<size_t>(dictionary->length()));
  for (int64_t i = 0; i < dictionary->length(); ++i) {
    DELTA_ARROW_ASSIGN_OR_RETURN(auto scalar, dictionary->GetScalar(i),
                                 ErrorCode::kInternal, context);
    DELTA_ASSIGN_OR_RETURN(auto value, EncodePartitionValue(*scalar, *field.type));
    out.values.push_back(std::move(value));
  }
  const auto& indices = static_cast<const arrow::Int32Array&>(*dict_array->indices());
  out.codes.resize(static_cast<size_t>(indices.length()));
  for (int64_t r = 0; r < indices.length(); ++r)
    out.codes[static_cast<size_t>(r)] = indices.IsNull(r) ? -1 : indices.Value(r);
  return out;
}

}  // namespace

Status PartitionedWriter::Impl::WritePartitioned(
    const std::shared_ptr<arrow::RecordBatch>& batch) {
  std::vector<EncodedColumn> encoded;
  for (size_t p = 0; p < partition_indices.size(); ++p) {
    const StructField& field =
        table_schema->field(static_cast<size_t>(partition_indices[p]));
    DELTA_ASSIGN_OR_RETURN(auto column,
                           EncodeColumn(batch->column(partition_indices[p]), field));
    encoded.push_back(std::move(column));
  }
  // Group rows by their tuple of codes. The key is the codes' bytes: a batch holds few
  // distinct tuples, so the map stays small.
  const int64_t num_rows = batch->num_rows();
  std::unordered_map<std::string, size_t> group_of;
  std::vector<std::string> group_keys;
  std::vector<std::vector<int64_t>> group_rows;
  std::string key(encoded.size() * sizeof(int32_t), '\0');
  for (int64_t r = 0; r < num_rows; ++r) {
    for (size_t p = 0; p < encoded.size(); ++p) {
      int32_t code = encoded[p].codes[static_cast<size_t>(r)];
      std::memcpy(key.data() + p * sizeof(int32_t), &code, sizeof(int32_t));
    }
    auto [it, inserted] = group_of.try_emplace(key, group_rows.size());
    if (inserted) {
      group_keys.push_back(key);
      group_rows.emplace_back();
    }
    group_rows[it->second].push_back(r);
  }
  DELTA_ASSIGN_OR_RETURN(auto data, DataColumns(batch));
  for (size_t g = 0; g < group_rows.size(); ++g) {
    PartitionValues values;
    for (size_t p = 0; p < encoded.size(); ++p) {
      int32_t code;
      std::memcpy(&code, group_keys[g].data() + p * sizeof(int32_t), sizeof(int32_t));
      values.emplace_back(
          partition_keys[p],
          code < 0 ? std::nullopt : encoded[p].values[static_cast<size_t>(code)]);
    }
    DELTA_ASSIGN_OR_RETURN(DataFileWriter * writer, WriterFor(values));
    if (group_rows.size() == 1) {
      DELTA_RETURN_IF_ERROR(writer->Write(*data));
      continue;
    }
    arrow::Int64Builder builder;
    DELTA_ARROW_RETURN_NOT_OK(builder.AppendValues(group_rows[g]), ErrorCode::kInternal,
                              "partition row indices");
    std::shared_ptr<arrow::Array> indices;
    DELTA_ARROW_RETURN_NOT_OK(builder.Finish(&indices), ErrorCode::kInternal,
                              "partition row indices");
    DELTA_ARROW_ASSIGN_OR_RETURN(
        arrow::Datum taken,
        arrow::compute::Take(arrow::Datum(data), arrow::Datum(indices)),
        ErrorCode::kInternal, "splitting rows by partition");
    DELTA_RETURN_IF_ERROR(writer->Write(*taken.record_batch()));
  }
  return OkStatus();
}

PartitionedWriter::PartitionedWriter(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
PartitionedWriter::~PartitionedWriter() = default;

Result<std::unique_ptr<PartitionedWriter>> PartitionedWriter::Make(
    FileSystemRef fs, std::string table_root, SchemaRef table_schema,
    std::vector<std::string> partition_columns, ColumnMappingMode mode,
    DataFileWriterOptions options) {
  DELTA_RETURN_IF_ERROR(InitializeArrowCompute());
  auto impl = std::make_unique<Impl>();
  impl->fs = std::move(fs);
  impl->root = std::move(table_root);
  impl->mode = mode;
  impl->options = std::move(options);
  std::vector<bool> is_partition(table_schema->num_fields(), false);
  for (const auto& name : partition_columns) {
    int index = table_schema->FieldIndexCaseInsensitive(name);
    if (index < 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "partition column '{}' is not a column of the table", name);
    }
    const StructField& field = table_schema->field(static_cast<size_t>(index));
    if (field.type->is_nested()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "partition column '{}' has type {}; partition columns must have "
                       "a primitive type",
                       field.name, field.type->ToString());
    }
    is_partition[static_cast<size_t>(index)] = true;
    impl->partition_indices.push_back(index);
    std::string key = field.name;
    if (mode != ColumnMappingMode::kNone) {
      if (auto physical = field.physical_name()) key = *physical;
    }
    impl->partition_keys.push_back(std::move(key));
  }
  std::vector<StructField> data_fields;
  for (size_t i = 0; i < table_schema->num_fields(); ++i) {
    if (is_partition[i]) continue;
    impl->data_indices.push_back(static_cast<int>(i));
    data_fields.push_back(table_schema->field(i));
  }
  impl->data_schema = std::make_shared<StructType>(std::move(data_fields));
  impl->table_schema = std::move(table_schema);
  return std::unique_ptr<PartitionedWriter>(new PartitionedWriter(std::move(impl)));
}

Status PartitionedWriter::Write(const std::shared_ptr<arrow::RecordBatch>& batch) {
  if (batch->num_rows() == 0) return OkStatus();
  rows_ += batch->num_rows();
  if (impl_->partition_indices.empty()) {
    DELTA_ASSIGN_OR_RETURN(DataFileWriter * writer, impl_->WriterFor({}));
    return writer->Write(*batch);
  }
  return impl_->WritePartitioned(batch);
}

Result<std::vector<WrittenFile>> PartitionedWriter::Finish() {
  for (const auto& values : impl_->order) {
    auto it = impl_->writers.find(values);
    // A writer whose Finish fails has deleted its own files.
    auto files = it->second->Finish();
    impl_->writers.erase(it);
    if (!files) return files.error();
    for (auto& f : *files) impl_->finished.push_back(std::move(f));
  }
  impl_->order.clear();
  return impl_->finished;
}

void PartitionedWriter::Abort() {
  // Open writers delete what they published; finished writers' files are listed.
  for (const auto& values : impl_->order) {
    auto it = impl_->writers.find(values);
    if (it != impl_->writers.end()) it->second->Abort();
  }
  impl_->writers.clear();
  impl_->order.clear();
  for (const auto& f : impl_->finished) {
    auto decoded = PercentDecode(f.relative_path);
    if (decoded) (void)impl_->fs->Delete(JoinPath(impl_->root, *decoded));
  }
  impl_->finished.clear();
}

}  // namespace deltaguard
