// MergeRun's per-batch steps (merge_run_internal.h): which clause each target row takes,
// the rows each clause writes, the copied rows, and the NOT MATCHED inserts.

#include <arrow/array/util.h>

#include <set>
#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/dml/merge_run_internal.h"
#include "deltaguard/dml/merge_source_internal.h"
#include "deltaguard/exec/expr_eval.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::dml_internal {
namespace {

std::vector<std::shared_ptr<arrow::Array>> EmptyColumns(const arrow::Schema& s) {
  std::vector<std::shared_ptr<arrow::Array>> out;
  for (const auto& f : s.fields()) {
    auto a = arrow::MakeArrayOfNull(f->type(), 0);
    out.push_back(a.ok() ? *a : nullptr);
  }
  return out;
}

// The rows whose clause is `k`, as a selection and its count.
std::pair<std::vector<uint8_t>, int64_t> RowsOfClause(const std::vector<int32_t>& action,
                                                      size_t k) {
  std::vector<uint8_t> rows(action.size());
  int64_t count = 0;
  for (size_t i = 0; i < action.size(); ++i) {
    rows[i] = action[i] == static_cast<int32_t>(k);
    count += rows[i];
  }
  return {std::move(rows), count};
}

}  // namespace

std::shared_ptr<arrow::RecordBatch> JoinColumns(
    const arrow::Schema& target_schema, std::vector<std::shared_ptr<arrow::Array>> target,
    const arrow::Schema& source_schema, std::vector<std::shared_ptr<arrow::Array>> source,
    int64_t rows) {
  auto fields = target_schema.fields();
  for (const auto& f : source_schema.fields()) fields.push_back(f);
  for (auto& c : source) target.push_back(std::move(c));
  return arrow::RecordBatch::Make(arrow::schema(fields), rows, std::move(target));
}

Status MergeRun::Init(BatchSource& source, int64_t source_memory_limit,
                      const SessionSettings& session) {
  DELTA_ASSIGN_OR_RETURN(auto checker,
                         ConstraintChecker::Make(plan_.schema.effective_metadata,
                                                 *plan_.schema.schema, target_.name));
  checker_ = std::make_unique<ConstraintChecker>(std::move(checker));
  DELTA_ASSIGN_OR_RETURN(target_arrow_, ToArrowSchema(*plan_.target_schema));
  // The top-level columns (joined names) the MATCHED clauses read.
  for (const auto& c : plan_.matched) {
    AddReferencedColumns(c.condition, &plan_columns_);
    for (const auto& p : c.columns) {
      AddReferencedColumns(p.value, &plan_columns_);
      AddReferencedColumns(p.keep_from, &plan_columns_);
      for (const auto& [path, expr] : p.nested)
        AddReferencedColumns(expr, &plan_columns_);
    }
  }
  DELTA_RETURN_IF_ERROR(ReadSource(source, source_memory_limit));
  DELTA_ASSIGN_OR_RETURN(writer_, DmlWriter::Make(target_, plan_.schema, session));
  ChooseDictionaryColumns();
  return OkStatus();
}

// Target STRING columns whose values only move (copied rows, rows the clauses replace):
// no ON key, ON residual or MATCHED clause reads them, and there is no NOT MATCHED BY
// SOURCE clause (which reads whole target rows). They stay dictionary-encoded from the
// target file to the writer (ScanOptions::dictionary_columns).
void MergeRun::ChooseDictionaryColumns() {
  if (!plan_.not_matched_by_source.empty()) return;
  std::set<std::string> read = plan_columns_;
  for (const auto& key : plan_.keys) AddReferencedColumns(key.target, &read);
  AddReferencedColumns(plan_.residual, &read);
  for (const auto& f : target_arrow_->fields()) {
    if (f->type()->id() != arrow::Type::STRING) continue;
    if (read.count(JoinedName(plan_.target_alias, f->name()))) continue;
    dictionary_columns_.push_back(f->name());
  }
}

Result<std::vector<const AddFile*>> MergeRun::CandidateFiles() {
  std::vector<const AddFile*> out;
  const bool prune = plan_.not_matched_by_source.empty();
  std::vector<std::pair<const JoinKey*, std::optional<KeyRange>>> ranges;
  if (prune) {
    for (size_t k = 0; k < plan_.keys.size(); ++k) {
      if (!plan_.keys[k].prune_column) continue;
      DELTA_ASSIGN_OR_RETURN(auto range, IntegralRange(*source_keys_[k]));
      ranges.emplace_back(&plan_.keys[k], range);
    }
  }
  const Snapshot& snapshot = *target_.snapshot;
  for (const AddFile& file : snapshot.files()) {
    bool keep = !(prune && source_->num_rows() == 0);
    for (const auto& [key, range] : ranges) {
      if (!keep) break;
      const StructField& column = *key->prune_column;
      bool is_partition = false;
      for (const auto& p : snapshot.metadata().partition_columns)
        is_partition = is_partition || EqualsIgnoreCase(p, column.name);
      keep =
          FileMayMatch(file, column, is_partition, snapshot.column_mapping_mode(), range);
    }
    if (keep) {
      out.push_back(&file);
    } else {
      ++result_->num_target_files_skipped;
    }
  }
  return out;
}

Status MergeRun::ProcessFile(const AddFile& file, FilePrefetcher& batches,
                             bool* touched) {
  // Unchanged batches before the first change: copied only if the file is rewritten.
  std::vector<std::shared_ptr<arrow::RecordBatch>> pending;
  *touched = false;
  int64_t first_row = 0;
  while (true) {
    DELTA_ASSIGN_OR_RETURN(auto raw, batches.Next());
    if (!raw) break;
    const int64_t n = raw->num_rows();
    DELTA_ASSIGN_OR_RETURN(auto tq, Qualified(raw, plan_.target_alias));
    std::vector<int64_t> match(static_cast<size_t>(n), -1);
    bool any_match = false;
    auto matched = Match(tq, file, first_row, &match, &any_match);
    if (!matched) return WithContext(matched.error(), "MERGE");
    first_row += n;
    BatchActions a;
    DELTA_RETURN_IF_ERROR(DecideBatch(tq, match, any_match, &a));
    if (!a.changes) {
      if (*touched) {
        DELTA_RETURN_IF_ERROR(Copy(raw));
      } else {
        pending.push_back(raw);
      }
      continue;
    }
    if (!*touched) {
      *touched = true;
      for (const auto& p : pending) DELTA_RETURN_IF_ERROR(Copy(p));
      pending.clear();
    }
    DELTA_RETURN_IF_ERROR(ApplyActions(raw, a));
  }
  return OkStatus();
}

// Decide each target row's clause: matched rows, then rows no source row matched.
Status MergeRun::DecideBatch(const std::shared_ptr<arrow::RecordBatch>& tq,
                             const std::vector<int64_t>& match, bool any_match,
                             BatchActions* out) {
  const size_t num_matched = plan_.matched.size();
  out->action.assign(static_cast<size_t>(tq->num_rows()), -1);
  out->joined_action = &out->action;
  if (any_match && num_matched > 0 && plan_.not_matched_by_source.empty()) {
    return DecideMatchedOnly(tq, match, out);
  }
  if ((any_match && num_matched > 0) || !plan_.not_matched_by_source.empty()) {
    DELTA_ASSIGN_OR_RETURN(auto source_cols, TakeRows(*source_, match));
    out->joined = JoinColumns(*tq->schema(), tq->columns(), *source_->schema(),
                              std::move(source_cols), tq->num_rows());
    DELTA_RETURN_IF_ERROR(
        Decide(plan_.matched, *out->joined, match, true, 0, &out->action));
    DELTA_RETURN_IF_ERROR(Decide(plan_.not_matched_by_source, *out->joined, match, false,
                                 static_cast<int32_t>(num_matched), &out->action));
    for (int32_t a : out->action) out->changes = out->changes || a >= 0;
  }
  return OkStatus();
}

// Only matched rows can change: join just those (usually a small fraction), and only
// the target columns the MATCHED clauses read (UPDATE SET * reads none).
Status MergeRun::DecideMatchedOnly(const std::shared_ptr<arrow::RecordBatch>& tq,
                                   const std::vector<int64_t>& match, BatchActions* out) {
  std::vector<int64_t> source_rows;
  for (int64_t r = 0; r < tq->num_rows(); ++r) {
    if (match[static_cast<size_t>(r)] < 0) continue;
    out->joined_rows.push_back(r);
    source_rows.push_back(match[static_cast<size_t>(r)]);
  }
  const auto m = static_cast<int64_t>(out->joined_rows.size());
  std::vector<int> read;
  for (int i = 0; i < tq->num_columns(); ++i) {
    if (plan_columns_.count(tq->schema()->field(i)->name())) read.push_back(i);
  }
  DELTA_ARROW_ASSIGN_OR_RETURN(auto target_read, tq->SelectColumns(read),
                               ErrorCode::kInternal, "MERGE");
  DELTA_ASSIGN_OR_RETURN(auto target_cols, TakeRows(*target_read, out->joined_rows));
  DELTA_ASSIGN_OR_RETURN(auto source_cols, TakeRows(*source_, source_rows));
  out->joined = JoinColumns(*target_read->schema(), std::move(target_cols),
                            *source_->schema(), std::move(source_cols), m);
  out->compact_action.assign(static_cast<size_t>(m), -1);
  DELTA_RETURN_IF_ERROR(
      Decide(plan_.matched, *out->joined, source_rows, true, 0, &out->compact_action));
  for (int64_t i = 0; i < m; ++i) {
    const int32_t a = out->compact_action[static_cast<size_t>(i)];
    out->action[static_cast<size_t>(out->joined_rows[static_cast<size_t>(i)])] = a;
    out->changes = out->changes || a >= 0;
  }
  out->joined_action = &out->compact_action;
  return OkStatus();
}

// Copy the rows no clause took, then write or count each clause's rows.
Status MergeRun::ApplyActions(const std::shared_ptr<arrow::RecordBatch>& raw,
                              const BatchActions& a) {
  const int64_t n = raw->num_rows();
  std::vector<uint8_t> keep(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) keep[static_cast<size_t>(r)] = a.action[r] < 0;
  DELTA_ASSIGN_OR_RETURN(auto keep_mask, MaskFromBytes(keep));
  DELTA_ASSIGN_OR_RETURN(auto kept, FilterRows(raw, *keep_mask));
  DELTA_RETURN_IF_ERROR(Copy(kept));
  const size_t num_matched = plan_.matched.size();
  const size_t total = num_matched + plan_.not_matched_by_source.size();
  for (size_t k = 0; k < total; ++k) {
    auto [rows, count] = RowsOfClause(*a.joined_action, k);
    if (count == 0) continue;
    const bool is_matched = k < num_matched;
    const ClausePlan& c =
        is_matched ? plan_.matched[k] : plan_.not_matched_by_source[k - num_matched];
    if (c.is_delete) {
      (is_matched ? result_->num_target_rows_matched_deleted
                  : result_->num_target_rows_not_matched_by_source_deleted) += count;
      continue;
    }
    DELTA_ASSIGN_OR_RETURN(auto mask, MaskFromBytes(rows));
    DELTA_RETURN_IF_ERROR(Emit(c, a.joined, *mask));
    (is_matched ? result_->num_target_rows_matched_updated
                : result_->num_target_rows_not_matched_by_source_updated) += count;
  }
  return OkStatus();
}

Status MergeRun::InsertUnmatched() {
  if (plan_.not_matched.empty()) return OkStatus();
  std::vector<int64_t> rows;
  for (size_t s = 0; s < source_matched_.size(); ++s) {
    if (!source_matched_[s]) rows.push_back(static_cast<int64_t>(s));
  }
  DELTA_ASSIGN_OR_RETURN(
      auto target_q,
      Qualified(arrow::RecordBatch::Make(target_arrow_, 0, EmptyColumns(*target_arrow_)),
                plan_.target_alias));
  for (size_t begin = 0; begin < rows.size(); begin += kPairChunk) {
    std::vector<int64_t> chunk(rows.begin() + static_cast<std::ptrdiff_t>(begin),
                               rows.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                  rows.size(), begin + kPairChunk)));
    DELTA_RETURN_IF_ERROR(InsertChunk(chunk, target_q));
  }
  return OkStatus();
}

// Source rows `rows` joined with NULL target columns, through the NOT MATCHED clauses.
Status MergeRun::InsertChunk(const std::vector<int64_t>& rows,
                             const std::shared_ptr<arrow::RecordBatch>& target_q) {
  const int64_t n = static_cast<int64_t>(rows.size());
  std::vector<std::shared_ptr<arrow::Array>> nulls;
  for (const auto& f : target_arrow_->fields()) {
    DELTA_ARROW_ASSIGN_OR_RETURN(auto a, arrow::MakeArrayOfNull(f->type(), n),
                                 ErrorCode::kInternal, "MERGE");
    nulls.push_back(std::move(a));
  }
  DELTA_ASSIGN_OR_RETURN(auto source_cols, TakeRows(*source_, rows));
  auto joined = JoinColumns(*target_q->schema(), std::move(nulls), *source_->schema(),
                            std::move(source_cols), n);
  std::vector<int64_t> none(static_cast<size_t>(n), -1);
  std::vector<int32_t> action(static_cast<size_t>(n), -1);
  DELTA_RETURN_IF_ERROR(Decide(plan_.not_matched, *joined, none, false, 0, &action));
  for (size_t k = 0; k < plan_.not_matched.size(); ++k) {
    auto [sel, count] = RowsOfClause(action, k);
    if (count == 0) continue;
    DELTA_ASSIGN_OR_RETURN(auto mask, MaskFromBytes(sel));
    DELTA_RETURN_IF_ERROR(Emit(plan_.not_matched[k], joined, *mask));
    result_->num_target_rows_inserted += count;
  }
  return OkStatus();
}

// First clause whose condition holds, for the rows that are (not) matched.
Status MergeRun::Decide(const std::vector<ClausePlan>& clauses,
                        const arrow::RecordBatch& joined,
                        const std::vector<int64_t>& match, bool matched, int32_t base,
                        std::vector<int32_t>* action) {
  const int64_t n = joined.num_rows();
  for (size_t k = 0; k < clauses.size(); ++k) {
    std::shared_ptr<arrow::BooleanArray> holds;
    if (clauses[k].condition) {
      auto evaluated = EvaluatePredicate(*clauses[k].condition, joined);
      if (!evaluated) return WithContext(evaluated.error(), clauses[k].Describe());
      holds = std::move(*evaluated);
    }
    for (int64_t r = 0; r < n; ++r) {
      auto i = static_cast<size_t>(r);
      if ((*action)[i] >= 0 || (match[i] >= 0) != matched) continue;
      if (holds && !(holds->IsValid(r) && holds->Value(r))) continue;
      (*action)[i] = base + static_cast<int32_t>(k);
    }
    // A row a clause was evaluated for but not chosen stays -1 (kept as is).
  }
  return OkStatus();
}

// Write the rows of `joined` selected by `mask` as projected by clause `c`.
Status MergeRun::Emit(const ClausePlan& c,
                      const std::shared_ptr<arrow::RecordBatch>& joined,
                      const arrow::BooleanArray& mask) {
  DELTA_ASSIGN_OR_RETURN(auto rows, FilterRows(joined, mask));
  std::vector<std::shared_ptr<arrow::Field>> fields;
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (const auto& p : c.columns) {
    if (!p.value) continue;
    DELTA_ASSIGN_OR_RETURN(auto array, EmitColumn(c, p, *rows));
    fields.push_back(arrow::field(p.name, array->type(), true));
    columns.push_back(std::move(array));
  }
  auto projected =
      arrow::RecordBatch::Make(arrow::schema(fields), rows->num_rows(), columns);
  auto conformed = c.conformer->Conform(*projected);
  if (!conformed) return WithContext(conformed.error(), c.Describe());
  if (auto checked = checker_->Check(**conformed); !checked) {
    return WithContext(checked.error(), c.Describe());
  }
  return writer_->Write(*conformed);
}

// One output column of clause `c`: its value, pruned, with nested fields replaced and
// target-only fields kept (ProjectedColumn).
Result<std::shared_ptr<arrow::Array>> MergeRun::EmitColumn(
    const ClausePlan& c, const ProjectedColumn& p, const arrow::RecordBatch& rows) {
  auto in_column = [&](const Error& e) {
    return WithContext(e, c.Describe() + ", column " + p.name);
  };
  auto value = Evaluate(*p.value, rows);
  if (!value) return in_column(value.error());
  std::shared_ptr<arrow::Array> array = std::move(*value);
  if (p.prune_to) {
    DELTA_ASSIGN_OR_RETURN(array, PruneArray(array, p.prune_to));
  }
  for (const auto& [path, expr] : p.nested) {
    auto field_value = Evaluate(*expr, rows);
    if (!field_value) return in_column(field_value.error());
    DELTA_ASSIGN_OR_RETURN(array, ReplaceNestedField(array, path, *field_value));
  }
  if (p.keep_from) {
    auto current = Evaluate(*p.keep_from, rows);
    if (!current) return in_column(current.error());
    DELTA_ASSIGN_OR_RETURN(array, KeepTargetOnlyFields(array, *current));
  }
  return array;
}

// Unchanged rows of a rewritten file, conformed to the (possibly evolved) schema.
Status MergeRun::Copy(const std::shared_ptr<arrow::RecordBatch>& raw) {
  if (raw->num_rows() == 0) return OkStatus();
  DELTA_ASSIGN_OR_RETURN(auto conformed, copier_.Conform(*raw));
  result_->num_target_rows_copied += raw->num_rows();
  return writer_->Write(conformed);
}

}  // namespace deltaguard::dml_internal
