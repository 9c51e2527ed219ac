/// \file deltaguard/table/table_report.h
/// What `describe` and `history` report about a table, rendered once for every front
/// end: the CLI prints these texts and Python parses the JSON form, so both give the
/// same answers. The JSON forms are stable (README, CLI reference).
#pragma once

#include <string>
#include <string_view>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

enum class ReportFormat { kText, kJson };

/// "text" or "json" (case-insensitive); anything else is kInvalidArgument.
Result<ReportFormat> ParseReportFormat(std::string_view text);

/// Everything a person needs to know about the table at the snapshot's version: name,
/// version and time, protocol and features, column mapping, partitioning, files, rows
/// (from statistics or Parquet footers; "unknown" with the reason when a file without
/// statistics is missing), checkpoint, properties and the schema tree.
Result<std::string> DescribeReport(const Snapshot& snapshot, ReportFormat format);

/// One entry per commit, oldest first: version, time, operation and its parameters,
/// engine, and what the commit changed in the schema and in the table's metadata
/// (evolution/table_diff.h). Reads the commit files only (old checkpoints may be gone).
/// Any unreadable commit fails the whole report (nothing partial is returned).
/// The JSON form has a `drift` member per version: the classified changes of a commit
/// that logged a new metaData (drift/classify.h, docs/drift.md), with COLUMN_ALL_NULL
/// evidence from that commit's add statistics (the only commits whose actions are
/// read twice). `drift_lines` adds them to the text form as "drift:" lines.
Result<std::string> HistoryReport(const FileSystem& fs, const std::string& table_root,
                                  ReportFormat format, bool drift_lines = false);

}  // namespace deltaguard
