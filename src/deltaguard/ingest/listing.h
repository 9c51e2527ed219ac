/// \file deltaguard/ingest/listing.h
/// Finding a source directory's files: recursively through the FileSystem, skipping
/// names that start with '_' or '.' (the checkpoint, a table's _delta_log, editors'
/// temporary files), with Auto Loader's `pathGlobFilter` on the file name and
/// `cloudFiles.partitionColumns` values read from `/key=value/` directories.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/ingest/reader.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// True when `name` matches `pattern` ('*', '?', '[abc]', and one level of '{a,b}').
bool MatchGlob(std::string_view pattern, std::string_view name);

/// Every file under `root` (sorted by path) whose name matches `glob` ("" matches
/// all). A missing root is kNotFound naming it.
Result<std::vector<IngestFile>> ListSourceFiles(const FileSystem& fs,
                                                const std::string& root,
                                                const std::string& glob);

}  // namespace deltaguard
