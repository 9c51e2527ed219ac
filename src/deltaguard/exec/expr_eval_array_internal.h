/// \file deltaguard/exec/expr_eval_array_internal.h
/// Helpers of the array kernels (expr_eval_array_more.cc, expr_eval_array_set.cc): a
/// result list is the positions it picks from one values array, built with one take.
#pragma once

#include <arrow/array.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "deltaguard/exec/expr_eval_library_internal.h"

namespace deltaguard::internal {

/// The rows of a result list: row r holds the elements at positions idx[offsets[r] ..
/// offsets[r + 1]) of one values array; valid[r] is false for a NULL row.
struct Picks {
  std::vector<int64_t> idx;
  std::vector<int32_t> offsets{0};
  std::vector<bool> valid;
  void EndRow(bool is_valid) {
    offsets.push_back(static_cast<int32_t>(idx.size()));
    valid.push_back(is_valid);
  }
  void NullRow() { EndRow(false); }
};

/// The call's rows: the batch's, or one when every argument is a scalar.
int64_t Rows(const LibraryCall& c);
/// Argument i as a list array of Rows(c) rows.
Result<std::shared_ptr<arrow::ListArray>> ListOf(const LibraryCall& c, size_t i);
/// `v` as an INT64 array (NULL where `valid` says so).
Result<std::shared_ptr<arrow::Array>> Int64s(const LibraryCall& c,
                                             const std::vector<int64_t>& v,
                                             const std::vector<bool>* valid = nullptr);
/// The list (of the call's result type) that `p` picks from `values`.
Result<arrow::Datum> FinishPicks(const LibraryCall& c,
                                 const std::shared_ptr<arrow::Array>& values,
                                 const Picks& p);

std::vector<KernelEntry> ArrayListKernels();
std::vector<KernelEntry> ArraySetKernels();

}  // namespace deltaguard::internal
