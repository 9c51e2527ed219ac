// WriteTable: enforcement, evolution, data files, commit, checkpoint (write.h).

#include "deltaguard/table/write.h"

#include <arrow/array/builder_primitive.h>
#include <arrow/compute/api.h>
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "deltaguard/evolution/write_schema.h"
#include "deltaguard/exec/batch_conformer.h"
#include "deltaguard/exec/constraint_checker.h"
#include "deltaguard/exec/prefetch_reader.h"
#include "deltaguard/io/parquet/arrow_schema.h"
#include "deltaguard/io/parquet/arrow_status_internal.h"
#include "deltaguard/io/parquet/partitioned_writer.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/protocol/column_mapping.h"
#include "deltaguard/protocol/table_properties.h"
#include "deltaguard/protocol/write_protocol.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/table/replace_where.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/write_internal.h"
#include "deltaguard/util/string_util.h"

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
    if (!resolved_or) return InInput(resolved_or.error(), names, i);
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

// Read every source through the conformer into the partitioned writer.
Status WriteRows(std::vector<BatchSource>& sources, const WritePlan& plan,
                 const std::string& path, PartitionedWriter* writer) {
  // CHECK constraints and invariants of the table after this write (constraints_ddl.h).
  DELTA_ASSIGN_OR_RETURN(
      auto checker, ConstraintChecker::Make(plan.effective_metadata, *plan.schema, path));
  for (auto& source : sources) {
    ConformOptions conform_options;
    conform_options.by_position = source.by_position;
    conform_options.table_name = path;
    auto conformer = BatchConformer::Make(plan.schema, source.schema, conform_options);
    if (!conformer) {
      return WithContext(conformer.error(), fmt::format("input '{}'", source.name));
    }
    DELTA_ASSIGN_OR_RETURN(auto opened, source.open());
    // Decode the next input batch while this one is encoded.
    auto reader = MakePrefetchingReader(std::move(opened));
    int64_t row = 0;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      auto st = reader->ReadNext(&batch);
      if (!st.ok()) {
        return internal::FromArrowStatus(st, ErrorCode::kCorruptData,
                                         fmt::format("input '{}'", source.name));
      }
      if (!batch) break;
      auto conformed = (*conformer)->Conform(*batch, row);
      if (!conformed) {
        return WithContext(conformed.error(), fmt::format("input '{}'", source.name));
      }
      if (plan.replace_where) {
        auto checked = plan.replace_where->CheckRows(**conformed, row);
        if (!checked) {
          return WithContext(checked.error(), fmt::format("input '{}'", source.name));
        }
      }
      if (auto checked = checker.Check(**conformed); !checked) {
        return WithContext(checked.error(), fmt::format("input '{}'", source.name));
      }
      DELTA_RETURN_IF_ERROR(writer->Write(*conformed));
      row += batch->num_rows();
    }
  }
  return OkStatus();
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
                              const std::string& path, PartitionedWriter* writer,
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
    for (const auto& batch : kept) DELTA_RETURN_IF_ERROR(writer->Write(batch));
    result->rows_copied += total_rows - selected_rows;
  }
  return OkStatus();
}

}  // namespace

Result<WriteResult> WriteTable(FileSystemRef fs, const std::string& path,
                               std::vector<BatchSource> sources,
                               const WriteOptions& options,
                               const SessionSettings& session) {
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
  const bool merge = options.merge_schema.value_or(session.auto_merge);
  DELTA_ASSIGN_OR_RETURN(auto inputs, InputSchemas(sources));
  std::vector<std::string> names;
  for (const auto& source : sources) names.push_back(source.name);

  if (snapshot && options.mode == WriteMode::kOverwrite) {
    auto append_only = snapshot->metadata().GetConfig("delta.appendOnly");
    if (append_only && EqualsIgnoreCase(*append_only, "true")) {
      return MakeError(ErrorCode::kConstraintViolation,
                       "DELTA_CANNOT_MODIFY_APPEND_ONLY: table '{}' is append-only "
                       "(delta.appendOnly = true): overwrite would remove its rows; "
                       "append instead, or unset the property first",
                       path);
    }
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

  DataFileWriterOptions file_options = options.file_options;
  DELTA_ASSIGN_OR_RETURN(file_options.stats,
                         internal::StatsOptionsFor(plan.effective_metadata));
  DELTA_ASSIGN_OR_RETURN(
      auto writer, PartitionedWriter::Make(fs, root, plan.schema, plan.partition_columns,
                                           plan.mode, file_options));
  if (auto st = WriteRows(sources, plan, path, writer.get()); !st) {
    writer->Abort();
    return st.error();
  }
  // replaceWhere over data columns: decide per row, rewriting partly matching files.
  std::vector<const AddFile*> rewritten_or_removed;
  if (snapshot && plan.replace_where && !plan.replace_where->partition_only()) {
    auto st = RewriteForReplaceWhere(snapshot, plan, path, writer.get(),
                                     &rewritten_or_removed, &result);
    if (!st) {
      writer->Abort();
      return st.error();
    }
  }
  auto files = writer->Finish();
  if (!files) {
    writer->Abort();
    return files.error();
  }
  result.rows = writer->rows_written() - result.rows_copied;

  // Stage the commit.
  const int64_t now = internal::NowMillis();
  TransactionOptions txn_options;
  txn_options.engine_info = session.engine_info;
  auto txn_or = Transaction::Begin(fs, root, snapshot, txn_options);
  if (!txn_or) {
    writer->Abort();
    return txn_or.error();
  }
  auto& txn = *txn_or;
  if (plan.new_protocol) txn->SetProtocol(*plan.new_protocol);
  if (plan.new_metadata) txn->SetMetadata(*plan.new_metadata);
  int64_t removed_bytes = 0;
  if (snapshot && (plan.remove_all || plan.replace_where)) {
    std::vector<std::string> read_files;
    for (const auto& add : snapshot->files()) {
      if (plan.replace_where && plan.replace_where->partition_only()) {
        auto matches = plan.replace_where->MatchesPartition(add.partition_values);
        if (!matches) {
          writer->Abort();
          return matches.error();
        }
        if (!*matches) continue;
      } else if (plan.replace_where &&
                 std::find(rewritten_or_removed.begin(), rewritten_or_removed.end(),
                           &add) == rewritten_or_removed.end()) {
        continue;
      }
      read_files.push_back(add.path);
      removed_bytes += add.size;
      txn->RemoveFile(RemoveFileFor(add, now));
      ++result.files_removed;
    }
    if (plan.replace_where && plan.replace_where->partition_only()) {
      txn->ReadPartitions(plan.replace_where->PartitionPredicate());
    } else {
      txn->ReadWholeTable();
    }
  }
  for (const auto& file : *files) {
    result.bytes_added += file.size;
    txn->AddFile(internal::AddFileFor(file));
  }
  result.files_added = static_cast<int64_t>(files->size());
  if (options.txn_app_id)
    txn->SetAppTransaction(*options.txn_app_id, *options.txn_version);

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
  op.metrics.emplace_back("numFiles", result.files_added);
  op.metrics.emplace_back("numOutputRows", result.rows);
  op.metrics.emplace_back("numOutputBytes", result.bytes_added);
  if (result.files_removed > 0) {
    op.metrics.emplace_back("numRemovedFiles", result.files_removed);
    op.metrics.emplace_back("numRemovedBytes", removed_bytes);
  }
  auto committed = txn->Commit(op);
  if (!committed) {
    // An I/O error at the commit leaves its outcome unknown (the commit file may exist):
    // the data files stay. Anything else means the log was not touched.
    if (committed.error().code != ErrorCode::kIOError) {
      for (const auto& file : *files)
        (void)fs->Delete(internal::DataFilePath(root, file.relative_path));
    }
    return committed.error();
  }
  result.version = committed->version;
  result.commit_attempts = committed->attempts;
  if (options.checkpoint) {
    internal::MaybeCheckpoint(fs, root, result.version, plan.effective_metadata, &result);
  }
  return result;
}

}  // namespace deltaguard
