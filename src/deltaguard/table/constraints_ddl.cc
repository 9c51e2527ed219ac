// ADD / DROP CONSTRAINT (constraints_ddl.h).

#include "deltaguard/table/constraints_ddl.h"

#include <fmt/format.h>

#include <utility>

#include "deltaguard/constraints/constraints.h"
#include "deltaguard/exec/constraint_checker.h"
#include "deltaguard/protocol/write_protocol.h"
#include "deltaguard/table/alter_internal.h"
#include "deltaguard/util/string_util.h"
#include "deltaguard/write/table_state.h"

namespace deltaguard {

using alter_internal::AlterCommit;
using alter_internal::CommitAlter;
using alter_internal::LoadAlterTarget;

Result<AlterResult> AddConstraint(FileSystemRef fs, const std::string& path,
                                  const std::string& name, const std::string& expr_sql,
                                  const SessionSettings& session) {
  DELTA_ASSIGN_OR_RETURN(auto target, LoadAlterTarget(fs, path));
  const Snapshot& snapshot = *target.snapshot;
  auto bound =
      ValidateNewCheckConstraint(snapshot.metadata(), *snapshot.schema(), name, expr_sql);
  if (!bound) {
    return WithContext(bound.error(), fmt::format("ADD CONSTRAINT on table '{}'", path));
  }
  const Constraint& c = bound->constraint;
  // Every existing row must satisfy the new constraint (NULL counts as a violation).
  DELTA_ASSIGN_OR_RETURN(auto violation,
                         FindViolations(target.snapshot, c.name, c.expression));
  if (violation.count > 0) {
    std::string samples;
    for (size_t i = 0; i < violation.samples.size(); ++i) {
      samples += (i ? ", " : ", e.g. ") + violation.samples[i];
    }
    return MakeError(ErrorCode::kConstraintViolation,
                     "DELTA_NEW_CHECK_CONSTRAINT_VIOLATION: {} row{} in table '{}' "
                     "violate{} the new CHECK constraint {} ({}){}",
                     violation.count, violation.count == 1 ? "" : "s", path,
                     violation.count == 1 ? "s" : "", c.name, c.expression, samples);
  }
  AlterCommit commit;
  commit.metadata = snapshot.metadata();
  internal::SetConfig(&commit.metadata.configuration, ConstraintPropertyKey(c.name),
                      c.expression);
  commit.op.operation = "ADD CONSTRAINT";
  commit.op.parameters_json.emplace_back("name", JsonQuote(name));
  commit.op.parameters_json.emplace_back("expr", JsonQuote(c.expression));
  // A concurrent write could add violating rows the scan did not see.
  commit.read_whole_table = true;
  commit.changes.push_back(
      fmt::format("added CHECK constraint {} ({})", c.name, c.expression));
  return CommitAlter(fs, target, std::move(commit), session);
}

Result<AlterResult> DropConstraint(FileSystemRef fs, const std::string& path,
                                   const std::string& name, bool if_exists,
                                   const SessionSettings& session) {
  DELTA_ASSIGN_OR_RETURN(auto target, LoadAlterTarget(fs, path));
  const Snapshot& snapshot = *target.snapshot;
  auto existing = FindCheckConstraint(snapshot.metadata(), name);
  if (!existing) {
    if (if_exists) {
      return alter_internal::NoChange(fmt::format(
          "no CHECK constraint {} on table '{}'; nothing to drop", name, path));
    }
    std::string names;
    for (const auto& c : CheckConstraints(snapshot.metadata()))
      names += (names.empty() ? "" : ", ") + c.name;
    return MakeError(
        ErrorCode::kNotFound,
        "DELTA_CONSTRAINT_DOES_NOT_EXIST: cannot drop nonexistent constraint "
        "{} from table '{}' (its CHECK constraints: {}); use DROP "
        "CONSTRAINT IF EXISTS to ignore a missing constraint",
        name, path, names.empty() ? "none" : names);
  }
  AlterCommit commit;
  commit.metadata = snapshot.metadata();
  StringMap& config = commit.metadata.configuration;
  const std::string key = ConstraintPropertyKey(name);
  std::erase_if(config, [&](const auto& kv) { return EqualsIgnoreCase(kv.first, key); });
  commit.op.operation = "DROP CONSTRAINT";
  commit.op.parameters_json.emplace_back("name", JsonQuote(name));
  commit.op.parameters_json.emplace_back("expr", JsonQuote(existing->expression));
  commit.changes.push_back(fmt::format("dropped CHECK constraint {} ({})", existing->name,
                                       existing->expression));
  return CommitAlter(fs, target, std::move(commit), session);
}

}  // namespace deltaguard
