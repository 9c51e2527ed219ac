// Queries (SELECT, VALUES, TABLE, subqueries) and INSERT.

#include <charconv>
#include <memory>
#include <string>
#include <utility>

#include "deltaguard/expr/parser.h"
#include "deltaguard/sql/parse/statement_parser_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {
namespace {

SelectStmt StarSelect() {
  SelectStmt select;
  SelectItem star;
  star.star = true;
  star.text = "*";
  select.items.push_back(std::move(star));
  return select;
}

}  // namespace

Result<StatementBody> StatementParser::ParseQueryStatement() {
  DELTA_ASSIGN_OR_RETURN(SelectRef query, ParseQuery());
  return SelectStmt(*query);
}

bool StatementParser::AtQueryStart(size_t ahead) const {
  return PeekKeyword("select", ahead) || PeekKeyword("values", ahead) ||
         PeekKeyword("table", ahead) || PeekKeyword("with", ahead) ||
         IsSymbol(Peek(ahead), "(");
}

bool StatementParser::IsClauseKeyword(const Token& t) {
  static constexpr std::string_view kWords[] = {
      "from",       "where",   "group",     "having", "order",   "limit",       "offset",
      "union",      "except",  "intersect", "minus",  "window",  "sort",        "cluster",
      "distribute", "lateral", "join",      "inner",  "left",    "right",       "full",
      "outer",      "cross",   "natural",   "anti",   "semi",    "on",          "using",
      "select",     "values",  "table",     "pivot",  "unpivot", "tablesample", "qualify",
      "replace",    "by",      "with"};
  if (t.kind != TokenKind::kIdent) return false;
  for (std::string_view w : kWords) {
    if (EqualsIgnoreCase(t.text, w)) return true;
  }
  return IsReservedWord(t.text);
}

// [WITH ctes] operand {UNION|EXCEPT|MINUS [ALL|DISTINCT] operand} [ORDER BY] [LIMIT],
// INTERSECT binding tighter than UNION and EXCEPT (as Spark). ORDER BY and LIMIT after
// a set operation are the whole result's: it becomes a subquery they order.
Result<SelectRef> StatementParser::ParseQuery() {
  struct Guard {
    explicit Guard(int* d) : depth(d) { ++*depth; }
    ~Guard() { --*depth; }
    int* depth;
  } guard(&depth_);
  if (depth_ > kMaxQueryDepth) {
    return ErrorAt(Peek().pos,
                   fmt::format("queries nested deeper than {} levels", kMaxQueryDepth));
  }
  std::vector<CommonTableExpr> with;
  if (AcceptKeyword("with")) {
    DELTA_ASSIGN_OR_RETURN(with, ParseWithClause());
  }
  const int32_t pos = Peek().pos;
  bool parenthesized = false;
  DELTA_ASSIGN_OR_RETURN(SelectRef body, ParseSetExpression(&parenthesized));
  SelectStmt select;
  const bool ordered = PeekKeyword("order") || PeekKeyword("limit");
  if (body->set_op || (parenthesized && ordered) ||
      (!with.empty() && !body->with.empty())) {
    select = StarSelect();
    select.from.kind = FromClause::Kind::kSubquery;
    select.from.subquery = std::move(body);
    select.from.position = pos;
  } else {
    select = *body;
  }
  if (select.order_by.empty() && !select.limit) {
    DELTA_RETURN_IF_ERROR(ParseOrderByLimit(&select));
  }
  if (!with.empty()) select.with = std::move(with);
  return std::make_shared<const SelectStmt>(std::move(select));
}

// name [(c1, ...)] AS (query), ...
Result<std::vector<CommonTableExpr>> StatementParser::ParseWithClause() {
  if (PeekKeyword("recursive")) return Unsupported("WITH RECURSIVE");
  std::vector<CommonTableExpr> out;
  do {
    CommonTableExpr cte;
    DELTA_ASSIGN_OR_RETURN(cte.name, ParseIdentifier("a name for the WITH query"));
    for (const auto& seen : out) {
      if (EqualsIgnoreCase(seen.name, cte.name)) {
        return Fail(fmt::format("the WITH clause names '{}' twice", cte.name));
      }
    }
    if (IsSymbol(Peek(), "(")) {
      DELTA_ASSIGN_OR_RETURN(cte.columns, ParseNameList("a column name"));
    }
    AcceptKeyword("as");
    DELTA_RETURN_IF_ERROR(ExpectSymbol("("));
    DELTA_ASSIGN_OR_RETURN(cte.query, ParseQuery());
    DELTA_RETURN_IF_ERROR(ExpectSymbol(")"));
    out.push_back(std::move(cte));
  } while (AcceptSymbol(","));
  return out;
}

// operand {(UNION|EXCEPT|MINUS) [ALL|DISTINCT] operand}, left to right, each operand
// an INTERSECT chain.
Result<SelectRef> StatementParser::ParseSetExpression(bool* parenthesized) {
  return ParseSetLevel(/*intersect=*/false, parenthesized);
}

// One level of set operators: INTERSECT (its operands are queries) or UNION/EXCEPT
// (its operands are INTERSECT chains).
Result<SelectRef> StatementParser::ParseSetLevel(bool intersect, bool* parenthesized) {
  auto operand = [&](bool* paren) {
    return intersect ? ParseQueryOperand(paren) : ParseSetLevel(true, paren);
  };
  DELTA_ASSIGN_OR_RETURN(SelectRef left, operand(parenthesized));
  while (intersect
             ? PeekKeyword("intersect")
             : PeekKeyword("union") || PeekKeyword("except") || PeekKeyword("minus")) {
    SetOperation op;
    op.kind = intersect              ? SetOperation::Kind::kIntersect
              : PeekKeyword("union") ? SetOperation::Kind::kUnion
                                     : SetOperation::Kind::kExcept;
    Next();
    op.all = AcceptKeyword("all");
    if (!op.all) AcceptKeyword("distinct");
    bool ignored = false;
    op.left = std::move(left);
    DELTA_ASSIGN_OR_RETURN(op.right, operand(&ignored));
    SelectStmt compound;
    compound.set_op = std::make_shared<const SetOperation>(std::move(op));
    left = std::make_shared<const SelectStmt>(std::move(compound));
    *parenthesized = false;
  }
  return left;
}

// SELECT ... | VALUES ... | TABLE t | (query): one operand of a set operation, without
// ORDER BY and LIMIT unless parenthesized.
Result<SelectRef> StatementParser::ParseQueryOperand(bool* parenthesized) {
  *parenthesized = false;
  SelectStmt select;
  if (PeekKeyword("select")) {
    DELTA_ASSIGN_OR_RETURN(select, ParseSelect());
  } else if (PeekKeyword("values")) {
    select = StarSelect();
    select.from.kind = FromClause::Kind::kValues;
    select.from.position = Peek().pos;
    DELTA_RETURN_IF_ERROR(ParseValuesRows(&select.from));
    DELTA_RETURN_IF_ERROR(ParseSourceAlias(&select.from));
  } else if (PeekKeyword("table")) {
    Next();
    select = StarSelect();
    select.from.kind = FromClause::Kind::kTable;
    select.from.position = Peek().pos;
    DELTA_ASSIGN_OR_RETURN(select.from.table, ParseTableRef());
  } else if (IsSymbol(Peek(), "(")) {
    Next();
    DELTA_ASSIGN_OR_RETURN(SelectRef inner, ParseQuery());
    DELTA_RETURN_IF_ERROR(ExpectSymbol(")"));
    *parenthesized = true;
    return inner;
  } else if (PeekKeyword("with")) {
    return Fail("WITH must start the query (or a parenthesized query)");
  } else {
    return Fail("expected 'SELECT', 'VALUES', 'TABLE' or '('");
  }
  return std::make_shared<const SelectStmt>(std::move(select));
}

// SELECT [DISTINCT|ALL] items [FROM source] [WHERE p] [GROUP BY e, ...] [HAVING p]
Result<SelectStmt> StatementParser::ParseSelect() {
  Next();  // SELECT
  SelectStmt select;
  if (AcceptKeyword("distinct")) {
    select.distinct = true;
  } else {
    AcceptKeyword("all");
  }
  DELTA_RETURN_IF_ERROR(ParseSelectItems(&select));
  if (AcceptKeyword("from")) {
    DELTA_ASSIGN_OR_RETURN(select.from, ParseFromClause());
    while (PeekKeyword("lateral") && PeekKeyword("view", 1)) {
      DELTA_ASSIGN_OR_RETURN(LateralView view, ParseLateralView());
      select.lateral_views.push_back(std::move(view));
    }
  }
  if (AcceptKeyword("where")) {
    DELTA_ASSIGN_OR_RETURN(select.where, ParseExpr());
  }
  if (AcceptKeywords({"group", "by"})) {
    do {
      DELTA_ASSIGN_OR_RETURN(ExprRef e, ParseExpr());
      select.group_by.push_back(std::move(e));
    } while (AcceptSymbol(","));
  }
  if (AcceptKeyword("having")) {
    DELTA_ASSIGN_OR_RETURN(select.having, ParseExpr());
  }
  if (AcceptKeyword("window")) {
    // WINDOW w AS (spec), ... (named windows, resolved by the query planner)
    do {
      const Token& name = Peek();
      if (!IsName(name)) return Fail("a window name after WINDOW");
      Next();
      DELTA_RETURN_IF_ERROR(ExpectKeyword("as"));
      DELTA_ASSIGN_OR_RETURN(auto spec, ParseWindowSpecHere());
      select.windows.emplace_back(name.text, std::move(spec));
    } while (AcceptSymbol(","));
  }
  if (AcceptKeyword("qualify")) {
    DELTA_ASSIGN_OR_RETURN(select.qualify, ParseExpr());
  }
  return select;  // ORDER BY and LIMIT: ParseQuery's
}

Status StatementParser::ParseSelectItems(SelectStmt* select) {
  do {
    SelectItem item;
    size_t start = idx_;
    // `*`, `q.*`, `a.b.*`, each with an optional EXCEPT (c1, c2).
    size_t ahead = 0;
    while (IsName(Peek(ahead)) && IsSymbol(Peek(ahead + 1), ".")) ahead += 2;
    if (IsSymbol(Peek(ahead), "*") && (ahead == 0 || IsSymbol(Peek(ahead - 1), "."))) {
      item.star = true;
      for (size_t i = 0; i < ahead; i += 2) {
        if (!item.star_qualifier.empty()) item.star_qualifier += ".";
        item.star_qualifier += Next().text;
        Next();  // .
      }
      Next();  // *
      if (AcceptKeyword("except")) {
        DELTA_ASSIGN_OR_RETURN(item.star_except, ParseNameList("a column name"));
      }
      item.text = std::string(SourceText(start, idx_));
      select->items.push_back(std::move(item));
      continue;
    }
    // `SELECT a, FROM t`: the expression grammar would read FROM as a column name.
    for (std::string_view clause :
         {"from", "where", "group", "having", "qualify", "order", "limit"}) {
      if (PeekKeyword(clause) && !IsSymbol(Peek(1), "(") && !IsSymbol(Peek(1), ".")) {
        return Fail("expected an expression");
      }
    }
    DELTA_ASSIGN_OR_RETURN(item.expr, ParseExpr());
    item.text = std::string(SourceText(start, idx_));
    if (AcceptKeyword("as")) {
      DELTA_ASSIGN_OR_RETURN(item.alias, ParseIdentifier("an alias after AS"));
    } else if (Peek().kind == TokenKind::kQuotedIdent ||
               (Peek().kind == TokenKind::kIdent && !IsClauseKeyword(Peek()))) {
      item.alias = Next().text;
    }
    select->items.push_back(std::move(item));
  } while (AcceptSymbol(","));
  return OkStatus();
}

// table [time travel] [alias] | function(args) [alias] | VALUES rows [alias] |
// (query) [alias] | 'path' | STREAM function(args) [alias] | STREAM(source) [alias]
Result<FromClause> StatementParser::ParseFromSource() {
  FromClause from;
  from.position = Peek().pos;
  // `STREAM f(...)` or `STREAM(x)`; a table named `stream` stays a table.
  const bool stream_call = Peek(1).kind == TokenKind::kIdent && IsSymbol(Peek(2), "(");
  const bool stream_wrap =
      IsSymbol(Peek(1), "(") && IsName(Peek(2)) &&
      (IsSymbol(Peek(3), "(") || IsSymbol(Peek(3), ")") || IsSymbol(Peek(3), "."));
  bool wrapped = false;
  if (PeekKeyword("stream") && (stream_call || stream_wrap)) {
    Next();  // STREAM
    wrapped = AcceptSymbol("(");
    from.stream = true;
  }
  if (!from.stream && IsSymbol(Peek(), "(")) {
    Next();
    from.kind = FromClause::Kind::kSubquery;
    DELTA_ASSIGN_OR_RETURN(from.subquery, ParseQuery());
    DELTA_RETURN_IF_ERROR(ExpectSymbol(")"));
  } else if (!from.stream && PeekKeyword("values")) {
    from.kind = FromClause::Kind::kValues;
    DELTA_RETURN_IF_ERROR(ParseValuesRows(&from));
  } else if (Peek().kind == TokenKind::kIdent && IsSymbol(Peek(1), "(")) {
    from.kind = FromClause::Kind::kFunction;
    from.function = AsciiToLower(Next().text);
    DELTA_RETURN_IF_ERROR(ParseFunctionArgs(&from));
  } else {
    from.kind = FromClause::Kind::kTable;
    DELTA_ASSIGN_OR_RETURN(from.table, ParseTableRef());
    if (!from.stream) DELTA_RETURN_IF_ERROR(ParseTimeTravel(&from));
  }
  if (wrapped) DELTA_RETURN_IF_ERROR(ExpectSymbol(")"));
  DELTA_RETURN_IF_ERROR(ParseSourceAlias(&from));
  return from;
}

// LATERAL VIEW [OUTER] generator(args) alias [[AS] c1 [, c2 ...]]
Result<LateralView> StatementParser::ParseLateralView() {
  LateralView view;
  view.position = Peek().pos;
  Next();  // LATERAL
  Next();  // VIEW
  view.outer = AcceptKeyword("outer");
  if (Peek().kind != TokenKind::kIdent || !IsSymbol(Peek(1), "(")) {
    return Fail("a generator call after LATERAL VIEW (explode, posexplode, inline)");
  }
  DELTA_ASSIGN_OR_RETURN(view.generator, ParseExpr());
  if (IsClauseKeyword(Peek()) && !PeekKeyword("as")) {
    return Fail("expected a table alias after LATERAL VIEW's generator");
  }
  DELTA_ASSIGN_OR_RETURN(view.alias, ParseIdentifier("a table alias after LATERAL VIEW"));
  if (AcceptKeyword("as") || (IsName(Peek()) && !IsClauseKeyword(Peek()))) {
    do {
      DELTA_ASSIGN_OR_RETURN(std::string c, ParseIdentifier("a column name"));
      view.columns.push_back(std::move(c));
    } while (AcceptSymbol(","));
  }
  return view;
}

// source { , source | [NATURAL] join-type JOIN source [ON cond | USING (c, ...)] },
// left-deep: `a JOIN b JOIN c` is `(a JOIN b) JOIN c`.
Result<FromClause> StatementParser::ParseFromClause() {
  DELTA_ASSIGN_OR_RETURN(FromClause left, ParseFromSource());
  while (true) {
    auto join = std::make_shared<JoinClause>();
    join->position = Peek().pos;
    if (AcceptSymbol(",")) {
      join->type = JoinClause::Type::kCross;
    } else {
      // LATERAL VIEW follows the FROM clause (ParseLateralView); a LATERAL subquery
      // or table function is not supported.
      if (PeekKeyword("lateral") && PeekKeyword("view", 1)) break;
      if (PeekKeyword("lateral")) return Unsupported("LATERAL (other than LATERAL VIEW)");
      join->natural = AcceptKeyword("natural");
      DELTA_ASSIGN_OR_RETURN(std::optional<JoinClause::Type> type, ParseJoinType());
      if (!type) {
        if (join->natural) return Fail("expected a join after NATURAL");
        break;
      }
      join->type = *type;
    }
    DELTA_ASSIGN_OR_RETURN(join->right, ParseFromSource());
    const bool conditioned = join->type != JoinClause::Type::kCross && !join->natural;
    if (conditioned && AcceptKeyword("on")) {
      DELTA_ASSIGN_OR_RETURN(join->on, ParseExpr());
    } else if (conditioned && PeekKeyword("using")) {
      Next();
      DELTA_ASSIGN_OR_RETURN(join->using_columns, ParseNameList("a column name"));
    } else if (PeekKeyword("on") || PeekKeyword("using")) {
      return Fail(join->natural ? "a NATURAL join takes no ON or USING"
                                : "a CROSS join takes no ON or USING");
    }
    join->left = std::move(left);
    left = FromClause();
    left.kind = FromClause::Kind::kJoin;
    left.position = join->left.position;
    left.join = std::move(join);
  }
  return left;
}

// [INNER] JOIN | CROSS JOIN | LEFT [OUTER] JOIN | RIGHT [OUTER] JOIN | FULL [OUTER]
// JOIN | [LEFT] SEMI JOIN | [LEFT] ANTI JOIN; nullopt (nothing read) when none.
Result<std::optional<JoinClause::Type>> StatementParser::ParseJoinType() {
  using Type = JoinClause::Type;
  std::optional<Type> type;
  if (AcceptKeyword("join")) return Type::kInner;
  if (AcceptKeyword("inner")) {
    type = Type::kInner;
  } else if (AcceptKeyword("cross")) {
    type = Type::kCross;
  } else if (AcceptKeyword("left")) {
    if (AcceptKeyword("semi")) {
      type = Type::kLeftSemi;
    } else if (AcceptKeyword("anti")) {
      type = Type::kLeftAnti;
    } else {
      AcceptKeyword("outer");
      type = Type::kLeft;
    }
  } else if (AcceptKeyword("right")) {
    AcceptKeyword("outer");
    type = Type::kRight;
  } else if (AcceptKeyword("full")) {
    AcceptKeyword("outer");
    type = Type::kFull;
  } else if (AcceptKeyword("semi")) {
    type = Type::kLeftSemi;
  } else if (AcceptKeyword("anti")) {
    type = Type::kLeftAnti;
  } else {
    return std::optional<Type>();
  }
  if (!AcceptKeyword("join")) return Fail("expected JOIN");
  return type;
}

// (arg, ..., name => value, ...): positional and named arguments in any order.
Status StatementParser::ParseFunctionArgs(FromClause* from) {
  Next();  // (
  if (AcceptSymbol(")")) return OkStatus();
  do {
    if (IsName(Peek()) && IsSymbol(Peek(1), "=>")) {
      std::string name = AsciiToLower(Next().text);
      Next();  // =>
      DELTA_ASSIGN_OR_RETURN(ExprRef value, ParseExpr());
      from->named_args.emplace_back(std::move(name), std::move(value));
    } else {
      DELTA_ASSIGN_OR_RETURN(ExprRef arg, ParseExpr());
      from->args.push_back(std::move(arg));
    }
  } while (AcceptSymbol(","));
  return ExpectSymbol(")");
}

// VALUES (a, b), (c, d) | VALUES a, b (one column)
Status StatementParser::ParseValuesRows(FromClause* from) {
  Next();  // VALUES
  do {
    std::vector<ExprRef> row;
    if (AcceptSymbol("(")) {
      do {
        DELTA_ASSIGN_OR_RETURN(ExprRef e, ParseExpr());
        row.push_back(std::move(e));
      } while (AcceptSymbol(","));
      DELTA_RETURN_IF_ERROR(ExpectSymbol(")"));
    } else {
      DELTA_ASSIGN_OR_RETURN(ExprRef e, ParseExpr());
      row.push_back(std::move(e));
    }
    from->rows.push_back(std::move(row));
  } while (AcceptSymbol(","));
  return OkStatus();
}

// [FOR] (VERSION|SYSTEM_VERSION) AS OF n | [FOR] (TIMESTAMP|SYSTEM_TIME) AS OF expr
Status StatementParser::ParseTimeTravel(FromClause* from) {
  size_t skip = PeekKeyword("for") ? 1 : 0;
  bool version = PeekKeyword("version", skip) || PeekKeyword("system_version", skip);
  bool timestamp = PeekKeyword("timestamp", skip) || PeekKeyword("system_time", skip);
  if ((!version && !timestamp) || !PeekKeyword("as", skip + 1) ||
      !PeekKeyword("of", skip + 2)) {
    return OkStatus();
  }
  for (size_t i = 0; i < skip + 3; ++i) Next();
  TimeTravel travel;
  if (version) {
    // Spark also accepts the version as a string: VERSION AS OF '3'.
    if (Peek().kind == TokenKind::kString) {
      const Token& t = Peek();
      int64_t v = 0;
      auto [ptr, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
      if (ec != std::errc() || ptr != t.text.data() + t.text.size() || v < 0) {
        return Fail("expected a table version (a non-negative integer)");
      }
      Next();
      travel.version = v;
    } else {
      DELTA_ASSIGN_OR_RETURN(int64_t v, ParseInteger("a table version"));
      travel.version = v;
    }
  } else {
    DELTA_ASSIGN_OR_RETURN(travel.timestamp, ParseExpr());
  }
  from->time_travel = std::move(travel);
  return OkStatus();
}

Status StatementParser::ParseSourceAlias(FromClause* from) {
  bool as = AcceptKeyword("as");
  const Token& t = Peek();
  bool bare_ok = t.kind == TokenKind::kQuotedIdent ||
                 (t.kind == TokenKind::kIdent && !IsClauseKeyword(t));
  if (!as && !bare_ok) return OkStatus();
  DELTA_ASSIGN_OR_RETURN(from->alias, ParseIdentifier("an alias"));
  if (IsSymbol(Peek(), "(")) {
    DELTA_ASSIGN_OR_RETURN(from->column_aliases, ParseNameList("a column alias"));
  }
  return OkStatus();
}

// [ORDER BY e [ASC|DESC] [NULLS FIRST|LAST], ...] [LIMIT n]
Status StatementParser::ParseOrderByLimit(SelectStmt* select) {
  if (AcceptKeywords({"order", "by"})) {
    do {
      OrderItem item;
      DELTA_ASSIGN_OR_RETURN(item.expr, ParseExpr());
      if (AcceptKeyword("desc")) {
        item.descending = true;
      } else {
        AcceptKeyword("asc");
      }
      if (AcceptKeyword("nulls")) {
        if (AcceptKeyword("first")) {
          item.nulls_first = true;
        } else if (AcceptKeyword("last")) {
          item.nulls_first = false;
        } else {
          return Fail("expected 'FIRST' or 'LAST'");
        }
      }
      select->order_by.push_back(std::move(item));
    } while (AcceptSymbol(","));
  }
  if (AcceptKeyword("limit")) {
    if (AcceptKeyword("all")) return OkStatus();
    DELTA_ASSIGN_OR_RETURN(int64_t limit, ParseInteger("a row count after LIMIT"));
    select->limit = limit;
  }
  if (PeekKeyword("offset")) return Unsupported("OFFSET");
  return OkStatus();
}

// INSERT [WITH SCHEMA EVOLUTION] (INTO|OVERWRITE) [TABLE] t [WITH SCHEMA EVOLUTION]
//   [(c1, c2) | BY NAME] [WITH SCHEMA EVOLUTION] [REPLACE WHERE pred]
//   (VALUES ... | SELECT ... | TABLE src | (query))
Result<StatementBody> StatementParser::ParseInsert() {
  Next();  // INSERT
  InsertStmt stmt;
  auto accept_evolution = [&]() -> Status {
    int32_t pos = Peek().pos;
    if (!AcceptKeywords({"with", "schema", "evolution"})) return OkStatus();
    if (stmt.schema_evolution) return ErrorAt(pos, "duplicate WITH SCHEMA EVOLUTION");
    stmt.schema_evolution = true;
    return OkStatus();
  };
  DELTA_RETURN_IF_ERROR(accept_evolution());
  if (AcceptKeyword("overwrite")) {
    stmt.overwrite = true;
    if (PeekKeyword("directory") || PeekKeyword("local")) {
      return Unsupported("INSERT OVERWRITE DIRECTORY");
    }
  } else if (!AcceptKeyword("into")) {
    return Fail("expected 'INTO' or 'OVERWRITE'");
  }
  if (PeekKeyword("table") && (IsName(Peek(1)) || Peek(1).kind == TokenKind::kString)) {
    Next();
  }
  DELTA_ASSIGN_OR_RETURN(stmt.table, ParseTableRef());
  DELTA_RETURN_IF_ERROR(accept_evolution());
  if (PeekKeyword("partition")) return Unsupported("INSERT with a PARTITION clause");
  if (IsSymbol(Peek(), "(") && !AtQueryStart(1)) {
    DELTA_ASSIGN_OR_RETURN(stmt.columns, ParseNameList("a column name"));
  } else if (AcceptKeywords({"by", "name"})) {
    stmt.by_name = true;
  }
  DELTA_RETURN_IF_ERROR(accept_evolution());
  if (PeekKeyword("replace") && PeekKeyword("where", 1)) {
    if (stmt.overwrite) {
      return ErrorAt(Peek().pos,
                     "REPLACE WHERE goes with INSERT INTO, not INSERT OVERWRITE");
    }
    Next();
    Next();
    size_t start = idx_;
    DELTA_ASSIGN_OR_RETURN(stmt.replace_where, ParseExpr());
    stmt.replace_where_text = std::string(SourceText(start, idx_));
  }
  if (!AtQueryStart()) {
    return Fail(stmt.columns.empty() && !stmt.by_name
                    ? "expected a column list, 'BY NAME', 'VALUES', 'SELECT' or 'TABLE'"
                    : "expected 'VALUES', 'SELECT' or 'TABLE'");
  }
  DELTA_ASSIGN_OR_RETURN(stmt.query, ParseQuery());
  return stmt;
}

}  // namespace deltaguard::internal
