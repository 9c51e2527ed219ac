#include "deltaguard/txn/conflict_checker.h"

#include <gtest/gtest.h>

#include <string>

#include "deltaguard/txn/test_util_internal.h"

namespace deltaguard {
namespace {

using testing::TestAdd;
using testing::TestRemove;

constexpr std::string_view kRoot = "/tables/t";

class ConflictCheckerTest : public ::testing::Test {
 protected:
  // Check the staged actions/read scope against a winner made of `actions`.
  Status Check(std::vector<Action> actions, bool winner_blind_append = false) {
    if (winner_blind_append) {
      CommitInfo ci;
      ci.raw_json = R"({"operation":"WRITE","isBlindAppend":true})";
      actions.insert(actions.begin(), ci);
    }
    winner_ = WinningCommit{7, std::move(actions)};
    ConflictContext ctx;
    ctx.table_root = kRoot;
    ctx.isolation = isolation_;
    ctx.current_protocol = new_table_ ? nullptr : &protocol_;
    return CheckWinningCommit(ctx, staged_, read_, SummarizeWinningCommit(winner_));
  }

  static void ExpectConflict(const Status& st, std::string_view error_class,
                             std::string_view detail) {
    ASSERT_FALSE(st) << "expected " << error_class;
    EXPECT_EQ(st.error().code, ErrorCode::kCommitConflict);
    EXPECT_EQ(st.error().message.rfind(error_class, 0), 0u) << st.error().message;
    EXPECT_NE(st.error().message.find(kRoot), std::string::npos) << st.error().message;
    EXPECT_NE(st.error().message.find("version 7"), std::string::npos)
        << st.error().message;
    EXPECT_NE(st.error().message.find(detail), std::string::npos) << st.error().message;
  }

  static PartitionValues Part(const char* v) { return {{"part", std::string(v)}}; }

  StagedActions staged_;
  ReadScope read_;
  IsolationLevel isolation_ = IsolationLevel::kSerializable;
  Protocol protocol_ = testing::TestProtocol();
  bool new_table_ = false;
  WinningCommit winner_;
};

TEST_F(ConflictCheckerTest, BlindAppendsNeverConflict) {
  staged_.adds.push_back(TestAdd("mine.parquet"));
  EXPECT_TRUE(Check({TestAdd("theirs.parquet")}, /*winner_blind_append=*/true));
  EXPECT_TRUE(Check({TestAdd("theirs.parquet")}, /*winner_blind_append=*/false));
}

TEST_F(ConflictCheckerTest, ConcurrentAppendIntoReadPartition) {
  staged_.adds.push_back(TestAdd("mine.parquet", Part("a")));
  read_.partition_predicates.push_back(
      [](const PartitionValues& pv) { return pv.at(0).second == "a"; });
  // Serializable: a blind append into a read partition conflicts.
  ExpectConflict(Check({TestAdd("theirs.parquet", Part("a"))}, true),
                 "DELTA_CONCURRENT_APPEND", "partition [part=a]");
  // Outside the read partitions: no conflict.
  EXPECT_TRUE(Check({TestAdd("theirs.parquet", Part("b"))}, true));
  // dataChange=false adds (compaction) never count as appends.
  EXPECT_TRUE(Check({TestAdd("theirs.parquet", Part("a"), /*data_change=*/false)}));
  // WriteSerializable ignores blind appends, not other appends.
  isolation_ = IsolationLevel::kWriteSerializable;
  EXPECT_TRUE(Check({TestAdd("theirs.parquet", Part("a"))}, true));
  ExpectConflict(Check({TestAdd("theirs.parquet", Part("a"))}, false),
                 "DELTA_CONCURRENT_APPEND", "theirs.parquet");
  // ... unless this transaction changes metadata.
  staged_.metadata.push_back(testing::TestMetadata());
  ExpectConflict(Check({TestAdd("theirs.parquet", Part("a"))}, true),
                 "DELTA_CONCURRENT_APPEND", "theirs.parquet");
  // SnapshotIsolation skips the check.
  isolation_ = IsolationLevel::kSnapshotIsolation;
  staged_.metadata.clear();
  EXPECT_TRUE(Check({TestAdd("theirs.parquet", Part("a"))}, false));
}

TEST_F(ConflictCheckerTest, ConcurrentAppendAfterWholeTableRead) {
  read_.whole_table = true;
  ExpectConflict(Check({TestAdd("theirs.parquet")}, true), "DELTA_CONCURRENT_APPEND",
                 "root of the table");
}

TEST_F(ConflictCheckerTest, MetadataChangedComesBeforeFileChecks) {
  read_.whole_table = true;
  ExpectConflict(Check({testing::TestMetadata(), TestRemove("a.parquet")}),
                 "DELTA_METADATA_CHANGED", "metadata");
}

TEST_F(ConflictCheckerTest, ProtocolChanges) {
  // Both change the protocol.
  staged_.protocol.push_back(testing::IctProtocol());
  ExpectConflict(Check({Protocol{1, 3, std::nullopt, std::nullopt}}),
                 "DELTA_PROTOCOL_CHANGED", "also changes");
  staged_.protocol.clear();
  // checkConstraints (writer 3) fails concurrent transactions at upgrade.
  ExpectConflict(Check({Protocol{1, 3, std::nullopt, std::nullopt}}),
                 "DELTA_PROTOCOL_CHANGED", "checkConstraints");
  // Enabling deletionVectors does not.
  Protocol dv{3, 7, std::vector<std::string>{"deletionVectors"},
              std::vector<std::string>{"appendOnly", "invariants", "deletionVectors"}};
  EXPECT_TRUE(Check({dv}));
  // Dropping a feature does.
  protocol_ = dv;
  Protocol dropped{3, 7, std::vector<std::string>{},
                   std::vector<std::string>{"appendOnly", "invariants"}};
  ExpectConflict(Check({dropped}), "DELTA_PROTOCOL_CHANGED", "deletionVectors");
}

TEST_F(ConflictCheckerTest, ConcurrentCreation) {
  new_table_ = true;
  staged_.protocol.push_back(testing::TestProtocol());
  staged_.metadata.push_back(testing::TestMetadata());
  ExpectConflict(Check({testing::TestProtocol(), testing::TestMetadata()}),
                 "DELTA_PROTOCOL_CHANGED", "already exists");
}

TEST_F(ConflictCheckerTest, DeleteRead) {
  read_.files.insert("a.parquet");
  EXPECT_TRUE(Check({TestRemove("b.parquet")}));
  ExpectConflict(Check({TestRemove("a.parquet")}), "DELTA_CONCURRENT_DELETE_READ",
                 "'a.parquet'");
  // Even a dataChange=false remove (compaction) of a read file conflicts.
  ExpectConflict(Check({TestRemove("a.parquet", false)}), "DELTA_CONCURRENT_DELETE_READ",
                 "'a.parquet'");
}

TEST_F(ConflictCheckerTest, DeleteReadByPartition) {
  read_.partition_predicates.push_back(
      [](const PartitionValues& pv) { return !pv.empty() && pv[0].second == "a"; });
  RemoveFile in_b = TestRemove("b.parquet");
  in_b.partition_values = Part("b");
  EXPECT_TRUE(Check({in_b}));
  RemoveFile in_a = TestRemove("a.parquet");
  in_a.partition_values = Part("a");
  ExpectConflict(Check({in_a}), "DELTA_CONCURRENT_DELETE_READ", "a.parquet");
  // No partition values and no snapshot to look them up: assume it was read.
  ExpectConflict(Check({TestRemove("c.parquet")}), "DELTA_CONCURRENT_DELETE_READ",
                 "c.parquet");
}

TEST_F(ConflictCheckerTest, DeleteDelete) {
  staged_.removes.push_back(TestRemove("a.parquet"));
  EXPECT_TRUE(Check({TestRemove("b.parquet")}));
  ExpectConflict(Check({TestRemove("a.parquet")}), "DELTA_CONCURRENT_DELETE_DELETE",
                 "'a.parquet'");
  // Delete-read is reported first when the file was also read.
  read_.files.insert("a.parquet");
  ExpectConflict(Check({TestRemove("a.parquet")}), "DELTA_CONCURRENT_DELETE_READ",
                 "'a.parquet'");
}

TEST_F(ConflictCheckerTest, AppTransactions) {
  SetTransaction theirs{"app-1", 5, 1};
  // Not read and not set: no conflict.
  EXPECT_TRUE(Check({theirs}));
  // Set by us to a newer version than the winner's: no conflict.
  staged_.txns.push_back(SetTransaction{"app-1", 6, 1});
  EXPECT_TRUE(Check({theirs}));
  // Winner reached our version: conflict.
  staged_.txns[0].version = 5;
  ExpectConflict(Check({theirs}), "DELTA_CONCURRENT_TRANSACTION", "'app-1'");
  // Read by us: any update conflicts.
  staged_.txns.clear();
  read_.app_ids.insert("app-1");
  ExpectConflict(Check({SetTransaction{"app-1", 1, 1}}), "DELTA_CONCURRENT_TRANSACTION",
                 "'app-1'");
}

TEST_F(ConflictCheckerTest, DomainMetadata) {
  staged_.domains.push_back(DomainMetadata{"my.domain", "{}", false});
  EXPECT_TRUE(Check({DomainMetadata{"other", "{}", false}}));
  ExpectConflict(Check({DomainMetadata{"my.domain", "{\"x\":1}", false}}),
                 "DELTA_CONCURRENT_TRANSACTION", "'my.domain'");
}

TEST_F(ConflictCheckerTest, RowTrackingIdsCannotBeRebased) {
  AddFile a = TestAdd("mine.parquet");
  a.base_row_id = 10;
  staged_.adds.push_back(a);
  ExpectConflict(Check({TestAdd("theirs.parquet")}), "DELTA_CONCURRENT_TRANSACTION",
                 "row tracking");
}

TEST(ConflictSummaryTest, SummarizesWinner) {
  CommitInfo ci;
  ci.raw_json = R"({"inCommitTimestamp":42,"isBlindAppend":true})";
  ci.in_commit_timestamp = 42;
  WinningCommit w{
      3,
      {ci, testing::TestAdd("a"), testing::TestRemove("b"), SetTransaction{"x", 1, 1}}};
  WinningCommitSummary s = SummarizeWinningCommit(w);
  EXPECT_EQ(s.version, 3);
  EXPECT_EQ(s.in_commit_timestamp, 42);
  EXPECT_TRUE(s.is_blind_append);
  ASSERT_EQ(s.adds.size(), 1u);
  EXPECT_EQ(s.adds[0]->path, "a");
  ASSERT_EQ(s.removes.size(), 1u);
  ASSERT_EQ(s.txns.size(), 1u);
  EXPECT_FALSE(s.metadata);
  EXPECT_EQ(FormatPartitionValues({{"a", "1"}, {"b", std::nullopt}}), "[a=1, b=null]");
}

}  // namespace
}  // namespace deltaguard
