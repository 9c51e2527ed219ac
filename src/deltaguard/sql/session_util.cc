// Helpers shared by the Session's statement executors (session_internal.h).

#include <arrow/builder.h>
#include <arrow/record_batch.h>
#include <fmt/format.h>

#include <chrono>
#include <utility>

#include "deltaguard/arrow/status.h"
#include "deltaguard/contract/parse.h"
#include "deltaguard/exec/spill_file.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/sql/session_internal.h"
#include "deltaguard/table/quarantine.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/write.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {

QueryContext SessionState::Query() const {
  QueryContext context;
  context.fs = options.fs;
  context.catalog = &catalog;
  context.current_database = current_database;
  context.temp_views = &temp_views;
  context.data_views = data_views;
  context.now_micros = now_micros;
  context.memory = std::make_shared<QueryMemory>(options.settings.query_memory_limit,
                                                 SpillDirectory());
  return context;
}

RowsBuilder& RowsBuilder::Column(std::string name, Type type, bool nullable) {
  columns_.push_back({std::move(name), type, nullable});
  return *this;
}

namespace {

std::shared_ptr<arrow::DataType> ArrowTypeOf(RowsBuilder::Type type) {
  switch (type) {
    case RowsBuilder::Type::kString:
      return arrow::utf8();
    case RowsBuilder::Type::kInt64:
      return arrow::int64();
    case RowsBuilder::Type::kInt32:
      return arrow::int32();
    case RowsBuilder::Type::kBool:
      return arrow::boolean();
    case RowsBuilder::Type::kTimestamp:
      return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
    case RowsBuilder::Type::kStringList:
      return arrow::list(arrow::utf8());
  }
  return arrow::utf8();
}

// Append one cell to `builder` (created by arrow::MakeBuilder for ArrowTypeOf(type)).
arrow::Status AppendCell(arrow::ArrayBuilder* builder, RowsBuilder::Type type,
                         const RowsBuilder::Cell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return builder->AppendNull();
  switch (type) {
    case RowsBuilder::Type::kString:
      if (auto* s = std::get_if<std::string>(&cell))
        return static_cast<arrow::StringBuilder*>(builder)->Append(*s);
      break;
    case RowsBuilder::Type::kInt64:
      if (auto* v = std::get_if<int64_t>(&cell))
        return static_cast<arrow::Int64Builder*>(builder)->Append(*v);
      break;
    case RowsBuilder::Type::kInt32:
      if (auto* v = std::get_if<int64_t>(&cell))
        return static_cast<arrow::Int32Builder*>(builder)->Append(
            static_cast<int32_t>(*v));
      break;
    case RowsBuilder::Type::kBool:
      if (auto* v = std::get_if<bool>(&cell))
        return static_cast<arrow::BooleanBuilder*>(builder)->Append(*v);
      break;
    case RowsBuilder::Type::kTimestamp:
      if (auto* v = std::get_if<int64_t>(&cell))
        return static_cast<arrow::TimestampBuilder*>(builder)->Append(*v);
      break;
    case RowsBuilder::Type::kStringList:
      if (auto* v = std::get_if<std::vector<std::string>>(&cell)) {
        auto* list = static_cast<arrow::ListBuilder*>(builder);
        ARROW_RETURN_NOT_OK(list->Append());
        auto* values = static_cast<arrow::StringBuilder*>(list->value_builder());
        for (const auto& s : *v) ARROW_RETURN_NOT_OK(values->Append(s));
        return arrow::Status::OK();
      }
      break;
  }
  return arrow::Status::Invalid("result cell does not match its column type");
}

}  // namespace

Result<StatementResult> RowsBuilder::Finish(std::string kind, std::string message) const {
  arrow::FieldVector fields;
  std::vector<std::shared_ptr<arrow::Array>> arrays;
  for (size_t c = 0; c < columns_.size(); ++c) {
    const ColumnSpec& spec = columns_[c];
    auto type = ArrowTypeOf(spec.type);
    fields.push_back(arrow::field(spec.name, type, spec.nullable));
    const std::string context = fmt::format("result column '{}'", spec.name);
    DELTA_ARROW_ASSIGN_OR_RETURN(std::unique_ptr<arrow::ArrayBuilder> builder,
                                 arrow::MakeBuilder(type), ErrorCode::kInternal, context);
    for (const auto& row : rows_) {
      const Cell& cell = c < row.size() ? row[c] : Cell{};
      DELTA_ARROW_RETURN_NOT_OK(AppendCell(builder.get(), spec.type, cell),
                                ErrorCode::kInternal, context);
    }
    DELTA_ARROW_ASSIGN_OR_RETURN(auto array, builder->Finish(), ErrorCode::kInternal,
                                 context);
    arrays.push_back(std::move(array));
  }
  auto schema = arrow::schema(std::move(fields));
  auto batch =
      arrow::RecordBatch::Make(schema, static_cast<int64_t>(rows_.size()), arrays);
  DELTA_ARROW_ASSIGN_OR_RETURN(auto reader,
                               arrow::RecordBatchReader::Make({batch}, schema),
                               ErrorCode::kInternal, "result rows");
  StatementResult result;
  result.kind = std::move(kind);
  result.schema = std::move(schema);
  result.rows = std::move(reader);
  result.message = std::move(message);
  return result;
}

StatementResult MessageResult(std::string kind, std::string message) {
  StatementResult result;
  result.kind = std::move(kind);
  result.message = std::move(message);
  return result;
}

std::string SparkTypeString(const DataType& type) {
  return CatalogTypeString(type, {}, /*quote_names=*/false);
}

std::string LowerName(std::string_view name) { return AsciiToLower(name); }

Result<ResolvedTable> ResolveExisting(const SessionState& state, const TableRef& ref) {
  DELTA_ASSIGN_OR_RETURN(ResolvedTable table,
                         state.catalog.Resolve(ref, state.current_database));
  if (!table.exists) {
    if (ref.kind == TableRef::Kind::kPath) {
      return MakeError(ErrorCode::kNotFound,
                       "DELTA_TABLE_NOT_FOUND: {} is not a Delta table: '{}' has no "
                       "_delta_log directory",
                       ref.ToString(), table.path);
    }
    return MakeError(ErrorCode::kNotFound,
                     "TABLE_OR_VIEW_NOT_FOUND: table '{}' does not exist in database "
                     "'{}'",
                     ref.ToString(), table.database);
  }
  return table;
}

Error NameTable(Error error, const ResolvedTable& table, const TableRef& ref) {
  if (table.path.empty()) return error;
  const std::string shown = ref.ToString();
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t at = error.message.find(table.path, pos);
    if (at == std::string::npos) break;
    // Only whole paths: the next character must end the path (not "/part-0001...").
    size_t end = at + table.path.size();
    if (end < error.message.size() && error.message[end] != '\'' &&
        error.message[end] != '"' && error.message[end] != ' ' &&
        error.message[end] != ':' && error.message[end] != ',') {
      out.append(error.message, pos, end - pos);
      pos = end;
      continue;
    }
    out.append(error.message, pos, at - pos);
    out += shown;
    pos = end;
  }
  out.append(error.message, pos, std::string::npos);
  error.message = std::move(out);
  return error;
}

Result<SnapshotRef> LoadTable(const SessionState& state, const ResolvedTable& table,
                              const TableRef& ref) {
  auto snapshot = OpenSnapshot(state.options.fs, table.path);
  if (!snapshot) return NameTable(snapshot.error(), table, ref);
  return snapshot;
}

Result<QueryPlan> PlanSourceQuery(const SessionState& state, const FromClause& source,
                                  std::string_view statement) {
  SelectStmt query;
  SelectItem star;
  star.star = true;
  star.text = "*";
  query.items.push_back(std::move(star));
  query.from = source;
  auto plan = PlanQuery(query, state.Query());
  if (!plan) return WithContext(plan.error(), fmt::format("source of {}", statement));
  return plan;
}

bool MatchesLikePattern(std::string_view pattern, std::string_view name) {
  // Glob match of one alternative, '*' = any run; iterative with backtracking.
  auto match = [](std::string_view p, std::string_view s) {
    size_t pi = 0, si = 0, star = std::string_view::npos, mark = 0;
    while (si < s.size()) {
      if (pi < p.size() && p[pi] == '*') {
        star = pi++;
        mark = si;
      } else if (pi < p.size() && AsciiToLower(p[pi]) == AsciiToLower(s[si])) {
        ++pi;
        ++si;
      } else if (star != std::string_view::npos) {
        pi = star + 1;
        si = ++mark;
      } else {
        return false;
      }
    }
    while (pi < p.size() && p[pi] == '*') ++pi;
    return pi == p.size();
  };
  for (auto alternative : Split(pattern, '|')) {
    if (match(Trim(alternative), name)) return true;
  }
  return false;
}

Result<std::shared_ptr<const Contract>> SessionContract(const SessionState& state) {
  const std::string& file = state.options.settings.contract_file;
  if (file.empty()) return std::shared_ptr<const Contract>();
  auto contract = LoadContract(*state.options.fs, file);
  if (!contract) {
    return WithContext(contract.error(), "SET deltaguard.contract");
  }
  return std::make_shared<const Contract>(std::move(*contract));
}

std::optional<WriteCheckOptions> SessionCheck(const SessionState& state) {
  const SessionSettings& s = state.options.settings;
  if (s.check_tests.empty()) return std::nullopt;
  WriteCheckOptions check;
  check.tests = s.check_tests;
  check.baseline = s.check_baseline;
  constexpr std::string_view kQuarantine = "quarantine=";
  if (s.check_on_failure.rfind(kQuarantine, 0) == 0) {
    check.on_failure = CheckFailureAction::kQuarantine;
    check.quarantine = s.check_on_failure.substr(kQuarantine.size());
  } else {
    check.on_failure = s.check_on_failure == "warn" ? CheckFailureAction::kWarn
                                                    : CheckFailureAction::kFail;
  }
  return check;
}

Result<CheckedWrite> WriteWithSessionCheck(const SessionState& state,
                                           const std::string& path,
                                           std::vector<BatchSource> sources,
                                           const WriteOptions& options) {
  CheckedWrite out;
  if (options.check && options.check->on_failure == CheckFailureAction::kQuarantine) {
    DELTA_ASSIGN_OR_RETURN(
        auto q, WriteWithQuarantine(state.options.fs, path, std::move(sources), options,
                                    options.check->quarantine, state.options.settings));
    out.write = std::move(q.table);
    out.quarantined_rows = q.quarantined_rows;
    out.quarantine = options.check->quarantine;
    return out;
  }
  DELTA_ASSIGN_OR_RETURN(out.write, WriteTable(state.options.fs, path, std::move(sources),
                                               options, state.options.settings));
  return out;
}

}  // namespace deltaguard::internal
