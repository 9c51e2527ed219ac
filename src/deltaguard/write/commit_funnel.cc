// The commit funnel (commit_funnel.h): stage, hooks, commit, checkpoint, clean-up.

#include "deltaguard/write/commit_funnel.h"

#include <fmt/format.h>

#include <utility>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/prefetch_reader.h"
#include "deltaguard/protocol/column_mapping.h"
#include "deltaguard/write/table_state.h"

namespace deltaguard {
namespace {

Error HookError(Error e, std::string_view hook) {
  return WithContext(std::move(e), fmt::format("commit hook '{}'", hook));
}

Error InInput(Error e, std::string_view input) {
  return WithContext(std::move(e), fmt::format("input '{}'", input));
}

}  // namespace

Result<std::unique_ptr<CommitFunnel>> CommitFunnel::Open(FunnelTable table,
                                                         FunnelPlan plan,
                                                         CommitHooks hooks,
                                                         const SessionSettings& session) {
  std::unique_ptr<CommitFunnel> f(new CommitFunnel());
  if (plan.schema) {
    DELTA_ASSIGN_OR_RETURN(plan.file_options.stats,
                           internal::StatsOptionsFor(plan.metadata));
    DELTA_ASSIGN_OR_RETURN(ColumnMappingMode mode, GetColumnMappingMode(plan.metadata));
    DELTA_ASSIGN_OR_RETURN(f->writer_,
                           PartitionedWriter::Make(table.fs, table.root, plan.schema,
                                                   plan.metadata.partition_columns, mode,
                                                   plan.file_options));
  }
  TransactionOptions txn_options;
  txn_options.engine_info = session.engine_info;
  DELTA_ASSIGN_OR_RETURN(
      f->txn_, Transaction::Begin(table.fs, table.root, table.snapshot, txn_options));
  f->table_ = std::move(table);
  f->plan_ = std::move(plan);
  f->hooks_ = std::move(hooks);
  f->interrupt_check_ = session.interrupt_check;
  return f;
}

CommitFunnel::~CommitFunnel() { RemoveStagedFiles(); }

void CommitFunnel::RemoveStagedFiles() {
  if (keep_files_) return;
  keep_files_ = true;  // once
  if (writer_ && !finished_) {
    writer_->Abort();
    return;
  }
  for (const auto& file : outcome_.files)
    (void)table_.fs->Delete(internal::DataFilePath(table_.root, file.relative_path));
}

Status CommitFunnel::Observe(const std::vector<std::shared_ptr<BatchObserver>>& hooks,
                             bool name_hook, std::shared_ptr<arrow::RecordBatch>* batch,
                             const BatchInfo& info) {
  for (const auto& hook : hooks) {
    if ((*batch)->num_rows() == 0) return OkStatus();
    if (auto st = hook->OnBatch(batch, info); !st) {
      return name_hook ? HookError(st.error(), hook->name()) : st.error();
    }
  }
  return OkStatus();
}

Status CommitFunnel::Stage(std::shared_ptr<arrow::RecordBatch> batch,
                           const BatchInfo& info, bool enforce) {
  if (!writer_) {
    return MakeError(ErrorCode::kInternal, "write to '{}' stages no data files",
                     table_.name);
  }
  if (interrupt_check_) DELTA_RETURN_IF_ERROR(interrupt_check_());
  if (enforce) {
    if (auto st = Observe(hooks_.enforcement, false, &batch, info); !st)
      return InInput(st.error(), info.input);
  }
  if (auto st = Observe(hooks_.batch_observers, true, &batch, info); !st)
    return InInput(st.error(), info.input);
  if (batch->num_rows() == 0) return OkStatus();
  return writer_->Write(batch);
}

Status CommitFunnel::WriteSource(const BatchSource& source, ConformOptions conform) {
  conform.by_position = source.by_position;
  const SchemaRef& target = plan_.conform_schema ? plan_.conform_schema : plan_.schema;
  auto conformer = BatchConformer::Make(target, source.schema, conform);
  if (!conformer) return InInput(conformer.error(), source.name);
  DELTA_ASSIGN_OR_RETURN(auto opened, source.open());
  // Decode the next input batch while this one is encoded.
  auto reader = MakePrefetchingReader(std::move(opened));
  int64_t row = 0;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    auto st = reader->ReadNext(&batch);
    if (!st.ok()) {
      return internal::FromArrowStatus(st, ErrorCode::kCorruptData,
                                       fmt::format("input '{}'", source.name));
    }
    if (!batch) break;
    auto conformed = (*conformer)->Conform(*batch, row);
    if (!conformed) return InInput(conformed.error(), source.name);
    DELTA_RETURN_IF_ERROR(Stage(std::move(*conformed), BatchInfo{source.name, row},
                                /*enforce=*/true));
    row += batch->num_rows();
  }
  return OkStatus();
}

Status CommitFunnel::WriteConformed(std::shared_ptr<arrow::RecordBatch> batch,
                                    const BatchInfo& info) {
  if (batch->num_rows() == 0) return OkStatus();
  return Stage(std::move(batch), info, /*enforce=*/false);
}

Status CommitFunnel::FinishFiles() {
  if (finished_ || !writer_) {
    finished_ = true;
    return OkStatus();
  }
  auto files = writer_->Finish();
  if (!files) {
    writer_->Abort();
    finished_ = true;
    return files.error();
  }
  finished_ = true;
  outcome_.rows_written = writer_->rows_written();
  outcome_.files = std::move(*files);
  for (const auto& file : outcome_.files) outcome_.bytes_added += file.size;
  return OkStatus();
}

Status CommitFunnel::RunPreCommitHooks() {
  StagedCommit view{table_.name, table_.snapshot.get(), plan_.metadata, txn_->staged()};
  for (const auto& hook : hooks_.validators) {
    if (auto st = hook->Validate(view); !st) return HookError(st.error(), hook->name());
  }
  for (const auto& hook : hooks_.decorators) {
    if (auto st = hook->Decorate(view, txn_.get()); !st)
      return HookError(st.error(), hook->name());
  }
  return OkStatus();
}

Result<CommitOutcome> CommitFunnel::Commit(
    OperationInfo op,
    const std::function<void(const CommitOutcome&, OperationInfo*)>& fill) {
  auto fail = [this](Error e) -> Error {
    RemoveStagedFiles();
    return e;
  };
  if (auto st = FinishFiles(); !st) return fail(st.error());
  if (interrupt_check_) {
    if (auto st = interrupt_check_(); !st) return fail(st.error());
  }
  if (plan_.new_protocol) txn_->SetProtocol(*plan_.new_protocol);
  if (plan_.new_metadata) txn_->SetMetadata(*plan_.new_metadata);
  for (const auto& file : outcome_.files) txn_->AddFile(internal::AddFileFor(file));
  if (auto st = RunPreCommitHooks(); !st) return fail(st.error());
  if (fill) fill(outcome_, &op);
  if (plan_.create_log_dir) {
    if (auto st = table_.fs->CreateDirs(JoinPath(table_.root, "_delta_log")); !st)
      return fail(st.error());
  }
  auto committed = txn_->Commit(op);
  if (!committed) {
    // An I/O error at the commit leaves its outcome unknown (the commit file may
    // exist): the data files stay. Anything else means the log was not touched.
    if (committed.error().code == ErrorCode::kIOError) keep_files_ = true;
    return fail(committed.error());
  }
  keep_files_ = true;
  outcome_.committed = true;
  outcome_.version = committed->version;
  outcome_.attempts = committed->attempts;
  CommittedWrite done{table_.name, *committed, plan_.metadata};
  for (const auto& hook : hooks_.post_commit) {
    if (auto st = hook->OnCommitted(done); !st) {
      outcome_.hook_warnings.push_back(HookError(st.error(), hook->name()).ToString());
    }
  }
  if (plan_.checkpoint) {
    WriteResult checkpoint;
    internal::MaybeCheckpoint(table_.fs, table_.root, outcome_.version, plan_.metadata,
                              &checkpoint);
    outcome_.checkpoint_version = checkpoint.checkpoint_version;
    outcome_.checkpoint_error = checkpoint.checkpoint_error;
  }
  return outcome_;
}

}  // namespace deltaguard
