// MERGE INTO, UPDATE and DELETE FROM in Spark SQL's grammar (with Databricks' `* EXCEPT`
// and interleaved WHEN clauses). Spark's clause rules are checked here, so a malformed
// MERGE fails before any table is opened; column resolution happens at execution.

#include <string>
#include <utility>
#include <vector>

#include "deltaguard/sql/parse/statement_parser_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {
namespace {

std::string_view ClauseKindName(MergeClause::Kind kind) {
  switch (kind) {
    case MergeClause::Kind::kMatched:
      return "MATCHED";
    case MergeClause::Kind::kNotMatched:
      return "NOT MATCHED [BY TARGET]";
    case MergeClause::Kind::kNotMatchedBySource:
      return "NOT MATCHED BY SOURCE";
  }
  return "";
}

}  // namespace

Status StatementParser::RefuseTargetTimeTravel(std::string_view statement) {
  size_t skip = PeekKeyword("for") ? 1 : 0;
  bool travel = PeekKeyword("version", skip) || PeekKeyword("system_version", skip) ||
                PeekKeyword("timestamp", skip) || PeekKeyword("system_time", skip);
  if (travel && PeekKeyword("as", skip + 1) && PeekKeyword("of", skip + 2)) {
    return ErrorAt(Peek().pos, fmt::format("the target of {} cannot be read with time "
                                           "travel (VERSION/TIMESTAMP AS OF)",
                                           statement));
  }
  return OkStatus();
}

Result<std::string> StatementParser::ParseTargetAlias(std::string_view stop) {
  if (AcceptKeyword("as")) return ParseIdentifier("an alias");
  const Token& t = Peek();
  if (t.kind == TokenKind::kQuotedIdent) return Next().text;
  if (t.kind == TokenKind::kIdent && !IsKeyword(t, stop) && !IsClauseKeyword(t)) {
    return Next().text;
  }
  return std::string();
}

// path = expr, ... (Spark's EQ is '=' or '==').
Result<std::vector<Assignment>> StatementParser::ParseAssignments() {
  std::vector<Assignment> assignments;
  do {
    Assignment a;
    a.position = Peek().pos;
    DELTA_ASSIGN_OR_RETURN(a.column, ParseColumnPath("a column name"));
    if (!AcceptSymbol("=") && !AcceptSymbol("==")) return Fail("expected '='");
    DELTA_ASSIGN_OR_RETURN(a.value, ParseExpr());
    assignments.push_back(std::move(a));
  } while (AcceptSymbol(","));
  return assignments;
}

// ---------------------------------------------------------------------------
// MERGE

// MERGE [WITH SCHEMA EVOLUTION] INTO target [[AS] t] USING source [[AS] s] ON cond
// (WHEN [NOT] MATCHED [BY TARGET|SOURCE] [AND cond] THEN action)+
Result<StatementBody> StatementParser::ParseMerge() {
  Next();  // MERGE
  MergeStmt stmt;
  stmt.schema_evolution = AcceptKeywords({"with", "schema", "evolution"});
  DELTA_RETURN_IF_ERROR(ExpectKeyword("into"));
  DELTA_ASSIGN_OR_RETURN(stmt.target, ParseTableRef());
  DELTA_RETURN_IF_ERROR(RefuseTargetTimeTravel("MERGE"));
  DELTA_ASSIGN_OR_RETURN(stmt.target_alias, ParseTargetAlias("using"));
  DELTA_RETURN_IF_ERROR(ExpectKeyword("using"));
  DELTA_ASSIGN_OR_RETURN(stmt.source, ParseFromSource());
  DELTA_RETURN_IF_ERROR(ExpectKeyword("on"));
  DELTA_ASSIGN_OR_RETURN(stmt.on, ParseExpr());
  while (PeekKeyword("when")) {
    DELTA_ASSIGN_OR_RETURN(MergeClause clause, ParseMergeClause());
    stmt.clauses.push_back(std::move(clause));
  }
  if (stmt.clauses.empty()) {
    if (Peek().kind != TokenKind::kEnd) return Fail("expected 'WHEN'");
    return ErrorAt(Peek().pos,
                   "there must be at least one WHEN clause in a MERGE statement");
  }
  if (Peek().kind != TokenKind::kEnd) return Fail("expected 'WHEN' or end of statement");
  DELTA_RETURN_IF_ERROR(CheckMergeClauses(stmt.clauses));
  return stmt;
}

Result<MergeClause> StatementParser::ParseMergeClause() {
  MergeClause clause;
  clause.position = Next().pos;  // WHEN
  if (AcceptKeyword("matched")) {
    clause.kind = MergeClause::Kind::kMatched;
  } else if (AcceptKeyword("not")) {
    DELTA_RETURN_IF_ERROR(ExpectKeyword("matched"));
    clause.kind = MergeClause::Kind::kNotMatched;
    if (AcceptKeyword("by")) {
      if (AcceptKeyword("source")) {
        clause.kind = MergeClause::Kind::kNotMatchedBySource;
      } else if (!AcceptKeyword("target")) {
        return Fail("expected 'TARGET' or 'SOURCE'");
      }
    }
  } else {
    return Fail("expected 'MATCHED' or 'NOT MATCHED'");
  }
  if (AcceptKeyword("and")) {
    DELTA_ASSIGN_OR_RETURN(clause.condition, ParseExpr());
  }
  DELTA_RETURN_IF_ERROR(ExpectKeyword("then"));
  DELTA_RETURN_IF_ERROR(ParseMergeAction(&clause));
  return clause;
}

// MATCHED: UPDATE SET * [EXCEPT (...)] | UPDATE SET assignments | DELETE
// NOT MATCHED [BY TARGET]: INSERT * [EXCEPT (...)] | INSERT (cols) VALUES (exprs)
// NOT MATCHED BY SOURCE: UPDATE SET assignments | DELETE
Status StatementParser::ParseMergeAction(MergeClause* clause) {
  using Kind = MergeClause::Kind;
  using Action = MergeClause::Action;
  const int32_t pos = Peek().pos;
  auto parse_except = [&]() -> Status {
    if (!AcceptKeyword("except")) return OkStatus();
    if (!IsSymbol(Peek(), "(")) return Fail("expected '('");
    DELTA_ASSIGN_OR_RETURN(clause->except, ParseColumnPathList("a column name"));
    return OkStatus();
  };
  if (PeekKeyword("update") || PeekKeyword("delete")) {
    if (clause->kind == Kind::kNotMatched) {
      return ErrorAt(pos, fmt::format("{} is not allowed in a WHEN NOT MATCHED [BY "
                                      "TARGET] clause (there is no target row); only "
                                      "INSERT is",
                                      AsciiToUpper(Peek().text)));
    }
    if (AcceptKeyword("delete")) {
      clause->action = Action::kDelete;
      return OkStatus();
    }
    Next();  // UPDATE
    DELTA_RETURN_IF_ERROR(ExpectKeyword("set"));
    if (IsSymbol(Peek(), "*")) {
      if (clause->kind == Kind::kNotMatchedBySource) {
        return ErrorAt(pos,
                       "UPDATE SET * is not allowed in a WHEN NOT MATCHED BY SOURCE "
                       "clause (there is no source row); assign the columns explicitly");
      }
      Next();
      clause->action = Action::kUpdateAll;
      return parse_except();
    }
    clause->action = Action::kUpdate;
    DELTA_ASSIGN_OR_RETURN(clause->assignments, ParseAssignments());
    return OkStatus();
  }
  if (PeekKeyword("insert")) {
    if (clause->kind != Kind::kNotMatched) {
      return ErrorAt(pos, fmt::format("INSERT is not allowed in a WHEN {} clause; only "
                                      "in WHEN NOT MATCHED [BY TARGET]",
                                      ClauseKindName(clause->kind)));
    }
    Next();
    if (AcceptSymbol("*")) {
      clause->action = Action::kInsertAll;
      return parse_except();
    }
    clause->action = Action::kInsert;
    if (!IsSymbol(Peek(), "(")) return Fail("expected '*' or '(' and a column list");
    DELTA_ASSIGN_OR_RETURN(clause->insert_columns, ParseColumnPathList("a column name"));
    int32_t values_pos = Peek().pos;
    DELTA_RETURN_IF_ERROR(ExpectKeyword("values"));
    DELTA_RETURN_IF_ERROR(ExpectSymbol("("));
    do {
      DELTA_ASSIGN_OR_RETURN(ExprRef value, ParseExpr());
      clause->insert_values.push_back(std::move(value));
    } while (AcceptSymbol(","));
    DELTA_RETURN_IF_ERROR(ExpectSymbol(")"));
    if (clause->insert_values.size() != clause->insert_columns.size()) {
      return ErrorAt(values_pos, fmt::format("INSERT lists {} column(s) but {} value(s)",
                                             clause->insert_columns.size(),
                                             clause->insert_values.size()));
    }
    return OkStatus();
  }
  return Fail(clause->kind == Kind::kNotMatched ? "expected 'INSERT'"
                                                : "expected 'UPDATE' or 'DELETE'");
}

// Spark (NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION and its NOT MATCHED twins): within each
// kind, only the last clause may omit its condition; a clause after an unconditional
// one of its kind could never run.
Status StatementParser::CheckMergeClauses(const std::vector<MergeClause>& clauses) const {
  for (size_t i = 0; i < clauses.size(); ++i) {
    if (clauses[i].condition) continue;
    for (size_t j = i + 1; j < clauses.size(); ++j) {
      if (clauses[j].kind != clauses[i].kind) continue;
      std::string_view kind = ClauseKindName(clauses[i].kind);
      return ErrorAt(clauses[i].position,
                     fmt::format("when there are more than one {} clauses in a MERGE "
                                 "statement, only the last {} clause can omit the "
                                 "condition",
                                 kind, kind));
    }
  }
  return OkStatus();
}

// ---------------------------------------------------------------------------
// UPDATE / DELETE

// UPDATE t [[AS] alias] SET a = e, b.c = e2 [WHERE cond]
Result<StatementBody> StatementParser::ParseUpdate() {
  Next();  // UPDATE
  UpdateStmt stmt;
  DELTA_ASSIGN_OR_RETURN(stmt.table, ParseTableRef());
  DELTA_RETURN_IF_ERROR(RefuseTargetTimeTravel("UPDATE"));
  DELTA_ASSIGN_OR_RETURN(stmt.alias, ParseTargetAlias("set"));
  DELTA_RETURN_IF_ERROR(ExpectKeyword("set"));
  DELTA_ASSIGN_OR_RETURN(stmt.assignments, ParseAssignments());
  if (AcceptKeyword("where")) {
    DELTA_ASSIGN_OR_RETURN(stmt.where, ParseExpr());
  }
  return stmt;
}

// DELETE FROM t [[AS] alias] [WHERE cond]
Result<StatementBody> StatementParser::ParseDelete() {
  Next();  // DELETE
  DELTA_RETURN_IF_ERROR(ExpectKeyword("from"));
  DeleteStmt stmt;
  DELTA_ASSIGN_OR_RETURN(stmt.table, ParseTableRef());
  DELTA_RETURN_IF_ERROR(RefuseTargetTimeTravel("DELETE"));
  DELTA_ASSIGN_OR_RETURN(stmt.alias, ParseTargetAlias("where"));
  if (AcceptKeyword("where")) {
    DELTA_ASSIGN_OR_RETURN(stmt.where, ParseExpr());
  }
  return stmt;
}

}  // namespace deltaguard::internal
