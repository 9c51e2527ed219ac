// Streaming readers and the materialising stages of the SELECT engine: DISTINCT and
// ORDER BY (Arrow's Grouper, SortIndices and Take).

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/compute/exec.h>
#include <arrow/compute/row/grouper.h>
#include <arrow/util/byte_size.h>

#include <deque>
#include <future>
#include <optional>
#include <utility>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/expr_eval.h"
#include "deltaguard/exec/spill_file.h"
#include "deltaguard/sql/query_internal.h"

namespace deltaguard::query_internal {

using internal::FromArrowStatus;
using internal::ToArrowStatus;

namespace {

class MapBatchReader final : public arrow::RecordBatchReader {
 public:
  MapBatchReader(ReaderRef input, std::shared_ptr<arrow::Schema> schema, BatchFn fn,
                 std::optional<int64_t> limit)
      : input_(std::move(input)),
        schema_(std::move(schema)),
        fn_(std::move(fn)),
        limit_(limit) {}

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  arrow::Status ReadNext(BatchRef* out) override {
    *out = nullptr;
    if (!status_.ok()) return status_;  // an error sticks
    while (!limit_ || produced_ < *limit_) {
      BatchRef in;
      arrow::Status st = input_->ReadNext(&in);
      if (!st.ok()) return status_ = st;
      if (in == nullptr) return arrow::Status::OK();
      Result<BatchRef> mapped = fn_(in);
      if (!mapped) return status_ = ToArrowStatus(mapped.error());
      BatchRef batch = std::move(*mapped);
      if (batch == nullptr || batch->num_rows() == 0) continue;
      if (limit_ && produced_ + batch->num_rows() > *limit_) {
        batch = batch->Slice(0, *limit_ - produced_);
      }
      produced_ += batch->num_rows();
      *out = std::move(batch);
      return arrow::Status::OK();
    }
    return arrow::Status::OK();
  }

 private:
  ReaderRef input_;
  std::shared_ptr<arrow::Schema> schema_;
  BatchFn fn_;
  std::optional<int64_t> limit_;
  int64_t produced_ = 0;
  arrow::Status status_;
};

// MapBatchReader's mapping two batches at a time (ParallelMapReader): the second on
// another thread; results queue in input order, and an error is returned once the
// results before it are.
class ParallelMapBatchReader final : public arrow::RecordBatchReader {
 public:
  ParallelMapBatchReader(ReaderRef input, std::shared_ptr<arrow::Schema> schema,
                         BatchFn fn)
      : input_(std::move(input)), schema_(std::move(schema)), fn_(std::move(fn)) {}

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  arrow::Status ReadNext(BatchRef* out) override {
    *out = nullptr;
    while (true) {
      if (!ready_.empty()) {
        *out = std::move(ready_.front());
        ready_.pop_front();
        return arrow::Status::OK();
      }
      if (!status_.ok() || done_) return status_;  // an error sticks
      BatchRef a, b;
      status_ = input_->ReadNext(&a);
      if (status_.ok() && a != nullptr) status_ = input_->ReadNext(&b);
      done_ = a == nullptr || b == nullptr;
      if (a == nullptr) continue;
      std::future<Result<BatchRef>> second;
      if (b != nullptr)
        second = std::async(std::launch::async, [this, b] { return fn_(b); });
      Result<BatchRef> first = fn_(a);
      std::optional<Result<BatchRef>> later;
      if (second.valid()) later = second.get();
      // In input order: the first result (or its error), then the second's.
      for (Result<BatchRef>* r : {&first, later ? &*later : nullptr}) {
        if (r == nullptr || !status_.ok()) continue;
        if (!*r) {
          status_ = ToArrowStatus(r->error());
        } else if (**r != nullptr && (**r)->num_rows() > 0) {
          ready_.push_back(std::move(**r));
        }
      }
    }
  }

 private:
  ReaderRef input_;
  std::shared_ptr<arrow::Schema> schema_;
  BatchFn fn_;
  std::deque<BatchRef> ready_;
  bool done_ = false;
  arrow::Status status_;
};

// A reader holding something the batches it reads need (KeepAlive).
class AnchoredReader final : public arrow::RecordBatchReader {
 public:
  AnchoredReader(ReaderRef input, std::shared_ptr<void> anchor)
      : input_(std::move(input)), anchor_(std::move(anchor)) {}
  std::shared_ptr<arrow::Schema> schema() const override { return input_->schema(); }
  arrow::Status ReadNext(BatchRef* out) override { return input_->ReadNext(out); }

 private:
  ReaderRef input_;
  std::shared_ptr<void> anchor_;
};

}  // namespace

ReaderRef KeepAlive(ReaderRef reader, std::shared_ptr<void> anchor) {
  if (anchor == nullptr) return reader;
  return std::make_shared<AnchoredReader>(std::move(reader), std::move(anchor));
}

Result<std::vector<BatchRef>> TableBatches(const std::shared_ptr<arrow::Table>& table) {
  std::vector<BatchRef> batches;
  arrow::TableBatchReader reader(*table);
  while (true) {
    BatchRef batch;
    DELTA_ARROW_RETURN_NOT_OK(reader.ReadNext(&batch), ErrorCode::kInternal,
                              "query result");
    if (batch == nullptr) break;
    batches.push_back(std::move(batch));
  }
  return batches;
}

arrow::compute::ExecBatch ToExecBatch(const arrow::RecordBatch& batch) {
  std::vector<arrow::Datum> values;
  for (const auto& column : batch.columns()) values.emplace_back(column);
  return arrow::compute::ExecBatch(std::move(values), batch.num_rows());
}

ReaderRef MapReader(ReaderRef input, std::shared_ptr<arrow::Schema> schema, BatchFn fn,
                    std::optional<int64_t> limit) {
  return std::make_shared<MapBatchReader>(std::move(input), std::move(schema),
                                          std::move(fn), limit);
}

ReaderRef ParallelMapReader(ReaderRef input, std::shared_ptr<arrow::Schema> schema,
                            BatchFn fn) {
  return std::make_shared<ParallelMapBatchReader>(std::move(input), std::move(schema),
                                                  std::move(fn));
}

Result<ReaderRef> TableReader(const std::shared_ptr<arrow::Table>& table,
                              std::optional<int64_t> limit) {
  std::shared_ptr<arrow::Table> t = table;
  if (limit && *limit < t->num_rows()) t = t->Slice(0, *limit);
  DELTA_ASSIGN_OR_RETURN(std::vector<BatchRef> batches, TableBatches(t));
  DELTA_ARROW_ASSIGN_OR_RETURN(ReaderRef reader,
                               arrow::RecordBatchReader::Make(batches, t->schema()),
                               ErrorCode::kInternal, "query result");
  return reader;
}

Result<ReaderRef> EmptyReader(const std::shared_ptr<arrow::Schema>& schema) {
  DELTA_ARROW_ASSIGN_OR_RETURN(ReaderRef reader,
                               arrow::RecordBatchReader::Make({}, schema),
                               ErrorCode::kInternal, "empty input");
  return reader;
}

bool NeverTrue(const BoundExpr* predicate) {
  if (predicate == nullptr || predicate->kind != BoundKind::kLiteral) return false;
  const auto& v = predicate->literal.value;
  return std::holds_alternative<std::monostate>(v) ||
         (std::holds_alternative<bool>(v) && !std::get<bool>(v));
}

namespace {

// The bytes a batch keeps alive: a slice counts its share, not the whole buffers.
int64_t HeldBytes(const arrow::RecordBatch& batch) {
  auto referenced = arrow::util::ReferencedBufferSize(batch);
  return referenced.ok() ? *referenced : arrow::util::TotalBufferSize(batch);
}

}  // namespace

Result<HeldRows> HoldAll(const ReaderRef& reader,
                         const std::shared_ptr<arrow::Schema>& schema,
                         const std::string& what, const QueryMemoryRef& memory,
                         HoldCost cost) {
  HeldRows held;
  int64_t reserved = 0;
  std::unique_ptr<SpillFile> spill;
  while (true) {
    BatchRef batch;
    arrow::Status st = reader->ReadNext(&batch);
    if (!st.ok()) return FromArrowStatus(st, ErrorCode::kIOError, what);
    if (batch == nullptr) break;
    const int64_t bytes =
        cost.copies * HeldBytes(*batch) + cost.per_row * batch->num_rows();
    held.bytes += bytes;
    if (spill == nullptr && memory != nullptr && !memory->TryReserve(bytes)) {
      // Past the budget: what is held goes to the file with the rest, and its
      // reservation back to the budget.
      DELTA_ASSIGN_OR_RETURN(spill, SpillFile::Open(schema, what, memory->spill_dir()));
      for (const auto& b : held.batches) DELTA_RETURN_IF_ERROR(spill->Append(*b));
      held.batches.clear();
      memory->Release(reserved);
      reserved = 0;
    } else if (spill == nullptr && memory != nullptr) {
      reserved += bytes;
    }
    if (spill != nullptr) {
      DELTA_RETURN_IF_ERROR(spill->Append(*batch));
    } else {
      held.batches.push_back(std::move(batch));
    }
  }
  if (spill != nullptr) {
    memory->RecordSpill(spill->bytes());
    DELTA_ASSIGN_OR_RETURN(held.batches, spill->ReadBack());
    held.spilled = true;
  } else if (memory != nullptr) {
    held.reservation = std::make_shared<MemoryReservation>(memory, reserved);
  }
  return held;
}

Result<BatchRef> CombineRows(const std::vector<BatchRef>& batches,
                             const std::shared_ptr<arrow::Schema>& schema) {
  if (batches.size() == 1) return batches[0];
  DELTA_ARROW_ASSIGN_OR_RETURN(auto table,
                               arrow::Table::FromRecordBatches(schema, batches),
                               ErrorCode::kInternal, "query rows");
  DELTA_ARROW_ASSIGN_OR_RETURN(auto batch, table->CombineChunksToBatch(),
                               ErrorCode::kInternal, "query rows");
  return batch;
}

Result<std::shared_ptr<arrow::Table>> ReadAll(
    const ReaderRef& reader, const std::shared_ptr<arrow::Schema>& schema,
    const std::string& what, const QueryMemoryRef& memory) {
  DELTA_ASSIGN_OR_RETURN(HeldRows held, HoldAll(reader, schema, what, memory));
  DELTA_ARROW_ASSIGN_OR_RETURN(auto table,
                               arrow::Table::FromRecordBatches(schema, held.batches),
                               ErrorCode::kInternal, what);
  return table;
}

Result<BatchRef> ConformBatch(const BatchRef& batch,
                              const std::shared_ptr<arrow::Schema>& schema,
                              const std::string& what) {
  if (batch->num_columns() != schema->num_fields()) {
    return MakeError(ErrorCode::kSchemaMismatch,
                     "{}: a batch has {} columns, the schema has {}: {}", what,
                     batch->num_columns(), schema->num_fields(), schema->ToString());
  }
  std::vector<std::shared_ptr<arrow::Array>> columns = batch->columns();
  for (int i = 0; i < schema->num_fields(); ++i) {
    const auto& want = schema->field(i)->type();
    if (columns[i]->type()->Equals(*want)) continue;
    DELTA_ARROW_ASSIGN_OR_RETURN(
        arrow::Datum cast, arrow::compute::Cast(columns[i], want),
        ErrorCode::kSchemaMismatch,
        fmt::format("{}: column '{}' ({} to {})", what, schema->field(i)->name(),
                    columns[i]->type()->ToString(), want->ToString()));
    columns[i] = cast.make_array();
  }
  return arrow::RecordBatch::Make(schema, batch->num_rows(), std::move(columns));
}

BatchRef EmptyColumnsBatch(int64_t rows) {
  return arrow::RecordBatch::Make(arrow::schema({}), rows,
                                  std::vector<std::shared_ptr<arrow::Array>>{});
}

Result<std::shared_ptr<arrow::Array>> EvaluateConstant(const Expr& expr,
                                                       const QueryContext& context,
                                                       BoundExprRef* bound) {
  StructType empty({});
  DELTA_ASSIGN_OR_RETURN(BoundExprRef b, Bind(expr, empty));
  if (ContainsAggregate(*b)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "aggregate functions are not allowed here: {}",
                     SparkColumnName(expr));
  }
  EvalOptions options;
  options.now_micros = context.now_micros;
  DELTA_ASSIGN_OR_RETURN(auto array, Evaluate(*b, *EmptyColumnsBatch(1), options));
  if (bound != nullptr) *bound = b;
  return array;
}

Result<std::shared_ptr<arrow::Table>> DistinctRows(
    const std::shared_ptr<arrow::Table>& table) {
  if (table->num_columns() == 0)
    return table->Slice(0, std::min<int64_t>(1, table->num_rows()));
  std::vector<arrow::TypeHolder> types;
  for (const auto& f : table->schema()->fields()) types.emplace_back(f->type());
  DELTA_ARROW_ASSIGN_OR_RETURN(auto grouper, arrow::compute::Grouper::Make(types),
                               ErrorCode::kUnsupportedFeature,
                               "SELECT DISTINCT over " + table->schema()->ToString());
  DELTA_ASSIGN_OR_RETURN(std::vector<BatchRef> batches, TableBatches(table));
  for (const auto& batch : batches) {
    arrow::compute::ExecBatch exec = ToExecBatch(*batch);
    DELTA_ARROW_RETURN_NOT_OK(grouper->Populate(arrow::compute::ExecSpan(exec)),
                              ErrorCode::kInternal, "SELECT DISTINCT");
  }
  DELTA_ARROW_ASSIGN_OR_RETURN(arrow::compute::ExecBatch uniques, grouper->GetUniques(),
                               ErrorCode::kInternal, "SELECT DISTINCT");
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (const auto& value : uniques.values) columns.push_back(value.make_array());
  auto out =
      arrow::RecordBatch::Make(table->schema(), uniques.length, std::move(columns));
  DELTA_ARROW_ASSIGN_OR_RETURN(auto result, arrow::Table::FromRecordBatches({out}),
                               ErrorCode::kInternal, "SELECT DISTINCT");
  return result;
}

// Arrow has one null placement per sort and orders NaN like NULL; Spark places NULLs per
// key and orders NaN above every number. So every key gets an "is null" key in front
// (and an "is NaN" key for floating point), whose order implements Spark's placement.
Result<std::shared_ptr<arrow::Array>> IndexArray(const std::vector<int64_t>& rows) {
  std::vector<uint8_t> valid(rows.size());
  bool all_valid = true;
  for (size_t i = 0; i < rows.size(); ++i) {
    valid[i] = rows[i] >= 0;
    all_valid = all_valid && valid[i];
  }
  arrow::Int64Builder b;
  if (!rows.empty()) {  // an empty vector's data() may be null, which memcpy must not get
    DELTA_ARROW_RETURN_NOT_OK(
        b.AppendValues(rows.data(), static_cast<int64_t>(rows.size()),
                       all_valid ? nullptr : valid.data()),
        ErrorCode::kInternal, "row indices");
  }
  std::shared_ptr<arrow::Array> out;
  DELTA_ARROW_RETURN_NOT_OK(b.Finish(&out), ErrorCode::kInternal, "row indices");
  return out;
}

void SplitConjuncts(const ExprRef& e, std::vector<ExprRef>* out) {
  if (e == nullptr) return;
  if (e->kind == ExprKind::kBinary && e->op == ExprOp::kAnd) {
    for (const auto& c : e->children) SplitConjuncts(c, out);
    return;
  }
  out->push_back(e);
}

ExprRef AndOf(const std::vector<ExprRef>& parts) {
  if (parts.empty()) return nullptr;
  ExprRef out = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) {
    out = Expr::Binary(ExprOp::kAnd, out, parts[i]);
  }
  return out;
}

Result<std::shared_ptr<arrow::Array>> SortIndices(
    const std::shared_ptr<arrow::Table>& table, const std::vector<SortKeySpec>& keys) {
  DELTA_ASSIGN_OR_RETURN(auto packed, PackedSortIndices(table, keys));
  if (packed != nullptr) return packed;
  std::vector<std::shared_ptr<arrow::Field>> fields = table->schema()->fields();
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns = table->columns();
  std::vector<arrow::compute::SortKey> sort_keys;
  using arrow::compute::SortOrder;
  auto add_aux = [&](const char* function, const std::shared_ptr<arrow::ChunkedArray>& in,
                     SortOrder order) -> Status {
    DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum aux,
                                 arrow::compute::CallFunction(function, {in}),
                                 ErrorCode::kInternal, "ORDER BY");
    int index = static_cast<int>(columns.size());
    fields.push_back(arrow::field("_aux" + std::to_string(index), arrow::boolean()));
    columns.push_back(aux.chunked_array());
    sort_keys.emplace_back(arrow::FieldRef(index), order);
    return OkStatus();
  };
  for (const auto& key : keys) {
    const auto& column = table->column(key.column);
    // The aux keys only where they decide something: a column without NULLs (or NaN)
    // sorts alone, one key fewer for the multi-key sort to compare.
    if (column->null_count() > 0) {
      DELTA_RETURN_IF_ERROR(
          add_aux("is_null", column,
                  key.nulls_first ? SortOrder::Descending : SortOrder::Ascending));
    }
    SortOrder order = key.descending ? SortOrder::Descending : SortOrder::Ascending;
    if (arrow::is_floating(column->type()->id())) {
      DELTA_RETURN_IF_ERROR(add_aux("is_nan", column, order));
    }
    sort_keys.emplace_back(arrow::FieldRef(key.column), order);
  }
  auto keyed = arrow::Table::Make(arrow::schema(fields), columns, table->num_rows());
  arrow::compute::SortOptions options(sort_keys);
  DELTA_ARROW_ASSIGN_OR_RETURN(auto indices, arrow::compute::SortIndices(keyed, options),
                               ErrorCode::kUnsupportedFeature,
                               "ORDER BY over " + table->schema()->ToString());
  return indices;
}

}  // namespace deltaguard::query_internal
