/// \file deltaguard/dml/merge_plan_internal.h
/// What the steps of MERGE planning share (merge_plan.cc resolves names, the ON keys,
/// the clauses and the schema rules; merge_plan_columns.cc projects each clause onto
/// the table schema after the commit).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "deltaguard/dml/merge_internal.h"
#include "deltaguard/dml/merge_names_internal.h"

namespace deltaguard::dml_internal::merge_plan {

using Kind = MergeWhen::Kind;

inline bool IsMatched(Kind k) {
  return k == Kind::kMatchedUpdate || k == Kind::kMatchedUpdateAll ||
         k == Kind::kMatchedDelete;
}
inline bool IsNotMatched(Kind k) {
  return k == Kind::kNotMatchedInsert || k == Kind::kNotMatchedInsertAll;
}
inline bool IsDelete(Kind k) {
  return k == Kind::kMatchedDelete || k == Kind::kNotMatchedBySourceDelete;
}
inline bool IsUpdate(Kind k) {
  return k == Kind::kMatchedUpdate || k == Kind::kMatchedUpdateAll ||
         k == Kind::kNotMatchedBySourceUpdate;
}
inline bool IsStar(Kind k) {
  return k == Kind::kMatchedUpdateAll || k == Kind::kNotMatchedInsertAll;
}

// One assignment of a clause before the table schema after the MERGE is known.
struct Assigned {
  std::string column;  // target spelling when it exists, else as written
  bool exists = false;
  bool star = false;
  ExprRef qualified;  // the value over the joined schema
  BoundExprRef value;
  DataTypeRef probe_type;  // what the schema resolution sees
};

struct Draft {
  const MergeWhen* when = nullptr;
  size_t index = 0;
  Scope scope;
  BoundExprRef condition;
  std::vector<Assigned> assigned;
  NestedSets nested;  ///< `SET t.s.f = v` of an update
  std::string describe;
};

// What every planning step reads: the statement, the two schemas, the name resolver and
// the joined schema every expression binds against.
struct PlanInput {
  const MergeSpec& spec;
  const Snapshot& snapshot;
  const std::string& table;
  const StructType& t;  // the target schema
  const StructType& s;  // the source schema, nullable
  const Names& names;
  const StructType& joined;
  bool evolution;  // WITH SCHEMA EVOLUTION or the session's autoMerge
};

/// Clause `d` planned in the final schema's (`plan.schema`) column order: each output
/// column's value, and the conformer from those values to the table.
Result<ClausePlan> PlanClause(const PlanInput& in, Draft& d, const MergePlan& plan);

}  // namespace deltaguard::dml_internal::merge_plan
