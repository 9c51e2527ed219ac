// WriteFilesWithQuarantine (quarantine.h): split the inputs by the table's constraints in
// one pass, commit the violating rows to the quarantine table first, then the good rows.

#include "deltaguard/table/quarantine.h"

#include <arrow/builder.h>
#include <arrow/record_batch.h>
#include <arrow/util/byte_size.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>

#include "deltaguard/arrow/status.h"
#include "deltaguard/constraints/constraints.h"
#include "deltaguard/exec/batch_conformer.h"
#include "deltaguard/exec/constraint_checker.h"
#include "deltaguard/quality/commit_check.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/write_routed_internal.h"
#include "deltaguard/write/commit_hooks.h"
#include "deltaguard/write/contract_write.h"
#include "deltaguard/write/table_state.h"

namespace deltaguard {
namespace {

// The good rows a quarantine write keeps in memory in case a data test of the whole
// batch fails (docs/data_tests.md "At commit time").
constexpr int64_t kMaxHeldBytes = int64_t{1} << 30;

int64_t Now() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The table schema with every column nullable, and every field of the structs nested in
// it: NULLs in NOT NULL fields must reach the split (as the kNotNull constraints of
// NotNullConstraints) instead of failing the conformer. NOT NULL inside arrays and maps
// stays, so such a NULL still fails the write.
std::vector<StructField> RelaxedFields(const StructType& st) {
  std::vector<StructField> fields = st.fields();
  for (auto& f : fields) {
    f.nullable = true;
    if (f.type->kind() == TypeKind::kStruct) {
      f.type = std::make_shared<const StructType>(
          RelaxedFields(static_cast<const StructType&>(*f.type)));
    }
  }
  return fields;
}

SchemaRef Relaxed(const StructType& schema) {
  return std::make_shared<const StructType>(RelaxedFields(schema));
}

// The row rules of the contract the write follows (a bronze one has none), then the
// row tests of the write's data tests (quarantine on check failure), then the
// table's NOT NULL columns, then its other constraints. Contract rules come first so a
// row breaking a rule `contract apply` also made a CHECK constraint is named by the
// contract's rule.
Result<ConstraintChecker> MakeChecker(const Snapshot& snapshot, const std::string& path,
                                      const Contract* contract,
                                      const std::string& contract_object,
                                      const std::vector<Constraint>& tests) {
  std::vector<BoundConstraint> bound;
  if (contract != nullptr && contract->layer != MedallionLayer::kBronze) {
    DELTA_ASSIGN_OR_RETURN(const ContractObject* object,
                           contract->Object(contract_object));
    for (const Constraint& c : ContractRowConstraints(*contract, *object)) {
      auto b = BindConstraint(c, *snapshot.schema());
      if (!b) {
        return WithContext(b.error(),
                           fmt::format("{} against table '{}'", c.Describe(), path));
      }
      bound.push_back(std::move(*b));
    }
  }
  for (const Constraint& c : tests) {
    auto b = BindConstraint(c, *snapshot.schema());
    if (!b) {
      return WithContext(b.error(),
                         fmt::format("{} against table '{}'", c.Describe(), path));
    }
    bound.push_back(std::move(*b));
  }
  for (const Constraint& c : NotNullConstraints(*snapshot.schema())) {
    DELTA_ASSIGN_OR_RETURN(BoundConstraint b, BindConstraint(c, *snapshot.schema()));
    bound.push_back(std::move(b));
  }
  DELTA_ASSIGN_OR_RETURN(auto rest,
                         BindAllConstraints(snapshot.metadata(), *snapshot.schema()));
  for (auto& b : rest) bound.push_back(std::move(b));
  DELTA_ASSIGN_OR_RETURN(auto limits, CharVarcharLimits(*snapshot.schema()));
  return ConstraintChecker(std::move(bound), std::move(limits), path);
}

// The enforcement hook of a quarantine write (commit_hooks.h): splits each batch
// (conformed to the relaxed schema) by the table's constraints, keeps the violating
// rows for the quarantine table and hands the good ones on in the table's schema.
class QuarantineRouter final : public BatchObserver {
 public:
  QuarantineRouter(std::shared_ptr<const ConstraintChecker> checker,
                   SchemaRef table_schema, std::string table, int64_t now)
      : checker_(std::move(checker)),
        table_schema_(std::move(table_schema)),
        table_(std::move(table)),
        now_(now) {}

  std::string_view name() const override { return "quarantine"; }

  Status OnBatch(std::shared_ptr<arrow::RecordBatch>* batch,
                 const BatchInfo& info) override {
    DELTA_ASSIGN_OR_RETURN(SplitBatch split, checker_->Split(*batch, now_));
    good_rows_ += split.good->num_rows();
    if (split.num_violating > 0) Keep(split);
    if (split.good->num_rows() == 0) {
      *batch = split.good;  // empty: not staged
      return OkStatus();
    }
    // The good rows satisfy NOT NULL; give them the table's (strict) schema. NOT NULL
    // inside arrays and maps is not routed and still fails here.
    if (!strict_ || !strict_input_->Equals(*split.good->schema())) {
      DELTA_ASSIGN_OR_RETURN(strict_,
                             BatchConformer::Make(table_schema_, split.good->schema(),
                                                  ConformOptions{false, table_}));
      strict_input_ = split.good->schema();
    }
    DELTA_ASSIGN_OR_RETURN(*batch, strict_->Conform(*split.good, info.first_row));
    if (hold_ && !held_overflow_) {
      held_bytes_ += arrow::util::TotalBufferSize(**batch);
      if (held_bytes_ > kMaxHeldBytes) {
        held_overflow_ = true;
        held_.clear();
      } else {
        held_.push_back(*batch);
      }
    }
    return OkStatus();
  }
  /// Keep the good batches too (up to kMaxHeldBytes), in case a data test of the
  /// whole batch fails and the batch is held in the quarantine table.
  void HoldGoodRows() { hold_ = true; }
  bool held_overflow() const { return held_overflow_; }
  std::vector<std::shared_ptr<arrow::RecordBatch>>& held() { return held_; }

  int64_t good_rows() const { return good_rows_; }
  int64_t quarantined_rows() const { return quarantined_rows_; }
  std::vector<std::shared_ptr<arrow::RecordBatch>>& violating() { return violating_; }
  const std::vector<std::pair<std::string, int64_t>>& by_constraint() const {
    return by_constraint_;
  }

 private:
  void Keep(const SplitBatch& split) {
    quarantined_rows_ += split.num_violating;
    const auto& names =
        split.violating->GetColumnByName(std::string(kQuarantineConstraintColumn));
    const auto& strings = static_cast<const arrow::StringArray&>(*names);
    for (int64_t i = 0; i < strings.length(); ++i) {
      std::string name(strings.GetView(i));
      bool found = false;
      for (auto& [n, count] : by_constraint_) {
        if (n == name) {
          ++count;
          found = true;
          break;
        }
      }
      if (!found) by_constraint_.emplace_back(std::move(name), 1);
    }
    violating_.push_back(split.violating);
  }

  std::shared_ptr<const ConstraintChecker> checker_;
  SchemaRef table_schema_;
  std::string table_;
  int64_t now_;
  std::unique_ptr<BatchConformer> strict_;
  std::shared_ptr<arrow::Schema> strict_input_;  // the schema strict_ was made for
  int64_t good_rows_ = 0;
  int64_t quarantined_rows_ = 0;
  std::vector<std::shared_ptr<arrow::RecordBatch>> violating_;
  std::vector<std::pair<std::string, int64_t>> by_constraint_;
  bool hold_ = false;
  bool held_overflow_ = false;
  int64_t held_bytes_ = 0;
  std::vector<std::shared_ptr<arrow::RecordBatch>> held_;
};

// Commit the violating rows to the quarantine table (created when absent).
Result<WriteResult> WriteQuarantine(const FileSystemRef& fs, const std::string& qpath,
                                    const StructType& table_schema,
                                    std::vector<std::shared_ptr<arrow::RecordBatch>> rows,
                                    const SessionSettings& session, bool* created) {
  DELTA_ASSIGN_OR_RETURN(std::string root, NormalizeTablePath(qpath));
  DELTA_ASSIGN_OR_RETURN(SnapshotRef existing, internal::LoadIfExists(fs, root));
  if (!existing) {
    CreateTableOptions create;
    DELTA_ASSIGN_OR_RETURN(create.schema, QuarantineSchema(table_schema));
    create.description = "rows quarantined by deltaguard write --on-violation";
    DELTA_ASSIGN_OR_RETURN(WriteResult made, CreateTable(fs, qpath, create, session));
    (void)made;
    *created = true;
  }
  // Violating rows carry the relaxed schema, held good rows the strict one: one
  // source per schema, all in one commit.
  std::vector<std::vector<std::shared_ptr<arrow::RecordBatch>>> groups;
  for (auto& batch : rows) {
    auto same = std::find_if(groups.begin(), groups.end(), [&](const auto& g) {
      return g.front()->schema()->Equals(*batch->schema());
    });
    if (same == groups.end()) {
      groups.push_back({std::move(batch)});
    } else {
      same->push_back(std::move(batch));
    }
  }
  std::vector<BatchSource> sources;
  for (auto& group : groups) {
    auto schema = group.front()->schema();
    DELTA_ARROW_ASSIGN_OR_RETURN(auto reader,
                                 arrow::RecordBatchReader::Make(std::move(group), schema),
                                 ErrorCode::kInternal, "quarantine rows");
    sources.push_back(SourceFromReader("quarantined rows", std::move(reader)));
  }
  WriteOptions options;
  options.mode = WriteMode::kAppend;
  options.merge_schema = false;
  options.operation = "WRITE";
  return WriteTable(fs, qpath, std::move(sources), options, session);
}

// The first write of a table: nothing to route, so failing data tests fail it.
WriteOptions FirstWriteOptions(WriteOptions options) {
  if (options.check && options.check->on_failure == CheckFailureAction::kQuarantine) {
    options.check->on_failure = CheckFailureAction::kFail;
  }
  return options;
}

/// Checks shared by both entry points; loads the table (null when it does not exist).
Result<SnapshotRef> PrepareQuarantine(const FileSystemRef& fs, const std::string& path,
                                      const WriteOptions& options,
                                      const std::string& quarantine_path,
                                      const SessionSettings& session) {
  DELTA_ASSIGN_OR_RETURN(std::string root, NormalizeTablePath(path));
  DELTA_ASSIGN_OR_RETURN(std::string qroot, NormalizeTablePath(quarantine_path));
  if (root == qroot) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the quarantine table '{}' must differ from the table '{}'",
                     quarantine_path, path);
  }
  if (options.overwrite_schema || options.merge_schema.value_or(session.auto_merge)) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        "writing to '{}' with quarantine: schema evolution (merge or "
        "overwrite schema) cannot be combined with --on-violation quarantine "
        "(rows are checked against the table's current schema)",
        path);
  }
  return internal::LoadIfExists(fs, root);
}

/// The routed write of `sources` into the existing table `snapshot`.
Result<QuarantineWriteResult> RouteAndWrite(
    const FileSystemRef& fs, const std::string& path, const SnapshotRef& snapshot,
    std::vector<BatchSource> sources, const WriteOptions& options,
    const std::string& quarantine_path, const SessionSettings& session,
    int64_t now_micros) {
  QuarantineWriteResult result;
  const int64_t now = now_micros >= 0 ? now_micros : Now();
  result.quarantined_at_micros = now;
  DELTA_ASSIGN_OR_RETURN(auto contract,
                         ContractForWrite(snapshot.get(), options.contract));
  // Data tests: with quarantine on their failure, their row tests are routed too.
  std::shared_ptr<CommitCheck> check;
  std::vector<Constraint> row_tests;
  const bool hold =
      options.check && options.check->on_failure == CheckFailureAction::kQuarantine;
  if (options.check) {
    DELTA_ASSIGN_OR_RETURN(std::string root, NormalizeTablePath(path));
    DELTA_ASSIGN_OR_RETURN(check, CommitCheck::Make(fs, root, path, *options.check, true,
                                                    *snapshot->schema()));
    if (hold) row_tests = check->RowConstraints();
  }
  DELTA_ASSIGN_OR_RETURN(
      ConstraintChecker made,
      MakeChecker(*snapshot, path, contract.get(), options.contract_object, row_tests));
  auto checker = std::make_shared<const ConstraintChecker>(std::move(made));

  // One pass: every batch is conformed to the relaxed schema and split by the router;
  // the good rows are staged for the table, the violating ones held in memory. Once all
  // are read, the quarantine commit comes first, then the table's (see quarantine.h).
  std::shared_ptr<QuarantineRouter> router;
  table_internal::RoutedWrite routed;
  routed.conform_schema = Relaxed(*snapshot->schema());
  routed.routes_contract_rows = true;
  routed.make_router =
      [&](const SchemaRef& table_schema) -> Result<std::shared_ptr<BatchObserver>> {
    router = std::make_shared<QuarantineRouter>(checker, table_schema, path, now);
    if (hold) router->HoldGoodRows();
    return std::shared_ptr<BatchObserver>(router);
  };
  routed.check = check;
  routed.hold_batch = [&](const std::string& reason) -> Status {
    result.good_rows = 0;
    result.quarantined_rows = router->good_rows() + router->quarantined_rows();
    result.by_constraint = router->by_constraint();
    result.by_constraint.emplace_back(reason, router->good_rows());
    if (router->held_overflow()) {
      return MakeError(
          ErrorCode::kConstraintViolation,
          "DATA_TEST_FAILED: the write to '{}' committed nothing: {} failed, "
          "and the batch is larger than the {} MiB quarantine holds in "
          "memory, so it was not held in '{}' either; rerun with "
          "--on-check-failure fail or warn, or in smaller batches",
          path, reason, kMaxHeldBytes >> 20, quarantine_path);
    }
    std::vector<std::shared_ptr<arrow::RecordBatch>> rows =
        std::move(router->violating());
    for (const auto& good : router->held()) {
      DELTA_ASSIGN_OR_RETURN(
          auto with_reason,
          WithQuarantineColumns(
              good,
              std::vector<std::string>(static_cast<size_t>(good->num_rows()), reason),
              now));
      rows.push_back(std::move(with_reason));
    }
    if (rows.empty()) return OkStatus();
    auto written = WriteQuarantine(fs, quarantine_path, *snapshot->schema(),
                                   std::move(rows), session, &result.quarantine_created);
    if (!written) {
      return WithContext(written.error(),
                         fmt::format("holding the batch in the quarantine table '{}' "
                                     "(nothing was written to '{}')",
                                     quarantine_path, path));
    }
    result.quarantine = std::move(*written);
    return OkStatus();
  };
  routed.before_commit = [&]() -> Status {
    result.good_rows = router->good_rows();
    result.quarantined_rows = router->quarantined_rows();
    result.by_constraint = router->by_constraint();
    if (router->violating().empty()) return OkStatus();
    auto written = WriteQuarantine(fs, quarantine_path, *snapshot->schema(),
                                   std::move(router->violating()), session,
                                   &result.quarantine_created);
    if (!written) {
      return WithContext(
          written.error(),
          fmt::format("quarantine table '{}' (nothing was written to '{}')",
                      quarantine_path, path));
    }
    result.quarantine = std::move(*written);
    return OkStatus();
  };
  auto written = table_internal::WriteTableRouted(fs, path, std::move(sources), options,
                                                  session, routed);
  if (!written) {
    if (result.quarantine) {
      return WithContext(
          written.error(),
          fmt::format(
              "writing the good rows to '{}' failed after {} violating rows were "
              "committed to the quarantine table '{}' (version {}); the good rows "
              "are still in the inputs: rerunning the write loses no row but "
              "quarantines those rows again",
              path, result.quarantined_rows, quarantine_path,
              result.quarantine->version));
    }
    return written.error();
  }
  result.table = std::move(*written);
  return result;
}

}  // namespace

Result<QuarantineWriteResult> WriteFilesWithQuarantine(
    FileSystemRef fs, const std::string& path, const std::vector<std::string>& inputs,
    InputOptions input_options, const WriteOptions& options,
    const std::string& quarantine_path, const SessionSettings& session,
    int64_t now_micros) {
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot,
                         PrepareQuarantine(fs, path, options, quarantine_path, session));
  if (!snapshot) {
    // No table yet: no constraints, nothing to quarantine (and no baseline: the data
    // tests' row tests fail the write instead).
    QuarantineWriteResult result;
    DELTA_ASSIGN_OR_RETURN(result.table, WriteFiles(fs, path, inputs, input_options,
                                                    FirstWriteOptions(options), session));
    result.good_rows = result.table.rows;
    return result;
  }
  if (!input_options.type_hint) input_options.type_hint = snapshot->schema();
  // Inspect every input before reading any (as WriteFiles does).
  DELTA_ASSIGN_OR_RETURN(auto files, ExpandInputPaths(inputs, input_options.fs));
  DELTA_ASSIGN_OR_RETURN(auto sources, table_internal::FileSources(files, input_options));
  return RouteAndWrite(fs, path, snapshot, std::move(sources), options, quarantine_path,
                       session, now_micros);
}

Result<QuarantineWriteResult> WriteWithQuarantine(
    FileSystemRef fs, const std::string& path, std::vector<BatchSource> sources,
    const WriteOptions& options, const std::string& quarantine_path,
    const SessionSettings& session, int64_t now_micros) {
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot,
                         PrepareQuarantine(fs, path, options, quarantine_path, session));
  if (!snapshot) {
    QuarantineWriteResult result;
    DELTA_ASSIGN_OR_RETURN(result.table, WriteTable(fs, path, std::move(sources),
                                                    FirstWriteOptions(options), session));
    result.good_rows = result.table.rows;
    return result;
  }
  return RouteAndWrite(fs, path, snapshot, std::move(sources), options, quarantine_path,
                       session, now_micros);
}

}  // namespace deltaguard
