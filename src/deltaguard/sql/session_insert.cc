// SELECT and INSERT INTO/OVERWRITE: queries stream from their plan; inserts write the
// plan's rows through WriteTable (schema enforcement, evolution only when asked).
//
// Column matching for INSERT (docs/spark_semantics.md §5.1, docs/decisions.md §1 and §5):
//  - no column list: by position. The query's columns are renamed to the table's, after
//    CheckPositionalNames refused a count mismatch or the table's own names in another
//    order (that would swap values; the error suggests BY NAME). With schema evolution,
//    extra trailing columns keep their names and are added to the table.
//  - a column list: query column i is written to listed column i; unlisted columns are
//    NULL (a NOT NULL one fails the write).
//  - BY NAME: by name, case-insensitively; missing columns are NULL.

#include <arrow/record_batch.h>
#include <fmt/format.h>

#include <memory>
#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/evolution/write_checks.h"
#include "deltaguard/sql/session_internal.h"
#include "deltaguard/table/write.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {
namespace {

// Batches of `inner` under `schema` (same columns, other top-level names).
class RenamingReader final : public arrow::RecordBatchReader {
 public:
  RenamingReader(std::shared_ptr<arrow::RecordBatchReader> inner,
                 std::shared_ptr<arrow::Schema> schema)
      : inner_(std::move(inner)), schema_(std::move(schema)) {}

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    std::shared_ptr<arrow::RecordBatch> next;
    ARROW_RETURN_NOT_OK(inner_->ReadNext(&next));
    if (!next) {
      *batch = nullptr;
      return arrow::Status::OK();
    }
    if (next->num_columns() != schema_->num_fields()) {
      return arrow::Status::Invalid("query produced ", next->num_columns(),
                                    " columns, its plan has ", schema_->num_fields());
    }
    *batch = arrow::RecordBatch::Make(schema_, next->num_rows(), next->columns());
    return arrow::Status::OK();
  }

  arrow::Status Close() override { return inner_->Close(); }

 private:
  std::shared_ptr<arrow::RecordBatchReader> inner_;
  std::shared_ptr<arrow::Schema> schema_;
};

std::string JoinNames(const std::vector<std::string>& names) {
  return fmt::format("[{}]", fmt::join(names, ", "));
}

// Number of columns of a bare VALUES query (for typing its literals), or -1.
int ValuesWidth(const SelectStmt& query) {
  if (query.from.kind != FromClause::Kind::kValues || query.from.rows.empty()) return -1;
  if (query.items.size() != 1 || !query.items[0].star) return -1;
  return static_cast<int>(query.from.rows[0].size());
}

struct InsertTarget {
  std::shared_ptr<StructType> values_target;  // typing for VALUES, may be null
  std::vector<std::string> names;             // the written names, per query column
};

// The table columns an INSERT with a column list writes, canonical names in list order.
Result<std::vector<std::string>> ListedColumns(const InsertStmt& stmt,
                                               const StructType& schema, bool merge,
                                               const std::string& table) {
  std::vector<std::string> out;
  for (const std::string& name : stmt.columns) {
    for (const std::string& seen : out) {
      if (EqualsIgnoreCase(seen, name)) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "COLUMN_ALREADY_EXISTS: column '{}' is listed twice in the "
                         "INSERT INTO {} column list",
                         name, table);
      }
    }
    const int at = schema.FieldIndexCaseInsensitive(name);
    if (at < 0 && !merge) {
      std::vector<std::string> names;
      for (const auto& f : schema.fields()) names.push_back(f.name);
      return MakeError(ErrorCode::kNotFound,
                       "UNRESOLVED_COLUMN: column '{}' of the INSERT column list is not "
                       "in table {} (columns: {}); to add it, use INSERT INTO {} WITH "
                       "SCHEMA EVOLUTION",
                       name, table, JoinNames(names), table);
    }
    out.push_back(at < 0 ? name : schema.field(static_cast<size_t>(at)).name);
  }
  return out;
}

}  // namespace

BatchSource QueryPlanSource(const QueryPlan& plan, std::string name,
                            const std::vector<std::string>& names) {
  BatchSource source;
  source.name = std::move(name);
  source.schema = plan.arrow_schema;
  source.open = plan.open;
  if (RoundTripsThroughArrow(*plan.schema)) source.delta_schema = plan.schema;
  if (names.empty()) return source;
  arrow::FieldVector fields;
  std::vector<StructField> delta_fields;
  for (int i = 0; i < plan.arrow_schema->num_fields(); ++i) {
    fields.push_back(plan.arrow_schema->field(i)->WithName(names[i]));
  }
  if (source.delta_schema) {
    for (size_t i = 0; i < plan.schema->num_fields(); ++i) {
      StructField field = plan.schema->field(i);
      field.name = names[i];
      delta_fields.push_back(std::move(field));
    }
    source.delta_schema = std::make_shared<StructType>(std::move(delta_fields));
  }
  auto renamed = arrow::schema(std::move(fields), plan.arrow_schema->metadata());
  source.schema = renamed;
  source.open = [open = plan.open,
                 renamed]() -> Result<std::shared_ptr<arrow::RecordBatchReader>> {
    DELTA_ASSIGN_OR_RETURN(auto reader, open());
    return std::shared_ptr<arrow::RecordBatchReader>(
        std::make_shared<RenamingReader>(std::move(reader), renamed));
  };
  return source;
}

Result<StatementResult> ExecuteSelect(SessionState& state, const SelectStmt& stmt) {
  DELTA_ASSIGN_OR_RETURN(QueryPlan plan, PlanQuery(stmt, state.Query()));
  DELTA_ASSIGN_OR_RETURN(auto reader, plan.open());
  StatementResult result;
  result.schema = plan.arrow_schema;
  result.rows = std::move(reader);
  result.message = fmt::format("Query over {}", plan.source_name);
  return result;
}

Result<StatementResult> ExecuteInsert(SessionState& state, const InsertStmt& stmt) {
  const std::string shown = stmt.table.ToString();
  if (stmt.table.kind == TableRef::Kind::kName && stmt.table.parts.size() == 1 &&
      state.temp_views.count(LowerName(stmt.table.parts[0]))) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cannot INSERT INTO temporary view '{}': views are read-only",
                     shown);
  }
  if (!stmt.query) {
    return MakeError(ErrorCode::kInvalidArgument, "INSERT INTO {} has no query", shown);
  }
  if (stmt.query->from.stream) return ExecuteStreamingInsert(state, stmt);
  DELTA_ASSIGN_OR_RETURN(ResolvedTable table, ResolveExisting(state, stmt.table));
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot, LoadTable(state, table, stmt.table));
  const StructType& schema = *snapshot->schema();
  const bool merge = stmt.schema_evolution || state.options.settings.auto_merge;
  const bool by_position = !stmt.by_name && stmt.columns.empty();

  // The target columns, in the order the query's columns are written.
  std::vector<std::string> listed;
  std::vector<StructField> target_fields;
  if (!stmt.columns.empty()) {
    DELTA_ASSIGN_OR_RETURN(listed, ListedColumns(stmt, schema, merge, shown));
    for (const auto& name : listed) {
      const int at = schema.FieldIndexCaseInsensitive(name);
      if (at < 0) {
        target_fields.clear();  // a new column: no typing for VALUES
        break;
      }
      target_fields.push_back(schema.field(static_cast<size_t>(at)));
    }
  } else if (by_position) {
    const int width = ValuesWidth(*stmt.query);
    const size_t n =
        width < 0 ? schema.num_fields() : std::min<size_t>(schema.num_fields(), width);
    for (size_t i = 0; i < n; ++i) target_fields.push_back(schema.field(i));
  }
  std::shared_ptr<StructType> values_target;
  if (!target_fields.empty() && !stmt.by_name) {
    values_target = std::make_shared<StructType>(std::move(target_fields));
  }
  PlanOptions plan_options;
  plan_options.values_target = values_target.get();
  auto plan_or = PlanQuery(*stmt.query, state.Query(), plan_options);
  if (!plan_or) return NameTable(plan_or.error(), table, stmt.table);
  QueryPlan plan = std::move(*plan_or);

  // Rename the query's columns to the columns they are written to.
  std::vector<std::string> input_names = plan.arrow_schema->field_names();
  std::vector<std::string> written = input_names;
  if (by_position) {
    std::vector<std::string> checked = input_names;
    // With schema evolution, columns past the table's are new columns, named by the
    // query (Spark's by-position evolution appends them).
    if (merge && checked.size() > schema.num_fields())
      checked.resize(schema.num_fields());
    DELTA_RETURN_IF_ERROR(CheckPositionalNames(schema, checked, shown));
    for (size_t i = 0; i < checked.size(); ++i) written[i] = schema.field(i).name;
  } else if (!listed.empty()) {
    if (listed.size() != input_names.size()) {
      return MakeError(
          ErrorCode::kSchemaMismatch,
          "DELTA_INSERT_COLUMN_ARITY_MISMATCH: Cannot write to table '{}': {} data "
          "columns; the column list names {} column(s) {} but the query has {} {}",
          shown, input_names.size() > listed.size() ? "too many" : "not enough",
          listed.size(), JoinNames(listed), input_names.size(), JoinNames(input_names));
    }
    written = listed;
  }
  // Errors while writing say "input '<this>'": name the target table, not the query's
  // source (a SELECT without FROM is "no table"). Renamed, the names say where each
  // column goes, so the source is matched by name (batches always pass the renaming
  // reader, which also checks each batch has the plan's column count).
  BatchSource source =
      QueryPlanSource(plan,
                      fmt::format("INSERT INTO {} from {}", shown,
                                  plan.source_name == "no table" ? "a query without FROM"
                                                                 : plan.source_name),
                      written);

  WriteOptions options;
  options.mode =
      stmt.overwrite || stmt.replace_where ? WriteMode::kOverwrite : WriteMode::kAppend;
  if (stmt.schema_evolution) options.merge_schema = true;
  options.merge_option_hint = fmt::format(
      "INSERT INTO {} WITH SCHEMA EVOLUTION (or SET "
      "spark.databricks.delta.schema.autoMerge.enabled = true)",
      shown);
  if (stmt.replace_where) {
    options.replace_where = stmt.replace_where_text;
  }
  options.operation = "WRITE";
  DELTA_ASSIGN_OR_RETURN(options.contract, SessionContract(state));
  options.check = SessionCheck(state);
  std::vector<BatchSource> sources;
  sources.push_back(std::move(source));
  auto written_or = WriteWithSessionCheck(state, table.path, std::move(sources), options);
  if (!written_or) return NameTable(written_or.error(), table, stmt.table);
  const WriteResult& write = written_or->write;

  RowsBuilder rows;
  rows.Column("num_affected_rows", RowsBuilder::Type::kInt64, false)
      .Column("num_inserted_rows", RowsBuilder::Type::kInt64, false);
  rows.Row({write.rows, write.rows});
  DELTA_ASSIGN_OR_RETURN(
      StatementResult result,
      rows.Finish("INSERT", fmt::format("Inserted {} rows into {} (version {})",
                                        write.rows, shown, write.version)));
  if (!written_or->quarantine.empty() &&
      (written_or->quarantined_rows > 0 || (write.check && write.check->held))) {
    result.message +=
        write.check && write.check->held
            ? fmt::format("\nThe batch was held in the quarantine table {} ({})",
                          written_or->quarantine, write.check->held_reason)
            : fmt::format("\n{} row{} routed to the quarantine table {}",
                          written_or->quarantined_rows,
                          written_or->quarantined_rows == 1 ? "" : "s",
                          written_or->quarantine);
  }
  result.warnings = write.warnings;
  for (const auto& w : write.warnings) result.message += "\nWARNING: " + w;
  result.write = write;
  return result;
}

}  // namespace deltaguard::internal
