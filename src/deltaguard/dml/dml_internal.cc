// Shared DML pieces: target loading, single-file scans, row selection, schema changes
// and the copy-on-write commit (dml_internal.h).

#include "deltaguard/dml/dml_internal.h"

#include <arrow/array.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/array/util.h>
#include <arrow/buffer.h>
#include <arrow/compute/api.h>
#include <arrow/util/bit_util.h>
#include <fmt/format.h>

#include <utility>

#include "deltaguard/arrow/status.h"
#include "deltaguard/protocol/column_mapping.h"
#include "deltaguard/protocol/write_protocol.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/txn/transaction.h"
#include "deltaguard/util/string_util.h"
#include "deltaguard/write/table_path.h"
#include "deltaguard/write/table_state.h"

namespace deltaguard::dml_internal {

Result<DmlTarget> LoadTarget(FileSystemRef fs, const std::string& path,
                             std::string_view operation, bool modifies_rows) {
  DmlTarget target;
  target.fs = fs;
  target.name = path;
  DELTA_ASSIGN_OR_RETURN(target.root, NormalizeTablePath(path));
  DELTA_ASSIGN_OR_RETURN(target.snapshot, internal::LoadIfExists(fs, target.root));
  if (!target.snapshot) {
    return MakeError(ErrorCode::kNotFound,
                     "DELTA_MISSING_DELTA_TABLE: {} target '{}' is not a Delta table",
                     operation, path);
  }
  const Snapshot& s = *target.snapshot;
  DELTA_RETURN_IF_ERROR(CheckWriteSupported(s.protocol(), s.metadata(), *s.schema(), path,
                                            /*can_evaluate_constraints=*/true));
  if (modifies_rows) {
    // Change data feed: row-level changes must also write cdc files
    // (docs/spark_semantics.md §4.8), which deltaguard does not do yet; refusing beats a
    // silently incomplete feed.
    auto cdf = s.metadata().GetConfig("delta.enableChangeDataFeed");
    if (cdf && EqualsIgnoreCase(*cdf, "true")) {
      return MakeError(
          ErrorCode::kUnsupportedFeature,
          "{} on table '{}': the table has delta.enableChangeDataFeed = true "
          "and deltaguard does not write change data files yet",
          operation, path);
    }
    DELTA_RETURN_IF_ERROR(internal::CheckRowsRemovable(
        s.metadata(), path,
        fmt::format("{} would change or remove existing rows; unset the property first",
                    operation)));
  }
  return target;
}

Result<std::unique_ptr<TableScan>> ScanFile(
    const SnapshotRef& snapshot, const AddFile& file, bool use_threads,
    const std::vector<std::string>& dictionary_columns) {
  ScanOptions options;
  options.use_threads = use_threads;
  options.dictionary_columns = dictionary_columns;
  // Live files are unique by (path, dv); the address identifies this one.
  options.file_filter = [&file](const AddFile& f) { return &f == &file; };
  return TableScan::Make(snapshot, options);
}

Result<std::shared_ptr<arrow::BooleanArray>> DenseMask(const arrow::BooleanArray& mask,
                                                       bool invert) {
  if (!invert && mask.null_count() == 0) {
    return std::static_pointer_cast<arrow::BooleanArray>(arrow::MakeArray(mask.data()));
  }
  arrow::BooleanBuilder builder;
  DELTA_ARROW_RETURN_NOT_OK(builder.Reserve(mask.length()), ErrorCode::kInternal, "mask");
  for (int64_t i = 0; i < mask.length(); ++i) {
    bool on = mask.IsValid(i) && mask.Value(i);
    builder.UnsafeAppend(invert ? !on : on);
  }
  std::shared_ptr<arrow::BooleanArray> out;
  DELTA_ARROW_RETURN_NOT_OK(builder.Finish(&out), ErrorCode::kInternal, "mask");
  return out;
}

Result<std::shared_ptr<arrow::BooleanArray>> MaskFromBytes(
    const std::vector<uint8_t>& bytes) {
  const auto n = static_cast<int64_t>(bytes.size());
  DELTA_ARROW_ASSIGN_OR_RETURN(auto bits, arrow::AllocateEmptyBitmap(n),
                               ErrorCode::kInternal, "mask");
  uint8_t* out = bits->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    out[i >> 3] |= static_cast<uint8_t>((bytes[static_cast<size_t>(i)] != 0) << (i & 7));
  }
  return std::make_shared<arrow::BooleanArray>(n, std::move(bits));
}

Result<std::shared_ptr<arrow::RecordBatch>> FilterRows(
    const std::shared_ptr<arrow::RecordBatch>& batch, const arrow::BooleanArray& mask) {
  DELTA_ASSIGN_OR_RETURN(auto dense, DenseMask(mask, false));
  // Column by column: Arrow filters a record batch by turning the mask into row indices
  // and gathering each value; an array filter copies whole runs of selected rows (most
  // rows, when DML keeps the unchanged ones of a file).
  const int64_t rows = dense->true_count();
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (const auto& column : batch->columns()) {
    DELTA_ARROW_ASSIGN_OR_RETURN(
        arrow::Datum kept,
        arrow::compute::Filter(arrow::Datum(column), arrow::Datum(dense)),
        ErrorCode::kInternal, "filter rows");
    columns.push_back(kept.make_array());
  }
  return arrow::RecordBatch::Make(batch->schema(), rows, std::move(columns));
}

void AddReferencedColumns(const BoundExprRef& e, std::set<std::string>* out) {
  if (!e) return;
  for (const auto& path : ReferencedColumns(*e)) out->insert(path[0]);
}

Result<std::shared_ptr<arrow::RecordBatch>> RowCopier::Conform(
    const arrow::RecordBatch& raw) {
  if (!conformer_ || !input_->Equals(*raw.schema())) {
    ConformOptions options{false, table_name_};
    options.keep_dictionaries = true;
    DELTA_ASSIGN_OR_RETURN(conformer_,
                           BatchConformer::Make(table_schema_, raw.schema(), options));
    input_ = raw.schema();
  }
  return conformer_->Conform(raw);
}

Result<std::vector<std::shared_ptr<arrow::Array>>> TakeRows(
    const arrow::RecordBatch& batch, const std::vector<int64_t>& indices) {
  // One index array for every column; it borrows `indices` (Take copies the values
  // out before returning), with a validity bitmap only when some index is -1.
  const auto n = static_cast<int64_t>(indices.size());
  std::shared_ptr<arrow::Buffer> validity;
  int64_t nulls = 0;
  for (int64_t i : indices) nulls += i < 0;
  if (nulls > 0) {
    DELTA_ARROW_ASSIGN_OR_RETURN(validity, arrow::AllocateBitmap(n), ErrorCode::kInternal,
                                 "take rows");
    uint8_t* bits = validity->mutable_data();
    for (int64_t r = 0; r < n; ++r) {
      arrow::bit_util::SetBitTo(bits, r, indices[static_cast<size_t>(r)] >= 0);
    }
  }
  arrow::Int64Array idx(n, arrow::Buffer::Wrap(indices), validity, nulls);
  std::vector<std::shared_ptr<arrow::Array>> out;
  out.reserve(static_cast<size_t>(batch.num_columns()));
  for (const auto& column : batch.columns()) {
    DELTA_ARROW_ASSIGN_OR_RETURN(
        arrow::Datum taken, arrow::compute::Take(arrow::Datum(column), arrow::Datum(idx)),
        ErrorCode::kInternal, "take rows");
    out.push_back(taken.make_array());
  }
  return out;
}

Result<SchemaEvolutionStep> ChangeSchema(const Snapshot& snapshot, SchemaRef evolved,
                                         bool changed) {
  SchemaEvolutionStep out;
  out.effective_metadata = snapshot.metadata();
  if (!changed) {
    out.schema = snapshot.schema();
    return out;
  }
  DELTA_ASSIGN_OR_RETURN(auto table, internal::EvolveTable(snapshot, snapshot.metadata(),
                                                           std::move(evolved)));
  out.schema = std::move(table.schema);
  out.new_protocol = std::move(table.new_protocol);
  out.effective_metadata = table.metadata;
  out.new_metadata = std::move(table.metadata);
  return out;
}

Result<std::unique_ptr<DmlWriter>> DmlWriter::Make(const DmlTarget& target,
                                                   const SchemaEvolutionStep& schema,
                                                   const SessionSettings& session) {
  std::unique_ptr<DmlWriter> w(new DmlWriter());
  w->target_ = target;
  w->schema_ = schema;
  FunnelPlan plan;
  plan.schema = schema.schema;
  plan.metadata = schema.effective_metadata;
  plan.new_metadata = schema.new_metadata;
  plan.new_protocol = schema.new_protocol;
  // Column profiles of every staged row, in the same pass (docs/profiles.md "On
  // write"): copied, updated and inserted rows alike, as backfill would read them.
  // With `SET deltaguard.check`, the data tests of every staged row too, decided before
  // the commit (quality/commit_check.h, docs/data_tests.md "At commit time").
  CommitHooks hooks;
  w->store_profile_ = ProfilesEnabled(schema.effective_metadata);
  if (!session.check_tests.empty()) {
    if (session.check_on_failure.rfind("quarantine=", 0) == 0) {
      // A rewrite's rows are already in the table: routing them elsewhere would delete
      // them (docs/data_tests.md "At commit time").
      return MakeError(
          ErrorCode::kInvalidArgument,
          "deltaguard.check.onFailure quarantine applies to INSERT and CREATE "
          "TABLE AS SELECT; MERGE, UPDATE and DELETE rewrite rows already in "
          "'{}' and take fail or warn",
          target.name);
    }
    WriteCheckOptions check;
    check.tests = session.check_tests;
    check.baseline = session.check_baseline;
    w->on_check_failure_ = session.check_on_failure == "warn" ? CheckFailureAction::kWarn
                                                              : CheckFailureAction::kFail;
    DELTA_ASSIGN_OR_RETURN(
        w->check_, CommitCheck::Make(target.fs, target.root, target.name, check, true,
                                     *schema.schema));
    w->check_->ForRewrite();
  }
  if (w->store_profile_ || w->check_) {
    w->profiler_ = std::make_shared<ProfileObserver>();
    hooks.batch_observers.push_back(w->profiler_);
  }
  if (w->check_ && w->check_->row_observer()) {
    hooks.batch_observers.push_back(w->check_->row_observer());
  }
  DELTA_ASSIGN_OR_RETURN(
      w->funnel_, CommitFunnel::Open(
                      FunnelTable{target.fs, target.root, target.name, target.snapshot},
                      std::move(plan), std::move(hooks), session));
  return w;
}

DmlWriter::~DmlWriter() = default;

Status DmlWriter::Write(const std::shared_ptr<arrow::RecordBatch>& batch) {
  if (!funnel_) {
    return MakeError(ErrorCode::kInternal, "write to '{}' after it was aborted",
                     target_.name);
  }
  return funnel_->WriteConformed(batch, BatchInfo{target_.name, 0});
}

void DmlWriter::Abort() { funnel_.reset(); }  // the funnel removes the staged files

Result<DmlWriter::Outcome> DmlWriter::Commit(
    const std::vector<const AddFile*>& removed, std::vector<std::string> read,
    OperationInfo op,
    const std::function<void(const Outcome&, OperationInfo*)>& fill_metrics) {
  if (!funnel_) {
    return MakeError(ErrorCode::kInternal, "commit to '{}' after it was aborted",
                     target_.name);
  }
  std::unique_ptr<CommitFunnel> funnel = std::move(funnel_);
  DELTA_RETURN_IF_ERROR(funnel->FinishFiles());
  const CommitOutcome& staged = funnel->staged();
  Outcome outcome;
  outcome.rows_written = staged.rows_written;
  // Nothing removed, added or changed in the schema: no commit, as Spark's
  // commitIfNeeded under WriteSerializable (spark.databricks.delta
  // .skipRecordingEmptyCommits, on by default). The result names the version read.
  if (removed.empty() && staged.files.empty() && !schema_.new_protocol &&
      !schema_.new_metadata) {
    outcome.version = target_.snapshot->version();
    return outcome;
  }
  const int64_t now = internal::NowMillis();
  Transaction& txn = funnel->txn();
  for (const AddFile* add : removed) {
    txn.RemoveFile(RemoveFileFor(*add, now));
    outcome.bytes_removed += add->size;
    read.push_back(add->path);
  }
  outcome.files_removed = static_cast<int64_t>(removed.size());
  txn.ReadFiles(std::move(read));
  outcome.files_added = static_cast<int64_t>(staged.files.size());
  outcome.bytes_added = staged.bytes_added;
  TableProfile staged_profile;  // taken once when the data tests need it
  if (check_ && !staged.files.empty()) {
    staged_profile = profiler_->Take();
    staged_profile.timestamp_ms = now;
    DELTA_ASSIGN_OR_RETURN(CheckReport report, check_->Decide(staged_profile));
    const bool failed = report.outcome() == CheckOutcome::kFailed ||
                        report.outcome() == CheckOutcome::kError;
    if (failed && on_check_failure_ == CheckFailureAction::kFail) {
      return CheckFailedError(report, target_.name);  // the staged files go with funnel
    }
    outcome.warnings = CheckWarnings(report);
  }
  std::string operation = op.operation;
  DELTA_ASSIGN_OR_RETURN(
      CommitOutcome committed,
      funnel->Commit(std::move(op), [&](const CommitOutcome&, OperationInfo* info) {
        if (fill_metrics) fill_metrics(outcome, info);
      }));
  outcome.version = committed.version;
  outcome.commit_attempts = committed.attempts;
  if (profiler_ && store_profile_ && !staged.files.empty()) {
    auto profile = std::make_shared<TableProfile>(check_ ? std::move(staged_profile)
                                                         : profiler_->Take());
    profile->version = committed.version;
    profile->timestamp_ms = now;
    profile->operation = std::move(operation);
    outcome.profile = std::move(profile);
  }
  return outcome;
}

std::string PredicateParameter(const std::vector<std::string>& sql) {
  std::string out = "[";
  for (size_t i = 0; i < sql.size(); ++i) {
    if (i) out += ",";
    AppendJsonString(&out, sql[i]);
  }
  return out + "]";
}

}  // namespace deltaguard::dml_internal
