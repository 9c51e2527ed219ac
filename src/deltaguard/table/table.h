/// \file deltaguard/table/table.h
/// The public facade: open a Delta table directory as a Snapshot with the local file
/// system and the Parquet checkpoint reader wired in. NormalizeTablePath comes from
/// write/table_path.h.
#pragma once

#include <string>

#include "deltaguard/log/snapshot.h"
#include "deltaguard/util/result.h"
#include "deltaguard/write/table_path.h"

namespace deltaguard {

/// Open the table at `path` (relative or absolute directory, or a file:// URI) at the
/// version `spec` selects (latest by default). A path without `_delta_log` is kNotFound
/// ("'<path>' is not a Delta table: no _delta_log directory").
Result<SnapshotRef> OpenSnapshot(const std::string& path, const SnapshotSpec& spec = {});

/// Same, reading through `fs` (tests inject faults this way).
Result<SnapshotRef> OpenSnapshot(FileSystemRef fs, const std::string& path,
                                 const SnapshotSpec& spec = {});

}  // namespace deltaguard
