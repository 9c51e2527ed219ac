// Parquet files as an ingestion source (ingest/parquet_reader.h).

#include "deltaguard/ingest/parquet_reader.h"

#include <arrow/api.h>
#include <arrow/compute/cast.h>
#include <arrow/util/bitmap_ops.h>
#include <fmt/format.h>
#include <parquet/arrow/reader.h>
#include <parquet/exception.h>

#include <algorithm>
#include <exception>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/evolution/write_schema.h"
#include "deltaguard/exec/result_format.h"
#include "deltaguard/io/parquet/parquet_file.h"
#include "deltaguard/schema/column_path.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

std::string FileName(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The field of `names` a source name maps to: the same name, else (not case-
// sensitive) one differing by case; -1: none. `*folded`: a case-differing one exists.
template <typename Names>
int MatchName(const Names& names, size_t count, const std::string& name,
              bool case_sensitive, bool* folded = nullptr) {
  int exact = -1, fold = -1;
  for (size_t i = 0; i < count; ++i) {
    if (names(i) == name) exact = static_cast<int>(i);
    if (fold < 0 && EqualsIgnoreCase(names(i), name)) fold = static_cast<int>(i);
  }
  if (folded != nullptr) *folded = fold >= 0;
  if (exact >= 0) return exact;
  return case_sensitive ? -1 : fold;
}

int MatchField(const StructType& type, const std::string& name, bool case_sensitive,
               bool* folded = nullptr) {
  return MatchName([&](size_t i) -> const std::string& { return type.field(i).name; },
                   type.num_fields(), name, case_sensitive, folded);
}

int MatchArrowField(const arrow::StructType& type, const std::string& name,
                    bool case_sensitive) {
  return MatchName(
      [&](size_t i) -> const std::string& {
        return type.field(static_cast<int>(i))->name();
      },
      static_cast<size_t>(type.num_fields()), name, case_sensitive);
}

// The fields of `src` (a file's type) that `dst` (the schema's) lacks, nested ones
// under their struct, and, with `mismatches`, the fields whose types differ.
// Case-differing names with readerCaseSensitive are rescued, not new (ingest/values.h).
void CompareTypes(const DataTypeRef& src, const DataType& dst, bool case_sensitive,
                  bool mismatches, std::vector<std::string>* path,
                  std::vector<UnknownField>* out) {
  if (src->kind() == TypeKind::kStruct && dst.kind() == TypeKind::kStruct) {
    const auto& s = static_cast<const StructType&>(*src);
    const auto& d = static_cast<const StructType&>(dst);
    for (const auto& f : s.fields()) {
      bool folded = false;
      const int j = MatchField(d, f.name, case_sensitive, &folded);
      path->push_back(f.name);
      if (j >= 0) {
        CompareTypes(f.type, *d.field(static_cast<size_t>(j)).type, case_sensitive,
                     mismatches, path, out);
      } else if (!folded) {
        out->push_back(UnknownField{*path, MakeNullable(f.type), false});
      }
      path->pop_back();
    }
    return;
  }
  if (mismatches && !src->Equals(dst) && !path->empty()) {
    out->push_back(UnknownField{*path, MakeNullable(src), true});
  }
}

std::string JsonOf(const arrow::Array& array, int64_t row) {
  std::string out;
  AppendJsonValue(array, row, &out);
  return out;
}

class ParquetIngestReader final : public arrow::RecordBatchReader {
 public:
  ParquetIngestReader(FileSystemRef fs, std::vector<IngestFile> files, ReadSpec spec,
                      std::shared_ptr<ReadStats> stats,
                      std::shared_ptr<arrow::Schema> schema, SchemaRef output)
      : fs_(std::move(fs)),
        files_(std::move(files)),
        spec_(std::move(spec)),
        stats_(std::move(stats)),
        schema_(std::move(schema)),
        output_(std::move(output)),
        values_(IngestValueOptions(spec_.options)) {}

  Status Init() {
    IngestLayout layout = MakeIngestLayout(spec_);
    record_index_ = std::move(layout.record);
    partition_index_ = std::move(layout.partition);
    record_schema_ = layout.record_schema;
    rescued_ = layout.rescued;
    corrupt_ = layout.corrupt;
    raw_ = layout.raw;
    metadata_ = std::move(layout.metadata);
    keep_ = IngestProjection(spec_);  // the columns a query reads (ReadSpec::columns)
    out_schema_ = ProjectSchema(schema_, keep_);
    return OkStatus();
  }

  std::shared_ptr<arrow::Schema> schema() const override { return out_schema_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    *out = nullptr;
    auto st = Next(out);
    if (!st) return internal::ToArrowStatus(st.error());
    return arrow::Status::OK();
  }

 private:
  Status Next(std::shared_ptr<arrow::RecordBatch>* out) {
    if (!checked_) {
      checked_ = true;
      if (spec_.evolves) DELTA_RETURN_IF_ERROR(CheckEvolution());
    }
    while (true) {
      if (batches_ == nullptr) {
        if (next_file_ >= files_.size()) return OkStatus();
        DELTA_RETURN_IF_ERROR(OpenNextFile());
      }
      std::shared_ptr<arrow::RecordBatch> batch;
      arrow::Status st;
      try {
        st = batches_->ReadNext(&batch);
      } catch (const std::exception& e) {
        st = arrow::Status::IOError(e.what());
      }
      if (!st.ok()) {
        return internal::FromArrowStatus(
            st, ErrorCode::kCorruptData,
            fmt::format("reading Parquet file '{}'", file_->path));
      }
      if (batch == nullptr) {
        batches_.reset();
        parquet_.reset();
        continue;
      }
      if (batch->num_rows() == 0) continue;
      DELTA_ASSIGN_OR_RETURN(*out, Convert(*batch));
      return OkStatus();
    }
  }

  bool Kept(size_t out) const { return keep_.empty() || keep_[out]; }

  // The file's top-level fields to decode: all without a projection, else those the
  // kept data columns map to (at least one, for the row count). batch_column_[j] is
  // file field j's column in the decoded batches (-1: not decoded).
  std::vector<int> SelectFileFields() {
    const int n = source_schema_->num_fields();
    std::vector<int> selected;
    if (keep_.empty()) {
      for (int j = 0; j < n; ++j) selected.push_back(j);
    } else {
      for (size_t k = 0; k < source_of_.size(); ++k) {
        if (source_of_[k] >= 0 && keep_[record_index_[k]]) {
          selected.push_back(source_of_[k]);
        }
      }
      std::sort(selected.begin(), selected.end());
      if (selected.empty() && n > 0) selected.push_back(0);
    }
    batch_column_.assign(static_cast<size_t>(n), -1);
    for (size_t i = 0; i < selected.size(); ++i) {
      batch_column_[static_cast<size_t>(selected[i])] = static_cast<int>(i);
    }
    return selected;
  }

  // The file's footer: its Arrow and Delta schemas, and what the schema lacks.
  Result<std::unique_ptr<parquet::arrow::FileReader>> Open(
      const IngestFile& file, std::shared_ptr<arrow::Schema>* arrow_schema,
      std::vector<UnknownField>* unknown) {
    DELTA_ASSIGN_OR_RETURN(auto reader, OpenParquetFile(fs_, file.path,
                                                        DefaultArrowReaderProperties(
                                                            false, spec_.batch_rows),
                                                        ErrorCode::kCorruptData));
    DELTA_ARROW_RETURN_NOT_OK(reader->GetSchema(arrow_schema), ErrorCode::kCorruptData,
                              fmt::format("Parquet file '{}'", file.path));
    auto delta = FromArrowSchema(**arrow_schema);
    if (!delta)
      return WithContext(delta.error(), fmt::format("Parquet file '{}'", file.path));
    std::vector<std::string> path;
    CompareTypes(*delta, *record_schema_, spec_.options.reader_case_sensitive,
                 IngestValueOptions(spec_.options).report_mismatches, &path, unknown);
    return reader;
  }

  // A batch that evolves the schema fails before any row is read, with every file's
  // new columns named (the footers tell them all).
  Status CheckEvolution() {
    bool evolves = false;
    for (const auto& f : files_) {
      std::shared_ptr<arrow::Schema> s;
      std::vector<UnknownField> unknown;
      auto opened = Open(f, &s, &unknown);
      if (!opened) return opened.error();
      for (auto& u : unknown) {
        evolves = evolves || spec_.evolves(u);
        MergeUnknownField(std::move(u), &stats_->unknown);
      }
    }
    if (!evolves) return OkStatus();
    return NewFieldsError(stats_->unknown, spec_.evolves);
  }

  Status OpenNextFile() {
    file_ = &files_[next_file_++];
    std::vector<UnknownField> unknown;
    DELTA_ASSIGN_OR_RETURN(parquet_, Open(*file_, &source_schema_, &unknown));
    if (!spec_.evolves) {
      for (auto& u : unknown) MergeUnknownField(std::move(u), &stats_->unknown);
    }
    ++stats_->files;
    stats_->bytes += file_->size;
    const bool cs = spec_.options.reader_case_sensitive;
    source_of_.assign(record_schema_->num_fields(), -1);
    taken_.assign(static_cast<size_t>(source_schema_->num_fields()), false);
    for (size_t k = 0; k < record_schema_->num_fields(); ++k) {
      const int j = MatchName(
          [&](size_t i) -> const std::string& {
            return source_schema_->field(static_cast<int>(i))->name();
          },
          static_cast<size_t>(source_schema_->num_fields()),
          record_schema_->field(k).name, cs);
      if (j >= 0 && !taken_[static_cast<size_t>(j)]) {
        source_of_[k] = j;
        taken_[static_cast<size_t>(j)] = true;
      }
    }
    DELTA_RETURN_IF_ERROR(PartitionValues());
    std::vector<int> leaves;
    for (const int j : SelectFileFields()) {
      CollectParquetLeaves(parquet_->manifest().schema_fields[static_cast<size_t>(j)],
                           &leaves);
    }
    DELTA_RETURN_IF_ERROR(CheckColumnChunkSizes(*parquet_->parquet_reader()->metadata(),
                                                leaves, file_->path));
    std::vector<int> row_groups(static_cast<size_t>(parquet_->num_row_groups()));
    for (size_t i = 0; i < row_groups.size(); ++i) row_groups[i] = static_cast<int>(i);
    DELTA_ARROW_ASSIGN_OR_RETURN(
        batches_, parquet_->GetRecordBatchReader(row_groups, leaves),
        ErrorCode::kCorruptData, fmt::format("reading Parquet file '{}'", file_->path));
    return OkStatus();
  }

  // The partition columns' values of the file, parsed once (a value that does not
  // parse as its column's type is rescued on every row).
  Status PartitionValues() {
    partition_arrays_.clear();
    partition_rescued_.clear();
    for (size_t i : partition_index_) {
      const StructField& f = spec_.data_schema->field(i);
      std::unique_ptr<arrow::ArrayBuilder> b;
      DELTA_ARROW_RETURN_NOT_OK(
          arrow::MakeBuilder(arrow::default_memory_pool(),
                             schema_->field(static_cast<int>(i))->type(), &b),
          ErrorCode::kInternal, "partition column builder");
      const std::string* value = nullptr;
      for (const auto& [k, v] : file_->partition_values) {
        if (EqualsIgnoreCase(k, f.name)) value = &v;
      }
      if (value == nullptr) {
        DELTA_ARROW_RETURN_NOT_OK(b->AppendNull(), ErrorCode::kInternal, f.name);
      } else {
        RescuedFields rescued;
        values_.AppendText(*value, *f.type, b.get(), {f.name}, &rescued, nullptr);
        if (!rescued.empty()) partition_rescued_.emplace_back(f.name, JsonQuote(*value));
      }
      std::shared_ptr<arrow::Array> one;
      DELTA_ARROW_RETURN_NOT_OK(b->Finish(&one), ErrorCode::kInternal, f.name);
      partition_arrays_.push_back(std::move(one));
    }
    return OkStatus();
  }

  void Rescue(int64_t row, std::vector<std::string> path, std::string json) {
    rescued_rows_[static_cast<size_t>(row)].Add(std::move(path), std::move(json));
    any_rescued_ = true;
  }

  // `src` as `type` (see the file comment); values that do not cast are rescued.
  Result<std::shared_ptr<arrow::Array>> ConvertColumn(
      const std::shared_ptr<arrow::Array>& src, const DataType& type,
      const std::shared_ptr<arrow::DataType>& arrow_type,
      std::vector<std::string>* path) {
    if (src->type()->Equals(*arrow_type)) return src;
    if (type.kind() == TypeKind::kStruct && src->type_id() == arrow::Type::STRUCT) {
      return ConvertStruct(static_cast<const arrow::StructArray&>(*src),
                           static_cast<const StructType&>(type), arrow_type, path);
    }
    const auto safe = arrow::compute::CastOptions::Safe();
    auto cast = arrow::compute::Cast(*src, arrow_type, safe);
    if (cast.ok()) return *cast;
    // Value by value: the ones that cast are kept, the others rescued.
    std::unique_ptr<arrow::ArrayBuilder> b;
    DELTA_ARROW_RETURN_NOT_OK(
        arrow::MakeBuilder(arrow::default_memory_pool(), arrow_type, &b),
        ErrorCode::kInternal, FormatColumnPath(*path));
    for (int64_t r = 0; r < src->length(); ++r) {
      arrow::Status st;
      if (src->IsNull(r)) {
        st = b->AppendNull();
      } else if (auto one = arrow::compute::Cast(*src->Slice(r, 1), arrow_type, safe);
                 one.ok()) {
        st = b->AppendArraySlice(arrow::ArraySpan(*(*one)->data()), 0, 1);
      } else {
        Rescue(r, *path, JsonOf(*src, r));
        st = b->AppendNull();
      }
      DELTA_ARROW_RETURN_NOT_OK(st, ErrorCode::kInternal, FormatColumnPath(*path));
    }
    std::shared_ptr<arrow::Array> out;
    DELTA_ARROW_RETURN_NOT_OK(b->Finish(&out), ErrorCode::kInternal,
                              FormatColumnPath(*path));
    return out;
  }

  // A struct field by field, by name; fields the schema lacks are rescued under
  // their path.
  Result<std::shared_ptr<arrow::Array>> ConvertStruct(
      const arrow::StructArray& src, const StructType& type,
      const std::shared_ptr<arrow::DataType>& arrow_type,
      std::vector<std::string>* path) {
    const auto& src_type = static_cast<const arrow::StructType&>(*src.type());
    const bool cs = spec_.options.reader_case_sensitive;
    std::vector<bool> taken(static_cast<size_t>(src_type.num_fields()), false);
    std::vector<std::shared_ptr<arrow::Array>> children;
    for (size_t i = 0; i < type.num_fields(); ++i) {
      const StructField& f = type.field(i);
      const auto& child_type = arrow_type->field(static_cast<int>(i))->type();
      const int j = MatchArrowField(src_type, f.name, cs);
      if (j < 0 || taken[static_cast<size_t>(j)]) {
        DELTA_ARROW_ASSIGN_OR_RETURN(auto nulls,
                                     arrow::MakeArrayOfNull(child_type, src.length()),
                                     ErrorCode::kInternal, f.name);
        children.push_back(std::move(nulls));
        continue;
      }
      taken[static_cast<size_t>(j)] = true;
      DELTA_ARROW_ASSIGN_OR_RETURN(auto child, src.GetFlattenedField(j),
                                   ErrorCode::kInternal, f.name);
      path->push_back(f.name);
      auto converted = ConvertColumn(child, *f.type, child_type, path);
      path->pop_back();
      if (!converted) return converted.error();
      children.push_back(std::move(*converted));
    }
    for (int j = 0; j < src_type.num_fields(); ++j) {
      if (taken[static_cast<size_t>(j)]) continue;
      DELTA_ARROW_ASSIGN_OR_RETURN(auto child, src.GetFlattenedField(j),
                                   ErrorCode::kInternal, src_type.field(j)->name());
      RescueColumn(*child, *path, src_type.field(j)->name());
    }
    std::shared_ptr<arrow::Buffer> validity;
    if (src.null_count() > 0) {
      DELTA_ARROW_ASSIGN_OR_RETURN(
          validity,
          arrow::internal::CopyBitmap(arrow::default_memory_pool(),
                                      src.null_bitmap_data(), src.offset(), src.length()),
          ErrorCode::kInternal, FormatColumnPath(*path));
    }
    DELTA_ARROW_ASSIGN_OR_RETURN(auto out,
                                 arrow::StructArray::Make(children, arrow_type->fields(),
                                                          validity, src.null_count()),
                                 ErrorCode::kInternal, FormatColumnPath(*path));
    return std::shared_ptr<arrow::Array>(std::move(out));
  }

  void RescueColumn(const arrow::Array& column, std::vector<std::string> path,
                    const std::string& name) {
    path.push_back(name);
    for (int64_t r = 0; r < column.length(); ++r) {
      if (!column.IsNull(r)) Rescue(r, path, JsonOf(column, r));
    }
  }

  Result<std::shared_ptr<arrow::RecordBatch>> Convert(const arrow::RecordBatch& batch) {
    const int64_t n = batch.num_rows();
    rescued_rows_.assign(static_cast<size_t>(n), RescuedFields{});
    any_rescued_ = false;
    std::vector<std::shared_ptr<arrow::Array>> columns(
        static_cast<size_t>(schema_->num_fields()));
    std::vector<std::string> path;
    for (size_t k = 0; k < record_index_.size(); ++k) {
      const size_t out = record_index_[k];
      if (!Kept(out)) continue;
      const auto& type = schema_->field(static_cast<int>(out))->type();
      if (source_of_[k] < 0) {
        DELTA_ARROW_ASSIGN_OR_RETURN(columns[out], arrow::MakeArrayOfNull(type, n),
                                     ErrorCode::kInternal, "null column");
        continue;
      }
      path.assign(1, record_schema_->field(k).name);
      DELTA_ASSIGN_OR_RETURN(
          columns[out],
          ConvertColumn(batch.column(batch_column_[static_cast<size_t>(source_of_[k])]),
                        *record_schema_->field(k).type, type, &path));
    }
    // Columns the schema lacks are rescued; a projection did not decode them.
    for (int j = 0; keep_.empty() && j < batch.num_columns(); ++j) {
      if (!taken_[static_cast<size_t>(j)]) {
        RescueColumn(*batch.column(j), {}, batch.schema()->field(j)->name());
      }
    }
    for (size_t p = 0; p < partition_index_.size(); ++p) {
      if (!Kept(partition_index_[p])) continue;
      DELTA_ASSIGN_OR_RETURN(columns[partition_index_[p]],
                             Repeat(*partition_arrays_[p], n));
    }
    // A path value of the wrong type: rescued on every row of the file.
    for (const auto& [name, json] : partition_rescued_) {
      for (int64_t r = 0; r < n; ++r) Rescue(r, {name}, json);
    }
    DELTA_RETURN_IF_ERROR(ExtraColumns(batch, &columns));
    stats_->rows += n;
    if (!keep_.empty()) {
      std::vector<std::shared_ptr<arrow::Array>> kept;
      for (size_t i = 0; i < keep_.size(); ++i) {
        if (keep_[i]) kept.push_back(std::move(columns[i]));
      }
      columns = std::move(kept);
    }
    return arrow::RecordBatch::Make(out_schema_, n, std::move(columns));
  }

  Result<std::shared_ptr<arrow::Array>> Repeat(const arrow::Array& one, int64_t n) {
    DELTA_ARROW_ASSIGN_OR_RETURN(auto scalar, one.GetScalar(0), ErrorCode::kInternal,
                                 "partition value");
    DELTA_ARROW_ASSIGN_OR_RETURN(auto out, arrow::MakeArrayFromScalar(*scalar, n),
                                 ErrorCode::kInternal, "partition value");
    return out;
  }

  // The rescued, corrupt-record, raw and metadata columns.
  Status ExtraColumns(const arrow::RecordBatch& batch,
                      std::vector<std::shared_ptr<arrow::Array>>* columns) {
    const int64_t n = batch.num_rows();
    auto finish = [&](arrow::ArrayBuilder* b, int index) -> Status {
      DELTA_ARROW_RETURN_NOT_OK(b->Finish(&(*columns)[static_cast<size_t>(index)]),
                                ErrorCode::kInternal, "ingest column");
      return OkStatus();
    };
    if (rescued_ >= 0 && Kept(static_cast<size_t>(rescued_))) {
      arrow::StringBuilder b;
      for (int64_t r = 0; r < n; ++r) {
        const auto& fields = rescued_rows_[static_cast<size_t>(r)];
        arrow::Status st = arrow::Status::OK();
        if (fields.empty()) {
          st = b.AppendNull();
        } else {
          ++stats_->rescued_rows;
          st = b.Append(fields.Render(file_->path));
        }
        DELTA_ARROW_RETURN_NOT_OK(st, ErrorCode::kInternal, "rescued column");
      }
      DELTA_RETURN_IF_ERROR(finish(&b, rescued_));
    } else if (rescued_ < 0 && any_rescued_) {
      for (const auto& fields : rescued_rows_) {
        if (fields.empty()) continue;
        return MakeError(ErrorCode::kSchemaMismatch,
                         "{}: a record has values that do not fit the schema ({}) and "
                         "there is no rescued column to keep them; set "
                         "rescuedDataColumn",
                         file_->path, fields.Render(file_->path));
      }
    }
    if (corrupt_ >= 0 && Kept(static_cast<size_t>(corrupt_))) {
      DELTA_ARROW_ASSIGN_OR_RETURN((*columns)[static_cast<size_t>(corrupt_)],
                                   arrow::MakeArrayOfNull(arrow::utf8(), n),
                                   ErrorCode::kInternal, "corrupt-record column");
    }
    if (raw_ >= 0 && Kept(static_cast<size_t>(raw_))) {
      arrow::StringBuilder b;
      std::string json;
      for (int64_t r = 0; r < n; ++r) {
        json.assign("{");
        for (int j = 0; j < batch.num_columns(); ++j) {
          if (batch.column(j)->IsNull(r)) continue;
          if (json.size() > 1) json += ',';
          json += JsonQuote(batch.schema()->field(j)->name());
          json += ':';
          AppendJsonValue(*batch.column(j), r, &json);
        }
        json += '}';
        DELTA_ARROW_RETURN_NOT_OK(b.Append(json), ErrorCode::kInternal, "raw column");
      }
      DELTA_RETURN_IF_ERROR(finish(&b, raw_));
    }
    for (const auto& [name, index] : metadata_) {
      if (!Kept(static_cast<size_t>(index))) continue;
      std::shared_ptr<arrow::Scalar> scalar;
      const auto& type = schema_->field(index)->type();
      if (name == "_source_file") {
        scalar = arrow::MakeScalar(file_->path);
      } else if (name == "_ingested_at") {
        scalar = std::make_shared<arrow::TimestampScalar>(spec_.ingested_at_micros, type);
      } else {  // _metadata
        scalar = std::make_shared<arrow::StructScalar>(
            arrow::ScalarVector{
                arrow::MakeScalar(file_->path), arrow::MakeScalar(FileName(file_->path)),
                arrow::MakeScalar(file_->size),
                std::make_shared<arrow::TimestampScalar>(file_->modification_time * 1000,
                                                         type->field(3)->type())},
            type);
      }
      DELTA_ARROW_ASSIGN_OR_RETURN((*columns)[static_cast<size_t>(index)],
                                   arrow::MakeArrayFromScalar(*scalar, n),
                                   ErrorCode::kInternal, name);
    }
    return OkStatus();
  }

  FileSystemRef fs_;
  std::vector<IngestFile> files_;
  ReadSpec spec_;
  std::shared_ptr<ReadStats> stats_;
  std::shared_ptr<arrow::Schema> schema_;      // IngestOutputSchema
  std::shared_ptr<arrow::Schema> out_schema_;  // its kept columns (all: schema_)
  std::vector<bool> keep_;                     // per column of schema_; empty: all
  SchemaRef output_;
  ValueAppender values_;
  SchemaRef record_schema_;              // the data columns the files fill
  std::vector<size_t> record_index_;     // their indexes in the output
  std::vector<size_t> partition_index_;  // the partition columns' indexes
  int rescued_ = -1, corrupt_ = -1, raw_ = -1;
  std::vector<std::pair<std::string, int>> metadata_;
  bool checked_ = false;

  size_t next_file_ = 0;
  const IngestFile* file_ = nullptr;
  std::unique_ptr<parquet::arrow::FileReader> parquet_;
  std::unique_ptr<arrow::RecordBatchReader> batches_;
  std::shared_ptr<arrow::Schema> source_schema_;
  std::vector<int> source_of_;     // per record field: its column in the file, or -1
  std::vector<bool> taken_;        // per file column: whether a record field maps to it
  std::vector<int> batch_column_;  // per file column: its decoded column, or -1
  std::vector<std::shared_ptr<arrow::Array>> partition_arrays_;
  std::vector<std::pair<std::string, std::string>> partition_rescued_;  // name, JSON
  std::vector<RescuedFields> rescued_rows_;
  bool any_rescued_ = false;
};

}  // namespace

Result<SchemaRef> ParquetFileSchema(const FileSystemRef& fs, const IngestFile& file) {
  DELTA_ASSIGN_OR_RETURN(
      auto reader,
      OpenParquetFile(fs, file.path, DefaultArrowReaderProperties(false, 1024),
                      ErrorCode::kCorruptData));
  std::shared_ptr<arrow::Schema> schema;
  DELTA_ARROW_RETURN_NOT_OK(reader->GetSchema(&schema), ErrorCode::kCorruptData,
                            fmt::format("Parquet file '{}'", file.path));
  auto delta = FromArrowSchema(*schema);
  if (!delta)
    return WithContext(delta.error(), fmt::format("Parquet file '{}'", file.path));
  std::vector<StructField> fields;
  for (const auto& f : (*delta)->fields()) {
    fields.push_back(StructField{f.name, MakeNullable(f.type), true, {}});
  }
  return std::make_shared<const StructType>(std::move(fields));
}

Result<std::shared_ptr<arrow::RecordBatchReader>> OpenParquetIngestReader(
    FileSystemRef fs, std::vector<IngestFile> files, ReadSpec spec,
    std::shared_ptr<ReadStats> stats, std::shared_ptr<arrow::Schema> arrow_schema,
    SchemaRef output) {
  auto reader = std::make_shared<ParquetIngestReader>(
      std::move(fs), std::move(files), std::move(spec), std::move(stats),
      std::move(arrow_schema), std::move(output));
  DELTA_RETURN_IF_ERROR(reader->Init());
  return std::shared_ptr<arrow::RecordBatchReader>(std::move(reader));
}

}  // namespace deltaguard
