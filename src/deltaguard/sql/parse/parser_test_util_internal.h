/// \file deltaguard/sql/parse/parser_test_util_internal.h
/// Helpers shared by the statement parser's tests (test-only).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <variant>

#include "deltaguard/expr/printer.h"
#include "deltaguard/sql/parse/sql_parser.h"

namespace deltaguard::testing {

/// The body of a statement that must parse as `T` (a test failure otherwise).
template <typename T>
T ParseAs(std::string_view sql) {
  auto r = ParseStatement(sql);
  if (!r) {
    ADD_FAILURE() << sql << "\n" << r.error().message;
    return T{};
  }
  const T* body = std::get_if<T>(&r->body);
  if (body == nullptr) {
    ADD_FAILURE() << sql << "\nparsed as " << StatementKindName(r->body);
    return T{};
  }
  return *body;
}

/// Canonical SQL of an optional expression.
inline std::string Sql(const ExprRef& e) { return e ? ToSql(*e) : "<null>"; }

/// The error of a script that must fail with `code`.
inline std::string ErrorOf(std::string_view sql,
                           ErrorCode code = ErrorCode::kParseError) {
  auto r = ParseSql(sql);
  if (r) {
    ADD_FAILURE() << "expected an error for: " << sql;
    return "";
  }
  EXPECT_EQ(r.error().code, code) << sql << "\n" << r.error().message;
  return r.error().message;
}

/// The first line of such an error.
inline std::string Headline(std::string_view sql,
                            ErrorCode code = ErrorCode::kParseError) {
  std::string message = ErrorOf(sql, code);
  return message.substr(0, message.find('\n'));
}

}  // namespace deltaguard::testing
