// CREATE [OR REPLACE] TABLE / REPLACE TABLE, CREATE DATABASE, CREATE TEMP VIEW.

#include <string>
#include <utility>
#include <vector>

#include "deltaguard/schema/ddl.h"
#include "deltaguard/sql/parse/statement_parser_internal.h"
#include "deltaguard/util/depth_guard.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {

std::string BacktickName(std::string_view name) {
  std::string out = "`";
  for (char c : name) {
    out.push_back(c);
    if (c == '`') out.push_back('`');
  }
  return out + "`";
}

std::string QuoteDdlString(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\\' || c == '\'') out.push_back('\\');
    out.push_back(c);
  }
  return out + "'";
}

Result<StatementBody> StatementParser::ParseCreate() {
  Next();  // CREATE
  bool or_replace = AcceptKeywords({"or", "replace"});
  if (AcceptKeyword("temp") || AcceptKeyword("temporary")) {
    return ParseCreateView(or_replace);
  }
  if (PeekKeyword("global")) return Unsupported("CREATE GLOBAL TEMPORARY VIEW");
  if (PeekKeyword("view")) return Unsupported("CREATE VIEW (only TEMP views)");
  if (PeekKeyword("database") || PeekKeyword("schema")) {
    if (or_replace) return Fail("expected 'TABLE' or 'TEMP VIEW' after OR REPLACE");
    return ParseCreateDatabase();
  }
  AcceptKeyword("external");  // LOCATION makes a table external; the word adds nothing
  if (AcceptKeyword("table")) {
    CreateTableStmt stmt;
    stmt.or_replace = or_replace;
    return ParseCreateTable(std::move(stmt));
  }
  if (Peek().kind == TokenKind::kIdent) {
    return Unsupported("CREATE " + AsciiToUpper(Peek().text));
  }
  return Fail("expected 'TABLE', 'DATABASE', 'SCHEMA' or 'TEMP VIEW'");
}

Result<StatementBody> StatementParser::ParseReplace() {
  Next();  // REPLACE
  DELTA_RETURN_IF_ERROR(ExpectKeyword("table"));
  CreateTableStmt stmt;
  stmt.or_replace = true;
  stmt.replace_only = true;
  return ParseCreateTable(std::move(stmt));
}

// t [(columns)] then, in any order and each at most once: USING fmt,
// PARTITIONED BY (cols), LOCATION 'p', COMMENT 'c', TBLPROPERTIES (...); then
// [AS query] last, as Spark's grammar has it.
Result<StatementBody> StatementParser::ParseCreateTable(CreateTableStmt stmt) {
  int32_t if_pos = Peek().pos;
  DELTA_ASSIGN_OR_RETURN(stmt.if_not_exists, ParseIfExists(true));
  if (stmt.if_not_exists && stmt.or_replace) {
    return ErrorAt(if_pos, "IF NOT EXISTS cannot be combined with OR REPLACE");
  }
  DELTA_ASSIGN_OR_RETURN(stmt.table, ParseTableRef());
  if (PeekKeyword("like")) return Unsupported("CREATE TABLE LIKE");
  if (PeekKeyword("shallow") || PeekKeyword("deep") || PeekKeyword("clone")) {
    return Unsupported("CREATE TABLE CLONE");
  }
  if (IsSymbol(Peek(), "(")) {
    DELTA_ASSIGN_OR_RETURN(stmt.schema, ParseColumnList());
  }
  bool seen_using = false, seen_partitioned = false, seen_location = false;
  bool seen_comment = false, seen_properties = false;
  while (true) {
    int32_t pos = Peek().pos;
    if (AcceptKeyword("using")) {
      DELTA_RETURN_IF_ERROR(CheckOnce(&seen_using, "USING", pos));
      DELTA_ASSIGN_OR_RETURN(std::string format, ParseIdentifier("a table format"));
      stmt.using_format = AsciiToLower(format);
    } else if (AcceptKeywords({"partitioned", "by"})) {
      DELTA_RETURN_IF_ERROR(CheckOnce(&seen_partitioned, "PARTITIONED BY", pos));
      DELTA_ASSIGN_OR_RETURN(stmt.partitioned_by, ParseNameList("a partition column"));
    } else if (AcceptKeyword("location")) {
      DELTA_RETURN_IF_ERROR(CheckOnce(&seen_location, "LOCATION", pos));
      DELTA_ASSIGN_OR_RETURN(std::string location, ParseString("a location"));
      stmt.location = std::move(location);
    } else if (AcceptKeyword("comment")) {
      DELTA_RETURN_IF_ERROR(CheckOnce(&seen_comment, "COMMENT", pos));
      DELTA_ASSIGN_OR_RETURN(std::string comment, ParseString("a table comment"));
      stmt.comment = std::move(comment);
    } else if (AcceptKeyword("tblproperties")) {
      DELTA_RETURN_IF_ERROR(CheckOnce(&seen_properties, "TBLPROPERTIES", pos));
      DELTA_RETURN_IF_ERROR(ParseTableProperties(&stmt.properties));
    } else if (PeekKeyword("cluster") && PeekKeyword("by", 1)) {
      return Unsupported("CLUSTER BY (liquid clustering)");
    } else if (PeekKeyword("options")) {
      return Unsupported("OPTIONS in CREATE TABLE");
    } else if (PeekKeyword("stored") || PeekKeyword("row")) {
      return Unsupported("Hive-format tables (STORED AS / ROW FORMAT)");
    } else {
      break;
    }
  }
  if (AcceptKeyword("as")) {
    DELTA_ASSIGN_OR_RETURN(stmt.as_select, ParseQuery());
  } else if (AtQueryStart() && !IsSymbol(Peek(), "(")) {
    DELTA_ASSIGN_OR_RETURN(stmt.as_select, ParseQuery());  // Spark's AS is optional
  }
  return stmt;
}

// (name type [NOT NULL] [COMMENT 'c'], ...). Types are read by schema/ddl.h; the list
// is rebuilt as canonical DDL text and handed to ParseDdlSchema, so CHAR/VARCHAR and
// comment metadata come out exactly as for every other DDL schema in deltaguard.
Result<SchemaRef> StatementParser::ParseColumnList() {
  int32_t open_pos = Next().pos;  // (
  std::string ddl;
  std::vector<std::string> names;
  do {
    const Token& start = Peek();
    bool table_constraint =
        (PeekKeyword("constraint") && IsName(Peek(1)) &&
         (PeekKeyword("check", 2) || PeekKeyword("primary", 2) ||
          PeekKeyword("foreign", 2) || PeekKeyword("unique", 2))) ||
        ((PeekKeyword("primary") || PeekKeyword("foreign")) && PeekKeyword("key", 1));
    if (table_constraint) return Unsupported("table constraints in CREATE TABLE");
    DELTA_ASSIGN_OR_RETURN(std::string name, ParseIdentifier("a column name"));
    for (const std::string& other : names) {
      if (EqualsIgnoreCase(other, name)) {
        return ErrorAt(start.pos, fmt::format("duplicate column name '{}': conflicts "
                                              "case-insensitively with '{}'",
                                              name, other));
      }
    }
    names.push_back(name);
    DELTA_ASSIGN_OR_RETURN(ColumnType column_type, ParseColumnType(name));
    std::string_view type_text = column_type.text;
    ddl += (ddl.empty() ? "" : ", ") + BacktickName(name) + " " + std::string(type_text);
    bool seen_not_null = false, seen_comment = false;
    while (true) {
      int32_t pos = Peek().pos;
      if (AcceptKeyword("not")) {
        DELTA_RETURN_IF_ERROR(ExpectKeyword("null"));
        DELTA_RETURN_IF_ERROR(CheckOnce(&seen_not_null, "NOT NULL", pos));
        ddl += " NOT NULL";
      } else if (AcceptKeyword("comment")) {
        DELTA_RETURN_IF_ERROR(CheckOnce(&seen_comment, "COMMENT", pos));
        DELTA_ASSIGN_OR_RETURN(std::string comment, ParseString("a column comment"));
        ddl += " COMMENT " + QuoteDdlString(comment);
      } else {
        static constexpr std::string_view kOptions[] = {
            "generated",  "default", "constraint", "check",   "primary",
            "references", "unique",  "mask",       "collate", "identity"};
        for (std::string_view option : kOptions) {
          if (PeekKeyword(option)) {
            return Unsupported(fmt::format("column option {} (column '{}')",
                                           AsciiToUpper(option), name));
          }
        }
        break;
      }
    }
  } while (AcceptSymbol(","));
  if (!IsSymbol(Peek(), ")")) return Fail("expected ',' or ')' in the column list");
  Next();
  auto schema = ParseDdlSchema(ddl);
  if (!schema) return ErrorAt(open_pos, schema.error().message);
  return *schema;
}

// The type: a word, then a balanced (...) or <...> group (DECIMAL(10,2),
// ARRAY<STRUCT<a: INT>>), checked by schema/ddl.h.
Result<StatementParser::ColumnType> StatementParser::ParseColumnType(
    std::string_view column) {
  if (Peek().kind != TokenKind::kIdent) {
    return Fail(fmt::format("expected a type for column '{}'", column));
  }
  size_t type_first = idx_;
  Next();
  if (IsSymbol(Peek(), "<>")) {
    Next();
  } else if (IsSymbol(Peek(), "(") || IsSymbol(Peek(), "<")) {
    int depth = 0;
    do {
      const Token& t = Next();
      if (IsSymbol(t, "(") || IsSymbol(t, "<")) ++depth;
      if (IsSymbol(t, ")") || IsSymbol(t, ">")) --depth;
    } while (depth > 0 && Peek().kind != TokenKind::kEnd);
    if (depth > 0) {
      return Fail(fmt::format("expected the end of column '{}''s type", column));
    }
  }
  ColumnType out;
  out.text = SourceText(type_first, idx_);
  auto type = ParseDdlType(out.text);
  if (!type) {
    if (type.error().message.find("levels of nested types") != std::string::npos) {
      return ErrorAt(tokens_[type_first].pos,
                     fmt::format("the type of column '{}' nests too deeply: at most {} "
                                 "levels of nested types",
                                 column, kMaxTypeDepth));
    }
    return ErrorAt(tokens_[type_first].pos,
                   fmt::format("invalid type '{}' for column '{}'", out.text, column));
  }
  out.type = std::move(*type);
  return out;
}

// TBLPROPERTIES (key [=] value, ...): keys are strings or dotted names, values
// strings, numbers or booleans, all kept as text.
Status StatementParser::ParseTableProperties(
    std::vector<std::pair<std::string, std::string>>* properties) {
  DELTA_RETURN_IF_ERROR(ExpectSymbol("("));
  do {
    int32_t pos = Peek().pos;
    DELTA_ASSIGN_OR_RETURN(std::string key, ParsePropertyKey());
    for (const auto& [other, value] : *properties) {
      if (other == key) {
        return ErrorAt(pos, fmt::format("duplicate table property '{}'", key));
      }
    }
    AcceptSymbol("=");
    DELTA_ASSIGN_OR_RETURN(std::string value, ParsePropertyValue());
    properties->emplace_back(std::move(key), std::move(value));
  } while (AcceptSymbol(","));
  return ExpectSymbol(")");
}

Result<std::string> StatementParser::ParsePropertyKey() {
  if (Peek().kind == TokenKind::kString) return Next().text;
  if (!IsName(Peek())) return Fail("expected a property key");
  std::string key = Next().text;
  while (IsSymbol(Peek(), ".") && IsName(Peek(1))) {
    Next();
    key += "." + Next().text;
  }
  return key;
}

Result<std::string> StatementParser::ParsePropertyValue() {
  const Token& t = Peek();
  if (t.kind == TokenKind::kString) return Next().text;
  if (t.kind == TokenKind::kNumber) return Next().text;
  if (IsSymbol(t, "-") && Peek(1).kind == TokenKind::kNumber) {
    Next();
    return "-" + Next().text;
  }
  if (IsKeyword(t, "true") || IsKeyword(t, "false")) return AsciiToLower(Next().text);
  return Fail("expected a property value (a string, number or boolean)");
}

// CREATE (DATABASE|SCHEMA) [IF NOT EXISTS] db [COMMENT 'c'] [LOCATION 'p']
Result<StatementBody> StatementParser::ParseCreateDatabase() {
  Next();  // DATABASE | SCHEMA
  CreateDatabaseStmt stmt;
  DELTA_ASSIGN_OR_RETURN(stmt.if_not_exists, ParseIfExists(true));
  DELTA_ASSIGN_OR_RETURN(stmt.name, ParseIdentifier("a database name"));
  bool seen_comment = false, seen_location = false;
  while (true) {
    int32_t pos = Peek().pos;
    if (AcceptKeyword("comment")) {
      DELTA_RETURN_IF_ERROR(CheckOnce(&seen_comment, "COMMENT", pos));
      DELTA_ASSIGN_OR_RETURN(std::string comment, ParseString("a database comment"));
      stmt.comment = std::move(comment);
    } else if (AcceptKeyword("location")) {
      DELTA_RETURN_IF_ERROR(CheckOnce(&seen_location, "LOCATION", pos));
      DELTA_ASSIGN_OR_RETURN(std::string location, ParseString("a location"));
      stmt.location = std::move(location);
    } else if (PeekKeyword("with") || PeekKeyword("dbproperties")) {
      return Unsupported("DBPROPERTIES");
    } else {
      return stmt;
    }
  }
}

// CREATE [OR REPLACE] TEMP|TEMPORARY VIEW name AS query
Result<StatementBody> StatementParser::ParseCreateView(bool or_replace) {
  DELTA_RETURN_IF_ERROR(ExpectKeyword("view"));
  CreateViewStmt stmt;
  stmt.or_replace = or_replace;
  DELTA_ASSIGN_OR_RETURN(stmt.name, ParseIdentifier("a view name"));
  if (IsSymbol(Peek(), "(")) return Unsupported("a column list in CREATE VIEW");
  DELTA_RETURN_IF_ERROR(ExpectKeyword("as"));
  DELTA_ASSIGN_OR_RETURN(stmt.query, ParseQuery());
  return stmt;
}

}  // namespace deltaguard::internal
