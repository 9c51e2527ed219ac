// Session: statement dispatch, scripts, and the statements that only change the
// session or the catalog (SET, RESET, USE, databases, temp views). Tables are handled in
// session_ddl.cc, session_insert.cc and session_describe.cc.

#include "deltaguard/sql/session.h"

#include <arrow/table.h>
#include <fmt/format.h>

#include <chrono>
#include <type_traits>
#include <utility>

#include "deltaguard/arrow/status.h"
#include "deltaguard/sql/parse/sql_parser.h"
#include "deltaguard/sql/query.h"
#include "deltaguard/sql/session_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

using internal::MessageResult;
using internal::RowsBuilder;
using internal::SessionState;

// Settings deltaguard interprets, under their Spark names: SET shows their values and
// SessionSettings::Set validates new ones.
struct KnownSetting {
  std::string_view key;
  std::string (*get)(const SessionSettings&);
};
constexpr KnownSetting kKnownSettings[] = {
    {"spark.databricks.delta.schema.autoMerge.enabled",
     [](const SessionSettings& s) -> std::string {
       return s.auto_merge ? "true" : "false";
     }},
    {"deltaguard.merge.ignoreUnmatchedSourceColumns",
     [](const SessionSettings& s) -> std::string {
       return s.merge_ignore_unmatched_source_columns ? "true" : "false";
     }},
    {"deltaguard.merge.sourceMemoryLimit",
     [](const SessionSettings& s) -> std::string {
       return std::to_string(s.merge_source_memory_limit);
     }},
    {"deltaguard.query.memoryLimit",
     [](const SessionSettings& s) -> std::string {
       return std::to_string(s.query_memory_limit);
     }},
    {"deltaguard.contract",
     [](const SessionSettings& s) -> std::string { return s.contract_file; }},
    {"deltaguard.check",
     [](const SessionSettings& s) -> std::string { return s.check_tests; }},
    {"deltaguard.check.onFailure",
     [](const SessionSettings& s) -> std::string { return s.check_on_failure; }},
    {"deltaguard.check.baseline",
     [](const SessionSettings& s) -> std::string { return s.check_baseline; }},
    {"spark.databricks.delta.retentionDurationCheck.enabled",
     [](const SessionSettings& s) -> std::string {
       return s.retention_duration_check ? "true" : "false";
     }},
    {"spark.databricks.delta.vacuum.logging.enabled",
     [](const SessionSettings& s) -> std::string {
       return s.vacuum_logging ? "true" : "false";
     }},
};

const KnownSetting* FindKnownSetting(std::string_view key) {
  for (const auto& setting : kKnownSettings) {
    if (EqualsIgnoreCase(setting.key, Trim(key))) return &setting;
  }
  return nullptr;
}

RowsBuilder SettingRows() {
  RowsBuilder rows;
  rows.Column("key", RowsBuilder::Type::kString, false)
      .Column("value", RowsBuilder::Type::kString);
  return rows;
}

// SET k = v / SET k / SET / RESET [k].
Result<StatementResult> ExecuteSet(SessionState& state, const SetStmt& stmt) {
  SessionSettings& settings = state.options.settings;
  if (stmt.reset) {
    if (!stmt.key) {
      // Spark's RESET restores every setting's default.
      SessionSettings defaults;
      defaults.engine_info = settings.engine_info;
      settings = defaults;
      state.other_settings.clear();
      return MessageResult("RESET", "Reset all settings to their defaults");
    }
    if (const KnownSetting* known = FindKnownSetting(*stmt.key)) {
      SessionSettings defaults;
      DELTA_RETURN_IF_ERROR(settings.Set(known->key, known->get(defaults)));
    } else {
      state.other_settings.erase(std::string(Trim(*stmt.key)));
    }
    return MessageResult("RESET", fmt::format("Reset {}", Trim(*stmt.key)));
  }
  RowsBuilder rows = SettingRows();
  if (!stmt.key) {
    std::map<std::string, std::string> all = state.other_settings;
    for (const auto& known : kKnownSettings)
      all[std::string(known.key)] = known.get(settings);
    for (const auto& [k, v] : all) rows.Row({k, v});
    return rows.Finish("SET", fmt::format("{} settings", all.size()));
  }
  const std::string key(Trim(*stmt.key));
  const KnownSetting* known = FindKnownSetting(key);
  if (stmt.value) {
    const std::string value(Trim(*stmt.value));
    if (known) {
      DELTA_RETURN_IF_ERROR(settings.Set(known->key, value));
      rows.Row({std::string(known->key), known->get(settings)});
    } else {
      // Spark accepts any key; deltaguard keeps it for SET to show.
      state.other_settings[key] = value;
      rows.Row({key, value});
    }
    return rows.Finish("SET", fmt::format("Set {} = {}", key, value));
  }
  if (known) {
    rows.Row({std::string(known->key), known->get(settings)});
  } else {
    auto it = state.other_settings.find(key);
    rows.Row({key, it == state.other_settings.end() ? std::string("<undefined>")
                                                    : it->second});
  }
  return rows.Finish("SET", key);
}

Result<StatementResult> ExecuteUse(SessionState& state, const UseStmt& stmt) {
  std::string name = internal::LowerName(stmt.database);
  if (!state.catalog.DatabaseExists(name)) {
    return MakeError(ErrorCode::kNotFound,
                     "SCHEMA_NOT_FOUND: database '{}' does not exist (create it with "
                     "CREATE DATABASE {})",
                     stmt.database, stmt.database);
  }
  state.current_database = name;
  return MessageResult("USE", fmt::format("Using database {}", name));
}

Result<StatementResult> ExecuteCreateDatabase(SessionState& state,
                                              const CreateDatabaseStmt& stmt) {
  std::string name = internal::LowerName(stmt.name);
  const bool existed = state.catalog.DatabaseExists(name);
  DELTA_RETURN_IF_ERROR(
      state.catalog.CreateDatabase(name, stmt.if_not_exists, stmt.location));
  return MessageResult("CREATE DATABASE",
                       existed ? fmt::format("Database {} already exists", name)
                               : fmt::format("Created database {}", name));
}

Result<StatementResult> ExecuteDropDatabase(SessionState& state,
                                            const DropDatabaseStmt& stmt) {
  std::string name = internal::LowerName(stmt.name);
  const bool existed = state.catalog.DatabaseExists(name);
  DELTA_RETURN_IF_ERROR(state.catalog.DropDatabase(name, stmt.if_exists, stmt.cascade));
  if (existed && state.current_database == name) state.current_database = "default";
  return MessageResult("DROP DATABASE",
                       existed ? fmt::format("Dropped database {}", name)
                               : fmt::format("Database {} does not exist", name));
}

Result<StatementResult> ExecuteCreateView(SessionState& state,
                                          const CreateViewStmt& stmt) {
  std::string name = internal::LowerName(stmt.name);
  if (state.temp_views.count(name) && !stmt.or_replace) {
    return MakeError(ErrorCode::kAlreadyExists,
                     "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS: temporary view '{}' already "
                     "exists (use CREATE OR REPLACE TEMP VIEW)",
                     stmt.name);
  }
  if (!stmt.query) {
    return MakeError(ErrorCode::kInvalidArgument, "view '{}' has no query", stmt.name);
  }
  // Analyze now, as Spark does: a view over a missing table or column fails here. The
  // view itself is planned again at each use, so it sees the tables' latest versions.
  auto plan = PlanQuery(*stmt.query, state.Query());
  if (!plan) return WithContext(plan.error(), fmt::format("view '{}'", stmt.name));
  state.temp_views[name] = stmt.query;
  return MessageResult("CREATE VIEW", fmt::format("Created temporary view {}", name));
}

Result<StatementResult> ExecuteDropView(SessionState& state, const DropViewStmt& stmt) {
  std::string name = internal::LowerName(stmt.name);
  if (state.temp_views.erase(name) == 0) {
    if (stmt.if_exists) {
      return MessageResult("DROP VIEW", fmt::format("View {} does not exist", name));
    }
    return MakeError(ErrorCode::kNotFound,
                     "TABLE_OR_VIEW_NOT_FOUND: temporary view '{}' does not exist",
                     stmt.name);
  }
  return MessageResult("DROP VIEW", fmt::format("Dropped temporary view {}", name));
}

int64_t SystemNowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Session::Session(SessionOptions options)
    : options_([&] {
        if (!options.fs) options.fs = MakeLocalFileSystem();
        return std::move(options);
      }()),
      catalog_(options_.fs, options_.warehouse) {}

Result<StatementResult> Session::Execute(const Statement& statement) {
  SessionState state{options_,
                     catalog_,
                     current_database_,
                     temp_views_,
                     other_settings_,
                     options_.clock_micros ? options_.clock_micros() : SystemNowMicros(),
                     &data_views_};
  auto result = std::visit(
      [&](const auto& stmt) -> Result<StatementResult> {
        using T = std::decay_t<decltype(stmt)>;
        if constexpr (std::is_same_v<T, SelectStmt>) {
          return internal::ExecuteSelect(state, stmt);
        } else if constexpr (std::is_same_v<T, CreateTableStmt>) {
          return internal::ExecuteCreateTable(state, stmt);
        } else if constexpr (std::is_same_v<T, CreateDatabaseStmt>) {
          return ExecuteCreateDatabase(state, stmt);
        } else if constexpr (std::is_same_v<T, DropDatabaseStmt>) {
          return ExecuteDropDatabase(state, stmt);
        } else if constexpr (std::is_same_v<T, CreateViewStmt>) {
          return ExecuteCreateView(state, stmt);
        } else if constexpr (std::is_same_v<T, DropViewStmt>) {
          return ExecuteDropView(state, stmt);
        } else if constexpr (std::is_same_v<T, InsertStmt>) {
          return internal::ExecuteInsert(state, stmt);
        } else if constexpr (std::is_same_v<T, DescribeTableStmt>) {
          return internal::ExecuteDescribeTable(state, stmt);
        } else if constexpr (std::is_same_v<T, DescribeHistoryStmt>) {
          return internal::ExecuteDescribeHistory(state, stmt);
        } else if constexpr (std::is_same_v<T, DescribeDetailStmt>) {
          return internal::ExecuteDescribeDetail(state, stmt);
        } else if constexpr (std::is_same_v<T, ShowTblPropertiesStmt>) {
          return internal::ExecuteShowTblProperties(state, stmt);
        } else if constexpr (std::is_same_v<T, ShowColumnsStmt>) {
          return internal::ExecuteShowColumns(state, stmt);
        } else if constexpr (std::is_same_v<T, ShowTablesStmt>) {
          return internal::ExecuteShowTables(state, stmt);
        } else if constexpr (std::is_same_v<T, ShowDatabasesStmt>) {
          return internal::ExecuteShowDatabases(state, stmt);
        } else if constexpr (std::is_same_v<T, SetStmt>) {
          return ExecuteSet(state, stmt);
        } else if constexpr (std::is_same_v<T, UseStmt>) {
          return ExecuteUse(state, stmt);
        } else if constexpr (std::is_same_v<T, DropTableStmt>) {
          return internal::ExecuteDropTable(state, stmt);
        } else if constexpr (std::is_same_v<T, AlterTableStmt>) {
          return internal::ExecuteAlterTable(state, stmt);
        } else if constexpr (std::is_same_v<T, MergeStmt>) {
          return internal::ExecuteMerge(state, stmt);
        } else if constexpr (std::is_same_v<T, UpdateStmt>) {
          return internal::ExecuteUpdate(state, stmt);
        } else if constexpr (std::is_same_v<T, DeleteStmt>) {
          return internal::ExecuteDelete(state, stmt);
        } else if constexpr (std::is_same_v<T, VacuumStmt>) {
          return internal::ExecuteVacuum(state, stmt);
        } else if constexpr (std::is_same_v<T, DescribeDriftStmt>) {
          return internal::ExecuteDescribeDrift(state, stmt);
        } else {
          static_assert(sizeof(T) == 0, "a statement without an executor");
        }
      },
      statement.body);
  if (!result) return result;
  result->kind = std::string(StatementKindName(statement.body));
  return result;
}

Status Session::RegisterDataView(const std::string& name,
                                 std::shared_ptr<arrow::Table> data) {
  if (name.empty() || name.find_first_of(" .`") != std::string::npos) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "view name '{}' must be one identifier (no spaces, dots or "
                     "backquotes)",
                     name);
  }
  if (data == nullptr) {
    return MakeError(ErrorCode::kInvalidArgument, "view '{}' has no data", name);
  }
  std::string key = AsciiToLower(name);
  temp_views_.erase(key);
  data_views_[key] = std::move(data);
  return OkStatus();
}

Status Session::DropDataView(const std::string& name) {
  if (data_views_.erase(AsciiToLower(name)) == 0) {
    return MakeError(ErrorCode::kNotFound, "no registered view named '{}'", name);
  }
  return OkStatus();
}

Result<StatementResult> Session::ExecuteSql(std::string_view sql) {
  DELTA_ASSIGN_OR_RETURN(Statement statement, ParseStatement(sql));
  return Execute(statement);
}

Status Session::ExecuteScript(
    std::string_view script,
    const std::function<Status(const Statement&, StatementResult&)>& on_result) {
  DELTA_ASSIGN_OR_RETURN(std::vector<Statement> statements, ParseSql(script));
  for (size_t i = 0; i < statements.size(); ++i) {
    const Statement& statement = statements[i];
    const std::string where =
        fmt::format("statement {} (line {})", i + 1, statement.line);
    auto result = Execute(statement);
    if (!result) return WithContext(result.error(), where);
    if (on_result) {
      auto st = on_result(statement, *result);
      if (!st) return WithContext(st.error(), where);
    }
  }
  return OkStatus();
}

Result<std::shared_ptr<arrow::Table>> CollectRows(StatementResult& result) {
  if (!result.schema) return std::shared_ptr<arrow::Table>();
  if (!result.rows) {
    DELTA_ARROW_ASSIGN_OR_RETURN(auto empty, arrow::Table::MakeEmpty(result.schema),
                                 ErrorCode::kInternal, "result rows");
    return empty;
  }
  DELTA_ARROW_ASSIGN_OR_RETURN(auto table, result.rows->ToTable(), ErrorCode::kIOError,
                               fmt::format("{} result rows", result.kind));
  return table;
}

}  // namespace deltaguard
