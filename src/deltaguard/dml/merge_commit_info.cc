// commitInfo of a MERGE: Spark's operationParameters and operationMetrics
// (docs/spark_semantics.md §1.6, DeltaOperations.Merge), plus deltaguard's addedColumns /
// ignoredSourceColumns (merge_internal.h).

#include <string>
#include <vector>

#include "deltaguard/dml/merge_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::dml_internal {
namespace {

std::string ClausePredicates(const std::vector<ClausePlan>& clauses) {
  std::string out = "[";
  for (size_t i = 0; i < clauses.size(); ++i) {
    const auto& c = clauses[i];
    out += i ? ",{" : "{";
    if (!c.condition_sql.empty()) {
      out += "\"predicate\":";
      AppendJsonString(&out, c.condition_sql);
      out += ",";
    }
    std::string action = c.is_delete ? "delete"
                         : c.kind == MergeWhen::Kind::kNotMatchedInsert ||
                                 c.kind == MergeWhen::Kind::kNotMatchedInsertAll
                             ? "insert"
                             : "update";
    out += "\"actionType\":\"" + action + "\"}";
  }
  return out + "]";
}

std::string JsonNames(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += ",";
    AppendJsonString(&out, names[i]);
  }
  return out + "]";
}

}  // namespace

OperationInfo MergeOperationInfo(const MergePlan& plan) {
  OperationInfo op;
  op.operation = "MERGE";
  op.parameters_json.emplace_back("predicate", PredicateParameter({plan.on_sql}));
  op.parameters_json.emplace_back("matchedPredicates", ClausePredicates(plan.matched));
  op.parameters_json.emplace_back("notMatchedPredicates",
                                  ClausePredicates(plan.not_matched));
  op.parameters_json.emplace_back("notMatchedBySourcePredicates",
                                  ClausePredicates(plan.not_matched_by_source));
  if (!plan.added_columns.empty()) {
    op.parameters_json.emplace_back("addedColumns", JsonNames(plan.added_columns));
  }
  if (!plan.ignored_source_columns.empty()) {
    op.parameters_json.emplace_back("ignoredSourceColumns",
                                    JsonNames(plan.ignored_source_columns));
  }
  return op;
}

void AddMergeMetrics(const MergeResult& result, const MergePlan& plan,
                     int64_t execution_ms, OperationInfo* info) {
  auto& m = info->metrics;
  m.emplace_back("numSourceRows", result.num_source_rows);
  m.emplace_back("numTargetRowsInserted", result.num_target_rows_inserted);
  m.emplace_back("numTargetRowsUpdated", result.num_target_rows_updated);
  m.emplace_back("numTargetRowsMatchedUpdated", result.num_target_rows_matched_updated);
  m.emplace_back("numTargetRowsNotMatchedBySourceUpdated",
                 result.num_target_rows_not_matched_by_source_updated);
  m.emplace_back("numTargetRowsDeleted", result.num_target_rows_deleted);
  m.emplace_back("numTargetRowsMatchedDeleted", result.num_target_rows_matched_deleted);
  m.emplace_back("numTargetRowsNotMatchedBySourceDeleted",
                 result.num_target_rows_not_matched_by_source_deleted);
  m.emplace_back("numTargetRowsCopied", result.num_target_rows_copied);
  m.emplace_back("numOutputRows", result.num_output_rows);
  m.emplace_back("numTargetFilesAdded", result.num_target_files_added);
  m.emplace_back("numTargetFilesRemoved", result.num_target_files_removed);
  m.emplace_back("numTargetBytesAdded", result.num_target_bytes_added);
  m.emplace_back("numTargetBytesRemoved", result.num_target_bytes_removed);
  m.emplace_back("numTargetChangeFilesAdded", 0);
  m.emplace_back("numTargetDeletionVectorsAdded", 0);
  m.emplace_back("numTargetDeletionVectorsRemoved", 0);
  m.emplace_back("numAddedColumns", static_cast<int64_t>(plan.added_columns.size()));
  m.emplace_back("numIgnoredSourceColumns",
                 static_cast<int64_t>(plan.ignored_source_columns.size()));
  m.emplace_back("executionTimeMs", execution_ms);
}

}  // namespace deltaguard::dml_internal
