/// \file deltaguard/sql/query_aggregate_internal.h
/// The accumulator interface of GROUP BY (sql only): query_aggregate.cc holds count,
/// sum/avg, min/max and the DISTINCT wrapper; query_aggregate_library.cc the aggregate
/// library (expr/binder_aggregates.cc names its functions and result types).
#pragma once

#include <arrow/api.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "deltaguard/expr/binder.h"
#include "deltaguard/util/result.h"

namespace deltaguard::query_internal {

using ArrayRef = std::shared_ptr<arrow::Array>;
using Arrays = std::vector<ArrayRef>;

/// One aggregate call over every group. Invariant: group ids are dense (0 ..
/// num_groups-1) and only grow between calls; Finish gives one value per group in id
/// order, with the call's Arrow result type.
class Accumulator {
 public:
  virtual ~Accumulator() = default;
  /// `args` are the evaluated arguments (none for count(*)); `ids[r]` is row r's group.
  virtual Status Consume(const Arrays& args, const uint32_t* ids, int64_t rows,
                         uint32_t num_groups) = 0;
  virtual Result<ArrayRef> Finish(uint32_t num_groups) = 0;
};

/// Rows where every argument is non-null (count(a, b) counts those).
bool AllValid(const Arrays& args, int64_t row);

/// The accumulator of a library aggregate (`agg.name` canonical), or null when `agg`
/// is not one.
Result<std::unique_ptr<Accumulator>> MakeLibraryAccumulator(const BoundExpr& agg);
/// The accumulator of any aggregate call (count, sum, try_sum, the library; DISTINCT).
Result<std::unique_ptr<Accumulator>> MakeAccumulator(const BoundExpr& agg);

}  // namespace deltaguard::query_internal
