#include "deltaguard/io/fs/fault_injection_file_system.h"

#include <algorithm>
#include <utility>

namespace deltaguard {
namespace {

constexpr std::string_view kPutIfAbsent = "put_if_absent";
constexpr std::string_view kWrite = "write";

std::string_view FaultName(Fault kind) {
  switch (kind) {
    case Fault::kError:
      return "error";
    case Fault::kCrashBeforeWrite:
      return "crash before write";
    case Fault::kCrashAfterWrite:
      return "crash after write";
    case Fault::kTornWrite:
      return "torn write";
  }
  return "unknown";
}

}  // namespace

FaultInjectionFileSystem::FaultInjectionFileSystem(FileSystemRef inner, bool count_reads)
    : inner_(std::move(inner)), count_reads_(count_reads) {
  DELTA_DCHECK(inner_ != nullptr);
}

void FaultInjectionFileSystem::FailAt(int64_t op_index, Fault kind) {
  DELTA_DCHECK(op_index >= 0);
  std::lock_guard<std::mutex> lock(mu_);
  armed_.push_back({op_index, {}, kind});
}

void FaultInjectionFileSystem::FailNextMatching(std::string path_substring, Fault kind) {
  std::lock_guard<std::mutex> lock(mu_);
  armed_.push_back({-1, std::move(path_substring), kind});
}

int64_t FaultInjectionFileSystem::num_mutations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return num_mutations_;
}

int64_t FaultInjectionFileSystem::num_ops() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(log_.size());
}

bool FaultInjectionFileSystem::crashed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return crashed_;
}

void FaultInjectionFileSystem::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  armed_.clear();
  crashed_ = false;
}

std::vector<std::string> FaultInjectionFileSystem::ops() const {
  std::lock_guard<std::mutex> lock(mu_);
  return log_;
}

FaultInjectionFileSystem::Decision FaultInjectionFileSystem::Begin(
    std::string_view op, const std::string& path, bool mutating) const {
  Decision d;
  std::lock_guard<std::mutex> lock(mu_);
  if (!mutating && !count_reads_) return d;
  auto index = static_cast<int64_t>(log_.size());
  log_.push_back(fmt::format("{} {}", op, path));
  if (mutating) ++num_mutations_;
  if (mutating && crashed_) {
    // Faults still armed stay armed: a dead process reaches no further fault points.
    d.action = Action::kFail;
    d.error = MakeError(ErrorCode::kIOError,
                        "injected fault: file system crashed earlier, {} '{}' rejected",
                        op, path);
    return d;
  }
  auto it = std::find_if(armed_.begin(), armed_.end(), [&](const ArmedFault& f) {
    return f.op_index >= 0 ? f.op_index == index
                           : path.find(f.path_substring) != std::string::npos;
  });
  if (it == armed_.end()) return d;
  Fault kind = it->kind;
  armed_.erase(it);
  d.error = MakeError(ErrorCode::kIOError, "injected fault ({}) in {} '{}' (op #{})",
                      FaultName(kind), op, path, index);
  d.action = Action::kFail;
  if (kind == Fault::kError) return d;
  crashed_ = true;
  if (!mutating) return d;
  if (kind == Fault::kCrashAfterWrite) d.action = Action::kApplyThenFail;
  // A torn PutIfAbsent would break FileSystem guarantee 2, so it is a crash before.
  if (kind == Fault::kTornWrite && op == kWrite) d.action = Action::kTearThenFail;
  return d;
}

Status FaultInjectionFileSystem::BeginRead(std::string_view op,
                                           const std::string& path) const {
  Decision d = Begin(op, path, /*mutating=*/false);
  if (d.action == Action::kPassThrough) return OkStatus();
  return d.error;
}

Result<std::vector<FileInfo>> FaultInjectionFileSystem::List(
    const std::string& dir, std::string_view start_at) const {
  DELTA_RETURN_IF_ERROR(BeginRead("list", dir));
  return inner_->List(dir, start_at);
}

Result<std::string> FaultInjectionFileSystem::ReadFile(const std::string& path) const {
  DELTA_RETURN_IF_ERROR(BeginRead("read_file", path));
  return inner_->ReadFile(path);
}

Result<std::string> FaultInjectionFileSystem::ReadRange(const std::string& path,
                                                        int64_t offset,
                                                        int64_t length) const {
  DELTA_RETURN_IF_ERROR(BeginRead("read_range", path));
  return inner_->ReadRange(path, offset, length);
}

Result<FileInfo> FaultInjectionFileSystem::Stat(const std::string& path) const {
  DELTA_RETURN_IF_ERROR(BeginRead("stat", path));
  return inner_->Stat(path);
}

Result<bool> FaultInjectionFileSystem::Exists(const std::string& path) const {
  DELTA_RETURN_IF_ERROR(BeginRead("exists", path));
  return inner_->Exists(path);
}

Status FaultInjectionFileSystem::PutIfAbsent(const std::string& path,
                                             std::string_view data) {
  Decision d = Begin(kPutIfAbsent, path, /*mutating=*/true);
  switch (d.action) {
    case Action::kPassThrough:
      return inner_->PutIfAbsent(path, data);
    case Action::kApplyThenFail:
      // The crash hides the inner outcome (even kAlreadyExists) from the caller.
      (void)inner_->PutIfAbsent(path, data);
      return d.error;
    case Action::kFail:
    case Action::kTearThenFail:  // never decided for a put; see Fault::kTornWrite
      return d.error;
  }
  return d.error;
}

Status FaultInjectionFileSystem::Write(const std::string& path, std::string_view data) {
  Decision d = Begin(kWrite, path, /*mutating=*/true);
  switch (d.action) {
    case Action::kPassThrough:
      return inner_->Write(path, data);
    case Action::kApplyThenFail:
      (void)inner_->Write(path, data);
      return d.error;
    case Action::kTearThenFail:
      (void)inner_->Write(path, data.substr(0, data.size() / 2));
      return d.error;
    case Action::kFail:
      return d.error;
  }
  return d.error;
}

Status FaultInjectionFileSystem::Delete(const std::string& path) {
  Decision d = Begin("delete", path, /*mutating=*/true);
  if (d.action == Action::kPassThrough) return inner_->Delete(path);
  if (d.action == Action::kApplyThenFail) (void)inner_->Delete(path);
  return d.error;
}

Result<std::vector<FileInfo>> FaultInjectionFileSystem::ListDirs(
    const std::string& dir) const {
  DELTA_RETURN_IF_ERROR(BeginRead("list_dirs", dir));
  return inner_->ListDirs(dir);
}

Status FaultInjectionFileSystem::DeleteEmptyDir(const std::string& dir) {
  Decision d = Begin("delete_dir", dir, /*mutating=*/true);
  if (d.action == Action::kPassThrough) return inner_->DeleteEmptyDir(dir);
  if (d.action == Action::kApplyThenFail) (void)inner_->DeleteEmptyDir(dir);
  return d.error;
}

Status FaultInjectionFileSystem::CreateDirs(const std::string& dir) {
  Decision d = Begin("create_dirs", dir, /*mutating=*/true);
  if (d.action == Action::kPassThrough) return inner_->CreateDirs(dir);
  if (d.action == Action::kApplyThenFail) (void)inner_->CreateDirs(dir);
  return d.error;
}

}  // namespace deltaguard
