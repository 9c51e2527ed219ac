// schema_changes('table' [, from_version [, to_version]]): one row per classified schema
// change and version, from the same per-commit classification as `deltaguard history
// --drift` (table/table_drift.h HistoryDrift), and the rows of DESCRIBE DRIFT, which
// share the change columns (docs/drift.md "SQL").

#include <arrow/builder.h>
#include <arrow/record_batch.h>
#include <fmt/format.h>

#include <cstdlib>
#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/sql/query_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::query_internal {

namespace {

constexpr const char* kChangeColumns[] = {
    "class",  "path",  "old_path",      "before",
    "after",  "risk",  "spark_default", "deltaguard_default",
    "option", "score", "evidence",      "backward",
    "forward"};

// Text cells that are empty in the result model are NULL in SQL (no old path, nothing
// needed to let the change through, no evidence).
arrow::Status AppendText(arrow::StringBuilder* b, std::string_view text, bool nullable) {
  if (nullable && text.empty()) return b->AppendNull();
  return b->Append(text.data(), static_cast<int32_t>(text.size()));
}

}  // namespace

SchemaRef DriftRowsSchema(bool with_version, bool with_breaks) {
  std::vector<StructField> fields;
  if (with_version) {
    fields.push_back({"version", DataType::Long(), false, {}});
    fields.push_back({"timestamp", DataType::Timestamp(), false, {}});
    fields.push_back({"operation", DataType::String(), false, {}});
  }
  for (const char* name : kChangeColumns) {
    std::string n = name;
    bool nullable = n == "old_path" || n == "before" || n == "after" || n == "option" ||
                    n == "score" || n == "evidence";
    fields.push_back(
        {n, n == "score" ? DataType::Double() : DataType::String(), nullable, {}});
  }
  if (with_breaks) fields.push_back({"breaks", DataType::Boolean(), false, {}});
  return std::make_shared<StructType>(std::move(fields));
}

Result<BatchRef> DriftRowsBatch(const std::vector<DriftRow>& rows, bool with_version,
                                bool with_breaks) {
  SchemaRef schema = DriftRowsSchema(with_version, with_breaks);
  DELTA_ASSIGN_OR_RETURN(auto arrow_schema, ToArrowSchema(*schema));
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders;
  for (const auto& f : arrow_schema->fields()) {
    DELTA_ARROW_ASSIGN_OR_RETURN(auto b, arrow::MakeBuilder(f->type()),
                                 ErrorCode::kInternal, "drift rows");
    builders.push_back(std::move(b));
  }
  auto text = [&](size_t i) {
    return static_cast<arrow::StringBuilder*>(builders[i].get());
  };
  for (const DriftRow& row : rows) {
    size_t i = 0;
    arrow::Status st;
    if (with_version) {
      st &= static_cast<arrow::Int64Builder*>(builders[i++].get())
                ->Append(row.version->version);
      st &= static_cast<arrow::TimestampBuilder*>(builders[i++].get())
                ->Append(row.version->timestamp_ms * 1000);
      st &= AppendText(text(i++), row.version->operation, false);
    }
    const DriftChange& c = *row.change;
    const ChangeClassInfo& info = c.info();
    st &= AppendText(text(i++), info.name, false);
    st &= AppendText(text(i++), c.path, false);
    st &= AppendText(text(i++), c.old_path, true);
    st &= AppendText(text(i++), c.before, true);
    st &= AppendText(text(i++), c.after, true);
    st &= AppendText(text(i++), RiskName(c.risk), false);
    st &= AppendText(text(i++), info.spark, false);
    st &= AppendText(text(i++), info.deltaguard, false);
    st &= AppendText(text(i++), info.option, true);
    auto* score = static_cast<arrow::DoubleBuilder*>(builders[i++].get());
    // Three decimals, as the JSON report prints it (drift/report.h), so both agree.
    st &=
        c.score
            ? score->Append(std::strtod(fmt::format("{:.3f}", *c.score).c_str(), nullptr))
            : score->AppendNull();
    st &= AppendText(text(i++), c.evidence, true);
    st &= AppendText(text(i++), CompatName(c.backward), false);
    st &= AppendText(text(i++), CompatName(c.forward), false);
    if (with_breaks) {
      st &= static_cast<arrow::BooleanBuilder*>(builders[i++].get())->Append(row.breaks);
    }
    DELTA_ARROW_RETURN_NOT_OK(st, ErrorCode::kInternal, "drift rows");
  }
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (auto& b : builders) {
    DELTA_ARROW_ASSIGN_OR_RETURN(auto array, b->Finish(), ErrorCode::kInternal,
                                 "drift rows");
    columns.push_back(std::move(array));
  }
  return arrow::RecordBatch::Make(arrow_schema, static_cast<int64_t>(rows.size()),
                                  std::move(columns));
}

namespace {

// An optional integer version argument; NULL means "not given".
Result<std::optional<int64_t>> VersionArg(const Expr& expr, const QueryContext& context,
                                          std::string_view what) {
  DELTA_ASSIGN_OR_RETURN(auto v, EvaluateConstant(expr, context));
  if (v->type_id() != arrow::Type::INT32 && v->type_id() != arrow::Type::INT64 &&
      v->type_id() != arrow::Type::NA) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "schema_changes() {} must be an integer version, got {}", what,
                     SparkColumnName(expr));
  }
  if (v->IsNull(0)) return std::optional<int64_t>{};
  return std::optional<int64_t>{v->type_id() == arrow::Type::INT32
                                    ? static_cast<const arrow::Int32Array&>(*v).Value(0)
                                    : static_cast<const arrow::Int64Array&>(*v).Value(0)};
}

}  // namespace

Result<SourcePlan> PlanSchemaChanges(const FromClause& from,
                                     const QueryContext& context) {
  if (from.args.empty() || from.args.size() > 3 || !from.named_args.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "schema_changes() takes a table name or path and optionally "
                     "from_version and to_version");
  }
  DELTA_ASSIGN_OR_RETURN(FunctionTable table,
                         ResolveFunctionTable("schema_changes", *from.args[0], context));
  std::optional<int64_t> first, last;
  if (from.args.size() >= 2) {
    DELTA_ASSIGN_OR_RETURN(first, VersionArg(*from.args[1], context, "from_version"));
  }
  if (from.args.size() == 3) {
    DELTA_ASSIGN_OR_RETURN(last, VersionArg(*from.args[2], context, "to_version"));
  }
  FileSystemRef fs = context.fs != nullptr ? context.fs : MakeLocalFileSystem();
  auto versions = HistoryDrift(*fs, table.root, first, last);
  if (!versions) {
    return WithContext(versions.error(), fmt::format("schema_changes('{}')", table.text));
  }
  std::vector<DriftRow> rows;
  for (const VersionDrift& v : *versions) {
    for (const DriftChange& c : v.changes) rows.push_back({&v, &c, false});
  }
  DELTA_ASSIGN_OR_RETURN(BatchRef batch, DriftRowsBatch(rows, true, false));
  SourcePlan src;
  src.schema = DriftRowsSchema(true, false);
  src.name = fmt::format("schema_changes('{}')", table.text);
  if (!from.alias.empty()) src.qualifiers = {AsciiToLower(from.alias)};
  src.open = [batch](const std::vector<std::string>&) -> Result<ReaderRef> {
    DELTA_ARROW_ASSIGN_OR_RETURN(ReaderRef reader,
                                 arrow::RecordBatchReader::Make({batch}, batch->schema()),
                                 ErrorCode::kInternal, "schema_changes");
    return reader;
  };
  return src;
}

}  // namespace deltaguard::query_internal
