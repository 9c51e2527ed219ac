// WriteTable: enforcement, evolution, data files, commit, checkpoint (write.h).

#include "deltaguard/table/write.h"

#include <arrow/array/builder_primitive.h>
#include <arrow/compute/api.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/drift/write_error.h"
#include "deltaguard/evolution/write_schema.h"
#include "deltaguard/exec/batch_conformer.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/protocol/column_mapping.h"
#include "deltaguard/protocol/table_properties.h"
#include "deltaguard/protocol/write_protocol.h"
#include "deltaguard/quality/commit_check.h"
#include "deltaguard/quality/profile_hook.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/table/profiles.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/table_drift.h"
#include "deltaguard/table/write_routed_internal.h"
#include "deltaguard/util/string_util.h"
#include "deltaguard/write/commit_funnel.h"
#include "deltaguard/write/contract_write.h"
#include "deltaguard/write/enforcement.h"
#include "deltaguard/write/replace_where.h"
#include "deltaguard/write/table_state.h"

namespace deltaguard {
namespace {

// The plan of one write, decided before any data is read.
struct WritePlan {
  SchemaRef schema;  // the table schema the rows are conformed to
  std::vector<std::string> partition_columns;
  ColumnMappingMode mode = ColumnMappingMode::kNone;
  std::optional<Metadata> new_metadata;  // set when the commit changes metadata
  std::optional<Protocol> new_protocol;  // set when the commit changes the protocol
  Metadata effective_metadata;           // metadata after the commit
  bool remove_all = false;               // overwrite: every live file goes
  std::unique_ptr<ReplaceWhere> replace_where;
};

Status CheckOptions(const WriteOptions& options, const std::string& path) {
  if (options.overwrite_schema && options.mode != WriteMode::kOverwrite) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "overwriteSchema on table '{}' needs mode overwrite (mode is {}); "
                     "it replaces the schema only together with the data",
                     path, WriteModeName(options.mode));
  }
  if (options.replace_where && options.mode != WriteMode::kOverwrite) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "replaceWhere on table '{}' needs mode overwrite (mode is {})", path,
                     WriteModeName(options.mode));
  }
  if (options.replace_where && options.overwrite_schema) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "overwriteSchema cannot be combined with replaceWhere on table "
                     "'{}': a partial overwrite keeps the rest of the table, so its "
                     "schema cannot be replaced (use mergeSchema to add columns)",
                     path);
  }
  if (options.txn_app_id.has_value() != options.txn_version.has_value()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "an idempotent write needs both txnAppId and txnVersion");
  }
  return OkStatus();
}

bool SameNames(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!EqualsIgnoreCase(a[i], b[i])) return false;
  }
  return true;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out + "]";
}

// With several inputs, a schema error says which one it is about.
Error InInput(Error e, const std::vector<std::string>& names, size_t i) {
  if (names.size() < 2) return e;
  return WithContext(std::move(e), fmt::format("input '{}'", names[i]));
}

bool SameProtocol(const Protocol& a, const Protocol& b) {
  return ActionToJson(Action(a)) == ActionToJson(Action(b));
}

// Input schemas in Delta types, one per source.
Result<std::vector<SchemaRef>> InputSchemas(const std::vector<BatchSource>& sources) {
  std::vector<SchemaRef> out;
  for (const auto& source : sources) {
    if (source.delta_schema) {
      out.push_back(source.delta_schema);
      continue;
    }
    auto schema = FromArrowSchema(*source.schema);
    if (!schema)
      return WithContext(schema.error(), fmt::format("input '{}'", source.name));
    out.push_back(std::move(*schema));
  }
  return out;
}

// A new table, or an existing one whose schema overwriteSchema replaces.
Result<WritePlan> PlanReplaceSchema(const std::vector<SchemaRef>& inputs,
                                    const std::vector<std::string>& names,
                                    const WriteOptions& options, bool merge,
                                    const Snapshot* snapshot, const std::string& path) {
  auto first = SchemaForNewTable(*inputs[0], path);
  if (!first) return InInput(first.error(), names, 0);
  SchemaRef schema = *first;
  for (size_t i = 1; i < inputs.size(); ++i) {
    WriteSchemaOptions so;
    so.merge_schema = merge;
    so.option_hint = options.merge_option_hint;
    auto resolved = ResolveWriteSchema(schema, *inputs[i], so, path);
    if (!resolved) return InInput(resolved.error(), names, i);
    schema = resolved->table_schema;
  }
  const Metadata* previous = snapshot ? &snapshot->metadata() : nullptr;
  const Protocol* previous_protocol = snapshot ? &snapshot->protocol() : nullptr;
  DELTA_ASSIGN_OR_RETURN(
      auto state, internal::PrepareNewTable(schema, options.partition_by,
                                            snapshot ? StringMap{} : options.properties,
                                            std::nullopt, std::nullopt, previous,
                                            previous_protocol, internal::NowMillis()));
  WritePlan plan;
  plan.schema = state.schema;
  plan.partition_columns = state.metadata.partition_columns;
  DELTA_ASSIGN_OR_RETURN(plan.mode, GetColumnMappingMode(state.metadata));
  plan.effective_metadata = state.metadata;
  plan.new_metadata = state.metadata;
  if (!previous_protocol || !SameProtocol(*previous_protocol, state.protocol)) {
    plan.new_protocol = state.protocol;
  }
  plan.remove_all = snapshot != nullptr;
  return plan;
}

// Append or overwrite into an existing table, keeping (or evolving) its schema.
Result<WritePlan> PlanExisting(const std::vector<SchemaRef>& inputs,
                               const std::vector<std::string>& names,
                               const WriteOptions& options, bool merge,
                               const Snapshot& snapshot, const std::string& path,
                               WriteResult* result) {
  const Metadata& metadata = snapshot.metadata();
  if (!options.partition_by.empty() &&
      !SameNames(options.partition_by, metadata.partition_columns)) {
    return MakeError(ErrorCode::kSchemaMismatch,
                     "DELTA_METADATA_MISMATCH: partition columns do not match the "
                     "partition columns of table '{}'. Given: {} Table: {}. To change "
                     "the partitioning, overwrite the table with overwriteSchema",
                     path, JoinNames(options.partition_by),
                     JoinNames(metadata.partition_columns));
  }
  WriteSchemaOptions so;
  so.merge_schema = merge;
  auto widening = metadata.GetConfig("delta.enableTypeWidening");
  so.allow_type_widening = widening && EqualsIgnoreCase(*widening, "true");
  so.option_hint = options.merge_option_hint;
  SchemaRef schema = snapshot.schema();
  bool changed = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto resolved_or = ResolveWriteSchema(schema, *inputs[i], so, path);
    if (!resolved_or) {
      // The refusal names the changes as `drift` classifies them (docs/drift.md).
      Error error =
          WithDriftChanges(resolved_or.error(), DriftSideFromMetadata(metadata, schema),
                           *inputs[i], TableDriftEvidence(snapshot));
      return InInput(std::move(error), names, i);
    }
    auto& resolved = *resolved_or;
    if (resolved.changed) changed = true;
    schema = resolved.table_schema;
    for (auto& c : resolved.added_columns) result->added_columns.push_back(std::move(c));
    for (auto& c : resolved.widened_columns)
      result->widened_columns.push_back(std::move(c));
    for (auto& c : resolved.missing_columns) {
      if (std::find(result->missing_columns.begin(), result->missing_columns.end(), c) ==
          result->missing_columns.end()) {
        result->missing_columns.push_back(std::move(c));
      }
    }
  }
  WritePlan plan;
  plan.partition_columns = metadata.partition_columns;
  plan.mode = snapshot.column_mapping_mode();
  plan.effective_metadata = metadata;
  if (changed) {
    DELTA_ASSIGN_OR_RETURN(auto evolved,
                           internal::EvolveTable(snapshot, metadata, std::move(schema)));
    schema = std::move(evolved.schema);
    plan.new_protocol = std::move(evolved.new_protocol);
    plan.effective_metadata = evolved.metadata;
    plan.new_metadata = std::move(evolved.metadata);
    result->schema_changed = true;
  }
  plan.schema = std::move(schema);
  plan.remove_all = options.mode == WriteMode::kOverwrite && !options.replace_where;
  return plan;
}

// Keep the rows the predicate does not select (FALSE or NULL).
Result<std::shared_ptr<arrow::RecordBatch>> RowsToKeep(
    const std::shared_ptr<arrow::RecordBatch>& batch,
    const arrow::BooleanArray& selected) {
  arrow::BooleanBuilder keep;
  DELTA_ARROW_RETURN_NOT_OK(keep.Reserve(selected.length()), ErrorCode::kInternal,
                            "replaceWhere");
  for (int64_t i = 0; i < selected.length(); ++i)
    keep.UnsafeAppend(!(selected.IsValid(i) && selected.Value(i)));
  std::shared_ptr<arrow::Array> mask;
  DELTA_ARROW_RETURN_NOT_OK(keep.Finish(&mask), ErrorCode::kInternal, "replaceWhere");
  DELTA_ARROW_ASSIGN_OR_RETURN(
      arrow::Datum kept, arrow::compute::Filter(arrow::Datum(batch), arrow::Datum(mask)),
      ErrorCode::kInternal, "replaceWhere");
  return kept.record_batch();
}

// For a data-column replaceWhere: read every live file; files whose rows all match are
// removed, files with some matching rows are removed and their other rows written
// again (through `writer`, conformed to the possibly evolved schema).
Status RewriteForReplaceWhere(const SnapshotRef& snapshot, const WritePlan& plan,
                              const std::string& path, CommitFunnel* funnel,
                              std::vector<const AddFile*>* removed, WriteResult* result) {
  for (const AddFile& add : snapshot->files()) {
    ScanOptions scan_options;
    scan_options.file_filter = [&add](const AddFile& f) { return &f == &add; };
    DELTA_ASSIGN_OR_RETURN(auto scan, TableScan::Make(snapshot, scan_options));
    DELTA_ASSIGN_OR_RETURN(auto conformer,
                           BatchConformer::Make(plan.schema, scan->output_schema(),
                                                ConformOptions{false, path}));
    std::vector<std::shared_ptr<arrow::RecordBatch>> kept;
    int64_t selected_rows = 0;
    int64_t total_rows = 0;
    while (true) {
      DELTA_ASSIGN_OR_RETURN(auto batch, scan->Next());
      if (!batch) break;
      DELTA_ASSIGN_OR_RETURN(auto conformed, conformer->Conform(*batch, total_rows));
      DELTA_ASSIGN_OR_RETURN(auto selected, plan.replace_where->Select(*conformed));
      int64_t n = 0;
      for (int64_t i = 0; i < selected->length(); ++i)
        n += selected->IsValid(i) && selected->Value(i);
      selected_rows += n;
      total_rows += batch->num_rows();
      if (n < batch->num_rows()) {
        DELTA_ASSIGN_OR_RETURN(auto rest, RowsToKeep(conformed, *selected));
        kept.push_back(std::move(rest));
      }
    }
    if (selected_rows == 0) continue;
    removed->push_back(&add);
    for (const auto& batch : kept) {
      DELTA_RETURN_IF_ERROR(funnel->WriteConformed(batch, BatchInfo{add.path, 0}));
    }
    result->rows_copied += total_rows - selected_rows;
  }
  return OkStatus();
}

}  // namespace

Result<WriteResult> WriteTable(FileSystemRef fs, const std::string& path,
                               std::vector<BatchSource> sources,
                               const WriteOptions& options,
                               const SessionSettings& session) {
  return table_internal::WriteTableRouted(std::move(fs), path, std::move(sources),
                                          options, session, {});
}

namespace table_internal {
namespace {

// The data tests of a write, when it asks for them (commit_check.h); a quarantine write
// made its own (it routes the row tests).
Result<std::shared_ptr<CommitCheck>> CheckForWrite(const FileSystemRef& fs,
                                                   const std::string& root,
                                                   const std::string& path,
                                                   const WriteOptions& options,
                                                   bool exists, const StructType& schema,
                                                   const RoutedWrite& routed) {
  if (!options.check) return std::shared_ptr<CommitCheck>();
  if (routed.check) return routed.check;
  if (options.check->on_failure == CheckFailureAction::kQuarantine) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "write to '{}': quarantine on a data-test failure goes through the "
                     "quarantine write (WriteWithQuarantine / WriteFilesWithQuarantine)",
                     path);
  }
  return CommitCheck::Make(fs, root, path, *options.check, exists, schema);
}

}  // namespace

Result<WriteResult> WriteTableRouted(FileSystemRef fs, const std::string& path,
                                     std::vector<BatchSource> sources,
                                     const WriteOptions& options,
                                     const SessionSettings& session,
                                     const RoutedWrite& routed) {
  DELTA_RETURN_IF_ERROR(CheckOptions(options, path));
  DELTA_ASSIGN_OR_RETURN(std::string root, NormalizeTablePath(path));
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot, internal::LoadIfExists(fs, root));
  WriteResult result;
  if (snapshot) {
    if (options.mode == WriteMode::kErrorIfExists) {
      return MakeError(ErrorCode::kAlreadyExists,
                       "DELTA_TABLE_ALREADY_EXISTS: table '{}' already exists (version "
                       "{}) and the write mode is error; use append or overwrite",
                       path, snapshot->version());
    }
    if (options.mode == WriteMode::kIgnore) {
      result.skipped = true;
      result.skipped_reason =
          fmt::format("table '{}' exists and the mode is ignore", path);
      return result;
    }
    if (options.txn_app_id) {
      auto it = snapshot->transactions().find(*options.txn_app_id);
      if (it != snapshot->transactions().end() &&
          it->second.version >= *options.txn_version) {
        result.skipped = true;
        result.skipped_reason = fmt::format(
            "application '{}' already committed version {} (this write is version {})",
            *options.txn_app_id, it->second.version, *options.txn_version);
        return result;
      }
    }
    DELTA_RETURN_IF_ERROR(CheckWriteSupported(snapshot->protocol(), snapshot->metadata(),
                                              *snapshot->schema(), path,
                                              /*can_evaluate_constraints=*/true));
  }
  if (sources.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "write to '{}': no input given", path);
  }
  // A contract (given, or carried by the table) conforms every input first
  // (write/contract_write.h); a bronze contract accepts every shape and evolves.
  DELTA_ASSIGN_OR_RETURN(auto contract,
                         ContractForWrite(snapshot.get(), options.contract));
  std::shared_ptr<ContractWriteReport> contract_report;
  bool merge = options.merge_schema.value_or(session.auto_merge);
  if (contract) {
    contract_report = std::make_shared<ContractWriteReport>();
    if (contract->layer == MedallionLayer::kBronze) {
      merge = options.merge_schema.value_or(true);
    } else {
      DELTA_ASSIGN_OR_RETURN(const ContractObject* object,
                             contract->Object(options.contract_object));
      for (auto& source : sources) {
        DELTA_ASSIGN_OR_RETURN(
            source,
            ConformToContract(std::move(source), *contract, *object, contract_report,
                              {.route_row_rules = routed.routes_contract_rows}));
      }
    }
  }
  DELTA_ASSIGN_OR_RETURN(auto inputs, InputSchemas(sources));
  std::vector<std::string> names;
  for (const auto& source : sources) names.push_back(source.name);

  if (snapshot && options.mode == WriteMode::kOverwrite) {
    DELTA_RETURN_IF_ERROR(internal::CheckRowsRemovable(
        snapshot->metadata(), path,
        "overwrite would remove its rows; append instead, or unset the property "
        "first"));
  }
  WritePlan plan;
  if (!snapshot || options.overwrite_schema) {
    DELTA_ASSIGN_OR_RETURN(
        plan, PlanReplaceSchema(inputs, names, options, merge, snapshot.get(), path));
    result.created = snapshot == nullptr;
    result.schema_changed = true;
  } else {
    DELTA_ASSIGN_OR_RETURN(
        plan, PlanExisting(inputs, names, options, merge, *snapshot, path, &result));
  }
  if (options.replace_where) {
    DELTA_ASSIGN_OR_RETURN(plan.replace_where,
                           ReplaceWhere::Make(*options.replace_where, plan.schema,
                                              plan.partition_columns, plan.mode, path));
  }

  // input -> conform -> enforcement (replaceWhere, constraints) -> encode -> stage
  // -> commit -> checkpoint, in the commit funnel (write/commit_funnel.h).
  FunnelPlan funnel_plan;
  funnel_plan.schema = plan.schema;
  funnel_plan.metadata = plan.effective_metadata;
  funnel_plan.new_metadata = plan.new_metadata;
  funnel_plan.new_protocol = plan.new_protocol;
  funnel_plan.file_options = options.file_options;
  funnel_plan.checkpoint = options.checkpoint;
  CommitHooks hooks;
  if (routed.make_router) {
    // Quarantine: the router replaces the constraint check (its rows are all good).
    funnel_plan.conform_schema = routed.conform_schema;
    DELTA_ASSIGN_OR_RETURN(auto router, routed.make_router(plan.schema));
    hooks.enforcement.push_back(std::move(router));
  }
  if (plan.replace_where) {
    hooks.enforcement.push_back(
        std::make_shared<ReplaceWhereCheck>(plan.replace_where.get()));
  }
  if (!routed.make_router) {
    // CHECK constraints and invariants of the table after this write
    // (constraints_ddl.h).
    DELTA_ASSIGN_OR_RETURN(
        auto constraints,
        ConstraintEnforcement::Make(plan.effective_metadata, *plan.schema, path));
    hooks.enforcement.push_back(std::move(constraints));
  }
  // Column profiles and the row tests of data tests, in the same pass
  // (docs/profiles.md "On write", docs/data_tests.md "At commit time").
  DELTA_ASSIGN_OR_RETURN(
      auto check,
      CheckForWrite(fs, root, path, options, snapshot != nullptr, *plan.schema, routed));
  std::shared_ptr<ProfileObserver> profiler;
  const bool store_profile = ProfilesEnabled(plan.effective_metadata);
  if (store_profile || check) {
    profiler = std::make_shared<ProfileObserver>();
    hooks.batch_observers.push_back(profiler);
  }
  if (check && check->row_observer())
    hooks.batch_observers.push_back(check->row_observer());
  DELTA_ASSIGN_OR_RETURN(
      auto funnel, CommitFunnel::Open(FunnelTable{fs, root, path, snapshot},
                                      std::move(funnel_plan), std::move(hooks), session));
  for (const auto& source : sources) {
    ConformOptions conform;
    conform.table_name = path;
    DELTA_RETURN_IF_ERROR(funnel->WriteSource(source, conform));
  }
  // replaceWhere over data columns: decide per row, rewriting partly matching files.
  std::vector<const AddFile*> rewritten_or_removed;
  if (snapshot && plan.replace_where && !plan.replace_where->partition_only()) {
    DELTA_RETURN_IF_ERROR(RewriteForReplaceWhere(snapshot, plan, path, funnel.get(),
                                                 &rewritten_or_removed, &result));
  }
  DELTA_RETURN_IF_ERROR(funnel->FinishFiles());
  result.rows = funnel->staged().rows_written - result.rows_copied;

  // Stage the removes and what the write read.
  const int64_t now = internal::NowMillis();
  Transaction& txn = funnel->txn();
  int64_t removed_bytes = 0;
  if (snapshot && (plan.remove_all || plan.replace_where)) {
    for (const auto& add : snapshot->files()) {
      if (plan.replace_where && plan.replace_where->partition_only()) {
        DELTA_ASSIGN_OR_RETURN(
            bool matches, plan.replace_where->MatchesPartition(add.partition_values));
        if (!matches) continue;
      } else if (plan.replace_where &&
                 std::find(rewritten_or_removed.begin(), rewritten_or_removed.end(),
                           &add) == rewritten_or_removed.end()) {
        continue;
      }
      removed_bytes += add.size;
      txn.RemoveFile(RemoveFileFor(add, now));
      ++result.files_removed;
    }
    if (plan.replace_where && plan.replace_where->partition_only()) {
      txn.ReadPartitions(plan.replace_where->PartitionPredicate());
    } else {
      txn.ReadWholeTable();
    }
  }
  if (options.txn_app_id)
    txn.SetAppTransaction(*options.txn_app_id, *options.txn_version);

  OperationInfo op;
  op.operation = options.operation;
  op.parameters_json.emplace_back("mode", JsonQuote(WriteModeName(options.mode)));
  op.parameters_json.emplace_back("partitionBy",
                                  internal::PartitionByParameter(plan.partition_columns));
  if (plan.replace_where) {
    std::string predicate = "[";
    AppendJsonString(&predicate, plan.replace_where->Sql());
    predicate += "]";
    op.parameters_json.emplace_back("predicate", JsonQuote(predicate));
  }
  result.files_added = static_cast<int64_t>(funnel->staged().files.size());
  result.bytes_added = funnel->staged().bytes_added;
  op.metrics.emplace_back("numFiles", result.files_added);
  op.metrics.emplace_back("numOutputRows", result.rows);
  op.metrics.emplace_back("numOutputBytes", result.bytes_added);
  if (result.files_removed > 0) {
    op.metrics.emplace_back("numRemovedFiles", result.files_removed);
    op.metrics.emplace_back("numRemovedBytes", removed_bytes);
  }
  if (contract) {
    result.contract =
        FinishContractWrite(*contract, *contract_report, &op, &result.warnings);
  }
  // The staged batch's profile, taken once for the data tests and the store; the
  // NULLs a contract's castPolicy try introduced are a statistic of it
  // (docs/data_tests.md "Cast safety").
  TableProfile staged_profile;
  if (profiler) {
    staged_profile = profiler->Take();
    staged_profile.timestamp_ms = now;
    if (contract_report) AddCastNulls(contract_report->cast_nulls, &staged_profile);
  }
  if (check) {
    // The data tests decide before anything is committed (commit_check.h).
    DELTA_ASSIGN_OR_RETURN(CheckReport report, check->Decide(staged_profile));
    result.check = SummarizeCheck(report);
    const bool failed = report.outcome() == CheckOutcome::kFailed ||
                        report.outcome() == CheckOutcome::kError;
    if (report.outcome() == CheckOutcome::kWarning ||
        (failed && options.check->on_failure == CheckFailureAction::kWarn)) {
      for (auto& w : CheckWarnings(report)) result.warnings.push_back(std::move(w));
    }
    if (failed && options.check->on_failure == CheckFailureAction::kFail) {
      return CheckFailedError(report, path);
    }
    if (failed && options.check->on_failure == CheckFailureAction::kQuarantine) {
      // The whole batch goes to the quarantine table; the staged files are removed
      // when the funnel closes uncommitted.
      result.check->held = true;
      result.check->held_reason = "data test " + FailedTests(report);
      DELTA_RETURN_IF_ERROR(routed.hold_batch(result.check->held_reason));
      result.version = -1;
      return result;
    }
  }
  if (routed.before_commit) DELTA_RETURN_IF_ERROR(routed.before_commit());
  std::string operation = op.operation;
  DELTA_ASSIGN_OR_RETURN(CommitOutcome committed, funnel->Commit(std::move(op)));
  result.version = committed.version;
  if (profiler && store_profile) {
    StoreWriteProfile(fs, root, std::move(staged_profile), committed.version, now,
                      std::move(operation), &result.warnings);
  }
  result.commit_attempts = committed.attempts;
  result.checkpoint_version = committed.checkpoint_version;
  result.checkpoint_error = committed.checkpoint_error;
  return result;
}

}  // namespace table_internal

}  // namespace deltaguard
