// ConformToContract and ContractForWrite (write/contract_write.h).

#include "deltaguard/write/contract_write.h"

#include <arrow/array.h>
#include <arrow/record_batch.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/contract/checks.h"
#include "deltaguard/contract/contract_schema.h"
#include "deltaguard/contract/diff.h"
#include "deltaguard/contract/parse.h"
#include "deltaguard/drift/write_error.h"
#include "deltaguard/evolution/type_rules.h"
#include "deltaguard/exec/constraint_checker.h"
#include "deltaguard/exec/expr_eval.h"
#include "deltaguard/expr/binder.h"
#include "deltaguard/expr/parser.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/txn/commit_info.h"
#include "deltaguard/util/report_format.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

// How one declared column is produced from the input.
struct ColumnPlan {
  std::string name;  // declared
  DataTypeRef type;  // declared
  bool required = false;
  int input = -1;     // input column index; -1: NULL
  BoundExprRef cast;  // null: the input column as it is
  /// strict casts that may lose digits: TRUE when the value survives the round trip
  BoundExprRef exact;
  std::vector<std::vector<std::string>> exact_columns;
  std::string what;  // "amount (string -> decimal(10,2))"
};

bool MayLoseDigits(const DataType& from, const DataType& to) {
  if (!from.is_numeric() || !to.is_numeric()) return false;
  return !IsLosslessWriteCast(from, to);
}

class ConformReader : public arrow::RecordBatchReader {
 public:
  ConformReader(std::shared_ptr<arrow::RecordBatchReader> input,
                std::shared_ptr<arrow::Schema> schema,
                std::shared_ptr<const std::vector<ColumnPlan>> plan,
                std::shared_ptr<ContractWriteReport> report, std::string label,
                CastPolicy policy, int64_t max_nulls, std::vector<int> kept,
                bool route_row_rules, std::shared_ptr<const ConstraintChecker> rules)
      : input_(std::move(input)),
        schema_(std::move(schema)),
        plan_(std::move(plan)),
        report_(std::move(report)),
        label_(std::move(label)),
        policy_(policy),
        max_nulls_(max_nulls),
        kept_(std::move(kept)),
        route_row_rules_(route_row_rules),
        rules_(std::move(rules)) {}

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(input_->ReadNext(&batch));
    if (!batch) {
      *out = nullptr;
      return arrow::Status::OK();
    }
    auto conformed = Conform(*batch);
    if (!conformed) return internal::ToArrowStatus(conformed.error());
    *out = std::move(*conformed);
    return arrow::Status::OK();
  }

 private:
  Result<std::shared_ptr<arrow::RecordBatch>> Conform(const arrow::RecordBatch& batch) {
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (size_t i = 0; i < plan_->size(); ++i) {
      const ColumnPlan& c = (*plan_)[i];
      DELTA_ASSIGN_OR_RETURN(auto array, Column(c, i, batch));
      if (c.required && !route_row_rules_ && array->null_count() > 0) {
        return MakeError(ErrorCode::kConstraintViolation,
                         "{}: required column '{}' holds {} NULL value{} in the input",
                         label_, c.name, array->null_count(),
                         array->null_count() == 1 ? "" : "s");
      }
      columns.push_back(std::move(array));
    }
    for (int i : kept_) columns.push_back(batch.column(i));
    auto out = arrow::RecordBatch::Make(schema_, batch.num_rows(), std::move(columns));
    if (rules_ && !route_row_rules_) DELTA_RETURN_IF_ERROR(CheckRules(*out));
    return out;
  }

  // The contract's row rules (accepted values, ranges, ...) on the conformed rows.
  Status CheckRules(const arrow::RecordBatch& batch) const {
    DELTA_ASSIGN_OR_RETURN(auto violation, rules_->FirstViolation(batch));
    if (!violation) return OkStatus();
    Error e = MakeError(
        ErrorCode::kConstraintViolation,
        "{}; nothing was written (rows breaking the contract's rules can "
        "be routed to a quarantine table instead: --on-violation "
        "quarantine=QTABLE)",
        DescribeViolation("contract rule " + violation->constraint, *violation));
    e.details = ViolationDetails(*violation);
    return e;
  }

  Result<std::shared_ptr<arrow::Array>> Column(const ColumnPlan& c, size_t index,
                                               const arrow::RecordBatch& batch) {
    auto field = schema_->field(static_cast<int>(index));
    if (c.input < 0) {
      DELTA_ARROW_ASSIGN_OR_RETURN(
          auto nulls, arrow::MakeArrayOfNull(field->type(), batch.num_rows()),
          ErrorCode::kInternal, "a NULL column");
      return nulls;
    }
    auto source = batch.column(c.input);
    if (!c.cast) return source;
    if (c.exact) {
      std::vector<std::string> samples;
      DELTA_ASSIGN_OR_RETURN(
          int64_t lost,
          CountPredicateViolations(*c.exact, c.exact_columns, batch, 3, &samples));
      if (lost > 0) {
        std::string listed;
        for (const auto& s : samples) listed += (listed.empty() ? "" : ", ") + s;
        return MakeError(ErrorCode::kConstraintViolation,
                         "{}: casting {} would lose digits in {} value{}, e.g. {} "
                         "(castPolicy strict; a contract with castPolicy try rounds)",
                         label_, c.what, lost, lost == 1 ? "" : "s", listed);
      }
    }
    auto cast = Evaluate(*c.cast, batch);
    if (!cast) {
      return WithContext(cast.error(), fmt::format("{}: casting {} (castPolicy strict)",
                                                   label_, c.what));
    }
    std::shared_ptr<arrow::Array> array = std::move(*cast);
    if (policy_ == CastPolicy::kTry) {
      int64_t introduced = array->null_count() - source->null_count();
      if (introduced > 0) {
        std::lock_guard<std::mutex> lock(report_->mutex);
        int64_t total = 0;
        for (auto& [name, n] : report_->cast_nulls) {
          if (name == c.name) n += introduced;
          total += n;
        }
        if (total > max_nulls_) {
          return MakeError(
              ErrorCode::kConstraintViolation,
              "{}: casting {} turned {} value{} into NULL so far; the contract allows {} "
              "(castPolicy try, maxCastNulls {})",
              label_, c.what, total, total == 1 ? "" : "s", max_nulls_, max_nulls_);
        }
      }
    }
    return array;
  }

  std::shared_ptr<arrow::RecordBatchReader> input_;
  std::shared_ptr<arrow::Schema> schema_;
  std::shared_ptr<const std::vector<ColumnPlan>> plan_;
  std::shared_ptr<ContractWriteReport> report_;
  std::string label_;
  CastPolicy policy_;
  int64_t max_nulls_;
  std::vector<int> kept_;  // undeclared input columns kept (keep_undeclared)
  bool route_row_rules_;
  std::shared_ptr<const ConstraintChecker> rules_;  // null: the contract has none
};

int FindInput(const StructType& input, const ContractProperty& p, std::string* via) {
  int i = input.FieldIndexCaseInsensitive(p.name);
  if (i >= 0) return i;
  for (const auto& alias : p.aliases) {
    i = input.FieldIndexCaseInsensitive(alias);
    if (i >= 0) {
      *via = alias;
      return i;
    }
  }
  return -1;
}

}  // namespace

Result<BatchSource> ConformToContract(BatchSource input, const Contract& contract,
                                      const ContractObject& object,
                                      std::shared_ptr<ContractWriteReport> report,
                                      const ContractConformOptions& options) {
  const std::string label = fmt::format("contract {} {}", contract.id, contract.version);
  SchemaRef in = input.delta_schema;
  if (!in) {
    DELTA_ASSIGN_OR_RETURN(in, FromArrowSchema(*input.schema));
  }
  DELTA_ASSIGN_OR_RETURN(SchemaRef declared, ContractSchema(object));
  report->contract_id = contract.id;
  report->contract_version = contract.version;

  auto plan = std::make_shared<std::vector<ColumnPlan>>();
  std::vector<bool> used(in->num_fields(), false);
  std::vector<std::string> missing;
  std::vector<std::string> uncastable;
  for (const auto& p : object.properties) {
    ColumnPlan c;
    c.name = p.name;
    c.type = p.type;
    c.required = p.required;
    std::string via;
    c.input = FindInput(*in, p, &via);
    if (c.input < 0) {
      if (p.required) missing.push_back(p.name);
      plan->push_back(std::move(c));
      continue;
    }
    used[static_cast<size_t>(c.input)] = true;
    const StructField& f = in->field(static_cast<size_t>(c.input));
    if (!via.empty())
      report->renamed.push_back(fmt::format("{} -> {} (alias)", via, p.name));
    if (!f.type->Equals(*p.type)) {
      c.what =
          fmt::format("'{}' ({} -> {})", f.name, f.type->ToString(), p.type->ToString());
      std::string col = QuoteIdentifier(f.name);
      std::string fn = contract.cast_policy == CastPolicy::kTry ? "TRY_CAST" : "CAST";
      auto parsed =
          ParseExpression(fmt::format("{}({} AS {})", fn, col, TypeToSql(*p.type)));
      Result<BoundExprRef> bound =
          parsed ? Bind(**parsed, *in) : Result<BoundExprRef>(parsed.error());
      if (!bound) {
        uncastable.push_back(fmt::format("{}: {}", c.what, bound.error().message));
        plan->push_back(std::move(c));
        continue;
      }
      c.cast = std::move(*bound);
      if (contract.cast_policy == CastPolicy::kStrict &&
          MayLoseDigits(*f.type, *p.type)) {
        auto check = ParseExpression(
            fmt::format("{} IS NULL OR CAST(CAST({} AS {}) AS {}) = {}", col, col,
                        TypeToSql(*p.type), TypeToSql(*f.type), col));
        if (check) {
          auto b = BindPredicate(**check, *in);
          if (b) {
            c.exact_columns = ReferencedColumns(**b);
            c.exact = std::move(*b);
          }
        }
      }
      report->cast_columns.push_back(
          fmt::format("{}: {} -> {}", p.name, f.type->ToString(), p.type->ToString()));
      if (contract.cast_policy == CastPolicy::kTry)
        report->cast_nulls.emplace_back(p.name, 0);
    }
    plan->push_back(std::move(c));
  }
  for (size_t i = 0; i < in->num_fields(); ++i) {
    if (!used[i]) report->ignored_columns.push_back(in->field(i).name);
  }
  if (!missing.empty() || !uncastable.empty()) {
    std::string why;
    for (const auto& m : missing)
      why += fmt::format("\n  required column '{}' is missing", m);
    for (const auto& u : uncastable) why += "\n  no cast for " + u;
    DriftSide side;
    side.schema = declared;
    Error e =
        MakeError(ErrorCode::kSchemaMismatch,
                  "{}: input '{}' does not fit the contract; nothing was written:{}",
                  label, input.name, why);
    return WithDriftChanges(std::move(e), side, *in);
  }
  std::vector<StructField> fields;
  for (const auto& f : declared->fields())
    fields.push_back({f.name, f.type, true, f.metadata});
  std::vector<int> kept;
  if (options.keep_undeclared) {
    for (size_t i = 0; i < in->num_fields(); ++i) {
      if (used[i]) continue;
      const StructField& f = in->field(i);
      if (declared->FieldIndexCaseInsensitive(f.name) >= 0) {
        return MakeError(ErrorCode::kSchemaMismatch,
                         "{}: input '{}' has column '{}' beside the one the contract "
                         "maps to '{}' (by an alias); rename or drop one of them",
                         label, input.name, f.name, f.name);
      }
      fields.push_back({f.name, f.type, true, f.metadata});
      kept.push_back(static_cast<int>(i));
    }
  }
  auto conformed_delta = std::make_shared<StructType>(std::move(fields));
  DELTA_ASSIGN_OR_RETURN(auto arrow_schema, ToArrowSchema(*conformed_delta));
  std::shared_ptr<const ConstraintChecker> rules;
  if (!options.route_row_rules) {
    std::vector<BoundConstraint> bound;
    for (const Constraint& c : ContractRowConstraints(contract, object, false)) {
      auto b = BindConstraint(c, *conformed_delta);
      if (!b) return WithContext(b.error(), fmt::format("{}: {}", label, c.Describe()));
      bound.push_back(std::move(*b));
    }
    if (!bound.empty()) {
      rules = std::make_shared<const ConstraintChecker>(
          std::move(bound), std::vector<CharVarcharLimit>{}, label);
    }
  }

  BatchSource out;
  out.name = input.name;
  out.schema = arrow_schema;
  out.delta_schema = conformed_delta;
  out.by_position = false;
  auto open = input.open;
  CastPolicy policy = contract.cast_policy;
  int64_t max_nulls = contract.max_cast_nulls;
  bool routed = options.route_row_rules;
  out.open = [open, arrow_schema, plan, report, label, policy, max_nulls, kept, routed,
              rules]() -> Result<std::shared_ptr<arrow::RecordBatchReader>> {
    DELTA_ASSIGN_OR_RETURN(auto reader, open());
    return std::shared_ptr<arrow::RecordBatchReader>(
        std::make_shared<ConformReader>(std::move(reader), arrow_schema, plan, report,
                                        label, policy, max_nulls, kept, routed, rules));
  };
  return out;
}

std::vector<Constraint> ContractRowConstraints(const Contract& contract,
                                               const ContractObject& object,
                                               bool include_required) {
  const std::string of = fmt::format(" ({} {})", contract.id, contract.version);
  std::vector<Constraint> out;
  for (const auto& p : object.properties) {
    if (!p.required || !include_required) continue;
    out.push_back(Constraint{ConstraintKind::kContractRule, p.name + ".required" + of,
                             QuoteIdentifier(p.name) + " IS NOT NULL"});
  }
  for (const auto& spec : PlanContractChecks(object, "")) {
    if (!spec.as_constraint) continue;
    out.push_back(
        Constraint{ConstraintKind::kContractRule, spec.id + of, spec.predicate});
  }
  return out;
}

ContractWriteSummary FinishContractWrite(const Contract& contract,
                                         const ContractWriteReport& report,
                                         OperationInfo* op,
                                         std::vector<std::string>* warnings) {
  ContractWriteSummary summary{contract.id,
                               contract.version,
                               std::string(MedallionLayerName(contract.layer)),
                               report.ignored_columns,
                               report.renamed,
                               report.cast_columns,
                               report.cast_nulls};
  op->parameters_json.emplace_back(
      "contract", JsonQuote(fmt::format("{} {}", contract.id, contract.version)));
  if (!summary.ignored_columns.empty()) {
    std::string ignored;
    AppendJsonStringArray(summary.ignored_columns, &ignored);
    op->parameters_json.emplace_back("contractIgnoredColumns", JsonQuote(ignored));
    warnings->push_back(fmt::format(
        "contract {} {}: new upstream column{} ignored (not in the contract): {}",
        contract.id, contract.version, summary.ignored_columns.size() == 1 ? "" : "s",
        fmt::join(summary.ignored_columns, ", ")));
  }
  return summary;
}

SchemaRef ContractTypeHint(const Contract& contract, const ContractObject& object) {
  std::vector<StructField> fields;
  for (const auto& p : object.properties) {
    if (!p.type) continue;
    // castPolicy try: only strings are hinted ("007" stays "007"); other columns are
    // inferred and the contract's TRY_CAST decides.
    if (contract.cast_policy == CastPolicy::kTry && p.type->kind() != TypeKind::kString) {
      continue;
    }
    fields.push_back({p.name, p.type, true, {}});
    for (const auto& alias : p.aliases) fields.push_back({alias, p.type, true, {}});
  }
  return std::make_shared<StructType>(std::move(fields));
}

std::string ContractWriteSummaryJson(const ContractWriteSummary& s) {
  std::string out = "{";
  AppendJsonField(&out, "id", s.id);
  AppendJsonField(&out, "version", s.version);
  AppendJsonField(&out, "layer", s.layer);
  auto list = [](const std::vector<std::string>& v) {
    std::string text;
    AppendJsonStringArray(v, &text);
    return text;
  };
  AppendJsonRawField(&out, "ignored_columns", list(s.ignored_columns));
  AppendJsonRawField(&out, "renamed", list(s.renamed));
  AppendJsonRawField(&out, "cast_columns", list(s.cast_columns));
  std::string nulls = "{";
  for (const auto& [column, n] : s.cast_nulls) {
    AppendJsonRawField(&nulls, column, std::to_string(n));
  }
  AppendJsonRawField(&out, "cast_nulls", nulls + "}");
  return out + "}";
}

Result<std::shared_ptr<const Contract>> ContractForWrite(
    const Snapshot* snapshot, std::shared_ptr<const Contract> given) {
  if (snapshot == nullptr) return given;
  auto yaml = snapshot->metadata().GetConfig(kContractYamlProperty);
  if (!yaml) return given;
  std::string label =
      fmt::format("the contract table '{}' carries", snapshot->table_root());
  auto carried = LoadContractText(*yaml, label);
  if (!carried) {
    return WithContext(
        carried.error(),
        fmt::format("table '{}' carries a contract ({}) that does not load",
                    snapshot->table_root(), kContractYamlProperty));
  }
  auto table_contract = std::make_shared<const Contract>(std::move(*carried));
  if (!given || given->hash == table_contract->hash) return table_contract;
  DELTA_ASSIGN_OR_RETURN(
      ContractDiff diff,
      DiffContracts(*table_contract, *given, EffectiveCompatibility(*table_contract)));
  if (diff.compatible) return given;
  std::string listed;
  for (const auto& c : diff.changes) {
    if (c.breaks) listed += fmt::format("\n  {} {}: {}", c.cls, c.path, c.reason);
  }
  return MakeError(ErrorCode::kSchemaMismatch,
                   "table '{}' carries contract {} {}; writing under {} {} is refused: "
                   "the change is not {}:{}\nApply the new version first (deltaguard "
                   "contract apply TABLE FILE) when the change is intended",
                   snapshot->table_root(), table_contract->id, table_contract->version,
                   given->id, given->version,
                   CompatModeName(EffectiveCompatibility(*table_contract)), listed);
}

}  // namespace deltaguard
