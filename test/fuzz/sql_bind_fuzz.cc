// Structure-aware libFuzzer target for the SQL expression pipeline: the input bytes
// drive a small grammar generator that can emit long flat chains (a + b + ..., x AND y
// AND ..., ||, IN lists of thousands of values) and deep nesting (parentheses, calls,
// CASE, NOT, CAST, alternating operators) far beyond kMaxExprDepth, text a byte-level
// mutator rarely reaches. Each generated expression is parsed, bound against a small
// fixed schema, printed and re-parsed. Invariants:
//  1. nothing crashes or overflows the stack (ASan reports it);
//  2. a parsed expression prints to text that parses back to an equal tree;
//  3. a refusal for depth is a kParseError / kInvalidArgument naming the limit.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "deltaguard/expr/binder.h"
#include "deltaguard/expr/parser.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/util/depth_guard.h"

namespace {

constexpr size_t kMaxText = 1 << 20;  // generated SQL stays below 1 MiB

class Generator {
 public:
  Generator(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  std::string Generate() {
    Expr(0);
    return std::move(out_);
  }

 private:
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  int Count(int max) {  // two bytes, biased to small counts
    int v = (Byte() << 8) | Byte();
    return (v % max) + 1;
  }
  bool Full() const { return out_.size() > kMaxText; }

  void Leaf() {
    static const char* kLeaves[] = {"a",
                                    "b",
                                    "c",
                                    "p",
                                    "s",
                                    "ok",
                                    "1",
                                    "2L",
                                    "1.5",
                                    "'x'",
                                    "NULL",
                                    "true",
                                    "st.x",
                                    "d",
                                    "t",
                                    "-1",
                                    "1e3",
                                    "X'0A'",
                                    "DATE '2024-01-01'",
                                    "count(*)",
                                    "current_date"};
    out_ += kLeaves[Byte() % (sizeof(kLeaves) / sizeof(kLeaves[0]))];
  }

  void Expr(int depth) {
    if (Full() || pos_ >= size_ || depth > 64) return Leaf();
    switch (Byte() % 8) {
      case 0:
        return Leaf();
      case 1: {  // flat chain of one operator
        static const char* kOps[] = {" + ", " - ", " * ", " || ", " AND ", " OR ",
                                     " = ", " < ", " / ", " % ",  " DIV ", " <=> "};
        const char* op = kOps[Byte() % (sizeof(kOps) / sizeof(kOps[0]))];
        int n = Count(40000);
        bool leaves = Byte() % 4 != 0;
        for (int i = 0; i < n && !Full(); ++i) {
          if (i > 0) out_ += op;
          leaves ? Leaf() : Expr(depth + 1);
        }
        return;
      }
      case 2: {  // deep nesting of one wrapper
        static const std::pair<const char*, const char*> kWraps[] = {
            {"(", ")"},
            {"abs(", ")"},
            {"NOT ", ""},
            {"- ", ""},
            {"CASE WHEN ok THEN ", " END"},
            {"coalesce(", ", 1.5)"},
            {"CAST(", " AS BIGINT)"},
            {"(a + ", ") * 2"},
            {"upper(", ")"},
            {"CASE ", " WHEN 1 THEN 2 ELSE 3 END"}};
        auto [open, close] = kWraps[Byte() % (sizeof(kWraps) / sizeof(kWraps[0]))];
        int n = Count(1200);
        std::string closing;
        for (int i = 0; i < n && !Full(); ++i) {
          out_ += open;
          closing += close;
        }
        Expr(depth + 1);
        // the closing text in reverse order of opening: all wrappers are the same
        out_ += closing;
        return;
      }
      case 3: {  // IN list
        Expr(depth + 1);
        out_ += Byte() % 2 ? " NOT IN (" : " IN (";
        int n = Count(40000);
        for (int i = 0; i < n && !Full(); ++i) {
          if (i > 0) out_ += ", ";
          if (Byte() % 16 == 0) {
            Expr(depth + 1);
          } else {
            out_ += std::to_string(i);
          }
        }
        out_ += ")";
        return;
      }
      case 4: {  // alternating operators: genuine nesting without parentheses
        int n = Count(3000);
        Leaf();
        for (int i = 0; i < n && !Full(); ++i) {
          out_ += i % 2 ? " - " : " + ";
          Leaf();
        }
        return;
      }
      case 5:
        out_ += "(";
        Expr(depth + 1);
        out_ += ")";
        return;
      case 6: {
        static const char* kBinary[] = {" + ",
                                        " AND ",
                                        " = ",
                                        " || ",
                                        " BETWEEN 1 AND ",
                                        " LIKE ",
                                        " IS NOT DISTINCT FROM "};
        Expr(depth + 1);
        out_ += kBinary[Byte() % (sizeof(kBinary) / sizeof(kBinary[0]))];
        Expr(depth + 1);
        return;
      }
      default: {
        static const char* kCalls[] = {"coalesce(", "concat(", "greatest(", "substring(",
                                       "round(",    "sum(",    "lower("};
        out_ += kCalls[Byte() % (sizeof(kCalls) / sizeof(kCalls[0]))];
        int n = Count(4);
        for (int i = 0; i < n; ++i) {
          if (i > 0) out_ += ", ";
          Expr(depth + 1);
        }
        out_ += ")";
        return;
      }
    }
  }

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  std::string out_;
};

void Check(bool ok, const char* what, const std::string& text) {
  if (!ok) {
    std::fprintf(stderr, "sql_bind_fuzz invariant failed: %s\n  text: %.300s\n", what,
                 text.c_str());
    std::abort();
  }
}

bool NamesTheLimit(const deltaguard::Error& e) {
  return e.message.find("nested too deeply") != std::string::npos ||
         e.message.find("after type coercion") != std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string sql = Generator(data, size).Generate();
  auto expr = deltaguard::ParseExpression(sql);
  if (!expr) {
    if (expr.error().message.find("nested too deeply") != std::string::npos) {
      Check(expr.error().code == deltaguard::ErrorCode::kParseError,
            "a depth refusal is not a parse error", sql);
    }
    return 0;
  }
  Check(deltaguard::ExprDepth(**expr) <= deltaguard::kMaxExprDepth + 1,
        "parsed tree deeper than the limit", sql);
  std::string printed = deltaguard::ToSql(**expr);
  auto again = deltaguard::ParseExpression(printed);
  Check(again.has_value(), "printed expression does not parse", printed);
  Check(**again == **expr, "printed expression parses to a different tree", printed);

  static const deltaguard::SchemaRef schema = *deltaguard::ParseDdlSchema(
      "a INT, b BIGINT, c DOUBLE, p DECIMAL(10,2), s STRING, d DATE, t TIMESTAMP, "
      "ok BOOLEAN, st STRUCT<x: INT, y: STRING>");
  auto bound = deltaguard::Bind(**expr, *schema);
  if (bound) {
    Check((*bound)->type != nullptr, "bound expression has no type", printed);
    (void)deltaguard::ReferencedColumns(**bound);
    (void)deltaguard::IsDeterministic(**bound);
    (void)deltaguard::ContainsAggregate(**bound);
  } else if (NamesTheLimit(bound.error())) {
    Check(bound.error().code == deltaguard::ErrorCode::kInvalidArgument,
          "a binder depth refusal is not kInvalidArgument", printed);
  }
  return 0;
}
