#include "deltaguard/sql/parse/statement.h"

#include <string>
#include <variant>

#include "deltaguard/expr/printer.h"

namespace deltaguard {

std::string TableRef::ToString() const {
  if (kind == Kind::kPath) {
    std::string out = "delta.`";
    for (char c : path) {
      out.push_back(c);
      if (c == '`') out.push_back('`');
    }
    return out + "`";
  }
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) out += ".";
    out += QuoteIdentifier(part);
  }
  return out;
}

namespace {

std::string_view KindName(const SelectStmt&) { return "SELECT"; }
std::string_view KindName(const CreateTableStmt& s) {
  return s.replace_only ? "REPLACE TABLE" : "CREATE TABLE";
}
std::string_view KindName(const CreateDatabaseStmt&) { return "CREATE DATABASE"; }
std::string_view KindName(const DropDatabaseStmt&) { return "DROP DATABASE"; }
std::string_view KindName(const CreateViewStmt&) { return "CREATE VIEW"; }
std::string_view KindName(const DropViewStmt&) { return "DROP VIEW"; }
std::string_view KindName(const InsertStmt&) { return "INSERT"; }
std::string_view KindName(const DescribeTableStmt&) { return "DESCRIBE TABLE"; }
std::string_view KindName(const DescribeHistoryStmt&) { return "DESCRIBE HISTORY"; }
std::string_view KindName(const DescribeDetailStmt&) { return "DESCRIBE DETAIL"; }
std::string_view KindName(const ShowTblPropertiesStmt&) { return "SHOW TBLPROPERTIES"; }
std::string_view KindName(const ShowColumnsStmt&) { return "SHOW COLUMNS"; }
std::string_view KindName(const ShowTablesStmt&) { return "SHOW TABLES"; }
std::string_view KindName(const ShowDatabasesStmt&) { return "SHOW DATABASES"; }
std::string_view KindName(const SetStmt& s) { return s.reset ? "RESET" : "SET"; }
std::string_view KindName(const UseStmt&) { return "USE"; }
std::string_view KindName(const DropTableStmt&) { return "DROP TABLE"; }
std::string_view KindName(const AlterTableStmt&) { return "ALTER TABLE"; }
std::string_view KindName(const MergeStmt&) { return "MERGE"; }
std::string_view KindName(const UpdateStmt&) { return "UPDATE"; }
std::string_view KindName(const DeleteStmt&) { return "DELETE"; }
std::string_view KindName(const VacuumStmt&) { return "VACUUM"; }
std::string_view KindName(const DescribeDriftStmt&) { return "DESCRIBE DRIFT"; }

std::string_view OperationOf(const AlterAddColumns&) { return "ADD COLUMNS"; }
std::string_view OperationOf(const AlterRenameColumn&) { return "RENAME COLUMN"; }
std::string_view OperationOf(const AlterDropColumns&) { return "DROP COLUMNS"; }
std::string_view OperationOf(const AlterChangeColumn&) { return "CHANGE COLUMN"; }
std::string_view OperationOf(const AlterSetProperties&) { return "SET TBLPROPERTIES"; }
std::string_view OperationOf(const AlterUnsetProperties&) {
  return "UNSET TBLPROPERTIES";
}
std::string_view OperationOf(const AlterAddConstraint&) { return "ADD CONSTRAINT"; }
std::string_view OperationOf(const AlterDropConstraint&) { return "DROP CONSTRAINT"; }
std::string_view OperationOf(const AlterRenameTable&) { return "RENAME TABLE"; }

}  // namespace

std::string_view AlterTableStmt::OperationName() const {
  return std::visit([](const auto& a) { return OperationOf(a); }, action);
}

std::string_view StatementKindName(const StatementBody& body) {
  return std::visit([](const auto& stmt) { return KindName(stmt); }, body);
}

}  // namespace deltaguard
