// Vectorised CHECK constraint / invariant enforcement (constraint_checker.h).

#include "deltaguard/exec/constraint_checker.h"

#include <arrow/array/builder_binary.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/compute/api.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/char_varchar_check.h"
#include "deltaguard/exec/expr_eval.h"
#include "deltaguard/exec/result_format.h"
#include "deltaguard/expr/parser.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/schema/column_path.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

// True when row `i` passes: the predicate is TRUE (FALSE and NULL violate).
inline bool Passes(const arrow::BooleanArray& result, int64_t i) {
  return result.IsValid(i) && result.Value(i);
}

int64_t CountViolations(const arrow::BooleanArray& result) {
  return result.length() - result.true_count();
}

// The kColumn node reading `path` inside `expr` (its type is what the sample renders).
const BoundExpr* FindColumn(const BoundExpr& expr, const std::vector<std::string>& path) {
  if (expr.kind == BoundKind::kColumn && expr.path == path) return &expr;
  for (const auto& arg : expr.args) {
    if (const BoundExpr* found = FindColumn(*arg, path)) return found;
  }
  return nullptr;
}

// The values of the referenced columns, for rendering sample rows.
struct SampleColumns {
  std::vector<std::string> names;
  std::vector<std::shared_ptr<arrow::Array>> values;
};

Result<SampleColumns> EvaluateSampleColumns(
    const BoundExpr& predicate, const std::vector<std::vector<std::string>>& cols,
    const arrow::RecordBatch& batch) {
  SampleColumns out;
  for (const auto& path : cols) {
    const BoundExpr* column = FindColumn(predicate, path);
    if (column == nullptr) continue;
    DELTA_ASSIGN_OR_RETURN(auto values, Evaluate(*column, batch));
    out.names.push_back(JoinColumnPath(path));
    out.values.push_back(std::move(values));
  }
  return out;
}

// "{a: -1, s.x: NULL, name: "bob"}": strings quoted (JSON), other values as in tables.
constexpr size_t kSampleRowBytes = 300;

std::string RenderRow(const SampleColumns& cols, int64_t row) {
  std::string out = "{";
  for (size_t c = 0; c < cols.names.size(); ++c) {
    if (c) out += ", ";
    out += cols.names[c];
    out += ": ";
    const arrow::Array& array = *cols.values[c];
    const auto id = array.type_id();
    bool quoted = array.IsValid(row) &&
                  (id == arrow::Type::STRING || id == arrow::Type::LARGE_STRING ||
                   id == arrow::Type::STRING_VIEW);
    if (quoted) {
      AppendJsonValue(array, row, &out);
    } else {
      AppendTextValue(array, row, /*csv=*/false, &out);
    }
  }
  // Rows are input data: control characters escaped, long values cut.
  return EscapeForMessage(out + "}", kSampleRowBytes);
}

// Append up to `max_samples - samples->size()` violating rows of `result`.
Status AddSamples(const BoundExpr& predicate,
                  const std::vector<std::vector<std::string>>& columns,
                  const arrow::RecordBatch& batch, const arrow::BooleanArray& result,
                  size_t max_samples, std::vector<std::string>* samples) {
  if (samples->size() >= max_samples) return OkStatus();
  DELTA_ASSIGN_OR_RETURN(auto cols, EvaluateSampleColumns(predicate, columns, batch));
  for (int64_t i = 0; i < result.length() && samples->size() < max_samples; ++i) {
    if (!Passes(result, i)) samples->push_back(RenderRow(cols, i));
  }
  return OkStatus();
}

Result<std::shared_ptr<arrow::BooleanArray>> EvaluateConstraint(
    const BoundConstraint& c, const arrow::RecordBatch& batch) {
  auto result = EvaluatePredicate(*c.predicate, batch);
  if (!result) {
    return WithContext(result.error(), fmt::format("{} ({})", c.constraint.Describe(),
                                                   c.constraint.expression));
  }
  return std::move(*result);
}

// Field copy for a quarantine table: nullable, only the comment kept, at every depth.
DataTypeRef PlainType(const DataTypeRef& type);

StructField PlainField(const StructField& f) {
  StructField out{f.name, PlainType(f.type), true, FieldMetadata()};
  if (const std::string* comment = f.metadata.FindRaw(kCommentKey)) {
    out.metadata = out.metadata.With(kCommentKey, *comment);
  }
  return out;
}

DataTypeRef PlainType(const DataTypeRef& type) {
  switch (type->kind()) {
    case TypeKind::kStruct: {
      std::vector<StructField> fields;
      for (const auto& f : static_cast<const StructType&>(*type).fields())
        fields.push_back(PlainField(f));
      return std::make_shared<StructType>(std::move(fields));
    }
    case TypeKind::kArray: {
      const auto& a = static_cast<const ArrayType&>(*type);
      return std::make_shared<ArrayType>(PlainType(a.element_type()), true);
    }
    case TypeKind::kMap: {
      const auto& m = static_cast<const MapType&>(*type);
      return std::make_shared<MapType>(PlainType(m.key_type()), PlainType(m.value_type()),
                                       true);
    }
    default:
      return type;
  }
}

// Up to `max_samples` violating rows, each rendered with the limit's top-level column.
std::vector<std::string> TooLongSamples(const CharVarcharLimit& limit,
                                        const arrow::RecordBatch& batch,
                                        const TooLongRows& rows, size_t max_samples) {
  std::vector<std::string> out;
  SampleColumns cols;
  for (int i = 0; i < batch.num_columns(); ++i) {
    if (EqualsIgnoreCase(batch.schema()->field(i)->name(), limit.column)) {
      cols.names.push_back(batch.schema()->field(i)->name());
      cols.values.push_back(batch.column(i));
      break;
    }
  }
  for (size_t i = 0; i < rows.rows.size() && out.size() < max_samples; ++i) {
    if (rows.rows[i]) out.push_back(RenderRow(cols, static_cast<int64_t>(i)));
  }
  return out;
}

// DELTA_EXCEED_CHAR_VARCHAR_LIMIT with the column, its type, the rows, the longest
// value, Spark's check, and the deliberate way out (a wider type) for a top-level one.
Error TooLongError(const std::string& table, const CharVarcharLimit& limit,
                   const TooLongRows& rows, const std::vector<std::string>& samples) {
  std::string out = fmt::format(
      "DELTA_EXCEED_CHAR_VARCHAR_LIMIT: table '{}': column {} is {} and {} row{} hold{} "
      "a longer value (up to {} characters)",
      table, limit.Path(), limit.TypeName(), rows.count, rows.count == 1 ? "" : "s",
      rows.count == 1 ? "s" : "", rows.longest);
  for (size_t i = 0; i < samples.size(); ++i) {
    out += i ? ", " : ", e.g. ";
    out += samples[i];
  }
  out += fmt::format("; failed check: {}. Values are never truncated", limit.CheckText());
  if (limit.leaf.steps.empty()) {
    out += fmt::format(
        "; to accept them widen the column: ALTER TABLE {} ALTER COLUMN {} TYPE "
        "VARCHAR({})",
        table, limit.column, rows.longest);
  }
  Error error = MakeError(ErrorCode::kConstraintViolation, "{}", out);
  error.details = ViolationDetails(ConstraintViolation{
      std::string(kReservedConstraintName), limit.CheckText(), rows.count, samples});
  error.details.emplace_back("column", limit.Path());
  return error;
}

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::vector<std::pair<std::string, std::string>> ViolationDetails(
    const ConstraintViolation& v) {
  std::vector<std::pair<std::string, std::string>> out = {
      {"constraint", v.constraint},
      {"expression", v.expression},
      {"violating_rows", std::to_string(v.count)}};
  for (const auto& sample : v.samples) out.emplace_back("sample_row", sample);
  return out;
}

Result<int64_t> CountPredicateViolations(
    const BoundExpr& predicate, const std::vector<std::vector<std::string>>& columns,
    const arrow::RecordBatch& batch, size_t max_samples,
    std::vector<std::string>* samples) {
  DELTA_ASSIGN_OR_RETURN(auto result, EvaluatePredicate(predicate, batch));
  int64_t count = CountViolations(*result);
  if (count > 0) {
    DELTA_RETURN_IF_ERROR(
        AddSamples(predicate, columns, batch, *result, max_samples, samples));
  }
  return count;
}

std::string DescribeViolation(std::string_view what, const ConstraintViolation& v) {
  std::string out = fmt::format("{} ({}) violated by {} row{}", what, v.expression,
                                v.count, v.count == 1 ? "" : "s");
  for (size_t i = 0; i < v.samples.size(); ++i) {
    out += i ? ", " : ", e.g. ";
    out += v.samples[i];
  }
  return out;
}

Result<SchemaRef> QuarantineSchema(const StructType& schema) {
  std::vector<StructField> fields;
  for (const auto& f : schema.fields()) {
    if (EqualsIgnoreCase(f.name, kQuarantineConstraintColumn) ||
        EqualsIgnoreCase(f.name, kQuarantineTimeColumn)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "cannot quarantine rows of a table with a column named '{}': the "
                       "quarantine table adds columns '{}' and '{}'",
                       f.name, kQuarantineConstraintColumn, kQuarantineTimeColumn);
    }
    fields.push_back(PlainField(f));
  }
  fields.push_back(
      StructField{std::string(kQuarantineConstraintColumn), DataType::String()});
  fields.push_back(
      StructField{std::string(kQuarantineTimeColumn), DataType::Timestamp()});
  return std::make_shared<StructType>(std::move(fields));
}

Result<ConstraintChecker> ConstraintChecker::Make(const Metadata& metadata,
                                                  const StructType& schema,
                                                  std::string table_name) {
  auto bound = BindAllConstraints(metadata, schema);
  if (!bound) {
    return WithContext(bound.error(), fmt::format("table '{}'", table_name));
  }
  auto limits = CharVarcharLimits(schema);
  if (!limits) {
    return WithContext(limits.error(), fmt::format("table '{}'", table_name));
  }
  return ConstraintChecker(std::move(*bound), std::move(*limits), std::move(table_name));
}

ConstraintChecker::ConstraintChecker(std::vector<BoundConstraint> constraints,
                                     std::vector<CharVarcharLimit> limits,
                                     std::string table_name)
    : constraints_(std::move(constraints)),
      limits_(std::move(limits)),
      table_name_(std::move(table_name)) {}

Result<std::optional<ConstraintViolation>> ConstraintChecker::FirstViolation(
    const arrow::RecordBatch& batch, size_t max_samples) const {
  for (const auto& c : constraints_) {
    DELTA_ASSIGN_OR_RETURN(auto result, EvaluateConstraint(c, batch));
    const int64_t count = CountViolations(*result);
    if (count == 0) continue;
    ConstraintViolation v;
    v.constraint = c.constraint.name;
    v.expression = c.constraint.expression;
    v.count = count;
    DELTA_RETURN_IF_ERROR(
        AddSamples(*c.predicate, c.columns, batch, *result, max_samples, &v.samples));
    return std::optional<ConstraintViolation>(std::move(v));
  }
  for (const auto& limit : limits_) {
    DELTA_ASSIGN_OR_RETURN(TooLongRows rows, FindTooLong(limit, batch));
    if (rows.count == 0) continue;
    ConstraintViolation v{std::string(kReservedConstraintName), limit.CheckText(),
                          rows.count, TooLongSamples(limit, batch, rows, max_samples)};
    return std::optional<ConstraintViolation>(std::move(v));
  }
  return std::optional<ConstraintViolation>();
}

Status ConstraintChecker::Check(const arrow::RecordBatch& batch) const {
  for (const auto& c : constraints_) {
    DELTA_ASSIGN_OR_RETURN(auto result, EvaluateConstraint(c, batch));
    const int64_t count = CountViolations(*result);
    if (count == 0) continue;
    ConstraintViolation v{c.constraint.name, c.constraint.expression, count, {}};
    DELTA_RETURN_IF_ERROR(
        AddSamples(*c.predicate, c.columns, batch, *result, 5, &v.samples));
    Error error = MakeError(ErrorCode::kConstraintViolation,
                            "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES: table '{}': {}",
                            table_name_, DescribeViolation(c.constraint.Describe(), v));
    error.details = ViolationDetails(v);
    return error;
  }
  for (const auto& limit : limits_) {
    DELTA_ASSIGN_OR_RETURN(TooLongRows rows, FindTooLong(limit, batch));
    if (rows.count == 0) continue;
    return TooLongError(table_name_, limit, rows, TooLongSamples(limit, batch, rows, 5));
  }
  return OkStatus();
}

Result<SplitBatch> ConstraintChecker::Split(
    const std::shared_ptr<arrow::RecordBatch>& batch, int64_t now_micros) const {
  const int64_t n = batch->num_rows();
  // first_violated[i]: index of the first constraint row i violates, or -1.
  std::vector<int32_t> first_violated(static_cast<size_t>(n), -1);
  int64_t num_violating = 0;
  for (size_t ci = 0; ci < constraints_.size(); ++ci) {
    DELTA_ASSIGN_OR_RETURN(auto result, EvaluateConstraint(constraints_[ci], *batch));
    if (CountViolations(*result) == 0) continue;
    for (int64_t i = 0; i < n; ++i) {
      if (first_violated[i] < 0 && !Passes(*result, i)) {
        first_violated[i] = static_cast<int32_t>(ci);
        ++num_violating;
      }
    }
  }
  // Length limits are numbered after the constraints.
  for (size_t li = 0; li < limits_.size(); ++li) {
    DELTA_ASSIGN_OR_RETURN(TooLongRows rows, FindTooLong(limits_[li], *batch));
    if (rows.count == 0) continue;
    for (int64_t i = 0; i < n; ++i) {
      if (first_violated[i] < 0 && rows.rows[i]) {
        first_violated[i] = static_cast<int32_t>(constraints_.size() + li);
        ++num_violating;
      }
    }
  }
  const std::string context = fmt::format("quarantine split of table '{}'", table_name_);
  arrow::BooleanBuilder mask_builder;
  DELTA_ARROW_RETURN_NOT_OK(mask_builder.Reserve(n), ErrorCode::kInternal, context);
  for (int64_t i = 0; i < n; ++i) mask_builder.UnsafeAppend(first_violated[i] < 0);
  std::shared_ptr<arrow::BooleanArray> mask;
  DELTA_ARROW_RETURN_NOT_OK(mask_builder.Finish(&mask), ErrorCode::kInternal, context);

  SplitBatch out;
  out.good_mask = mask;
  out.num_violating = num_violating;
  if (num_violating == 0) {
    out.good = batch;
  } else {
    DELTA_ARROW_ASSIGN_OR_RETURN(
        arrow::Datum good,
        arrow::compute::Filter(arrow::Datum(batch), arrow::Datum(mask)),
        ErrorCode::kInternal, context);
    out.good = good.record_batch();
  }
  // The violating rows with the name of the first violated constraint and the time.
  std::shared_ptr<arrow::RecordBatch> bad;
  if (num_violating == 0) {
    bad = batch->Slice(0, 0);
  } else {
    DELTA_ARROW_ASSIGN_OR_RETURN(auto inverted, arrow::compute::Invert(mask),
                                 ErrorCode::kInternal, context);
    DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum filtered,
                                 arrow::compute::Filter(arrow::Datum(batch), inverted),
                                 ErrorCode::kInternal, context);
    bad = filtered.record_batch();
  }
  // The violating rows with the name of the first violated constraint and the time.
  std::vector<std::string> reasons;
  reasons.reserve(static_cast<size_t>(num_violating));
  for (int64_t i = 0; i < n; ++i) {
    if (first_violated[i] < 0) continue;
    const size_t which = static_cast<size_t>(first_violated[i]);
    reasons.push_back(which < constraints_.size()
                          ? constraints_[which].constraint.Describe()
                          : limits_[which - constraints_.size()].Describe());
  }
  DELTA_ASSIGN_OR_RETURN(
      bad,
      WithQuarantineColumns(bad, reasons, now_micros >= 0 ? now_micros : NowMicros()));
  out.violating = std::move(bad);
  return out;
}

Result<std::shared_ptr<arrow::RecordBatch>> WithQuarantineColumns(
    const std::shared_ptr<arrow::RecordBatch>& rows,
    const std::vector<std::string>& reasons, int64_t now_micros) {
  const char* what = "quarantine columns";
  arrow::StringBuilder names;
  arrow::TimestampBuilder times(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
                                arrow::default_memory_pool());
  for (int64_t i = 0; i < rows->num_rows(); ++i) {
    DELTA_ARROW_RETURN_NOT_OK(names.Append(reasons[static_cast<size_t>(i)]),
                              ErrorCode::kInternal, what);
    DELTA_ARROW_RETURN_NOT_OK(times.Append(now_micros), ErrorCode::kInternal, what);
  }
  std::shared_ptr<arrow::Array> names_array;
  std::shared_ptr<arrow::Array> times_array;
  DELTA_ARROW_RETURN_NOT_OK(names.Finish(&names_array), ErrorCode::kInternal, what);
  DELTA_ARROW_RETURN_NOT_OK(times.Finish(&times_array), ErrorCode::kInternal, what);
  std::shared_ptr<arrow::RecordBatch> out = rows;
  DELTA_ARROW_ASSIGN_OR_RETURN(
      out,
      out->AddColumn(
          out->num_columns(),
          arrow::field(std::string(kQuarantineConstraintColumn), arrow::utf8()),
          names_array),
      ErrorCode::kInternal, what);
  DELTA_ARROW_ASSIGN_OR_RETURN(
      out,
      out->AddColumn(
          out->num_columns(),
          arrow::field(std::string(kQuarantineTimeColumn), times_array->type()),
          times_array),
      ErrorCode::kInternal, what);
  return out;
}

Result<ConstraintViolation> FindViolations(SnapshotRef snapshot, const std::string& name,
                                           const std::string& predicate_sql,
                                           size_t max_samples) {
  const std::string what =
      fmt::format("table '{}': {} ({})", snapshot->table_root(), name, predicate_sql);
  auto parsed = ParseExpression(predicate_sql);
  if (!parsed) return WithContext(parsed.error(), what);
  const StructType& schema = *snapshot->schema();
  auto bound = BindPredicate(**parsed, schema);
  if (!bound) return WithContext(bound.error(), what);
  const auto columns = ReferencedColumns(**bound);

  // Read only the top-level columns the predicate needs (nested paths are evaluated
  // from their top-level struct); with none, any one column gives the row count.
  ScanOptions options;
  for (const auto& path : columns) {
    if (std::find(options.columns.begin(), options.columns.end(), path[0]) ==
        options.columns.end()) {
      options.columns.push_back(path[0]);
    }
  }
  if (options.columns.empty() && schema.num_fields() > 0) {
    options.columns.push_back(schema.field(0).name);
  }
  DELTA_ASSIGN_OR_RETURN(auto scan, TableScan::Make(snapshot, options));
  ConstraintViolation out;
  out.constraint = name;
  out.expression = std::string(Trim(predicate_sql));
  while (true) {
    DELTA_ASSIGN_OR_RETURN(auto batch, scan->Next());
    if (!batch) break;
    auto result = EvaluatePredicate(**bound, *batch);
    if (!result) return WithContext(result.error(), what);
    const int64_t count = CountViolations(**result);
    if (count == 0) continue;
    out.count += count;
    DELTA_RETURN_IF_ERROR(
        AddSamples(**bound, columns, *batch, **result, max_samples, &out.samples));
  }
  return out;
}

}  // namespace deltaguard
