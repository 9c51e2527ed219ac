#include "deltaguard/expr/printer.h"

#include <cctype>
#include <string>

#include "deltaguard/expr/parser.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

// Binding strength, mirroring the parser's grammar levels (higher binds tighter).
enum Prec : int {
  kPrecOr = 1,
  kPrecAnd = 2,
  kPrecNot = 3,
  kPrecPredicate = 4,
  kPrecComparison = 5,
  kPrecAdditive = 6,
  kPrecMultiplicative = 7,
  kPrecUnary = 8,
  kPrecPrimary = 9,
};

int BinaryPrec(ExprOp op) {
  switch (op) {
    case ExprOp::kOr:
      return kPrecOr;
    case ExprOp::kAnd:
      return kPrecAnd;
    case ExprOp::kEq:
    case ExprOp::kNotEq:
    case ExprOp::kLt:
    case ExprOp::kLtEq:
    case ExprOp::kGt:
    case ExprOp::kGtEq:
    case ExprOp::kNullSafeEq:
      return kPrecComparison;
    case ExprOp::kAdd:
    case ExprOp::kSubtract:
    case ExprOp::kConcat:
      return kPrecAdditive;
    default:
      return kPrecMultiplicative;
  }
}

int PrecOf(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kUnary:
      return e.op == ExprOp::kNot ? kPrecNot : kPrecUnary;
    case ExprKind::kBinary:
      return BinaryPrec(e.op);
    case ExprKind::kIn:
    case ExprKind::kBetween:
    case ExprKind::kLike:
    case ExprKind::kIsNull:
    case ExprKind::kIsBool:
      return kPrecPredicate;
    case ExprKind::kSubquery:
      return e.subquery_kind == SubqueryKind::kIn ? kPrecPredicate : kPrecPrimary;
    default:
      return kPrecPrimary;
  }
}

bool IsNumericLiteral(const Expr& e) {
  if (e.kind != ExprKind::kLiteral) return false;
  switch (e.literal_kind) {
    case LiteralKind::kByte:
    case LiteralKind::kShort:
    case LiteralKind::kInteger:
    case LiteralKind::kLong:
    case LiteralKind::kDecimal:
    case LiteralKind::kDouble:
    case LiteralKind::kFloat:
      return true;
    default:
      return false;
  }
}

void AppendQuotedString(std::string* out, std::string_view s) {
  out->push_back('\'');
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    switch (c) {
      case '\'':
        *out += "\\'";
        break;
      case '\\':
        // "\%" and "\_" are kept as two characters by the lexer, so print them as is.
        if (i + 1 < s.size() && (s[i + 1] == '%' || s[i + 1] == '_')) {
          out->push_back('\\');
        } else {
          *out += "\\\\";
        }
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          *out += fmt::format("\\u{:04X}", static_cast<unsigned>(c));
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('\'');
}

std::string LiteralSql(const Expr& e) {
  const std::string& t = e.text;
  std::string out;
  switch (e.literal_kind) {
    case LiteralKind::kNull:
      return "NULL";
    case LiteralKind::kBoolean:
      return t == "true" ? "TRUE" : "FALSE";
    case LiteralKind::kByte:
      return t + "Y";
    case LiteralKind::kShort:
      return t + "S";
    case LiteralKind::kInteger:
      return t;
    case LiteralKind::kLong:
      return t + "L";
    case LiteralKind::kDecimal:
      return t.find('.') == std::string::npos ? t + "BD" : t;
    case LiteralKind::kDouble:
      return t.find_first_of("eE") == std::string::npos ? t + "D" : t;
    case LiteralKind::kFloat:
      return t + "F";
    case LiteralKind::kString:
      AppendQuotedString(&out, t);
      return out;
    case LiteralKind::kBinary:
      return "X'" + t + "'";
    case LiteralKind::kDate:
      out = "DATE ";
      break;
    case LiteralKind::kTimestamp:
      out = "TIMESTAMP ";
      break;
    case LiteralKind::kTimestampNtz:
      out = "TIMESTAMP_NTZ ";
      break;
  }
  AppendQuotedString(&out, t);
  return out;
}

class Printer {
 public:
  std::string out;

  void Print(const Expr& e, int min_prec) {
    bool parens = PrecOf(e) < min_prec;
    if (parens) out.push_back('(');
    PrintBare(e);
    if (parens) out.push_back(')');
  }

 private:
  void List(const std::vector<ExprRef>& items, size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      if (i > from) out += ", ";
      Print(*items[i], kPrecOr);
    }
  }

  void PrintBare(const Expr& e) {
    const auto& c = e.children;
    switch (e.kind) {
      case ExprKind::kLiteral:
        out += LiteralSql(e);
        return;
      case ExprKind::kColumn:
        for (size_t i = 0; i < e.path.size(); ++i) {
          if (i > 0) out.push_back('.');
          out += QuoteIdentifier(e.path[i]);
        }
        return;
      case ExprKind::kUnary:
        if (e.op == ExprOp::kNot) {
          out += "NOT ";
          Print(*c[0], kPrecNot);
        } else {
          out.push_back('-');
          // "-(1)" is a negation, "-1" a literal; "- -x" must not become a comment.
          if (IsNumericLiteral(*c[0])) {
            out.push_back('(');
            out += LiteralSql(*c[0]);
            out.push_back(')');
            return;
          }
          size_t mark = out.size();
          Print(*c[0], kPrecUnary);
          if (out.size() > mark && out[mark] == '-') out.insert(mark, " ");
        }
        return;
      case ExprKind::kBinary: {
        // A left fold: the first operand binds at the operator's level, the others one
        // tighter (so "a - (b - c)" keeps its parentheses).
        int prec = BinaryPrec(e.op);
        std::string op = fmt::format(" {} ", ExprOpSymbol(e.op));
        Print(*c[0], prec);
        for (size_t i = 1; i < c.size(); ++i) {
          out += op;
          Print(*c[i], prec + 1);
        }
        return;
      }
      case ExprKind::kIn:
        Print(*c[0], kPrecComparison);
        out += e.negated ? " NOT IN (" : " IN (";
        List(c, 1, c.size());
        out.push_back(')');
        return;
      case ExprKind::kBetween:
        Print(*c[0], kPrecComparison);
        out += e.negated ? " NOT BETWEEN " : " BETWEEN ";
        Print(*c[1], kPrecComparison);
        out += " AND ";
        Print(*c[2], kPrecComparison);
        return;
      case ExprKind::kLike: {
        Print(*c[0], kPrecComparison);
        out += e.negated ? " NOT " : " ";
        out += e.like_kind == LikeKind::kLike    ? "LIKE "
               : e.like_kind == LikeKind::kILike ? "ILIKE "
                                                 : "RLIKE ";
        Print(*c[1], kPrecComparison);
        return;
      }
      case ExprKind::kIsNull:
        Print(*c[0], kPrecComparison);
        out += e.negated ? " IS NOT NULL" : " IS NULL";
        return;
      case ExprKind::kIsBool:
        Print(*c[0], kPrecComparison);
        out += e.negated ? " IS NOT " : " IS ";
        out += e.bool_value ? "TRUE" : "FALSE";
        return;
      case ExprKind::kCase: {
        out += "CASE";
        size_t i = 0;
        if (e.has_operand) {
          out.push_back(' ');
          Print(*c[i++], kPrecOr);
        }
        for (size_t w = 0; w < e.num_when(); ++w) {
          out += " WHEN ";
          Print(*c[i++], kPrecOr);
          out += " THEN ";
          Print(*c[i++], kPrecOr);
        }
        if (e.has_else) {
          out += " ELSE ";
          Print(*c[i], kPrecOr);
        }
        out += " END";
        return;
      }
      case ExprKind::kCast:
        out += e.try_cast ? "TRY_CAST(" : "CAST(";
        Print(*c[0], kPrecOr);
        out += " AS ";
        out += e.cast_type ? TypeToSql(*e.cast_type) : "?";
        out.push_back(')');
        return;
      case ExprKind::kFunction:
        if (e.text == "[]" && c.size() == 2) {  // base[key] (parser.cc ParsePostfix)
          Print(*c[0], kPrecPrimary);
          out.push_back('[');
          Print(*c[1], kPrecOr);
          out.push_back(']');
          return;
        }
        if (e.text == "." && c.size() == 2) {  // base.field: a call or parenthesized
          // A lambda parameter's field reads back as the same access (parser_call.cc).
          if (c[0]->kind == ExprKind::kFunction || c[0]->kind == ExprKind::kLambdaVar) {
            Print(*c[0], kPrecPrimary);
          } else {
            out.push_back('(');
            Print(*c[0], kPrecOr);
            out.push_back(')');
          }
          out += "." + QuoteIdentifier(c[1]->text);
          return;
        }
        // current_date() etc. need no quotes when followed by '('.
        out += (EqualsIgnoreCase(e.text, "current_date") ||
                EqualsIgnoreCase(e.text, "current_timestamp"))
                   ? e.text
                   : QuoteIdentifier(e.text);
        out.push_back('(');
        if (e.star) out.push_back('*');
        if (e.distinct) out += "DISTINCT ";
        for (size_t i = 0; i < c.size(); ++i) {
          if (i > 0) out += ", ";
          Print(*c[i], kPrecOr);
          // struct(a AS x): the field names the parser keeps in `path`.
          if (i < e.path.size() && !e.path[i].empty())
            out += " AS " + QuoteIdentifier(e.path[i]);
        }
        out.push_back(')');
        return;
      case ExprKind::kSubquery:
        if (e.subquery_kind == SubqueryKind::kIn) {
          Print(*c[0], kPrecComparison);
          out += e.negated ? " NOT IN (" : " IN (";
        } else {
          out += e.subquery_kind == SubqueryKind::kExists ? "EXISTS (" : "(";
        }
        out += e.subquery->text();
        out.push_back(')');
        return;
      case ExprKind::kLambda: {
        // Only a function's argument: the body needs no parentheses.
        std::string params;
        for (const auto& p : e.path)
          params += (params.empty() ? "" : ", ") + QuoteIdentifier(p);
        out += e.path.size() == 1 ? params : "(" + params + ")";
        out += " -> ";
        Print(*c[0], kPrecOr);
        return;
      }
      case ExprKind::kLambdaVar:
        out += QuoteIdentifier(e.text);
        return;
      case ExprKind::kWindow:
        Print(*c[0], kPrecOr);
        if (e.window->ignore_nulls) out += " IGNORE NULLS";
        if (!e.window->name.empty()) {  // OVER w (a WINDOW clause's)
          out += " OVER " + QuoteIdentifier(e.window->name);
          return;
        }
        out += " OVER (";
        Window(*e.window);
        out.push_back(')');
        return;
    }
  }

  void Window(const WindowSpec& w) {
    std::string sep;
    if (!w.partition_by.empty()) {
      out += "PARTITION BY ";
      List(w.partition_by, 0, w.partition_by.size());
      sep = " ";
    }
    for (size_t i = 0; i < w.order_by.size(); ++i) {
      out += i == 0 ? sep + "ORDER BY " : ", ";
      Print(*w.order_by[i].expr, kPrecOr);
      out += w.order_by[i].descending ? " DESC" : " ASC";
      out += w.order_by[i].nulls_first ? " NULLS FIRST" : " NULLS LAST";
      sep = " ";
    }
    if (!w.has_frame) return;
    out += sep + (w.range ? "RANGE BETWEEN " : "ROWS BETWEEN ");
    Bound(w.start);
    out += " AND ";
    Bound(w.end);
  }

  void Bound(const FrameBound& b) {
    switch (b.kind) {
      case FrameBoundKind::kUnboundedPreceding:
        out += "UNBOUNDED PRECEDING";
        return;
      case FrameBoundKind::kUnboundedFollowing:
        out += "UNBOUNDED FOLLOWING";
        return;
      case FrameBoundKind::kCurrentRow:
        out += "CURRENT ROW";
        return;
      case FrameBoundKind::kPreceding:
      case FrameBoundKind::kFollowing:
        Print(*b.offset, kPrecOr);
        out += b.kind == FrameBoundKind::kPreceding ? " PRECEDING" : " FOLLOWING";
        return;
    }
  }
};

}  // namespace

std::string QuoteIdentifier(std::string_view name) {
  bool plain = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
  for (char ch : name) {
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')) plain = false;
  }
  // Words the parser reads specially when they stand alone.
  if (plain && (IsReservedWord(name) || EqualsIgnoreCase(name, "current_date") ||
                EqualsIgnoreCase(name, "current_timestamp") ||
                EqualsIgnoreCase(name, "unknown"))) {
    plain = false;
  }
  if (plain) return std::string(name);
  return BacktickQuote(name);
}

std::string TypeToSql(const DataType& type) {
  switch (type.kind()) {
    case TypeKind::kByte:
      return "TINYINT";
    case TypeKind::kShort:
      return "SMALLINT";
    case TypeKind::kInteger:
      return "INT";
    case TypeKind::kLong:
      return "BIGINT";
    case TypeKind::kFloat:
      return "FLOAT";
    case TypeKind::kDouble:
      return "DOUBLE";
    case TypeKind::kDecimal: {
      const auto& d = static_cast<const DecimalType&>(type);
      return fmt::format("DECIMAL({},{})", d.precision(), d.scale());
    }
    case TypeKind::kString:
      return "STRING";
    case TypeKind::kBinary:
      return "BINARY";
    case TypeKind::kBoolean:
      return "BOOLEAN";
    case TypeKind::kDate:
      return "DATE";
    case TypeKind::kTimestamp:
      return "TIMESTAMP";
    case TypeKind::kTimestampNtz:
      return "TIMESTAMP_NTZ";
    case TypeKind::kVariant:
      return "VARIANT";
    case TypeKind::kVoid:
      return "VOID";
    case TypeKind::kArray:
      return "ARRAY<" + TypeToSql(*static_cast<const ArrayType&>(type).element_type()) +
             ">";
    case TypeKind::kMap: {
      const auto& m = static_cast<const MapType&>(type);
      return "MAP<" + TypeToSql(*m.key_type()) + ", " + TypeToSql(*m.value_type()) + ">";
    }
    case TypeKind::kStruct: {
      const auto& s = static_cast<const StructType&>(type);
      std::string out = "STRUCT<";
      for (size_t i = 0; i < s.num_fields(); ++i) {
        const StructField& f = s.field(i);
        if (i > 0) out += ", ";
        out += QuoteIdentifier(f.name) + ": " + TypeToSql(*f.type);
        if (!f.nullable) out += " NOT NULL";
      }
      return out + ">";
    }
  }
  return "?";
}

std::string ToSql(const Expr& expr) {
  Printer p;
  p.Print(expr, kPrecOr);
  return p.out;
}

}  // namespace deltaguard
