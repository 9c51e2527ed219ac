// Enforcement hooks (enforcement.h).

#include "deltaguard/write/enforcement.h"

#include <string>
#include <utility>

namespace deltaguard {

Result<std::shared_ptr<ConstraintEnforcement>> ConstraintEnforcement::Make(
    const Metadata& metadata, const StructType& schema, std::string_view table) {
  DELTA_ASSIGN_OR_RETURN(auto checker,
                         ConstraintChecker::Make(metadata, schema, std::string(table)));
  return std::shared_ptr<ConstraintEnforcement>(
      new ConstraintEnforcement(std::move(checker)));
}

Status ConstraintEnforcement::OnBatch(std::shared_ptr<arrow::RecordBatch>* batch,
                                      const BatchInfo& /*info*/) {
  return checker_.Check(**batch);
}

Status ReplaceWhereCheck::OnBatch(std::shared_ptr<arrow::RecordBatch>* batch,
                                  const BatchInfo& info) {
  return predicate_->CheckRows(**batch, info.first_row);
}

}  // namespace deltaguard
