/// \file deltaguard/log/history.h
/// Commit timestamps and time travel by timestamp (digest §4.8 inCommitTimestamp):
/// a commit's time is its in-commit timestamp when the table has them enabled for that
/// version, otherwise the commit file's modification time (as Spark does; commitInfo's
/// own `timestamp` is not used). Also declares helpers shared by `history`/`log`.
#pragma once

#include <cstdint>
#include <string>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// The latest version whose commit timestamp is <= `timestamp_ms`. Uses the latest
/// snapshot's in-commit-timestamp settings: versions from the enablement version on are
/// searched by in-commit timestamp, earlier ones by file modification time made strictly
/// increasing (a commit never appears older than its predecessor). A timestamp before
/// the earliest available commit is kNotFound
/// (DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION, naming that commit's time); one after
/// the latest commit's time is kInvalidArgument (DELTA_TIMESTAMP_GREATER_THAN_COMMIT),
/// as Spark's time travel refuses it.
Result<int64_t> VersionAtTimestamp(const FileSystemRef& fs, const std::string& table_root,
                                   const CheckpointReader& checkpoint_reader,
                                   int64_t timestamp_ms);

/// "2024-01-31T12:00:00.000Z" (UTC, millisecond precision).
std::string FormatTimestampMs(int64_t timestamp_ms);

}  // namespace deltaguard
