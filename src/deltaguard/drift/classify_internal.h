/// \file deltaguard/drift/classify_internal.h
/// Pieces of the classifier shared between classify.cc and rename.cc.
#pragma once

#include <vector>

#include "deltaguard/drift/classify.h"
#include "deltaguard/schema/schema_diff.h"

namespace deltaguard {

/// TYPE_WIDENED when Delta's type widening (evolution/type_rules.h) or a lossless write
/// cast takes `from` to `to`, TYPE_NARROWED for the reverse, else
/// TYPE_CHANGED_INCOMPATIBLE. Primitive types.
ChangeClass ClassifyPrimitiveChange(const DataType& from, const DataType& to);

/// Append the classified change(s) of one DiffSchemas entry.
void ClassifyEntry(const SchemaDiffEntry& entry, const DriftEvidence& evidence,
                   const std::vector<ColumnEvidence>& before_evidence,
                   std::vector<DriftChange>* out);

/// Append COLUMN_RENAME_SUSPECTED for pairs of a removed (or newly all-NULL) column and
/// an added one in the same struct with compatible types, best score first, each
/// column in at most one pair, scores at least kRenameSuspicionThreshold.
void AppendRenameSuspicions(const DriftSide& before, const DriftSide& after,
                            const std::vector<SchemaDiffEntry>& entries,
                            const DriftEvidence& evidence, std::vector<DriftChange>* out);

}  // namespace deltaguard
