/// \file deltaguard/log/actions.h
/// The Delta log actions (PROTOCOL.md "Actions") as plain values, plus their parsing from
/// one commit-file line (JSON) and serialization back to JSON.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "deltaguard/protocol/metadata.h"
#include "deltaguard/protocol/protocol.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// Ordered string map, used for partitionValues (value may be JSON null). StringMap
/// (tags, configuration) comes from protocol/metadata.h.
using PartitionValues = std::vector<std::pair<std::string, std::optional<std::string>>>;

/// PROTOCOL.md "Deletion Vector Descriptor Schema".
struct DeletionVectorDescriptor {
  char storage_type = 'u';  ///< 'u' relative UUID path, 'i' inline, 'p' absolute path
  std::string path_or_inline_dv;
  std::optional<int32_t> offset;
  int32_t size_in_bytes = 0;
  int64_t cardinality = 0;
  std::optional<int64_t> max_row_index;  ///< "maxRowIndex", written by some engines

  /// storageType + pathOrInlineDv [+ "@" + offset]; the replay key's second half.
  std::string UniqueId() const;
};

struct AddFile {
  std::string path;  ///< as in the log (URI-encoded, relative or absolute)
  PartitionValues partition_values;
  int64_t size = 0;
  int64_t modification_time = 0;
  bool data_change = true;
  std::optional<std::string> stats;  ///< raw stats JSON string
  StringMap tags;
  std::optional<DeletionVectorDescriptor> deletion_vector;
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
  std::optional<std::string> clustering_provider;

  /// `numRecords` from stats, when stats exist and carry it.
  std::optional<int64_t> NumRecords() const;
};

struct RemoveFile {
  std::string path;
  std::optional<int64_t> deletion_timestamp;
  bool data_change = true;
  std::optional<bool> extended_file_metadata;
  std::optional<PartitionValues> partition_values;
  std::optional<int64_t> size;
  std::optional<std::string> stats;
  StringMap tags;
  std::optional<DeletionVectorDescriptor> deletion_vector;
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
};

/// The logical remove of a live file (dataChange = true) at `deletion_timestamp`,
/// carrying the add's extended metadata (partition values, size, stats, tags, deletion
/// vector, row-tracking fields) as PROTOCOL.md "Add File and Remove File" recommends.
RemoveFile RemoveFileFor(const AddFile& add, int64_t deletion_timestamp);

// Format, Metadata (protocol/metadata.h) and Protocol (protocol/protocol.h) are defined
// below the log layer so that protocol gating does not depend on it.

/// commitInfo is free-form: keep the raw JSON object plus the fields we use.
struct CommitInfo {
  std::string raw_json;  ///< the whole commitInfo object
  std::optional<int64_t> timestamp;
  std::optional<int64_t> in_commit_timestamp;
  std::optional<std::string> operation;
  std::optional<std::string> operation_parameters_json;  ///< raw JSON object text
  std::optional<std::string> engine_info;
};

struct SetTransaction {
  std::string app_id;
  int64_t version = 0;
  std::optional<int64_t> last_updated;
};

struct DomainMetadata {
  std::string domain;
  std::string configuration;
  bool removed = false;
};

struct CheckpointMetadata {
  int64_t version = 0;
  StringMap tags;
};

struct Sidecar {
  std::string path;  ///< relative to _delta_log/_sidecars (URI-encoded) or absolute
  int64_t size_in_bytes = 0;
  int64_t modification_time = 0;
  StringMap tags;
};

struct AddCdcFile {
  std::string path;
  PartitionValues partition_values;
  int64_t size = 0;
  bool data_change = false;
  StringMap tags;
};

/// An action type this build does not know; kept so that `log` can show it.
struct UnknownAction {
  std::string name;
  std::string raw_json;
};

using Action =
    std::variant<AddFile, RemoveFile, Metadata, Protocol, CommitInfo, SetTransaction,
                 DomainMetadata, CheckpointMetadata, Sidecar, AddCdcFile, UnknownAction>;

/// Parse one line of a commit file. An empty/whitespace line yields std::nullopt.
/// Unknown action names and unknown fields are tolerated (PROTOCOL.md "Protocol
/// Evolution"); malformed JSON or missing required fields are kCorruptLog naming `where`
/// (and `line_number` when > 0). A line holding several members uses the first known
/// action; a line whose action value is JSON null yields std::nullopt.
/// Tolerated deviations seen in real logs: metaData without schemaString (left empty),
/// partition values that are JSON numbers/booleans (kept as their JSON text), null tag
/// values (dropped).
Result<std::optional<Action>> ParseActionLine(std::string_view line,
                                              std::string_view where,
                                              int64_t line_number = 0);

/// Parse a whole commit (NDJSON) file. Lines may end in "\n" or "\r\n"; blank lines are
/// skipped; errors name `where` and the 1-based line number.
Result<std::vector<Action>> ParseCommitFile(std::string_view content,
                                            std::string_view where);

/// Serialize one action as a single JSON line (no trailing newline), in the form Spark
/// writes (`{"add":{...}}`): Spark's field names and order, absent optionals omitted.
/// CommitInfo and UnknownAction re-emit their raw JSON, so parse → serialize keeps them
/// byte-for-byte.
std::string ActionToJson(const Action& action);

/// The name of an action in the log ("add", "metaData", ...).
std::string_view ActionName(const Action& action);

}  // namespace deltaguard
