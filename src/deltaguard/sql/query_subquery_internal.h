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
/// Whether `e` calls an aggregate function (by name, before binding).
bool HasAggregateCall(const Expr& e);

}  // namespace deltaguard::query_internal
