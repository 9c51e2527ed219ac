#include "deltaguard/expr/ast.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace deltaguard {

Expr::~Expr() {
  // Take over the children this node owns alone, so no destructor runs on a node that
  // still has children: the recursion of the default destructor becomes a loop.
  std::vector<ExprRef> pending = std::move(children);
  while (!pending.empty()) {
    ExprRef node = std::move(pending.back());
    pending.pop_back();
    if (node.use_count() == 1) {
      // Sole owner: nobody else can see the node (built non-const by make_shared).
      auto& mutable_children = const_cast<Expr&>(*node).children;
      for (auto& c : mutable_children) pending.push_back(std::move(c));
      mutable_children.clear();
    }
  }
}

ExprRef Expr::Literal(LiteralKind kind, std::string text, int32_t pos) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kLiteral;
  e->literal_kind = kind;
  e->text = std::move(text);
  e->position = pos;
  return e;
}

ExprRef Expr::Int(int64_t v) {
  bool fits_int = v >= INT32_MIN && v <= INT32_MAX;
  return Literal(fits_int ? LiteralKind::kInteger : LiteralKind::kLong,
                 std::to_string(v));
}

ExprRef Expr::Column(std::vector<std::string> path, int32_t pos) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kColumn;
  e->path = std::move(path);
  e->position = pos;
  return e;
}

ExprRef Expr::Unary(ExprOp op, ExprRef child, int32_t pos) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kUnary;
  e->op = op;
  e->children.push_back(std::move(child));
  e->position = pos;
  return e;
}

ExprRef Expr::Binary(ExprOp op, ExprRef left, ExprRef right, int32_t pos) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kBinary;
  e->op = op;
  e->children.push_back(std::move(left));
  e->children.push_back(std::move(right));
  e->position = pos;
  return e;
}

ExprRef Expr::Function(std::string name, std::vector<ExprRef> args, int32_t pos) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kFunction;
  e->text = std::move(name);
  e->children = std::move(args);
  e->position = pos;
  return e;
}

namespace {

bool SameNode(const Expr& a, const Expr& b) {
  if (a.kind != b.kind || a.op != b.op || a.literal_kind != b.literal_kind ||
      a.like_kind != b.like_kind || a.negated != b.negated ||
      a.bool_value != b.bool_value || a.has_operand != b.has_operand ||
      a.has_else != b.has_else || a.try_cast != b.try_cast || a.star != b.star ||
      a.distinct != b.distinct || a.text != b.text || a.path != b.path ||
      a.children.size() != b.children.size()) {
    return false;
  }
  if ((a.cast_type == nullptr) != (b.cast_type == nullptr)) return false;
  if (a.cast_type && !a.cast_type->Equals(*b.cast_type)) return false;
  if ((a.subquery == nullptr) != (b.subquery == nullptr)) return false;
  if (a.subquery &&
      (a.subquery_kind != b.subquery_kind || a.subquery->text() != b.subquery->text())) {
    return false;
  }
  if ((a.window == nullptr) != (b.window == nullptr)) return false;
  // A window's expressions nest no deeper than the parser allows (it parses them).
  return !a.window || *a.window == *b.window;
}

bool SameRef(const ExprRef& a, const ExprRef& b) {
  if (a == nullptr || b == nullptr) return a == b;
  return *a == *b;
}

}  // namespace

bool operator==(const Expr& a, const Expr& b) {
  std::vector<std::pair<const Expr*, const Expr*>> pending{{&a, &b}};
  while (!pending.empty()) {
    auto [x, y] = pending.back();
    pending.pop_back();
    if (x == y) continue;
    if (!SameNode(*x, *y)) return false;
    for (size_t i = 0; i < x->children.size(); ++i) {
      pending.emplace_back(x->children[i].get(), y->children[i].get());
    }
  }
  return true;
}

bool operator==(const WindowSpec& a, const WindowSpec& b) {
  if (a.partition_by.size() != b.partition_by.size() ||
      a.order_by.size() != b.order_by.size() || a.has_frame != b.has_frame ||
      a.range != b.range || a.start.kind != b.start.kind || a.end.kind != b.end.kind ||
      a.ignore_nulls != b.ignore_nulls || a.name != b.name ||
      !SameRef(a.start.offset, b.start.offset) || !SameRef(a.end.offset, b.end.offset)) {
    return false;
  }
  for (size_t i = 0; i < a.partition_by.size(); ++i) {
    if (!SameRef(a.partition_by[i], b.partition_by[i])) return false;
  }
  for (size_t i = 0; i < a.order_by.size(); ++i) {
    const auto& x = a.order_by[i];
    const auto& y = b.order_by[i];
    if (x.descending != y.descending || x.nulls_first != y.nulls_first ||
        !SameRef(x.expr, y.expr)) {
      return false;
    }
  }
  return true;
}

namespace {

// The deepest node under `e` and its depth (a leaf is 1), with an explicit stack.
std::pair<const Expr*, int> Deepest(const Expr& e) {
  std::vector<std::pair<const Expr*, int>> pending{{&e, 1}};
  std::pair<const Expr*, int> deepest{&e, 1};
  while (!pending.empty()) {
    auto [node, depth] = pending.back();
    pending.pop_back();
    if (depth > deepest.second) deepest = {node, depth};
    for (const auto& c : node->children) pending.emplace_back(c.get(), depth + 1);
  }
  return deepest;
}

}  // namespace

ExprRef TransformExpr(const ExprRef& e, const std::function<ExprRef(const Expr&)>& fn) {
  if (e == nullptr) return e;
  if (ExprRef replaced = fn(*e)) return replaced;
  std::vector<ExprRef> children;
  bool changed = false;
  for (const auto& c : e->children) {
    children.push_back(TransformExpr(c, fn));
    changed = changed || children.back() != c;
  }
  if (!changed) return e;
  auto copy = std::make_shared<Expr>(*e);
  copy->children = std::move(children);
  return copy;
}

const Expr& DeepestNode(const Expr& e) { return *Deepest(e).first; }

int ExprDepth(const Expr& e) { return Deepest(e).second; }

const char* ExprOpSymbol(ExprOp op) {
  switch (op) {
    case ExprOp::kNone:
      return "?";
    case ExprOp::kNegate:
      return "-";
    case ExprOp::kNot:
      return "NOT";
    case ExprOp::kAdd:
      return "+";
    case ExprOp::kSubtract:
      return "-";
    case ExprOp::kMultiply:
      return "*";
    case ExprOp::kDivide:
      return "/";
    case ExprOp::kIntDivide:
      return "DIV";
    case ExprOp::kModulo:
      return "%";
    case ExprOp::kConcat:
      return "||";
    case ExprOp::kEq:
      return "=";
    case ExprOp::kNotEq:
      return "<>";
    case ExprOp::kLt:
      return "<";
    case ExprOp::kLtEq:
      return "<=";
    case ExprOp::kGt:
      return ">";
    case ExprOp::kGtEq:
      return ">=";
    case ExprOp::kNullSafeEq:
      return "<=>";
    case ExprOp::kAnd:
      return "AND";
    case ExprOp::kOr:
      return "OR";
  }
  return "?";
}

}  // namespace deltaguard
