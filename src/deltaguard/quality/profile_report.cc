// Profile renderings (quality/profile_report.h).

#include "deltaguard/quality/profile_report.h"

#include <fmt/format.h>

#include <cmath>

#include "deltaguard/util/report_format.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

constexpr std::pair<const char*, double> kQuantiles[] = {
    {"p01", 0.01}, {"p05", 0.05}, {"p25", 0.25}, {"p50", 0.5},
    {"p75", 0.75}, {"p95", 0.95}, {"p99", 0.99}};

// A finite double as JSON (shortest round-trip form); NaN and infinities as null.
std::string Number(double v) {
  if (!std::isfinite(v)) return "null";
  return fmt::format("{}", v);
}

std::string TopJson(const TopValuesSketch& sketch) {
  std::string out = "[";
  for (const auto& t : sketch.Top(kProfileTopValues)) {
    if (out.size() > 1) out += ",";
    out += "{";
    AppendJsonField(&out, "value", t.value);
    AppendJsonRawField(&out, "count", std::to_string(t.count));
    out += "}";
  }
  return out + "]";
}

bool Numeric(const ColumnProfile& c) {
  return c.kind == ProfileKind::kNumber || c.kind == ProfileKind::kDate ||
         c.kind == ProfileKind::kTimestamp;
}

std::string ColumnJson(const ColumnProfile& c) {
  std::string out = "{";
  AppendJsonField(&out, "type", c.type);
  AppendJsonField(&out, "kind", ProfileKindName(c.kind));
  AppendJsonRawField(&out, "rows", std::to_string(c.rows));
  AppendJsonRawField(&out, "nulls", std::to_string(c.nulls));
  AppendJsonRawField(&out, "null_rate", Number(c.null_rate()));
  if (c.cast_nulls > 0) {
    AppendJsonRawField(&out, "cast_nulls", std::to_string(c.cast_nulls));
  }
  if (Numeric(c)) {
    AppendJsonRawField(&out, "min", Number(c.min));
    AppendJsonRawField(&out, "max", Number(c.max));
    AppendJsonRawField(&out, "mean", c.numeric_count ? Number(c.mean) : "null");
    AppendJsonRawField(&out, "stddev", c.numeric_count ? Number(c.stddev()) : "null");
    AppendJsonRawField(&out, "zeros", std::to_string(c.zeros));
    std::string q = "{";
    for (const auto& [name, rank] : kQuantiles) {
      AppendJsonRawField(&q, name, Number(c.quantiles.Quantile(rank)));
    }
    AppendJsonRawField(&out, "quantiles", q + "}");
  }
  AppendJsonRawField(
      &out, "distinct",
      std::to_string(static_cast<int64_t>(std::llround(c.distinct.Estimate()))));
  if (c.kind == ProfileKind::kString || c.kind == ProfileKind::kBoolean) {
    AppendJsonRawField(&out, "top", TopJson(c.top));
  }
  if (c.has_hours()) {
    std::string h = "[";
    for (size_t i = 0; i < c.hours.size(); ++i) {
      h += (i ? "," : "") + std::to_string(c.hours[i]);
    }
    AppendJsonRawField(&out, "hours", h + "]");
  }
  if (c.kind == ProfileKind::kString) {
    std::string len = "{";
    AppendJsonRawField(&len, "min",
                       c.max_length >= 0 ? std::to_string(c.min_length) : "null");
    AppendJsonRawField(&len, "max",
                       c.max_length >= 0 ? std::to_string(c.max_length) : "null");
    AppendJsonRawField(&len, "mean", c.non_null() ? Number(c.mean_length()) : "null");
    AppendJsonRawField(&out, "length", len + "}");
    AppendJsonRawField(&out, "patterns", TopJson(c.patterns));
    if (c.max_length >= 0) {
      AppendJsonField(&out, "min_text", c.min_text);
      AppendJsonField(&out, "max_text", c.max_text);
    }
  }
  AppendJsonRawField(&out, "sampled", std::to_string(c.sampled));
  return out + "}";
}

bool Selected(const ColumnProfile& c, const std::optional<std::string>& column) {
  return !column || EqualsIgnoreCase(c.column, *column) ||
         StartsWithIgnoreCase(c.column, *column + ".");
}

std::string Cell(const ColumnProfile& c) {
  std::string top;
  if (c.kind == ProfileKind::kString || c.kind == ProfileKind::kBoolean) {
    for (const auto& t : c.top.Top(3)) {
      top += fmt::format("{}{} ({})", top.empty() ? "" : ", ", t.value, t.count);
    }
  }
  auto num = [&](double v) {
    return Numeric(c) && std::isfinite(v) ? fmt::format("{:.6g}", v) : std::string("-");
  };
  return fmt::format("  {:<24} {:>10} {:>7.2f}% {:>12} {:>12} {:>12} {:>12} {:>9}  {}",
                     c.column, c.rows, c.null_rate() * 100.0, num(c.min),
                     num(c.quantiles.Quantile(0.5)), num(c.max),
                     num(c.numeric_count ? c.mean : NAN),
                     static_cast<int64_t>(std::llround(c.distinct.Estimate())), top);
}

}  // namespace

std::string ProfileToJson(const TableProfile& p,
                          const std::optional<std::string>& column) {
  std::string out = "{";
  AppendJsonRawField(&out, "version", std::to_string(p.version));
  AppendJsonRawField(&out, "timestamp", std::to_string(p.timestamp_ms));
  AppendJsonField(&out, "operation", p.operation);
  AppendJsonRawField(&out, "rows", std::to_string(p.rows));
  std::string cols = "{";
  for (const auto& c : p.columns) {
    if (Selected(c, column)) AppendJsonRawField(&cols, c.column, ColumnJson(c));
  }
  AppendJsonRawField(&out, "columns", cols + "}");
  return out + "}";
}

std::string ProfilesToJson(const std::vector<TableProfile>& profiles,
                           const std::optional<std::string>& column) {
  std::string out = "[";
  for (const auto& p : profiles) {
    if (out.size() > 1) out += ",";
    out += ProfileToJson(p, column);
  }
  return out + "]";
}

std::string ProfilesToText(const std::vector<TableProfile>& profiles,
                           const std::optional<std::string>& column) {
  if (profiles.empty()) return "no profiles\n";
  std::string out;
  for (const auto& p : profiles) {
    out += fmt::format("version {} ({}, {} rows)\n", p.version,
                       p.operation.empty() ? "?" : p.operation, p.rows);
    out += fmt::format("  {:<24} {:>10} {:>8} {:>12} {:>12} {:>12} {:>12} {:>9}  {}\n",
                       "column", "rows", "nulls", "min", "p50", "max", "mean", "distinct",
                       "top values");
    for (const auto& c : p.columns) {
      if (Selected(c, column)) out += Cell(c) + "\n";
    }
  }
  return out;
}

}  // namespace deltaguard
