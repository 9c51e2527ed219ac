/// \file deltaguard/log/checkpoint.h
/// Reading a checkpoint's actions (PROTOCOL.md "Checkpoints", digest §1.3): classic and
/// multi-part Parquet files through the CheckpointReader seam, UUID-named V2 JSON files
/// directly, and the sidecar files a V2 checkpoint (of any name) points to.
#pragma once

#include <string>
#include <vector>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/log/actions.h"
#include "deltaguard/log/log_segment.h"
#include "deltaguard/log/snapshot.h"

namespace deltaguard {

/// Where a sidecar named in a checkpoint lives: a relative (URI-encoded) name under
/// `<log_dir>/_sidecars`, or an absolute path/URI, which must also lie in that directory
/// (PROTOCOL.md "Sidecar Files": sidecars always reside in `_delta_log/_sidecars`);
/// kCorruptLog otherwise.
Result<std::string> ResolveSidecarPath(const std::string& log_dir,
                                       const std::string& sidecar_path);

/// Read every file of `checkpoint`, then every sidecar its `sidecar` rows name. Returns
/// the rows of each file read (checkpoint files first, then sidecars) and appends the
/// paths read to `files_read`. Any unreadable file fails the whole checkpoint, so the
/// caller can fall back to an older one. `extra_adds` is passed on to
/// CheckpointReader::ReadCheckpointForReplay for Parquet files.
Result<std::vector<CheckpointActions>> ReadCheckpointParts(
    const FileSystem& fs, const CheckpointReader& reader, const std::string& log_dir,
    const CheckpointFiles& checkpoint, std::vector<std::string>* files_read,
    size_t extra_adds = 0);

}  // namespace deltaguard
