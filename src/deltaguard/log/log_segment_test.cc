#include "deltaguard/log/log_segment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/log/log_test_util.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

using testing::TestTable;

std::vector<int64_t> Versions(const LogSegment& seg) {
  std::vector<int64_t> v;
  for (const auto& c : seg.commits) v.push_back(c.version);
  return v;
}

// Commits 0..n-1 with trivial content (segment building never parses them).
void Commits(TestTable& t, int64_t from, int64_t to) {
  for (int64_t v = from; v <= to; ++v)
    t.Commit(v, {testing::AddLine("f" + std::to_string(v))});
}

TEST(LastCheckpointTest, ReadsValidHintAndIgnoresBadOnes) {
  TestTable t;
  auto fs = testing::LocalFs();
  EXPECT_FALSE(ReadLastCheckpointHint(*fs, t.log_dir()).has_value());  // missing
  t.LastCheckpoint(R"({"version":10,"size":13,"parts":3,"v2Checkpoint":{"path":"x"}})");
  auto hint = ReadLastCheckpointHint(*fs, t.log_dir());
  ASSERT_TRUE(hint.has_value());
  EXPECT_EQ(hint->version, 10);
  EXPECT_EQ(hint->parts, 3);
  t.LastCheckpoint(R"({"size":4,"parts":null,"version":2})");
  EXPECT_EQ(ReadLastCheckpointHint(*fs, t.log_dir())->version, 2);
  for (const char* bad : {R"({"version":10,"si)", "", "[]", R"({"version":"10"})",
                          R"({"version":-1})", "\x01\x02garbage"}) {
    t.LastCheckpoint(bad);
    EXPECT_FALSE(ReadLastCheckpointHint(*fs, t.log_dir()).has_value()) << bad;
  }
}

TEST(ListLogTest, GroupsCheckpointsAndDropsIncompleteMultiPart) {
  TestTable t;
  Commits(t, 0, 6);
  t.File(MultiPartCheckpointFileName(2, 1, 2), {});
  t.File(MultiPartCheckpointFileName(2, 2, 2), {});
  t.File(MultiPartCheckpointFileName(4, 1, 3), {});  // parts 2 and 3 missing
  t.File(MultiPartCheckpointFileName(4, 3, 3), {});
  t.File(CheckpointFileName(5), {});
  t.File("00000000000000000005.checkpoint.11111111-2222-3333-4444-555555555555.json", {});
  t.File("00000000000000000005.crc", {});
  t.File(".00000000000000000006.json.crc", {});
  t.File("00000000000000000007.json.tmp", {});
  t.File("_staged_commits/00000000000000000007.uuid.json", {});
  auto listing = ListLog(*testing::LocalFs(), t.log_dir(), 0);
  ASSERT_TRUE(listing.has_value()) << listing.error().message;
  ASSERT_EQ(listing->commits.size(), 7u);
  EXPECT_EQ(listing->commits.back().version, 6);
  ASSERT_EQ(listing->checkpoints.size(), 3u);
  EXPECT_EQ(listing->checkpoints[0].version, 2);
  EXPECT_EQ(listing->checkpoints[0].type, LogFileType::kCheckpointMultiPart);
  ASSERT_EQ(listing->checkpoints[0].files.size(), 2u);
  EXPECT_THAT(listing->checkpoints[0].files[0].path, HasSubstr("0000000001.0000000002"));
  // Two complete checkpoints at 5: classic preferred.
  EXPECT_EQ(listing->checkpoints[1].type, LogFileType::kCheckpointClassic);
  EXPECT_EQ(listing->checkpoints[2].type, LogFileType::kCheckpointV2Json);
}

TEST(LogSegmentTest, NewestCompleteCheckpointAndContiguousCommits) {
  TestTable t;
  Commits(t, 0, 12);
  t.File(CheckpointFileName(5), {});
  t.File(MultiPartCheckpointFileName(10, 1, 2), {});  // incomplete: ignored
  auto seg = BuildLogSegment(*testing::LocalFs(), t.root(), std::nullopt);
  ASSERT_TRUE(seg.has_value()) << seg.error().message;
  EXPECT_EQ(seg->version, 12);
  EXPECT_EQ(seg->latest_version, 12);
  ASSERT_EQ(seg->checkpoints.size(), 1u);
  EXPECT_EQ(seg->checkpoints[0].version, 5);
  EXPECT_TRUE(seg->can_start_from_zero);
  EXPECT_EQ(Versions(*seg).front(), 0);  // from zero is a fallback, so all are kept
  EXPECT_THAT(seg->version_file.path, HasSubstr(CommitFileName(12)));
}

TEST(LogSegmentTest, TimeTravelNeverUsesNewerCheckpoint) {
  TestTable t;
  Commits(t, 0, 12);
  t.File(CheckpointFileName(4), {});
  t.File(CheckpointFileName(10), {});
  t.LastCheckpoint(R"({"version":10,"size":1})");
  auto seg = BuildLogSegment(*testing::LocalFs(), t.root(), 7);
  ASSERT_TRUE(seg.has_value()) << seg.error().message;
  EXPECT_EQ(seg->version, 7);
  ASSERT_EQ(seg->checkpoints.size(), 1u);
  EXPECT_EQ(seg->checkpoints[0].version, 4);
  EXPECT_EQ(Versions(*seg).back(), 7);
  EXPECT_FALSE(seg->listed_from_hint);
}

TEST(LogSegmentTest, HintedListingStartsAtHint) {
  TestTable t;
  Commits(t, 0, 12);
  t.File(CheckpointFileName(4), {});
  t.File(CheckpointFileName(10), {});
  t.LastCheckpoint(R"({"version":10,"size":1})");
  auto seg = BuildLogSegment(*testing::LocalFs(), t.root(), std::nullopt);
  ASSERT_TRUE(seg.has_value()) << seg.error().message;
  EXPECT_TRUE(seg->listed_from_hint);
  ASSERT_EQ(seg->checkpoints.size(), 1u);
  EXPECT_EQ(seg->checkpoints[0].version, 10);
  EXPECT_EQ(Versions(*seg), (std::vector<int64_t>{11, 12}));
  // Without the hint the older checkpoint is listed too.
  auto full = BuildLogSegment(*testing::LocalFs(), t.root(), std::nullopt, false);
  ASSERT_TRUE(full.has_value());
  EXPECT_EQ(full->checkpoints.size(), 2u);
}

TEST(LogSegmentTest, StaleOrCorruptHintFallsBackToFullListing) {
  TestTable t;
  Commits(t, 0, 8);
  t.File(CheckpointFileName(3), {});
  auto fs = testing::LocalFs();
  // Hint to a checkpoint that was deleted (newer than the real one).
  t.LastCheckpoint(R"({"version":6,"size":1})");
  auto seg = BuildLogSegment(*fs, t.root(), std::nullopt);
  ASSERT_TRUE(seg.has_value()) << seg.error().message;
  EXPECT_EQ(seg->version, 8);
  ASSERT_EQ(seg->checkpoints.size(), 1u);
  EXPECT_EQ(seg->checkpoints[0].version, 3);
  // Hint beyond the end of the log.
  t.LastCheckpoint(R"({"version":100,"size":1})");
  seg = BuildLogSegment(*fs, t.root(), std::nullopt);
  ASSERT_TRUE(seg.has_value()) << seg.error().message;
  EXPECT_EQ(seg->version, 8);
  // Truncated hint.
  t.LastCheckpoint(R"({"vers)");
  seg = BuildLogSegment(*fs, t.root(), std::nullopt);
  ASSERT_TRUE(seg.has_value()) << seg.error().message;
  EXPECT_EQ(seg->checkpoints[0].version, 3);
  // Older stale hint: still fine, the newer checkpoint is found.
  t.File(CheckpointFileName(6), {});
  t.LastCheckpoint(R"({"version":3,"size":1})");
  seg = BuildLogSegment(*fs, t.root(), std::nullopt);
  ASSERT_TRUE(seg.has_value());
  EXPECT_EQ(seg->checkpoints[0].version, 6);
}

TEST(LogSegmentTest, GapAfterCheckpointIsCorruptLog) {
  TestTable t;
  Commits(t, 0, 11);
  Commits(t, 13, 13);
  t.File(CheckpointFileName(10), {});
  auto seg = BuildLogSegment(*testing::LocalFs(), t.root(), std::nullopt);
  ASSERT_FALSE(seg.has_value());
  EXPECT_EQ(seg.error().code, ErrorCode::kCorruptLog);
  EXPECT_THAT(seg.error().message, HasSubstr(t.root()));
  EXPECT_THAT(seg.error().message,
              HasSubstr("missing commit version 12 (found 11 and 13)"));
  // Before the gap the table is still readable.
  auto old = BuildLogSegment(*testing::LocalFs(), t.root(), 11);
  ASSERT_TRUE(old.has_value()) << old.error().message;
}

TEST(LogSegmentTest, GapCoveredByCheckpointIsFine) {
  TestTable t;
  Commits(t, 0, 6);
  Commits(t, 8, 13);  // 7 missing but checkpoint 10 covers it
  t.File(CheckpointFileName(10), {});
  auto seg = BuildLogSegment(*testing::LocalFs(), t.root(), std::nullopt);
  ASSERT_TRUE(seg.has_value()) << seg.error().message;
  EXPECT_FALSE(seg->can_start_from_zero);
  EXPECT_EQ(Versions(*seg), (std::vector<int64_t>{11, 12, 13}));
  auto gap = BuildLogSegment(*testing::LocalFs(), t.root(), 9);
  ASSERT_FALSE(gap.has_value());
  EXPECT_EQ(gap.error().code, ErrorCode::kCorruptLog);
  EXPECT_THAT(gap.error().message, HasSubstr("missing commit version 7 (found 6 and 8)"));
}

TEST(LogSegmentTest, MissingFirstCommitWithoutCheckpoint) {
  TestTable t;
  Commits(t, 3, 5);
  auto seg = BuildLogSegment(*testing::LocalFs(), t.root(), std::nullopt);
  ASSERT_FALSE(seg.has_value());
  EXPECT_EQ(seg.error().code, ErrorCode::kCorruptLog);
  EXPECT_THAT(seg.error().message, HasSubstr("00000000000000000000.json"));
  EXPECT_THAT(seg.error().message, HasSubstr("earliest commit is version 3"));
}

TEST(LogSegmentTest, VersionOutOfRange) {
  TestTable t;
  Commits(t, 10, 20);  // history before 10 cleaned up
  t.File(CheckpointFileName(10), {});
  auto fs = testing::LocalFs();
  auto future = BuildLogSegment(*fs, t.root(), 21);
  ASSERT_FALSE(future.has_value());
  EXPECT_EQ(future.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(future.error().message, HasSubstr("latest version is 20"));
  auto past = BuildLogSegment(*fs, t.root(), 5);
  ASSERT_FALSE(past.has_value());
  EXPECT_EQ(past.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(past.error().message, HasSubstr("earliest available version is 10"));
  auto at = BuildLogSegment(*fs, t.root(), 10);
  ASSERT_TRUE(at.has_value()) << at.error().message;
  EXPECT_TRUE(Versions(*at).empty());
  EXPECT_THAT(at->version_file.path, HasSubstr(CommitFileName(10)));
  EXPECT_EQ(BuildLogSegment(*fs, t.root(), -1).error().code, ErrorCode::kInvalidArgument);
}

TEST(LogSegmentTest, CheckpointOnlyTable) {
  TestTable t;
  t.File(CheckpointFileName(3), {});
  auto seg = BuildLogSegment(*testing::LocalFs(), t.root(), std::nullopt);
  ASSERT_TRUE(seg.has_value()) << seg.error().message;
  EXPECT_EQ(seg->version, 3);
  EXPECT_THAT(seg->version_file.path, HasSubstr("checkpoint.parquet"));
}

TEST(LogSegmentTest, NotADeltaTable) {
  testing::TempDir dir;
  auto seg = BuildLogSegment(*testing::LocalFs(), dir.path(), std::nullopt);
  ASSERT_FALSE(seg.has_value());
  EXPECT_EQ(seg.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(seg.error().message, HasSubstr("no _delta_log"));
  TestTable empty;
  auto none = BuildLogSegment(*testing::LocalFs(), empty.root(), std::nullopt);
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(none.error().message, HasSubstr("no commits"));
}

}  // namespace
}  // namespace deltaguard
