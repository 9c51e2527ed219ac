// CREATE [OR REPLACE] TABLE [AS SELECT], REPLACE TABLE and DROP TABLE.
//
// Where a table lives: a name without LOCATION is a managed table in the warehouse; a
// name with LOCATION is an external table, registered in the catalog; a path reference
// is the table at that path. CREATE TABLE name LOCATION 'p' over an existing Delta table
// adopts it (Spark: the column list, partitioning and properties, when given, must match
// the table's). Replacing keeps the table's history (one commit; table/write.h
// ReplaceTable).

#include <fmt/format.h>

#include <utility>

#include "deltaguard/evolution/schema_format.h"
#include "deltaguard/sql/session_internal.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/write.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {
namespace {

std::string Plural(int64_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

// Same columns: names (case-insensitive), Spark types and top-level nullability.
bool SameColumns(const StructType& a, const StructType& b) {
  if (a.num_fields() != b.num_fields()) return false;
  for (size_t i = 0; i < a.num_fields(); ++i) {
    const StructField& x = a.field(i);
    const StructField& y = b.field(i);
    if (!EqualsIgnoreCase(x.name, y.name) || x.nullable != y.nullable ||
        SparkTypeString(*x.type) != SparkTypeString(*y.type)) {
      return false;
    }
  }
  return true;
}

// CREATE TABLE name (...) LOCATION 'p' where p already holds a Delta table: what the
// statement specifies must match the table (Spark's DELTA_CREATE_TABLE_SCHEMA_MISMATCH,
// ..._WITH_DIFFERENT_PARTITIONING, ..._WITH_DIFFERENT_PROPERTY).
Status CheckAdoptable(const CreateTableStmt& stmt, const Snapshot& existing,
                      const std::string& location) {
  const std::string shown = stmt.table.ToString();
  if (stmt.as_select) {
    return MakeError(ErrorCode::kAlreadyExists,
                     "DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION: cannot create table "
                     "'{}' AS SELECT: location '{}' already holds a Delta table (version "
                     "{}); use CREATE OR REPLACE TABLE to replace it",
                     shown, location, existing.version());
  }
  if (stmt.schema && !SameColumns(*existing.schema(), *stmt.schema)) {
    return MakeError(
        ErrorCode::kSchemaMismatch,
        "DELTA_CREATE_TABLE_SCHEMA_MISMATCH: the columns of CREATE TABLE {} "
        "do not match the existing Delta table at '{}' (leave out the column "
        "list to use the existing table's).\n{}",
        shown, location,
        FormatSchemaComparison(*existing.schema(), *stmt.schema, "existing",
                               "specified"));
  }
  const auto& partitions = existing.metadata().partition_columns;
  if (!stmt.partitioned_by.empty()) {
    bool same = partitions.size() == stmt.partitioned_by.size();
    for (size_t i = 0; same && i < partitions.size(); ++i)
      same = EqualsIgnoreCase(partitions[i], stmt.partitioned_by[i]);
    if (!same) {
      return MakeError(ErrorCode::kSchemaMismatch,
                       "DELTA_CREATE_TABLE_WITH_DIFFERENT_PARTITIONING: CREATE TABLE {} "
                       "specifies partitioning [{}] but the existing Delta table at '{}' "
                       "is partitioned by [{}]",
                       shown, fmt::join(stmt.partitioned_by, ", "), location,
                       fmt::join(partitions, ", "));
    }
  }
  for (const auto& [key, value] : stmt.properties) {
    auto current = existing.metadata().GetConfig(key);
    if (!current || *current != value) {
      return MakeError(ErrorCode::kSchemaMismatch,
                       "DELTA_CREATE_TABLE_WITH_DIFFERENT_PROPERTY: CREATE TABLE {} sets "
                       "{} = '{}' but the existing Delta table at '{}' has {}",
                       shown, key, value, location,
                       current ? fmt::format("'{}'", *current) : std::string("no value"));
    }
  }
  return OkStatus();
}

// A directory that exists with entries and is not a Delta table.
Result<bool> NonEmptyNonDelta(const FileSystemRef& fs, const std::string& dir) {
  DELTA_ASSIGN_OR_RETURN(bool exists, fs->Exists(dir));
  if (!exists) return false;
  auto entries = fs->List(dir);
  if (!entries) return false;  // not a directory we can list: let the create decide
  return !entries->empty();
}

Result<BatchSource> QuerySource(SessionState& state, const SelectStmt& query) {
  DELTA_ASSIGN_OR_RETURN(QueryPlan plan, PlanQuery(query, state.Query()));
  return QueryPlanSource(plan, plan.source_name);
}

}  // namespace

Result<StatementResult> ExecuteCreateTable(SessionState& state,
                                           const CreateTableStmt& stmt) {
  const std::string shown = stmt.table.ToString();
  const FileSystemRef& fs = state.options.fs;
  if (!EqualsIgnoreCase(stmt.using_format, "delta")) {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "CREATE TABLE {} USING {}: deltaguard creates Delta tables only "
                     "(USING DELTA)",
                     shown, stmt.using_format);
  }
  if (stmt.as_select && stmt.schema) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "CREATE TABLE {} AS SELECT: a column list may not be given with AS "
                     "SELECT (the query's columns define the table)",
                     shown);
  }
  if (stmt.location && stmt.table.kind == TableRef::Kind::kPath) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "CREATE TABLE {}: LOCATION cannot be given for a path reference "
                     "(the path is the location)",
                     shown);
  }
  DELTA_ASSIGN_OR_RETURN(ResolvedTable table,
                         state.catalog.Resolve(stmt.table, state.current_database));
  std::string target = table.path;
  const bool named = stmt.table.kind == TableRef::Kind::kName;
  if (stmt.location) {
    DELTA_ASSIGN_OR_RETURN(target, NormalizeTablePath(*stmt.location));
    if (!table.managed && table.path != target) {
      return MakeError(
          ErrorCode::kAlreadyExists,
          "TABLE_OR_VIEW_ALREADY_EXISTS: table '{}' is already registered at "
          "'{}', not at '{}'",
          shown, table.path, target);
    }
    if (table.managed && table.exists) {
      return MakeError(ErrorCode::kAlreadyExists,
                       "TABLE_OR_VIEW_ALREADY_EXISTS: table '{}' already exists as a "
                       "managed table at '{}'",
                       shown, table.path);
    }
  }
  // The table the statement finds at its target.
  SnapshotRef existing;
  {
    DELTA_ASSIGN_OR_RETURN(bool has_log, fs->Exists(JoinPath(target, "_delta_log")));
    if (has_log) {
      auto snapshot = OpenSnapshot(fs, target);
      if (!snapshot) return NameTable(snapshot.error(), table, stmt.table);
      existing = *snapshot;
    }
  }
  const bool name_taken = existing && !(named && stmt.location && table.managed);
  const bool replace = stmt.or_replace || stmt.replace_only;
  const bool register_name = named && stmt.location && table.managed;

  auto finish = [&](WriteResult write, std::string message) -> Result<StatementResult> {
    if (register_name) {
      auto st = state.catalog.RegisterExternal(table, target);
      if (!st) return NameTable(st.error(), table, stmt.table);
    }
    StatementResult out = MessageResult("CREATE TABLE", std::move(message));
    out.write = std::move(write);
    return out;
  };

  if (existing && !replace) {
    if (!name_taken) {
      // CREATE TABLE name LOCATION over an existing Delta table: adopt it.
      DELTA_RETURN_IF_ERROR(CheckAdoptable(stmt, *existing, target));
      WriteResult none;
      none.skipped = true;
      none.skipped_reason = "existing table registered";
      return finish(none, fmt::format("Registered existing Delta table at '{}' as {} "
                                      "(version {})",
                                      target, shown, existing->version()));
    }
    if (stmt.if_not_exists) {
      StatementResult out = MessageResult(
          "CREATE TABLE", fmt::format("Table {} already exists; nothing done", shown));
      out.write = WriteResult{};
      out.write->skipped = true;
      out.write->skipped_reason = fmt::format("table '{}' already exists", shown);
      return out;
    }
    return MakeError(ErrorCode::kAlreadyExists,
                     "TABLE_OR_VIEW_ALREADY_EXISTS: table '{}' already exists (version "
                     "{}); use CREATE TABLE IF NOT EXISTS, or CREATE OR REPLACE TABLE to "
                     "replace it",
                     shown, existing->version());
  }
  if (!existing && stmt.replace_only) {
    return MakeError(ErrorCode::kNotFound,
                     "CANNOT_REPLACE_MISSING_TABLE: table '{}' cannot be replaced as it "
                     "does not exist; use CREATE OR REPLACE TABLE to create it",
                     shown);
  }
  if (!existing) {
    DELTA_ASSIGN_OR_RETURN(bool occupied, NonEmptyNonDelta(fs, target));
    if (occupied) {
      return MakeError(ErrorCode::kAlreadyExists,
                       "DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION: cannot create table "
                       "'{}': location '{}' is not empty and not a Delta table",
                       shown, target);
    }
  }
  if (!stmt.as_select && !stmt.schema) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "DELTA_SCHEMA_NOT_PROVIDED: CREATE TABLE {} needs a column list (or "
                     "AS SELECT, or a LOCATION holding a Delta table)",
                     shown);
  }

  CreateTableOptions create;
  create.schema = stmt.schema;
  create.partition_columns = stmt.partitioned_by;
  for (const auto& [k, v] : stmt.properties) create.properties.emplace_back(k, v);
  create.description = stmt.comment;
  create.managed = named && !stmt.location && table.managed;

  std::optional<BatchSource> data;
  if (stmt.as_select) {
    auto source = QuerySource(state, *stmt.as_select);
    if (!source) return NameTable(source.error(), table, stmt.table);
    data = std::move(*source);
  }
  Result<WriteResult> written = WriteResult{};
  std::string verb = "Created";
  if (replace) {
    std::string operation =
        stmt.replace_only ? "REPLACE TABLE" : "CREATE OR REPLACE TABLE";
    if (stmt.as_select) operation += " AS SELECT";
    written = ReplaceTable(fs, target, create, std::move(data), operation,
                           state.options.settings);
    if (existing) verb = "Replaced";
  } else if (stmt.as_select && !stmt.comment) {
    WriteOptions options;
    options.mode = WriteMode::kErrorIfExists;
    options.partition_by = stmt.partitioned_by;
    options.properties = create.properties;
    options.operation = "CREATE TABLE AS SELECT";
    options.check = SessionCheck(state);
    std::vector<BatchSource> sources;
    sources.push_back(std::move(*data));
    auto checked = WriteWithSessionCheck(state, target, std::move(sources), options);
    written = checked ? Result<WriteResult>(std::move(checked->write))
                      : Result<WriteResult>(checked.error());
  } else if (stmt.as_select) {
    // WriteOptions has no description: a commented CTAS goes through ReplaceTable,
    // which creates the table in the same single commit.
    written = ReplaceTable(fs, target, create, std::move(data), "CREATE TABLE AS SELECT",
                           state.options.settings);
  } else {
    written = CreateTable(fs, target, create, state.options.settings);
  }
  if (!written) return NameTable(written.error(), table, stmt.table);
  std::string message =
      stmt.as_select
          ? fmt::format("{} table {} with {} (version {})", verb, shown,
                        Plural(written->rows, "row"), written->version)
          : fmt::format("{} table {} (version {})", verb, shown, written->version);
  return finish(std::move(*written), std::move(message));
}

Result<StatementResult> ExecuteDropTable(SessionState& state, const DropTableStmt& stmt) {
  const std::string shown = stmt.table.ToString();
  if (stmt.table.kind == TableRef::Kind::kPath) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "DROP TABLE {}: a path reference names no catalog entry; delete the "
                     "directory to remove the table",
                     shown);
  }
  if (stmt.table.parts.size() == 1) {
    // As in Spark, DROP TABLE also drops a temporary view of that name.
    if (state.temp_views.erase(LowerName(stmt.table.parts[0])) > 0) {
      return MessageResult("DROP TABLE", fmt::format("Dropped temporary view {}", shown));
    }
  }
  DELTA_ASSIGN_OR_RETURN(ResolvedTable table,
                         state.catalog.Resolve(stmt.table, state.current_database));
  if (!table.exists && table.managed) {
    if (stmt.if_exists) {
      return MessageResult("DROP TABLE",
                           fmt::format("Table {} does not exist; nothing done", shown));
    }
    return MakeError(
        ErrorCode::kNotFound,
        "TABLE_OR_VIEW_NOT_FOUND: table '{}' does not exist in database '{}'", shown,
        table.database);
  }
  auto st = state.catalog.DropTable(table);
  if (!st) return NameTable(st.error(), table, stmt.table);
  return MessageResult("DROP TABLE",
                       table.managed
                           ? fmt::format("Dropped table {} and deleted its data", shown)
                           : fmt::format("Dropped table {} (its data at '{}' is kept)",
                                         shown, table.path));
}

}  // namespace deltaguard::internal
