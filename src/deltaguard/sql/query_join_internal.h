/// \file deltaguard/sql/query_join_internal.h
/// The join's execution (query_join_exec.cc) as its planning (query_join.cc) fixes it.
/// Internal to sql/.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "deltaguard/sql/query_internal.h"

namespace deltaguard::query_internal {

// What the join reader needs, fixed at planning.
struct JoinSpec {
  JoinClause::Type type = JoinClause::Type::kInner;
  std::vector<BoundExprRef> left_keys, right_keys;  // over each side's schema
  std::vector<std::shared_ptr<arrow::DataType>> key_types;
  BoundExprRef residual;  // over the pairs schema (left then right), may be null
  std::shared_ptr<arrow::Schema> pairs_schema;
  std::shared_ptr<arrow::Schema> output_schema;
  // Output columns: USING columns (left index, right index), then left, then right.
  std::vector<std::pair<int, int>> using_columns;
  bool keep_right = true;  // not for SEMI/ANTI
  int64_t now_micros = 0;
};

/// The key values of `batch` (one side's `exprs`) in the keys' common types.
Result<std::vector<arrow::Datum>> JoinKeys(const JoinSpec& spec,
                                           const std::vector<BoundExprRef>& exprs,
                                           const arrow::RecordBatch& batch);

/// Reads the join: `right` (the whole right side) is grouped by its keys, then `left`
/// streams through (docs/sql.md "Joins").
Result<ReaderRef> OpenJoinReader(std::shared_ptr<const JoinSpec> spec, ReaderRef left,
                                 BatchRef right);

/// The join when its right side did not fit the statement's budget (`right` spilled,
/// docs/sql.md "Memory and spilling"). With equality keys, a grace hash join: both
/// sides are dealt to spill partitions by a hash of their keys, then each partition
/// is joined by OpenJoinReader with only its share of the right side in RAM (rows with
/// a NULL key go to some partition and match nothing there, as anywhere). Without
/// keys, the nested loop reads the mapped right side.
Result<ReaderRef> OpenSpilledJoin(std::shared_ptr<const JoinSpec> spec, ReaderRef left,
                                  std::vector<BatchRef> right, int64_t right_bytes,
                                  const QueryMemoryRef& memory);

}  // namespace deltaguard::query_internal
