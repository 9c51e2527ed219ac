// libFuzzer target for the SQL expression parser (CHECK constraints, replaceWhere).
// Beyond "no crash, no sanitizer report", it checks the invariants the log relies on:
//  1. every parsed expression prints (ToSql) to text that parses back to an equal tree;
//  2. printing is a fixed point (printing the re-parsed tree gives the same text);
//  3. binding against a small fixed schema never crashes, whatever the outcome.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "deltaguard/expr/binder.h"
#include "deltaguard/expr/parser.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/schema/ddl.h"

namespace {

void Check(bool ok, const char* what, const std::string& text) {
  if (!ok) {
    std::fprintf(stderr, "expr_parse_fuzz invariant failed: %s\n  text: %s\n", what,
                 text.c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto expr = deltaguard::ParseExpression(input);
  if (!expr) return 0;
  std::string printed = deltaguard::ToSql(**expr);
  auto again = deltaguard::ParseExpression(printed);
  Check(again.has_value(), "printed expression does not parse", printed);
  Check(**again == **expr, "printed expression parses to a different tree", printed);
  Check(deltaguard::ToSql(**again) == printed, "ToSql is not a fixed point", printed);

  static const deltaguard::SchemaRef schema = *deltaguard::ParseDdlSchema(
      "a INT, b BIGINT, c DOUBLE, p DECIMAL(10,2), s STRING, d DATE, t TIMESTAMP, "
      "ok BOOLEAN, st STRUCT<x: INT, y: STRING>");
  auto bound = deltaguard::Bind(**expr, *schema);
  if (bound) Check((*bound)->type != nullptr, "bound expression has no type", printed);
  return 0;
}
