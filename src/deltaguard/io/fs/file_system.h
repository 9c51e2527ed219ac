/// \file deltaguard/io/fs/file_system.h
/// The one I/O seam of the library: every byte the library reads or writes goes through
/// a FileSystem, so tests can inject faults at any step.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/util/result.h"

namespace deltaguard {

struct FileInfo {
  std::string path;               ///< full path, as passed to the FileSystem
  int64_t size = 0;               ///< bytes
  int64_t modification_time = 0;  ///< milliseconds since the epoch
};

/// A file being written by FileSystem::OpenForWrite: appended to piece by piece and
/// published atomically by Close(). Destroying it without a successful Close() leaves
/// no file behind (a partly written data file must never appear).
class OutputFile {
 public:
  virtual ~OutputFile() = default;
  virtual Status Append(std::string_view data) = 0;
  /// Publish the file under its path, atomically (like FileSystem::Write). At most once.
  virtual Status Close() = 0;
};

/// A whole file mapped read-only into memory; unmapped when the last reference goes.
class MappedFile {
 public:
  virtual ~MappedFile() = default;
  const char* data() const { return data_; }
  int64_t size() const { return size_; }

 protected:
  MappedFile(const char* data, int64_t size) : data_(data), size_(size) {}

 private:
  const char* data_;
  int64_t size_;
};

/// Abstract storage. Paths are absolute local paths (or what an implementation defines);
/// the Delta layer never parses them beyond joining with '/'.
///
/// Guarantees every implementation must give:
///  1. List() returns entries sorted by path in byte order, so that zero-padded Delta log
///     names come back in version order (PROTOCOL.md "Delta Log Entries").
///  2. PutIfAbsent() is atomic: either the file appears with its full content or not at
///     all, and it never replaces an existing file (kAlreadyExists). Commits rely on it
///     for mutual exclusion.
class FileSystem {
 public:
  virtual ~FileSystem() = default;

  /// List the direct children of `dir` whose names are >= `start_after_or_at` (byte
  /// order), files only, sorted. A missing directory is kNotFound.
  virtual Result<std::vector<FileInfo>> List(const std::string& dir,
                                             std::string_view start_at = {}) const = 0;

  /// Read a whole file. Missing file is kNotFound.
  virtual Result<std::string> ReadFile(const std::string& path) const = 0;

  /// Read `length` bytes at `offset`. Reading past the end is kCorruptData.
  virtual Result<std::string> ReadRange(const std::string& path, int64_t offset,
                                        int64_t length) const = 0;

  /// ReadRange into `out` (which holds `length` bytes): same contract, no allocation.
  /// The default implementation goes through ReadRange, so wrappers (fault injection)
  /// see the read; the local file system reads straight into `out`.
  virtual Status ReadRangeInto(const std::string& path, int64_t offset, int64_t length,
                               char* out) const;

  virtual Result<FileInfo> Stat(const std::string& path) const = 0;
  virtual Result<bool> Exists(const std::string& path) const = 0;

  /// Map the whole file read-only, for readers of large immutable files (Parquet data
  /// files, write inputs): no copy into fresh buffers, the page cache is read in place.
  /// The default is kUnsupportedFeature, so wrappers (fault injection) are read through
  /// ReadRange instead and see every read. A file truncated while mapped faults on
  /// access, as with any memory map: only for files nothing modifies while they are
  /// read (Delta data files never change once written).
  virtual Result<std::shared_ptr<const MappedFile>> MapFile(
      const std::string& path) const;

  /// Create `path` with `data` atomically if it does not exist (see guarantee 2).
  virtual Status PutIfAbsent(const std::string& path, std::string_view data) = 0;

  /// Write (create or replace) `path` atomically; for data files and _last_checkpoint.
  virtual Status Write(const std::string& path, std::string_view data) = 0;

  /// Write `path` as a stream: same contract as Write, without holding the whole file in
  /// memory. The default buffers the data and calls Write() at Close(), so wrappers
  /// (fault injection) see one Write; the local file system streams to a temporary file
  /// and renames it into place.
  virtual Result<std::unique_ptr<OutputFile>> OpenForWrite(const std::string& path);

  virtual Status Delete(const std::string& path) = 0;
  virtual Status CreateDirs(const std::string& dir) = 0;

  /// The direct subdirectories of `dir`, sorted by path (size 0, mtime of the
  /// directory). Symbolic links are not followed, so a walk of a table stays inside it.
  /// A missing directory is kNotFound. The default is kUnsupportedFeature; VACUUM needs
  /// it to walk partition directories.
  virtual Result<std::vector<FileInfo>> ListDirs(const std::string& dir) const;

  /// Remove the empty directory `dir` (kIOError when it is not empty). The default is
  /// kUnsupportedFeature.
  virtual Status DeleteEmptyDir(const std::string& dir);
};

using FileSystemRef = std::shared_ptr<FileSystem>;

/// The local POSIX file system.
FileSystemRef MakeLocalFileSystem();

/// Join two path pieces with exactly one '/'.
std::string JoinPath(std::string_view base, std::string_view child);

/// The extension of the last component of `path`, with its dot (`.csv`), or "" when it
/// has none; a leading dot starts a name, not an extension (`.hidden` has none).
std::string_view PathExtension(std::string_view path);

}  // namespace deltaguard
