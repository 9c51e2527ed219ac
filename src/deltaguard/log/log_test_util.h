/// \file deltaguard/log/log_test_util.h
/// Test helpers for the log module: temporary tables with hand-written JSON commits, a
/// fake CheckpointReader that reads NDJSON "checkpoints", and action-line builders.
/// Test-only (included by *_test.cc); not compiled into the library.
#pragma once

#include <fmt/format.h>
#include <sys/time.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "deltaguard/log/actions.h"
#include "deltaguard/log/log_path.h"
#include "deltaguard/log/snapshot.h"
#include "testing/temp_dir.h"

namespace deltaguard::testing {

inline void WriteText(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

/// Set a file's modification time (milliseconds since the epoch).
inline void SetMtime(const std::string& path, int64_t ms) {
  struct timeval tv[2];
  for (auto& t : tv) {
    t.tv_sec = ms / 1000;
    t.tv_usec = (ms % 1000) * 1000;
  }
  ::utimes(path.c_str(), tv);
}

inline std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// ---- action lines ----------------------------------------------------------------

inline std::string ProtocolLine(int r = 1, int w = 2,
                                const std::vector<std::string>& rf = {},
                                const std::vector<std::string>& wf = {}) {
  auto list = [](const std::vector<std::string>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ",\"" : "\"") + v[i] + "\"";
    return s + "]";
  };
  std::string out =
      fmt::format(R"({{"protocol":{{"minReaderVersion":{},"minWriterVersion":{})", r, w);
  if (r >= 3) out += ",\"readerFeatures\":" + list(rf);
  if (w >= 7) out += ",\"writerFeatures\":" + list(wf);
  return out + "}}";
}

inline constexpr const char* kSchemaIdLong =
    R"({\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]})";

/// A metaData line; `config` is the inner JSON of the configuration object.
inline std::string MetadataLine(const std::string& config = "",
                                const std::string& id = "test-table-id") {
  return fmt::format(
      R"({{"metaData":{{"id":"{}","format":{{"provider":"parquet","options":{{}}}},"schemaString":"{}","partitionColumns":[],"configuration":{{{}}},"createdTime":1700000000000}}}})",
      id, kSchemaIdLong, config);
}

inline std::string AddLine(const std::string& path, int64_t size = 100,
                           const std::string& dv = "", int64_t num_records = 10) {
  std::string dv_json;
  if (!dv.empty()) {
    dv_json = fmt::format(
        R"(,"deletionVector":{{"storageType":"u","pathOrInlineDv":"{}","offset":1,"sizeInBytes":36,"cardinality":2}})",
        dv);
  }
  return fmt::format(
      R"({{"add":{{"path":"{}","partitionValues":{{}},"size":{},"modificationTime":1700000000000,"dataChange":true,"stats":"{{\"numRecords\":{}}}"{}}}}})",
      path, size, num_records, dv_json);
}

inline std::string RemoveLine(const std::string& path, const std::string& dv = "") {
  std::string dv_json;
  if (!dv.empty()) {
    dv_json = fmt::format(
        R"(,"deletionVector":{{"storageType":"u","pathOrInlineDv":"{}","offset":1,"sizeInBytes":36,"cardinality":2}})",
        dv);
  }
  return fmt::format(
      R"({{"remove":{{"path":"{}","deletionTimestamp":1700000000000,"dataChange":true{}}}}})",
      path, dv_json);
}

inline std::string CommitInfoLine(const std::string& op = "WRITE",
                                  std::optional<int64_t> ict = std::nullopt) {
  std::string ict_json = ict ? fmt::format(R"("inCommitTimestamp":{},)", *ict) : "";
  return fmt::format(
      R"({{"commitInfo":{{{}"timestamp":1700000000000,"operation":"{}","operationParameters":{{"mode":"Append"}},"engineInfo":"test"}}}})",
      ict_json, op);
}

inline std::string TxnLine(const std::string& app, int64_t version) {
  return fmt::format(R"({{"txn":{{"appId":"{}","version":{},"lastUpdated":1}}}})", app,
                     version);
}

inline std::string DomainLine(const std::string& domain, const std::string& conf,
                              bool removed) {
  return fmt::format(
      R"({{"domainMetadata":{{"domain":"{}","configuration":"{}","removed":{}}}}})",
      domain, conf, removed ? "true" : "false");
}

/// A table under a temp dir, written commit by commit.
class TestTable {
 public:
  TestTable() : root_(dir_.path() + "/table"), log_(root_ + "/_delta_log") {
    std::filesystem::create_directories(log_);
  }
  const std::string& root() const { return root_; }
  const std::string& log_dir() const { return log_; }

  /// Write `<version>.json`; returns its path.
  std::string Commit(int64_t version, const std::vector<std::string>& lines) {
    std::string path = log_ + "/" + CommitFileName(version);
    WriteText(path, Join(lines));
    return path;
  }
  /// Write a log file by name (checkpoints as NDJSON for FakeCheckpointReader).
  std::string File(const std::string& name, const std::vector<std::string>& lines) {
    std::string path = log_ + "/" + name;
    WriteText(path, Join(lines));
    return path;
  }
  void LastCheckpoint(const std::string& json) {
    WriteText(log_ + "/_last_checkpoint", json);
  }

 private:
  TempDir dir_;
  std::string root_;
  std::string log_;
};

/// Reads "Parquet" checkpoints written as NDJSON action lines; records every path read
/// and fails for paths registered with FailOn().
class FakeCheckpointReader final : public CheckpointReader {
 public:
  Result<std::vector<Action>> ReadCheckpoint(const std::string& path) const override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      reads_.push_back(path);
      if (fail_.count(BaseName(path).data()) || fail_.count(path)) {
        return MakeError(ErrorCode::kCorruptData, "fake: cannot read checkpoint '{}'",
                         path);
      }
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return MakeError(ErrorCode::kNotFound, "fake: no checkpoint '{}'", path);
    std::string content((std::istreambuf_iterator<char>(in)),
                        std::istreambuf_iterator<char>());
    return ParseCommitFile(content, path);
  }
  void FailOn(const std::string& name_or_path) { fail_.insert(name_or_path); }
  std::vector<std::string> reads() const {
    std::lock_guard<std::mutex> lock(mu_);
    return reads_;
  }

 private:
  mutable std::mutex mu_;
  mutable std::vector<std::string> reads_;
  std::set<std::string> fail_;
};

inline FileSystemRef LocalFs() { return MakeLocalFileSystem(); }

/// The paths of a snapshot's live files, in snapshot order.
inline std::vector<std::string> FilePaths(const Snapshot& s) {
  std::vector<std::string> out;
  for (const auto& f : s.files()) out.push_back(f.path);
  return out;
}

/// Load the snapshot of `t` through `reader` on the local file system.
inline Result<SnapshotRef> LoadTable(const TestTable& t, const CheckpointReader& reader,
                                     SnapshotSpec spec = {}) {
  return Snapshot::Load(LocalFs(), t.root(), reader, spec);
}

}  // namespace deltaguard::testing
