#include "deltaguard/log/history.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/log/log_test_util.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

using namespace testing;  // NOLINT: test helpers

constexpr int64_t kT0 = 1600000000000;  // mtime of commit 0

// Commits 0..3 with mtimes kT0 + v * 1000 (no in-commit timestamps).
void MakeMtimeTable(TestTable& t) {
  t.Commit(0, {CommitInfoLine("CREATE"), ProtocolLine(), MetadataLine(), AddLine("a")});
  t.Commit(1, {CommitInfoLine(), AddLine("b")});
  t.Commit(2, {CommitInfoLine(), AddLine("c")});
  t.Commit(3, {CommitInfoLine("DELETE"), RemoveLine("a")});
  for (int v = 0; v <= 3; ++v)
    SetMtime(t.log_dir() + "/" + CommitFileName(v), kT0 + v * 1000);
}

TEST(TimeTravelTest, ByModificationTime) {
  TestTable t;
  FakeCheckpointReader reader;
  MakeMtimeTable(t);
  auto fs = LocalFs();
  EXPECT_EQ(*VersionAtTimestamp(fs, t.root(), reader, kT0), 0);
  EXPECT_EQ(*VersionAtTimestamp(fs, t.root(), reader, kT0 + 1999), 1);
  EXPECT_EQ(*VersionAtTimestamp(fs, t.root(), reader, kT0 + 2000), 2);
  EXPECT_EQ(*VersionAtTimestamp(fs, t.root(), reader, kT0 + 3000), 3);  // latest, exact
  // Spark refuses an instant after the latest commit instead of returning it.
  auto after = VersionAtTimestamp(fs, t.root(), reader, kT0 + 3001);
  ASSERT_FALSE(after.has_value());
  EXPECT_EQ(after.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(after.error().message,
              HasSubstr("DELTA_TIMESTAMP_GREATER_THAN_COMMIT: The provided timestamp "
                        "(2020-09-13T12:26:43.001Z) is after the latest version"));
  EXPECT_THAT(after.error().message, HasSubstr("before or at 2020-09-13T12:26:43.000Z"));
  auto before = VersionAtTimestamp(fs, t.root(), reader, kT0 - 1);
  ASSERT_FALSE(before.has_value());
  EXPECT_EQ(before.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(before.error().message,
              HasSubstr("DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION: The provided "
                        "timestamp (2020-09-13T12:26:39.999Z) is before the earliest"));
  EXPECT_THAT(before.error().message, HasSubstr("version 0 at 2020-09-13T12:26:40.000Z"));

  auto snap =
      Snapshot::Load(fs, t.root(), reader, SnapshotSpec{std::nullopt, kT0 + 2500});
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  EXPECT_EQ((*snap)->version(), 2);
  EXPECT_EQ((*snap)->files().size(), 3u);
}

TEST(TimeTravelTest, NonMonotonicMtimesAreMadeIncreasing) {
  TestTable t;
  FakeCheckpointReader reader;
  MakeMtimeTable(t);
  // Commit 2's file looks older than commit 1's: it counts as kT0 + 1001.
  SetMtime(t.log_dir() + "/" + CommitFileName(2), kT0 + 500);
  auto fs = LocalFs();
  EXPECT_EQ(*VersionAtTimestamp(fs, t.root(), reader, kT0 + 1000), 1);
  EXPECT_EQ(*VersionAtTimestamp(fs, t.root(), reader, kT0 + 1001), 2);
  EXPECT_EQ(*VersionAtTimestamp(fs, t.root(), reader, kT0 + 600), 0);
}

TEST(TimeTravelTest, InCommitTimestampsAfterEnablement) {
  TestTable t;
  FakeCheckpointReader reader;
  MakeMtimeTable(t);
  std::string conf =
      R"("delta.enableInCommitTimestamps":"true","delta.inCommitTimestampEnablementVersion":"4")";
  constexpr int64_t kIct = 1900000000000;  // far later than the mtimes
  t.Commit(4, {CommitInfoLine("SET TBLPROPERTIES", kIct),
               ProtocolLine(1, 7, {}, {"inCommitTimestamp"}), MetadataLine(conf)});
  t.Commit(5, {CommitInfoLine("WRITE", kIct + 100), AddLine("d")});
  t.Commit(6, {CommitInfoLine("WRITE", kIct + 200), AddLine("e")});
  // mtimes of the ICT commits must not matter.
  for (int v = 4; v <= 6; ++v) SetMtime(t.log_dir() + "/" + CommitFileName(v), kT0 + 50);
  auto fs = LocalFs();
  EXPECT_EQ(*VersionAtTimestamp(fs, t.root(), reader, kIct), 4);
  EXPECT_EQ(*VersionAtTimestamp(fs, t.root(), reader, kIct + 150), 5);
  EXPECT_EQ(*VersionAtTimestamp(fs, t.root(), reader, kIct + 200), 6);
  auto after = VersionAtTimestamp(fs, t.root(), reader, kIct + 201);
  ASSERT_FALSE(after.has_value());
  EXPECT_THAT(after.error().message, HasSubstr("DELTA_TIMESTAMP_GREATER_THAN_COMMIT"));
  EXPECT_EQ(*VersionAtTimestamp(fs, t.root(), reader, kIct - 1), 3);  // pre-ICT by mtime
  EXPECT_EQ(*VersionAtTimestamp(fs, t.root(), reader, kT0 + 1500), 1);
  auto snap =
      Snapshot::Load(fs, t.root(), reader, SnapshotSpec{std::nullopt, kIct + 150});
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  EXPECT_EQ((*snap)->version(), 5);
  EXPECT_EQ((*snap)->timestamp_ms(), kIct + 100);

  // History reports the same timestamps.
  auto history = ReadHistory(*fs, t.root());
  ASSERT_TRUE(history.has_value()) << history.error().message;
  ASSERT_EQ(history->size(), 7u);
  EXPECT_EQ((*history)[1].timestamp_ms, kT0 + 1000);
  EXPECT_EQ((*history)[4].timestamp_ms, kIct);
  EXPECT_EQ((*history)[6].timestamp_ms, kIct + 200);
}

TEST(TimeTravelTest, IctEnabledAtCreation) {
  TestTable t;
  FakeCheckpointReader reader;
  std::string conf = R"("delta.enableInCommitTimestamps":"true")";
  t.Commit(0, {CommitInfoLine("CREATE", 5000),
               ProtocolLine(1, 7, {}, {"inCommitTimestamp"}), MetadataLine(conf)});
  t.Commit(1, {CommitInfoLine("WRITE", 6000), AddLine("a")});
  auto fs = LocalFs();
  EXPECT_EQ(*VersionAtTimestamp(fs, t.root(), reader, 5999), 0);
  EXPECT_EQ(*VersionAtTimestamp(fs, t.root(), reader, 6000), 1);
  auto early = VersionAtTimestamp(fs, t.root(), reader, 4999);
  ASSERT_FALSE(early.has_value());
  EXPECT_EQ(early.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(early.error().message, HasSubstr("1970-01-01T00:00:05.000Z"));
}

TEST(HistoryTest, ListReadAndSummarize) {
  TestTable t;
  MakeMtimeTable(t);
  auto fs = LocalFs();
  auto versions = ListCommitVersions(*fs, t.root() + "/");
  ASSERT_TRUE(versions.has_value()) << versions.error().message;
  EXPECT_EQ(*versions, (std::vector<int64_t>{0, 1, 2, 3}));

  auto commit = ReadCommit(*fs, t.root(), 3);
  ASSERT_TRUE(commit.has_value()) << commit.error().message;
  ASSERT_EQ(commit->size(), 2u);
  EXPECT_EQ(ActionName((*commit)[1]), "remove");
  auto missing = ReadCommit(*fs, t.root(), 9);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(missing.error().message, HasSubstr("commit version 9 not found"));

  auto history = ReadHistory(*fs, t.root());
  ASSERT_TRUE(history.has_value()) << history.error().message;
  ASSERT_EQ(history->size(), 4u);
  const CommitSummary& first = (*history)[0];
  EXPECT_EQ(first.version, 0);
  EXPECT_EQ(first.timestamp_ms, kT0);
  ASSERT_TRUE(first.commit_info.has_value());
  EXPECT_EQ(first.commit_info->operation, "CREATE");
  EXPECT_TRUE(first.metadata.has_value());
  EXPECT_TRUE(first.protocol.has_value());
  EXPECT_EQ((*history)[3].commit_info->operation, "DELETE");
  EXPECT_FALSE((*history)[3].metadata.has_value());

  testing::TempDir not_a_table;
  auto none = ListCommitVersions(*fs, not_a_table.path());
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().code, ErrorCode::kNotFound);
}

TEST(HistoryTest, FormatTimestamp) {
  EXPECT_EQ(FormatTimestampMs(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatTimestampMs(1704110400123), "2024-01-01T12:00:00.123Z");
  EXPECT_EQ(FormatTimestampMs(-1), "1969-12-31T23:59:59.999Z");
}

}  // namespace
}  // namespace deltaguard
