// Helpers the subquery rewrites share (query_subquery.cc: EXISTS / IN conditions;
// query_subquery_scalar.cc: correlated scalar subqueries).

#pragma once

#include <string>
#include <vector>

#include "deltaguard/sql/query_internal.h"

namespace deltaguard::query_internal {

/// The statement of a kSubquery node.
const SelectStmt& QueryOf(const Expr& node);

/// A column reference that the inner query's FROM resolves (SQL scoping: the innermost
/// relation that has the name wins).
bool IsInnerRef(const std::vector<std::string>& path, const SourcePlan& inner);
/// Whether `e` reads a column of the outer query / of the inner query.
bool ReferencesOuter(const Expr& e, const SourcePlan& inner);
bool ReferencesInner(const Expr& e, const SourcePlan& inner);
/// Which side of `c` is the inner query's when `c` is `inner = outer` (either way
/// round), else -1.
int InnerSide(const Expr& c, const SourcePlan& inner);
/// A subquery node of `kind` over `query` (shown as `sql` in messages and names);
/// `operand` is IN's left side.
ExprRef SubqueryExpr(SelectRef query, std::string sql, SubqueryKind kind,
                     int32_t position, ExprRef operand = nullptr);
/// `e IS NULL` (`negated`: IS NOT NULL).
ExprRef IsNullExpr(ExprRef e, bool negated = false);
/// The names of the columns `e` reads (their last path part), in order, once each.
void CollectColumnNames(const Expr& e, std::vector<std::string>* names);
/// Whether `e` calls an aggregate function (by name, before binding).
bool HasAggregateCall(const Expr& e);

}  // namespace deltaguard::query_internal
