// libFuzzer target for the SQL statement parser (deltaguard sql, shell, golden files).
// Beyond "no crash, no sanitizer report", it checks the invariants the session and the
// shell rely on:
//  1. every statement of a parsed script carries its own source text, found at its
//     offset in the script;
//  2. that text parses on its own (ParseStatement) to a statement of the same kind;
//  3. a failed parse always explains itself (non-empty message);
//  4. EndsWithCompleteStatement never crashes on any prefix the shell may hold.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "deltaguard/sql/parse/sql_parser.h"

namespace {

void Check(bool ok, const char* what, std::string_view text) {
  if (!ok) {
    std::fprintf(stderr, "sql_statement_fuzz invariant failed: %s\n  text: %.*s\n", what,
                 static_cast<int>(text.size()), text.data());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  (void)deltaguard::EndsWithCompleteStatement(input);
  (void)deltaguard::EndsWithCompleteStatement(input.substr(0, size / 2));
  auto statements = deltaguard::ParseSql(input);
  if (!statements) {
    Check(!statements.error().message.empty(), "error without a message", input);
    return 0;
  }
  for (const deltaguard::Statement& statement : *statements) {
    Check(statement.offset >= 0 &&
              static_cast<size_t>(statement.offset) + statement.text.size() <= size,
          "statement text outside the script", input);
    Check(input.substr(static_cast<size_t>(statement.offset), statement.text.size()) ==
              statement.text,
          "statement text is not the script's text at its offset", input);
    auto alone = deltaguard::ParseStatement(statement.text);
    Check(alone.has_value(), "a statement of a parsed script does not parse alone",
          statement.text);
    Check(alone->body.index() == statement.body.index(),
          "a statement parses alone to another kind", statement.text);
  }
  return 0;
}
