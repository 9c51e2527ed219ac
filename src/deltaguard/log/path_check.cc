#include "deltaguard/log/path_check.h"

#include <fmt/format.h>

namespace deltaguard {
namespace {

// The Z85-encoded UUID at the end of a 'u' pathOrInlineDv (PROTOCOL.md "Deletion Vector
// Descriptor Schema").
constexpr size_t kZ85UuidLength = 20;

Error InLogFile(Error e, std::string_view action, std::string_view log_file, bool hint) {
  e = WithContext(std::move(e),
                  fmt::format("log file '{}': {} action", log_file, action));
  if (hint) {
    e.message +=
        "; deltaguard reads only files under the table root (a shallow clone's log "
        "names its source table's files: read it through the library with "
        "SnapshotSpec::paths.allow_outside_root, see docs/behaviour.md)";
  }
  return e;
}

template <typename F>
Status CheckFile(std::string_view root, const F& file, std::string_view action,
                 std::string_view log_file, const LogPathPolicy& policy) {
  DELTA_RETURN_IF_ERROR(CheckLoggedFilePath(root, file.path, action, log_file, policy));
  if (file.deletion_vector) {
    DELTA_RETURN_IF_ERROR(
        CheckDeletionVectorPath(root, *file.deletion_vector, action, log_file, policy));
  }
  return OkStatus();
}

}  // namespace

Status CheckLoggedFilePath(std::string_view table_root, std::string_view path,
                           std::string_view action, std::string_view log_file,
                           const LogPathPolicy& policy) {
  Result<std::string> resolved = ResolveTablePath(table_root, path, policy);
  if (resolved) return OkStatus();
  return InLogFile(std::move(resolved).error(), action, log_file,
                   !policy.allow_outside_root);
}

Status CheckDeletionVectorPath(std::string_view table_root,
                               const DeletionVectorDescriptor& dv,
                               std::string_view action, std::string_view log_file,
                               const LogPathPolicy& policy) {
  if (dv.storage_type == 'p') {
    return CheckLoggedFilePath(table_root, dv.path_or_inline_dv,
                               fmt::format("{} action's deletion vector", action),
                               log_file, policy);
  }
  if (dv.storage_type != 'u' || dv.path_or_inline_dv.size() <= kZ85UuidLength) {
    return OkStatus();  // inline, or no prefix (the file is in the root)
  }
  std::string_view prefix = std::string_view(dv.path_or_inline_dv)
                                .substr(0, dv.path_or_inline_dv.size() - kZ85UuidLength);
  std::optional<std::string> norm = NormalizePathLexically(prefix);
  if (prefix.front() != '/' && norm && prefix.find('\0') == std::string_view::npos) {
    return OkStatus();
  }
  return MakeError(
      ErrorCode::kCorruptLog,
      "log file '{}': {} action's deletion vector: storageType 'u' prefix {} "
      "must be a relative directory under the table root '{}'",
      log_file, action, QuoteForMessage(prefix), table_root);
}

Status CheckLoggedPaths(std::string_view table_root, const std::vector<Action>& actions,
                        std::string_view log_file, const LogPathPolicy& policy) {
  for (const Action& a : actions) {
    if (const auto* add = std::get_if<AddFile>(&a)) {
      DELTA_RETURN_IF_ERROR(CheckFile(table_root, *add, "add", log_file, policy));
    } else if (const auto* rm = std::get_if<RemoveFile>(&a)) {
      DELTA_RETURN_IF_ERROR(CheckFile(table_root, *rm, "remove", log_file, policy));
    } else if (const auto* cdc = std::get_if<AddCdcFile>(&a)) {
      DELTA_RETURN_IF_ERROR(
          CheckLoggedFilePath(table_root, cdc->path, "cdc", log_file, policy));
    }
  }
  return OkStatus();
}

Status CheckLoggedPaths(std::string_view table_root, const CheckpointActions& part,
                        std::string_view log_file, const LogPathPolicy& policy) {
  for (const AddFile& add : part.adds) {
    DELTA_RETURN_IF_ERROR(CheckFile(table_root, add, "add", log_file, policy));
  }
  for (const RemoveFile& rm : part.removes) {
    DELTA_RETURN_IF_ERROR(CheckFile(table_root, rm, "remove", log_file, policy));
  }
  return CheckLoggedPaths(table_root, part.others, log_file, policy);
}

}  // namespace deltaguard
