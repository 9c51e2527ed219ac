/// \file deltaguard/drift/write_error.h
/// A refused write speaks drift's language (docs/drift.md "Refused writes"): the
/// schema error of a write or MERGE is completed with the classified changes from the
/// table's schema to the input's, the classes `deltaguard drift` reports, so a refused
/// write and `drift` never disagree on what changed.
#pragma once

#include <string_view>
#include <vector>

#include "deltaguard/drift/classify.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// The key of the Error::details entry holding the changes as a JSON array
/// (DriftChangesJson): front ends build typed changes from it (Python's
/// SchemaMismatchError.changes).
inline constexpr std::string_view kDriftChangesDetail = "drift_changes";

/// `error` with the changes from `table` to `input` (classified as a data input: the
/// input's nullability is ignored) appended to its message, one line each, and as the
/// kDriftChangesDetail detail. Only kSchemaMismatch errors are completed; others, and
/// a comparison that finds no change, come back unchanged. `table_evidence` (add
/// statistics) feeds the rename suspicion; the input has no value evidence because a
/// write decides its schema before it reads a row.
Error WithDriftChanges(Error error, const DriftSide& table, const StructType& input,
                       const std::vector<ColumnEvidence>& table_evidence = {});

}  // namespace deltaguard
