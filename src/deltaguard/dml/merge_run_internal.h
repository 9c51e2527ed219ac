/// \file deltaguard/dml/merge_run_internal.h
/// MergeRun: the execution state of one MERGE after planning (merge_plan.cc): the
/// source read and hashed on its ON keys, the candidate target files, the join of each
/// target batch with the source, the clause each row takes, and the rows written
/// copy-on-write. merge.cc drives it; merge_run.cc holds the per-batch steps and
/// merge_match.cc the source hash table and the join.
#pragma once

#include <arrow/record_batch.h>

#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "deltaguard/dml/dml_internal.h"
#include "deltaguard/dml/file_prefetch_internal.h"
#include "deltaguard/dml/merge_internal.h"
#include "deltaguard/exec/constraint_checker.h"
#include "deltaguard/exec/spill_memory_pool.h"

namespace deltaguard::dml_internal {

/// (target row, source row) pairs are checked against the ON residual and written in
/// chunks of this many rows, which bounds the memory of a many-to-many join.
inline constexpr size_t kPairChunk = 64 * 1024;

/// The joined batch: target columns then source columns (both already qualified).
std::shared_ptr<arrow::RecordBatch> JoinColumns(
    const arrow::Schema& target_schema, std::vector<std::shared_ptr<arrow::Array>> target,
    const arrow::Schema& source_schema, std::vector<std::shared_ptr<arrow::Array>> source,
    int64_t rows);

class MergeRun {
 public:
  MergeRun(const DmlTarget& target, MergePlan& plan, MergeResult* result)
      : target_(target), plan_(plan), result_(result) {}

  /// Read and index the source, open the writer, choose the dictionary columns.
  Status Init(BatchSource& source, int64_t source_memory_limit,
              const SessionSettings& session);

  /// Target STRING columns that stay dictionary-encoded (ChooseDictionaryColumns).
  const std::vector<std::string>& dictionary_columns() const {
    return dictionary_columns_;
  }
  DmlWriter& writer() { return *writer_; }

  /// The files that may hold matched rows (stats and partition pruning on the keys).
  Result<std::vector<const AddFile*>> CandidateFiles();

  /// `batches` is positioned at the start of `file`; reads it to its end marker.
  /// `*touched`: some row of the file changed, so it is rewritten (and removed).
  Status ProcessFile(const AddFile& file, FilePrefetcher& batches, bool* touched);

  /// Source rows that matched no target row go to the NOT MATCHED clauses.
  Status InsertUnmatched();

 private:
  // The clause each row of one target batch takes, and the joined rows it reads.
  struct BatchActions {
    std::vector<int32_t> action;  // per target row: clause index, -1 kept as is
    // Row i of `joined` is target row joined_rows[i] (all rows when empty); its clause
    // is (*joined_action)[i].
    std::shared_ptr<arrow::RecordBatch> joined;
    std::vector<int64_t> joined_rows;
    std::vector<int32_t> compact_action;
    const std::vector<int32_t>* joined_action = nullptr;
    bool changes = false;
  };

  // The pairs a probe found for one target batch and what they matched so far.
  struct BatchMatch {
    std::vector<int64_t>* match;  // per target row: the first matching source row
    bool* any_match;
    std::vector<uint32_t> counts;  // matches per target row
    std::vector<int64_t> pt, ps;   // pending (target row, source row) pairs
  };

  void ChooseDictionaryColumns();
  Status ReadSource(BatchSource& source, int64_t memory_limit);
  Status IndexSourceKeys();

  // merge_run.cc: one target batch.
  Status DecideBatch(const std::shared_ptr<arrow::RecordBatch>& tq,
                     const std::vector<int64_t>& match, bool any_match,
                     BatchActions* out);
  Status DecideMatchedOnly(const std::shared_ptr<arrow::RecordBatch>& tq,
                           const std::vector<int64_t>& match, BatchActions* out);
  Status ApplyActions(const std::shared_ptr<arrow::RecordBatch>& raw,
                      const BatchActions& a);
  Status InsertChunk(const std::vector<int64_t>& rows,
                     const std::shared_ptr<arrow::RecordBatch>& target_q);
  Status Decide(const std::vector<ClausePlan>& clauses, const arrow::RecordBatch& joined,
                const std::vector<int64_t>& match, bool matched, int32_t base,
                std::vector<int32_t>* action);
  Status Emit(const ClausePlan& c, const std::shared_ptr<arrow::RecordBatch>& joined,
              const arrow::BooleanArray& mask);
  Result<std::shared_ptr<arrow::Array>> EmitColumn(const ClausePlan& c,
                                                   const ProjectedColumn& p,
                                                   const arrow::RecordBatch& rows);
  Status Copy(const std::shared_ptr<arrow::RecordBatch>& raw);

  // merge_match.cc: the join of one target batch with the source.
  Status Match(const std::shared_ptr<arrow::RecordBatch>& tq, const AddFile& file,
               int64_t first_row, std::vector<int64_t>* match, bool* any_match);
  Status FlushPairs(const std::shared_ptr<arrow::RecordBatch>& tq, BatchMatch* m);
  Status ProbeIntegral(const std::shared_ptr<arrow::RecordBatch>& tq,
                       const arrow::Array& column, BatchMatch* m);
  Status ProbeEncoded(const std::shared_ptr<arrow::RecordBatch>& tq,
                      const std::vector<std::shared_ptr<arrow::Array>>& target_keys,
                      BatchMatch* m);
  Status CheckSingleMatch(const BatchMatch& m, const AddFile& file, int64_t first_row,
                          const std::vector<std::shared_ptr<arrow::Array>>& target_keys);

  const DmlTarget& target_;
  MergePlan& plan_;
  std::set<std::string> plan_columns_;           // read by the MATCHED clauses
  std::vector<std::string> dictionary_columns_;  // see ChooseDictionaryColumns
  MergeResult* result_;
  std::unique_ptr<ConstraintChecker> checker_;
  std::shared_ptr<arrow::Schema> target_arrow_;
  // Owns the source's buffers when it was spilled; outlives source_ (declared first).
  std::unique_ptr<SpillMemoryPool> spill_pool_;
  std::shared_ptr<arrow::RecordBatch> source_;
  std::vector<std::shared_ptr<arrow::Array>> source_keys_;
  std::unordered_map<std::string, int64_t> head_;
  IntegralKeyIndex int_index_;  // used instead of head_ when int_keys_
  bool int_keys_ = false;
  std::vector<int64_t> next_;
  std::vector<uint8_t> source_matched_;
  std::unique_ptr<DmlWriter> writer_;
  RowCopier copier_{plan_.schema.schema, target_.name};
};

}  // namespace deltaguard::dml_internal
