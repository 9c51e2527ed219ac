// CreateTable and ReplaceTable (write.h), committed through the commit funnel.

#include <fmt/format.h>

#include <optional>
#include <string_view>
#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/evolution/write_schema.h"
#include "deltaguard/protocol/column_mapping.h"
#include "deltaguard/protocol/table_properties.h"
#include "deltaguard/protocol/write_protocol.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/write.h"
#include "deltaguard/write/commit_funnel.h"
#include "deltaguard/write/enforcement.h"
#include "deltaguard/write/table_state.h"

namespace deltaguard {
namespace {

// commitInfo of a table definition (CREATE TABLE, REPLACE TABLE, ...): Spark's
// operationParameters partitionBy, description, properties and isManaged.
OperationInfo CreateOperation(std::string operation, const Metadata& metadata,
                              bool managed) {
  OperationInfo op;
  op.operation = std::move(operation);
  op.parameters_json.emplace_back(
      "partitionBy", internal::PartitionByParameter(metadata.partition_columns));
  if (metadata.description) {
    op.parameters_json.emplace_back("description", JsonQuote(*metadata.description));
  }
  std::string props = "{";
  for (size_t i = 0; i < metadata.configuration.size(); ++i) {
    if (i > 0) props += ",";
    AppendJsonString(&props, metadata.configuration[i].first);
    props += ":";
    AppendJsonString(&props, metadata.configuration[i].second);
  }
  props += "}";
  op.parameters_json.emplace_back("properties", JsonQuote(props));
  op.parameters_json.emplace_back("isManaged", managed ? "\"true\"" : "\"false\"");
  return op;
}

}  // namespace

Result<WriteResult> CreateTable(FileSystemRef fs, const std::string& path,
                                const CreateTableOptions& options,
                                const SessionSettings& session) {
  DELTA_ASSIGN_OR_RETURN(std::string root, NormalizeTablePath(path));
  DELTA_ASSIGN_OR_RETURN(SnapshotRef existing, internal::LoadIfExists(fs, root));
  WriteResult result;
  if (existing) {
    if (options.if_not_exists) {
      result.skipped = true;
      result.skipped_reason = fmt::format("table '{}' already exists", path);
      return result;
    }
    return MakeError(ErrorCode::kAlreadyExists,
                     "DELTA_TABLE_ALREADY_EXISTS: table '{}' already exists (version {})",
                     path, existing->version());
  }
  if (!options.schema) {
    return MakeError(ErrorCode::kInvalidArgument, "CREATE TABLE '{}' needs a schema",
                     path);
  }
  const int64_t now = internal::NowMillis();
  DELTA_ASSIGN_OR_RETURN(
      auto state, internal::PrepareNewTable(options.schema, options.partition_columns,
                                            options.properties, options.name,
                                            options.description, nullptr, nullptr, now));
  FunnelPlan plan;  // no data files: schema stays null
  plan.metadata = state.metadata;
  plan.new_metadata = state.metadata;
  plan.new_protocol = state.protocol;
  plan.checkpoint = false;
  plan.create_log_dir = true;
  DELTA_ASSIGN_OR_RETURN(auto funnel,
                         CommitFunnel::Open(FunnelTable{fs, root, path, nullptr},
                                            std::move(plan), CommitHooks{}, session));
  OperationInfo op = CreateOperation("CREATE TABLE", state.metadata, options.managed);
  auto committed = funnel->Commit(std::move(op));
  if (!committed) {
    if (committed.error().code == ErrorCode::kCommitConflict && options.if_not_exists) {
      result.skipped = true;
      result.skipped_reason = "created concurrently by another writer";
      return result;
    }
    return committed.error();
  }
  result.version = committed->version;
  result.created = true;
  result.schema_changed = true;
  result.commit_attempts = committed->attempts;
  return result;
}

namespace {

// Table properties a replaced table keeps unless the new definition sets them: protocol
// state that cannot go back (column ids continue after maxColumnId; the column-mapping
// mode and in-commit timestamps stay on, as the protocol keeps their features).
constexpr std::string_view kRetainedOnReplace[] = {
    kColumnMappingMaxColumnIdProperty,
    "delta.columnMapping.mode",
    "delta.enableInCommitTimestamps",
    "delta.inCommitTimestampEnablementVersion",
    "delta.inCommitTimestampEnablementTimestamp",
};

}  // namespace

Result<WriteResult> ReplaceTable(FileSystemRef fs, const std::string& path,
                                 const CreateTableOptions& options,
                                 std::optional<BatchSource> data,
                                 const std::string& operation,
                                 const SessionSettings& session) {
  DELTA_ASSIGN_OR_RETURN(std::string root, NormalizeTablePath(path));
  DELTA_ASSIGN_OR_RETURN(SnapshotRef existing, internal::LoadIfExists(fs, root));
  if (existing) {
    // The old CHECK constraints and invariants go with the old definition (new ones
    // cannot be given as properties), so they need no evaluation here.
    DELTA_RETURN_IF_ERROR(CheckWriteSupported(existing->protocol(), existing->metadata(),
                                              *existing->schema(), path,
                                              /*can_evaluate_constraints=*/true));
  }
  SchemaRef schema = options.schema;
  if (!schema && data) {
    SchemaRef input = data->delta_schema;
    if (!input) {
      DELTA_ASSIGN_OR_RETURN(input, FromArrowSchema(*data->schema));
    }
    DELTA_ASSIGN_OR_RETURN(schema, SchemaForNewTable(*input, path));
  }
  if (!schema) {
    return MakeError(ErrorCode::kInvalidArgument, "{} '{}' needs a schema", operation,
                     path);
  }
  // The new definition replaces the old one; only the table id, name, creation time
  // and the protocol state of kRetainedOnReplace carry over.
  std::optional<Metadata> previous;
  if (existing) {
    previous = existing->metadata();
    StringMap kept;
    for (std::string_view key : kRetainedOnReplace) {
      if (auto value = previous->GetConfig(key)) kept.emplace_back(key, *value);
    }
    previous->configuration = std::move(kept);
    previous->description.reset();
  }
  const int64_t now = internal::NowMillis();
  DELTA_ASSIGN_OR_RETURN(
      auto state, internal::PrepareNewTable(
                      schema, options.partition_columns, options.properties, options.name,
                      options.description, previous ? &*previous : nullptr,
                      existing ? &existing->protocol() : nullptr, now));
  WriteResult result;
  FunnelPlan plan;
  if (data) plan.schema = state.schema;  // else no data files
  plan.metadata = state.metadata;
  plan.new_metadata = state.metadata;
  if (!existing || ActionToJson(Action(existing->protocol())) !=
                       ActionToJson(Action(state.protocol))) {
    plan.new_protocol = state.protocol;
  }
  plan.create_log_dir = !existing;
  CommitHooks hooks;
  if (data) {
    // Invariants carried by the new schema (CHECK constraints cannot be given as
    // properties, so these are the legacy ones) hold for the new rows too.
    DELTA_ASSIGN_OR_RETURN(auto constraints, ConstraintEnforcement::Make(
                                                 state.metadata, *state.schema, path));
    hooks.enforcement.push_back(std::move(constraints));
  }
  DELTA_ASSIGN_OR_RETURN(auto funnel,
                         CommitFunnel::Open(FunnelTable{fs, root, path, existing},
                                            std::move(plan), std::move(hooks), session));
  if (data) {
    ConformOptions conform;
    conform.table_name = path;
    DELTA_RETURN_IF_ERROR(funnel->WriteSource(*data, conform));
  }
  DELTA_RETURN_IF_ERROR(funnel->FinishFiles());
  result.rows = funnel->staged().rows_written;
  result.bytes_added = funnel->staged().bytes_added;
  result.files_added = static_cast<int64_t>(funnel->staged().files.size());
  int64_t removed_bytes = 0;
  if (existing) {
    for (const auto& add : existing->files()) {
      funnel->txn().RemoveFile(RemoveFileFor(add, now));
      removed_bytes += add.size;
      ++result.files_removed;
    }
    funnel->txn().ReadWholeTable();
  }
  OperationInfo op = CreateOperation(operation, state.metadata, options.managed);
  if (data) {
    op.metrics.emplace_back("numFiles", result.files_added);
    op.metrics.emplace_back("numOutputRows", result.rows);
    op.metrics.emplace_back("numOutputBytes", result.bytes_added);
  }
  if (result.files_removed > 0) {
    op.metrics.emplace_back("numRemovedFiles", result.files_removed);
    op.metrics.emplace_back("numRemovedBytes", removed_bytes);
  }
  DELTA_ASSIGN_OR_RETURN(CommitOutcome committed, funnel->Commit(std::move(op)));
  result.version = committed.version;
  result.created = existing == nullptr;
  result.schema_changed = true;
  result.commit_attempts = committed.attempts;
  result.checkpoint_version = committed.checkpoint_version;
  result.checkpoint_error = committed.checkpoint_error;
  return result;
}

}  // namespace deltaguard
