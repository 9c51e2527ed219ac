// The expression parser's calls: function calls with DISTINCT, `*`, `position(a IN
// s)` and `struct(x AS name)`, IGNORE NULLS and OVER with a window specification or a
// window name, CASE's sibling forms live in parser.cc; and subqueries, whose query the
// statement parser reads (SubqueryParseFn).

#include <memory>
#include <string>
#include <utility>

#include "deltaguard/expr/parser_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {

Result<std::shared_ptr<WindowSpec>> ExprParser::ParseParenthesizedWindowSpec() {
  DELTA_RETURN_IF_ERROR(ExpectSymbol("("));
  auto spec = std::make_shared<WindowSpec>();
  DELTA_RETURN_IF_ERROR(ParseWindowSpec(spec.get()));
  return spec;
}

Result<ExprRef> ExprParser::ParseCall(const Token& name) {
  Next();  // (
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kFunction;
  e->text = AsciiToLower(name.text);
  e->position = name.pos;
  if (AcceptSymbol("*")) {
    e->star = true;
  } else if (e->text == "position" && !IsSymbol(Peek(), ")")) {
    // position(substr IN str) as well as position(substr, str [, pos]); the
    // operands of IN bind tighter than a predicate.
    DELTA_ASSIGN_OR_RETURN(ExprRef sub, ParseAdditive());
    e->children.push_back(sub);
    if (AcceptKeyword("in")) {
      DELTA_ASSIGN_OR_RETURN(ExprRef str, ParseAdditive());
      e->children.push_back(str);
    } else {
      while (AcceptSymbol(",")) {
        DELTA_ASSIGN_OR_RETURN(ExprRef arg, ParseOr());
        e->children.push_back(arg);
      }
    }
  } else if (!IsSymbol(Peek(), ")")) {
    e->distinct = AcceptKeyword("distinct");
    do {
      ExprRef arg;
      if (AtLambda()) {
        DELTA_ASSIGN_OR_RETURN(arg, ParseLambda());
      } else {
        DELTA_ASSIGN_OR_RETURN(arg, ParseOr());
      }
      e->children.push_back(arg);
      // struct(a AS x, b): field names in `path`, one per argument ("" for none).
      if (e->text == "struct" && AcceptKeyword("as")) {
        const Token& field = Peek();
        if (field.kind != TokenKind::kIdent && field.kind != TokenKind::kQuotedIdent) {
          return Fail(field, "expected a field name after AS");
        }
        e->path.resize(e->children.size());
        e->path.back() = Next().text;
      }
    } while (AcceptSymbol(","));
    if (!e->path.empty()) e->path.resize(e->children.size());
  }
  DELTA_RETURN_IF_ERROR(ExpectSymbol(")"));
  bool ignore_nulls = false;
  if ((IsKeyword(Peek(), "ignore") || IsKeyword(Peek(), "respect")) &&
      IsKeyword(Peek(1), "nulls")) {
    ignore_nulls = IsKeyword(Next(), "ignore");
    Next();
    if (!IsKeyword(Peek(), "over")) return Fail(Peek(), "expected OVER");
  }
  if (!IsKeyword(Peek(), "over")) return ExprRef(e);
  auto spec = std::make_shared<WindowSpec>();
  spec->ignore_nulls = ignore_nulls;
  if (Peek(1).kind == TokenKind::kIdent || Peek(1).kind == TokenKind::kQuotedIdent) {
    Next();                    // OVER
    spec->name = Next().text;  // a named window (the query's WINDOW clause)
  } else {
    if (!IsSymbol(Peek(1), "(")) return Fail(Peek(1), "expected '(' or a window name");
    Next();  // OVER
    Next();  // (
    DELTA_RETURN_IF_ERROR(ParseWindowSpec(spec.get()));
  }
  auto w = std::make_shared<Expr>();
  w->kind = ExprKind::kWindow;
  w->position = e->position;
  w->window = std::move(spec);
  w->children.push_back(std::move(e));
  return ExprRef(w);
}

Status ExprParser::ParseWindowSpec(WindowSpec* spec) {
  if (AcceptKeyword("partition")) {
    DELTA_RETURN_IF_ERROR(ExpectKeyword("by"));
    do {
      DELTA_ASSIGN_OR_RETURN(ExprRef p, ParseOr());
      spec->partition_by.push_back(std::move(p));
    } while (AcceptSymbol(","));
  }
  if (AcceptKeyword("order")) {
    DELTA_RETURN_IF_ERROR(ExpectKeyword("by"));
    do {
      WindowOrderItem item;
      DELTA_ASSIGN_OR_RETURN(item.expr, ParseOr());
      if (AcceptKeyword("desc")) {
        item.descending = true;
      } else {
        AcceptKeyword("asc");
      }
      item.nulls_first = !item.descending;
      if (AcceptKeyword("nulls")) {
        if (AcceptKeyword("first")) {
          item.nulls_first = true;
        } else if (AcceptKeyword("last")) {
          item.nulls_first = false;
        } else {
          return Fail(Peek(), "expected FIRST or LAST after NULLS");
        }
      }
      spec->order_by.push_back(std::move(item));
    } while (AcceptSymbol(","));
  }
  if (IsKeyword(Peek(), "rows") || IsKeyword(Peek(), "range")) {
    spec->has_frame = true;
    spec->range = IsKeyword(Next(), "range");
    if (AcceptKeyword("between")) {
      DELTA_ASSIGN_OR_RETURN(spec->start, ParseFrameBound());
      DELTA_RETURN_IF_ERROR(ExpectKeyword("and"));
      DELTA_ASSIGN_OR_RETURN(spec->end, ParseFrameBound());
    } else {
      DELTA_ASSIGN_OR_RETURN(spec->start, ParseFrameBound());
      spec->end.kind = FrameBoundKind::kCurrentRow;
    }
  }
  if (!IsSymbol(Peek(), ")")) {
    return Fail(Peek(), "expected PARTITION BY, ORDER BY, ROWS, RANGE or ')' in OVER");
  }
  Next();
  return OkStatus();
}

Result<FrameBound> ExprParser::ParseFrameBound() {
  FrameBound b;
  if (AcceptKeyword("unbounded")) {
    if (AcceptKeyword("preceding")) {
      b.kind = FrameBoundKind::kUnboundedPreceding;
    } else if (AcceptKeyword("following")) {
      b.kind = FrameBoundKind::kUnboundedFollowing;
    } else {
      return Fail(Peek(), "expected PRECEDING or FOLLOWING after UNBOUNDED");
    }
    return b;
  }
  if (IsKeyword(Peek(), "current") && IsKeyword(Peek(1), "row")) {
    Next();
    Next();
    b.kind = FrameBoundKind::kCurrentRow;
    return b;
  }
  DELTA_ASSIGN_OR_RETURN(b.offset, ParseAdditive());
  if (AcceptKeyword("preceding")) {
    b.kind = FrameBoundKind::kPreceding;
  } else if (AcceptKeyword("following")) {
    b.kind = FrameBoundKind::kFollowing;
  } else {
    return Fail(Peek(), "expected PRECEDING or FOLLOWING after a frame offset");
  }
  return b;
}

namespace {

bool IsName(const Token& t) {
  return t.kind == TokenKind::kIdent || t.kind == TokenKind::kQuotedIdent;
}

// `body` with each column whose first name is a parameter (ignoring case) made that
// lambda variable; a longer path reads fields of it. Lambdas nested in `body` were
// resolved first, so their own parameters already shadow these.
ExprRef ResolveLambdaVars(const ExprRef& body, const std::vector<std::string>& params) {
  return TransformExpr(body, [&](const Expr& n) -> ExprRef {
    if (n.kind != ExprKind::kColumn || n.path.empty()) return nullptr;
    for (const auto& p : params) {
      if (!EqualsIgnoreCase(p, n.path[0])) continue;
      auto var = std::make_shared<Expr>();
      var->kind = ExprKind::kLambdaVar;
      var->text = p;
      var->position = n.position;
      ExprRef out = var;
      for (size_t i = 1; i < n.path.size(); ++i) {
        out = Expr::Function(".", {out, Expr::String(n.path[i])}, n.position);
      }
      return out;
    }
    return nullptr;
  });
}

}  // namespace

bool ExprParser::AtLambda() const {
  if (IsName(Peek()) && IsSymbol(Peek(1), "->")) return true;
  if (!IsSymbol(Peek(), "(")) return false;
  size_t i = 1;
  while (IsName(Peek(i))) {
    if (IsSymbol(Peek(i + 1), ")")) return IsSymbol(Peek(i + 2), "->");
    if (!IsSymbol(Peek(i + 1), ",")) return false;
    i += 2;
  }
  return false;
}

Result<ExprRef> ExprParser::ParseLambda() {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kLambda;
  e->position = Peek().pos;
  const bool parenthesized = AcceptSymbol("(");
  do {
    const Token& name = Next();
    for (const auto& p : e->path) {
      if (EqualsIgnoreCase(p, name.text)) {
        return error_(name.pos, fmt::format("INVALID_LAMBDA_FUNCTION_CALL."
                                            "DUPLICATE_ARG_NAMES: the lambda names '{}' "
                                            "twice",
                                            name.text));
      }
    }
    e->path.push_back(name.text);
  } while (parenthesized && AcceptSymbol(","));
  if (parenthesized) DELTA_RETURN_IF_ERROR(ExpectSymbol(")"));
  DELTA_RETURN_IF_ERROR(ExpectSymbol("->"));
  DELTA_ASSIGN_OR_RETURN(ExprRef body, ParseOr());
  e->children.push_back(ResolveLambdaVars(body, e->path));
  return ExprRef(e);
}

bool ExprParser::AtQuery(size_t ahead) const {
  return IsKeyword(Peek(ahead), "select") || IsKeyword(Peek(ahead), "with");
}

Result<ExprRef> ExprParser::ParseSubquery(SubqueryKind kind, int32_t pos, ExprRef operand,
                                          bool negated) {
  if (subquery_ == nullptr) {
    return error_(Peek().pos, "subqueries are not supported in this expression");
  }
  size_t at = idx_;
  DELTA_ASSIGN_OR_RETURN(auto node, (*subquery_)(&at));
  idx_ = at;
  DELTA_RETURN_IF_ERROR(ExpectSymbol(")"));
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kSubquery;
  e->subquery_kind = kind;
  e->subquery = std::move(node);
  e->negated = negated;
  e->position = pos;
  if (operand != nullptr) e->children.push_back(std::move(operand));
  return ExprRef(e);
}

}  // namespace deltaguard::internal
