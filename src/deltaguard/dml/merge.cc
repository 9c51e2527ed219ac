// MERGE execution: plan (merge_plan.cc), read the source, hash-join it with the
// candidate target files, apply the clauses (MergeRun, merge_run_internal.h), write the
// changed files copy-on-write and commit (merge.h).

#include "deltaguard/dml/merge.h"

#include <chrono>
#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/dml/file_prefetch_internal.h"
#include "deltaguard/dml/merge_internal.h"
#include "deltaguard/dml/merge_run_internal.h"
#include "deltaguard/write/contract_write.h"

namespace deltaguard {
namespace {

using dml_internal::MergePlan;
using dml_internal::MergeRun;

// Target batches decoded ahead of the join (each holds ScanOptions::batch_size rows).
constexpr size_t kPrefetchDepth = 2;

// Rule 9 of merge.h: conform the source to the contract the MERGE follows, if any.
// Returns the report to finish the commit with (null: no contract).
Result<std::shared_ptr<ContractWriteReport>> ApplyContract(
    const std::shared_ptr<const Contract>& contract, MergeSpec* spec) {
  if (!contract) return std::shared_ptr<ContractWriteReport>();
  auto report = std::make_shared<ContractWriteReport>();
  if (contract->layer == MedallionLayer::kBronze) {
    if (!spec->schema_evolution) spec->schema_evolution = true;
    return report;
  }
  DELTA_ASSIGN_OR_RETURN(const ContractObject* object,
                         contract->Object(spec->contract_object));
  DELTA_ASSIGN_OR_RETURN(
      spec->source, ConformToContract(std::move(spec->source), *contract, *object, report,
                                      {.keep_undeclared = true}));
  // The undeclared columns stay readable by conditions but never reach the table.
  for (auto& clause : spec->clauses) {
    if (clause.kind != MergeWhen::Kind::kMatchedUpdateAll &&
        clause.kind != MergeWhen::Kind::kNotMatchedInsertAll) {
      continue;
    }
    for (const auto& name : report->ignored_columns) {
      clause.except_columns.push_back({name});
    }
  }
  return report;
}

}  // namespace

Result<MergeResult> Merge(FileSystemRef fs, const std::string& path, MergeSpec spec,
                          const SessionSettings& session) {
  const auto start = std::chrono::steady_clock::now();
  bool modifies = false;
  for (const auto& c : spec.clauses) {
    modifies = modifies || (c.kind != MergeWhen::Kind::kNotMatchedInsert &&
                            c.kind != MergeWhen::Kind::kNotMatchedInsertAll);
  }
  DELTA_ASSIGN_OR_RETURN(auto target,
                         dml_internal::LoadTarget(fs, path, "MERGE", modifies));
  DELTA_ASSIGN_OR_RETURN(auto contract,
                         ContractForWrite(target.snapshot.get(), spec.contract));
  DELTA_ASSIGN_OR_RETURN(auto contract_report, ApplyContract(contract, &spec));
  DELTA_ASSIGN_OR_RETURN(MergePlan plan, dml_internal::PlanMerge(target, spec, session));
  MergeResult result;
  result.ignored_source_columns = plan.ignored_source_columns;
  result.added_columns = plan.added_columns;
  result.widened_columns = plan.widened_columns;
  result.warnings = plan.warnings;

  MergeRun run(target, plan, &result);
  DELTA_RETURN_IF_ERROR(run.Init(
      spec.source, spec.source_memory_limit.value_or(session.merge_source_memory_limit),
      session));
  auto fail = [&](Error e) -> Result<MergeResult> {
    run.writer().Abort();
    return e;
  };
  auto candidates = run.CandidateFiles();
  if (!candidates) return fail(candidates.error());
  std::vector<const AddFile*> removed;
  std::vector<std::string> read;
  // The next batches decode on their own thread while this one joins and filters.
  dml_internal::FilePrefetcher batches(target.snapshot, *candidates, kPrefetchDepth,
                                       run.dictionary_columns());
  for (const AddFile* file : *candidates) {
    bool touched = false;
    if (auto st = run.ProcessFile(*file, batches, &touched); !st) {
      return fail(st.error());
    }
    read.push_back(file->path);
    if (touched) removed.push_back(file);
  }
  result.num_target_files_scanned = static_cast<int64_t>(candidates->size());
  if (auto st = run.InsertUnmatched(); !st) return fail(st.error());
  result.num_target_rows_updated = result.num_target_rows_matched_updated +
                                   result.num_target_rows_not_matched_by_source_updated;
  result.num_target_rows_deleted = result.num_target_rows_matched_deleted +
                                   result.num_target_rows_not_matched_by_source_deleted;

  OperationInfo op = dml_internal::MergeOperationInfo(plan);
  if (contract) {
    result.contract =
        FinishContractWrite(*contract, *contract_report, &op, &result.warnings);
  }
  auto fill = [&](const dml_internal::DmlWriter::Outcome& o, OperationInfo* info) {
    result.num_target_files_added = o.files_added;
    result.num_target_files_removed = o.files_removed;
    result.num_target_bytes_added = o.bytes_added;
    result.num_target_bytes_removed = o.bytes_removed;
    result.num_output_rows = o.rows_written;
    dml_internal::AddMergeMetrics(result, plan,
                                  std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::steady_clock::now() - start)
                                      .count(),
                                  info);
  };
  DELTA_ASSIGN_OR_RETURN(
      auto outcome, run.writer().Commit(removed, std::move(read), std::move(op), fill));
  result.version = outcome.version;
  result.commit_attempts = outcome.commit_attempts;
  result.profile = std::move(outcome.profile);
  for (auto& w : outcome.warnings) result.warnings.push_back(std::move(w));
  return result;
}

}  // namespace deltaguard
