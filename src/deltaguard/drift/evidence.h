/// \file deltaguard/drift/evidence.h
/// Evidence for the heuristic classes from what the log already holds: the per-file
/// statistics of add actions (log/add_stats.h), summed and bounded per top-level column.
/// No data file is read (docs/drift.md "Evidence").
#pragma once

#include <vector>

#include "deltaguard/drift/classify.h"
#include "deltaguard/log/actions.h"

namespace deltaguard {

/// Per top-level primitive column of `schema`: the sum of nullCount and numRecords and
/// the least min / greatest max over `files` (statistics keyed by the physical name
/// when the column has one, i.e. under column mapping). A file without usable
/// statistics for a column leaves that column's counts unknown (a partial sum would
/// claim "all NULL" falsely); min/max come from the files that have them. Numbers
/// compare as numbers, strings byte-wise; other values are left out.
std::vector<ColumnEvidence> EvidenceFromAddStats(
    const StructType& schema, const std::vector<const AddFile*>& files);

}  // namespace deltaguard
