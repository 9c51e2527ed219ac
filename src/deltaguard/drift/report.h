/// \file deltaguard/drift/report.h
/// A drift report (two labelled schemas, their classified changes, an optional
/// verdict) and its renderings: text, the stable JSON object (docs/drift.md "JSON"),
/// Markdown, JUnit XML and GitHub workflow commands. Pure string functions, so the CLI,
/// SQL and the Python package print the same thing.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/drift/change.h"
#include "deltaguard/drift/compat.h"
#include "deltaguard/schema/data_type.h"

namespace deltaguard {

/// A CSV/JSON input column whose type was inferred, and what a write would do to it.
struct InferredColumn {
  std::string column;
  std::string inferred_type;  ///< what the reader inferred (Delta type name)
  std::string table_type;     ///< the table column's type, "" for a new column
  /// "none" (same type), "lossless cast", "type widening", "not castable", or "new
  /// column".
  std::string cast;
};

/// Which changes fail a run (`--fail-on`): breaking = those the verdict lists (the
/// mode, BACKWARD when none was chosen); high = risk high or very high; any = any.
enum class FailBar : uint8_t { kBreaking, kHigh, kAny };
Result<FailBar> ParseFailBar(std::string_view name);
std::string_view FailBarName(FailBar bar);

struct DriftReport {
  std::string before_label;  ///< "events@v3", "schema text", "part-0.parquet"
  std::string after_label;
  SchemaRef before_schema;
  SchemaRef after_schema;
  std::vector<DriftChange> changes;
  Verdict verdict;  ///< mode kNone: no mode chosen
  FailBar fail_on = FailBar::kHigh;
  std::vector<InferredColumn> inferred;
};

/// Whether change `i` fails the report's bar.
bool ChangeFails(const DriftReport& report, size_t i);
/// Whether any change fails the bar (the CLI's exit code 1).
bool ReportFails(const DriftReport& report);

/// One change as a JSON object: class, path, old_path, before, after, risk, backward,
/// forward, spark, deltaguard, option, heuristic, score (null when not heuristic),
/// evidence. Field order is fixed.
std::string DriftChangeJson(const DriftChange& change);
/// A JSON array of DriftChangeJson objects.
std::string DriftChangesJson(const std::vector<DriftChange>& changes);

/// The whole report, one line: {"before":{"label","schema"},"after":{..},"changes":[..],
/// "verdict":{"mode","compatible","breaking":[{"change","direction","reason"}]} or
/// null,"fail_on","fails","inferred":[..]}.
std::string DriftReportJson(const DriftReport& report);
/// The two schemas side by side (evolution/schema_format.h), then one line per change
/// with its risk, what happens on append and the way forward, then the verdict.
std::string DriftReportText(const DriftReport& report);
std::string DriftReportMarkdown(const DriftReport& report);
/// One test case per change (failed when it fails the bar); one passing case when
/// nothing changed.
std::string DriftReportJunit(const DriftReport& report);
/// `::error` for each change that fails the bar, `::warning` for the others.
std::string DriftReportGithub(const DriftReport& report);

/// The report formats every front end offers (`--format`, Python's `render`).
enum class DriftReportFormat : uint8_t { kText, kJson, kMarkdown, kJunit, kGithub };
/// "text", "json", "markdown", "junit", "github" (case-insensitive); anything else is
/// kInvalidArgument naming them.
Result<DriftReportFormat> ParseDriftReportFormat(std::string_view name);
/// The report in `format` (JSON without a trailing newline).
std::string RenderDriftReport(const DriftReport& report, DriftReportFormat format);

}  // namespace deltaguard
