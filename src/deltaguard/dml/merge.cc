// MERGE execution: read the source, hash-join it with the candidate target files, apply
// the clauses, write the changed files copy-on-write and commit (merge.h).

#include "deltaguard/dml/merge.h"

#include <arrow/array/util.h>
#include <arrow/table.h>
#include <arrow/util/bit_util.h>
#include <fmt/format.h>

#include <chrono>
#include <set>
#include <unordered_map>
#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/dml/file_prefetch_internal.h"
#include "deltaguard/dml/merge_internal.h"
#include "deltaguard/dml/merge_source_internal.h"
#include "deltaguard/exec/constraint_checker.h"
#include "deltaguard/exec/expr_eval.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

using dml_internal::ClausePlan;
using dml_internal::MergePlan;

constexpr size_t kPairChunk = 64 * 1024;
// Target batches decoded ahead of the join (each holds ScanOptions::batch_size rows).
constexpr size_t kPrefetchDepth = 2;

// The joined batch: target columns then source columns (both already qualified).
std::shared_ptr<arrow::RecordBatch> JoinColumns(
    const arrow::Schema& target_schema, std::vector<std::shared_ptr<arrow::Array>> target,
    const arrow::Schema& source_schema, std::vector<std::shared_ptr<arrow::Array>> source,
    int64_t rows) {
  auto fields = target_schema.fields();
  for (const auto& f : source_schema.fields()) fields.push_back(f);
  for (auto& c : source) target.push_back(std::move(c));
  return arrow::RecordBatch::Make(arrow::schema(fields), rows, std::move(target));
}

class MergeRun {
 public:
  MergeRun(const dml_internal::DmlTarget& target, MergePlan& plan, MergeResult* result)
      : target_(target), plan_(plan), result_(result) {}

  Status Init(BatchSource& source, int64_t source_memory_limit,
              const SessionSettings& session) {
    DELTA_ASSIGN_OR_RETURN(auto checker,
                           ConstraintChecker::Make(plan_.schema.effective_metadata,
                                                   *plan_.schema.schema, target_.name));
    checker_ = std::make_unique<ConstraintChecker>(std::move(checker));
    DELTA_ASSIGN_OR_RETURN(target_arrow_, ToArrowSchema(*plan_.target_schema));
    // The top-level columns (joined names) the MATCHED clauses read.
    for (const auto& c : plan_.matched) {
      dml_internal::AddReferencedColumns(c.condition, &plan_columns_);
      for (const auto& p : c.columns) {
        dml_internal::AddReferencedColumns(p.value, &plan_columns_);
        dml_internal::AddReferencedColumns(p.keep_from, &plan_columns_);
        for (const auto& [path, expr] : p.nested) {
          dml_internal::AddReferencedColumns(expr, &plan_columns_);
        }
      }
    }
    DELTA_RETURN_IF_ERROR(ReadSource(source, source_memory_limit));
    DELTA_ASSIGN_OR_RETURN(writer_,
                           dml_internal::DmlWriter::Make(target_, plan_.schema, session));
    ChooseDictionaryColumns();
    return OkStatus();
  }

  // Target STRING columns whose values only move (copied rows, rows the clauses
  // replace): no ON key, ON residual or MATCHED clause reads them, and there is no NOT
  // MATCHED BY SOURCE clause (which reads whole target rows). They stay
  // dictionary-encoded from the target file to the writer
  // (ScanOptions::dictionary_columns).
  void ChooseDictionaryColumns() {
    if (!plan_.not_matched_by_source.empty()) return;
    std::set<std::string> read = plan_columns_;
    for (const auto& key : plan_.keys)
      dml_internal::AddReferencedColumns(key.target, &read);
    dml_internal::AddReferencedColumns(plan_.residual, &read);
    for (const auto& f : target_arrow_->fields()) {
      if (f->type()->id() != arrow::Type::STRING) continue;
      if (read.count(dml_internal::JoinedName(plan_.target_alias, f->name()))) continue;
      dictionary_columns_.push_back(f->name());
    }
  }

  const std::vector<std::string>& dictionary_columns() const {
    return dictionary_columns_;
  }

  dml_internal::DmlWriter& writer() { return *writer_; }

  // The files that may hold matched rows.
  Result<std::vector<const AddFile*>> CandidateFiles() {
    std::vector<const AddFile*> out;
    const bool prune = plan_.not_matched_by_source.empty();
    std::vector<
        std::pair<const dml_internal::JoinKey*, std::optional<dml_internal::KeyRange>>>
        ranges;
    if (prune) {
      for (size_t k = 0; k < plan_.keys.size(); ++k) {
        if (!plan_.keys[k].prune_column) continue;
        DELTA_ASSIGN_OR_RETURN(auto range, dml_internal::IntegralRange(*source_keys_[k]));
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
        keep = dml_internal::FileMayMatch(file, column, is_partition,
                                          snapshot.column_mapping_mode(), range);
      }
      if (keep) {
        out.push_back(&file);
      } else {
        ++result_->num_target_files_skipped;
      }
    }
    return out;
  }

  // `batches` is positioned at the start of `file`; reads it to its end marker.
  Status ProcessFile(const AddFile& file, dml_internal::FilePrefetcher& batches,
                     bool* touched) {
    std::vector<std::shared_ptr<arrow::RecordBatch>> pending;
    *touched = false;
    int64_t first_row = 0;
    while (true) {
      DELTA_ASSIGN_OR_RETURN(auto raw, batches.Next());
      if (!raw) break;
      const int64_t n = raw->num_rows();
      DELTA_ASSIGN_OR_RETURN(auto tq, dml_internal::Qualified(raw, plan_.target_alias));
      std::vector<int64_t> match(static_cast<size_t>(n), -1);
      bool any_match = false;
      auto matched = Match(tq, file, first_row, &match, &any_match);
      if (!matched) return WithContext(matched.error(), "MERGE");
      first_row += n;
      // Decide each target row's clause: matched rows, then rows no source row matched.
      const size_t num_matched = plan_.matched.size();
      std::vector<int32_t> action(static_cast<size_t>(n), -1);
      std::shared_ptr<arrow::RecordBatch> joined;
      // Row i of `joined` is target row joined_rows[i] (all rows when empty); its clause
      // is joined_action[i].
      std::vector<int64_t> joined_rows;
      std::vector<int32_t> compact_action;
      const std::vector<int32_t>* joined_action = &action;
      bool changes = false;
      if (any_match && num_matched > 0 && plan_.not_matched_by_source.empty()) {
        // Only matched rows can change: join just those (usually a small fraction).
        std::vector<int64_t> source_rows;
        for (int64_t r = 0; r < n; ++r) {
          if (match[static_cast<size_t>(r)] < 0) continue;
          joined_rows.push_back(r);
          source_rows.push_back(match[static_cast<size_t>(r)]);
        }
        const auto m = static_cast<int64_t>(joined_rows.size());
        // Only the target columns the MATCHED clauses read (UPDATE SET * reads none).
        std::vector<int> read;
        for (int i = 0; i < tq->num_columns(); ++i) {
          if (plan_columns_.count(tq->schema()->field(i)->name())) read.push_back(i);
        }
        DELTA_ARROW_ASSIGN_OR_RETURN(auto target_read, tq->SelectColumns(read),
                                     ErrorCode::kInternal, "MERGE");
        DELTA_ASSIGN_OR_RETURN(auto target_cols,
                               dml_internal::TakeRows(*target_read, joined_rows));
        DELTA_ASSIGN_OR_RETURN(auto source_cols,
                               dml_internal::TakeRows(*source_, source_rows));
        joined = JoinColumns(*target_read->schema(), std::move(target_cols),
                             *source_->schema(), std::move(source_cols), m);
        compact_action.assign(static_cast<size_t>(m), -1);
        DELTA_RETURN_IF_ERROR(
            Decide(plan_.matched, *joined, source_rows, true, 0, &compact_action));
        for (int64_t i = 0; i < m; ++i) {
          action[static_cast<size_t>(joined_rows[static_cast<size_t>(i)])] =
              compact_action[static_cast<size_t>(i)];
          changes = changes || compact_action[static_cast<size_t>(i)] >= 0;
        }
        joined_action = &compact_action;
      } else if ((any_match && num_matched > 0) || !plan_.not_matched_by_source.empty()) {
        DELTA_ASSIGN_OR_RETURN(auto source_cols, dml_internal::TakeRows(*source_, match));
        joined = JoinColumns(*tq->schema(), tq->columns(), *source_->schema(),
                             std::move(source_cols), n);
        DELTA_RETURN_IF_ERROR(Decide(plan_.matched, *joined, match, true, 0, &action));
        DELTA_RETURN_IF_ERROR(Decide(plan_.not_matched_by_source, *joined, match, false,
                                     static_cast<int32_t>(num_matched), &action));
        for (int32_t a : action) changes = changes || a >= 0;
      }
      if (!changes) {
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
      std::vector<uint8_t> keep(static_cast<size_t>(n));
      for (int64_t r = 0; r < n; ++r) keep[static_cast<size_t>(r)] = action[r] < 0;
      DELTA_ASSIGN_OR_RETURN(auto keep_mask, dml_internal::MaskFromBytes(keep));
      DELTA_ASSIGN_OR_RETURN(auto kept, dml_internal::FilterRows(raw, *keep_mask));
      DELTA_RETURN_IF_ERROR(Copy(kept));
      const size_t total = num_matched + plan_.not_matched_by_source.size();
      const std::vector<int32_t>& ja = *joined_action;
      for (size_t k = 0; k < total; ++k) {
        std::vector<uint8_t> rows(ja.size());
        int64_t count = 0;
        for (size_t i = 0; i < ja.size(); ++i) {
          rows[i] = ja[i] == static_cast<int32_t>(k);
          count += rows[i];
        }
        if (count == 0) continue;
        const bool is_matched = k < num_matched;
        const ClausePlan& c =
            is_matched ? plan_.matched[k] : plan_.not_matched_by_source[k - num_matched];
        if (c.is_delete) {
          (is_matched ? result_->num_target_rows_matched_deleted
                      : result_->num_target_rows_not_matched_by_source_deleted) += count;
          continue;
        }
        DELTA_ASSIGN_OR_RETURN(auto mask, dml_internal::MaskFromBytes(rows));
        DELTA_RETURN_IF_ERROR(Emit(c, joined, *mask));
        (is_matched ? result_->num_target_rows_matched_updated
                    : result_->num_target_rows_not_matched_by_source_updated) += count;
      }
    }
    return OkStatus();
  }

  // Source rows that matched no target row go to the NOT MATCHED clauses.
  Status InsertUnmatched() {
    if (plan_.not_matched.empty()) return OkStatus();
    std::vector<int64_t> rows;
    for (size_t s = 0; s < source_matched_.size(); ++s) {
      if (!source_matched_[s]) rows.push_back(static_cast<int64_t>(s));
    }
    DELTA_ASSIGN_OR_RETURN(
        auto target_q,
        dml_internal::Qualified(
            arrow::RecordBatch::Make(target_arrow_, 0, EmptyColumns(*target_arrow_)),
            plan_.target_alias));
    for (size_t begin = 0; begin < rows.size(); begin += kPairChunk) {
      std::vector<int64_t> chunk(rows.begin() + static_cast<std::ptrdiff_t>(begin),
                                 rows.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                    rows.size(), begin + kPairChunk)));
      const int64_t n = static_cast<int64_t>(chunk.size());
      std::vector<std::shared_ptr<arrow::Array>> nulls;
      for (const auto& f : target_arrow_->fields()) {
        DELTA_ARROW_ASSIGN_OR_RETURN(auto a, arrow::MakeArrayOfNull(f->type(), n),
                                     ErrorCode::kInternal, "MERGE");
        nulls.push_back(std::move(a));
      }
      DELTA_ASSIGN_OR_RETURN(auto source_cols, dml_internal::TakeRows(*source_, chunk));
      auto joined = JoinColumns(*target_q->schema(), std::move(nulls), *source_->schema(),
                                std::move(source_cols), n);
      std::vector<int64_t> none(static_cast<size_t>(n), -1);
      std::vector<int32_t> action(static_cast<size_t>(n), -1);
      DELTA_RETURN_IF_ERROR(Decide(plan_.not_matched, *joined, none, false, 0, &action));
      for (size_t k = 0; k < plan_.not_matched.size(); ++k) {
        std::vector<uint8_t> sel(static_cast<size_t>(n));
        int64_t count = 0;
        for (int64_t r = 0; r < n; ++r) {
          sel[static_cast<size_t>(r)] = action[r] == static_cast<int32_t>(k);
          count += sel[static_cast<size_t>(r)];
        }
        if (count == 0) continue;
        DELTA_ASSIGN_OR_RETURN(auto mask, dml_internal::MaskFromBytes(sel));
        DELTA_RETURN_IF_ERROR(Emit(plan_.not_matched[k], joined, *mask));
        result_->num_target_rows_inserted += count;
      }
    }
    return OkStatus();
  }

 private:
  static std::vector<std::shared_ptr<arrow::Array>> EmptyColumns(const arrow::Schema& s) {
    std::vector<std::shared_ptr<arrow::Array>> out;
    for (const auto& f : s.fields()) {
      auto a = arrow::MakeArrayOfNull(f->type(), 0);
      out.push_back(a.ok() ? *a : nullptr);
    }
    return out;
  }

  Status ReadSource(BatchSource& source, int64_t memory_limit) {
    DELTA_ASSIGN_OR_RETURN(auto read,
                           dml_internal::ReadMergeSource(source, plan_, memory_limit));
    spill_pool_ = std::move(read.pool);
    result_->source_spilled_bytes = read.spilled_bytes;
    DELTA_ASSIGN_OR_RETURN(source_,
                           dml_internal::Qualified(read.batch, plan_.source_alias));
    result_->num_source_rows = source_->num_rows();
    source_matched_.assign(static_cast<size_t>(source_->num_rows()), 0);
    // Hash table on the source keys (chained through next_).
    for (const auto& key : plan_.keys) {
      auto values = Evaluate(*key.source, *source_);
      if (!values) return WithContext(values.error(), "MERGE ON condition (source side)");
      source_keys_.push_back(std::move(*values));
    }
    if (plan_.keys.size() == 1 &&
        dml_internal::IntegralKeyIndex::Supports(*source_keys_[0])) {
      int_index_.Build(*source_keys_[0], &next_);
      int_keys_ = true;
    } else if (!plan_.keys.empty()) {
      DELTA_ASSIGN_OR_RETURN(auto keys,
                             dml_internal::EncodeKeys(source_keys_, source_->num_rows()));
      next_.assign(keys.size(), -1);
      for (size_t s = keys.size(); s-- > 0;) {
        if (!keys[s]) continue;
        auto [it, inserted] = head_.emplace(std::move(*keys[s]), static_cast<int64_t>(s));
        if (!inserted) {
          next_[s] = it->second;
          it->second = static_cast<int64_t>(s);
        }
      }
    }
    return OkStatus();
  }

  // Join the target rows of `tq` with the source: match[r] = the matching source row.
  Status Match(const std::shared_ptr<arrow::RecordBatch>& tq, const AddFile& file,
               int64_t first_row, std::vector<int64_t>* match, bool* any_match) {
    const int64_t n = tq->num_rows();
    if (source_->num_rows() == 0) return OkStatus();
    std::vector<std::shared_ptr<arrow::Array>> target_keys;
    for (const auto& key : plan_.keys) {
      DELTA_ASSIGN_OR_RETURN(auto values, Evaluate(*key.target, *tq));
      target_keys.push_back(std::move(values));
    }
    std::vector<uint32_t> counts(static_cast<size_t>(n), 0);
    std::vector<int64_t> pt, ps;
    auto flush = [&]() -> Status {
      if (pt.empty()) return OkStatus();
      std::vector<uint8_t> ok(pt.size(), 1);
      if (plan_.residual) {
        DELTA_ASSIGN_OR_RETURN(auto tcols, dml_internal::TakeRows(*tq, pt));
        DELTA_ASSIGN_OR_RETURN(auto scols, dml_internal::TakeRows(*source_, ps));
        auto joined = JoinColumns(*tq->schema(), std::move(tcols), *source_->schema(),
                                  std::move(scols), static_cast<int64_t>(pt.size()));
        DELTA_ASSIGN_OR_RETURN(auto holds, EvaluatePredicate(*plan_.residual, *joined));
        for (size_t i = 0; i < pt.size(); ++i) {
          ok[i] = holds->IsValid(static_cast<int64_t>(i)) &&
                  holds->Value(static_cast<int64_t>(i));
        }
      }
      for (size_t i = 0; i < pt.size(); ++i) {
        if (!ok[i]) continue;
        auto t = static_cast<size_t>(pt[i]);
        if (counts[t]++ == 0) (*match)[t] = ps[i];
        source_matched_[static_cast<size_t>(ps[i])] = 1;
        *any_match = true;
      }
      pt.clear();
      ps.clear();
      return OkStatus();
    };
    if (plan_.keys.empty()) {
      for (int64_t r = 0; r < n; ++r) {
        for (int64_t s = 0; s < source_->num_rows(); ++s) {
          pt.push_back(r);
          ps.push_back(s);
          if (pt.size() >= kPairChunk) DELTA_RETURN_IF_ERROR(flush());
        }
      }
    } else if (int_keys_) {
      // Both sides are bound to one common type, so the target key is integral too.
      const arrow::Array& column = *target_keys[0];
      if (!dml_internal::IntegralKeyIndex::Supports(column)) {
        return MakeError(ErrorCode::kInternal,
                         "MERGE into '{}': ON key types differ between target ({}) and "
                         "source",
                         target_.name, column.type()->ToString());
      }
      // Typed loop over the raw values: this runs once per target row of every
      // rewritten file, so no per-row type switch or IsNull call.
      const uint8_t* valid =
          column.null_count() > 0 ? column.null_bitmap_data() : nullptr;
      auto probe = [&](const auto* values) -> Status {
        for (int64_t r = 0; r < n; ++r) {
          if (valid != nullptr && !arrow::bit_util::GetBit(valid, column.offset() + r))
            continue;
          const int64_t found = int_index_.Find(static_cast<int64_t>(values[r]));
          if (found < 0) continue;
          int64_t s = found & ~dml_internal::IntegralKeyIndex::kMore;
          pt.push_back(r);
          ps.push_back(s);
          // Only a key with more rows reads the chain (one cache miss less per hit).
          if (found & dml_internal::IntegralKeyIndex::kMore) {
            for (s = next_[static_cast<size_t>(s)]; s >= 0;
                 s = next_[static_cast<size_t>(s)]) {
              pt.push_back(r);
              ps.push_back(s);
            }
          }
          if (pt.size() >= kPairChunk) DELTA_RETURN_IF_ERROR(flush());
        }
        return OkStatus();
      };
      const arrow::ArrayData& data = *column.data();
      switch (column.type_id()) {
        case arrow::Type::INT8:
          DELTA_RETURN_IF_ERROR(probe(data.GetValues<int8_t>(1)));
          break;
        case arrow::Type::INT16:
          DELTA_RETURN_IF_ERROR(probe(data.GetValues<int16_t>(1)));
          break;
        case arrow::Type::INT32:
          DELTA_RETURN_IF_ERROR(probe(data.GetValues<int32_t>(1)));
          break;
        default:
          DELTA_RETURN_IF_ERROR(probe(data.GetValues<int64_t>(1)));
          break;
      }
    } else {
      DELTA_ASSIGN_OR_RETURN(auto keys, dml_internal::EncodeKeys(target_keys, n));
      for (int64_t r = 0; r < n; ++r) {
        const auto& key = keys[static_cast<size_t>(r)];
        if (!key) continue;
        auto it = head_.find(*key);
        if (it == head_.end()) continue;
        for (int64_t s = it->second; s >= 0; s = next_[static_cast<size_t>(s)]) {
          pt.push_back(r);
          ps.push_back(s);
        }
        if (pt.size() >= kPairChunk) DELTA_RETURN_IF_ERROR(flush());
      }
    }
    DELTA_RETURN_IF_ERROR(flush());
    if (plan_.multiple_matches_allowed) return OkStatus();
    for (int64_t r = 0; r < n; ++r) {
      if (counts[static_cast<size_t>(r)] < 2) continue;
      std::vector<BoundExprRef> key_exprs;
      for (const auto& k : plan_.keys) key_exprs.push_back(k.target);
      std::string key = key_exprs.empty()
                            ? fmt::format("row {}", first_row + r + 1)
                            : dml_internal::DescribeKey(key_exprs, target_keys, r);
      return MakeError(
          ErrorCode::kInvalidArgument,
          "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE: MERGE into '{}': the "
          "target row with {} (file {}) is matched by {} source rows; a MERGE may update "
          "or delete each target row only once, and which source row should apply is "
          "ambiguous. Deduplicate the source on the ON keys. Nothing was written",
          target_.name, key, file.path, counts[static_cast<size_t>(r)]);
    }
    return OkStatus();
  }

  // First clause whose condition holds, for the rows that are (not) matched.
  Status Decide(const std::vector<ClausePlan>& clauses, const arrow::RecordBatch& joined,
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
  Status Emit(const ClausePlan& c, const std::shared_ptr<arrow::RecordBatch>& joined,
              const arrow::BooleanArray& mask) {
    DELTA_ASSIGN_OR_RETURN(auto rows, dml_internal::FilterRows(joined, mask));
    std::vector<std::shared_ptr<arrow::Field>> fields;
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (const auto& p : c.columns) {
      if (!p.value) continue;
      auto value = Evaluate(*p.value, *rows);
      if (!value) return WithContext(value.error(), c.Describe() + ", column " + p.name);
      std::shared_ptr<arrow::Array> array = std::move(*value);
      if (p.prune_to) {
        DELTA_ASSIGN_OR_RETURN(array, dml_internal::PruneArray(array, p.prune_to));
      }
      for (const auto& [path, expr] : p.nested) {
        auto field_value = Evaluate(*expr, *rows);
        if (!field_value) {
          return WithContext(field_value.error(), c.Describe() + ", column " + p.name);
        }
        DELTA_ASSIGN_OR_RETURN(
            array, dml_internal::ReplaceNestedField(array, path, *field_value));
      }
      if (p.keep_from) {
        auto current = Evaluate(*p.keep_from, *rows);
        if (!current) {
          return WithContext(current.error(), c.Describe() + ", column " + p.name);
        }
        DELTA_ASSIGN_OR_RETURN(array,
                               dml_internal::KeepTargetOnlyFields(array, *current));
      }
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

  // Unchanged rows of a rewritten file, conformed to the (possibly evolved) schema.
  Status Copy(const std::shared_ptr<arrow::RecordBatch>& raw) {
    if (raw->num_rows() == 0) return OkStatus();
    DELTA_ASSIGN_OR_RETURN(auto conformed, copier_.Conform(*raw));
    result_->num_target_rows_copied += raw->num_rows();
    return writer_->Write(conformed);
  }

  const dml_internal::DmlTarget& target_;
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
  dml_internal::IntegralKeyIndex int_index_;  // used instead of head_ when int_keys_
  bool int_keys_ = false;
  std::vector<int64_t> next_;
  std::vector<uint8_t> source_matched_;
  std::unique_ptr<dml_internal::DmlWriter> writer_;
  dml_internal::RowCopier copier_{plan_.schema.schema, target_.name};
};

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
  return result;
}

}  // namespace deltaguard
