/// \file deltaguard/table/write_routed_internal.h
/// WriteTable with its row routing replaced, for quarantine (quarantine.h), and the
/// input-file sources WriteFiles and quarantine share. Not part of the public API.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "deltaguard/exec/input_source.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"
#include "deltaguard/write/commit_hooks.h"
#include "deltaguard/write/write_types.h"

namespace deltaguard {
class CommitCheck;
}  // namespace deltaguard

namespace deltaguard::table_internal {

/// How a write routes its rows. Default (all unset): WriteTable's own enforcement.
struct RoutedWrite {
  /// Rows are conformed to this schema (the table's with NOT NULL relaxed) so that
  /// violating rows reach the router instead of failing the conformer.
  SchemaRef conform_schema;
  /// Makes the enforcement hook that replaces the constraint check; it gets the table
  /// schema its output batches must have. Runs before any row is read.
  std::function<Result<std::shared_ptr<BatchObserver>>(const SchemaRef& table_schema)>
      make_router;
  /// Runs once every row is staged and the removes decided, right before the table's
  /// commit (quarantine commits its table here); an error fails the write and removes
  /// the staged files.
  std::function<Status()> before_commit;
  /// The router checks the contract's row rules (ContractRowConstraints), so
  /// conforming to the contract lets rows breaking them through to it.
  bool routes_contract_rows = false;
  /// The write's data tests, made by the router's owner (quarantine routes their row
  /// tests); null: WriteTable makes them from WriteOptions::check.
  std::shared_ptr<CommitCheck> check;
  /// With CheckFailureAction::kQuarantine: a test of the whole batch failed, so every
  /// row read (the routed ones included) goes to the quarantine table with `reason`,
  /// and the table is not committed.
  std::function<Status(const std::string& reason)> hold_batch;
};

/// One source per input file (already expanded), each inspected now (schema known up
/// front) and opened when read; shared by WriteFiles and quarantine.
Result<std::vector<BatchSource>> FileSources(const std::vector<std::string>& files,
                                             const InputOptions& input_options);

/// WriteTable (write.h) with `routed` applied.
Result<WriteResult> WriteTableRouted(FileSystemRef fs, const std::string& path,
                                     std::vector<BatchSource> sources,
                                     const WriteOptions& options,
                                     const SessionSettings& session,
                                     const RoutedWrite& routed);

}  // namespace deltaguard::table_internal
