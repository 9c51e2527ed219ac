/// \file deltaguard/txn/test_util_internal.h
/// Test helpers for the txn module: a snapshot loader without Parquet checkpoints,
/// metadata/protocol/add builders and a table created through Transaction.
/// Test-only (included by *_test.cc); not compiled into the library.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "deltaguard/log/actions.h"
#include "deltaguard/log/log_path.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/txn/transaction.h"
#include "testing/temp_dir.h"

namespace deltaguard::testing {

/// The txn tests never write checkpoints.
class NoCheckpointReader final : public CheckpointReader {
 public:
  Result<std::vector<Action>> ReadCheckpoint(const std::string& path) const override {
    return MakeError(ErrorCode::kUnsupportedFeature, "txn tests read no checkpoint '{}'",
                     path);
  }
};

inline constexpr const char* kTxnTestSchema =
    R"({"type":"struct","fields":[)"
    R"({"name":"id","type":"long","nullable":true,"metadata":{}},)"
    R"({"name":"part","type":"string","nullable":true,"metadata":{}}]})";

inline Metadata TestMetadata(StringMap config = {}, bool partitioned = false) {
  Metadata m;
  m.id = "00000000-0000-4000-8000-000000000001";
  m.schema_string = kTxnTestSchema;
  if (partitioned) m.partition_columns = {"part"};
  m.configuration = std::move(config);
  m.created_time = 1700000000000;
  return m;
}

inline Protocol TestProtocol() { return Protocol{1, 2, std::nullopt, std::nullopt}; }

inline Protocol IctProtocol() {
  return Protocol{1, 7, std::nullopt, std::vector<std::string>{"inCommitTimestamp"}};
}

inline AddFile TestAdd(const std::string& path, PartitionValues pv = {},
                       bool data_change = true) {
  AddFile a;
  a.path = path;
  a.partition_values = std::move(pv);
  a.size = 100;
  a.modification_time = 1700000000000;
  a.data_change = data_change;
  a.stats = R"({"numRecords":1})";
  return a;
}

inline RemoveFile TestRemove(const std::string& path, bool data_change = true) {
  RemoveFile r;
  r.path = path;
  r.deletion_timestamp = 1700000000000;
  r.data_change = data_change;
  return r;
}

inline OperationInfo WriteOp() {
  OperationInfo op;
  op.operation = "WRITE";
  op.parameters_json = {{"mode", "\"Append\""}, {"partitionBy", "[]"}};
  op.metrics = {{"numFiles", 1}, {"numOutputRows", 1}};
  return op;
}

/// A temp directory with a table root path inside it and a local file system.
class TxnTestTable {
 public:
  TxnTestTable() : root_(dir_.path() + "/table"), fs_(MakeLocalFileSystem()) {}
  const std::string& root() const { return root_; }
  std::string log_dir() const { return root_ + "/_delta_log"; }
  std::string CommitPath(int64_t v) const { return log_dir() + "/" + CommitFileName(v); }
  const FileSystemRef& fs() const { return fs_; }

  SnapshotRef Load() const {
    Result<SnapshotRef> s = Snapshot::Load(fs_, root_, reader_);
    EXPECT_TRUE(s) << s.error().ToString();
    return s ? *s : nullptr;
  }

  /// Commit version 0 (protocol + metadata [+ adds]) through Transaction.
  void Create(Metadata m = TestMetadata(), Protocol p = TestProtocol(),
              std::vector<AddFile> adds = {}) {
    auto txn = Transaction::Begin(fs_, root_, nullptr, Options());
    ASSERT_TRUE(txn) << txn.error().ToString();
    (*txn)->SetProtocol(std::move(p));
    (*txn)->SetMetadata(std::move(m));
    for (auto& a : adds) (*txn)->AddFile(std::move(a));
    OperationInfo op;
    op.operation = "CREATE TABLE";
    auto r = (*txn)->Commit(op);
    ASSERT_TRUE(r) << r.error().ToString();
    ASSERT_EQ(r->version, 0);
  }

  /// Begin on the latest snapshot.
  std::unique_ptr<Transaction> Begin(TransactionOptions options = Options()) const {
    auto txn = Transaction::Begin(fs_, root_, Load(), std::move(options));
    EXPECT_TRUE(txn) << txn.error().ToString();
    return txn ? std::move(*txn) : nullptr;
  }

  /// Options with a deterministic, increasing clock.
  static TransactionOptions Options() {
    TransactionOptions o;
    auto tick = std::make_shared<std::atomic<int64_t>>(1800000000000);
    o.clock_ms = [tick] { return tick->fetch_add(1000); };
    return o;
  }

  std::string ReadText(const std::string& path) const {
    auto t = fs_->ReadFile(path);
    EXPECT_TRUE(t) << t.error().ToString();
    return t ? *t : std::string();
  }

 private:
  TempDir dir_;
  std::string root_;
  FileSystemRef fs_;
  NoCheckpointReader reader_;
};

}  // namespace deltaguard::testing
