// MergeRun's join (merge_run_internal.h): the source read and hashed on its ON keys,
// and each target batch probed against it; a target row matched by two source rows is
// an error unless the only clause is an unconditional MATCHED DELETE.

#include <arrow/util/bit_util.h>
#include <fmt/format.h>

#include <utility>

#include "deltaguard/dml/merge_run_internal.h"
#include "deltaguard/dml/merge_source_internal.h"
#include "deltaguard/exec/expr_eval.h"

namespace deltaguard::dml_internal {

Status MergeRun::ReadSource(BatchSource& source, int64_t memory_limit) {
  DELTA_ASSIGN_OR_RETURN(auto read, ReadMergeSource(source, plan_, memory_limit));
  spill_pool_ = std::move(read.pool);
  result_->source_spilled_bytes = read.spilled_bytes;
  DELTA_ASSIGN_OR_RETURN(source_, Qualified(read.batch, plan_.source_alias));
  result_->num_source_rows = source_->num_rows();
  source_matched_.assign(static_cast<size_t>(source_->num_rows()), 0);
  for (const auto& key : plan_.keys) {
    auto values = Evaluate(*key.source, *source_);
    if (!values) return WithContext(values.error(), "MERGE ON condition (source side)");
    source_keys_.push_back(std::move(*values));
  }
  return IndexSourceKeys();
}

// Hash table on the source keys (chained through next_): one integral key uses the
// IntegralKeyIndex, other keys their byte encoding in head_.
Status MergeRun::IndexSourceKeys() {
  if (plan_.keys.size() == 1 && IntegralKeyIndex::Supports(*source_keys_[0])) {
    int_index_.Build(*source_keys_[0], &next_);
    int_keys_ = true;
  } else if (!plan_.keys.empty()) {
    DELTA_ASSIGN_OR_RETURN(auto keys, EncodeKeys(source_keys_, source_->num_rows()));
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
Status MergeRun::Match(const std::shared_ptr<arrow::RecordBatch>& tq, const AddFile& file,
                       int64_t first_row, std::vector<int64_t>* match, bool* any_match) {
  const int64_t n = tq->num_rows();
  if (source_->num_rows() == 0) return OkStatus();
  std::vector<std::shared_ptr<arrow::Array>> target_keys;
  for (const auto& key : plan_.keys) {
    DELTA_ASSIGN_OR_RETURN(auto values, Evaluate(*key.target, *tq));
    target_keys.push_back(std::move(values));
  }
  BatchMatch m{
      match, any_match, std::vector<uint32_t>(static_cast<size_t>(n), 0), {}, {}};
  if (plan_.keys.empty()) {
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t s = 0; s < source_->num_rows(); ++s) {
        m.pt.push_back(r);
        m.ps.push_back(s);
        if (m.pt.size() >= kPairChunk) DELTA_RETURN_IF_ERROR(FlushPairs(tq, &m));
      }
    }
  } else if (int_keys_) {
    DELTA_RETURN_IF_ERROR(ProbeIntegral(tq, *target_keys[0], &m));
  } else {
    DELTA_RETURN_IF_ERROR(ProbeEncoded(tq, target_keys, &m));
  }
  DELTA_RETURN_IF_ERROR(FlushPairs(tq, &m));
  if (plan_.multiple_matches_allowed) return OkStatus();
  return CheckSingleMatch(m, file, first_row, target_keys);
}

// The pending pairs for which the ON residual holds become matches.
Status MergeRun::FlushPairs(const std::shared_ptr<arrow::RecordBatch>& tq,
                            BatchMatch* m) {
  if (m->pt.empty()) return OkStatus();
  std::vector<uint8_t> ok(m->pt.size(), 1);
  if (plan_.residual) {
    DELTA_ASSIGN_OR_RETURN(auto tcols, TakeRows(*tq, m->pt));
    DELTA_ASSIGN_OR_RETURN(auto scols, TakeRows(*source_, m->ps));
    auto joined = JoinColumns(*tq->schema(), std::move(tcols), *source_->schema(),
                              std::move(scols), static_cast<int64_t>(m->pt.size()));
    DELTA_ASSIGN_OR_RETURN(auto holds, EvaluatePredicate(*plan_.residual, *joined));
    for (size_t i = 0; i < m->pt.size(); ++i) {
      ok[i] = holds->IsValid(static_cast<int64_t>(i)) &&
              holds->Value(static_cast<int64_t>(i));
    }
  }
  for (size_t i = 0; i < m->pt.size(); ++i) {
    if (!ok[i]) continue;
    auto t = static_cast<size_t>(m->pt[i]);
    if (m->counts[t]++ == 0) (*m->match)[t] = m->ps[i];
    source_matched_[static_cast<size_t>(m->ps[i])] = 1;
    *m->any_match = true;
  }
  m->pt.clear();
  m->ps.clear();
  return OkStatus();
}

Status MergeRun::ProbeIntegral(const std::shared_ptr<arrow::RecordBatch>& tq,
                               const arrow::Array& column, BatchMatch* m) {
  // Both sides are bound to one common type, so the target key is integral too.
  if (!IntegralKeyIndex::Supports(column)) {
    return MakeError(ErrorCode::kInternal,
                     "MERGE into '{}': ON key types differ between target ({}) and "
                     "source",
                     target_.name, column.type()->ToString());
  }
  // Typed loop over the raw values: this runs once per target row of every rewritten
  // file, so no per-row type switch or IsNull call.
  const int64_t n = tq->num_rows();
  const uint8_t* valid = column.null_count() > 0 ? column.null_bitmap_data() : nullptr;
  auto probe = [&](const auto* values) -> Status {
    for (int64_t r = 0; r < n; ++r) {
      if (valid != nullptr && !arrow::bit_util::GetBit(valid, column.offset() + r))
        continue;
      const int64_t found = int_index_.Find(static_cast<int64_t>(values[r]));
      if (found < 0) continue;
      int64_t s = found & ~IntegralKeyIndex::kMore;
      m->pt.push_back(r);
      m->ps.push_back(s);
      // Only a key with more rows reads the chain (one cache miss less per hit).
      if (found & IntegralKeyIndex::kMore) {
        for (s = next_[static_cast<size_t>(s)]; s >= 0;
             s = next_[static_cast<size_t>(s)]) {
          m->pt.push_back(r);
          m->ps.push_back(s);
        }
      }
      if (m->pt.size() >= kPairChunk) DELTA_RETURN_IF_ERROR(FlushPairs(tq, m));
    }
    return OkStatus();
  };
  const arrow::ArrayData& data = *column.data();
  switch (column.type_id()) {
    case arrow::Type::INT8:
      return probe(data.GetValues<int8_t>(1));
    case arrow::Type::INT16:
      return probe(data.GetValues<int16_t>(1));
    case arrow::Type::INT32:
      return probe(data.GetValues<int32_t>(1));
    default:
      return probe(data.GetValues<int64_t>(1));
  }
}

Status MergeRun::ProbeEncoded(
    const std::shared_ptr<arrow::RecordBatch>& tq,
    const std::vector<std::shared_ptr<arrow::Array>>& target_keys, BatchMatch* m) {
  const int64_t n = tq->num_rows();
  DELTA_ASSIGN_OR_RETURN(auto keys, EncodeKeys(target_keys, n));
  for (int64_t r = 0; r < n; ++r) {
    const auto& key = keys[static_cast<size_t>(r)];
    if (!key) continue;
    auto it = head_.find(*key);
    if (it == head_.end()) continue;
    for (int64_t s = it->second; s >= 0; s = next_[static_cast<size_t>(s)]) {
      m->pt.push_back(r);
      m->ps.push_back(s);
    }
    if (m->pt.size() >= kPairChunk) DELTA_RETURN_IF_ERROR(FlushPairs(tq, m));
  }
  return OkStatus();
}

// A target row matched by two or more source rows: which one applies is ambiguous.
Status MergeRun::CheckSingleMatch(
    const BatchMatch& m, const AddFile& file, int64_t first_row,
    const std::vector<std::shared_ptr<arrow::Array>>& target_keys) {
  for (size_t r = 0; r < m.counts.size(); ++r) {
    if (m.counts[r] < 2) continue;
    std::vector<BoundExprRef> key_exprs;
    for (const auto& k : plan_.keys) key_exprs.push_back(k.target);
    const auto row = static_cast<int64_t>(r);
    std::string key = key_exprs.empty() ? fmt::format("row {}", first_row + row + 1)
                                        : DescribeKey(key_exprs, target_keys, row);
    return MakeError(
        ErrorCode::kInvalidArgument,
        "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE: MERGE into '{}': the "
        "target row with {} (file {}) is matched by {} source rows; a MERGE may update "
        "or delete each target row only once, and which source row should apply is "
        "ambiguous. Deduplicate the source on the ON keys. Nothing was written",
        target_.name, key, file.path, m.counts[r]);
  }
  return OkStatus();
}

}  // namespace deltaguard::dml_internal
