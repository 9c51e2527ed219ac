// Snapshot loading through checkpoints: classic, multi-part, V2 with sidecars,
// fallbacks when one is unreadable, and gating of what a checkpoint holds.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/log/checkpoint.h"
#include "deltaguard/log/log_test_util.h"
#include "deltaguard/log/snapshot.h"
#include "deltaguard/schema/data_type.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

using namespace testing;  // NOLINT: test helpers

TEST(SnapshotTest, CheckpointPlusCommits) {
  TestTable t;
  FakeCheckpointReader reader;
  for (int v = 0; v <= 5; ++v) t.Commit(v, {v == 0 ? ProtocolLine() : CommitInfoLine()});
  // Checkpoint at 3 (NDJSON stands in for Parquet): the reconciled state.
  t.File(CheckpointFileName(3),
         {ProtocolLine(), MetadataLine("", "cp"), AddLine("x"), AddLine("y"),
          RemoveLine("old"), TxnLine("app", 3), DomainLine("d", "c", false)});
  t.Commit(4, {RemoveLine("x"), AddLine("z")});
  t.Commit(5, {AddLine("x", 5)});
  auto snap = LoadTable(t, reader);
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  const Snapshot& s = **snap;
  EXPECT_THAT(FilePaths(s), ElementsAre("x", "y", "z"));
  EXPECT_EQ(s.files()[0].size, 5);
  EXPECT_EQ(s.metadata().id, "cp");
  EXPECT_EQ(s.transactions().at("app").version, 3);
  EXPECT_EQ(s.domain_metadata().size(), 1u);
  ASSERT_EQ(s.tombstones().size(), 1u);  // "old"; "x" was re-added
  EXPECT_EQ(s.tombstones()[0].path, "old");
  EXPECT_EQ(s.segment().checkpoint_version, 3);
  EXPECT_EQ(s.segment().commit_versions, (std::vector<int64_t>{4, 5}));
  ASSERT_EQ(s.segment().checkpoint_files.size(), 1u);
  EXPECT_THAT(reader.reads(), ElementsAre(HasSubstr(CheckpointFileName(3))));
}

TEST(SnapshotTest, TimeTravelDoesNotReadNewerCheckpoint) {
  TestTable t;
  FakeCheckpointReader reader;
  t.Commit(0, {ProtocolLine(), MetadataLine(), AddLine("a")});
  t.Commit(1, {AddLine("b")});
  t.Commit(2, {AddLine("c")});
  t.File(CheckpointFileName(2),
         {ProtocolLine(), MetadataLine(), AddLine("a"), AddLine("b"), AddLine("c")});
  t.LastCheckpoint(R"({"version":2,"size":5})");
  auto snap = LoadTable(t, reader, SnapshotSpec{1, std::nullopt});
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  EXPECT_THAT(FilePaths(**snap), ElementsAre("a", "b"));
  EXPECT_TRUE(reader.reads().empty());
}

TEST(SnapshotTest, MultiPartCheckpoint) {
  TestTable t;
  FakeCheckpointReader reader;
  t.Commit(0, {ProtocolLine(), MetadataLine(), AddLine("a")});
  t.Commit(1, {AddLine("b")});
  t.File(MultiPartCheckpointFileName(1, 1, 2),
         {ProtocolLine(), MetadataLine(), AddLine("a")});
  t.File(MultiPartCheckpointFileName(1, 2, 2), {AddLine("b")});
  t.Commit(2, {AddLine("c")});
  auto snap = LoadTable(t, reader);
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  EXPECT_THAT(FilePaths(**snap), ElementsAre("a", "b", "c"));
  EXPECT_EQ((*snap)->segment().checkpoint_files.size(), 2u);
  EXPECT_EQ(reader.reads().size(), 2u);
}

TEST(SnapshotTest, UnreadableCheckpointFallsBackToOlderOne) {
  TestTable t;
  FakeCheckpointReader reader;
  t.Commit(0, {ProtocolLine(), MetadataLine(), AddLine("a")});
  t.Commit(1, {AddLine("b")});
  t.Commit(2, {AddLine("c")});
  t.Commit(3, {RemoveLine("a")});
  t.File(CheckpointFileName(1),
         {ProtocolLine(), MetadataLine(), AddLine("a"), AddLine("b")});
  t.File(CheckpointFileName(2), {"garbage"});
  t.LastCheckpoint(R"({"version":2,"size":5})");
  reader.FailOn(CheckpointFileName(2));
  auto snap = LoadTable(t, reader);
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  EXPECT_THAT(FilePaths(**snap), ElementsAre("b", "c"));
  EXPECT_EQ((*snap)->segment().checkpoint_version, 1);
  EXPECT_EQ((*snap)->segment().commit_versions, (std::vector<int64_t>{2, 3}));
}

TEST(SnapshotTest, UnreadableOnlyCheckpointFallsBackToCommitsOrFails) {
  TestTable t;
  FakeCheckpointReader reader;
  t.Commit(0, {ProtocolLine(), MetadataLine(), AddLine("a")});
  t.Commit(1, {AddLine("b")});
  t.File(CheckpointFileName(1),
         {ProtocolLine(), MetadataLine(), AddLine("a"), AddLine("b")});
  reader.FailOn(CheckpointFileName(1));
  auto snap = LoadTable(t, reader);
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  EXPECT_THAT(FilePaths(**snap), ElementsAre("a", "b"));
  EXPECT_FALSE((*snap)->segment().checkpoint_version.has_value());
  // Without 0.json there is nothing to fall back to.
  std::filesystem::remove(t.log_dir() + "/" + CommitFileName(0));
  auto bad = LoadTable(t, reader);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::kCorruptData);
  EXPECT_THAT(bad.error().message, HasSubstr("cannot read the checkpoint for version 1"));
  EXPECT_THAT(bad.error().message, HasSubstr(CheckpointFileName(1)));
}

TEST(SnapshotTest, V2JsonCheckpointWithSidecars) {
  TestTable t;
  FakeCheckpointReader reader;
  t.Commit(0, {ProtocolLine(3, 7, {"v2Checkpoint"}, {"v2Checkpoint"}), MetadataLine(),
               AddLine("a"), AddLine("b c")});
  t.Commit(1, {AddLine("d")});
  t.File(
      "00000000000000000001.checkpoint.5b2d6c7e-0000-4000-8000-000000000001.json",
      {R"({"checkpointMetadata":{"version":1}})",
       R"({"sidecar":{"path":"side%201.parquet","sizeInBytes":1,"modificationTime":1}})",
       R"({"sidecar":{"path":"side2.parquet","sizeInBytes":1,"modificationTime":1}})",
       ProtocolLine(3, 7, {"v2Checkpoint"}, {"v2Checkpoint"}), MetadataLine("", "v2")});
  t.File("_sidecars/side 1.parquet", {AddLine("a"), AddLine("b c")});
  t.File("_sidecars/side2.parquet", {AddLine("d")});
  t.Commit(2, {RemoveLine("a")});
  auto snap = LoadTable(t, reader);
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  EXPECT_THAT(FilePaths(**snap), ElementsAre("b c", "d"));
  EXPECT_EQ((*snap)->metadata().id, "v2");
  EXPECT_EQ((*snap)->segment().checkpoint_files.size(), 3u);
  EXPECT_THAT(reader.reads(), ElementsAre(HasSubstr("_sidecars/side 1.parquet"),
                                          HasSubstr("_sidecars/side2.parquet")));
}

TEST(SnapshotTest, ClassicNamedCheckpointMayBeV2) {
  TestTable t;
  FakeCheckpointReader reader;
  t.Commit(0, {ProtocolLine(3, 7, {"v2Checkpoint"}, {"v2Checkpoint"}), MetadataLine(),
               AddLine("a")});
  t.File(CheckpointFileName(0),
         {R"({"checkpointMetadata":{"version":0}})",
          R"({"sidecar":{"path":"s.parquet","sizeInBytes":1,"modificationTime":1}})",
          ProtocolLine(3, 7, {"v2Checkpoint"}, {"v2Checkpoint"}), MetadataLine()});
  t.File("_sidecars/s.parquet", {AddLine("a")});
  auto snap = LoadTable(t, reader);
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  EXPECT_THAT(FilePaths(**snap), ElementsAre("a"));
  // A missing sidecar makes the checkpoint unusable; 0.json is the fallback.
  std::filesystem::remove(t.log_dir() + "/_sidecars/s.parquet");
  snap = LoadTable(t, reader);
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  EXPECT_FALSE((*snap)->segment().checkpoint_version.has_value());
}

TEST(SnapshotTest, CheckpointProtocolIsGatedBeforeItsFiles) {
  TestTable t;
  FakeCheckpointReader reader;
  t.Commit(0, {ProtocolLine(), MetadataLine()});
  t.Commit(1, {AddLine("a")});
  t.File(CheckpointFileName(1),
         {AddLine("a"), MetadataLine(),
          ProtocolLine(3, 7, {"catalogManaged"}, {"catalogManaged"})});
  t.Commit(2, {AddLine("b")});
  auto snap = LoadTable(t, reader);
  ASSERT_FALSE(snap.has_value());
  EXPECT_EQ(snap.error().code, ErrorCode::kUnsupportedFeature);
  EXPECT_THAT(snap.error().message, HasSubstr("'catalogManaged'"));
}

// A reader that only implements the split form (as io/parquet may): Load must use it.
class SplitOnlyReader final : public CheckpointReader {
 public:
  Result<std::vector<Action>> ReadCheckpoint(const std::string& path) const override {
    return MakeError(ErrorCode::kInternal, "ReadCheckpoint must not be called for '{}'",
                     path);
  }
  Result<CheckpointActions> ReadCheckpointSplit(const std::string& path) const override {
    FakeCheckpointReader inner;
    DELTA_ASSIGN_OR_RETURN(std::vector<Action> actions, inner.ReadCheckpoint(path));
    return SplitCheckpointActions(std::move(actions));
  }
};

TEST(SnapshotTest, SplitCheckpointReaderIsUsed) {
  TestTable t;
  SplitOnlyReader reader;
  t.Commit(0, {ProtocolLine(), MetadataLine(), AddLine("a")});
  t.File(CheckpointFileName(0),
         {ProtocolLine(), MetadataLine(), AddLine("a"), RemoveLine("r")});
  t.Commit(1, {AddLine("b")});
  auto snap = LoadTable(t, reader);
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  EXPECT_THAT(FilePaths(**snap), ElementsAre("a", "b"));
  EXPECT_EQ((*snap)->segment().checkpoint_version, 0);
  ASSERT_EQ((*snap)->tombstones().size(), 1u);
}

TEST(SnapshotTest, CheckpointAndSidecarPathsOutsideTheRootAreRefused) {
  TestTable t;
  FakeCheckpointReader reader;
  t.Commit(0, {ProtocolLine(), MetadataLine(), AddLine("a")});
  t.Commit(1, {AddLine("b")});
  std::string cp = t.File(CheckpointFileName(1),
                          {ProtocolLine(), MetadataLine(), AddLine("../../x.parquet")});
  auto snap = LoadTable(t, reader);
  ASSERT_FALSE(snap.has_value());
  EXPECT_EQ(snap.error().code, ErrorCode::kCorruptLog);
  EXPECT_THAT(snap.error().message, HasSubstr(cp));
  EXPECT_THAT(snap.error().message, HasSubstr("\"../../x.parquet\" climbs out"));

  t.File(
      CheckpointFileName(1),
      {ProtocolLine(), MetadataLine(),
       R"({"sidecar":{"path":"../../../x.parquet","sizeInBytes":1,"modificationTime":1}})"});
  // A sidecar outside _delta_log/_sidecars makes the checkpoint unusable: it is not
  // read, and the snapshot is rebuilt from the commits as for any unreadable checkpoint.
  snap = LoadTable(t, reader);
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  EXPECT_FALSE((*snap)->segment().checkpoint_version.has_value());
  for (const std::string& read : reader.reads()) {
    EXPECT_THAT(read, ::testing::Not(HasSubstr("x.parquet")));
  }
  auto sidecar = ResolveSidecarPath(t.log_dir(), "../../../x.parquet");
  ASSERT_FALSE(sidecar.has_value());
  EXPECT_EQ(sidecar.error().code, ErrorCode::kCorruptLog);
  EXPECT_TRUE(ResolveSidecarPath(t.log_dir(), "a.parquet").has_value());
}

}  // namespace
}  // namespace deltaguard
