// ALTER TABLE statements (issue 5): each action is one call into table/alter.h or
// table/constraints_ddl.h, which validate, refuse (nothing committed) or make one
// metadata-only commit. This file only translates the parsed statement, names the table
// as the user wrote it in errors (NameTable) and words the result message:
// "Added column channel to orders (version 3)".
//
// Spark's behaviours kept here (docs/spark_semantics.md §4-5, Spark Delta 4.x):
//  - ADD COLUMN ... NOT NULL is passed to the library, which refuses it saying why.
//  - Hive-style CHANGE COLUMN c c2 ... may not rename (Spark: use RENAME COLUMN).
//  - ADD CONSTRAINT stores the token-joined text (AlterAddConstraint::token_text), as
//    Spark stores `delta.constraints.<name>`.
//  - RENAME TO is refused: deltaguard's catalog does not rename tables.

#include <fmt/format.h>

#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "deltaguard/evolution/alter_schema.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/sql/session_internal.h"
#include "deltaguard/table/alter.h"
#include "deltaguard/table/constraints_ddl.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {
namespace {

std::string DottedName(const std::vector<std::string>& path) {
  return fmt::format("{}", fmt::join(path, "."));
}

std::string Names(const std::vector<std::string>& names) {
  return fmt::format("{}", fmt::join(names, ", "));
}

std::optional<ColumnPosition> ToPosition(const std::optional<ColumnPlacement>& p) {
  if (!p) return std::nullopt;
  ColumnPosition out;
  out.first = p->first;
  out.after = p->after;
  return out;
}

// The user-facing message of a finished ALTER: `done` when something was committed,
// otherwise the library's reason why nothing changed.
std::string Describe(const AlterResult& result, const std::string& done,
                     const std::string& shown) {
  if (result.version < 0) {
    return fmt::format("No change to {}: {}", shown, result.message);
  }
  std::string out = fmt::format("{} (version {})", done, result.version);
  if (result.new_protocol) {
    out += fmt::format("; protocol upgraded to reader {} / writer {}",
                       result.new_protocol->min_reader_version,
                       result.new_protocol->min_writer_version);
  }
  if (result.checkpoint_error) {
    out += fmt::format("; checkpoint failed (the change is committed): {}",
                       *result.checkpoint_error);
  }
  return out;
}

// Runs one action against `path`, returning the library result and the message for a
// successful commit.
struct ActionRunner {
  SessionState& state;
  const std::string& path;
  const std::string& shown;

  using Out = Result<std::pair<AlterResult, std::string>>;

  const FileSystemRef& fs() const { return state.options.fs; }
  const SessionSettings& settings() const { return state.options.settings; }

  Out operator()(const AlterAddColumns& a) const {
    std::vector<NewColumnSpec> specs;
    std::vector<std::string> names;
    for (const AddColumnSpec& c : a.columns) {
      NewColumnSpec spec;
      spec.path = c.parent;
      spec.path.push_back(c.field.name);
      spec.type = c.field.type;
      spec.comment = c.field.comment();
      spec.char_varchar_type = c.field.metadata.GetString(kCharVarcharTypeKey);
      spec.not_null = !c.field.nullable;
      spec.position = ToPosition(c.placement);
      names.push_back(DottedName(spec.path));
      specs.push_back(std::move(spec));
    }
    DELTA_ASSIGN_OR_RETURN(AlterResult r, AddColumns(fs(), path, specs, settings()));
    return std::pair{std::move(r),
                     fmt::format("Added column{} {} to {}", names.size() == 1 ? "" : "s",
                                 Names(names), shown)};
  }

  Out operator()(const AlterRenameColumn& a) const {
    DELTA_ASSIGN_OR_RETURN(AlterResult r,
                           RenameColumn(fs(), path, a.column, a.new_name, settings()));
    return std::pair{std::move(r), fmt::format("Renamed column {} to {} in {}",
                                               DottedName(a.column), a.new_name, shown)};
  }

  Out operator()(const AlterDropColumns& a) const {
    DELTA_ASSIGN_OR_RETURN(AlterResult r,
                           DropColumns(fs(), path, a.columns, a.if_exists, settings()));
    std::vector<std::string> names;
    for (const auto& c : a.columns) names.push_back(DottedName(c));
    return std::pair{std::move(r),
                     fmt::format("Dropped column{} {} from {}",
                                 names.size() == 1 ? "" : "s", Names(names), shown)};
  }

  Out operator()(const AlterChangeColumn& a) const {
    const std::string column = DottedName(a.column);
    if (a.new_name && !a.column.empty() &&
        !EqualsIgnoreCase(*a.new_name, a.column.back())) {
      return MakeError(
          ErrorCode::kUnsupportedFeature,
          "DELTA_ALTER_TABLE_CHANGE_COL_NOT_SUPPORTED: CHANGE COLUMN on table "
          "{} cannot rename column '{}' to '{}'; please run ALTER TABLE {} "
          "RENAME COLUMN {} TO {}",
          shown, column, *a.new_name, shown, column, *a.new_name);
    }
    ChangeColumnSpec spec;
    std::vector<std::string> what;
    if (a.type) {
      spec.type = a.type;
      DELTA_ASSIGN_OR_RETURN(spec.char_varchar_type, CharVarcharTypeString(a.type_text));
      what.push_back(fmt::format("type {}", spec.char_varchar_type
                                                ? *spec.char_varchar_type
                                                : SparkTypeString(*a.type)));
    }
    if (a.nullable) {
      spec.nullable = a.nullable;
      what.push_back(*a.nullable ? "DROP NOT NULL" : "SET NOT NULL");
    }
    if (a.comment) {
      spec.comment = a.comment;
      what.push_back("comment");
    }
    if (a.placement) {
      spec.position = ToPosition(a.placement);
      what.push_back(a.placement->first ? "FIRST"
                                        : fmt::format("AFTER {}", a.placement->after));
    }
    DELTA_ASSIGN_OR_RETURN(AlterResult r,
                           ChangeColumn(fs(), path, a.column, spec, settings()));
    return std::pair{std::move(r), fmt::format("Changed column {} of {}: {}", column,
                                               shown, Names(what))};
  }

  Out operator()(const AlterSetProperties& a) const {
    StringMap props;
    std::vector<std::string> keys;
    for (const auto& [k, v] : a.properties) {
      props.emplace_back(k, v);
      keys.push_back(k);
    }
    DELTA_ASSIGN_OR_RETURN(AlterResult r,
                           SetTableProperties(fs(), path, props, settings()));
    return std::pair{std::move(r),
                     fmt::format("Set table propert{} {} on {}",
                                 keys.size() == 1 ? "y" : "ies", Names(keys), shown)};
  }

  Out operator()(const AlterUnsetProperties& a) const {
    DELTA_ASSIGN_OR_RETURN(
        AlterResult r, UnsetTableProperties(fs(), path, a.keys, a.if_exists, settings()));
    return std::pair{std::move(r),
                     fmt::format("Unset table propert{} {} on {}",
                                 a.keys.size() == 1 ? "y" : "ies", Names(a.keys), shown)};
  }

  Out operator()(const AlterAddConstraint& a) const {
    // Spark stores the token-joined text; fall back to the text as written.
    const std::string& text = a.token_text.empty() ? a.expr_text : a.token_text;
    DELTA_ASSIGN_OR_RETURN(AlterResult r,
                           AddConstraint(fs(), path, a.name, text, settings()));
    return std::pair{std::move(r), fmt::format("Added constraint {} CHECK ({}) to {}",
                                               a.name, text, shown)};
  }

  Out operator()(const AlterDropConstraint& a) const {
    DELTA_ASSIGN_OR_RETURN(AlterResult r,
                           DropConstraint(fs(), path, a.name, a.if_exists, settings()));
    return std::pair{std::move(r),
                     fmt::format("Dropped constraint {} from {}", a.name, shown)};
  }

  Out operator()(const AlterRenameTable& a) const {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "ALTER TABLE {} RENAME TO {}: renaming tables is not supported by "
                     "deltaguard (create the table under the new name with CREATE TABLE "
                     "... LOCATION instead)",
                     shown, a.new_name.ToString());
  }
};

}  // namespace

Result<StatementResult> ExecuteAlterTable(SessionState& state,
                                          const AlterTableStmt& stmt) {
  const std::string shown = stmt.table.ToString();
  DELTA_ASSIGN_OR_RETURN(ResolvedTable table, ResolveExisting(state, stmt.table));
  ActionRunner runner{state, table.path, shown};
  auto outcome = std::visit(runner, stmt.action);
  if (!outcome) return NameTable(outcome.error(), table, stmt.table);
  const auto& [result, done] = *outcome;
  StatementResult out = MessageResult("ALTER TABLE", Describe(result, done, shown));
  WriteResult write;
  write.version = result.version;
  write.skipped = result.version < 0;
  if (write.skipped) write.skipped_reason = result.message;
  write.commit_attempts = result.commit_attempts;
  write.checkpoint_version = result.checkpoint_version;
  write.checkpoint_error = result.checkpoint_error;
  out.write = std::move(write);
  return out;
}

}  // namespace deltaguard::internal
