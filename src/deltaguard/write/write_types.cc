// Write modes, session settings and reader-backed inputs (write_types.h).

#include "deltaguard/write/write_types.h"

#include <charconv>
#include <limits>
#include <optional>
#include <utility>

#include "deltaguard/util/string_util.h"

namespace deltaguard {

Result<WriteMode> ParseWriteMode(std::string_view text) {
  std::string lower = AsciiToLower(text);
  if (lower == "append") return WriteMode::kAppend;
  if (lower == "overwrite") return WriteMode::kOverwrite;
  if (lower == "error" || lower == "errorifexists") return WriteMode::kErrorIfExists;
  if (lower == "ignore") return WriteMode::kIgnore;
  return MakeError(
      ErrorCode::kInvalidArgument,
      "unknown write mode '{}' (expected append, overwrite, error or ignore)", text);
}

std::string_view WriteModeName(WriteMode mode) {
  switch (mode) {
    case WriteMode::kAppend:
      return "Append";
    case WriteMode::kOverwrite:
      return "Overwrite";
    case WriteMode::kErrorIfExists:
      return "ErrorIfExists";
    case WriteMode::kIgnore:
      return "Ignore";
  }
  return "Append";
}

// "1024", "512k", "512m", "2g", "1gb" (binary units, case-insensitive) or "-1".
namespace {

std::optional<int64_t> ParseByteSize(std::string_view text) {
  if (text == "-1") return -1;
  int64_t number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || number < 0) return std::nullopt;
  std::string unit = AsciiToLower(text.substr(static_cast<size_t>(end - text.data())));
  if (unit.size() == 2 && unit[1] == 'b') unit.pop_back();
  int shift = 0;
  if (unit == "k") {
    shift = 10;
  } else if (unit == "m") {
    shift = 20;
  } else if (unit == "g") {
    shift = 30;
  } else if (!unit.empty() && unit != "b") {
    return std::nullopt;
  }
  if (number > (std::numeric_limits<int64_t>::max() >> shift)) return std::nullopt;
  return number << shift;
}

}  // namespace

Status SessionSettings::Set(std::string_view key, std::string_view value) {
  std::string lower = AsciiToLower(Trim(key));
  if (lower == "spark.databricks.delta.schema.automerge.enabled" ||
      lower == "deltaguard.schema.automerge") {
    std::string_view v = Trim(value);
    if (EqualsIgnoreCase(v, "true") || EqualsIgnoreCase(v, "false")) {
      auto_merge = EqualsIgnoreCase(v, "true");
      return OkStatus();
    }
    return MakeError(ErrorCode::kInvalidArgument,
                     "setting '{}' must be true or false, found '{}'", key, value);
  }
  if (lower == "deltaguard.merge.ignoreunmatchedsourcecolumns") {
    std::string_view v = Trim(value);
    if (EqualsIgnoreCase(v, "true") || EqualsIgnoreCase(v, "false")) {
      merge_ignore_unmatched_source_columns = EqualsIgnoreCase(v, "true");
      return OkStatus();
    }
    return MakeError(ErrorCode::kInvalidArgument,
                     "setting '{}' must be true or false, found '{}'", key, value);
  }
  if (lower == "spark.databricks.delta.retentiondurationcheck.enabled" ||
      lower == "spark.databricks.delta.vacuum.logging.enabled") {
    std::string_view v = Trim(value);
    if (EqualsIgnoreCase(v, "true") || EqualsIgnoreCase(v, "false")) {
      bool& target = lower.ends_with("vacuum.logging.enabled") ? vacuum_logging
                                                               : retention_duration_check;
      target = EqualsIgnoreCase(v, "true");
      return OkStatus();
    }
    return MakeError(ErrorCode::kInvalidArgument,
                     "setting '{}' must be true or false, found '{}'", key, value);
  }
  if (lower == "deltaguard.merge.sourcememorylimit" ||
      lower == "deltaguard.query.memorylimit") {
    auto bytes = ParseByteSize(Trim(value));
    if (!bytes) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "setting '{}' must be a byte count such as 1073741824, 512m or "
                       "2g (or -1 for no limit), found '{}'",
                       key, value);
    }
    (lower == "deltaguard.query.memorylimit" ? query_memory_limit
                                             : merge_source_memory_limit) = *bytes;
    return OkStatus();
  }
  if (lower == "deltaguard.contract") {
    contract_file = std::string(Trim(value));
    return OkStatus();
  }
  if (lower == "deltaguard.check") {
    check_tests = std::string(Trim(value));
    return OkStatus();
  }
  if (lower == "deltaguard.check.onfailure") {
    // fail | warn | quarantine=PATH (INSERT and CTAS route rows or hold the batch in
    // the quarantine table at PATH; docs/data_tests.md "At commit time").
    std::string v = AsciiToLower(Trim(value));
    const bool quarantine = StartsWithIgnoreCase(Trim(value), "quarantine=") &&
                            Trim(Trim(value).substr(11)).size() > 0;
    if (v != "fail" && v != "warn" && !quarantine) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "setting '{}' must be fail, warn or quarantine=PATH, found '{}'",
                       key, value);
    }
    check_on_failure =
        quarantine ? "quarantine=" + std::string(Trim(Trim(value).substr(11))) : v;
    return OkStatus();
  }
  if (lower == "deltaguard.check.baseline") {
    check_baseline = std::string(Trim(value));
    return OkStatus();
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown setting '{}' (known: "
                   "spark.databricks.delta.schema.autoMerge.enabled, "
                   "deltaguard.merge.ignoreUnmatchedSourceColumns, "
                   "deltaguard.merge.sourceMemoryLimit, deltaguard.contract, "
                   "deltaguard.check, deltaguard.check.onFailure, "
                   "deltaguard.check.baseline, "
                   "spark.databricks.delta.retentionDurationCheck.enabled, "
                   "spark.databricks.delta.vacuum.logging.enabled)",
                   key);
}

BatchSource SourceFromReader(std::string name,
                             std::shared_ptr<arrow::RecordBatchReader> reader) {
  BatchSource source;
  source.name = std::move(name);
  source.schema = reader->schema();
  source.open = [reader, used = std::make_shared<bool>(false)]()
      -> Result<std::shared_ptr<arrow::RecordBatchReader>> {
    if (*used) {
      return MakeError(ErrorCode::kInternal, "a reader-backed input can be read once");
    }
    *used = true;
    return reader;
  };
  return source;
}

}  // namespace deltaguard
