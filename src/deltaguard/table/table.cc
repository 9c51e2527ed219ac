#include "deltaguard/table/table.h"

#include <fmt/format.h>

#include "deltaguard/io/parquet/checkpoint_reader.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {

Result<SnapshotRef> OpenSnapshot(FileSystemRef fs, const std::string& path,
                                 const SnapshotSpec& spec) {
  // Snapshot loading needs no Arrow compute kernels (registering them costs ~3 ms);
  // TableScan::Make registers them for the scan path.
  DELTA_ASSIGN_OR_RETURN(std::string root, NormalizeTablePath(path));
  DELTA_ASSIGN_OR_RETURN(bool has_log, fs->Exists(JoinPath(root, "_delta_log")));
  if (!has_log) {
    return MakeError(ErrorCode::kNotFound,
                     "'{}' is not a Delta table: no _delta_log directory", path);
  }
  ParquetCheckpointReader checkpoint_reader(fs);
  return Snapshot::Load(fs, root, checkpoint_reader, spec);
}

Result<SnapshotRef> OpenSnapshot(const std::string& path, const SnapshotSpec& spec) {
  return OpenSnapshot(MakeLocalFileSystem(), path, spec);
}

}  // namespace deltaguard
