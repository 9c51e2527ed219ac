// DESCRIBE [EXTENDED], DESCRIBE HISTORY, DESCRIBE DETAIL, SHOW TBLPROPERTIES, SHOW
// COLUMNS, SHOW TABLES and SHOW DATABASES, with Spark's columns. Spark's map- and
// struct-valued columns (operationParameters, operationMetrics, job, notebook,
// properties) are rendered as JSON object text.

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <utility>

#include "deltaguard/protocol/protocol.h"
#include "deltaguard/sql/session_internal.h"
#include "deltaguard/table/alter.h"
#include "deltaguard/util/json_bounded.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {
namespace {

using Type = RowsBuilder::Type;
using Cell = RowsBuilder::Cell;

std::string FileUri(const std::string& path) { return "file:" + path; }

// The name shown in DESCRIBE EXTENDED / DETAIL: "db.table", or the path reference.
std::string QualifiedName(const ResolvedTable& table, const TableRef& ref) {
  if (ref.kind == TableRef::Kind::kPath) return ref.ToString();
  return table.database + "." + table.name;
}

// A temp view named by a one-part reference, or null.
const SelectRef* FindView(const SessionState& state, const TableRef& ref) {
  if (ref.kind != TableRef::Kind::kName || ref.parts.size() != 1) return nullptr;
  auto it = state.temp_views.find(LowerName(ref.parts[0]));
  return it == state.temp_views.end() ? nullptr : &it->second;
}

// The columns of a table or temp view.
Result<SchemaRef> ColumnsOf(SessionState& state, const TableRef& ref) {
  if (const SelectRef* view = FindView(state, ref)) {
    DELTA_ASSIGN_OR_RETURN(QueryPlan plan, PlanQuery(**view, state.Query()));
    return plan.schema;
  }
  DELTA_ASSIGN_OR_RETURN(ResolvedTable table, ResolveExisting(state, ref));
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot, LoadTable(state, table, ref));
  return snapshot->schema();
}

// A member of a commitInfo object as a cell of `type` (NULL when absent or mistyped);
// objects become compact JSON text.
Cell Member(const rapidjson::Value& object, const char* name, Type type) {
  if (!object.IsObject()) return {};
  auto it = object.FindMember(name);
  if (it == object.MemberEnd() || it->value.IsNull()) return {};
  const rapidjson::Value& v = it->value;
  switch (type) {
    case Type::kInt64:
      if (v.IsInt64()) return v.GetInt64();
      if (v.IsString()) {
        char* end = nullptr;
        long long parsed = std::strtoll(v.GetString(), &end, 10);
        if (end && *end == '\0') return static_cast<int64_t>(parsed);
      }
      return {};
    case Type::kBool:
      if (v.IsBool()) return v.GetBool();
      return {};
    default:
      if (v.IsString()) return std::string(v.GetString(), v.GetStringLength());
      {
        rapidjson::StringBuffer buffer;
        rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
        v.Accept(writer);
        return std::string(buffer.GetString(), buffer.GetSize());
      }
  }
}

}  // namespace

Result<StatementResult> ExecuteDescribeTable(SessionState& state,
                                             const DescribeTableStmt& stmt) {
  RowsBuilder rows;
  rows.Column("col_name", Type::kString, false)
      .Column("data_type", Type::kString)
      .Column("comment", Type::kString)
      .Column("nullable", Type::kBool);
  auto column_row = [](const StructField& f) -> std::vector<Cell> {
    auto comment = f.comment();
    return {f.name, SparkTypeString(*f.type),
            comment ? Cell(*comment) : Cell(std::monostate{}), f.nullable};
  };
  const std::string shown = stmt.table.ToString();
  if (FindView(state, stmt.table)) {
    DELTA_ASSIGN_OR_RETURN(SchemaRef schema, ColumnsOf(state, stmt.table));
    for (const auto& f : schema->fields()) rows.Row(column_row(f));
    return rows.Finish("DESCRIBE", fmt::format("temporary view {}", shown));
  }
  DELTA_ASSIGN_OR_RETURN(ResolvedTable table, ResolveExisting(state, stmt.table));
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot, LoadTable(state, table, stmt.table));
  const StructType& schema = *snapshot->schema();
  for (const auto& f : schema.fields()) rows.Row(column_row(f));
  const auto& partitions = snapshot->metadata().partition_columns;
  if (!partitions.empty()) {
    rows.Row({std::string("# Partition Information"), std::string(), std::string(), {}});
    rows.Row({std::string("# col_name"),
              std::string("data_type"),
              std::string("comment"),
              {}});
    for (const auto& name : partitions) {
      const int at = schema.FieldIndexCaseInsensitive(name);
      if (at >= 0) rows.Row(column_row(schema.field(static_cast<size_t>(at))));
    }
  }
  if (stmt.extended) {
    auto info = [&](std::string key, std::string value) {
      rows.Row({std::move(key), std::move(value), std::string(), {}});
    };
    info("", "");
    info("# Detailed Table Information", "");
    info("Name", QualifiedName(table, stmt.table));
    info("Type", stmt.table.kind == TableRef::Kind::kPath
                     ? "PATH"
                     : (table.managed ? "MANAGED" : "EXTERNAL"));
    info("Location", FileUri(snapshot->table_root()));
    info("Provider", "delta");
    info("Version", std::to_string(snapshot->version()));
    if (snapshot->metadata().description) {
      info("Comment", *snapshot->metadata().description);
    }
    std::vector<std::string> props;
    props.push_back(fmt::format("delta.minReaderVersion={}",
                                snapshot->protocol().min_reader_version));
    props.push_back(fmt::format("delta.minWriterVersion={}",
                                snapshot->protocol().min_writer_version));
    for (const auto& [k, v] : snapshot->metadata().configuration)
      props.push_back(k + "=" + v);
    std::sort(props.begin(), props.end());
    info("Table Properties", fmt::format("[{}]", fmt::join(props, ",")));
  }
  return rows.Finish("DESCRIBE",
                     fmt::format("table {} (version {})", shown, snapshot->version()));
}

Result<StatementResult> ExecuteDescribeHistory(SessionState& state,
                                               const DescribeHistoryStmt& stmt) {
  DELTA_ASSIGN_OR_RETURN(ResolvedTable table, ResolveExisting(state, stmt.table));
  auto history = ReadHistory(*state.options.fs, table.path);
  if (!history) return NameTable(history.error(), table, stmt.table);
  RowsBuilder rows;
  rows.Column("version", Type::kInt64, false)
      .Column("timestamp", Type::kTimestamp, false)
      .Column("userId", Type::kString)
      .Column("userName", Type::kString)
      .Column("operation", Type::kString)
      .Column("operationParameters", Type::kString)
      .Column("job", Type::kString)
      .Column("notebook", Type::kString)
      .Column("clusterId", Type::kString)
      .Column("readVersion", Type::kInt64)
      .Column("isolationLevel", Type::kString)
      .Column("isBlindAppend", Type::kBool)
      .Column("operationMetrics", Type::kString)
      .Column("userMetadata", Type::kString)
      .Column("engineInfo", Type::kString);
  if (stmt.limit && *stmt.limit < 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "DESCRIBE HISTORY {} LIMIT {}: the limit must not be negative",
                     stmt.table.ToString(), *stmt.limit);
  }
  int64_t left = stmt.limit.value_or(INT64_MAX);
  for (auto it = history->rbegin(); it != history->rend() && left > 0; ++it, --left) {
    rapidjson::Document doc;
    if (it->commit_info) ParseBoundedJson(it->commit_info->raw_json, &doc);
    const rapidjson::Value& info = doc;  // not an object when absent or unparseable
    auto text = [&](const char* name) { return Member(info, name, Type::kString); };
    rows.Row({it->version, it->timestamp_ms * 1000, text("userId"), text("userName"),
              text("operation"), text("operationParameters"), text("job"),
              text("notebook"), text("clusterId"),
              Member(info, "readVersion", Type::kInt64), text("isolationLevel"),
              Member(info, "isBlindAppend", Type::kBool), text("operationMetrics"),
              text("userMetadata"), text("engineInfo")});
  }
  return rows.Finish("DESCRIBE HISTORY",
                     fmt::format("{} of {} versions of {}", rows.num_rows(),
                                 history->size(), stmt.table.ToString()));
}

Result<StatementResult> ExecuteDescribeDetail(SessionState& state,
                                              const DescribeDetailStmt& stmt) {
  DELTA_ASSIGN_OR_RETURN(ResolvedTable table, ResolveExisting(state, stmt.table));
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot, LoadTable(state, table, stmt.table));
  const Metadata& md = snapshot->metadata();
  int64_t size = 0;
  for (const auto& add : snapshot->files()) size += add.size;
  RowsBuilder rows;
  rows.Column("format", Type::kString)
      .Column("id", Type::kString)
      .Column("name", Type::kString)
      .Column("description", Type::kString)
      .Column("location", Type::kString)
      .Column("createdAt", Type::kTimestamp)
      .Column("lastModified", Type::kTimestamp)
      .Column("partitionColumns", Type::kStringList)
      .Column("clusteringColumns", Type::kStringList)
      .Column("numFiles", Type::kInt64)
      .Column("sizeInBytes", Type::kInt64)
      .Column("properties", Type::kString)
      .Column("minReaderVersion", Type::kInt32)
      .Column("minWriterVersion", Type::kInt32)
      .Column("tableFeatures", Type::kStringList);
  Cell name = stmt.table.kind == TableRef::Kind::kPath
                  ? Cell()
                  : Cell(QualifiedName(table, stmt.table));
  rows.Row({std::string("delta"), md.id, name,
            md.description ? Cell(*md.description) : Cell(),
            FileUri(snapshot->table_root()),
            md.created_time ? Cell(*md.created_time * 1000) : Cell(),
            snapshot->timestamp_ms() * 1000, md.partition_columns,
            std::vector<std::string>{}, static_cast<int64_t>(snapshot->files().size()),
            size, StringMapToJson(md.configuration),
            static_cast<int64_t>(snapshot->protocol().min_reader_version),
            static_cast<int64_t>(snapshot->protocol().min_writer_version),
            EffectiveFeatures(snapshot->protocol())});
  return rows.Finish(
      "DESCRIBE DETAIL",
      fmt::format("table {} (version {})", stmt.table.ToString(), snapshot->version()));
}

Result<StatementResult> ExecuteShowTblProperties(SessionState& state,
                                                 const ShowTblPropertiesStmt& stmt) {
  DELTA_ASSIGN_OR_RETURN(ResolvedTable table, ResolveExisting(state, stmt.table));
  DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot, LoadTable(state, table, stmt.table));
  // Spark's order: the configuration, the protocol versions, then (table features)
  // delta.feature.<name> = supported.
  StringMap props = ShowTableProperties(*snapshot);
  RowsBuilder rows;
  rows.Column("key", Type::kString, false).Column("value", Type::kString);
  if (stmt.key) {
    auto value = FindIgnoreCase(props, *stmt.key);
    // Spark answers a missing key with a row that says so.
    rows.Row({*stmt.key, value
                             ? *value
                             : fmt::format("Table {} does not have property: {}",
                                           QualifiedName(table, stmt.table), *stmt.key)});
  } else {
    for (auto& [k, v] : props) rows.Row({k, v});
  }
  return rows.Finish(
      "SHOW TBLPROPERTIES",
      fmt::format("table {} (version {})", stmt.table.ToString(), snapshot->version()));
}

Result<StatementResult> ExecuteShowColumns(SessionState& state,
                                           const ShowColumnsStmt& stmt) {
  DELTA_ASSIGN_OR_RETURN(SchemaRef schema, ColumnsOf(state, stmt.table));
  RowsBuilder rows;
  rows.Column("col_name", Type::kString, false);
  for (const auto& f : schema->fields()) rows.Row({f.name});
  return rows.Finish("SHOW COLUMNS", stmt.table.ToString());
}

Result<StatementResult> ExecuteShowTables(SessionState& state,
                                          const ShowTablesStmt& stmt) {
  const std::string database =
      stmt.database ? LowerName(*stmt.database) : state.current_database;
  if (!state.catalog.DatabaseExists(database)) {
    return MakeError(ErrorCode::kNotFound,
                     "SCHEMA_NOT_FOUND: database '{}' does not exist",
                     stmt.database ? *stmt.database : database);
  }
  DELTA_ASSIGN_OR_RETURN(std::vector<std::string> tables,
                         state.catalog.ListTables(database));
  RowsBuilder rows;
  rows.Column("namespace", Type::kString, false)
      .Column("tableName", Type::kString, false)
      .Column("isTemporary", Type::kBool, false);
  auto wanted = [&](const std::string& name) {
    return !stmt.pattern || MatchesLikePattern(*stmt.pattern, name);
  };
  for (const auto& name : tables) {
    if (wanted(name)) rows.Row({database, name, false});
  }
  for (const auto& [name, view] : state.temp_views) {
    if (wanted(name)) rows.Row({std::string(), name, true});
  }
  return rows.Finish("SHOW TABLES", fmt::format("database {}", database));
}

Result<StatementResult> ExecuteShowDatabases(SessionState& state,
                                             const ShowDatabasesStmt& stmt) {
  DELTA_ASSIGN_OR_RETURN(std::vector<std::string> databases,
                         state.catalog.ListDatabases());
  RowsBuilder rows;
  rows.Column("namespace", Type::kString, false);
  for (const auto& name : databases) {
    if (!stmt.pattern || MatchesLikePattern(*stmt.pattern, name)) rows.Row({name});
  }
  return rows.Finish("SHOW DATABASES", fmt::format("{} databases", rows.num_rows()));
}

}  // namespace deltaguard::internal
