/// \file deltaguard/quality/profile_table.h
/// The rows of the profile table (docs/profiles.md "Storage"): one row per commit and
/// profiled leaf, in a Delta table of its own at `<table>/_deltaguard/profiles`, so
/// Spark and deltaguard SQL read it like any table while Delta readers of the main
/// table never see it (it is not in the main table's log) and VACUUM leaves it alone
/// (a directory whose name starts with `_` is not table data, PROTOCOL.md).
///
/// Columns: version, committed_at, operation, table_rows (of the commit), column,
/// type, kind, rows, nulls, numeric_count, min, max, mean, m2, zeros, hours
/// (ARRAY<LONG>, 24 or empty), min_length, max_length, total_length, min_text,
/// max_text, sampled, and the sketches as BINARY in DataSketches' formats: quantiles
/// (KLL), distinct (HLL), top and patterns (frequent items); profiler_version.
/// Everything a baseline needs is there, so checks never re-read the data.
#pragma once

#include <arrow/record_batch.h>

#include <memory>
#include <string>
#include <vector>

#include "deltaguard/quality/profile.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// Where the profile table of the table at `table_root` lives.
std::string ProfileTablePath(const std::string& table_root);

/// The layout of profile rows this build writes (profiler_version).
inline constexpr int32_t kProfilerVersion = 1;

/// The Delta schema of the profile table.
SchemaRef ProfileTableSchema();

/// `profile` as rows of the profile table (one per column).
Result<std::shared_ptr<arrow::RecordBatch>> ProfileRows(const TableProfile& profile);

/// The profiles held by rows of the profile table (any order, any number of batches),
/// one per version, ascending. kCorruptData naming the version and column when a row
/// does not decode (a sketch that does not deserialize, a bad hour histogram). Only
/// the rows of versions in [from, to] (to < 0: no upper bound) are decoded.
/// `number_distinct` false leaves the distinct-count sketch of numbers, dates and
/// timestamps empty: a check never reads it (only the category detectors read a
/// distinct count, of strings and booleans) and decoding hundreds of them is most of a
/// long baseline's read.
Result<std::vector<TableProfile>> ProfilesFromRows(
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches, int64_t from = 0,
    int64_t to = -1, bool number_distinct = true);

}  // namespace deltaguard
