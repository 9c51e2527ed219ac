/// \file deltaguard/dml/merge_names_internal.h
/// Name resolution of MERGE (merge_plan.cc): which side a column reference of a
/// condition or assignment means, with Spark's rules: `alias.col` picks its side, a
/// bare name present on both sides is AMBIGUOUS_REFERENCE where both are visible, and
/// a clause sees only the sides its kind allows (NOT MATCHED: the source; NOT MATCHED
/// BY SOURCE: the target). Resolved references are rewritten to the joined batch's
/// column names (JoinedName).
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "deltaguard/dml/merge_internal.h"

namespace deltaguard::dml_internal {

enum Side : unsigned { kNoSide = 0, kTargetSide = 1, kSourceSide = 2 };

/// Which side's columns an expression may reference, and how to name it in messages.
struct Scope {
  bool target = true;
  bool source = true;
  std::string what;
};

/// "alias.`a`, alias.`b`" for messages; "(none)" for no columns.
std::string Columns(const StructType& s, const std::string& alias);

/// "a, b, c".
std::string JoinList(const std::vector<std::string>& names);

class Names {
 public:
  Names(std::string target_alias, std::string source_alias, SchemaRef target,
        SchemaRef source)
      : ta_(std::move(target_alias)),
        sa_(std::move(source_alias)),
        t_(std::move(target)),
        s_(std::move(source)) {}

  /// `e` with every column reference resolved and renamed to the joined schema; the
  /// sides referenced are OR-ed into `*sides`.
  Result<ExprRef> Qualify(const ExprRef& e, const Scope& scope, unsigned* sides) const;

  /// The target column an assignment writes, the alias stripped: {name, exists}.
  Result<std::pair<std::string, bool>> AssignedColumn(
      const std::vector<std::string>& path, const std::string& what) const;

  const std::string& target_alias() const { return ta_; }
  const std::string& source_alias() const { return sa_; }

 private:
  Result<ExprRef> QualifyColumn(const Expr& e, const Scope& scope, unsigned* sides) const;

  std::string ta_, sa_;
  SchemaRef t_, s_;
};

/// The lower-cased column names of a clause's `EXCEPT (...)` (an alias prefix is
/// allowed); a name on neither side sets `*status` to kNotFound naming both sides.
std::set<std::string> ExceptSet(const MergeWhen& when, const Names& names,
                                const StructType& t, const StructType& s,
                                const std::string& what, Status* status);

}  // namespace deltaguard::dml_internal
