// WITH (common table expressions) and set operations (UNION, INTERSECT, EXCEPT, with
// ALL or DISTINCT), Spark SQL's semantics (docs/sql.md "WITH and set operations"):
//
// - A WITH query is planned where it is defined, seeing the WITH queries before it
//   (not itself: WITH is not recursive), and runs again at each reference.
// - Set operations match columns by position; the output has the left query's names,
//   each column the common type of both sides (numbers widen, NULL gives way; types that
//   do not combine are an error naming the column and both types), nullable when
//   either side is. Rows compare as in GROUP BY: NULLs equal each other.
// - UNION ALL streams both sides; the others hold their input (the distinct rows and
//   their counts).

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/compute/row/grouper.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/sql/query_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::query_internal {
namespace {

std::string OperationName(const SetOperation& op) {
  const char* kind = op.kind == SetOperation::Kind::kUnion       ? "UNION"
                     : op.kind == SetOperation::Kind::kIntersect ? "INTERSECT"
                                                                 : "EXCEPT";
  return fmt::format("{}{}", kind, op.all ? " ALL" : "");
}

// Both sides' batches, conformed to the output schema, one after the other.
class ConcatReader final : public arrow::RecordBatchReader {
 public:
  ConcatReader(std::vector<std::function<Result<ReaderRef>()>> inputs,
               std::shared_ptr<arrow::Schema> schema, std::string what)
      : inputs_(std::move(inputs)), schema_(std::move(schema)), what_(std::move(what)) {}

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  arrow::Status ReadNext(BatchRef* out) override {
    *out = nullptr;
    while (true) {
      if (current_ == nullptr) {
        if (next_ >= inputs_.size()) return arrow::Status::OK();
        auto opened = inputs_[next_++]();
        if (!opened) return internal::ToArrowStatus(opened.error());
        current_ = std::move(*opened);
      }
      BatchRef batch;
      ARROW_RETURN_NOT_OK(current_->ReadNext(&batch));
      if (batch == nullptr) {
        current_.reset();
        continue;
      }
      if (batch->num_rows() == 0) continue;
      auto conformed = ConformBatch(batch, schema_, what_);
      if (!conformed) return internal::ToArrowStatus(conformed.error());
      *out = std::move(*conformed);
      return arrow::Status::OK();
    }
  }

 private:
  std::vector<std::function<Result<ReaderRef>()>> inputs_;
  std::shared_ptr<arrow::Schema> schema_;
  std::string what_;
  size_t next_ = 0;
  ReaderRef current_;
};

// Rows of `left` and `right` (same schema) by the operation's multiset rule: group ids
// from one grouper over both sides, counted per side, then the distinct rows repeated
// as the rule says, in order of first appearance.
Result<std::shared_ptr<arrow::Table>> Combine(
    const SetOperation& op, const std::shared_ptr<arrow::Table>& left,
    const std::shared_ptr<arrow::Table>& right) {
  const std::string what = OperationName(op);
  if (left->num_columns() == 0) {
    return MakeError(ErrorCode::kInvalidArgument, "{} of queries without columns", what);
  }
  std::vector<arrow::TypeHolder> types;
  for (const auto& f : left->schema()->fields()) types.emplace_back(f->type());
  DELTA_ARROW_ASSIGN_OR_RETURN(auto grouper, arrow::compute::Grouper::Make(types),
                               ErrorCode::kUnsupportedFeature,
                               what + " over " + left->schema()->ToString());
  std::vector<int64_t> counts[2];
  for (int side = 0; side < 2; ++side) {
    DELTA_ASSIGN_OR_RETURN(auto batches, TableBatches(side == 0 ? left : right));
    for (const auto& batch : batches) {
      arrow::compute::ExecBatch exec = ToExecBatch(*batch);
      DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum ids,
                                   grouper->Consume(arrow::compute::ExecSpan(exec)),
                                   ErrorCode::kInternal, what);
      const std::shared_ptr<arrow::Array> id_holder = ids.make_array();
      const auto& id_array = static_cast<const arrow::UInt32Array&>(*id_holder);
      for (int64_t i = 0; i < id_array.length(); ++i) {
        const uint32_t g = id_array.Value(i);
        for (auto& c : counts) {
          if (c.size() <= g) c.resize(g + 1, 0);
        }
        ++counts[side][g];
      }
    }
  }
  arrow::UInt32Builder take;
  const size_t groups = counts[0].size();
  for (size_t g = 0; g < groups; ++g) {
    const int64_t l = counts[0][g], r = g < counts[1].size() ? counts[1][g] : 0;
    int64_t copies = 0;
    switch (op.kind) {
      case SetOperation::Kind::kUnion:
        copies = 1;
        break;
      case SetOperation::Kind::kIntersect:
        copies = op.all ? std::min(l, r) : (l > 0 && r > 0 ? 1 : 0);
        break;
      case SetOperation::Kind::kExcept:
        copies = op.all ? std::max<int64_t>(l - r, 0) : (l > 0 && r == 0 ? 1 : 0);
        break;
    }
    for (int64_t k = 0; k < copies; ++k) {
      DELTA_ARROW_RETURN_NOT_OK(take.Append(static_cast<uint32_t>(g)),
                                ErrorCode::kInternal, what);
    }
  }
  DELTA_ARROW_ASSIGN_OR_RETURN(arrow::compute::ExecBatch uniques, grouper->GetUniques(),
                               ErrorCode::kInternal, what);
  std::shared_ptr<arrow::Array> indices;
  DELTA_ARROW_RETURN_NOT_OK(take.Finish(&indices), ErrorCode::kInternal, what);
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (const auto& value : uniques.values) {
    DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum taken,
                                 arrow::compute::Take(value.make_array(), indices),
                                 ErrorCode::kInternal, what);
    columns.push_back(taken.make_array());
  }
  auto batch =
      arrow::RecordBatch::Make(left->schema(), indices->length(), std::move(columns));
  DELTA_ARROW_ASSIGN_OR_RETURN(auto table, arrow::Table::FromRecordBatches({batch}),
                               ErrorCode::kInternal, what);
  return table;
}

}  // namespace

Result<QueryPlan> PlanWith(const SelectStmt& query, const QueryContext& context,
                           const PlanOptions& options, int depth) {
  auto ctes = std::make_shared<std::map<std::string, CtePlan>>();
  if (context.ctes != nullptr) *ctes = *context.ctes;
  QueryContext inner = context;
  inner.ctes = ctes.get();
  for (const auto& cte : query.with) {
    // Planned before it is visible: a query that names itself finds the table (or
    // nothing) of that name, as Spark's non-recursive WITH.
    auto plan = PlanQueryAt(*cte.query, inner, {}, depth + 1);
    if (!plan) return WithContext(plan.error(), fmt::format("WITH query '{}'", cte.name));
    if (!cte.columns.empty() && cte.columns.size() != plan->schema->num_fields()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "WITH query '{}' names {} columns ({}) but its query has {}",
                       cte.name, cte.columns.size(), fmt::join(cte.columns, ", "),
                       plan->schema->num_fields());
    }
    plan->source_name = "WITH query " + cte.name;
    (*ctes)[AsciiToLower(cte.name)] = CtePlan{std::move(*plan), cte.columns};
  }
  SelectStmt body = query;
  body.with.clear();
  return PlanQueryAt(body, inner, options, depth + 1);
}

Result<QueryPlan> PlanSetOperation(const SetOperation& op, const QueryContext& context,
                                   int depth) {
  const std::string what = OperationName(op);
  DELTA_ASSIGN_OR_RETURN(QueryPlan left, PlanQueryAt(*op.left, context, {}, depth + 1));
  DELTA_ASSIGN_OR_RETURN(QueryPlan right, PlanQueryAt(*op.right, context, {}, depth + 1));
  const StructType& l = *left.schema;
  const StructType& r = *right.schema;
  if (l.num_fields() != r.num_fields()) {
    return MakeError(ErrorCode::kSchemaMismatch,
                     "NUM_COLUMNS_MISMATCH: {} can only be performed on inputs with the "
                     "same number of columns, but the first input has {} columns and "
                     "the second input has {} columns",
                     what, l.num_fields(), r.num_fields());
  }
  std::vector<StructField> fields;
  for (size_t i = 0; i < l.num_fields(); ++i) {
    DataTypeRef type = CommonTypeOf(l.field(i).type, r.field(i).type);
    if (type == nullptr) {
      return MakeError(
          ErrorCode::kSchemaMismatch,
          "INCOMPATIBLE_COLUMN_TYPE: {} can only be performed on tables with "
          "compatible column types; column {} ('{}') is {} in the first "
          "input and {} in the second",
          what, i + 1, l.field(i).name, l.field(i).type->ToString(),
          r.field(i).type->ToString());
    }
    if (type->kind() == TypeKind::kVoid) type = DataType::String();
    fields.push_back(StructField{
        l.field(i).name, type, l.field(i).nullable || r.field(i).nullable, {}});
  }
  QueryPlan plan;
  plan.schema = std::make_shared<StructType>(std::move(fields));
  DELTA_ASSIGN_OR_RETURN(plan.arrow_schema, ToArrowSchema(*plan.schema));
  plan.source_name =
      fmt::format("{} of {} and {}", what, left.source_name, right.source_name);
  plan.row_by_row = false;
  auto schema = plan.arrow_schema;
  std::vector<std::function<Result<ReaderRef>()>> inputs{left.open, right.open};
  if (op.kind == SetOperation::Kind::kUnion && op.all) {
    plan.open = [inputs, schema, what]() -> Result<ReaderRef> {
      return ReaderRef(std::make_shared<ConcatReader>(inputs, schema, what));
    };
    return plan;
  }
  const SetOperation spec = op;
  QueryMemoryRef memory = context.memory;
  plan.open = [inputs, schema, what, spec, memory]() -> Result<ReaderRef> {
    std::shared_ptr<arrow::Table> sides[2];
    for (int i = 0; i < 2; ++i) {
      auto reader = std::make_shared<ConcatReader>(
          std::vector<std::function<Result<ReaderRef>()>>{inputs[i]}, schema, what);
      DELTA_ASSIGN_OR_RETURN(sides[i], ReadAll(reader, schema, what, memory));
    }
    if (spec.kind == SetOperation::Kind::kUnion) {
      DELTA_ARROW_ASSIGN_OR_RETURN(auto both,
                                   arrow::ConcatenateTables({sides[0], sides[1]}),
                                   ErrorCode::kInternal, what);
      DELTA_ASSIGN_OR_RETURN(auto distinct, DistinctRows(both));
      return TableReader(distinct);
    }
    DELTA_ASSIGN_OR_RETURN(auto combined, Combine(spec, sides[0], sides[1]));
    return TableReader(combined);
  };
  return plan;
}

}  // namespace deltaguard::query_internal
