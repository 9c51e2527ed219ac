#include "deltaguard/expr/ast.h"

#include <cstdint>
#include <utility>

namespace deltaguard {

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

bool operator==(const Expr& a, const Expr& b) {
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
  for (size_t i = 0; i < a.children.size(); ++i) {
    if (!(*a.children[i] == *b.children[i])) return false;
  }
  return true;
}

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
