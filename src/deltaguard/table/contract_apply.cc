// ApplyContract (table/contract_apply.h): conformance, the new schema and constraints,
// one validating scan of the existing rows, one metadata commit.

#include "deltaguard/table/contract_apply.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "deltaguard/constraints/constraints.h"
#include "deltaguard/contract/checks.h"
#include "deltaguard/exec/constraint_checker.h"
#include "deltaguard/expr/binder.h"
#include "deltaguard/expr/parser.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/table/alter_internal.h"
#include "deltaguard/util/string_util.h"
#include "deltaguard/write/table_state.h"

namespace deltaguard {
namespace {

using alter_internal::AlterCommit;
using alter_internal::AlterTarget;

// "contract_" + the check id, lower-case, anything but letters, digits and '_' as '_'
// (Spark stores constraint names lower-case).
std::string ConstraintName(const std::string& id) {
  std::string out = "contract_";
  for (char c : AsciiToLower(id)) {
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return out;
}

struct Planned {
  std::string name;
  std::string expression;
  std::string description;
};

struct Violation {
  std::string what;
  int64_t count = 0;
  std::vector<std::string> samples;
};

Status CheckConformance(const Contract& c, const ContractObject& o,
                        const AlterTarget& t) {
  const StructType& schema = *t.snapshot->schema();
  std::vector<std::string> problems;
  for (const auto& p : o.properties) {
    int i = schema.FieldIndexCaseInsensitive(p.name);
    if (i < 0) {
      problems.push_back(fmt::format(
          "column '{}' is not in the table (add it first: ALTER TABLE ... ADD COLUMNS, "
          "or a write with --merge-schema)",
          p.name));
    } else if (p.type && !schema.field(static_cast<size_t>(i)).type->Equals(*p.type)) {
      problems.push_back(
          fmt::format("column '{}' is {} in the table, the contract "
                      "declares {}",
                      p.name, schema.field(static_cast<size_t>(i)).type->ToString(),
                      p.type->ToString()));
    }
  }
  if (problems.empty()) return OkStatus();
  std::string listed;
  for (const auto& p : problems) listed += "\n  " + p;
  return MakeError(ErrorCode::kSchemaMismatch,
                   "cannot apply contract {} {} to table '{}': the table does not have "
                   "the declared schema (apply adds no column and changes no type):{}",
                   c.id, c.version, t.name, listed);
}

// Counts, in one scan, the rows violating each new predicate.
Result<std::vector<Violation>> Validate(
    const AlterTarget& t,
    const std::vector<std::pair<std::string, std::string>>& checks) {
  const StructType& schema = *t.snapshot->schema();
  std::vector<BoundExprRef> bound;
  std::vector<std::vector<std::vector<std::string>>> columns;
  std::set<std::string> top;
  for (const auto& [what, predicate] : checks) {
    DELTA_ASSIGN_OR_RETURN(ExprRef parsed, ParseExpression(predicate));
    DELTA_ASSIGN_OR_RETURN(BoundExprRef b, BindPredicate(*parsed, schema));
    columns.push_back(ReferencedColumns(*b));
    for (const auto& path : columns.back()) top.insert(path[0]);
    bound.push_back(std::move(b));
  }
  std::vector<Violation> out(checks.size());
  for (size_t i = 0; i < checks.size(); ++i) out[i].what = checks[i].first;
  if (checks.empty() || t.snapshot->files().empty()) return out;
  ScanOptions scan;
  scan.columns.assign(top.begin(), top.end());
  DELTA_ASSIGN_OR_RETURN(auto reader, TableScan::Make(t.snapshot, scan));
  while (true) {
    DELTA_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) break;
    for (size_t i = 0; i < bound.size(); ++i) {
      DELTA_ASSIGN_OR_RETURN(
          int64_t n,
          CountPredicateViolations(*bound[i], columns[i], *batch, 5, &out[i].samples));
      out[i].count += n;
    }
  }
  return out;
}

}  // namespace

Result<AlterResult> ApplyContract(FileSystemRef fs, const std::string& path,
                                  const Contract& contract, const ContractObject& object,
                                  const std::string& yaml,
                                  const SessionSettings& session) {
  DELTA_ASSIGN_OR_RETURN(AlterTarget target, alter_internal::LoadAlterTarget(fs, path));
  DELTA_RETURN_IF_ERROR(CheckConformance(contract, object, target));
  const Snapshot& snapshot = *target.snapshot;
  std::vector<std::string> changes;
  std::vector<std::pair<std::string, std::string>> checks;  // (what, predicate)

  // NOT NULL and comments.
  std::vector<StructField> fields = snapshot.schema()->fields();
  bool schema_changed = false;
  for (auto& f : fields) {
    auto it = std::find_if(
        object.properties.begin(), object.properties.end(),
        [&](const ContractProperty& p) { return EqualsIgnoreCase(p.name, f.name); });
    if (it == object.properties.end()) continue;
    if (it->required && f.nullable) {
      f.nullable = false;
      schema_changed = true;
      changes.push_back(fmt::format("set NOT NULL on '{}'", f.name));
      checks.emplace_back(fmt::format("NOT NULL on '{}'", f.name),
                          QuoteIdentifier(f.name) + " IS NOT NULL");
    }
    if (!it->description.empty() &&
        f.metadata.GetString("comment").value_or("") != it->description) {
      f.metadata = f.metadata.With("comment", JsonQuote(it->description));
      schema_changed = true;
      changes.push_back(fmt::format("comment on '{}'", f.name));
    }
  }

  // CHECK constraints: the contract's row checks that must hold on every row.
  Metadata md = snapshot.metadata();
  std::map<std::string, Planned> planned;
  for (const auto& spec : PlanContractChecks(object, "")) {
    if (!spec.as_constraint) continue;
    std::string name = ConstraintName(spec.id);
    planned[name] = Planned{name, spec.predicate, spec.description};
  }
  std::set<std::string> previous;
  if (auto listed = md.GetConfig(kContractConstraintsProperty)) {
    for (auto part : Split(*listed, ',')) {
      if (!part.empty()) previous.insert(std::string(part));
    }
  }
  auto erase = [&md](const std::string& name) {
    for (auto it = md.configuration.begin(); it != md.configuration.end();) {
      it = EqualsIgnoreCase(it->first, ConstraintPropertyKey(name))
               ? md.configuration.erase(it)
               : std::next(it);
    }
  };
  for (const auto& name : previous) {
    if (planned.count(name) || !FindCheckConstraint(md, name)) continue;
    erase(name);
    changes.push_back(fmt::format("dropped constraint {}", name));
  }
  for (const auto& [name, p] : planned) {
    auto existing = FindCheckConstraint(md, name);
    if (existing && existing->expression == p.expression) continue;
    if (existing) erase(name);  // a new version of the contract's own check
    auto valid = ValidateNewCheckConstraint(md, *snapshot.schema(), name, p.expression);
    if (!valid) return valid.error();
    internal::SetConfig(&md.configuration, ConstraintPropertyKey(name), p.expression);
    checks.emplace_back(fmt::format("CHECK constraint {} ({})", name, p.expression),
                        p.expression);
    changes.push_back(fmt::format("added constraint {}: {}", name, p.expression));
  }

  // Existing rows must satisfy what is added.
  DELTA_ASSIGN_OR_RETURN(auto violations, Validate(target, checks));
  std::string refused;
  for (const auto& v : violations) {
    if (v.count == 0) continue;
    refused += fmt::format("\n  {}: {} row{}", v.what, v.count, v.count == 1 ? "" : "s");
    for (const auto& s : v.samples) refused += "\n    e.g. " + s;
  }
  if (!refused.empty()) {
    return MakeError(ErrorCode::kConstraintViolation,
                     "cannot apply contract {} {} to table '{}': existing rows violate "
                     "it; nothing was changed:{}",
                     contract.id, contract.version, target.name, refused);
  }

  std::string names;
  for (const auto& [name, p] : planned) names += (names.empty() ? "" : ",") + name;
  internal::SetConfig(&md.configuration, std::string(kContractIdProperty), contract.id);
  internal::SetConfig(&md.configuration, std::string(kContractVersionProperty),
                      contract.version);
  internal::SetConfig(&md.configuration, std::string(kContractHashProperty),
                      contract.hash);
  internal::SetConfig(&md.configuration, std::string(kContractYamlProperty), yaml);
  internal::SetConfig(&md.configuration, std::string(kContractConstraintsProperty),
                      names);
  changes.push_back(
      fmt::format("contract {} {} recorded", contract.id, contract.version));

  AlterCommit commit;
  commit.metadata = std::move(md);
  if (schema_changed) commit.schema = std::make_shared<StructType>(std::move(fields));
  commit.op.operation = "APPLY CONTRACT";
  commit.op.parameters_json = {{"id", JsonQuote(contract.id)},
                               {"version", JsonQuote(contract.version)},
                               {"hash", JsonQuote(contract.hash)}};
  commit.read_whole_table = !checks.empty();
  commit.changes = std::move(changes);
  return alter_internal::CommitAlter(fs, target, std::move(commit), session);
}

}  // namespace deltaguard
