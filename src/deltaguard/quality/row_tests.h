/// \file deltaguard/quality/row_tests.h
/// The row tests of a suite (quality/data_tests.h: accepted_values, pattern, unique,
/// expression_is_true and a contract's row predicates) counted exactly over batches:
/// the rows breaking each, with up to five samples. `deltaguard check` feeds it the rows
/// a commit added; a write with `--check` feeds it every conformed batch through
/// RowTestObserver, in the same pass as the write.
#pragma once

#include <arrow/record_batch.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/quality/data_tests.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"
#include "deltaguard/write/commit_hooks.h"

namespace deltaguard {

/// The key of `row` over `arrays` (each value's text, length-prefixed), or nullopt when
/// a column is NULL there: NULLs never count as duplicates (dbt's `unique`, ODCS
/// duplicateValues).
std::optional<std::string> RowKey(const std::vector<const arrow::Array*>& arrays,
                                  int64_t row);

/// One row test's count.
struct RowTestCount {
  size_t test = 0;  ///< index into DataTestSuite::tests
  int64_t violating = 0;
  std::vector<std::string> samples;  ///< "{status: PARTIALLY_SHIPPED}"
};

class RowTestRunner {
 public:
  /// Binds the suite's row tests (not off) to `schema`, the batches' Delta schema.
  /// kInvalidArgument naming the tests file, the line and the table's columns for a
  /// test on a column the table does not have, or a predicate that does not bind.
  static Result<RowTestRunner> Make(const DataTestSuite& suite, const StructType& schema,
                                    std::string_view table);
  RowTestRunner(RowTestRunner&&) noexcept;
  RowTestRunner& operator=(RowTestRunner&&) noexcept;
  ~RowTestRunner();

  Status Add(const arrow::RecordBatch& batch);
  int64_t rows() const;
  std::vector<RowTestCount> Counts() const;

 private:
  struct Impl;
  explicit RowTestRunner(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// RowTestRunner as a batch observer of a write (write/commit_hooks.h); never changes
/// the batch. Safe from several threads.
class RowTestObserver final : public BatchObserver {
 public:
  explicit RowTestObserver(RowTestRunner runner) : runner_(std::move(runner)) {}
  std::string_view name() const override { return "data tests"; }
  Status OnBatch(std::shared_ptr<arrow::RecordBatch>* batch,
                 const BatchInfo& info) override;
  std::vector<RowTestCount> Counts();

 private:
  std::mutex mutex_;
  RowTestRunner runner_;
};

}  // namespace deltaguard
