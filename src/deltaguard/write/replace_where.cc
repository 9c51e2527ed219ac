#include "deltaguard/write/replace_where.h"

#include <arrow/array/util.h>
#include <arrow/compute/api.h>
#include <fmt/format.h>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/expr_eval.h"
#include "deltaguard/expr/parser.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/io/parquet/partition_value.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {

Result<std::unique_ptr<ReplaceWhere>> ReplaceWhere::Make(
    const std::string& sql, SchemaRef schema,
    const std::vector<std::string>& partition_columns, ColumnMappingMode mode,
    const std::string& table) {
  auto parsed = ParseExpression(sql);
  if (!parsed) return WithContext(parsed.error(), "replaceWhere");
  return FromExpr(**parsed, std::move(schema), partition_columns, mode, table);
}

Result<std::unique_ptr<ReplaceWhere>> ReplaceWhere::FromExpr(
    const Expr& parsed, SchemaRef schema,
    const std::vector<std::string>& partition_columns, ColumnMappingMode mode,
    const std::string& table) {
  auto bound = BindPredicate(parsed, *schema);
  if (!bound) {
    return WithContext(bound.error(), fmt::format("replaceWhere on table '{}'", table));
  }
  if (!IsDeterministic(**bound) || ContainsAggregate(**bound)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "replaceWhere '{}' on table '{}' must be deterministic and must not "
                     "aggregate",
                     ToSql(parsed), table);
  }
  auto out = std::unique_ptr<ReplaceWhere>(new ReplaceWhere());
  out->sql_ = ToSql(parsed);
  out->table_ = table;
  out->schema_ = schema;
  out->bound_ = *bound;
  out->partition_only_ = true;
  for (const auto& path : ReferencedColumns(**bound)) {
    bool is_partition = false;
    for (const auto& p : partition_columns) {
      if (path.size() == 1 && EqualsIgnoreCase(path[0], p)) is_partition = true;
    }
    if (!is_partition) out->partition_only_ = false;
  }
  for (const auto& p : partition_columns) {
    int index = schema->FieldIndexCaseInsensitive(p);
    if (index < 0) continue;
    const StructField& field = schema->field(static_cast<size_t>(index));
    std::string key = field.name;
    if (mode != ColumnMappingMode::kNone) {
      if (auto physical = field.physical_name()) key = *physical;
    }
    out->partition_fields_.emplace_back(field, std::move(key));
  }
  return out;
}

Result<std::shared_ptr<arrow::BooleanArray>> ReplaceWhere::Select(
    const arrow::RecordBatch& batch) const {
  return EvaluatePredicate(*bound_, batch);
}

Status ReplaceWhere::CheckRows(const arrow::RecordBatch& batch, int64_t first_row) const {
  auto selected = Select(batch);
  if (!selected) {
    return WithContext(selected.error(),
                       fmt::format("replaceWhere '{}' of table '{}'", sql_, table_));
  }
  const auto& mask = *selected;
  int64_t bad = 0;
  int64_t first_bad = -1;
  for (int64_t i = 0; i < mask->length(); ++i) {
    if (mask->IsValid(i) && mask->Value(i)) continue;
    if (first_bad < 0) first_bad = i;
    ++bad;
  }
  if (bad == 0) return OkStatus();
  std::string row_text;
  for (int c = 0; c < batch.num_columns(); ++c) {
    auto scalar = batch.column(c)->GetScalar(first_bad);
    if (!scalar.ok()) continue;
    if (!row_text.empty()) row_text += ", ";
    row_text += batch.schema()->field(c)->name() + "=" +
                ((*scalar)->is_valid ? (*scalar)->ToString() : "NULL");
  }
  return MakeError(ErrorCode::kConstraintViolation,
                   "DELTA_REPLACE_WHERE_MISMATCH: written data does not conform to the "
                   "partial table overwrite condition '{}' of table '{}': {} row(s) do "
                   "not satisfy it; first at input row {}: {}",
                   sql_, table_, bad, first_row + first_bad + 1, row_text);
}

Result<bool> ReplaceWhere::MatchesPartition(const PartitionValues& values) const {
  std::vector<std::shared_ptr<arrow::Field>> fields;
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (const auto& [field, key] : partition_fields_) {
    std::optional<std::string> text;
    for (const auto& [k, v] : values) {
      if (k == key) text = v;
    }
    DELTA_ASSIGN_OR_RETURN(auto scalar, ParsePartitionValue(text, *field.type));
    DELTA_ARROW_ASSIGN_OR_RETURN(auto array, arrow::MakeArrayFromScalar(*scalar, 1),
                                 ErrorCode::kInternal, "partition value");
    DELTA_ASSIGN_OR_RETURN(auto arrow_type, ToArrowType(*field.type));
    fields.push_back(arrow::field(field.name, arrow_type));
    columns.push_back(std::move(array));
  }
  auto batch = arrow::RecordBatch::Make(arrow::schema(fields), 1, columns);
  DELTA_ASSIGN_OR_RETURN(auto mask, Select(*batch));
  return mask->IsValid(0) && mask->Value(0);
}

std::function<bool(const PartitionValues&)> ReplaceWhere::PartitionPredicate() const {
  if (!partition_only_) return [](const PartitionValues&) { return true; };
  return [this](const PartitionValues& values) {
    auto matches = MatchesPartition(values);
    return !matches || *matches;
  };
}

}  // namespace deltaguard
