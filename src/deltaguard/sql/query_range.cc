// range(end) / range(start, end[, step[, numPartitions]]): Spark's table-valued function
// of one BIGINT column `id` (NOT NULL), start inclusive, end exclusive, generated a
// batch at a time so a billion rows need no more memory than ten.

#include <arrow/api.h>
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "deltaguard/arrow/status.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/sql/query_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::query_internal {
namespace {

constexpr int64_t kBatchRows = 1 << 16;

class RangeReader final : public arrow::RecordBatchReader {
 public:
  RangeReader(std::shared_ptr<arrow::Schema> schema, int64_t start, int64_t step,
              int64_t count)
      : schema_(std::move(schema)), start_(start), step_(step), count_(count) {}

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    *out = nullptr;
    if (done_ >= count_) return arrow::Status::OK();
    const int64_t n = std::min(kBatchRows, count_ - done_);
    std::vector<int64_t> values(static_cast<size_t>(n));
    // Two's complement wrap-around as Spark's Range (start + i * step as a long).
    uint64_t v = static_cast<uint64_t>(start_) +
                 static_cast<uint64_t>(done_) * static_cast<uint64_t>(step_);
    for (auto& x : values) {
      x = static_cast<int64_t>(v);
      v += static_cast<uint64_t>(step_);
    }
    done_ += n;
    auto array = std::make_shared<arrow::Int64Array>(
        n, arrow::Buffer::FromVector(std::move(values)));
    *out = arrow::RecordBatch::Make(schema_, n, {array});
    return arrow::Status::OK();
  }

 private:
  std::shared_ptr<arrow::Schema> schema_;
  int64_t start_, step_, count_;
  int64_t done_ = 0;
};

Result<int64_t> IntegerArgument(const Expr& arg, const QueryContext& context,
                                std::string_view what) {
  DELTA_ASSIGN_OR_RETURN(auto v, EvaluateConstant(arg, context));
  int64_t out = 0;
  switch (v->type_id()) {
    case arrow::Type::INT8:
      out = static_cast<const arrow::Int8Array&>(*v).Value(0);
      break;
    case arrow::Type::INT16:
      out = static_cast<const arrow::Int16Array&>(*v).Value(0);
      break;
    case arrow::Type::INT32:
      out = static_cast<const arrow::Int32Array&>(*v).Value(0);
      break;
    case arrow::Type::INT64:
      out = static_cast<const arrow::Int64Array&>(*v).Value(0);
      break;
    default:
      return MakeError(ErrorCode::kInvalidArgument,
                       "range(): the {} must be an integer constant, got {} ({})", what,
                       SparkColumnName(arg), v->type()->ToString());
  }
  if (v->IsNull(0)) {
    return MakeError(ErrorCode::kInvalidArgument, "range(): the {} is NULL", what);
  }
  return out;
}

}  // namespace

Result<SourcePlan> PlanRange(const FromClause& from, const QueryContext& context) {
  const size_t n = from.args.size();
  if (n < 1 || n > 4 || !from.named_args.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "range() takes (end), (start, end), (start, end, step) or (start, "
                     "end, step, numPartitions); got {} argument(s)",
                     n + from.named_args.size());
  }
  int64_t start = 0;
  int64_t end = 0;
  int64_t step = 1;
  if (n == 1) {
    DELTA_ASSIGN_OR_RETURN(end, IntegerArgument(*from.args[0], context, "end"));
  } else {
    DELTA_ASSIGN_OR_RETURN(start, IntegerArgument(*from.args[0], context, "start"));
    DELTA_ASSIGN_OR_RETURN(end, IntegerArgument(*from.args[1], context, "end"));
  }
  if (n >= 3) {
    DELTA_ASSIGN_OR_RETURN(step, IntegerArgument(*from.args[2], context, "step"));
  }
  if (n == 4) {  // Spark's parallelism hint: checked, then irrelevant here
    DELTA_ASSIGN_OR_RETURN(auto parts,
                           IntegerArgument(*from.args[3], context, "numPartitions"));
    if (parts <= 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "range(): numPartitions must be positive, got {}", parts);
    }
  }
  if (step == 0) {
    return MakeError(ErrorCode::kInvalidArgument, "range(): step (0) cannot be 0");
  }
  // Spark's count: ceil((end - start) / step) when the step goes toward end, else 0.
  const __int128 diff = static_cast<__int128>(end) - start;
  __int128 count = 0;
  if (diff != 0 && (diff > 0) == (step > 0)) {
    count = diff / step + (diff % step != 0 ? 1 : 0);
  }
  if (count > INT64_MAX) {
    return MakeError(ErrorCode::kInvalidArgument, "range({}, {}, {}): more than {} rows",
                     start, end, step, INT64_MAX);
  }
  auto arrow_schema = arrow::schema({arrow::field("id", arrow::int64(), false)});
  SourcePlan src;
  src.schema = std::make_shared<StructType>(
      std::vector<StructField>{{"id", DataType::Long(), false, {}}});
  src.name = fmt::format("range({}, {}, {})", start, end, step);
  if (!from.alias.empty()) src.qualifiers = {AsciiToLower(from.alias)};
  const auto rows = static_cast<int64_t>(count);
  src.open = [arrow_schema, start, step,
              rows](const std::vector<std::string>&) -> Result<ReaderRef> {
    return ReaderRef(std::make_shared<RangeReader>(arrow_schema, start, step, rows));
  };
  return src;
}

}  // namespace deltaguard::query_internal
