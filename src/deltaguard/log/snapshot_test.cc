#include "deltaguard/log/snapshot.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/log/checkpoint.h"
#include "deltaguard/log/log_test_util.h"
#include "deltaguard/schema/data_type.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

using namespace testing;  // NOLINT: test helpers

TEST(SnapshotTest, AddRemoveReAdd) {
  TestTable t;
  FakeCheckpointReader reader;
  t.Commit(0, {CommitInfoLine("CREATE"), ProtocolLine(), MetadataLine(), AddLine("b"),
               AddLine("a")});
  t.Commit(1, {AddLine("c"), RemoveLine("a")});
  t.Commit(2, {AddLine("a", 200)});  // re-add after remove
  t.Commit(3, {RemoveLine("c")});
  auto snap = LoadTable(t, reader);
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  const Snapshot& s = **snap;
  EXPECT_EQ(s.version(), 3);
  EXPECT_THAT(FilePaths(s), ElementsAre("a", "b"));  // sorted by path
  EXPECT_EQ(s.files()[0].size, 200);
  ASSERT_EQ(s.tombstones().size(), 1u);
  EXPECT_EQ(s.tombstones()[0].path, "c");
  EXPECT_EQ(s.schema()->num_fields(), 1u);
  EXPECT_EQ(s.schema()->field(0).name, "id");
  EXPECT_EQ(s.column_mapping_mode(), ColumnMappingMode::kNone);
  EXPECT_EQ(s.segment().commit_versions, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_FALSE(s.segment().checkpoint_version.has_value());
  EXPECT_EQ(s.table_root(), t.root());
  EXPECT_EQ(s.log_dir(), t.log_dir());

  auto v1 = LoadTable(t, reader, SnapshotSpec{1, std::nullopt});
  ASSERT_TRUE(v1.has_value()) << v1.error().message;
  EXPECT_THAT(FilePaths(**v1), ElementsAre("b", "c"));
}

TEST(SnapshotTest, DeletionVectorKeyedReplay) {
  TestTable t;
  FakeCheckpointReader reader;
  t.Commit(0, {ProtocolLine(3, 7, {"deletionVectors"}, {"deletionVectors"}),
               MetadataLine(), AddLine("f1"), AddLine("f2")});
  // DELETE with DVs: remove (f1, no dv) + add (f1, dv1).
  t.Commit(1, {RemoveLine("f1"), AddLine("f1", 100, "dv1")});
  // Second DELETE: remove (f1, dv1) + add (f1, dv2); remove of f2 with an unrelated DV
  // does not affect the live (f2, no dv).
  t.Commit(2,
           {RemoveLine("f1", "dv1"), AddLine("f1", 100, "dv2"), RemoveLine("f2", "zz")});
  auto snap = LoadTable(t, reader);
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  const Snapshot& s = **snap;
  ASSERT_EQ(s.files().size(), 2u);
  EXPECT_EQ(s.files()[0].path, "f1");
  ASSERT_TRUE(s.files()[0].deletion_vector.has_value());
  EXPECT_EQ(s.files()[0].deletion_vector->path_or_inline_dv, "dv2");
  EXPECT_EQ(s.files()[1].path, "f2");
  EXPECT_FALSE(s.files()[1].deletion_vector.has_value());
  EXPECT_EQ(s.tombstones().size(), 3u);  // (f1), (f1,dv1), (f2,zz)
}

TEST(SnapshotTest, ProtocolMetadataTxnDomainLatestWins) {
  TestTable t;
  FakeCheckpointReader reader;
  t.Commit(0, {ProtocolLine(1, 2), MetadataLine("", "id-0"), TxnLine("app1", 1),
               TxnLine("app2", 7), DomainLine("d1", "one", false),
               DomainLine("d2", "two", false)});
  t.Commit(1, {ProtocolLine(1, 4), MetadataLine(R"("delta.appendOnly":"true")", "id-1"),
               TxnLine("app1", 2), DomainLine("d1", "uno", false),
               DomainLine("d2", "", true)});
  auto snap = LoadTable(t, reader);
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  const Snapshot& s = **snap;
  EXPECT_EQ(s.protocol().min_writer_version, 4);
  EXPECT_EQ(s.metadata().id, "id-1");
  EXPECT_EQ(s.metadata().GetConfig("delta.appendonly"), "true");
  ASSERT_EQ(s.transactions().size(), 2u);
  EXPECT_EQ(s.transactions().at("app1").version, 2);
  EXPECT_EQ(s.transactions().at("app2").version, 7);
  ASSERT_EQ(s.domain_metadata().size(), 1u);  // d2 removed
  EXPECT_EQ(s.domain_metadata()[0].domain, "d1");
  EXPECT_EQ(s.domain_metadata()[0].configuration, "uno");
}

TEST(SnapshotTest, UnknownReaderFeatureIsRefusedByName) {
  TestTable t;
  FakeCheckpointReader reader;
  t.Commit(0,
           {ProtocolLine(3, 7, {"deletionVectors", "fancyNewThing"}, {"fancyNewThing"}),
            MetadataLine()});
  auto snap = LoadTable(t, reader);
  ASSERT_FALSE(snap.has_value());
  EXPECT_EQ(snap.error().code, ErrorCode::kUnsupportedFeature);
  EXPECT_EQ(snap.error().message,
            fmt::format("table '{}' requires reader feature 'fancyNewThing' which "
                        "deltaguard does not support",
                        t.root()));
}

TEST(SnapshotTest, GatingPrecedesOtherErrors) {
  TestTable t;
  FakeCheckpointReader reader;
  t.Commit(0, {ProtocolLine(1, 2), MetadataLine()});
  t.Commit(1, {ProtocolLine(4, 7, {"x"}, {"x"})});
  // Commit 2 holds a future action shape we cannot parse; the protocol says we cannot
  // read the table anyway, and that is what is reported.
  t.Commit(2, {R"({"add":{"path":5}})"});
  auto snap = LoadTable(t, reader);
  ASSERT_FALSE(snap.has_value());
  EXPECT_EQ(snap.error().code, ErrorCode::kUnsupportedFeature);
  EXPECT_THAT(snap.error().message, HasSubstr("requires reader version 4"));
  // Reading the version before the upgrade works.
  EXPECT_TRUE(LoadTable(t, reader, SnapshotSpec{0, std::nullopt}).has_value());
}

TEST(SnapshotTest, WriterOnlyUnknownFeatureIsTolerated) {
  TestTable t;
  FakeCheckpointReader reader;
  t.Commit(0, {ProtocolLine(3, 7, {"timestampNtz", "VARIANTTYPE"},
                            {"timestampNtz", "variantType", "someWriterThing"}),
               MetadataLine(), AddLine("a")});
  auto snap = LoadTable(t, reader);
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  EXPECT_EQ((*snap)->files().size(), 1u);
}

TEST(SnapshotTest, MissingProtocolOrMetadataIsCorrupt) {
  FakeCheckpointReader reader;
  {
    TestTable t;
    t.Commit(0, {MetadataLine(), AddLine("a")});
    auto snap = LoadTable(t, reader);
    ASSERT_FALSE(snap.has_value());
    EXPECT_EQ(snap.error().code, ErrorCode::kCorruptLog);
    EXPECT_THAT(snap.error().message, HasSubstr("no protocol action"));
  }
  {
    TestTable t;
    t.Commit(0, {ProtocolLine(), AddLine("a")});
    auto snap = LoadTable(t, reader);
    ASSERT_FALSE(snap.has_value());
    EXPECT_EQ(snap.error().code, ErrorCode::kCorruptLog);
    EXPECT_THAT(snap.error().message, HasSubstr("no metaData action"));
  }
  {
    TestTable t;
    t.Commit(
        0,
        {ProtocolLine(),
         R"({"metaData":{"id":"i","format":{"provider":"parquet"},"partitionColumns":[],"configuration":{}}})"});
    auto snap = LoadTable(t, reader);
    ASSERT_FALSE(snap.has_value());
    EXPECT_EQ(snap.error().code, ErrorCode::kCorruptLog);
    EXPECT_THAT(snap.error().message, HasSubstr("no schemaString"));
  }
  {
    TestTable t;
    t.Commit(
        0, {ProtocolLine(),
            R"({"metaData":{"id":"i","format":{"provider":"parquet"},)"
            R"("schemaString":"{not json","partitionColumns":[],"configuration":{}}})"});
    auto snap = LoadTable(t, reader);
    ASSERT_FALSE(snap.has_value());
    EXPECT_EQ(snap.error().code, ErrorCode::kCorruptLog);
    EXPECT_THAT(snap.error().message, HasSubstr("invalid schemaString"));
  }
}

TEST(SnapshotTest, CorruptCommitNamesFileAndLine) {
  TestTable t;
  FakeCheckpointReader reader;
  t.Commit(0, {ProtocolLine(), MetadataLine()});
  t.Commit(1, {AddLine("a"), R"({"remove":{"path":"a"}})"});
  auto snap = LoadTable(t, reader);
  ASSERT_FALSE(snap.has_value());
  EXPECT_EQ(snap.error().code, ErrorCode::kCorruptLog);
  EXPECT_THAT(snap.error().message, HasSubstr(CommitFileName(1) + "' line 2"));
}

TEST(SnapshotTest, ColumnMappingMode) {
  FakeCheckpointReader reader;
  for (auto [value, expected] : std::vector<std::pair<std::string, ColumnMappingMode>>{
           {"name", ColumnMappingMode::kName},
           {"ID", ColumnMappingMode::kId},
           {"none", ColumnMappingMode::kNone}}) {
    TestTable t;
    t.Commit(0, {ProtocolLine(2, 5),
                 MetadataLine("\"delta.columnMapping.mode\":\"" + value + "\"")});
    auto snap = LoadTable(t, reader);
    ASSERT_TRUE(snap.has_value()) << snap.error().message;
    EXPECT_EQ((*snap)->column_mapping_mode(), expected);
  }
  TestTable t;
  t.Commit(
      0, {ProtocolLine(2, 5), MetadataLine(R"("delta.columnMapping.mode":"physical")")});
  auto snap = LoadTable(t, reader);
  ASSERT_FALSE(snap.has_value());
  EXPECT_EQ(snap.error().code, ErrorCode::kCorruptLog);
  EXPECT_THAT(snap.error().message, HasSubstr("'physical'"));
}

TEST(SnapshotTest, ResolveDataPath) {
  TestTable t;
  FakeCheckpointReader reader;
  t.Commit(0, {ProtocolLine(), MetadataLine()});
  auto snap = Snapshot::Load(LocalFs(), "file://" + t.root() + "/", reader);
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  const Snapshot& s = **snap;
  EXPECT_EQ(s.table_root(), t.root());
  EXPECT_EQ(s.ResolveDataPath("p=a%20b/f.parquet"), t.root() + "/p=a b/f.parquet");
  EXPECT_EQ(s.ResolveDataPath("file:///elsewhere/f.parquet"), "/elsewhere/f.parquet");
  EXPECT_EQ(s.ResolveDataPath("file:/elsewhere/f.parquet"), "/elsewhere/f.parquet");
}

TEST(SnapshotTest, TimestampIsCommitFileMtime) {
  TestTable t;
  FakeCheckpointReader reader;
  std::string c0 = t.Commit(0, {CommitInfoLine(), ProtocolLine(), MetadataLine()});
  std::string c1 = t.Commit(1, {CommitInfoLine()});
  SetMtime(c0, 1600000000000);
  SetMtime(c1, 1600000005000);
  auto snap = LoadTable(t, reader);
  ASSERT_TRUE(snap.has_value());
  // commitInfo.timestamp (1700000000000) is not used.
  EXPECT_EQ((*snap)->timestamp_ms(), 1600000005000);
  EXPECT_EQ((*LoadTable(t, reader, SnapshotSpec{0, std::nullopt}))->timestamp_ms(),
            1600000000000);
}

TEST(SnapshotTest, TimestampUsesInCommitTimestampWhenEnabled) {
  TestTable t;
  FakeCheckpointReader reader;
  std::string ict_conf =
      R"("delta.enableInCommitTimestamps":"true","delta.inCommitTimestampEnablementVersion":"2")";
  t.Commit(0, {CommitInfoLine(), ProtocolLine(), MetadataLine()});
  t.Commit(1, {CommitInfoLine()});
  t.Commit(2, {CommitInfoLine("SET TBLPROPERTIES", 1800000000000),
               ProtocolLine(1, 7, {}, {"inCommitTimestamp"}), MetadataLine(ict_conf)});
  t.Commit(3, {CommitInfoLine("WRITE", 1800000000500)});
  SetMtime(t.log_dir() + "/" + CommitFileName(1), 1600000001000);
  auto snap = LoadTable(t, reader);
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  EXPECT_EQ((*snap)->timestamp_ms(), 1800000000500);
  EXPECT_EQ((*LoadTable(t, reader, SnapshotSpec{2, std::nullopt}))->timestamp_ms(),
            1800000000000);
  EXPECT_EQ((*LoadTable(t, reader, SnapshotSpec{1, std::nullopt}))->timestamp_ms(),
            1600000001000);
  // Checkpoint at the version: the commitInfo is read from the commit file.
  t.File(CheckpointFileName(3),
         {ProtocolLine(1, 7, {}, {"inCommitTimestamp"}), MetadataLine(ict_conf)});
  auto cp = LoadTable(t, reader);
  ASSERT_TRUE(cp.has_value()) << cp.error().message;
  EXPECT_EQ((*cp)->segment().checkpoint_version, 3);
  EXPECT_EQ((*cp)->timestamp_ms(), 1800000000500);
  // An ICT commit without inCommitTimestamp is corrupt.
  t.Commit(4, {CommitInfoLine()});
  auto bad = LoadTable(t, reader);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::kCorruptLog);
  EXPECT_THAT(bad.error().message, HasSubstr("inCommitTimestamp"));
}

TEST(SnapshotTest, LongLogParsedInParallelKeepsOrder) {
  TestTable t;
  FakeCheckpointReader reader;
  t.Commit(0, {ProtocolLine(), MetadataLine(), AddLine("f0")});
  // 150 commits: each adds f<v> and removes f<v-1>, so exactly one file is live.
  for (int v = 1; v <= 150; ++v) {
    t.Commit(v, {CommitInfoLine(), AddLine("f" + std::to_string(v)),
                 RemoveLine("f" + std::to_string(v - 1))});
  }
  auto snap = LoadTable(t, reader);
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  EXPECT_THAT(FilePaths(**snap), ElementsAre("f150"));
  EXPECT_EQ((*snap)->tombstones().size(), 150u);
  EXPECT_EQ((*snap)->segment().commit_versions.size(), 151u);
  EXPECT_EQ((*snap)->segment().commit_versions.front(), 0);
  // Two corrupt commits: the newer one is reported.
  t.Commit(40, {R"({"add":{"path":1}})"});
  t.Commit(70, {R"({"txn":{"appId":"a"}})"});
  auto bad = LoadTable(t, reader);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::kCorruptLog);
  EXPECT_THAT(bad.error().message, HasSubstr(CommitFileName(70)));
}

TEST(SnapshotTest, LaterLineInACommitWins) {
  TestTable t;
  FakeCheckpointReader reader;
  t.Commit(0, {ProtocolLine(), MetadataLine(), AddLine("a", 1), RemoveLine("a"),
               AddLine("b", 1), AddLine("b", 2)});
  auto snap = LoadTable(t, reader);
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  EXPECT_THAT(FilePaths(**snap), ElementsAre("b"));
  EXPECT_EQ((*snap)->files()[0].size, 2);
  ASSERT_EQ((*snap)->tombstones().size(), 1u);
}

TEST(SnapshotTest, ManyFilesSortedAndDeduplicated) {
  TestTable t;
  FakeCheckpointReader reader;
  // Paths with long shared prefixes and short ones, in scrambled order, split over two
  // checkpoint parts that (invalidly) repeat some rows; DV variants of one path.
  std::vector<std::string> part1 = {ProtocolLine(), MetadataLine()};
  std::vector<std::string> part2;
  std::vector<std::string> expected;
  for (int i = 0; i < 3000; ++i) {
    int k = (i * 7919) % 3000;
    std::string path =
        fmt::format("day=2024-01-{:02d}/part-{:06d}-c000.snappy.parquet", k % 28 + 1, k);
    if (k % 500 == 0) path = fmt::format("p{}", k);  // short paths
    expected.push_back(path);
    (i % 2 ? part1 : part2).push_back(AddLine(path));
    if (i % 97 == 0) (i % 2 ? part2 : part1).push_back(AddLine(path));  // duplicate row
  }
  part2.push_back(AddLine("p0", 1, "dvB"));
  part2.push_back(AddLine("p0", 1, "dvA"));
  expected.push_back("p0");
  expected.push_back("p0");
  std::sort(expected.begin(), expected.end());
  t.Commit(0, {ProtocolLine(), MetadataLine()});
  t.File(MultiPartCheckpointFileName(0, 1, 2), part1);
  t.File(MultiPartCheckpointFileName(0, 2, 2), part2);
  auto snap = LoadTable(t, reader);
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  EXPECT_EQ(FilePaths(**snap), expected);
  // Equal paths are ordered by DV: none, then dvA, then dvB.
  auto it = std::find(expected.begin(), expected.end(), "p0") - expected.begin();
  const auto& files = (*snap)->files();
  EXPECT_FALSE(files[it].deletion_vector.has_value());
  EXPECT_EQ(files[it + 1].deletion_vector->path_or_inline_dv, "dvA");
  EXPECT_EQ(files[it + 2].deletion_vector->path_or_inline_dv, "dvB");
}

TEST(SnapshotTest, SpecWithVersionAndTimestampIsInvalid) {
  TestTable t;
  FakeCheckpointReader reader;
  t.Commit(0, {ProtocolLine(), MetadataLine()});
  auto snap = LoadTable(t, reader, SnapshotSpec{0, 5});
  ASSERT_FALSE(snap.has_value());
  EXPECT_EQ(snap.error().code, ErrorCode::kInvalidArgument);
}

// A log naming files outside its table is refused at load, naming the log file, the
// action and the path, so no reader of the snapshot can reach the file.
TEST(SnapshotTest, LogPathsOutsideTheRootAreRefused) {
  struct Case {
    std::string line;
    std::string action;
  };
  const std::string dv_p =
      R"({"add":{"path":"f.parquet","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true,"stats":"{\"numRecords\":3}","deletionVector":{"storageType":"p","pathOrInlineDv":"file:/etc/dv.bin","offset":1,"sizeInBytes":36,"cardinality":2}}})";
  for (const Case& c :
       std::vector<Case>{{AddLine("../outside.parquet"), "add action"},
                         {AddLine("%2E%2E/outside.parquet"), "add action"},
                         {AddLine("/etc/outside.parquet"), "add action"},
                         {RemoveLine("a/../../outside.parquet"), "remove action"},
                         {AddLine("f.parquet", 1, "../../abcdefghijklmnopqrst"),
                          "add action's deletion vector"},
                         {dv_p, "add action's deletion vector"}}) {
    SCOPED_TRACE(c.line);
    TestTable t;
    FakeCheckpointReader reader;
    t.Commit(0, {ProtocolLine(3, 7, {"deletionVectors"}, {"deletionVectors"}),
                 MetadataLine(), AddLine("a")});
    std::string bad = t.Commit(1, {c.line});
    auto snap = LoadTable(t, reader);
    ASSERT_FALSE(snap.has_value());
    EXPECT_EQ(snap.error().code, ErrorCode::kCorruptLog);
    EXPECT_THAT(snap.error().message, HasSubstr(bad));
    EXPECT_THAT(snap.error().message, HasSubstr(c.action));
    // The version before the bad commit still loads.
    EXPECT_TRUE(LoadTable(t, reader, SnapshotSpec{0, std::nullopt}).has_value());
  }
}

TEST(SnapshotTest, LogPathsOutsideTheRootLoadWithTheOptIn) {
  TestTable t;
  FakeCheckpointReader reader;
  t.Commit(0, {ProtocolLine(), MetadataLine(), AddLine("/src/p.parquet"),
               AddLine("file:///t/inside.parquet")});
  SnapshotSpec spec;
  spec.paths.allow_outside_root = true;
  auto snap = LoadTable(t, reader, spec);
  ASSERT_TRUE(snap.has_value()) << snap.error().message;
  EXPECT_EQ((*snap)->ResolveDataPath("/src/p.parquet"), "/src/p.parquet");
}

}  // namespace
}  // namespace deltaguard
