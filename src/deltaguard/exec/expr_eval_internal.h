/// \file deltaguard/exec/expr_eval_internal.h
/// The evaluator behind exec/expr_eval.h, shared by its parts (exec only): the node
/// walk, column lookup and result conforming in expr_eval.cc; CAST and TRY_CAST in
/// expr_eval_cast.cc; CASE, IN and the n-ary folds of AND/OR/+/-/* in
/// expr_eval_logic.cc; the function calls in expr_eval_functions.cc. The semantics are
/// those listed in expr_eval.h.
#pragma once

#include <arrow/compute/api.h>
#include <arrow/record_batch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/exec/expr_eval.h"
#include "deltaguard/expr/binder.h"
#include "deltaguard/util/depth_guard.h"
#include "deltaguard/util/result.h"

namespace deltaguard::internal {

/// An Arrow failure of operator `what` as our error, with Spark's error-class names for
/// the two ANSI runtime errors users meet most (DIVIDE_BY_ZERO, ARITHMETIC_OVERFLOW).
Error EvalError(const arrow::Status& st, std::string_view what, const DataType& type);

/// The logical Arrow type of a Delta type (arrow/schema.h ToArrowType).
Result<std::shared_ptr<arrow::DataType>> ArrowTypeOf(const DataType& type);

/// A literal as an Arrow scalar of its type.
Result<std::shared_ptr<arrow::Scalar>> ToScalar(const LiteralValue& v);
/// The validity bitmap of `a`'s rows moved to offset 0 (nullptr without NULLs), for
/// an array rebuilt with offsets from 0 (expr_eval_cast.cc).
Result<std::shared_ptr<arrow::Buffer>> BitmapAtZero(const arrow::Array& a);

/// Evaluates one bound tree over one batch. Values are Arrow datums: a scalar for a
/// constant, an array of the batch's length otherwise.
class Evaluator {
 public:
  using Datum = arrow::Datum;

  Evaluator(const arrow::RecordBatch& batch, const EvalOptions& options);

  /// Recursion is held to kMaxBoundExprDepth (binder.cc bounds bound trees; the guard
  /// also holds trees built in code to that bound).
  Result<Datum> Eval(const BoundExpr& e);

 private:
  // expr_eval.cc
  Result<Datum> Call(const std::string& fn, const std::vector<Datum>& args,
                     const BoundExpr& e,
                     const arrow::compute::FunctionOptions* opts = nullptr);
  Result<Datum> Conform(const Datum& d, const BoundExpr& e);
  Result<Datum> Column(const BoundExpr& e);
  Result<Datum> TryCall(const BoundExpr& e);

  // expr_eval_cast.cc
  Result<Datum> CastOnce(const Datum& arg, const std::shared_ptr<arrow::DataType>& to,
                         const DataType& target);
  static Result<std::shared_ptr<arrow::Array>> AsArray(const Datum& d, int64_t length);
  static Result<Datum> Like(const std::shared_ptr<arrow::Array>& out, bool scalar);
  Result<Datum> SparkCastDatum(const Datum& arg, const DataType& target, bool try_cast);
  Result<Datum> Cast(const Datum& arg_in, const DataType& target, bool try_cast);
  Result<std::shared_ptr<arrow::Array>> CastNested(const arrow::Array& a,
                                                   const DataType& target, bool try_cast);
  template <typename ListArray>
  Result<std::shared_ptr<arrow::Array>> CastList(const ListArray& list,
                                                 const DataType& target, bool try_cast);

  // expr_eval_lambda.cc
  Result<Datum> HigherOrder(const BoundExpr& e);
  Result<Datum> ZipWith(const BoundExpr& e, const std::shared_ptr<arrow::ListArray>& a);
  Result<Datum> Aggregate(const BoundExpr& e,
                          const std::shared_ptr<arrow::ListArray>& list);
  /// `body` over a batch of `length` rows: the lambda columns `columns[i]` for i in
  /// `own` hold `vars[i]`, and the columns of this batch the body reads are taken
  /// at `rows` (one outer row per new row).
  Result<std::shared_ptr<arrow::Array>> RunLambda(
      const BoundExpr& body, const std::vector<size_t>& own,
      const std::vector<std::string>& columns,
      std::vector<std::shared_ptr<arrow::Array>> vars, const std::vector<int64_t>& rows,
      int64_t length);

  // expr_eval_logic.cc
  Result<Datum> Case(const BoundExpr& e);
  Result<Datum> FalseIfNull(const Datum& b, const BoundExpr& e);
  Result<std::vector<Datum>> Args(const BoundExpr& e);
  Result<Datum> Fold(const std::string& fn, const std::vector<Datum>& a,
                     const BoundExpr& e);
  Result<Datum> In(const BoundExpr& e);

  // expr_eval_functions.cc
  static int64_t IntLiteral(const BoundExpr& e) {
    return std::get<int64_t>(e.literal.value);
  }
  Result<Datum> Modulo(const std::vector<Datum>& a, const BoundExpr& e);
  Result<Datum> Divide(std::vector<Datum> a, const BoundExpr& e);
  Result<Datum> Round(const std::vector<Datum>& a, const BoundExpr& e);
  Result<Datum> Substring(const std::vector<Datum>& a, const BoundExpr& e);
  Result<Datum> FloorCeil(const std::vector<Datum>& a, const BoundExpr& e);
  Result<Datum> CallFn(const BoundExpr& e);

  const arrow::RecordBatch& batch_;
  int64_t now_micros_;
  RecursionBudget budget_{kMaxBoundExprDepth + 1};
};

}  // namespace deltaguard::internal
