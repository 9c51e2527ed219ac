/// \file deltaguard/write/enforcement.h
/// The write's own row checks as enforcement hooks of the commit funnel
/// (commit_hooks.h): CHECK constraints, invariants, NOT NULL and CHAR/VARCHAR limits of
/// the table after the write (exec/constraint_checker.h), and replaceWhere's rule that
/// every row written satisfies the predicate (replace_where.h). Both leave the batch
/// as it is; their errors name the constraint and the row.
#pragma once

#include <memory>
#include <string_view>

#include "deltaguard/exec/constraint_checker.h"
#include "deltaguard/util/result.h"
#include "deltaguard/write/commit_hooks.h"
#include "deltaguard/write/replace_where.h"

namespace deltaguard {

class ConstraintEnforcement final : public BatchObserver {
 public:
  /// The checker of `metadata`'s constraints over `schema` (ConstraintChecker::Make).
  static Result<std::shared_ptr<ConstraintEnforcement>> Make(const Metadata& metadata,
                                                             const StructType& schema,
                                                             std::string_view table);
  std::string_view name() const override { return "constraints"; }
  Status OnBatch(std::shared_ptr<arrow::RecordBatch>* batch,
                 const BatchInfo& info) override;

 private:
  explicit ConstraintEnforcement(ConstraintChecker checker)
      : checker_(std::move(checker)) {}
  ConstraintChecker checker_;
};

class ReplaceWhereCheck final : public BatchObserver {
 public:
  explicit ReplaceWhereCheck(const ReplaceWhere* predicate) : predicate_(predicate) {}
  std::string_view name() const override { return "replaceWhere"; }
  Status OnBatch(std::shared_ptr<arrow::RecordBatch>* batch,
                 const BatchInfo& info) override;

 private:
  const ReplaceWhere* predicate_;  // owned by the write's plan
};

}  // namespace deltaguard
