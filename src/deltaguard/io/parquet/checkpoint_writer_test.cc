#include "deltaguard/io/parquet/checkpoint_writer.h"

#include <arrow/array.h>
#include <arrow/io/file.h>
#include <arrow/table.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <parquet/arrow/reader.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>
#include <parquet/schema.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "deltaguard/io/fs/fault_injection_file_system.h"
#include "deltaguard/io/parquet/checkpoint_reader.h"
#include "deltaguard/log/log_test_util.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

using testing::MetadataLine;
using testing::ProtocolLine;
using testing::TestTable;

constexpr int64_t kDay = 86400LL * 1000;

// A partitioned table whose log exercises every field the checkpoint carries: null
// partition values, tags, DVs, row tracking, clustering, txns, domains (one removed),
// tombstones with and without timestamps, extended file metadata.
std::vector<std::vector<std::string>> RichCommits(const std::string& protocol_line,
                                                  const std::string& extra_config = "") {
  const std::string schema =
      R"({\"type\":\"struct\",\"fields\":[)"
      R"({\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},)"
      R"({\"name\":\"p\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}},)"
      R"({\"name\":\"q\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{}}]})";
  auto metadata = [&](const std::string& config) {
    return fmt::format(
        R"({{"metaData":{{"id":"rich-id","name":"rich","description":"a table",)"
        R"("format":{{"provider":"parquet","options":{{"k":"v"}}}},"schemaString":"{}",)"
        R"("partitionColumns":["p","q"],"configuration":{{{}}},)"
        R"("createdTime":1700000000000}}}})",
        schema, config);
  };
  return {
      {protocol_line, metadata(R"("delta.appendOnly":"false")"),
       R"({"add":{"path":"p=x/q=1/a.parquet","partitionValues":{"p":"x",)"
       R"("q":"1"},"size":10,"modificationTime":1700000000001,"dataChange":true,)"
       R"("stats":"{\"numRecords\":3}",)"
       R"("tags":{"INSERTION_TIME":"1700000000000000",)"
       R"("OPTIMIZE_TARGET_SIZE":"268435456"}}})",
       R"({"add":{"path":"p=__HIVE_DEFAULT_PARTITION__/)"
       R"(q=__HIVE_DEFAULT_PARTITION__/b%20c.parquet",)"
       R"("partitionValues":{"p":null,"q":null},"size":11,)"
       R"("modificationTime":1700000000002,"dataChange":true}})",
       R"({"add":{"path":"p=y/q=2/gone.parquet","partitionValues":{"p":"y",)"
       R"("q":"2"},"size":12,"modificationTime":1700000000003,)"
       R"("dataChange":true}})",
       testing::TxnLine("app-1", 1), testing::DomainLine("d.keep", "{}", false),
       testing::DomainLine("d.drop", "{}", false)},
      {R"({"add":{"path":"p=x/q=1/dv.parquet","partitionValues":{"p":"x",)"
       R"("q":"1"},"size":13,"modificationTime":1700000000004,"dataChange":true,)"
       R"("stats":"{\"numRecords\":5}","deletionVector":{"storageType":"u",)"
       R"("pathOrInlineDv":"ab^-aqEH.-t@S}K{vb[*k^","offset":4,"sizeInBytes":40,)"
       R"("cardinality":2,"maxRowIndex":4},"baseRowId":7,)"
       R"("defaultRowCommitVersion":1,"clusteringProvider":"liquid"}})",
       R"({"remove":{"path":"p=y/q=2/gone.parquet",)"
       R"("deletionTimestamp":1700000000500,"dataChange":true,)"
       R"("extendedFileMetadata":true,"partitionValues":{"p":"y","q":null},)"
       R"("size":12,"stats":"{\"numRecords\":1}","tags":{"t":"1"},"baseRowId":3,)"
       R"("defaultRowCommitVersion":0}})",
       R"({"remove":{"path":"old-no-timestamp.parquet","dataChange":true}})",
       R"({"remove":{"path":"old-expired.parquet","deletionTimestamp":1000,)"
       R"("dataChange":true,"deletionVector":{"storageType":"i",)"
       R"("pathOrInlineDv":"wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L",)"
       R"("sizeInBytes":40,"cardinality":6}}})",
       testing::DomainLine("d.drop", "{}", true)},
      {metadata(R"("delta.appendOnly":"false","delta.checkpointInterval":"2")" +
                extra_config),
       testing::TxnLine("app-1", 2), testing::TxnLine("app-2", 5)},
  };
}

std::string TableProtocol() {
  return ProtocolLine(3, 7, {"deletionVectors"},
                      {"deletionVectors", "domainMetadata", "rowTracking"});
}

void WriteCommits(TestTable& table,
                  const std::vector<std::vector<std::string>>& commits) {
  for (size_t v = 0; v < commits.size(); ++v) {
    table.Commit(static_cast<int64_t>(v), commits[v]);
  }
}

SnapshotRef LoadOrDie(const FileSystemRef& fs, const std::string& root) {
  ParquetCheckpointReader reader(fs);
  auto snap = Snapshot::Load(fs, root, reader);
  EXPECT_TRUE(snap) << snap.error().ToString();
  return snap ? *snap : nullptr;
}

// The reconciled state as sorted JSON lines, normalised the way a checkpoint stores it:
// dataChange=false, removes without stats/tags; tombstones filtered by `keep`.
template <typename Keep>
std::vector<std::string> StateLines(const Snapshot& s, Keep keep) {
  std::vector<std::string> out;
  out.push_back(ActionToJson(s.protocol()));
  out.push_back(ActionToJson(s.metadata()));
  for (AddFile add : s.files()) {
    add.data_change = false;
    out.push_back(ActionToJson(add));
  }
  for (RemoveFile rm : s.tombstones()) {
    if (!keep(rm)) continue;
    rm.data_change = false;
    rm.stats.reset();
    rm.tags.clear();
    out.push_back(ActionToJson(rm));
  }
  for (const auto& [app, txn] : s.transactions()) out.push_back(ActionToJson(txn));
  for (const auto& dm : s.domain_metadata()) out.push_back(ActionToJson(dm));
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> StateLines(const Snapshot& s) {
  return StateLines(s, [](const RemoveFile&) { return true; });
}

std::unique_ptr<parquet::ParquetFileReader> OpenParquet(const std::string& path) {
  return parquet::ParquetFileReader::OpenFile(path, /*memory_map=*/false);
}

std::vector<std::string> ChildNames(const parquet::schema::GroupNode& group) {
  std::vector<std::string> names;
  for (int i = 0; i < group.field_count(); ++i) names.push_back(group.field(i)->name());
  return names;
}

const parquet::schema::GroupNode& TopGroup(const parquet::FileMetaData& md,
                                           const std::string& name) {
  const auto* root = md.schema()->group_node();
  return static_cast<const parquet::schema::GroupNode&>(
      *root->field(root->FieldIndex(name)));
}

// ---------------------------------------------------------------------------------------

TEST(CheckpointWriterTest, RoundTripEqualsJsonReplay) {
  TestTable table;
  WriteCommits(table, RichCommits(TableProtocol()));
  auto fs = MakeLocalFileSystem();
  SnapshotRef json = LoadOrDie(fs, table.root());
  ASSERT_NE(json, nullptr);
  ASSERT_EQ(json->version(), 2);
  ASSERT_FALSE(json->segment().checkpoint_version.has_value());

  auto info = WriteCheckpoint(*json, {.now_ms = 0});
  ASSERT_TRUE(info) << info.error().ToString();
  EXPECT_FALSE(info->v2);
  EXPECT_EQ(info->version, 2);
  EXPECT_EQ(info->path, table.log_dir() + "/00000000000000000002.checkpoint.parquet");
  EXPECT_EQ(info->num_add_files, 3);
  // protocol + metaData + 2 txns + 1 domain + 3 tombstones + 3 adds.
  EXPECT_EQ(info->num_actions, 11);
  EXPECT_EQ(info->size_in_bytes, std::filesystem::file_size(info->path));

  SnapshotRef from_checkpoint = LoadOrDie(fs, table.root());
  ASSERT_NE(from_checkpoint, nullptr);
  EXPECT_EQ(from_checkpoint->version(), 2);
  EXPECT_EQ(from_checkpoint->segment().checkpoint_version, 2);
  EXPECT_TRUE(from_checkpoint->segment().commit_versions.empty());
  EXPECT_EQ(StateLines(*from_checkpoint), StateLines(*json));

  // Spot-check the fields most likely to be lost.
  bool saw_null_partition = false, saw_dv = false, saw_tags = false;
  for (const AddFile& a : from_checkpoint->files()) {
    EXPECT_FALSE(a.data_change) << a.path;
    if (a.path.find("b%20c") != std::string::npos) {
      ASSERT_EQ(a.partition_values.size(), 2u);
      EXPECT_FALSE(a.partition_values[0].second.has_value());
      EXPECT_FALSE(a.partition_values[1].second.has_value());
      EXPECT_FALSE(a.stats.has_value());
      saw_null_partition = true;
    }
    if (a.deletion_vector) {
      EXPECT_EQ(a.deletion_vector->offset, 4);
      EXPECT_EQ(a.deletion_vector->max_row_index, 4);
      EXPECT_EQ(a.base_row_id, 7);
      EXPECT_EQ(a.clustering_provider, "liquid");
      saw_dv = true;
    }
    if (!a.tags.empty()) saw_tags = true;
  }
  EXPECT_TRUE(saw_null_partition);
  EXPECT_TRUE(saw_dv);
  EXPECT_TRUE(saw_tags);
}

TEST(CheckpointWriterTest, FileLayoutIsSparkCheckpointSchema) {
  TestTable table;
  WriteCommits(table, RichCommits(TableProtocol()));
  auto fs = MakeLocalFileSystem();
  SnapshotRef snap = LoadOrDie(fs, table.root());
  ASSERT_NE(snap, nullptr);
  auto info = WriteCheckpoint(*snap, {.now_ms = 0, .row_group_rows = 4});
  ASSERT_TRUE(info) << info.error().ToString();

  auto reader = OpenParquet(info->path);
  auto md = reader->metadata();
  EXPECT_EQ(md->num_rows(), info->num_actions);
  EXPECT_EQ(md->num_row_groups(), 3);  // 11 rows in groups of 4
  for (int g = 0; g < md->num_row_groups(); ++g) {
    for (int c = 0; c < md->num_columns(); ++c) {
      EXPECT_EQ(md->RowGroup(g)->ColumnChunk(c)->compression(),
                parquet::Compression::SNAPPY);
    }
  }
  EXPECT_EQ(ChildNames(*md->schema()->group_node()),
            (std::vector<std::string>{"txn", "add", "remove", "metaData", "protocol",
                                      "domainMetadata"}));
  EXPECT_EQ(ChildNames(TopGroup(*md, "add")),
            (std::vector<std::string>{
                "path", "partitionValues", "size", "modificationTime", "dataChange",
                "tags", "deletionVector", "baseRowId", "defaultRowCommitVersion",
                "clusteringProvider", "stats"}));
  EXPECT_EQ(ChildNames(TopGroup(*md, "remove")),
            (std::vector<std::string>{"path", "deletionTimestamp", "dataChange",
                                      "extendedFileMetadata", "partitionValues", "size",
                                      "deletionVector", "baseRowId",
                                      "defaultRowCommitVersion"}));
  EXPECT_EQ(ChildNames(TopGroup(*md, "protocol")),
            (std::vector<std::string>{"minReaderVersion", "minWriterVersion",
                                      "readerFeatures", "writerFeatures"}));
  const auto& pv =
      static_cast<const parquet::schema::GroupNode&>(*TopGroup(*md, "add").field(1));
  EXPECT_EQ(pv.logical_type()->ToString(), "Map");

  // Exactly one non-null action column per row.
  auto opened =
      parquet::arrow::OpenFile(arrow::io::ReadableFile::Open(info->path).ValueOrDie(),
                               arrow::default_memory_pool());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::unique_ptr<parquet::arrow::FileReader> arrow_reader = std::move(*opened);
  std::shared_ptr<arrow::Table> rows;
  ASSERT_TRUE(arrow_reader->ReadTable(&rows).ok());
  auto combined = rows->CombineChunksToBatch().ValueOrDie();
  for (int64_t r = 0; r < combined->num_rows(); ++r) {
    int non_null = 0;
    for (int c = 0; c < combined->num_columns(); ++c) {
      if (!combined->column(c)->IsNull(r)) ++non_null;
    }
    EXPECT_EQ(non_null, 1) << "row " << r;
  }
}

TEST(CheckpointWriterTest, LegacyProtocolHasNoFeatureColumns) {
  TestTable table;
  table.Commit(0, {ProtocolLine(1, 2), MetadataLine(), testing::AddLine("a.parquet")});
  auto fs = MakeLocalFileSystem();
  SnapshotRef snap = LoadOrDie(fs, table.root());
  ASSERT_NE(snap, nullptr);
  auto info = WriteCheckpoint(*snap, {});
  ASSERT_TRUE(info) << info.error().ToString();
  EXPECT_EQ(info->num_actions, 3);
  auto md = OpenParquet(info->path)->metadata();
  EXPECT_EQ(ChildNames(TopGroup(*md, "protocol")),
            (std::vector<std::string>{"minReaderVersion", "minWriterVersion"}));
  SnapshotRef back = LoadOrDie(fs, table.root());
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->segment().checkpoint_version, 0);
  EXPECT_FALSE(back->protocol().reader_features.has_value());
  EXPECT_FALSE(back->protocol().writer_features.has_value());
  EXPECT_EQ(StateLines(*back), StateLines(*snap));
}

TEST(CheckpointWriterTest, LastCheckpointContent) {
  TestTable table;
  WriteCommits(table, RichCommits(TableProtocol()));
  auto fs = MakeLocalFileSystem();
  SnapshotRef snap = LoadOrDie(fs, table.root());
  ASSERT_NE(snap, nullptr);
  auto info = WriteCheckpoint(*snap, {});
  ASSERT_TRUE(info) << info.error().ToString();
  std::string hint = *fs->ReadFile(table.log_dir() + "/_last_checkpoint");
  EXPECT_EQ(hint, fmt::format(R"({{"version":2,"size":11,"sizeInBytes":{},)"
                              R"("numOfAddFiles":3}})",
                              std::filesystem::file_size(info->path)));
  // A later commit and checkpoint move the hint forward.
  table.Commit(3, {testing::AddLine("late.parquet")});
  SnapshotRef v3 = LoadOrDie(fs, table.root());
  ASSERT_NE(v3, nullptr);
  EXPECT_EQ(v3->segment().checkpoint_version, 2);
  EXPECT_EQ(v3->segment().commit_versions, std::vector<int64_t>{3});
  auto info3 = WriteCheckpoint(*v3, {});
  ASSERT_TRUE(info3) << info3.error().ToString();
  EXPECT_THAT(*fs->ReadFile(table.log_dir() + "/_last_checkpoint"),
              HasSubstr(R"({"version":3,"size":12,)"));
}

TEST(CheckpointWriterTest, TombstoneExpiry) {
  TestTable table;
  // Retention 2 days; "now" is 1 day after the newest tombstone.
  WriteCommits(table,
               RichCommits(TableProtocol(),
                           R"(,"delta.deletedFileRetentionDuration":"interval 2 days")"));
  auto fs = MakeLocalFileSystem();
  SnapshotRef json = LoadOrDie(fs, table.root());
  ASSERT_NE(json, nullptr);
  ASSERT_EQ(json->tombstones().size(), 3u);
  const int64_t now = 1700000000500 + kDay;
  auto info = WriteCheckpoint(*json, {.now_ms = now});
  ASSERT_TRUE(info) << info.error().ToString();
  SnapshotRef back = LoadOrDie(fs, table.root());
  ASSERT_NE(back, nullptr);
  std::vector<std::string> paths;
  for (const RemoveFile& rm : back->tombstones()) paths.push_back(rm.path);
  std::sort(paths.begin(), paths.end());
  // old-expired.parquet (deleted at t=1000) is gone; no timestamp ⇒ kept.
  EXPECT_EQ(paths, (std::vector<std::string>{"old-no-timestamp.parquet",
                                             "p=y/q=2/gone.parquet"}));
  auto keep = [&](const RemoveFile& rm) { return rm.path != "old-expired.parquet"; };
  EXPECT_EQ(StateLines(*back), StateLines(*json, keep));

  // Three days later the remaining timestamped tombstone has expired too (default
  // retention would keep it: 1 week).
  auto later = WriteCheckpoint(*json, {.now_ms = 1700000000500 + 3 * kDay});
  ASSERT_TRUE(later) << later.error().ToString();
  EXPECT_EQ(later->num_actions, info->num_actions - 1);
}

TEST(CheckpointWriterTest, DefaultRetentionIsOneWeek) {
  TestTable table;
  WriteCommits(table, RichCommits(TableProtocol()));
  auto fs = MakeLocalFileSystem();
  SnapshotRef json = LoadOrDie(fs, table.root());
  ASSERT_NE(json, nullptr);
  auto six_days = WriteCheckpoint(*json, {.now_ms = 1700000000500 + 6 * kDay});
  auto eight_days = WriteCheckpoint(*json, {.now_ms = 1700000000500 + 8 * kDay});
  ASSERT_TRUE(six_days && eight_days);
  // At both times t=1000 is expired; gone.parquet expires between day 6 and day 8.
  EXPECT_EQ(six_days->num_actions, 10);
  EXPECT_EQ(eight_days->num_actions, 9);
}

TEST(CheckpointWriterTest, SetTransactionRetention) {
  TestTable table;
  table.Commit(0, {ProtocolLine(1, 2),
                   MetadataLine(R"("delta.setTransactionRetentionDuration":"1 day")"),
                   R"({"txn":{"appId":"old","version":1,"lastUpdated":1000}})",
                   R"({"txn":{"appId":"new","version":2,"lastUpdated":)" +
                       std::to_string(5 * kDay) + "}}",
                   R"({"txn":{"appId":"untimed","version":3}})"});
  auto fs = MakeLocalFileSystem();
  SnapshotRef snap = LoadOrDie(fs, table.root());
  ASSERT_NE(snap, nullptr);
  ASSERT_TRUE(WriteCheckpoint(*snap, {.now_ms = 5 * kDay + 1}));
  SnapshotRef back = LoadOrDie(fs, table.root());
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->transactions().count("old"), 0u);
  EXPECT_EQ(back->transactions().count("new"), 1u);
  EXPECT_EQ(back->transactions().count("untimed"), 1u);
}

TEST(CheckpointWriterTest, V2CheckpointWhenFeatureSupported) {
  TestTable table;
  WriteCommits(table, RichCommits(ProtocolLine(3, 7, {"deletionVectors", "v2Checkpoint"},
                                               {"deletionVectors", "domainMetadata",
                                                "rowTracking", "v2Checkpoint"})));
  auto fs = MakeLocalFileSystem();
  SnapshotRef json = LoadOrDie(fs, table.root());
  ASSERT_NE(json, nullptr);
  auto info = WriteCheckpoint(*json, {});
  ASSERT_TRUE(info) << info.error().ToString();
  EXPECT_TRUE(info->v2);
  EXPECT_EQ(info->num_actions, 12);  // + checkpointMetadata
  std::string name(BaseName(info->path));
  const std::regex v2_name(
      R"(00000000000000000002\.checkpoint\.)"
      R"([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.parquet)");
  EXPECT_TRUE(std::regex_match(name, v2_name)) << name;
  auto parsed = ParseLogFileName(name);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->type, LogFileType::kCheckpointV2Parquet);
  EXPECT_FALSE(std::filesystem::exists(table.log_dir() +
                                       "/00000000000000000002.checkpoint.parquet"));

  ParquetCheckpointReader reader(fs);
  auto actions = reader.ReadCheckpoint(info->path);
  ASSERT_TRUE(actions) << actions.error().ToString();
  int checkpoint_metadata = 0;
  for (const Action& a : *actions) {
    if (const auto* cm = std::get_if<CheckpointMetadata>(&a)) {
      EXPECT_EQ(cm->version, 2);
      ++checkpoint_metadata;
    }
    EXPECT_FALSE(std::holds_alternative<Sidecar>(a));
  }
  EXPECT_EQ(checkpoint_metadata, 1);
  EXPECT_EQ(static_cast<int64_t>(actions->size()), info->num_actions);

  std::string hint = *fs->ReadFile(table.log_dir() + "/_last_checkpoint");
  EXPECT_THAT(hint, HasSubstr(R"({"version":2,"size":12,)"));
  EXPECT_THAT(hint,
              HasSubstr(fmt::format(R"("v2Checkpoint":{{"path":"{}","sizeInBytes":{})",
                                    name, info->size_in_bytes)));
  EXPECT_THAT(hint, HasSubstr(R"("nonFileActions":[{"protocol":)"));
  EXPECT_THAT(hint, HasSubstr(R"({"checkpointMetadata":{"version":2}})"));
  EXPECT_THAT(hint, HasSubstr(R"("sidecarFiles":[]})"));

  SnapshotRef back = LoadOrDie(fs, table.root());
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->segment().checkpoint_version, 2);
  EXPECT_EQ(StateLines(*back), StateLines(*json));
}

TEST(CheckpointWriterTest, ShouldCheckpoint) {
  Metadata md;
  auto at = [&](int64_t v) {
    auto r = ShouldCheckpoint(v, md);
    EXPECT_TRUE(r) << r.error().ToString();
    return r && *r;
  };
  EXPECT_FALSE(at(0));
  EXPECT_FALSE(at(9));
  EXPECT_TRUE(at(10));
  EXPECT_TRUE(at(20));
  md.configuration = {{"delta.checkpointInterval", "3"}};
  EXPECT_TRUE(at(3));
  EXPECT_FALSE(at(10));
  md.configuration = {{"DELTA.CHECKPOINTINTERVAL", " 1 "}};
  EXPECT_TRUE(at(1));
  for (const char* bad : {"0", "-5", "ten", "2.5", ""}) {
    md.configuration = {{"delta.checkpointInterval", bad}};
    auto r = ShouldCheckpoint(10, md);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kCorruptLog);
    EXPECT_THAT(r.error().message, HasSubstr("delta.checkpointInterval"));
    EXPECT_THAT(r.error().message, HasSubstr(fmt::format("'{}'", bad)));
  }
}

TEST(CheckpointWriterTest, ParseIntervalMs) {
  EXPECT_EQ(ParseIntervalMs("interval 1 week").value(), 7 * kDay);
  EXPECT_EQ(ParseIntervalMs("INTERVAL 2 Days").value(), 2 * kDay);
  EXPECT_EQ(ParseIntervalMs("30 days").value(), 30 * kDay);
  EXPECT_EQ(ParseIntervalMs("interval 1 day 12 hours").value(), kDay + kDay / 2);
  EXPECT_EQ(ParseIntervalMs("interval 90 seconds").value(), 90000);
  EXPECT_EQ(ParseIntervalMs("interval 5 minute").value(), 300000);
  EXPECT_EQ(ParseIntervalMs("interval 1500 microseconds").value(), 1);
  EXPECT_EQ(ParseIntervalMs("interval 0 milliseconds").value(), 0);
  for (const char* bad :
       {"", "interval", "interval 1", "interval 1 month", "interval -1 day",
        "interval x days", "1 fortnight", "interval 99999999999999 weeks"}) {
    auto r = ParseIntervalMs(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  }
}

TEST(CheckpointWriterTest, InvalidRetentionPropertyFails) {
  TestTable table;
  table.Commit(0, {ProtocolLine(1, 2),
                   MetadataLine(R"("delta.deletedFileRetentionDuration":"1 month")")});
  auto fs = MakeLocalFileSystem();
  SnapshotRef snap = LoadOrDie(fs, table.root());
  ASSERT_NE(snap, nullptr);
  auto info = WriteCheckpoint(*snap, {});
  ASSERT_FALSE(info);
  EXPECT_EQ(info.error().code, ErrorCode::kCorruptLog);
  EXPECT_THAT(info.error().message, HasSubstr("delta.deletedFileRetentionDuration"));
  EXPECT_FALSE(std::filesystem::exists(table.log_dir() +
                                       "/00000000000000000000.checkpoint.parquet"));
}

// The checkpoint comes after the commit: whatever fails while writing it, the table
// stays readable at the same version with the same state.
TEST(CheckpointWriterTest, FailedCheckpointWriteLeavesTableReadable) {
  for (Fault fault : {Fault::kError, Fault::kCrashBeforeWrite, Fault::kTornWrite}) {
    SCOPED_TRACE(static_cast<int>(fault));
    TestTable table;
    WriteCommits(table, RichCommits(TableProtocol()));
    auto local = MakeLocalFileSystem();
    auto faulty = std::make_shared<FaultInjectionFileSystem>(local);
    SnapshotRef snap = LoadOrDie(faulty, table.root());
    ASSERT_NE(snap, nullptr);
    faulty->FailNextMatching(".checkpoint.parquet", fault);
    auto info = WriteCheckpoint(*snap, {});
    ASSERT_FALSE(info);
    EXPECT_EQ(info.error().code, ErrorCode::kIOError);
    EXPECT_THAT(info.error().message,
                HasSubstr("00000000000000000002.checkpoint.parquet"));
    EXPECT_FALSE(std::filesystem::exists(table.log_dir() + "/_last_checkpoint"));

    SnapshotRef after = LoadOrDie(local, table.root());
    ASSERT_NE(after, nullptr);
    EXPECT_EQ(after->version(), 2);
    EXPECT_EQ(StateLines(*after), StateLines(*snap));
  }
}

TEST(CheckpointWriterTest, FailedLastCheckpointWriteLeavesTableReadable) {
  TestTable table;
  WriteCommits(table, RichCommits(TableProtocol()));
  auto local = MakeLocalFileSystem();
  auto faulty = std::make_shared<FaultInjectionFileSystem>(local);
  SnapshotRef snap = LoadOrDie(faulty, table.root());
  ASSERT_NE(snap, nullptr);
  faulty->FailNextMatching("_last_checkpoint", Fault::kError);
  auto info = WriteCheckpoint(*snap, {});
  ASSERT_FALSE(info);
  EXPECT_EQ(info.error().code, ErrorCode::kIOError);
  EXPECT_THAT(info.error().message, HasSubstr("_last_checkpoint"));
  EXPECT_EQ(faulty->ops(),
            (std::vector<std::string>{
                "write " + table.log_dir() + "/00000000000000000002.checkpoint.parquet",
                "write " + table.log_dir() + "/_last_checkpoint"}));
  SnapshotRef after = LoadOrDie(local, table.root());
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(after->version(), 2);
  EXPECT_EQ(after->segment().checkpoint_version, 2);  // found by listing
  EXPECT_EQ(StateLines(*after), StateLines(*snap));
}

TEST(CheckpointWriterTest, RejectsNonPositiveRowGroupSize) {
  TestTable table;
  table.Commit(0, {ProtocolLine(1, 2), MetadataLine()});
  auto fs = MakeLocalFileSystem();
  SnapshotRef snap = LoadOrDie(fs, table.root());
  ASSERT_NE(snap, nullptr);
  auto info = WriteCheckpoint(*snap, {.now_ms = 0, .row_group_rows = 0});
  ASSERT_FALSE(info);
  EXPECT_EQ(info.error().code, ErrorCode::kInvalidArgument);
}

// Every replayable table of the shared corpora: a checkpoint we write at its latest
// version reloads to the same state. The log is copied (data files are not needed).
TEST(CheckpointWriterCorpusTest, RoundTripsEveryReadableTable) {
  const char* env = std::getenv("DELTAGUARD_CORPORA");
  if (env == nullptr || !std::filesystem::is_directory(env)) {
    GTEST_SKIP() << "DELTAGUARD_CORPORA is not set or not a directory";
  }
  auto fs = MakeLocalFileSystem();
  testing::TempDir tmp;
  int round_tripped = 0, v2 = 0, index = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(env)) {
    if (!entry.is_directory() || entry.path().filename() != "_delta_log") continue;
    const std::string root = entry.path().parent_path().string();
    SCOPED_TRACE(root);
    ParquetCheckpointReader reader(fs);
    auto original = Snapshot::Load(fs, root, reader);
    if (!original) continue;  // unsupported or deliberately broken tables
    const std::string copy = tmp.Join(std::to_string(index++));
    std::filesystem::create_directories(copy);
    std::filesystem::copy(entry.path(), copy + "/_delta_log",
                          std::filesystem::copy_options::recursive);
    SnapshotRef before = LoadOrDie(fs, copy);
    ASSERT_NE(before, nullptr);
    auto info = WriteCheckpoint(*before, {.now_ms = 0, .row_group_rows = 1000});
    ASSERT_TRUE(info) << info.error().ToString();
    // Leave ours as the only checkpoint of that version, so the reload must use it.
    for (const auto& f : std::filesystem::directory_iterator(copy + "/_delta_log")) {
      auto name = ParseLogFileName(f.path().filename().string());
      if (name && name->is_checkpoint() && name->version == before->version() &&
          f.path().string() != info->path) {
        std::filesystem::remove(f.path());
      }
    }
    SnapshotRef after = LoadOrDie(fs, copy);
    ASSERT_NE(after, nullptr);
    EXPECT_EQ(after->version(), (*original)->version());
    EXPECT_EQ(after->segment().checkpoint_files, std::vector<std::string>{info->path});
    EXPECT_EQ(StateLines(*after), StateLines(**original));
    ++round_tripped;
    if (info->v2) ++v2;
  }
  fmt::print("round-tripped {} corpus tables ({} as V2 checkpoints)\n", round_tripped,
             v2);
  EXPECT_GE(round_tripped, 80);
  EXPECT_GE(v2, 1);
}

}  // namespace
}  // namespace deltaguard
