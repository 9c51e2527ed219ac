// Reading a micro-batch's files into record batches (ingest/reader.h).

#include "deltaguard/ingest/reader.h"

#include <arrow/api.h>
#include <fmt/format.h>

#include <algorithm>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/ingest/csv_fields.h"
#include "deltaguard/ingest/json_tokens.h"
#include "deltaguard/ingest/lines.h"
#include "deltaguard/ingest/parallel_reader.h"
#include "deltaguard/ingest/parquet_reader.h"
#include "deltaguard/schema/column_path.h"
#include "deltaguard/util/depth_guard.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

constexpr int64_t kMaxBatchBytes = 64 << 20;  // text appended before a batch is cut

std::string FileName(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

class IngestReader final : public arrow::RecordBatchReader {
 public:
  IngestReader(FileSystemRef fs, std::vector<IngestFile> files, ReadSpec spec,
               std::shared_ptr<ReadStats> stats, std::shared_ptr<arrow::Schema> schema,
               SchemaRef output)
      : fs_(std::move(fs)),
        files_(std::move(files)),
        spec_(std::move(spec)),
        stats_(std::move(stats)),
        schema_(std::move(schema)),
        output_(std::move(output)),
        values_(IngestValueOptions(spec_.options)) {}

  Status Init() {
    for (const auto& f : output_->fields()) {
      DELTA_ASSIGN_OR_RETURN(auto b, MakeIngestBuilder(*f.type));
      builders_.push_back(std::move(b));
    }
    // Partition columns come from the path; the records fill the other data columns.
    IngestLayout layout = MakeIngestLayout(spec_);
    for (size_t i : layout.partition) {
      partition_builders_.emplace_back(spec_.data_schema->field(i), builders_[i].get());
    }
    for (size_t i : layout.record) data_builders_.push_back(builders_[i].get());
    record_schema_ = layout.record_schema;
    rescued_ = layout.rescued;
    corrupt_ = layout.corrupt;
    raw_ = layout.raw;
    metadata_ = std::move(layout.metadata);
    return OkStatus();
  }

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    *out = nullptr;
    auto st = Fill();
    if (!st) return internal::ToArrowStatus(st.error());
    if (rows_in_batch_ == 0) {
      if (scanning_) return internal::ToArrowStatus(UnknownError());
      return arrow::Status::OK();
    }
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (auto& b : builders_) {
      std::shared_ptr<arrow::Array> a;
      ARROW_RETURN_NOT_OK(b->Finish(&a));
      columns.push_back(std::move(a));
    }
    *out = arrow::RecordBatch::Make(schema_, rows_in_batch_, std::move(columns));
    rows_in_batch_ = 0;
    bytes_in_batch_ = 0;
    return arrow::Status::OK();
  }

 private:
  Error UnknownError() const { return NewFieldsError(stats_->unknown, spec_.evolves); }

  // Adds rows until the batch is full or the files are done.
  Status Fill() {
    while (rows_in_batch_ < spec_.batch_rows && bytes_in_batch_ < kMaxBatchBytes) {
      if (!source_) {
        if (next_file_ >= files_.size()) return OkStatus();
        file_ = &files_[next_file_++];
        source_ = std::make_unique<LineSource>(fs_.get(), *file_);
        header_.clear();
        header_read_ = false;
        ++stats_->files;
        stats_->bytes += file_->size;
        if (spec_.options.format == IngestFormat::kJson && spec_.options.multi_line) {
          DELTA_RETURN_IF_ERROR(ReadWholeJson());
          source_.reset();
          continue;
        }
      }
      DELTA_ASSIGN_OR_RETURN(bool more, NextRecord());
      if (!more) source_.reset();
    }
    return OkStatus();
  }

  bool Scanning() const { return scanning_; }

  // Records the unknown fields of the record just read.
  void NoteUnknown() {
    for (auto& u : unknown_) {
      if (spec_.evolves && spec_.evolves(u)) scanning_ = true;
      MergeUnknownField(std::move(u), &stats_->unknown);
    }
    unknown_.clear();
  }

  Result<bool> NextRecord() {
    DELTA_ASSIGN_OR_RETURN(bool got, source_->Next(&line_));
    if (!got) return false;
    const int64_t line_no = source_->line_number();
    switch (spec_.options.format) {
      case IngestFormat::kJson:
        if (Trim(line_).empty()) return true;
        DELTA_RETURN_IF_ERROR(JsonLine(line_no));
        return true;
      case IngestFormat::kCsv:
        DELTA_RETURN_IF_ERROR(CsvLine(line_no));
        return true;
      case IngestFormat::kText:
        if (Scanning()) return true;
        raw_text_ = line_;
        DELTA_RETURN_IF_ERROR(
            Keep(static_cast<arrow::StringBuilder*>(data_builders_[0])->Append(line_)));
        rescued_fields_.Clear();
        DELTA_RETURN_IF_ERROR(FinishRow(false));
        return true;
      case IngestFormat::kParquet:
        break;
    }
    return MakeError(ErrorCode::kUnsupportedFeature, "format {} is read elsewhere",
                     IngestFormatName(spec_.options.format));
  }

  Status Keep(const arrow::Status& st) {
    if (st.ok()) return OkStatus();
    return MakeError(ErrorCode::kIOError, "{}: building a batch: {}", file_->path,
                     st.ToString());
  }

  Status JsonLine(int64_t line_no) {
    raw_text_ = line_;
    auto problem = record_.Parse(&line_, kMaxInputJsonDepth);
    if (problem) {
      return Malformed(line_no,
                       fmt::format("column {}: {}", problem->column, problem->message));
    }
    return JsonRecordRow(0);
  }

  Status ReadWholeJson() {
    auto text = fs_->ReadFile(file_->path);
    if (!text) return WithContext(text.error(), fmt::format("reading {}", file_->path));
    if (!IsValidUtf8(*text)) *text = ReplaceInvalidUtf8(*text);
    raw_text_ = *text;
    std::string body = std::move(*text);
    std::vector<uint32_t> elements;
    auto problem = record_.ParseDocument(&body, kMaxInputJsonDepth, &elements);
    if (problem) return Malformed(1, problem->message);
    for (uint32_t c : elements) {
      if (record_.tokens()[c].kind != JsonTokenKind::kObject) {
        return Malformed(1, "a record of the file is not a JSON object");
      }
      if (c != 0) raw_text_ = record_.ToJson(c);  // an element of a top-level array
      DELTA_RETURN_IF_ERROR(JsonRecordRow(c));
    }
    return OkStatus();
  }

  Status JsonRecordRow(uint32_t root) {
    rescued_fields_.Clear();
    unknown_.clear();
    if (Scanning()) {
      // Only looking for the other new fields: a throwaway pass of the same rules.
      return ScanUnknown(root);
    }
    values_.AppendRecord(record_, root, *record_schema_, data_builders_, &rescued_fields_,
                         &unknown_);
    if (!values_.status().ok()) return Keep(values_.status());
    NoteUnknown();
    return FinishRow(false);
  }

  // Scanning only: the record goes into scratch builders (made once, emptied each
  // time) so the same rules find its unknown fields.
  Status ScanUnknown(uint32_t root) {
    if (scratch_.empty()) {
      for (const auto& f : record_schema_->fields()) {
        DELTA_ASSIGN_OR_RETURN(auto b, MakeIngestBuilder(*f.type));
        scratch_ptrs_.push_back(b.get());
        scratch_.push_back(std::move(b));
      }
    }
    for (auto& b : scratch_) b->Reset();
    RescuedFields ignored;
    values_.AppendRecord(record_, root, *record_schema_, scratch_ptrs_, &ignored,
                         &unknown_);
    NoteUnknown();
    return OkStatus();
  }

  Status CsvLine(int64_t line_no) {
    const auto& o = spec_.options;
    // A quoted field may span lines (multiLine): join lines until the quotes close.
    std::string record = line_;
    DELTA_RETURN_IF_ERROR(JoinCsvLines(source_.get(), o.delimiter, o.quote, o.escape,
                                       o.multi_line, &record));
    raw_text_ = record;
    std::vector<std::string> fields;
    auto split = SplitCsvRecord(record, o.delimiter, o.quote, o.escape, &fields);
    if (!header_read_ && o.header) {
      header_read_ = true;
      if (split) return Malformed(line_no, "the header: " + *split);
      return MapHeader(fields);
    }
    if (!header_read_) {
      header_read_ = true;
      for (size_t i = 0; i < record_schema_->num_fields(); ++i) {
        header_.push_back(static_cast<int>(i));
      }
    }
    if (record.empty() && fields.size() <= 1) return OkStatus();  // a blank line
    if (split) return Malformed(line_no, *split);
    if (fields.size() != header_.size()) {
      return Malformed(line_no,
                       fmt::format("{} fields where the {} has {}", fields.size(),
                                   o.header ? "header" : "schema", header_.size()));
    }
    rescued_fields_.Clear();
    unknown_.clear();
    if (Scanning()) return OkStatus();
    std::vector<bool> seen(record_schema_->num_fields(), false);
    for (size_t i = 0; i < fields.size(); ++i) {
      const int col = header_[i];
      if (col < 0) {  // a column the schema lacks, or differs by case: rescued
        if (fields[i] != o.null_value) {
          rescued_fields_.Add({header_names_[i]}, JsonQuote(fields[i]));
        }
        continue;
      }
      seen[static_cast<size_t>(col)] = true;
      const auto& f = record_schema_->field(static_cast<size_t>(col));
      values_.AppendText(fields[i], *f.type, data_builders_[static_cast<size_t>(col)],
                         {f.name}, &rescued_fields_, &unknown_);
    }
    for (size_t i = 0; i < seen.size(); ++i) {
      if (!seen[i]) DELTA_RETURN_IF_ERROR(Keep(data_builders_[i]->AppendNull()));
    }
    if (!values_.status().ok()) return Keep(values_.status());
    NoteUnknown();
    return FinishRow(false);
  }

  Status MapHeader(const std::vector<std::string>& names) {
    header_names_ = names;
    header_.clear();
    std::vector<bool> used(record_schema_->num_fields(), false);
    for (const auto& name : names) {
      int i = record_schema_->FieldIndex(name);
      const int folded = record_schema_->FieldIndexCaseInsensitive(name);
      if (i < 0 && folded >= 0 && !spec_.options.reader_case_sensitive) i = folded;
      if (i >= 0 && used[static_cast<size_t>(i)]) i = -1;  // a repeated name
      if (i >= 0) used[static_cast<size_t>(i)] = true;
      if (i < 0 && folded < 0) {
        unknown_.push_back(UnknownField{{name}, DataType::String(), false});
      }
      header_.push_back(i);
    }
    NoteUnknown();
    return OkStatus();
  }

  // A record that does not parse (docs/ingest.md "Malformed records").
  Status Malformed(int64_t line_no, const std::string& why) {
    const auto& o = spec_.options;
    const std::string where = fmt::format("{}:{}", file_->path, line_no);
    if (o.mode == ParseMode::kFailFast) {
      return MakeError(ErrorCode::kParseError,
                       "{}: malformed record ({}); mode FAILFAST stops the batch", where,
                       why);
    }
    if (o.mode == ParseMode::kDropMalformed) {
      ++stats_->dropped_rows;
      return OkStatus();
    }
    if (corrupt_ < 0 && rescued_ < 0) {
      return MakeError(ErrorCode::kParseError,
                       "{}: malformed record ({}), and there is no rescued or corrupt-"
                       "record column to keep it; set rescuedDataColumn or "
                       "columnNameOfCorruptRecord, or mode DROPMALFORMED to leave such "
                       "records out",
                       where, why);
    }
    if (Scanning()) return OkStatus();
    ++stats_->malformed_rows;
    for (auto* b : data_builders_) DELTA_RETURN_IF_ERROR(Keep(b->AppendNull()));
    rescued_fields_.Clear();
    if (corrupt_ < 0) {
      rescued_fields_.Add({"_corrupt_record"}, JsonQuote(raw_text_));
      rescued_fields_.Add({"_line"}, std::to_string(line_no));
    }
    return FinishRow(true);
  }

  // The columns after the data columns, for the row just added.
  Status FinishRow(bool malformed) {
    auto str = [&](int i) {
      return static_cast<arrow::StringBuilder*>(builders_[i].get());
    };
    for (const auto& [field, builder] : partition_builders_) {
      const std::string* value = nullptr;
      for (const auto& [k, v] : file_->partition_values) {
        if (EqualsIgnoreCase(k, field.name)) value = &v;
      }
      if (value == nullptr) {
        DELTA_RETURN_IF_ERROR(Keep(builder->AppendNull()));
      } else {
        // A path value that does not parse as the column's type is rescued too.
        values_.AppendText(*value, *field.type, builder, {field.name}, &rescued_fields_,
                           nullptr);
      }
    }
    if (rescued_ >= 0) {
      if (rescued_fields_.empty()) {
        DELTA_RETURN_IF_ERROR(Keep(str(rescued_)->AppendNull()));
      } else {
        ++stats_->rescued_rows;
        DELTA_RETURN_IF_ERROR(
            Keep(str(rescued_)->Append(rescued_fields_.Render(file_->path))));
      }
    } else if (!rescued_fields_.empty() && !malformed) {
      // No rescued column: Auto Loader's `none` drops such values; deltaguard keeps
      // its promise instead (docs/behaviour.md "Ingestion").
      return MakeError(
          ErrorCode::kSchemaMismatch,
          "{}: a record has values that do not fit the schema ({}) and there "
          "is no rescued column to keep them; set rescuedDataColumn",
          file_->path, rescued_fields_.Render(file_->path));
    }
    if (corrupt_ >= 0) {
      DELTA_RETURN_IF_ERROR(Keep(malformed ? str(corrupt_)->Append(raw_text_)
                                           : str(corrupt_)->AppendNull()));
    }
    if (raw_ >= 0) DELTA_RETURN_IF_ERROR(Keep(str(raw_)->Append(raw_text_)));
    for (const auto& [name, index] : metadata_) {
      auto* b = builders_[static_cast<size_t>(index)].get();
      if (name == "_source_file") {
        DELTA_RETURN_IF_ERROR(Keep(str(index)->Append(file_->path)));
      } else if (name == "_ingested_at") {
        DELTA_RETURN_IF_ERROR(Keep(
            static_cast<arrow::TimestampBuilder*>(b)->Append(spec_.ingested_at_micros)));
      } else {  // _metadata
        auto* sb = static_cast<arrow::StructBuilder*>(b);
        DELTA_RETURN_IF_ERROR(Keep(sb->Append()));
        DELTA_RETURN_IF_ERROR(
            Keep(static_cast<arrow::StringBuilder*>(sb->field_builder(0))
                     ->Append(file_->path)));
        DELTA_RETURN_IF_ERROR(
            Keep(static_cast<arrow::StringBuilder*>(sb->field_builder(1))
                     ->Append(FileName(file_->path))));
        DELTA_RETURN_IF_ERROR(Keep(static_cast<arrow::Int64Builder*>(sb->field_builder(2))
                                       ->Append(file_->size)));
        DELTA_RETURN_IF_ERROR(
            Keep(static_cast<arrow::TimestampBuilder*>(sb->field_builder(3))
                     ->Append(file_->modification_time * 1000)));
      }
    }
    ++rows_in_batch_;
    ++stats_->rows;
    bytes_in_batch_ += static_cast<int64_t>(raw_text_.size());
    return OkStatus();
  }

  FileSystemRef fs_;
  std::vector<IngestFile> files_;
  ReadSpec spec_;
  std::shared_ptr<ReadStats> stats_;
  std::shared_ptr<arrow::Schema> schema_;
  SchemaRef output_;
  ValueAppender values_;
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders_;
  std::vector<arrow::ArrayBuilder*> data_builders_;
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> scratch_;
  std::vector<arrow::ArrayBuilder*> scratch_ptrs_;
  int rescued_ = -1, corrupt_ = -1, raw_ = -1;
  std::vector<std::pair<std::string, int>> metadata_;
  SchemaRef record_schema_;
  std::vector<std::pair<StructField, arrow::ArrayBuilder*>> partition_builders_;

  size_t next_file_ = 0;
  const IngestFile* file_ = nullptr;
  std::unique_ptr<LineSource> source_;
  std::string line_;
  std::string raw_text_;
  JsonRecord record_;
  RescuedFields rescued_fields_;
  std::vector<UnknownField> unknown_;
  std::vector<int> header_;
  std::vector<std::string> header_names_;
  bool header_read_ = false;
  bool scanning_ = false;
  int64_t rows_in_batch_ = 0;
  int64_t bytes_in_batch_ = 0;
};

}  // namespace

ValueOptions IngestValueOptions(const IngestOptions& o) {
  ValueOptions v;
  v.case_sensitive = o.reader_case_sensitive;
  v.infer_column_types = o.infer_column_types;
  v.timestamp_format = o.timestamp_format;
  v.date_format = o.date_format;
  v.null_value = o.null_value;
  v.report_mismatches =
      o.EffectiveMode() == EvolutionMode::kAddNewColumnsWithTypeWidening;
  return v;
}

Error NewFieldsError(const std::vector<UnknownField>& unknown,
                     const std::function<bool(const UnknownField&)>& evolves) {
  std::string names;
  for (const auto& u : unknown) {
    if (!evolves(u)) continue;
    names += fmt::format("{}{} {}", names.empty() ? "" : ", ", FormatColumnPath(u.path),
                         u.type->ToString());
  }
  return MakeError(ErrorCode::kSchemaMismatch,
                   "UNKNOWN_FIELD_EXCEPTION: the source has fields the schema lacks: {}",
                   names);
}

void MergeUnknownField(UnknownField field, std::vector<UnknownField>* list) {
  for (auto& u : *list) {
    if (u.path.size() != field.path.size() || u.mismatch != field.mismatch) continue;
    bool same = true;
    for (size_t i = 0; i < u.path.size() && same; ++i) {
      same = EqualsIgnoreCase(u.path[i], field.path[i]);
    }
    if (same) {
      u.type = MergeInferredTypes(u.type, field.type);
      return;
    }
  }
  list->push_back(std::move(field));
}

IngestLayout MakeIngestLayout(const ReadSpec& spec) {
  IngestLayout out;
  const auto& o = spec.options;
  std::vector<StructField> record_fields;
  for (size_t i = 0; i < spec.data_schema->num_fields(); ++i) {
    const StructField& f = spec.data_schema->field(i);
    const bool partition =
        std::any_of(o.partition_columns.begin(), o.partition_columns.end(),
                    [&](const std::string& p) { return EqualsIgnoreCase(p, f.name); });
    (partition ? out.partition : out.record).push_back(i);
    if (!partition) record_fields.push_back(f);
  }
  out.record_schema = std::make_shared<const StructType>(std::move(record_fields));
  size_t next = spec.data_schema->num_fields();
  out.rescued = o.RescuedColumn().empty() ? -1 : static_cast<int>(next++);
  out.corrupt = o.corrupt_record_column.empty() ? -1 : static_cast<int>(next++);
  out.raw = o.raw_column.empty() ? -1 : static_cast<int>(next++);
  for (const auto& m : o.metadata_columns) {
    out.metadata.emplace_back(m, static_cast<int>(next++));
  }
  return out;
}

Result<SchemaRef> IngestOutputSchema(const ReadSpec& spec) {
  std::vector<StructField> fields = spec.data_schema->fields();
  const auto& o = spec.options;
  auto add = [&](const std::string& name, DataTypeRef type) -> Status {
    for (const auto& f : fields) {
      if (EqualsIgnoreCase(f.name, name)) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "the column '{}' the ingestion adds is also a data column",
                         name);
      }
    }
    fields.push_back(StructField{name, std::move(type), true, {}});
    return OkStatus();
  };
  if (!o.RescuedColumn().empty())
    DELTA_RETURN_IF_ERROR(add(o.RescuedColumn(), DataType::String()));
  if (!o.corrupt_record_column.empty()) {
    DELTA_RETURN_IF_ERROR(add(o.corrupt_record_column, DataType::String()));
  }
  if (!o.raw_column.empty()) DELTA_RETURN_IF_ERROR(add(o.raw_column, DataType::String()));
  for (const auto& m : o.metadata_columns) {
    if (m == "_metadata") {
      DELTA_RETURN_IF_ERROR(
          add(m, std::make_shared<StructType>(std::vector<StructField>{
                     {"file_path", DataType::String(), true, {}},
                     {"file_name", DataType::String(), true, {}},
                     {"file_size", DataType::Long(), true, {}},
                     {"file_modification_time", DataType::Timestamp(), true, {}}})));
    } else if (m == "_ingested_at") {
      DELTA_RETURN_IF_ERROR(add(m, DataType::Timestamp()));
    } else {
      DELTA_RETURN_IF_ERROR(add(m, DataType::String()));
    }
  }
  return std::make_shared<const StructType>(std::move(fields));
}

std::vector<bool> IngestProjection(const ReadSpec& spec) {
  if (!spec.columns || spec.options.format != IngestFormat::kParquet) return {};
  auto output = IngestOutputSchema(spec);
  if (!output) return {};
  const StructType& schema = **output;
  std::vector<bool> keep(schema.num_fields(), false);
  for (const auto& name : *spec.columns) {
    const int at = schema.FieldIndexCaseInsensitive(name);
    if (at < 0) return {};
    keep[static_cast<size_t>(at)] = true;
  }
  // The rescued and raw columns hold every column of a record: nothing is left out.
  const IngestLayout layout = MakeIngestLayout(spec);
  for (const int whole : {layout.rescued, layout.raw}) {
    if (whole >= 0 && keep[static_cast<size_t>(whole)]) return {};
  }
  return keep;
}

std::shared_ptr<arrow::Schema> ProjectSchema(const std::shared_ptr<arrow::Schema>& schema,
                                             const std::vector<bool>& keep) {
  if (keep.empty()) return schema;
  arrow::FieldVector fields;
  for (size_t i = 0; i < keep.size(); ++i) {
    if (keep[i]) fields.push_back(schema->field(static_cast<int>(i)));
  }
  return arrow::schema(std::move(fields));
}

Result<std::shared_ptr<arrow::RecordBatchReader>> OpenIngestReader(
    FileSystemRef fs, std::vector<IngestFile> files, ReadSpec spec,
    std::shared_ptr<ReadStats> stats) {
  if (spec.options.format == IngestFormat::kText) {
    spec.data_schema = std::make_shared<const StructType>(
        std::vector<StructField>{{"value", DataType::String(), true, {}}});
  }
  DELTA_ASSIGN_OR_RETURN(SchemaRef output, IngestOutputSchema(spec));
  DELTA_ASSIGN_OR_RETURN(auto arrow_schema, ToArrowSchema(*output));
  auto open = [fs, spec, arrow_schema, output](std::vector<IngestFile> share,
                                               std::shared_ptr<ReadStats> counts)
      -> Result<std::shared_ptr<arrow::RecordBatchReader>> {
    if (spec.options.format == IngestFormat::kParquet) {
      return OpenParquetIngestReader(fs, std::move(share), spec, std::move(counts),
                                     arrow_schema, output);
    }
    auto reader = std::make_shared<IngestReader>(fs, std::move(share), spec,
                                                 std::move(counts), arrow_schema, output);
    DELTA_RETURN_IF_ERROR(reader->Init());
    return std::shared_ptr<arrow::RecordBatchReader>(std::move(reader));
  };
  const int workers = IngestWorkers(files, spec.parallelism, spec.parallel_min_bytes);
  if (workers > 1) {
    return OpenParallelReader(files, workers, std::move(stats),
                              ProjectSchema(arrow_schema, IngestProjection(spec)), open);
  }
  return open(std::move(files), std::move(stats));
}

}  // namespace deltaguard
