// DROP, DESCRIBE, SHOW, SET/RESET, USE and VACUUM statements.

#include <cstdlib>
#include <string>
#include <utility>

#include "deltaguard/sql/parse/statement_parser_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {

// DROP TABLE [IF EXISTS] t [PURGE] | DROP VIEW [IF EXISTS] v |
// DROP (DATABASE|SCHEMA) [IF EXISTS] db [RESTRICT|CASCADE]
Result<StatementBody> StatementParser::ParseDrop() {
  Next();  // DROP
  if (AcceptKeyword("table")) {
    DropTableStmt stmt;
    DELTA_ASSIGN_OR_RETURN(stmt.if_exists, ParseIfExists(false));
    DELTA_ASSIGN_OR_RETURN(stmt.table, ParseTableRef());
    AcceptKeyword("purge");  // deltaguard keeps no trash: PURGE changes nothing
    return stmt;
  }
  if (AcceptKeyword("view")) {
    DropViewStmt stmt;
    DELTA_ASSIGN_OR_RETURN(stmt.if_exists, ParseIfExists(false));
    DELTA_ASSIGN_OR_RETURN(stmt.name, ParseIdentifier("a view name"));
    return stmt;
  }
  if (AcceptKeyword("database") || AcceptKeyword("schema")) {
    DropDatabaseStmt stmt;
    DELTA_ASSIGN_OR_RETURN(stmt.if_exists, ParseIfExists(false));
    DELTA_ASSIGN_OR_RETURN(stmt.name, ParseIdentifier("a database name"));
    if (AcceptKeyword("cascade")) {
      stmt.cascade = true;
    } else {
      AcceptKeyword("restrict");
    }
    return stmt;
  }
  if (Peek().kind == TokenKind::kIdent) {
    return Unsupported("DROP " + AsciiToUpper(Peek().text));
  }
  return Fail("expected 'TABLE', 'VIEW', 'DATABASE' or 'SCHEMA'");
}

// DESCRIBE HISTORY t [LIMIT n] | DESCRIBE DETAIL t | DESCRIBE DRIFT t USING src [MODE m]
// | DESCRIBE [TABLE] [EXTENDED|FORMATTED] t
Result<StatementBody> StatementParser::ParseDescribe() {
  Next();  // DESCRIBE | DESC
  // HISTORY and DETAIL are keywords only when a table follows (a table may be named
  // `history`), as in Delta's grammar.
  auto table_follows = [&] {
    const Token& t = Peek(1);
    return IsName(t) || t.kind == TokenKind::kString;
  };
  if (PeekKeyword("history") && table_follows()) {
    Next();
    DescribeHistoryStmt stmt;
    DELTA_ASSIGN_OR_RETURN(stmt.table, ParseTableRef());
    if (AcceptKeyword("limit")) {
      DELTA_ASSIGN_OR_RETURN(int64_t limit, ParseInteger("a row count after LIMIT"));
      stmt.limit = limit;
    }
    return stmt;
  }
  if (PeekKeyword("detail") && table_follows()) {
    Next();
    DescribeDetailStmt stmt;
    DELTA_ASSIGN_OR_RETURN(stmt.table, ParseTableRef());
    return stmt;
  }
  if (PeekKeyword("drift") && table_follows()) {
    Next();
    DescribeDriftStmt stmt;
    DELTA_ASSIGN_OR_RETURN(stmt.table, ParseTableRef());
    DELTA_RETURN_IF_ERROR(ExpectKeyword("using"));
    DELTA_ASSIGN_OR_RETURN(stmt.source, ParseFromSource());
    // `USING src MODE m`: the source's bare alias slot takes MODE (an alias must be
    // followed by nothing, so MODE followed by a name is the clause).
    if (AsciiToLower(stmt.source.alias) == "mode" && stmt.source.column_aliases.empty() &&
        IsName(Peek())) {
      stmt.source.alias.clear();
      DELTA_ASSIGN_OR_RETURN(stmt.mode, ParseIdentifier("a compatibility mode"));
    } else if (AcceptKeyword("mode")) {
      DELTA_ASSIGN_OR_RETURN(stmt.mode, ParseIdentifier("a compatibility mode"));
    }
    return stmt;
  }
  for (std::string_view other : {"database", "schema", "function", "query", "catalog"}) {
    if (PeekKeyword(other) && table_follows()) {
      return Unsupported("DESCRIBE " + AsciiToUpper(other));
    }
  }
  DescribeTableStmt stmt;
  if (PeekKeyword("table") && table_follows()) Next();
  if ((PeekKeyword("extended") || PeekKeyword("formatted")) && table_follows()) {
    Next();
    stmt.extended = true;
  }
  DELTA_ASSIGN_OR_RETURN(stmt.table, ParseTableRef());
  if (IsName(Peek())) return Unsupported("DESCRIBE of a single column");
  return stmt;
}

// SHOW TABLES | SHOW DATABASES | SHOW TBLPROPERTIES | SHOW COLUMNS
Result<StatementBody> StatementParser::ParseShow() {
  Next();  // SHOW
  // `[LIKE] 'pattern'`
  auto parse_pattern = [&]() -> Result<std::optional<std::string>> {
    bool like = AcceptKeyword("like");
    if (!like && Peek().kind != TokenKind::kString) return std::nullopt;
    DELTA_ASSIGN_OR_RETURN(std::string pattern, ParseString("a pattern"));
    return pattern;
  };
  if (AcceptKeyword("tables")) {
    ShowTablesStmt stmt;
    if (AcceptKeyword("in") || AcceptKeyword("from")) {
      DELTA_ASSIGN_OR_RETURN(std::string db, ParseIdentifier("a database name"));
      stmt.database = std::move(db);
    }
    DELTA_ASSIGN_OR_RETURN(stmt.pattern, parse_pattern());
    return stmt;
  }
  if (AcceptKeyword("databases") || AcceptKeyword("schemas")) {
    ShowDatabasesStmt stmt;
    DELTA_ASSIGN_OR_RETURN(stmt.pattern, parse_pattern());
    return stmt;
  }
  if (AcceptKeyword("tblproperties")) {
    ShowTblPropertiesStmt stmt;
    DELTA_ASSIGN_OR_RETURN(stmt.table, ParseTableRef());
    if (AcceptSymbol("(")) {
      DELTA_ASSIGN_OR_RETURN(std::string key, ParsePropertyKey());
      stmt.key = std::move(key);
      DELTA_RETURN_IF_ERROR(ExpectSymbol(")"));
    }
    return stmt;
  }
  if (AcceptKeyword("columns")) {
    ShowColumnsStmt stmt;
    if (!AcceptKeyword("in") && !AcceptKeyword("from")) {
      return Fail("expected 'IN' or 'FROM'");
    }
    DELTA_ASSIGN_OR_RETURN(stmt.table, ParseTableRef());
    if (AcceptKeyword("in") || AcceptKeyword("from")) {
      const Token& db_token = Peek();
      DELTA_ASSIGN_OR_RETURN(std::string db, ParseIdentifier("a database name"));
      if (stmt.table.kind == TableRef::Kind::kPath) {
        return ErrorAt(db_token.pos, "a database cannot qualify a table path");
      }
      if (stmt.table.parts.size() == 1) {
        stmt.table.parts.insert(stmt.table.parts.begin(), db);
      } else if (!EqualsIgnoreCase(stmt.table.parts.front(), db)) {
        return ErrorAt(db_token.pos,
                       fmt::format("SHOW COLUMNS names two databases: '{}' and '{}'",
                                   stmt.table.parts.front(), db));
      }
    }
    return stmt;
  }
  if (Peek().kind == TokenKind::kIdent) {
    std::string what = AsciiToUpper(Peek().text);
    if (PeekKeyword("create")) what += " TABLE";
    return Unsupported("SHOW " + what);
  }
  return Fail("expected 'TABLES', 'DATABASES', 'TBLPROPERTIES' or 'COLUMNS'");
}

namespace {

/// A SET value or key as written: trimmed; one pair of surrounding quotes removed.
std::string Unquote(std::string_view raw) {
  raw = Trim(raw);
  if (raw.size() >= 2) {
    char q = raw.front();
    if ((q == '\'' || q == '"' || q == '`') && raw.back() == q) {
      raw = raw.substr(1, raw.size() - 2);
    }
  }
  return std::string(raw);
}

}  // namespace

// SET | SET key | SET key = value | SET TIME ZONE 'zone'. Keys and values are raw text
// (Spark's SET takes anything up to ';'), trimmed, quotes removed.
Result<StatementBody> StatementParser::ParseSet() {
  Next();  // SET
  SetStmt stmt;
  if (Peek().kind == TokenKind::kEnd) return stmt;
  if (AcceptKeywords({"time", "zone"})) {
    if (Peek().kind == TokenKind::kEnd) return Fail("expected a time zone");
    stmt.key = "spark.sql.session.timeZone";
    stmt.value = Unquote(Rest());
    while (Peek().kind != TokenKind::kEnd) Next();
    return stmt;
  }
  size_t key_start = idx_;
  while (Peek().kind != TokenKind::kEnd && !IsSymbol(Peek(), "=")) Next();
  std::string key = Unquote(SourceText(key_start, idx_));
  if (!AcceptSymbol("=")) {
    stmt.key = std::move(key);
    return stmt;
  }
  if (key.empty()) {
    return ErrorAt(tokens_[key_start].pos, "expected a setting name before '='");
  }
  stmt.key = std::move(key);
  if (Peek().kind == TokenKind::kString && Peek(1).kind == TokenKind::kEnd) {
    stmt.value = Next().text;  // a quoted value, unescaped
  } else {
    stmt.value = Unquote(Rest());
    while (Peek().kind != TokenKind::kEnd) Next();
  }
  return stmt;
}

// RESET [key]
Result<StatementBody> StatementParser::ParseReset() {
  Next();  // RESET
  SetStmt stmt;
  stmt.reset = true;
  if (Peek().kind != TokenKind::kEnd) {
    stmt.key = Unquote(Rest());
    while (Peek().kind != TokenKind::kEnd) Next();
  }
  return stmt;
}

// USE [DATABASE|SCHEMA] db
Result<StatementBody> StatementParser::ParseUse() {
  Next();  // USE
  if ((PeekKeyword("database") || PeekKeyword("schema")) && IsName(Peek(1))) Next();
  UseStmt stmt;
  DELTA_ASSIGN_OR_RETURN(stmt.database, ParseIdentifier("a database name"));
  return stmt;
}

// VACUUM (t | 'path') [FULL] [RETAIN n HOURS] [DRY RUN]  (Delta's grammar; n may have
// a fraction and a sign, checked when the statement runs, as Spark does)
Result<StatementBody> StatementParser::ParseVacuum() {
  Next();  // VACUUM
  VacuumStmt stmt;
  DELTA_ASSIGN_OR_RETURN(stmt.table, ParseTableRef());
  if (PeekKeyword("lite")) return Unsupported("VACUUM LITE");
  if (PeekKeyword("using")) return Unsupported("VACUUM USING INVENTORY");
  AcceptKeyword("full");
  if (AcceptKeyword("retain")) {
    const bool negative = AcceptSymbol("-");
    const Token& t = Peek();
    std::string text(t.text);
    char* end = nullptr;
    double hours = t.kind == TokenKind::kNumber ? std::strtod(text.c_str(), &end) : 0;
    if (t.kind != TokenKind::kNumber || end != text.c_str() + text.size()) {
      return Fail("expected a number of hours after RETAIN");
    }
    Next();
    stmt.retain_hours = negative ? -hours : hours;
    DELTA_RETURN_IF_ERROR(ExpectKeyword("hours"));
  }
  if (AcceptKeyword("dry")) {
    DELTA_RETURN_IF_ERROR(ExpectKeyword("run"));
    stmt.dry_run = true;
  }
  return stmt;
}

}  // namespace deltaguard::internal
