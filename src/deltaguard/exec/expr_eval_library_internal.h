/// \file deltaguard/exec/expr_eval_library_internal.h
/// The function library's kernels (BoundFn::kLibrary, signatures in
/// expr/binder_library.cc), shared by expr_eval_library.cc (the kernel table and the
/// string kernels), expr_eval_regex.cc, expr_eval_datetime.cc, expr_eval_math.cc and
/// expr_eval_hash.cc, expr_eval_array.cc, expr_eval_json.cc, expr_eval_format.cc,
/// expr_eval_timezone.cc and expr_eval_map.cc. Arguments arrive
/// evaluated and already cast as the signature says, so a kernel reads each argument as
/// one Arrow type: STRING utf8, BINARY binary, INT int32, BIGINT int64, DOUBLE float64,
/// DATE date32, TIMESTAMP timestamp[us, UTC], BOOLEAN bool.
#pragma once

#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/compute/api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/exec/expr_eval_internal.h"

namespace deltaguard::internal {

/// One library call over one batch.
struct LibraryCall {
  const BoundExpr& e;
  const std::vector<arrow::Datum>& args;
  int64_t length;      ///< the batch's rows
  int64_t now_micros;  ///< the statement's current_timestamp
  bool all_scalar() const;
  /// The string literal argument `i` (signature letter 's').
  const std::string& StrLiteral(size_t i) const;
  int64_t IntLiteral(size_t i) const;
};

using Kernel = Result<arrow::Datum> (*)(const LibraryCall& call);
struct KernelEntry {
  std::string_view name;  ///< the canonical name (binder_library.cc)
  Kernel kernel;
};

/// An argument read row by row: an array, or a scalar that repeats.
class ArgRows {
 public:
  static Result<ArgRows> Of(const arrow::Datum& d);
  bool IsNull(int64_t i) const { return array_->IsNull(scalar_ ? 0 : i); }
  /// utf8 or binary.
  std::string_view Str(int64_t i) const;
  /// int32, int64, date32 or timestamp.
  int64_t Int(int64_t i) const;
  double Dbl(int64_t i) const;
  bool Bool(int64_t i) const;
  /// The list array when the argument is an ARRAY (its row i is at Row(i)), else null.
  const arrow::ListArray* List() const {
    return array_->type_id() == arrow::Type::LIST
               ? static_cast<const arrow::ListArray*>(array_.get())
               : nullptr;
  }
  int64_t Row(int64_t i) const { return scalar_ ? 0 : i; }

 private:
  std::shared_ptr<arrow::Array> array_;
  bool scalar_ = false;
};

/// Argument `d` as an array of `rows` values (a scalar repeated).
Result<std::shared_ptr<arrow::Array>> ArgArray(const LibraryCall& call,
                                               const arrow::Datum& d, int64_t rows);
/// Every argument as an array: of the batch's rows, or of one row when every argument
/// is a scalar (then Shaped makes the result a scalar again).
Result<std::vector<std::shared_ptr<arrow::Array>>> ArgArrays(const LibraryCall& call);
/// `out`, one value per row, as the call's result: a scalar when every argument is.
Result<arrow::Datum> Shaped(const LibraryCall& call,
                            const std::shared_ptr<arrow::Array>& out);

/// Rows of every argument.
Result<std::vector<ArgRows>> RowsOf(const LibraryCall& call);

/// Builds the call's result row by row: `fn(i, builder)` appends row i. With `strict`
/// a row with any NULL argument is NULL without calling `fn` (most functions).
/// A scalar result when every argument is a scalar.
template <typename Builder, typename Fn>
Result<arrow::Datum> MapRows(const LibraryCall& call, bool strict, Fn&& fn) {
  DELTA_ASSIGN_OR_RETURN(std::vector<ArgRows> rows, RowsOf(call));
  DELTA_ASSIGN_OR_RETURN(auto type, ArrowTypeOf(*call.e.type));
  std::unique_ptr<arrow::ArrayBuilder> base;
  auto st = arrow::MakeBuilder(arrow::default_memory_pool(), type, &base);
  if (!st.ok()) return EvalError(st, call.e.name, *call.e.type);
  auto& b = static_cast<Builder&>(*base);
  const int64_t n = call.all_scalar() ? 1 : call.length;
  st = b.Reserve(n);
  for (int64_t i = 0; st.ok() && i < n; ++i) {
    bool null = false;
    if (strict) {
      for (const auto& r : rows) null = null || r.IsNull(i);
    }
    if (null) {
      st = b.AppendNull();
      continue;
    }
    DELTA_RETURN_IF_ERROR(fn(rows, i, b));
  }
  std::shared_ptr<arrow::Array> out;
  if (st.ok()) st = b.Finish(&out);
  if (!st.ok()) return EvalError(st, call.e.name, *call.e.type);
  return Shaped(call, out);
}

/// An Arrow append's status as ours.
Status Appended(const arrow::Status& st, const LibraryCall& call);

/// An Arrow compute function over the call's arguments (errors name the call).
Result<arrow::Datum> CallArrow(const LibraryCall& call, const std::string& fn,
                               const std::vector<arrow::Datum>& args,
                               const arrow::compute::FunctionOptions* opts = nullptr);

// The kernel tables of each family.
std::vector<KernelEntry> StringKernels();
std::vector<KernelEntry> DatetimeKernels();
std::vector<KernelEntry> MathKernels();
std::vector<KernelEntry> HashKernels();
std::vector<KernelEntry> ArrayKernels();
std::vector<KernelEntry> JsonKernels();
std::vector<KernelEntry> FormatKernels();
std::vector<KernelEntry> TimezoneKernels();
std::vector<KernelEntry> MapKernels();

/// Wall times `local` (timestamp micros read as fields) in the zone `zone` (as Spark
/// names zones) as UTC instants (expr_eval_timezone.cc).
Result<std::shared_ptr<arrow::Array>> LocalToUtc(
    const LibraryCall& c, const std::shared_ptr<arrow::Array>& local,
    std::string_view zone);

/// Runs the library function `call.e.name`.
Result<arrow::Datum> CallLibrary(const LibraryCall& call);

}  // namespace deltaguard::internal
