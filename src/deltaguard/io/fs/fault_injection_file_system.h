/// \file deltaguard/io/fs/fault_injection_file_system.h
/// A FileSystem wrapper for tests that fails, "crashes" or tears chosen operations, so
/// writer and commit code can be tested against every storage failure point.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/io/fs/file_system.h"

namespace deltaguard {

/// What happens to the operation a fault is armed on.
enum class Fault : uint8_t {
  /// The op returns kIOError ("injected fault"); nothing is written; later ops proceed.
  kError,
  /// The process died before the op: nothing is written, the op and every later
  /// mutating op fail with kIOError (until Reset()).
  kCrashBeforeWrite,
  /// The process died right after the op: its effect IS applied to the inner file
  /// system, but the call returns kIOError and every later mutating op fails.
  kCrashAfterWrite,
  /// Write() only: the first half (rounded down) of the data is written to the inner
  /// file system, then the process is crashed as for kCrashAfterWrite. Armed on any
  /// other op it acts as kCrashBeforeWrite: PutIfAbsent is atomic by guarantee 2 of
  /// FileSystem (temp file + link(2) on the local FS), so a torn put must not be
  /// simulated, and Delete/CreateDirs carry no data to tear.
  kTornWrite,
};

/// Wraps another FileSystem and injects faults into chosen operations.
///
/// Operations are numbered from 0 in the order they start. Mutating ops (PutIfAbsent,
/// Write, Delete, CreateDirs) are always numbered; reads (List, ReadFile, ReadRange,
/// Stat, Exists) only when constructed with `count_reads`. Invariant: ops().size() ==
/// num_ops(), and ops()[i] describes op i, e.g. "put_if_absent /t/_delta_log/0...1.json".
/// Every attempted op is numbered and logged, including ones that fail.
///
/// Reads are never affected by the crash state (they model an observer inspecting the
/// storage afterwards); a fault armed on a counted read returns kIOError and, for the
/// crash kinds, also enters the crash state.
///
/// Thread-safe: bookkeeping is under a mutex, the inner call runs outside it, so
/// concurrent ops still race on the inner file system as they would in production.
class FaultInjectionFileSystem final : public FileSystem {
 public:
  explicit FaultInjectionFileSystem(FileSystemRef inner, bool count_reads = false);

  /// Arm `kind` on the op numbered `op_index` (see class comment). One-shot.
  void FailAt(int64_t op_index, Fault kind);
  /// Arm `kind` on the next counted op whose path contains `path_substring`. One-shot.
  void FailNextMatching(std::string path_substring, Fault kind);

  /// Mutating ops attempted so far (failed ones included).
  int64_t num_mutations() const;
  /// Counted ops attempted so far: num_mutations() plus reads if `count_reads`.
  int64_t num_ops() const;
  /// True once a crash fault fired, until Reset().
  bool crashed() const;
  /// Disarm all faults and leave the crash state; counters and the log are kept.
  void Reset();
  /// Log of counted ops: "<op> <path>", in op-number order.
  std::vector<std::string> ops() const;

  const FileSystemRef& inner() const { return inner_; }

  Result<std::vector<FileInfo>> List(const std::string& dir,
                                     std::string_view start_at = {}) const override;
  Result<std::string> ReadFile(const std::string& path) const override;
  Result<std::string> ReadRange(const std::string& path, int64_t offset,
                                int64_t length) const override;
  Result<FileInfo> Stat(const std::string& path) const override;
  Result<bool> Exists(const std::string& path) const override;

  Status PutIfAbsent(const std::string& path, std::string_view data) override;
  Status Write(const std::string& path, std::string_view data) override;
  Status Delete(const std::string& path) override;
  Status CreateDirs(const std::string& dir) override;
  Result<std::vector<FileInfo>> ListDirs(const std::string& dir) const override;
  Status DeleteEmptyDir(const std::string& dir) override;

 private:
  // What a starting op must do, decided under the mutex.
  enum class Action : uint8_t {
    kPassThrough,  // call the inner file system, return its status
    kFail,         // return the error, touch nothing
    kApplyThenFail,
    kTearThenFail,
  };
  struct Decision {
    Action action = Action::kPassThrough;
    Error error{ErrorCode::kIOError, ""};
  };
  struct ArmedFault {
    int64_t op_index = -1;  // -1: match by path instead
    std::string path_substring;
    Fault kind = Fault::kError;
  };

  // Number and log the op, consume a matching armed fault, update the crash state.
  Decision Begin(std::string_view op, const std::string& path, bool mutating) const;
  // Reads: pass through unless a fault fired (reads are only faulted if counted).
  Status BeginRead(std::string_view op, const std::string& path) const;

  FileSystemRef inner_;
  const bool count_reads_;

  mutable std::mutex mu_;
  mutable std::vector<ArmedFault> armed_;
  mutable std::vector<std::string> log_;
  mutable int64_t num_mutations_ = 0;
  mutable bool crashed_ = false;
};

}  // namespace deltaguard
