// ALTER TABLE column operations (alter.h) and the commit path shared with
// alter_properties.cc (alter_internal.h).

#include "deltaguard/table/alter.h"

#include <arrow/array.h>
#include <fmt/format.h>

#include <utility>

#include "deltaguard/constraints/constraints.h"
#include "deltaguard/exec/result_format.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/protocol/column_mapping.h"
#include "deltaguard/protocol/table_properties.h"
#include "deltaguard/protocol/write_protocol.h"
#include "deltaguard/schema/column_path.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/table/alter_internal.h"
#include "deltaguard/table/table.h"
#include "deltaguard/txn/transaction.h"
#include "deltaguard/util/string_util.h"
#include "deltaguard/write/commit_funnel.h"
#include "deltaguard/write/table_state.h"

namespace deltaguard {
namespace alter_internal {

Result<AlterTarget> LoadAlterTarget(const FileSystemRef& fs, const std::string& path) {
  AlterTarget target;
  target.name = path;
  DELTA_ASSIGN_OR_RETURN(target.root, NormalizeTablePath(path));
  DELTA_ASSIGN_OR_RETURN(target.snapshot, OpenSnapshot(fs, target.root));
  const Snapshot& s = *target.snapshot;
  // ALTER writes no rows, so constraints need no evaluation here; every other writer
  // duty (unknown features, generated columns, ...) still blocks it.
  DELTA_RETURN_IF_ERROR(CheckWriteSupported(s.protocol(), s.metadata(), *s.schema(), path,
                                            /*can_evaluate_constraints=*/true));
  AlterContext& c = target.context;
  c.table_name = path;
  c.partition_columns = s.metadata().partition_columns;
  c.column_mapping = s.column_mapping_mode();
  auto widening = s.metadata().GetConfig("delta.enableTypeWidening");
  c.type_widening_enabled = widening && EqualsIgnoreCase(Trim(*widening), "true");
  // CHECK constraints and invariants with the columns they read (constraints/ is the
  // one reader of constraints; one that no longer binds is an error naming it).
  DELTA_ASSIGN_OR_RETURN(auto bound, BindAllConstraints(s.metadata(), *s.schema()));
  for (BoundConstraint& b : bound) {
    ConstraintDependency dep;
    dep.name = b.constraint.kind == ConstraintKind::kCheck ? b.constraint.name
                                                           : b.constraint.Describe();
    dep.expression = b.constraint.expression;
    dep.columns = std::move(b.columns);
    c.constraints.push_back(std::move(dep));
  }
  return target;
}

Result<AlterResult> CommitAlter(const FileSystemRef& fs, const AlterTarget& target,
                                AlterCommit commit, const SessionSettings& session) {
  const Snapshot& snapshot = *target.snapshot;
  Metadata& md = commit.metadata;
  SchemaRef schema = snapshot.schema();
  if (commit.schema) {
    schema = *commit.schema;
    DELTA_ASSIGN_OR_RETURN(ColumnMappingMode mode, GetColumnMappingMode(md));
    if (mode != ColumnMappingMode::kNone) {
      DELTA_ASSIGN_OR_RETURN(
          auto assigned,
          AssignColumnMapping(*schema, internal::MaxColumnId(md.configuration), false));
      schema = assigned.schema;
      internal::SetConfig(&md.configuration, kColumnMappingMaxColumnIdProperty,
                          std::to_string(assigned.max_column_id));
    }
    DELTA_RETURN_IF_ERROR(ValidateFieldNames(*schema));
    md.schema_string = SchemaToJson(*schema);
  }
  std::optional<Protocol> upgrade = commit.protocol;
  if (!upgrade) {
    DELTA_ASSIGN_OR_RETURN(
        upgrade, ProtocolUpgradeFor(snapshot.protocol(), md.configuration, *schema));
  }
  const Protocol& protocol = upgrade ? *upgrade : snapshot.protocol();
  auto supported = CheckWriteSupported(protocol, md, *schema, target.name,
                                       /*can_evaluate_constraints=*/true);
  if (!supported) {
    return WithContext(supported.error(), fmt::format("{} on table '{}' refused",
                                                      commit.op.operation, target.name));
  }
  // A metadata-only commit through the commit funnel (write/commit_funnel.h).
  FunnelPlan plan;
  plan.metadata = md;
  plan.new_metadata = md;
  plan.new_protocol = upgrade;
  DELTA_ASSIGN_OR_RETURN(
      auto funnel,
      CommitFunnel::Open(FunnelTable{fs, target.root, target.name, target.snapshot},
                         std::move(plan), CommitHooks{}, session));
  if (commit.read_whole_table) funnel->txn().ReadWholeTable();
  DELTA_ASSIGN_OR_RETURN(CommitOutcome committed, funnel->Commit(commit.op));
  AlterResult result;
  result.version = committed.version;
  result.commit_attempts = committed.attempts;
  result.new_protocol = upgrade;
  result.changes = std::move(commit.changes);
  result.message = result.changes.empty()
                       ? commit.op.operation
                       : fmt::format("{}", fmt::join(result.changes, "; "));
  result.checkpoint_version = committed.checkpoint_version;
  result.checkpoint_error = committed.checkpoint_error;
  return result;
}

AlterResult NoChange(std::string why) {
  AlterResult result;
  result.message = std::move(why);
  return result;
}

}  // namespace alter_internal

namespace {

using alter_internal::AlterCommit;
using alter_internal::AlterTarget;
using alter_internal::CommitAlter;
using alter_internal::LoadAlterTarget;
using alter_internal::NoChange;
using Path = std::vector<std::string>;

// Spark's DeltaOperations.structFieldToMap, as JSON text.
std::string FieldJson(const Path& path, const StructField& field) {
  std::string out = "{\"name\":";
  AppendJsonString(&out, FormatColumnPath(path));
  out += ",\"type\":";
  AppendJsonString(&out, field.type->TypeName());
  out += field.nullable ? ",\"nullable\":true" : ",\"nullable\":false";
  out += ",\"metadata\":{";
  bool first = true;
  for (const auto& [key, raw] : field.metadata.entries()) {
    if (!first) out += ",";
    first = false;
    AppendJsonString(&out, key);
    out += ":" + raw;
  }
  return out + "}}";
}

std::string PositionParameter(const ColumnPosition& position) {
  return position.first ? "FIRST" : "AFTER " + position.after;
}

// Rewrite delta.dataSkippingStatsColumns entry by entry: `map` returns the new path,
// or nullopt to remove the entry. Entries that do not parse are kept as they are.
void RewriteStatsColumns(Metadata* md,
                         const std::function<std::optional<Path>(const Path&)>& map) {
  constexpr std::string_view kKey = "delta.dataSkippingStatsColumns";
  auto value = md->GetConfig(kKey);
  if (!value) return;
  std::string rewritten;
  for (std::string_view entry : Split(*value, ',')) {
    std::string_view trimmed = Trim(entry);
    if (trimmed.empty()) continue;
    std::string text(trimmed);
    if (auto parts = ParseColumnPath(trimmed)) {
      auto mapped = map(*parts);
      if (!mapped) continue;
      text = FormatColumnPath(*mapped);
    }
    if (!rewritten.empty()) rewritten += ",";
    rewritten += text;
  }
  internal::SetConfig(&md->configuration, kKey, rewritten);
}

bool StartsWithPath(const Path& path, const Path& prefix) {
  if (prefix.size() > path.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (!EqualsIgnoreCase(path[i], prefix[i])) return false;
  }
  return true;
}

// SET NOT NULL: every live row must hold a value (docs/decisions.md §4). First count the
// NULLs reading only the column; only when there are some, read whole rows for samples.
Status VerifyNoNulls(const AlterTarget& target, const Path& column) {
  const std::string shown = FormatColumnPath(column);
  ScanOptions count_options;
  count_options.columns = {shown};
  DELTA_ASSIGN_OR_RETURN(auto scan, TableScan::Make(target.snapshot, count_options));
  int64_t nulls = 0;
  while (true) {
    DELTA_ASSIGN_OR_RETURN(auto batch, scan->Next());
    if (!batch) break;
    nulls += batch->column(0)->null_count();
  }
  if (nulls == 0) return OkStatus();

  constexpr size_t kMaxSamples = 5;
  ScanOptions sample_options;
  for (const auto& f : target.snapshot->schema()->fields()) {
    sample_options.columns.push_back(FormatColumnPath({f.name}));
  }
  const size_t top_level = sample_options.columns.size();
  if (column.size() > 1) sample_options.columns.push_back(shown);
  DELTA_ASSIGN_OR_RETURN(auto sampler, TableScan::Make(target.snapshot, sample_options));
  int checked_index = -1;
  for (size_t i = 0; i < top_level; ++i) {
    if (column.size() == 1 &&
        EqualsIgnoreCase(target.snapshot->schema()->field(i).name, column[0])) {
      checked_index = static_cast<int>(i);
    }
  }
  if (checked_index < 0) checked_index = static_cast<int>(top_level);
  std::vector<std::string> samples;
  while (samples.size() < kMaxSamples) {
    DELTA_ASSIGN_OR_RETURN(auto batch, sampler->Next());
    if (!batch) break;
    const arrow::Array& checked = *batch->column(checked_index);
    for (int64_t row = 0; row < batch->num_rows() && samples.size() < kMaxSamples;
         ++row) {
      if (!checked.IsNull(row)) continue;
      std::string text = "{";
      for (size_t c = 0; c < top_level; ++c) {
        if (c > 0) text += ", ";
        text += batch->schema()->field(static_cast<int>(c))->name() + ": ";
        AppendTextValue(*batch->column(static_cast<int>(c)), row, false, &text);
      }
      samples.push_back(text + "}");
    }
  }
  std::string listed;
  for (const auto& s : samples) listed += "\n  " + s;
  return MakeError(
      ErrorCode::kConstraintViolation,
      "DELTA_NEW_NOT_NULL_VIOLATION: {} row{} in table '{}' violate{} the new "
      "NOT NULL constraint on column '{}' (showing {}):{}",
      nulls, nulls == 1 ? "" : "s", target.name, nulls == 1 ? "s" : "", shown,
      samples.size(), listed);
}

}  // namespace

Result<AlterResult> AddColumns(FileSystemRef fs, const std::string& path,
                               const std::vector<NewColumnSpec>& columns,
                               const SessionSettings& session) {
  DELTA_ASSIGN_OR_RETURN(auto target, LoadAlterTarget(fs, path));
  if (columns.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "ADD COLUMNS on table '{}': no column",
                     path);
  }
  DELTA_ASSIGN_OR_RETURN(auto alteration, AddColumnsToSchema(*target.snapshot->schema(),
                                                             columns, target.context));
  AlterCommit commit;
  commit.metadata = target.snapshot->metadata();
  commit.schema = alteration.schema;
  commit.op.operation = "ADD COLUMNS";
  std::string array = "[";
  for (size_t i = 0; i < columns.size(); ++i) {
    StructField field{columns[i].path.back(), columns[i].type, true, {}};
    if (columns[i].comment) {
      field.metadata = field.metadata.With(kCommentKey, JsonQuote(*columns[i].comment));
    }
    if (columns[i].char_varchar_type) {
      field.metadata = field.metadata.With(kCharVarcharTypeKey,
                                           JsonQuote(*columns[i].char_varchar_type));
    }
    if (i > 0) array += ",";
    array += "{\"column\":" + FieldJson(alteration.columns[i], field);
    if (columns[i].position) {
      array += ",\"position\":" + JsonQuote(PositionParameter(*columns[i].position));
    }
    array += "}";
  }
  commit.op.parameters_json.emplace_back("columns", JsonQuote(array + "]"));
  commit.changes = std::move(alteration.changes);
  return CommitAlter(fs, target, std::move(commit), session);
}

Result<AlterResult> RenameColumn(FileSystemRef fs, const std::string& path,
                                 const std::vector<std::string>& from,
                                 const std::string& to, const SessionSettings& session) {
  DELTA_ASSIGN_OR_RETURN(auto target, LoadAlterTarget(fs, path));
  DELTA_ASSIGN_OR_RETURN(auto alteration, RenameColumnInSchema(*target.snapshot->schema(),
                                                               from, to, target.context));
  const Path& old_path = alteration.columns.front();
  const Path& new_path = alteration.new_path;
  AlterCommit commit;
  commit.metadata = target.snapshot->metadata();
  commit.schema = alteration.schema;
  if (old_path.size() == 1) {
    for (auto& p : commit.metadata.partition_columns) {
      if (EqualsIgnoreCase(p, old_path[0])) p = new_path[0];
    }
  }
  RewriteStatsColumns(&commit.metadata, [&](const Path& p) -> std::optional<Path> {
    if (!StartsWithPath(p, old_path)) return p;
    Path renamed = new_path;
    renamed.insert(renamed.end(), p.begin() + static_cast<long>(old_path.size()),
                   p.end());
    return renamed;
  });
  commit.op.operation = "RENAME COLUMN";
  commit.op.parameters_json.emplace_back("oldColumnPath",
                                         JsonQuote(FormatColumnPath(old_path)));
  commit.op.parameters_json.emplace_back("newColumnPath",
                                         JsonQuote(FormatColumnPath(new_path)));
  commit.changes = std::move(alteration.changes);
  return CommitAlter(fs, target, std::move(commit), session);
}

Result<AlterResult> DropColumns(FileSystemRef fs, const std::string& path,
                                const std::vector<std::vector<std::string>>& columns,
                                bool if_exists, const SessionSettings& session) {
  DELTA_ASSIGN_OR_RETURN(auto target, LoadAlterTarget(fs, path));
  if (columns.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "DROP COLUMNS on table '{}': no column",
                     path);
  }
  DELTA_ASSIGN_OR_RETURN(auto alteration,
                         DropColumnsFromSchema(*target.snapshot->schema(), columns,
                                               if_exists, target.context));
  if (alteration.columns.empty()) return NoChange("no column to drop");
  AlterCommit commit;
  commit.metadata = target.snapshot->metadata();
  commit.schema = alteration.schema;
  RewriteStatsColumns(&commit.metadata, [&](const Path& p) -> std::optional<Path> {
    for (const auto& dropped : alteration.columns) {
      if (StartsWithPath(p, dropped)) return std::nullopt;
    }
    return p;
  });
  commit.op.operation = "DROP COLUMNS";
  std::string array = "[";
  for (size_t i = 0; i < alteration.columns.size(); ++i) {
    if (i > 0) array += ",";
    AppendJsonString(&array, FormatColumnPath(alteration.columns[i]));
  }
  commit.op.parameters_json.emplace_back("columns", JsonQuote(array + "]"));
  commit.changes = std::move(alteration.changes);
  return CommitAlter(fs, target, std::move(commit), session);
}

Result<AlterResult> ChangeColumn(FileSystemRef fs, const std::string& path,
                                 const std::vector<std::string>& column,
                                 const ChangeColumnSpec& change,
                                 const SessionSettings& session) {
  DELTA_ASSIGN_OR_RETURN(auto target, LoadAlterTarget(fs, path));
  DELTA_ASSIGN_OR_RETURN(
      auto alteration,
      ChangeColumnInSchema(*target.snapshot->schema(), column, change, target.context));
  if (alteration.schema->Equals(*target.snapshot->schema())) {
    return NoChange(fmt::format("column '{}' already is as requested",
                                FormatColumnPath(alteration.columns.front())));
  }
  AlterCommit commit;
  if (alteration.tightened_nullability) {
    DELTA_RETURN_IF_ERROR(VerifyNoNulls(target, alteration.columns.front()));
    commit.read_whole_table = true;
  }
  commit.metadata = target.snapshot->metadata();
  commit.schema = alteration.schema;
  commit.op.operation = "CHANGE COLUMN";
  // The field itself, or for `a.element` & co. its nearest ancestor field.
  if (alteration.field) {
    commit.op.parameters_json.emplace_back(
        "column", JsonQuote(FieldJson(alteration.field_path, *alteration.field)));
  }
  if (change.position) {
    commit.op.parameters_json.emplace_back(
        "position", JsonQuote(PositionParameter(*change.position)));
  }
  commit.changes = std::move(alteration.changes);
  return CommitAlter(fs, target, std::move(commit), session);
}

}  // namespace deltaguard
