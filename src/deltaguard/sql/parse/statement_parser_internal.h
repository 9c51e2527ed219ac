/// \file deltaguard/sql/parse/statement_parser_internal.h
/// The recursive-descent parser behind sql_parser.h, shared by its .cc files
/// (sql_parser.cc: scripts, dispatch, tokens, shared pieces; parse_query.cc: SELECT,
/// VALUES, INSERT; parse_create.cc: CREATE/REPLACE; parse_misc.cc: DROP, DESCRIBE,
/// SHOW, SET/RESET, USE; parse_alter.cc: ALTER TABLE; parse_dml.cc: MERGE, UPDATE,
/// DELETE). Not part of the public API.
///
/// Invariants:
///  1. One parser parses one statement: `tokens` are the statement's tokens with byte
///     positions relative to the statement text, ending with one kEnd token at
///     `text.size()`; errors are reported at `offset + pos` of the whole script.
///  2. Expressions are parsed by the expression parser (expr/parser_internal.h) on the
///     same tokens; there is no second expression grammar here.
///  3. Adding a statement is one member function plus one row of the dispatch table in
///     sql_parser.cc.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltaguard/expr/lexer.h"
#include "deltaguard/expr/parser.h"
#include "deltaguard/sql/parse/statement.h"
#include "deltaguard/util/result.h"

namespace deltaguard::internal {

class StatementParser {
 public:
  StatementParser(std::string_view script, int32_t offset, std::string_view text,
                  std::vector<Token> tokens);

  /// Parse the whole statement; tokens left over are a syntax error.
  Result<StatementBody> Parse();

  // Statements (the first keyword has not been consumed). parse_misc.cc.
  Result<StatementBody> ParseDrop();
  Result<StatementBody> ParseDescribe();
  Result<StatementBody> ParseShow();
  Result<StatementBody> ParseSet();
  Result<StatementBody> ParseReset();
  Result<StatementBody> ParseUse();
  Result<StatementBody> ParseVacuum();
  // parse_query.cc
  Result<StatementBody> ParseQueryStatement();
  Result<StatementBody> ParseInsert();
  // parse_create.cc
  Result<StatementBody> ParseCreate();
  Result<StatementBody> ParseReplace();
  // parse_alter.cc
  Result<StatementBody> ParseAlter();
  // parse_dml.cc
  Result<StatementBody> ParseMerge();
  Result<StatementBody> ParseUpdate();
  Result<StatementBody> ParseDelete();

 private:
  // --- tokens (sql_parser.cc) ---
  const Token& Peek(size_t ahead = 0) const;
  const Token& Next();
  static bool IsKeyword(const Token& t, std::string_view kw);
  static bool IsSymbol(const Token& t, std::string_view s);
  static bool IsName(const Token& t);  ///< identifier or `quoted identifier`
  bool PeekKeyword(std::string_view kw, size_t ahead = 0) const;
  bool AcceptKeyword(std::string_view kw);
  /// Consume the keywords only when all of them follow, in order.
  bool AcceptKeywords(std::initializer_list<std::string_view> kws);
  bool AcceptSymbol(std::string_view s);
  Status ExpectKeyword(std::string_view kw);
  Status ExpectSymbol(std::string_view s);
  /// kParseError at the next token: "<expected> but found <token>".
  Error Fail(std::string_view expected) const;
  /// kParseError at byte `pos` of the statement.
  Error ErrorAt(int32_t pos, std::string_view what) const;
  /// kUnsupportedFeature "<what> is not supported yet".
  static Error Unsupported(std::string_view what);
  /// The statement text from token `first` up to (not including) token `end`.
  std::string_view SourceText(size_t first, size_t end) const;
  std::string_view Rest() const;  ///< the text from the next token to the end

  // --- shared pieces (sql_parser.cc) ---
  Result<std::string> ParseIdentifier(std::string_view what);
  Result<LateralView> ParseLateralView();
  /// `( a, b, ... )` of plain names.
  Result<std::vector<std::string>> ParseNameList(std::string_view what);
  Result<TableRef> ParseTableRef();
  Result<ExprRef> ParseExpr();
  /// A WINDOW clause's `(spec)`.
  Result<WindowSpecRef> ParseWindowSpecHere();
  internal::SubqueryParseFn SubqueryParser();
  Result<int64_t> ParseInteger(std::string_view what);
  Result<std::string> ParseString(std::string_view what);
  /// `[IF NOT EXISTS]` / `[IF EXISTS]`.
  Result<bool> ParseIfExists(bool with_not);
  /// Reject a second occurrence of a clause (Spark: "Found duplicate clauses").
  Status CheckOnce(bool* seen, std::string_view clause, int32_t pos) const;

  // --- queries (parse_query.cc) ---
  /// SELECT ... | VALUES ... | TABLE t | ( query ), then ORDER BY / LIMIT.
  Result<SelectRef> ParseQuery();
  Result<std::vector<CommonTableExpr>> ParseWithClause();
  Result<SelectRef> ParseSetExpression(bool* parenthesized);
  Result<SelectRef> ParseSetLevel(bool intersect, bool* parenthesized);
  Result<FromClause> ParseFromClause();
  Result<std::optional<JoinClause::Type>> ParseJoinType();
  Result<SelectRef> ParseQueryOperand(bool* parenthesized);
  bool AtQueryStart(size_t ahead = 0) const;
  Result<SelectStmt> ParseSelect();
  Status ParseSelectItems(SelectStmt* select);
  Result<FromClause> ParseFromSource();
  Status ParseFunctionArgs(FromClause* from);
  Status ParseValuesRows(FromClause* from);
  Status ParseTimeTravel(FromClause* from);
  /// `[AS] alias [(c1, c2)]`; a bare alias must not be a clause keyword.
  Status ParseSourceAlias(FromClause* from);
  Status ParseOrderByLimit(SelectStmt* select);
  /// True for words that end a clause and so cannot be a bare alias (FROM, WHERE, ...).
  static bool IsClauseKeyword(const Token& t);

  // --- CREATE (parse_create.cc) ---
  Result<StatementBody> ParseCreateTable(CreateTableStmt stmt);
  Result<SchemaRef> ParseColumnList();
  Status ParseTableProperties(
      std::vector<std::pair<std::string, std::string>>* properties);
  struct ColumnType {
    DataTypeRef type;
    std::string_view text;  ///< as written, a view of the statement text
  };
  /// A column's type (`DECIMAL(10,2)`, `ARRAY<STRUCT<a: INT>>`), checked by schema/ddl.h.
  Result<ColumnType> ParseColumnType(std::string_view column);
  Result<std::string> ParsePropertyKey();
  Result<std::string> ParsePropertyValue();
  Result<StatementBody> ParseCreateDatabase();
  Result<StatementBody> ParseCreateView(bool or_replace);

  // --- ALTER TABLE (parse_alter.cc) ---
  /// `a.b.c` (backticks allowed): one or more names joined by '.'.
  Result<ColumnPath> ParseColumnPath(std::string_view what);
  /// `[(] path, ... [)]` (parentheses optional).
  Result<std::vector<ColumnPath>> ParseColumnPathList(std::string_view what);
  /// `FIRST` | `AFTER name`, when one follows.
  Result<std::optional<ColumnPlacement>> ParsePlacement();
  Result<AlterAction> ParseAlterAdd();
  Result<AddColumnSpec> ParseAddColumnSpec();
  Result<AlterAction> ParseAlterDrop();
  Result<AlterAction> ParseAlterChangeColumn();
  Result<AlterAction> ParseAlterProperties(bool set);
  Result<AlterAction> ParseAddConstraint();

  // --- MERGE / UPDATE / DELETE (parse_dml.cc) ---
  /// `[AS] alias` after a DML target; a bare alias must not be `stop` or a clause word.
  Result<std::string> ParseTargetAlias(std::string_view stop);
  /// A DML target is the latest version: `t VERSION AS OF n` is an error.
  Status RefuseTargetTimeTravel(std::string_view statement);
  /// `path = expr, ...`
  Result<std::vector<Assignment>> ParseAssignments();
  Result<MergeClause> ParseMergeClause();
  Status ParseMergeAction(MergeClause* clause);
  /// The clause rules Spark checks (at least one clause, only the last clause of a
  /// kind may omit its condition).
  Status CheckMergeClauses(const std::vector<MergeClause>& clauses) const;

  std::string_view script_;
  int32_t offset_;
  std::string_view text_;
  std::vector<Token> tokens_;
  SyntaxErrorFn error_;
  size_t idx_ = 0;
  int depth_ = 0;  ///< nesting of queries, guarded by kMaxQueryDepth
};

/// DDL text for schema/ddl.h (parse_create.cc): a name always backticked (inner
/// backticks doubled); a string single-quoted with backslashes and quotes escaped.
std::string BacktickName(std::string_view name);
std::string QuoteDdlString(std::string_view s);

/// Nested subqueries deeper than this are refused instead of exhausting the stack.
inline constexpr int kMaxQueryDepth = 64;

}  // namespace deltaguard::internal
