/// \file deltaguard/expr/printer.h
/// Canonical SQL text of an expression tree: the form deltaguard stores for CHECK
/// constraints (`delta.constraints.<name>`) and replaceWhere in commitInfo.
///
/// Guarantees: ParseExpression(ToSql(e)) succeeds and equals e for every tree the
/// parser produced; ToSql is a fixed point (printing the re-parsed tree gives the same
/// text). Keywords are upper-case, function names lower-case, identifiers backticked
/// only when needed, and parentheses appear only where precedence requires them.
#pragma once

#include <string>
#include <string_view>

#include "deltaguard/expr/ast.h"

namespace deltaguard {

std::string ToSql(const Expr& expr);

/// A column name part as SQL: bare when it is a plain identifier that is not a reserved
/// word, else backticked with inner backticks doubled.
std::string QuoteIdentifier(std::string_view name);

/// A type as Spark DDL text that ParseDdlType reads back ("DECIMAL(10,2)",
/// "ARRAY<STRING>", "STRUCT<a: INT NOT NULL>").
std::string TypeToSql(const DataType& type);

}  // namespace deltaguard
