#include "deltaguard/txn/commit_info.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <random>

#include "deltaguard/util/json_bounded.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {

std::string_view IsolationLevelName(IsolationLevel level) {
  switch (level) {
    case IsolationLevel::kSerializable:
      return "Serializable";
    case IsolationLevel::kWriteSerializable:
      return "WriteSerializable";
    case IsolationLevel::kSnapshotIsolation:
      return "SnapshotIsolation";
  }
  return "Serializable";
}

Result<IsolationLevel> ParseIsolationLevel(std::string_view value) {
  std::string_view v = Trim(value);
  if (EqualsIgnoreCase(v, "Serializable")) return IsolationLevel::kSerializable;
  if (EqualsIgnoreCase(v, "WriteSerializable")) return IsolationLevel::kWriteSerializable;
  return MakeError(ErrorCode::kInvalidArgument,
                   "delta.isolationLevel '{}' is not supported; expected Serializable or "
                   "WriteSerializable",
                   value);
}

namespace {

// Parses `text` as exactly one JSON value (RapidJSON rejects trailing garbage by
// default).
bool ParseJsonValue(std::string_view text, rapidjson::Document* doc) {
  return ParseBoundedJson(text, doc) == JsonParseOutcome::kOk;
}

Status CheckUtf8(std::string_view what, std::string_view text) {
  if (IsValidUtf8(text)) return OkStatus();
  return MakeError(ErrorCode::kInvalidArgument, "commitInfo {} is not valid UTF-8", what);
}

}  // namespace

Status ValidateOperationInfo(const OperationInfo& op) {
  if (op.operation.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "commitInfo operation must not be empty");
  }
  DELTA_RETURN_IF_ERROR(CheckUtf8("operation", op.operation));
  for (const auto& [key, raw] : op.parameters_json) {
    DELTA_RETURN_IF_ERROR(
        CheckUtf8(fmt::format("operation parameter name '{}'", key), key));
    DELTA_RETURN_IF_ERROR(CheckUtf8(fmt::format("operation parameter '{}'", key), raw));
    rapidjson::Document doc;
    if (!ParseJsonValue(raw, &doc)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "commitInfo operation parameter '{}' is not one JSON value: {} "
                       "(text: {})",
                       key, rapidjson::GetParseError_En(doc.GetParseError()), raw);
    }
  }
  for (const auto& [key, value] : op.metrics) {
    (void)value;
    DELTA_RETURN_IF_ERROR(CheckUtf8(fmt::format("metric name '{}'", key), key));
  }
  if (op.user_metadata)
    DELTA_RETURN_IF_ERROR(CheckUtf8("userMetadata", *op.user_metadata));
  return OkStatus();
}

std::string BuildCommitInfoJson(const OperationInfo& op, const CommitInfoFields& f) {
  std::string out = "{";
  if (f.in_commit_timestamp) {
    out += fmt::format("\"inCommitTimestamp\":{},", *f.in_commit_timestamp);
  }
  out += fmt::format("\"timestamp\":{},\"operation\":", f.timestamp_ms);
  AppendJsonString(&out, op.operation);
  out += ",\"operationParameters\":{";
  bool first = true;
  for (const auto& [key, raw] : op.parameters_json) {
    if (!first) out += ',';
    first = false;
    AppendJsonString(&out, key);
    out += ':';
    rapidjson::Document doc;
    if (ParseJsonValue(raw, &doc) && doc.IsString()) {
      AppendJsonString(&out, std::string_view(doc.GetString(), doc.GetStringLength()));
    } else {
      AppendJsonString(&out, Trim(raw));
    }
  }
  out += '}';
  if (f.read_version) out += fmt::format(",\"readVersion\":{}", *f.read_version);
  out += ",\"isolationLevel\":";
  AppendJsonString(&out, IsolationLevelName(f.isolation_level));
  out += f.is_blind_append ? ",\"isBlindAppend\":true" : ",\"isBlindAppend\":false";
  out += ",\"operationMetrics\":{";
  first = true;
  for (const auto& [key, value] : op.metrics) {
    if (!first) out += ',';
    first = false;
    AppendJsonString(&out, key);
    out += fmt::format(":\"{}\"", value);
  }
  out += '}';
  if (op.user_metadata) {
    out += ",\"userMetadata\":";
    AppendJsonString(&out, *op.user_metadata);
  }
  out += ",\"engineInfo\":";
  AppendJsonString(&out, f.engine_info);
  out += ",\"txnId\":";
  AppendJsonString(&out, f.txn_id);
  out += '}';
  return out;
}

}  // namespace deltaguard
