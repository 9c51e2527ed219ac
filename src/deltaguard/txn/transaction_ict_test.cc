// In-commit timestamps (PROTOCOL.md "In-Commit Timestamps") written by Transaction.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <atomic>
#include <memory>
#include <string>

#include "deltaguard/protocol/table_properties.h"
#include "deltaguard/txn/test_util_internal.h"
#include "deltaguard/txn/transaction.h"

namespace deltaguard {
namespace {

using testing::IctProtocol;
using testing::TestAdd;
using testing::TestMetadata;
using testing::TestProtocol;
using testing::TxnTestTable;
using testing::WriteOp;

constexpr std::pair<const char*, const char*> kIctOn = {"delta.enableInCommitTimestamps",
                                                        "true"};

// A clock tests can set.
struct ManualClock {
  std::shared_ptr<std::atomic<int64_t>> now = std::make_shared<std::atomic<int64_t>>(0);
  TransactionOptions Options() const {
    TransactionOptions o;
    auto n = now;
    o.clock_ms = [n] { return n->load(); };
    return o;
  }
};

std::optional<int64_t> IctOf(const TxnTestTable& table, int64_t version) {
  auto actions = ReadCommit(*table.fs(), table.root(), version);
  EXPECT_TRUE(actions) << actions.error().ToString();
  if (!actions || actions->empty()) return std::nullopt;
  const auto* ci = std::get_if<CommitInfo>(&actions->front());
  EXPECT_NE(ci, nullptr) << "commitInfo must be the first action";
  return ci ? ci->in_commit_timestamp : std::nullopt;
}

void CreateIctTable(const TxnTestTable& table, const ManualClock& clock) {
  auto txn = Transaction::Begin(table.fs(), table.root(), nullptr, clock.Options());
  ASSERT_TRUE(txn);
  (*txn)->SetProtocol(IctProtocol());
  (*txn)->SetMetadata(TestMetadata({{kIctOn.first, kIctOn.second}}));
  auto r = (*txn)->Commit(WriteOp());
  ASSERT_TRUE(r) << r.error().ToString();
}

TEST(InCommitTimestampTest, CreatedWithIctWritesItFromVersionZero) {
  TxnTestTable table;
  ManualClock clock;
  clock.now->store(5000);
  CreateIctTable(table, clock);
  EXPECT_EQ(IctOf(table, 0), 5000);
  SnapshotRef snap = table.Load();
  ASSERT_TRUE(snap);
  EXPECT_EQ(snap->timestamp_ms(), 5000);
  // Enabled at creation: no enablement properties (absent means since version 0).
  EXPECT_FALSE(snap->metadata().GetConfig(kInCommitTimestampEnablementVersionProperty));
}

TEST(InCommitTimestampTest, MonotonicWhenTheClockGoesBack) {
  TxnTestTable table;
  ManualClock clock;
  clock.now->store(5000);
  CreateIctTable(table, clock);
  clock.now->store(1000);  // clock skew: earlier than the last commit
  for (int64_t v = 1; v <= 3; ++v) {
    auto txn =
        Transaction::Begin(table.fs(), table.root(), table.Load(), clock.Options());
    ASSERT_TRUE(txn);
    (*txn)->AddFile(TestAdd("f" + std::to_string(v) + ".parquet"));
    auto r = (*txn)->Commit(WriteOp());
    ASSERT_TRUE(r) << r.error().ToString();
    EXPECT_EQ(IctOf(table, v), 5000 + v);
  }
  EXPECT_EQ(table.Load()->timestamp_ms(), 5003);
  clock.now->store(9000);  // a clock ahead wins
  auto txn = Transaction::Begin(table.fs(), table.root(), table.Load(), clock.Options());
  (*txn)->AddFile(TestAdd("late.parquet"));
  ASSERT_TRUE((*txn)->Commit(WriteOp()));
  EXPECT_EQ(IctOf(table, 4), 9000);
}

TEST(InCommitTimestampTest, RecomputedOnRebase) {
  TxnTestTable table;
  ManualClock clock;
  clock.now->store(5000);
  CreateIctTable(table, clock);
  clock.now->store(100);
  auto t1 = Transaction::Begin(table.fs(), table.root(), table.Load(), clock.Options());
  auto t2 = Transaction::Begin(table.fs(), table.root(), table.Load(), clock.Options());
  (*t1)->AddFile(TestAdd("a.parquet"));
  (*t2)->AddFile(TestAdd("b.parquet"));
  ASSERT_TRUE((*t1)->Commit(WriteOp()));
  auto r = (*t2)->Commit(WriteOp());
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->version, 2);
  EXPECT_EQ(IctOf(table, 1), 5001);
  EXPECT_EQ(IctOf(table, 2), 5002);
}

TEST(InCommitTimestampTest, EnablingOnExistingTableRecordsEnablement) {
  TxnTestTable table;
  table.Create();  // v0 without ICT
  SnapshotRef v0 = table.Load();
  ManualClock clock;
  clock.now->store(1);  // far behind v0's file time: ICT must still be after it
  auto enable = Transaction::Begin(table.fs(), table.root(), v0, clock.Options());
  (*enable)->SetProtocol(IctProtocol());
  (*enable)->SetMetadata(TestMetadata({{kIctOn.first, kIctOn.second}}));
  // A blind append wins version 1 first; enabling rebases to version 2.
  auto append = table.Begin();
  append->AddFile(TestAdd("a.parquet"));
  ASSERT_TRUE(append->Commit(WriteOp()));
  auto mtime1 = table.fs()->Stat(table.CommitPath(1));
  ASSERT_TRUE(mtime1);
  OperationInfo op;
  op.operation = "SET TBLPROPERTIES";
  auto r = (*enable)->Commit(op);
  ASSERT_TRUE(r) << r.error().ToString();
  ASSERT_EQ(r->version, 2);
  std::optional<int64_t> ict = IctOf(table, 2);
  ASSERT_TRUE(ict);
  EXPECT_EQ(*ict, mtime1->modification_time + 1);
  SnapshotRef snap = table.Load();
  ASSERT_TRUE(snap);
  EXPECT_EQ(snap->metadata().GetConfig(kInCommitTimestampEnablementVersionProperty), "2");
  EXPECT_EQ(snap->metadata().GetConfig(kInCommitTimestampEnablementTimestampProperty),
            std::to_string(*ict));
  EXPECT_EQ(snap->timestamp_ms(), *ict);
  // Versions before enablement carry no ICT.
  EXPECT_EQ(IctOf(table, 1), std::nullopt);
}

TEST(InCommitTimestampTest, NeedsTheWriterFeature) {
  TxnTestTable table;
  auto txn = Transaction::Begin(table.fs(), table.root(), nullptr);
  (*txn)->SetProtocol(TestProtocol());
  (*txn)->SetMetadata(TestMetadata({{kIctOn.first, kIctOn.second}}));
  auto r = (*txn)->Commit(WriteOp());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message.find("inCommitTimestamp"), std::string::npos);
}

}  // namespace
}  // namespace deltaguard
