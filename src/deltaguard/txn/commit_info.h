/// \file deltaguard/txn/commit_info.h
/// The commitInfo action every deltaguard commit writes first (PROTOCOL.md "Commit
/// Provenance Information", digest §2.7), built the way Spark's OptimisticTransaction
/// writes it, plus the isolation levels recorded in it and random txnId UUIDs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltaguard/util/result.h"

namespace deltaguard {

/// Isolation levels of Delta's optimistic concurrency (digest §1.6). Serializable is the
/// OSS default; commits without data change run as SnapshotIsolation.
enum class IsolationLevel : uint8_t {
  kSerializable,
  kWriteSerializable,
  kSnapshotIsolation
};

/// "Serializable", "WriteSerializable" or "SnapshotIsolation" (as written in commitInfo).
std::string_view IsolationLevelName(IsolationLevel level);

/// Parse the table property `delta.isolationLevel` (case-insensitive). Spark accepts only
/// Serializable and WriteSerializable there; anything else is kInvalidArgument naming
/// the value.
Result<IsolationLevel> ParseIsolationLevel(std::string_view value);

/// What the operation was; becomes commitInfo.operation/operationParameters/...
struct OperationInfo {
  std::string operation;  ///< "WRITE", "CREATE TABLE", "MERGE", ...
  /// key -> raw JSON value text: "\"Append\"", "[]", "true". Written as Spark does:
  /// string values as themselves, any other JSON value as its text in a string
  /// ("partitionBy":"[]").
  std::vector<std::pair<std::string, std::string>> parameters_json;
  /// operationMetrics; written as JSON strings like Spark ("numFiles":"1").
  std::vector<std::pair<std::string, int64_t>> metrics;
  std::optional<std::string> user_metadata;
};

/// Check an OperationInfo once before committing: operation non-empty, every parameter
/// value is one valid JSON value, all text is valid UTF-8. kInvalidArgument naming the
/// offending key otherwise.
Status ValidateOperationInfo(const OperationInfo& op);

/// The per-attempt fields of commitInfo.
struct CommitInfoFields {
  int64_t timestamp_ms = 0;
  /// Set iff in-commit timestamps apply to this commit; then commitInfo.timestamp equals
  /// it too.
  std::optional<int64_t> in_commit_timestamp;
  std::optional<int64_t> read_version;  ///< omitted for a new table
  IsolationLevel isolation_level = IsolationLevel::kSerializable;
  bool is_blind_append = false;
  std::string engine_info;
  std::string txn_id;
};

/// The commitInfo object (the value, without the {"commitInfo": ...} wrapper), fields in
/// Spark's order: inCommitTimestamp, timestamp, operation, operationParameters,
/// readVersion, isolationLevel, isBlindAppend, operationMetrics, userMetadata,
/// engineInfo, txnId. REQUIRES: ValidateOperationInfo(op) succeeded.
std::string BuildCommitInfoJson(const OperationInfo& op, const CommitInfoFields& fields);

}  // namespace deltaguard
