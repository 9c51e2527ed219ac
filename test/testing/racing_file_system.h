// deltaguard::testing::RacingFileSystem: makes a commit race deterministic. It delegates
// every operation to another FileSystem and runs a hook once, right before the next
// put of a `_delta_log/*.json` commit file, so a concurrent writer can commit first
// (test/ is on every gtest binary's include path). Tests only.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltaguard/io/fs/file_system.h"

namespace deltaguard::testing {

class RacingFileSystem final : public FileSystem {
 public:
  RacingFileSystem(FileSystemRef inner, std::function<void()> before_commit)
      : inner_(std::move(inner)), before_commit_(std::move(before_commit)) {}

  Result<std::vector<FileInfo>> List(const std::string& dir,
                                     std::string_view start_at = {}) const override {
    return inner_->List(dir, start_at);
  }
  Result<std::string> ReadFile(const std::string& path) const override {
    return inner_->ReadFile(path);
  }
  Result<std::string> ReadRange(const std::string& path, int64_t offset,
                                int64_t length) const override {
    return inner_->ReadRange(path, offset, length);
  }
  Result<FileInfo> Stat(const std::string& path) const override {
    return inner_->Stat(path);
  }
  Result<bool> Exists(const std::string& path) const override {
    return inner_->Exists(path);
  }
  Status PutIfAbsent(const std::string& path, std::string_view data) override {
    const bool commit_file = path.find("_delta_log") != std::string::npos &&
                             path.size() > 5 && path.substr(path.size() - 5) == ".json";
    if (before_commit_ && commit_file) {
      auto hook = std::move(before_commit_);
      before_commit_ = nullptr;
      hook();
    }
    return inner_->PutIfAbsent(path, data);
  }
  Status Write(const std::string& path, std::string_view data) override {
    return inner_->Write(path, data);
  }
  Result<std::unique_ptr<OutputFile>> OpenForWrite(const std::string& path) override {
    return inner_->OpenForWrite(path);
  }
  Status Delete(const std::string& path) override { return inner_->Delete(path); }
  Status CreateDirs(const std::string& dir) override { return inner_->CreateDirs(dir); }

 private:
  FileSystemRef inner_;
  std::function<void()> before_commit_;
};

}  // namespace deltaguard::testing
