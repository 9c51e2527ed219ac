// InitContract (table/contract_init.h): the table's schema and constraints as a
// contract, plus proposals from the add statistics and a bounded scan.

#include "deltaguard/table/contract_init.h"

#include <arrow/array.h>
#include <arrow/record_batch.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "deltaguard/constraints/constraints.h"
#include "deltaguard/contract/emit.h"
#include "deltaguard/contract/lint.h"
#include "deltaguard/drift/evidence.h"
#include "deltaguard/exec/result_format.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

struct Distinct {
  std::set<std::string> values;
  bool overflow = false;
};

// The distinct strings of each top-level STRING column over at most `limit` rows;
// `complete` says whether the whole table was read.
Result<std::map<std::string, Distinct>> DistinctStrings(const Snapshot& snapshot,
                                                        const ContractInitOptions& o,
                                                        bool* complete) {
  std::map<std::string, Distinct> out;
  ScanOptions scan;
  for (const auto& f : snapshot.schema()->fields()) {
    if (f.type->kind() == TypeKind::kString) scan.columns.push_back(f.name);
  }
  *complete = true;
  if (scan.columns.empty() || snapshot.files().empty()) return out;
  scan.limit = o.sample_rows + 1;
  auto shared = std::make_shared<const Snapshot>(snapshot);
  DELTA_ASSIGN_OR_RETURN(auto reader, TableScan::Make(shared, scan));
  int64_t rows = 0;
  while (true) {
    DELTA_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) break;
    int64_t take = std::min<int64_t>(batch->num_rows(), o.sample_rows - rows);
    if (take < batch->num_rows()) *complete = false;
    for (int c = 0; c < batch->num_columns(); ++c) {
      Distinct& d = out[batch->schema()->field(c)->name()];
      if (d.overflow) continue;
      const arrow::Array& array = *batch->column(c);
      for (int64_t r = 0; r < take && !d.overflow; ++r) {
        if (array.IsNull(r)) continue;
        std::string v;
        AppendTextValue(array, r, /*csv=*/true, &v);
        d.values.insert(std::move(v));
        d.overflow = d.values.size() > o.max_accepted_values;
      }
    }
    rows += take;
    if (rows >= o.sample_rows) break;
  }
  return out;
}

}  // namespace

Result<std::string> InitContract(const Snapshot& snapshot,
                                 const ContractInitOptions& options) {
  std::string base = std::filesystem::path(snapshot.table_root()).filename().string();
  if (base.empty()) base = "table";
  Contract c;
  c.id = options.id.empty() ? base : options.id;
  c.name = options.name.empty() ? base : options.name;
  c.version = options.version;
  c.status = "draft";
  c.description = snapshot.metadata().description.value_or("");
  ContractObject o;
  o.id = base + "_obj";
  o.name = base;
  o.physical_name = base;
  o.physical_type = "table";
  EmitComments comments;

  std::vector<const AddFile*> files;
  for (const auto& f : snapshot.files()) files.push_back(&f);
  std::map<std::string, ColumnEvidence> stats;
  for (auto& e : EvidenceFromAddStats(*snapshot.schema(), files)) {
    stats[e.path] = std::move(e);
  }
  bool complete = true;
  DELTA_ASSIGN_OR_RETURN(auto distinct, DistinctStrings(snapshot, options, &complete));

  const auto& partitions = snapshot.metadata().partition_columns;
  for (const auto& f : snapshot.schema()->fields()) {
    ContractProperty p;
    p.id = f.name;
    p.name = f.name;
    p.physical_type = CatalogTypeString(*f.type);
    p.logical_type = std::string(LogicalTypeOf(*f.type));
    p.required = !f.nullable;
    p.description = f.metadata.GetString("comment").value_or("");
    for (size_t i = 0; i < partitions.size(); ++i) {
      if (EqualsIgnoreCase(partitions[i], f.name)) {
        p.partitioned = true;
        p.partition_key_position = static_cast<int>(i) + 1;
      }
    }
    // A numeric column never below zero in any file's statistics gets `minimum: 0`
    // (amounts, counts, ids); the observed maximum is only mentioned, since new data
    // grows past it.
    auto s = stats.find(f.name);
    if (f.type->is_numeric() && s != stats.end() && s->second.min && s->second.max &&
        s->second.num_records && std::strtod(s->second.min->c_str(), nullptr) >= 0) {
      p.minimum = "0";
      comments[f.name] = fmt::format(
          "proposed from the data: never negative; observed range [{}, {}] in the "
          "statistics of all {} file{}",
          *s->second.min, *s->second.max, files.size(), files.size() == 1 ? "" : "s");
    }
    auto d = distinct.find(f.name);
    if (d != distinct.end() && !d->second.overflow && !d->second.values.empty()) {
      QualityRule r;
      r.id = f.name + "_accepted_values";
      r.metric = "invalidValues";
      r.valid_values.assign(d->second.values.begin(), d->second.values.end());
      r.op = "mustBe";
      r.operands = {0};
      r.dimension = "conformity";
      r.severity = complete ? "error" : "warning";
      comments[f.name + "#" + r.id] = fmt::format(
          "proposed from the data: {} distinct value{} in {}; a new value is a semantic "
          "change to review (docs/contracts.md)",
          r.valid_values.size(), r.valid_values.size() == 1 ? "" : "s",
          complete ? "every row" : fmt::format("the first {} rows", options.sample_rows));
      p.quality.push_back(std::move(r));
    }
    o.properties.push_back(std::move(p));
  }
  // CHECK constraints: rows violating one must stay at zero.
  for (const auto& k : CheckConstraints(snapshot.metadata())) {
    QualityRule r;
    r.id = "check_" + k.name;
    r.type = "sql";
    r.description = "CHECK constraint " + k.name + " of the table";
    r.query =
        "SELECT COUNT(*) FROM {object} WHERE NOT coalesce(" + k.expression + ", false)";
    r.op = "mustBe";
    r.operands = {0};
    o.quality.push_back(std::move(r));
  }
  QualityRule rows;
  rows.id = base + "_row_count";
  rows.metric = "rowCount";
  rows.op = "mustBeGreaterThan";
  rows.operands = {0};
  rows.severity = "warning";
  o.quality.insert(o.quality.begin(), std::move(rows));
  c.schema.push_back(std::move(o));
  if (options.layer != MedallionLayer::kNone) {
    c.custom_properties.emplace_back("medallionLayer",
                                     std::string(MedallionLayerName(options.layer)));
    c.layer = options.layer;
    c.custom_properties.emplace_back(
        "compatibility", std::string(CompatModeName(EffectiveCompatibility(c))));
  }
  std::string header = fmt::format(
      "Data contract for {} (version {} of the table), written by `deltaguard contract "
      "init`.\nLines below '# proposed ...' comments come from the data, not from the "
      "table's definition: review them.",
      snapshot.table_root(), snapshot.version());
  return ContractToYaml(c, comments, header);
}

}  // namespace deltaguard
