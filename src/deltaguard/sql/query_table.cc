// FROM a Delta table (by name or path, with VERSION/TIMESTAMP AS OF), a temp view, a
// WITH query or a registered data view; table scans carry Spark's hidden `_metadata`.

#include <arrow/api.h>
#include <fmt/format.h>

#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/expr_eval.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/sql/query_internal.h"
#include "deltaguard/table/table.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::query_internal {

namespace {

// A table scan's batches; with `metadata` (the `_metadata` column's Arrow type), each
// batch gets Spark's hidden `_metadata` struct of the data file it came from.
class ScanReader final : public arrow::RecordBatchReader {
 public:
  ScanReader(std::unique_ptr<TableScan> scan, SnapshotRef snapshot,
             std::shared_ptr<arrow::Field> metadata)
      : scan_(std::move(scan)), snapshot_(std::move(snapshot)) {
    schema_ = scan_->output_schema();
    if (metadata != nullptr) {
      metadata_ = metadata->type();
      schema_ = *schema_->AddField(schema_->num_fields(), std::move(metadata));
    }
  }
  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }
  arrow::Status ReadNext(BatchRef* out) override {
    auto next = scan_->Next();
    if (!next) return internal::ToArrowStatus(next.error());
    *out = std::move(*next);
    if (*out == nullptr || metadata_ == nullptr) return arrow::Status::OK();
    const AddFile* file = scan_->current_file();
    if (file == nullptr) return arrow::Status::Invalid("_metadata: no current data file");
    if (file != scalar_file_) {  // one scalar per file
      const std::string path = snapshot_->ResolveDataPath(file->path);
      const size_t slash = path.find_last_of('/');
      ARROW_ASSIGN_OR_RAISE(
          scalar_,
          arrow::StructScalar::Make(
              {std::make_shared<arrow::StringScalar>(path),
               std::make_shared<arrow::StringScalar>(
                   slash == std::string::npos ? path : path.substr(slash + 1)),
               std::make_shared<arrow::Int64Scalar>(file->size),
               std::make_shared<arrow::TimestampScalar>(
                   file->modification_time * 1000,
                   static_cast<const arrow::StructType&>(*metadata_).field(3)->type())},
              {"file_path", "file_name", "file_size", "file_modification_time"}));
      scalar_file_ = file;
    }
    ARROW_ASSIGN_OR_RAISE(auto column,
                          arrow::MakeArrayFromScalar(*scalar_, (*out)->num_rows()));
    ARROW_ASSIGN_OR_RAISE(
        *out, (*out)->AddColumn((*out)->num_columns(), schema_->fields().back(), column));
    return arrow::Status::OK();
  }

 private:
  std::unique_ptr<TableScan> scan_;
  SnapshotRef snapshot_;
  std::shared_ptr<arrow::Schema> schema_;
  std::shared_ptr<arrow::DataType> metadata_;  // null: no _metadata column
  const AddFile* scalar_file_ = nullptr;
  std::shared_ptr<arrow::StructScalar> scalar_;
};

// Spark's hidden file-metadata column of a table scan (as read_files'): where it is
// in a table's schema when the table has no column of that name.
StructField MetadataField() {
  return {"_metadata",
          std::make_shared<StructType>(std::vector<StructField>{
              {"file_path", DataType::String(), true, {}},
              {"file_name", DataType::String(), true, {}},
              {"file_size", DataType::Long(), true, {}},
              {"file_modification_time", DataType::Timestamp(), true, {}}}),
          true,
          {}};
}

// The instant of `TIMESTAMP AS OF expr`, in milliseconds since the epoch.
Result<int64_t> TimeTravelMillis(const Expr& expr, const QueryContext& context) {
  DELTA_ASSIGN_OR_RETURN(auto value, EvaluateConstant(expr, context));
  if (value->IsNull(0)) {
    return MakeError(ErrorCode::kInvalidArgument, "TIMESTAMP AS OF {} is NULL",
                     SparkColumnName(expr));
  }
  int64_t micros = 0;
  switch (value->type_id()) {
    case arrow::Type::STRING: {
      std::string text(static_cast<const arrow::StringArray&>(*value).GetView(0));
      DELTA_ASSIGN_OR_RETURN(micros, ParseTimestampLiteral(text, /*allow_zone=*/true));
      break;
    }
    case arrow::Type::TIMESTAMP:
      micros = static_cast<const arrow::TimestampArray&>(*value).Value(0);
      break;
    case arrow::Type::DATE32:
      micros = int64_t{static_cast<const arrow::Date32Array&>(*value).Value(0)} *
               86'400'000'000;
      break;
    default:
      return MakeError(ErrorCode::kInvalidArgument,
                       "TIMESTAMP AS OF {} is {}, not a timestamp", SparkColumnName(expr),
                       value->type()->ToString());
  }
  return micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000);
}

/// Registered Arrow data (QueryContext::data_views): batches are cast to the Arrow
/// types of its Delta schema (ns timestamps to us, large strings to strings, ...), the
/// types every operator expects.
Result<SourcePlan> PlanDataView(const std::string& name,
                                const std::shared_ptr<arrow::Table>& data,
                                const std::string& alias) {
  SourcePlan src;
  DELTA_ASSIGN_OR_RETURN(src.schema, FromArrowSchema(*data->schema()));
  DELTA_ASSIGN_OR_RETURN(std::shared_ptr<arrow::Schema> arrow_schema,
                         ToArrowSchema(*src.schema));
  src.name = "view " + name;
  src.relation = fmt::format("view `{}`", name);
  src.qualifiers = {alias.empty() ? name : alias};
  src.open = [data, arrow_schema,
              name](const std::vector<std::string>&) -> Result<ReaderRef> {
    DELTA_ASSIGN_OR_RETURN(ReaderRef reader, TableReader(data));
    std::string what = "view " + name;
    return MapReader(reader, arrow_schema, [arrow_schema, what](const BatchRef& batch) {
      return ConformBatch(batch, arrow_schema, what);
    });
  };
  return src;
}

}  // namespace

Result<SourcePlan> PlanTable(const FromClause& from, const QueryContext& context,
                             int depth) {
  const TableRef& ref = from.table;
  std::string alias = AsciiToLower(from.alias);
  if (ref.kind == TableRef::Kind::kName && ref.parts.size() == 1 &&
      context.ctes != nullptr) {
    auto cte = context.ctes->find(AsciiToLower(ref.parts[0]));
    if (cte != context.ctes->end()) {
      if (from.time_travel) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "time travel is not supported on WITH query '{}'", ref.parts[0]);
      }
      SourcePlan src = FromPlan(cte->second.plan, {alias.empty() ? cte->first : alias});
      src.relation = fmt::format("WITH query `{}`", ref.parts[0]);
      if (cte->second.columns.empty()) return src;
      return RenameColumns(std::move(src), cte->second.columns);
    }
  }
  if (ref.kind == TableRef::Kind::kName && ref.parts.size() == 1 &&
      context.temp_views != nullptr) {
    auto view = context.temp_views->find(AsciiToLower(ref.parts[0]));
    if (view != context.temp_views->end()) {
      if (from.time_travel) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "time travel is not supported on temp view '{}'", ref.parts[0]);
      }
      DELTA_ASSIGN_OR_RETURN(QueryPlan plan,
                             PlanQueryAt(*view->second, context, {}, depth + 1));
      plan.source_name = "view " + view->first;
      SourcePlan src = FromPlan(plan, {alias.empty() ? view->first : alias});
      src.relation = fmt::format("view `{}`", ref.parts[0]);
      return src;
    }
  }
  if (ref.kind == TableRef::Kind::kName && ref.parts.size() == 1 &&
      context.data_views != nullptr) {
    auto data = context.data_views->find(AsciiToLower(ref.parts[0]));
    if (data != context.data_views->end()) {
      if (from.time_travel) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "time travel is not supported on temp view '{}'", ref.parts[0]);
      }
      return PlanDataView(data->first, data->second, alias);
    }
  }
  ResolvedTable table;
  if (context.catalog != nullptr) {
    DELTA_ASSIGN_OR_RETURN(table,
                           context.catalog->Resolve(ref, context.current_database));
  } else if (ref.kind == TableRef::Kind::kPath) {
    DELTA_ASSIGN_OR_RETURN(table.path, NormalizeTablePath(ref.path));
    table.display = table.path;
    table.exists = true;  // OpenSnapshot says precisely what is missing
  } else {
    return MakeError(ErrorCode::kInvalidArgument,
                     "table name '{}' needs a warehouse catalog", ref.ToString());
  }
  std::string display =
      ref.kind == TableRef::Kind::kPath ? "delta.`" + table.path + "`" : table.display;
  if (!table.exists && ref.kind == TableRef::Kind::kName) {
    return MakeError(ErrorCode::kNotFound,
                     "TABLE_OR_VIEW_NOT_FOUND: table or view '{}' cannot be found in "
                     "database '{}' (at '{}')",
                     ref.ToString(), table.database, table.path);
  }
  SnapshotSpec spec;
  if (from.time_travel) {
    spec.version = from.time_travel->version;
    if (from.time_travel->timestamp != nullptr) {
      DELTA_ASSIGN_OR_RETURN(spec.timestamp_ms,
                             TimeTravelMillis(*from.time_travel->timestamp, context));
    }
  }
  FileSystemRef fs = context.fs != nullptr ? context.fs : MakeLocalFileSystem();
  auto snapshot = OpenSnapshot(fs, table.path, spec);
  if (!snapshot) return WithContext(snapshot.error(), "table " + display);
  SnapshotRef snap = *snapshot;
  SourcePlan src;
  src.schema = snap->schema();
  // `_metadata` (hidden: not in `*`), unless the table has a column of that name.
  std::shared_ptr<arrow::Field> metadata;
  if (src.schema->FieldIndexCaseInsensitive("_metadata") < 0) {
    std::vector<StructField> fields = src.schema->fields();
    fields.push_back(MetadataField());
    src.schema = std::make_shared<StructType>(std::move(fields));
    src.hidden = {"_metadata"};
    DELTA_ASSIGN_OR_RETURN(auto arrow_schema,
                           ToArrowSchema(StructType({MetadataField()})));
    metadata = arrow_schema->field(0);
  }
  src.name = fmt::format("{} version {}", display, snap->version());
  src.relation = ref.kind == TableRef::Kind::kPath ? "table " + display
                                                   : fmt::format("table `{}`", display);
  if (!alias.empty()) {
    src.qualifiers = {alias};
  } else if (ref.kind == TableRef::Kind::kName) {
    src.qualifiers = {AsciiToLower(ref.parts.back())};
    if (!table.database.empty())
      src.qualifiers.push_back(table.database + "." + table.name);
  }
  src.open = [snap,
              metadata](const std::vector<std::string>& wanted) -> Result<ReaderRef> {
    ScanOptions options;
    std::vector<std::string> columns;
    bool with_metadata = false;
    for (const auto& c : wanted) {
      const bool is_metadata = metadata != nullptr && EqualsIgnoreCase(c, "_metadata");
      with_metadata = with_metadata || is_metadata;
      if (!is_metadata) columns.push_back(c);
    }
    options.columns = columns;
    if (options.columns.empty() && snap->schema()->num_fields() > 0) {
      // Rows without columns (count(*)): read the cheapest column, a partition column
      // (from the log, no data read) when there is one.
      const auto& parts = snap->metadata().partition_columns;
      options.columns = {parts.empty() ? snap->schema()->field(0).name : parts[0]};
    }
    DELTA_ASSIGN_OR_RETURN(auto scan, TableScan::Make(snap, options));
    return ReaderRef(std::make_shared<ScanReader>(std::move(scan), snap,
                                                  with_metadata ? metadata : nullptr));
  };
  return src;
}

}  // namespace deltaguard::query_internal
