// TestContract (quality/contract_check.h): schema through drift, then one scan of the
// columns the checks read, every check accumulated per batch.

#include "deltaguard/quality/contract_check.h"

#include <arrow/array.h>
#include <arrow/record_batch.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/contract/contract_schema.h"
#include "deltaguard/drift/classify.h"
#include "deltaguard/exec/constraint_checker.h"
#include "deltaguard/exec/expr_eval.h"
#include "deltaguard/exec/result_format.h"
#include "deltaguard/expr/binder.h"
#include "deltaguard/expr/parser.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/quality/row_tests.h"
#include "deltaguard/util/report_format.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

CheckOutcome Worst(CheckOutcome a, CheckOutcome b) {
  auto rank = [](CheckOutcome o) {
    switch (o) {
      case CheckOutcome::kError:
        return 4;
      case CheckOutcome::kFailed:
        return 3;
      case CheckOutcome::kWarning:
        return 2;
      case CheckOutcome::kPassed:
        return 1;
      case CheckOutcome::kSkipped:
        return 0;
    }
    return 0;
  };
  return rank(a) >= rank(b) ? a : b;
}

// A rule that does not pass: failed for severity error, warning for warning; an info
// rule is reported but never fails.
CheckOutcome OnFailure(const std::string& severity) {
  if (severity == "warning") return CheckOutcome::kWarning;
  if (severity == "info") return CheckOutcome::kPassed;
  return CheckOutcome::kFailed;
}

// The schema: the contract's columns (before) against the table's (after), as drift
// classifies them; a declared column missing or of another type fails.
void SchemaChecks(const ContractObject& object, const Snapshot& snapshot,
                  std::vector<CheckResult>* out) {
  auto declared = ContractSchema(object);
  if (!declared) {
    out->push_back({"schema",
                    "the declared schema",
                    "schema",
                    "",
                    "error",
                    CheckOutcome::kError,
                    std::nullopt,
                    "",
                    0,
                    {},
                    declared.error().message});
    return;
  }
  DriftSide before;
  before.schema = *declared;
  DriftSide after;
  after.schema = snapshot.schema();
  DriftEvidence evidence;
  evidence.ignore_new_nullability = true;  // `required` is checked on the data
  size_t failures = 0;
  std::vector<std::string> extra;
  for (const auto& c : ClassifyDrift(before, after, evidence)) {
    CheckOutcome outcome = CheckOutcome::kPassed;
    switch (c.cls) {
      case ChangeClass::kColumnRemoved:
      case ChangeClass::kTypeWidened:
      case ChangeClass::kTypeChangedIncompatible:
        outcome = CheckOutcome::kFailed;
        break;
      case ChangeClass::kTypeNarrowed:
      case ChangeClass::kColumnRenameSuspected:
      case ChangeClass::kPartitioningChanged:
        outcome = CheckOutcome::kWarning;
        break;
      case ChangeClass::kColumnAddedNullable:
      case ChangeClass::kColumnAddedNotNull:
        extra.push_back(c.path);
        continue;
      default:
        continue;  // case, order, comments: a table may differ there
    }
    failures += outcome == CheckOutcome::kFailed;
    std::string message;
    if (c.cls == ChangeClass::kColumnRemoved) {
      message =
          fmt::format("declared column '{}' ({}) is not in the table", c.path, c.before);
    } else if (c.cls == ChangeClass::kTypeNarrowed) {
      message = fmt::format("'{}' is {} in the table, narrower than the declared {}",
                            c.path, c.after, c.before);
    } else if (c.cls == ChangeClass::kColumnRenameSuspected) {
      message = fmt::format("'{}' may be the declared '{}' renamed ({})", c.path,
                            c.old_path, c.evidence);
    } else {
      message = fmt::format("'{}' is {} in the table, the contract declares {}", c.path,
                            c.after.empty() ? "(none)" : c.after, c.before);
    }
    out->push_back({"schema." + (c.path.empty() ? "table" : c.path),
                    c.Summary(),
                    "schema",
                    c.path,
                    "error",
                    outcome,
                    std::nullopt,
                    "",
                    0,
                    {},
                    std::move(message)});
  }
  std::string message =
      fmt::format("{} declared column{} checked", object.properties.size(),
                  object.properties.size() == 1 ? "" : "s");
  if (!extra.empty()) {
    std::string names;
    for (const auto& e : extra) names += (names.empty() ? "" : ", ") + e;
    message += "; columns the contract does not declare (ignored): " + names;
  }
  out->insert(out->begin(),
              CheckResult{"schema",
                          "the table has the declared columns and "
                          "types",
                          "schema",
                          "",
                          "error",
                          failures ? CheckOutcome::kFailed : CheckOutcome::kPassed,
                          std::nullopt,
                          "",
                          0,
                          {},
                          std::move(message)});
}

struct RowCheck {
  size_t result;  // index into the report's checks
  size_t spec;    // index into the planned specs
  BoundExprRef predicate;
  std::vector<std::vector<std::string>> columns;
  int64_t violating = 0;
};

struct DuplicateCheck {
  size_t result;
  size_t spec;
  std::vector<std::string> columns;  // top-level or dotted, as in the batch
  std::unordered_set<std::string> seen;
  int64_t duplicates = 0;
  std::vector<std::string> samples;
};

class Tester {
 public:
  Tester(const Contract& contract, const ContractObject& object, SnapshotRef snapshot,
         const ContractTestOptions& options)
      : contract_(contract),
        object_(object),
        snapshot_(std::move(snapshot)),
        options_(options) {}

  Result<ContractTestReport> Run() {
    ContractTestReport r;
    r.contract_id = contract_.id;
    r.contract_version = contract_.version;
    r.contract_file = contract_.file;
    r.object = object_.name;
    r.table = snapshot_->table_root();
    r.version = snapshot_->version();
    SchemaChecks(object_, *snapshot_, &r.checks);
    Plan(&r);
    DELTA_RETURN_IF_ERROR(Scan(&r));
    Finish(&r);
    for (const auto& c : r.checks) r.outcome = Worst(r.outcome, c.outcome);
    return r;
  }

 private:
  static std::string KindOf(const ContractCheckSpec& s) {
    if (s.implied) return "implied";
    return s.rule.type;
  }

  // The projected columns the scan reads, and the predicates bound to them.
  void Plan(ContractTestReport* r) {
    specs_ = PlanContractChecks(object_, options_.table_sql);
    const StructType& schema = *snapshot_->schema();
    for (size_t i = 0; i < specs_.size(); ++i) {
      const ContractCheckSpec& s = specs_[i];
      CheckResult c{
          s.id,
          s.description,
          KindOf(s),
          s.property,
          s.rule.severity,
          CheckOutcome::kPassed,
          std::nullopt,
          s.rule.ComparisonText() + (s.rule.unit == "percent" ? " (percent)" : ""),
          0,
          {},
          ""};
      size_t index = r->checks.size();
      r->checks.push_back(std::move(c));
      CheckResult& out = r->checks.back();
      switch (s.kind) {
        case ContractCheckSpec::Kind::kSkipped:
          out.outcome = CheckOutcome::kSkipped;
          out.message = s.skip_reason;
          break;
        case ContractCheckSpec::Kind::kRowCount:
          row_count_checks_.emplace_back(index, i);
          break;
        case ContractCheckSpec::Kind::kSql:
          sql_checks_.emplace_back(index, i);
          break;
        case ContractCheckSpec::Kind::kDuplicates: {
          bool ok = true;
          for (const auto& col : s.columns) ok &= Need(col, schema, &out);
          if (ok) duplicates_.push_back({index, i, s.columns, {}, 0, {}});
          break;
        }
        case ContractCheckSpec::Kind::kRowPredicate: {
          auto parsed = ParseExpression(s.predicate);
          if (!parsed) {
            Fail(&out, parsed.error());
            break;
          }
          auto bound = BindPredicate(**parsed, schema);
          if (!bound) {
            Fail(&out, bound.error());
            break;
          }
          auto columns = ReferencedColumns(**bound);
          for (const auto& path : columns) columns_.insert(path[0]);
          rows_.push_back({index, i, std::move(*bound), std::move(columns), 0});
          break;
        }
      }
    }
  }

  static void Fail(CheckResult* out, const Error& e) {
    out->outcome = CheckOutcome::kError;
    out->message = e.message;
  }

  bool Need(const std::string& path, const StructType& schema, CheckResult* out) {
    std::string top = path.substr(0, path.find('.'));
    if (schema.FieldIndexCaseInsensitive(top) < 0) {
      out->outcome = CheckOutcome::kError;
      out->message = fmt::format("column '{}' is not in the table", path);
      return false;
    }
    scan_paths_.insert(path);
    return true;
  }

  Status Scan(ContractTestReport* r) {
    ScanOptions scan;
    // Top-level columns the predicates read, and the (possibly nested) key columns.
    std::set<std::string> wanted(columns_.begin(), columns_.end());
    for (const auto& p : scan_paths_) wanted.insert(p);
    const StructType& schema = *snapshot_->schema();
    for (const auto& name : wanted) {
      // the table's spelling
      int i = schema.FieldIndexCaseInsensitive(name.substr(0, name.find('.')));
      std::string top = schema.field(static_cast<size_t>(i)).name;
      scan.columns.push_back(
          name.find('.') == std::string::npos ? top : top + name.substr(name.find('.')));
    }
    if (scan.columns.empty()) {
      // Only the row count is needed: one primitive column is enough (deletion vectors
      // are applied by the scan).
      for (const auto& f : schema.fields()) {
        if (f.type->is_primitive() && f.type->kind() != TypeKind::kVariant) {
          scan.columns.push_back(f.name);
          break;
        }
      }
      if (scan.columns.empty() && schema.num_fields() > 0) {
        scan.columns.push_back(schema.field(0).name);
      }
    }
    DELTA_ASSIGN_OR_RETURN(auto reader, TableScan::Make(snapshot_, scan));
    while (true) {
      DELTA_ASSIGN_OR_RETURN(auto batch, reader->Next());
      if (!batch) break;
      r->rows += batch->num_rows();
      Batch(*batch, r);
    }
    return OkStatus();
  }

  void Batch(const arrow::RecordBatch& batch, ContractTestReport* r) {
    for (auto& check : rows_) {
      CheckResult& out = r->checks[check.result];
      if (out.outcome == CheckOutcome::kError) continue;
      auto n = CountPredicateViolations(*check.predicate, check.columns, batch,
                                        options_.max_samples, &out.samples);
      if (!n) {
        Fail(&out, n.error());
        continue;
      }
      check.violating += *n;
    }
    for (auto& d : duplicates_) {
      std::vector<std::shared_ptr<arrow::Array>> arrays;
      for (const auto& col : d.columns) {
        auto array = batch.GetColumnByName(ColumnInBatch(batch, col));
        if (!array) break;
        arrays.push_back(std::move(array));
      }
      if (arrays.size() != d.columns.size()) continue;
      std::vector<const arrow::Array*> raw;
      for (const auto& a : arrays) raw.push_back(a.get());
      for (int64_t row = 0; row < batch.num_rows(); ++row) {
        auto key = RowKey(raw, row);
        if (!key || d.seen.insert(*key).second) continue;
        ++d.duplicates;
        if (d.samples.size() < options_.max_samples) {
          std::string sample = "{";
          for (size_t c = 0; c < arrays.size(); ++c) {
            sample += (c ? ", " : "") + d.columns[c] + ": ";
            AppendTextValue(*arrays[c], row, /*csv=*/false, &sample);
          }
          d.samples.push_back(EscapeForMessage(sample + "}", 300));
        }
      }
    }
  }

  // The batch's name for a column spelled as in the contract (case-insensitive).
  static std::string ColumnInBatch(const arrow::RecordBatch& batch,
                                   const std::string& col) {
    for (const auto& f : batch.schema()->fields()) {
      if (EqualsIgnoreCase(f->name(), col)) return f->name();
    }
    return col;
  }

  void Judge(CheckResult* out, const ContractCheckSpec& s, double count, int64_t rows) {
    double value = count;
    if (s.rule.unit == "percent") value = rows == 0 ? 0 : 100.0 * count / rows;
    out->observed = value;
    if (!s.rule.Passes(value)) {
      out->outcome = OnFailure(s.rule.severity);
      out->message =
          fmt::format("observed {}{}, expected {}", value,
                      s.rule.unit == "percent" ? "%" : "", s.rule.ComparisonText());
    }
  }

  void Finish(ContractTestReport* r) {
    for (auto& check : rows_) {
      CheckResult& out = r->checks[check.result];
      if (out.outcome == CheckOutcome::kError) continue;
      out.violating_rows = check.violating;
      Judge(&out, specs_[check.spec], static_cast<double>(check.violating), r->rows);
    }
    for (auto& d : duplicates_) {
      CheckResult& out = r->checks[d.result];
      out.violating_rows = d.duplicates;
      out.samples = std::move(d.samples);
      Judge(&out, specs_[d.spec], static_cast<double>(d.duplicates), r->rows);
    }
    for (const auto& [index, spec] : row_count_checks_) {
      Judge(&r->checks[index], specs_[spec], static_cast<double>(r->rows), r->rows);
    }
    for (const auto& [index, spec] : sql_checks_) {
      CheckResult& out = r->checks[index];
      if (!options_.sql) {
        out.outcome = CheckOutcome::kError;
        out.message = "sql rules need the SQL engine (run from the CLI, SQL or Python)";
        continue;
      }
      auto value = options_.sql(specs_[spec].query);
      if (!value) {
        Fail(&out, value.error());
        continue;
      }
      Judge(&out, specs_[spec], *value, r->rows);
    }
  }

  const Contract& contract_;
  const ContractObject& object_;
  SnapshotRef snapshot_;
  const ContractTestOptions& options_;
  std::vector<ContractCheckSpec> specs_;
  std::vector<RowCheck> rows_;
  std::vector<DuplicateCheck> duplicates_;
  std::vector<std::pair<size_t, size_t>> row_count_checks_;
  std::vector<std::pair<size_t, size_t>> sql_checks_;
  std::set<std::string> columns_;
  std::set<std::string> scan_paths_;
};

}  // namespace

size_t ContractTestReport::Count(CheckOutcome o) const {
  return static_cast<size_t>(
      std::count_if(checks.begin(), checks.end(),
                    [o](const CheckResult& c) { return c.outcome == o; }));
}

Result<ContractTestReport> TestContract(const Contract& contract,
                                        const ContractObject& object,
                                        const SnapshotRef& snapshot,
                                        const ContractTestOptions& options) {
  return Tester(contract, object, snapshot, options).Run();
}

std::string ContractTestText(const ContractTestReport& r) {
  std::string out =
      fmt::format("contract {} {} ({}) on {} version {}: {} rows\n", r.contract_id,
                  r.contract_version, r.contract_file, r.table, r.version, r.rows);
  for (const auto& c : r.checks) {
    out +=
        fmt::format("  {:<8} {}: {}", CheckOutcomeName(c.outcome), c.id, c.description);
    if (c.observed) out += fmt::format(" [observed {}]", *c.observed);
    out += "\n";
    if (!c.message.empty() && c.outcome != CheckOutcome::kPassed) {
      out += "           " + c.message + "\n";
    } else if (!c.message.empty() && c.kind == "schema") {
      out += "           " + c.message + "\n";
    }
    for (const auto& s : c.samples) out += "           e.g. " + s + "\n";
  }
  out +=
      fmt::format("result: {} ({} passed, {} warning, {} failed, {} error, {} skipped)\n",
                  CheckOutcomeName(r.outcome), r.Count(CheckOutcome::kPassed),
                  r.Count(CheckOutcome::kWarning), r.Count(CheckOutcome::kFailed),
                  r.Count(CheckOutcome::kError), r.Count(CheckOutcome::kSkipped));
  return out;
}

std::string ContractTestJson(const ContractTestReport& r) {
  std::string out = "{";
  std::string contract = "{";
  AppendJsonField(&contract, "id", r.contract_id);
  AppendJsonField(&contract, "version", r.contract_version);
  AppendJsonField(&contract, "file", r.contract_file);
  AppendJsonRawField(&out, "contract", contract + "}");
  AppendJsonField(&out, "object", r.object);
  AppendJsonField(&out, "table", r.table);
  AppendJsonRawField(&out, "version", std::to_string(r.version));
  AppendJsonRawField(&out, "rows", std::to_string(r.rows));
  AppendJsonField(&out, "outcome", CheckOutcomeName(r.outcome));
  std::string counts = "{";
  for (CheckOutcome o :
       {CheckOutcome::kPassed, CheckOutcome::kWarning, CheckOutcome::kFailed,
        CheckOutcome::kError, CheckOutcome::kSkipped}) {
    AppendJsonRawField(&counts, CheckOutcomeName(o), std::to_string(r.Count(o)));
  }
  AppendJsonRawField(&out, "counts", counts + "}");
  std::string checks = "[";
  for (const auto& c : r.checks) {
    if (checks.size() > 1) checks += ",";
    std::string o = "{";
    AppendJsonField(&o, "id", c.id);
    AppendJsonField(&o, "description", c.description);
    AppendJsonField(&o, "kind", c.kind);
    AppendJsonField(&o, "property", c.property);
    AppendJsonField(&o, "severity", c.severity);
    AppendJsonField(&o, "outcome", CheckOutcomeName(c.outcome));
    AppendJsonRawField(&o, "observed",
                       c.observed ? fmt::format("{}", *c.observed) : std::string("null"));
    AppendJsonField(&o, "threshold", c.threshold);
    AppendJsonRawField(&o, "violating_rows", std::to_string(c.violating_rows));
    std::string samples;
    AppendJsonStringArray(c.samples, &samples);
    AppendJsonRawField(&o, "samples", samples);
    AppendJsonField(&o, "message", c.message);
    checks += o + "}";
  }
  AppendJsonRawField(&out, "checks", checks + "]");
  return out + "}";
}

std::string ContractTestJunit(const ContractTestReport& r) {
  std::string cases;
  for (const auto& c : r.checks) {
    cases += fmt::format("  <testcase classname=\"{}\" name=\"{}\"",
                         XmlEscape("contract." + r.contract_id), XmlEscape(c.id));
    switch (c.outcome) {
      case CheckOutcome::kFailed:
        cases += fmt::format("><failure message=\"{}\"/></testcase>\n",
                             XmlEscape(c.description + ": " + c.message));
        break;
      case CheckOutcome::kError:
        cases +=
            fmt::format("><error message=\"{}\"/></testcase>\n", XmlEscape(c.message));
        break;
      case CheckOutcome::kSkipped:
        cases +=
            fmt::format("><skipped message=\"{}\"/></testcase>\n", XmlEscape(c.message));
        break;
      default:
        cases += "/>\n";
    }
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"{}\" tests=\"{}\" "
      "failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n{}</testsuite>\n",
      XmlEscape("contract " + r.contract_id + " on " + r.table), r.checks.size(),
      r.Count(CheckOutcome::kFailed), r.Count(CheckOutcome::kError),
      r.Count(CheckOutcome::kSkipped), cases);
}

std::string ContractTestGithub(const ContractTestReport& r) {
  std::string out;
  for (const auto& c : r.checks) {
    const char* level =
        c.outcome == CheckOutcome::kFailed || c.outcome == CheckOutcome::kError ? "error"
        : c.outcome == CheckOutcome::kWarning ? "warning"
                                              : nullptr;
    if (level == nullptr) continue;
    out +=
        fmt::format("::{} title=contract {} {}::{}\n", level, GithubEscape(r.contract_id),
                    GithubEscape(c.id), GithubEscape(c.description + ": " + c.message));
  }
  return out;
}

}  // namespace deltaguard
