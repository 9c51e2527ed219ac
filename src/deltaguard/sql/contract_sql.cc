#include "deltaguard/sql/contract_sql.h"

#include <arrow/array.h>
#include <arrow/scalar.h>
#include <arrow/table.h>
#include <fmt/format.h>

#include <variant>

#include "deltaguard/sql/parse/sql_parser.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {

SqlMetricRunner MakeSqlMetricRunner(SessionOptions options) {
  return [options](const std::string& query) -> Result<double> {
    DELTA_ASSIGN_OR_RETURN(Statement statement, ParseStatement(query));
    if (!std::holds_alternative<SelectStmt>(statement.body)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "sql rule '{}' is not a SELECT: rules only read",
                       EscapeForMessage(query));
    }
    Session session(options);
    DELTA_ASSIGN_OR_RETURN(StatementResult result, session.Execute(statement));
    DELTA_ASSIGN_OR_RETURN(auto table, CollectRows(result));
    if (!table || table->num_rows() != 1 || table->num_columns() < 1) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "sql rule '{}' returned {} rows; it must return one row with a "
                       "number",
                       EscapeForMessage(query), table ? table->num_rows() : 0);
    }
    auto scalar = table->column(0)->GetScalar(0);
    if (!scalar.ok()) {
      return MakeError(ErrorCode::kInternal, "sql rule '{}': {}", EscapeForMessage(query),
                       scalar.status().ToString());
    }
    if (!(*scalar)->is_valid) return 0.0;
    auto as_double = (*scalar)->CastTo(arrow::float64());
    if (!as_double.ok()) {
      return MakeError(
          ErrorCode::kInvalidArgument, "sql rule '{}' returned {} ({}), not a number",
          EscapeForMessage(query), (*scalar)->ToString(), (*scalar)->type->ToString());
    }
    return std::static_pointer_cast<arrow::DoubleScalar>(*as_double)->value;
  };
}

Result<ContractTestReport> TestContractWithSql(const Contract& contract,
                                               const ContractObject& object,
                                               const SnapshotRef& snapshot,
                                               SessionOptions options) {
  ContractTestOptions test;
  // The version tested, not the latest: sql rules see what the other checks see.
  test.table_sql =
      fmt::format("delta.{} VERSION AS OF {}", BacktickQuote(snapshot->table_root()),
                  snapshot->version());
  test.sql = MakeSqlMetricRunner(std::move(options));
  return TestContract(contract, object, snapshot, test);
}

}  // namespace deltaguard
