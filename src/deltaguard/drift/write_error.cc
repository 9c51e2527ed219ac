#include "deltaguard/drift/write_error.h"

#include <fmt/format.h>

#include <memory>
#include <string>
#include <utility>

#include "deltaguard/drift/report.h"

namespace deltaguard {

Error WithDriftChanges(Error error, const DriftSide& table, const StructType& input,
                       const std::vector<ColumnEvidence>& table_evidence) {
  if (error.code != ErrorCode::kSchemaMismatch || !table.schema) return error;
  DriftSide after;
  after.schema = std::make_shared<StructType>(input);
  DriftEvidence evidence;
  evidence.before = table_evidence;
  evidence.ignore_new_nullability = true;
  DriftSide before = table;
  // A write names no partitioning or constraints of its own: only columns compare.
  before.partition_columns.reset();
  before.constraints.reset();
  std::vector<DriftChange> changes = ClassifyDrift(before, after, evidence);
  if (changes.empty()) return error;
  std::string lines;
  for (const auto& change : changes) {
    lines += fmt::format("\n  {}", change.Summary());
    if (!change.info().option.empty()) {
      lines += fmt::format("; lets it through: {}", change.info().option);
    }
  }
  error.message += fmt::format(
      "\nThe changes from the table's schema to the input's (as `deltaguard drift` "
      "classifies them):{}",
      lines);
  error.details.emplace_back(std::string(kDriftChangesDetail), DriftChangesJson(changes));
  return error;
}

}  // namespace deltaguard
