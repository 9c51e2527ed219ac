// Many threads committing blind appends to one table: every commit lands exactly once
// and versions stay contiguous (put-if-absent + rebase, digest §1.6).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "deltaguard/txn/test_util_internal.h"
#include "deltaguard/txn/transaction.h"

namespace deltaguard {
namespace {

using testing::TestAdd;
using testing::TxnTestTable;
using testing::WriteOp;

TEST(TransactionConcurrencyTest, FourThreadsTimesTwentyFiveBlindAppends) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 25;
  TxnTestTable table;
  table.Create();
  testing::NoCheckpointReader reader;
  std::vector<std::vector<std::string>> errors(kThreads);
  std::vector<int> rebased(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        // Half the writers reuse an old snapshot (more races), half reload.
        auto snap = Snapshot::Load(table.fs(), table.root(), reader,
                                   i % 2 == 0 ? SnapshotSpec{} : SnapshotSpec{0, {}});
        if (!snap) {
          errors[t].push_back(snap.error().ToString());
          continue;
        }
        TransactionOptions options;
        options.max_attempts = 1000;
        auto txn = Transaction::Begin(table.fs(), table.root(), *snap, options);
        if (!txn) {
          errors[t].push_back(txn.error().ToString());
          continue;
        }
        (*txn)->AddFile(TestAdd(fmt::format("t{}-{}.parquet", t, i)));
        auto r = (*txn)->Commit(WriteOp());
        if (!r) {
          errors[t].push_back(r.error().ToString());
          continue;
        }
        if (r->attempts > 1) ++rebased[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_TRUE(errors[t].empty()) << "thread " << t << ": " << errors[t].front();
  }

  auto versions = ListCommitVersions(*table.fs(), table.root());
  ASSERT_TRUE(versions);
  ASSERT_EQ(versions->size(), 1u + kThreads * kPerThread);
  for (size_t v = 0; v < versions->size(); ++v) EXPECT_EQ((*versions)[v], int64_t(v));

  // Each file is added by exactly one commit, each commit adds exactly one file.
  std::map<std::string, int> adds;
  for (int64_t v = 1; v <= kThreads * kPerThread; ++v) {
    auto actions = ReadCommit(*table.fs(), table.root(), v);
    ASSERT_TRUE(actions) << actions.error().ToString();
    int n = 0;
    for (const Action& a : *actions) {
      if (const auto* add = std::get_if<AddFile>(&a)) {
        ++adds[add->path];
        ++n;
      }
    }
    EXPECT_EQ(n, 1) << "version " << v;
  }
  EXPECT_EQ(adds.size(), size_t{kThreads * kPerThread});
  for (const auto& [path, count] : adds) EXPECT_EQ(count, 1) << path;
  SnapshotRef snap = table.Load();
  ASSERT_TRUE(snap);
  EXPECT_EQ(snap->version(), kThreads * kPerThread);
  EXPECT_EQ(snap->files().size(), size_t{kThreads * kPerThread});
  int total_rebased = 0;
  for (int r : rebased) total_rebased += r;
  EXPECT_GT(total_rebased, 0) << "writers from snapshot 0 must have rebased";
}

}  // namespace
}  // namespace deltaguard
