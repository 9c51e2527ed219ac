// ALTER TABLE: columns (ADD, RENAME, DROP, ALTER/CHANGE), table properties, CHECK
// constraints and RENAME TO, in Spark SQL's grammar (docs/spark_semantics.md §5.5, §4.4).
// The parser only records what was written; whether a change is allowed (column mapping,
// type widening, NOT NULL on ADD, ...) is decided at execution.

#include <string>
#include <utility>
#include <vector>

#include "deltaguard/schema/column_path.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/sql/parse/statement_parser_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {
namespace {}  // namespace

Result<StatementBody> StatementParser::ParseAlter() {
  Next();  // ALTER
  if (!AcceptKeyword("table")) {
    for (std::string_view object :
         {"view", "database", "schema", "namespace", "materialized", "streaming",
          "function", "catalog", "volume", "share", "connection", "location"}) {
      if (PeekKeyword(object)) return Unsupported("ALTER " + AsciiToUpper(object));
    }
    return Fail("expected 'TABLE'");
  }
  AlterTableStmt stmt;
  DELTA_ASSIGN_OR_RETURN(stmt.table, ParseTableRef());
  stmt.action_position = Peek().pos;
  if (PeekKeyword("add")) {
    DELTA_ASSIGN_OR_RETURN(stmt.action, ParseAlterAdd());
  } else if (PeekKeyword("drop")) {
    DELTA_ASSIGN_OR_RETURN(stmt.action, ParseAlterDrop());
  } else if (AcceptKeywords({"rename", "column"})) {
    AlterRenameColumn rename;
    DELTA_ASSIGN_OR_RETURN(rename.column, ParseColumnPath("a column name"));
    DELTA_RETURN_IF_ERROR(ExpectKeyword("to"));
    DELTA_ASSIGN_OR_RETURN(rename.new_name, ParseIdentifier("the new column name"));
    stmt.action = std::move(rename);
  } else if (AcceptKeywords({"rename", "to"})) {
    AlterRenameTable rename;
    DELTA_ASSIGN_OR_RETURN(rename.new_name, ParseTableRef());
    stmt.action = std::move(rename);
  } else if (PeekKeyword("rename") && PeekKeyword("partition", 1)) {
    return Unsupported("ALTER TABLE RENAME PARTITION");
  } else if (PeekKeyword("alter") || PeekKeyword("change")) {
    DELTA_ASSIGN_OR_RETURN(stmt.action, ParseAlterChangeColumn());
  } else if (AcceptKeywords({"set", "tblproperties"})) {
    DELTA_ASSIGN_OR_RETURN(stmt.action, ParseAlterProperties(/*set=*/true));
  } else if (AcceptKeywords({"unset", "tblproperties"})) {
    DELTA_ASSIGN_OR_RETURN(stmt.action, ParseAlterProperties(/*set=*/false));
  } else if ((PeekKeyword("set") || PeekKeyword("unset")) &&
             Peek(1).kind == TokenKind::kIdent) {
    // SET LOCATION, SET SERDE, SET OWNER, SET TAGS, UNSET TAGS, ...
    return Unsupported(fmt::format("ALTER TABLE {} {}", AsciiToUpper(Peek().text),
                                   AsciiToUpper(Peek(1).text)));
  } else if (PeekKeyword("cluster") && PeekKeyword("by", 1)) {
    return Unsupported("ALTER TABLE CLUSTER BY (liquid clustering)");
  } else if (PeekKeyword("replace") && PeekKeyword("columns", 1)) {
    return Unsupported("ALTER TABLE REPLACE COLUMNS");
  } else if (PeekKeyword("recover") && PeekKeyword("partitions", 1)) {
    return Unsupported("ALTER TABLE RECOVER PARTITIONS");
  } else if (PeekKeyword("partition")) {
    return Unsupported("ALTER TABLE with a PARTITION clause");
  } else if (PeekKeyword("owner")) {
    return Unsupported("ALTER TABLE OWNER TO");
  } else {
    return Fail(
        "expected an ALTER TABLE action (ADD, DROP, RENAME, ALTER COLUMN, CHANGE "
        "COLUMN, SET TBLPROPERTIES or UNSET TBLPROPERTIES)");
  }
  return stmt;
}

// ---------------------------------------------------------------------------
// Shared pieces

Result<ColumnPath> StatementParser::ParseColumnPath(std::string_view what) {
  ColumnPath path;
  DELTA_ASSIGN_OR_RETURN(std::string first, ParseIdentifier(what));
  path.push_back(std::move(first));
  while (AcceptSymbol(".")) {
    DELTA_ASSIGN_OR_RETURN(std::string part, ParseIdentifier("a name after '.'"));
    path.push_back(std::move(part));
  }
  return path;
}

Result<std::vector<ColumnPath>> StatementParser::ParseColumnPathList(
    std::string_view what) {
  bool parens = AcceptSymbol("(");
  std::vector<ColumnPath> paths;
  do {
    DELTA_ASSIGN_OR_RETURN(ColumnPath path, ParseColumnPath(what));
    paths.push_back(std::move(path));
  } while (AcceptSymbol(","));
  if (parens) DELTA_RETURN_IF_ERROR(ExpectSymbol(")"));
  return paths;
}

Result<std::optional<ColumnPlacement>> StatementParser::ParsePlacement() {
  if (AcceptKeyword("first")) return ColumnPlacement{true, ""};
  if (AcceptKeyword("after")) {
    DELTA_ASSIGN_OR_RETURN(std::string after,
                           ParseIdentifier("a column name after AFTER"));
    return ColumnPlacement{false, std::move(after)};
  }
  return std::optional<ColumnPlacement>();
}

// ---------------------------------------------------------------------------
// ADD COLUMN(S) / ADD CONSTRAINT

Result<AlterAction> StatementParser::ParseAlterAdd() {
  Next();  // ADD
  if (AcceptKeyword("column") || AcceptKeyword("columns")) {
    // Spark: ADD (COLUMN|COLUMNS) ( '(' specs ')' | specs ).
    bool parens = AcceptSymbol("(");
    AlterAddColumns add;
    do {
      DELTA_ASSIGN_OR_RETURN(AddColumnSpec spec, ParseAddColumnSpec());
      add.columns.push_back(std::move(spec));
    } while (AcceptSymbol(","));
    if (parens && !AcceptSymbol(")")) {
      return Fail("expected ',' or ')' in the column list");
    }
    return add;
  }
  if (AcceptKeyword("constraint")) return ParseAddConstraint();
  if (PeekKeyword("partition") || (PeekKeyword("if") && PeekKeyword("partition", 3))) {
    return Unsupported("ALTER TABLE ADD PARTITION");
  }
  return Fail("expected 'COLUMN', 'COLUMNS' or 'CONSTRAINT'");
}

// path TYPE, then in any order and each at most once: NOT NULL, COMMENT 'c',
// FIRST | AFTER x (Spark's colDefinitionDescriptorWithPosition).
Result<AddColumnSpec> StatementParser::ParseAddColumnSpec() {
  AddColumnSpec spec;
  spec.position = Peek().pos;
  DELTA_ASSIGN_OR_RETURN(ColumnPath path, ParseColumnPath("a column name"));
  std::string display = JoinColumnPath(path);
  DELTA_ASSIGN_OR_RETURN(ColumnType type, ParseColumnType(display));
  spec.type_text = std::string(type.text);
  bool not_null = false, seen_not_null = false, seen_comment = false;
  bool seen_placement = false;
  std::optional<std::string> comment;
  while (true) {
    int32_t pos = Peek().pos;
    if (AcceptKeyword("not")) {
      DELTA_RETURN_IF_ERROR(ExpectKeyword("null"));
      DELTA_RETURN_IF_ERROR(CheckOnce(&seen_not_null, "NOT NULL", pos));
      not_null = true;
    } else if (AcceptKeyword("comment")) {
      DELTA_RETURN_IF_ERROR(CheckOnce(&seen_comment, "COMMENT", pos));
      DELTA_ASSIGN_OR_RETURN(std::string text, ParseString("a column comment"));
      comment = std::move(text);
    } else if (PeekKeyword("first") || PeekKeyword("after")) {
      DELTA_RETURN_IF_ERROR(CheckOnce(&seen_placement, "FIRST/AFTER", pos));
      DELTA_ASSIGN_OR_RETURN(spec.placement, ParsePlacement());
    } else {
      for (std::string_view option :
           {"default", "generated", "constraint", "check", "primary", "references",
            "unique", "mask", "collate", "identity"}) {
        if (PeekKeyword(option)) {
          return Unsupported(
              fmt::format("column option {} in ALTER TABLE ADD COLUMN "
                          "(column '{}')",
                          AsciiToUpper(option), display));
        }
      }
      break;
    }
  }
  // Build the field exactly as CREATE TABLE does (comment and CHAR/VARCHAR metadata).
  std::string ddl = BacktickName(path.back()) + " " + spec.type_text;
  if (not_null) ddl += " NOT NULL";
  if (comment) ddl += " COMMENT " + QuoteDdlString(*comment);
  auto schema = ParseDdlSchema(ddl);
  if (!schema) return ErrorAt(spec.position, schema.error().message);
  spec.field = (*schema)->field(0);
  path.pop_back();
  spec.parent = std::move(path);
  return spec;
}

// CONSTRAINT name CHECK (expr): the expression is parsed to check its syntax and kept
// as written and as Spark stores it (tokens joined by spaces).
Result<AlterAction> StatementParser::ParseAddConstraint() {
  AlterAddConstraint add;
  DELTA_ASSIGN_OR_RETURN(add.name, ParseIdentifier("a constraint name"));
  for (std::string_view kind : {"primary", "foreign", "unique"}) {
    if (PeekKeyword(kind)) {
      return Unsupported(
          fmt::format("{} constraints (only CHECK constraints)", AsciiToUpper(kind)));
    }
  }
  DELTA_RETURN_IF_ERROR(ExpectKeyword("check"));
  DELTA_RETURN_IF_ERROR(ExpectSymbol("("));
  size_t start = idx_;
  DELTA_ASSIGN_OR_RETURN(add.expr, ParseExpr());
  size_t end = idx_;
  DELTA_RETURN_IF_ERROR(ExpectSymbol(")"));
  add.expr_text = std::string(SourceText(start, end));
  for (size_t i = start; i < end; ++i) {
    if (!add.token_text.empty()) add.token_text += " ";
    add.token_text += text_.substr(tokens_[i].pos, tokens_[i].end - tokens_[i].pos);
  }
  return add;
}

// ---------------------------------------------------------------------------
// DROP COLUMN(S) / DROP CONSTRAINT

Result<AlterAction> StatementParser::ParseAlterDrop() {
  Next();  // DROP
  if (AcceptKeyword("column") || AcceptKeyword("columns")) {
    AlterDropColumns drop;
    DELTA_ASSIGN_OR_RETURN(drop.if_exists, ParseIfExists(false));
    DELTA_ASSIGN_OR_RETURN(drop.columns, ParseColumnPathList("a column name"));
    return drop;
  }
  if (AcceptKeyword("constraint")) {
    AlterDropConstraint drop;
    DELTA_ASSIGN_OR_RETURN(drop.if_exists, ParseIfExists(false));
    DELTA_ASSIGN_OR_RETURN(drop.name, ParseIdentifier("a constraint name"));
    return drop;
  }
  if (PeekKeyword("partition") || (PeekKeyword("if") && PeekKeyword("partition", 2))) {
    return Unsupported("ALTER TABLE DROP PARTITION");
  }
  if (PeekKeyword("feature")) return Unsupported("ALTER TABLE DROP FEATURE");
  return Fail("expected 'COLUMN', 'COLUMNS' or 'CONSTRAINT'");
}

// ---------------------------------------------------------------------------
// ALTER|CHANGE [COLUMN] c action, or Hive-style CHANGE [COLUMN] c c2 TYPE ...

Result<AlterAction> StatementParser::ParseAlterChangeColumn() {
  bool change = PeekKeyword("change");
  Next();  // ALTER | CHANGE
  AcceptKeyword("column");
  AlterChangeColumn alter;
  DELTA_ASSIGN_OR_RETURN(alter.column, ParseColumnPath("a column name"));
  std::string display = JoinColumnPath(alter.column);
  if (AcceptKeyword("type")) {
    DELTA_ASSIGN_OR_RETURN(ColumnType type, ParseColumnType(display));
    alter.type = std::move(type.type);
    alter.type_text = std::string(type.text);
    return alter;
  }
  if ((PeekKeyword("set") || PeekKeyword("drop")) && PeekKeyword("not", 1)) {
    alter.nullable = PeekKeyword("drop");
    Next();
    Next();
    DELTA_RETURN_IF_ERROR(ExpectKeyword("null"));
    return alter;
  }
  if (PeekKeyword("comment") && Peek(1).kind == TokenKind::kString) {
    Next();
    DELTA_ASSIGN_OR_RETURN(std::string comment, ParseString("a column comment"));
    alter.comment = std::move(comment);
    return alter;
  }
  // With CHANGE, `c first INT` is Hive style (a column renamed `first`): FIRST/AFTER are
  // the action only when they end the statement.
  bool placement_ends = PeekKeyword("first") ? Peek(1).kind == TokenKind::kEnd
                                             : Peek(2).kind == TokenKind::kEnd;
  if ((PeekKeyword("first") || PeekKeyword("after")) && (!change || placement_ends)) {
    DELTA_ASSIGN_OR_RETURN(alter.placement, ParsePlacement());
    return alter;
  }
  for (std::string_view verb : {"set", "drop"}) {
    for (std::string_view what : {"default", "mask"}) {
      if (PeekKeyword(verb) && PeekKeyword(what, 1)) {
        return Unsupported(
            fmt::format("ALTER COLUMN {} {}", AsciiToUpper(verb), AsciiToUpper(what)));
      }
    }
  }
  if (PeekKeyword("sync") && PeekKeyword("identity", 1)) {
    return Unsupported("ALTER COLUMN SYNC IDENTITY");
  }
  if (!change || !IsName(Peek())) {
    return Fail(change ? "expected TYPE, SET NOT NULL, DROP NOT NULL, COMMENT, FIRST, "
                         "AFTER or a column definition"
                       : "expected TYPE, SET NOT NULL, DROP NOT NULL, COMMENT, FIRST "
                         "or AFTER");
  }
  // Hive style: new name, type, [COMMENT 'c'], [FIRST | AFTER x] (Spark's colType then
  // colPosition). The executor refuses a new name that differs from the old one.
  alter.new_name = Next().text;
  DELTA_ASSIGN_OR_RETURN(ColumnType type, ParseColumnType(*alter.new_name));
  alter.type = std::move(type.type);
  alter.type_text = std::string(type.text);
  if (PeekKeyword("not") && PeekKeyword("null", 1)) {
    return ErrorAt(Peek().pos,
                   "NOT NULL is not supported in Hive-style ALTER COLUMN (CHANGE COLUMN "
                   "c c TYPE); run ALTER COLUMN ... SET NOT NULL instead");
  }
  if (AcceptKeyword("comment")) {
    DELTA_ASSIGN_OR_RETURN(std::string comment, ParseString("a column comment"));
    alter.comment = std::move(comment);
  }
  DELTA_ASSIGN_OR_RETURN(alter.placement, ParsePlacement());
  return alter;
}

// ---------------------------------------------------------------------------
// SET TBLPROPERTIES (k = v, ...) / UNSET TBLPROPERTIES [IF EXISTS] (k, ...)

Result<AlterAction> StatementParser::ParseAlterProperties(bool set) {
  if (set) {
    AlterSetProperties props;
    DELTA_RETURN_IF_ERROR(ParseTableProperties(&props.properties));
    return props;
  }
  AlterUnsetProperties unset;
  DELTA_ASSIGN_OR_RETURN(unset.if_exists, ParseIfExists(false));
  DELTA_RETURN_IF_ERROR(ExpectSymbol("("));
  do {
    DELTA_ASSIGN_OR_RETURN(std::string key, ParsePropertyKey());
    if (IsSymbol(Peek(), "=")) {
      return ErrorAt(Peek().pos, fmt::format("UNSET TBLPROPERTIES takes keys only, but "
                                             "a value is given for '{}'",
                                             key));
    }
    unset.keys.push_back(std::move(key));
  } while (AcceptSymbol(","));
  DELTA_RETURN_IF_ERROR(ExpectSymbol(")"));
  return unset;
}

}  // namespace deltaguard::internal
