/// \file deltaguard/log/path_check.h
/// Checking the paths a log file names (add, remove, cdc and deletion-vector paths)
/// before replay takes them, so every reader of a Snapshot (scan, describe, DML,
/// checkpoint writer) inherits the check: a log naming files outside its table is
/// refused at load (docs/behaviour.md "Paths in the log").
#pragma once

#include <string_view>
#include <vector>

#include "deltaguard/log/actions.h"
#include "deltaguard/log/log_path.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// Check one logged file path. kCorruptLog naming `log_file`, the action (`action` is
/// "add", "remove", ...) and the escaped path.
Status CheckLoggedFilePath(std::string_view table_root, std::string_view path,
                           std::string_view action, std::string_view log_file,
                           const LogPathPolicy& policy);

/// Check a deletion vector's location: storageType 'u' builds its path from a prefix
/// relative to the root (which must neither be absolute nor climb out), 'p' is an
/// absolute URI checked as an absolute file path, 'i' has no file.
Status CheckDeletionVectorPath(std::string_view table_root,
                               const DeletionVectorDescriptor& dv,
                               std::string_view action, std::string_view log_file,
                               const LogPathPolicy& policy);

/// Check every file path of the actions of one commit (or JSON checkpoint) file.
Status CheckLoggedPaths(std::string_view table_root, const std::vector<Action>& actions,
                        std::string_view log_file, const LogPathPolicy& policy);

/// The same for the rows of one checkpoint (or sidecar) file.
Status CheckLoggedPaths(std::string_view table_root, const CheckpointActions& part,
                        std::string_view log_file, const LogPathPolicy& policy);

}  // namespace deltaguard
