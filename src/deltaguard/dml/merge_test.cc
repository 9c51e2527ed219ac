// MERGE clause semantics, multi-match rule, names, metrics/commitInfo, pruning,
// concurrency and failure atomicity.

#include "deltaguard/dml/merge.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/dml/update_delete.h"
#include "deltaguard/io/fs/fault_injection_file_system.h"
#include "deltaguard/io/parquet/parquet_file.h"
#include "testing/matchers.h"
#include "testing/racing_file_system.h"
#include "testing/table_fixture.h"

namespace deltaguard {
namespace {

constexpr char kDdl[] = "id BIGINT, name STRING, amount INT";

// A table with ids 1..3 in one file.
std::string Base(const TempDir& dir) {
  std::string path = dir.Join("t");
  MakeTable(path, kDdl,
            {R"([{"id":1,"name":"a","amount":10},{"id":2,"name":"b","amount":20},)"
             R"({"id":3,"name":"c","amount":30}])"});
  return path;
}

BatchSource Src(const std::string& json) { return JsonSource(kDdl, json); }

TEST(MergeTest, UpsertUpdatesMatchedAndInsertsNew) {
  TempDir dir;
  std::string path = Base(dir);
  auto r =
      MergeBuilder(
          MakeLocalFileSystem(), path,
          Src(R"([{"id":2,"name":"B","amount":21},{"id":4,"name":"d","amount":40}])"),
          "t.id = s.id", "t", "s")
          .WhenMatchedUpdateAll()
          .WhenNotMatchedInsertAll()
          .Execute();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->num_source_rows, 2);
  EXPECT_EQ(r->num_target_rows_updated, 1);
  EXPECT_EQ(r->num_target_rows_inserted, 1);
  EXPECT_EQ(r->num_target_rows_copied, 2);
  EXPECT_EQ(r->num_target_files_removed, 1);
  EXPECT_EQ(r->num_output_rows, 4);
  EXPECT_THAT(Dump(path),
              ElementsAre("id,name,amount", "1|a|10", "2|B|21", "3|c|30", "4|d|40"));
  std::string info = testing::CommitInfo(path, r->version);
  EXPECT_THAT(info, HasSubstr(R"("operation":"MERGE")"));
  EXPECT_THAT(info, HasSubstr(R"("predicate":"[\"t.id = s.id\"]")"));
  EXPECT_THAT(info, HasSubstr(R"("matchedPredicates":"[{\"actionType\":\"update\"}]")"));
  EXPECT_THAT(info,
              HasSubstr(R"("notMatchedPredicates":"[{\"actionType\":\"insert\"}]")"));
  EXPECT_THAT(info, HasSubstr(R"("numTargetRowsUpdated":"1")"));
  EXPECT_THAT(info, HasSubstr(R"("numTargetRowsInserted":"1")"));
  EXPECT_THAT(info, HasSubstr(R"("numTargetRowsCopied":"2")"));
  EXPECT_THAT(info, HasSubstr(R"("numSourceRows":"2")"));
}

// Target files that store `name` dictionary-encoded (few values) and PLAIN (nearly all
// distinct) in one MERGE: copied rows keep the encoding they were read with
// (ScanOptions::dictionary_columns) and the rewritten file holds the same values; a
// clause that reads `name` gets its values.
TEST(MergeTest, DictionaryAndPlainTargetFilesGiveTheSameRows) {
  TempDir dir;
  std::string path = dir.Join("t");
  std::string plain = "[";
  for (int i = 0; i < 9000; ++i) {
    plain += fmt::format(R"({}{{"id":{},"name":"n{}","amount":{}}})", i ? "," : "",
                         100 + i, i, i);
  }
  plain += "]";
  MakeTable(path, kDdl,
            {R"([{"id":1,"name":"a","amount":10},{"id":2,"name":"b","amount":20},)"
             R"({"id":3,"name":"a","amount":30}])",
             plain});
  auto encodings = [&path]() {
    std::vector<bool> out;
    auto snapshot = OpenSnapshot(path);
    EXPECT_TRUE(snapshot);
    for (const auto& f : (*snapshot)->files()) {
      auto reader = OpenParquetFile(
          MakeLocalFileSystem(), (*snapshot)->ResolveDataPath(f.path),
          DefaultArrowReaderProperties(false, 1024), ErrorCode::kCorruptData);
      EXPECT_TRUE(reader);
      out.push_back(
          AllPagesDictionaryEncoded(*(*reader)->parquet_reader()->metadata(), 1));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  ASSERT_EQ(encodings(), (std::vector<bool>{false, true}));
  auto r = MergeBuilder(MakeLocalFileSystem(), path,
                        Src(R"([{"id":2,"name":"B","amount":21},)"
                            R"({"id":105,"name":"X","amount":1},)"
                            R"({"id":20000,"name":"a","amount":2}])"),
                        "t.id = s.id", "t", "s")
               .WhenMatchedUpdateAll()
               .WhenNotMatchedInsertAll()
               .Execute();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->num_target_rows_updated, 2);
  EXPECT_EQ(r->num_target_rows_copied, 9001);
  EXPECT_EQ(r->num_target_files_removed, 2);
  auto rows = Dump(path);
  ASSERT_EQ(rows.size(), 9005u);
  EXPECT_THAT(rows, ::testing::Contains("1|a|10"));
  EXPECT_THAT(rows, ::testing::Contains("100|n0|0"));
  EXPECT_THAT(rows, ::testing::Contains("105|X|1"));
  EXPECT_THAT(rows, ::testing::Contains("104|n4|4"));
  EXPECT_THAT(rows, ::testing::Contains("2|B|21"));
  EXPECT_THAT(rows, ::testing::Contains("20000|a|2"));
  EXPECT_THAT(rows, ::testing::Contains("3|a|30"));
  EXPECT_EQ(encodings().size(), 1u);

  // A clause that reads t.name.
  auto r2 = MergeBuilder(MakeLocalFileSystem(), path,
                         Src(R"([{"id":3,"name":"z","amount":0},)"
                             R"({"id":106,"name":"z","amount":0}])"),
                         "t.id = s.id", "t", "s")
                .WhenMatchedUpdate("", {{"name", "concat(t.name, s.name)"}})
                .Execute();
  ASSERT_TRUE(r2) << r2.error().ToString();
  rows = Dump(path);
  EXPECT_THAT(rows, ::testing::Contains("3|az|30"));
  EXPECT_THAT(rows, ::testing::Contains("106|n6z|6"));
  EXPECT_THAT(rows, ::testing::Contains("105|X|1"));
  EXPECT_EQ(rows.size(), 9005u);
}

TEST(MergeTest, FirstMatchingClauseWinsInOrder) {
  TempDir dir;
  std::string path = Base(dir);
  auto r =
      MergeBuilder(
          MakeLocalFileSystem(), path,
          Src(R"([{"id":1,"name":"x","amount":500},{"id":2,"name":"y","amount":5}])"),
          "t.id = s.id", "t", "s")
          .WhenMatchedDelete("s.amount > 100")
          .WhenMatchedUpdate("", {{"amount", "s.amount + t.amount"}})
          .Execute();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->num_target_rows_matched_deleted, 1);
  EXPECT_EQ(r->num_target_rows_matched_updated, 1);
  EXPECT_THAT(Dump(path), ElementsAre("id,name,amount", "2|b|25", "3|c|30"));
  EXPECT_THAT(testing::CommitInfo(path, r->version),
              HasSubstr(R"(\"predicate\":\"s.amount > 100\",\"actionType\":\"delete\"},)"
                        R"({\"actionType\":\"update\"})"));
}

TEST(MergeTest, MatchedRowWhoseConditionsFailIsKept) {
  TempDir dir;
  std::string path = Base(dir);
  auto r =
      MergeBuilder(MakeLocalFileSystem(), path,
                   Src(R"([{"id":1,"name":"x","amount":1}])"), "t.id = s.id", "t", "s")
          .WhenMatchedUpdateAll("s.amount > t.amount")
          .Execute();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->num_target_rows_updated, 0);
  EXPECT_EQ(r->num_target_files_removed, 0);  // nothing changed: nothing rewritten
  EXPECT_THAT(Dump(path), ElementsAre("id,name,amount", "1|a|10", "2|b|20", "3|c|30"));
}

TEST(MergeTest, NotMatchedBySourceUpdateAndDelete) {
  TempDir dir;
  std::string path = Base(dir);
  auto r =
      MergeBuilder(MakeLocalFileSystem(), path,
                   Src(R"([{"id":1,"name":"x","amount":1}])"), "t.id = s.id", "t", "s")
          .WhenNotMatchedBySourceDelete("t.id > 2")
          .WhenNotMatchedBySourceUpdate("", {{"name", "'stale'"}})
          .Execute();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->num_target_rows_not_matched_by_source_deleted, 1);
  EXPECT_EQ(r->num_target_rows_not_matched_by_source_updated, 1);
  EXPECT_EQ(r->num_target_rows_copied, 1);  // id 1 matched, no MATCHED clause
  EXPECT_THAT(Dump(path), ElementsAre("id,name,amount", "1|a|10", "2|stale|20"));
}

TEST(MergeTest, ExplicitInsertLeavesOtherColumnsNull) {
  TempDir dir;
  std::string path = Base(dir);
  auto r =
      MergeBuilder(
          MakeLocalFileSystem(), path,
          Src(R"([{"id":7,"name":"g","amount":70},{"id":8,"name":"h","amount":80}])"),
          "t.id = s.id", "t", "s")
          .WhenNotMatchedInsert("s.id = 7", {{"id", "s.id"}, {"name", "upper(name)"}})
          .Execute();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->num_target_rows_inserted, 1);
  EXPECT_EQ(r->num_target_files_removed, 0);
  EXPECT_THAT(Dump(path),
              ElementsAre("id,name,amount", "1|a|10", "2|b|20", "3|c|30", "7|G|null"));
}

TEST(MergeTest, MultipleSourceRowsMatchingOneTargetRowFail) {
  TempDir dir;
  std::string path = Base(dir);
  int64_t before = testing::Version(path);
  auto r = MergeBuilder(
               MakeLocalFileSystem(), path,
               Src(R"([{"id":2,"name":"x","amount":1},{"id":2,"name":"y","amount":2}])"),
               "t.id = s.id", "t", "s")
               .WhenMatchedUpdateAll()
               .Execute();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(r.error().message,
              HasSubstr("DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE"));
  EXPECT_THAT(r.error().message, HasSubstr("t.id = 2"));
  EXPECT_EQ(testing::Version(path), before);
  EXPECT_EQ(testing::ParquetFiles(path).size(), 1u);
}

TEST(MergeTest, MultipleMatchesAllowedForOneUnconditionalDelete) {
  TempDir dir;
  std::string path = Base(dir);
  auto r = MergeBuilder(
               MakeLocalFileSystem(), path,
               Src(R"([{"id":2,"name":"x","amount":1},{"id":2,"name":"y","amount":2}])"),
               "t.id = s.id", "t", "s")
               .WhenMatchedDelete()
               .Execute();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->num_target_rows_deleted, 1);
  EXPECT_THAT(Dump(path), ElementsAre("id,name,amount", "1|a|10", "3|c|30"));
  // A conditional delete is not enough.
  auto again =
      MergeBuilder(
          MakeLocalFileSystem(), path,
          Src(R"([{"id":1,"name":"x","amount":1},{"id":1,"name":"y","amount":2}])"),
          "t.id = s.id", "t", "s")
          .WhenMatchedDelete("s.amount > 0")
          .Execute();
  ASSERT_FALSE(again);
  EXPECT_THAT(again.error().message,
              HasSubstr("DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE"));
}

TEST(MergeTest, NamesResolveAcrossSides) {
  TempDir dir;
  std::string path = Base(dir);
  auto ambiguous =
      MergeBuilder(MakeLocalFileSystem(), path,
                   Src(R"([{"id":2,"name":"x","amount":1}])"), "id = s.id", "t", "s")
          .WhenMatchedDelete()
          .Execute();
  ASSERT_FALSE(ambiguous);
  EXPECT_THAT(ambiguous.error().message, HasSubstr("AMBIGUOUS_REFERENCE"));
  EXPECT_THAT(ambiguous.error().message, HasSubstr("t.id"));
  EXPECT_THAT(ambiguous.error().message, HasSubstr("s.id"));

  auto unknown =
      MergeBuilder(MakeLocalFileSystem(), path,
                   Src(R"([{"id":2,"name":"x","amount":1}])"), "t.id = s.nope", "t", "s")
          .WhenMatchedDelete()
          .Execute();
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(unknown.error().message, HasSubstr("s.nope"));

  // NOT MATCHED clauses see only the source.
  auto target_in_insert =
      MergeBuilder(MakeLocalFileSystem(), path,
                   Src(R"([{"id":9,"name":"x","amount":1}])"), "t.id = s.id", "t", "s")
          .WhenNotMatchedInsert("", {{"id", "t.id"}})
          .Execute();
  ASSERT_FALSE(target_in_insert);
  EXPECT_THAT(target_in_insert.error().message, HasSubstr("cannot reference the target"));

  // Unqualified names unique to one side, and a residual (non-equality) ON condition.
  TempDir dir2;
  std::string path2 = dir2.Join("t");
  MakeTable(path2, "tid BIGINT, v INT", {R"([{"tid":1,"v":1},{"tid":2,"v":2}])"});
  auto ok = MergeBuilder(MakeLocalFileSystem(), path2,
                         JsonSource("sid BIGINT, w INT", R"([{"sid":2,"w":5}])"),
                         "tid = sid AND v < w", "t", "s")
                .WhenMatchedUpdate("", {{"v", "w"}})
                .Execute();
  ASSERT_TRUE(ok) << ok.error().ToString();
  EXPECT_THAT(Dump(path2), ElementsAre("tid,v", "1|1", "2|5"));
}

TEST(MergeTest, NonLastClauseWithoutConditionIsRejected) {
  TempDir dir;
  std::string path = Base(dir);
  auto r = MergeBuilder(MakeLocalFileSystem(), path, Src("[]"), "t.id = s.id", "t", "s")
               .WhenMatchedDelete()
               .WhenMatchedUpdateAll("s.amount > 0")
               .Execute();
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("NON_LAST_CLAUSE_OMIT_CONDITION"));
}

TEST(MergeTest, UntouchedFilesAreNeitherReadNorRewritten) {
  TempDir dir;
  std::string path = dir.Join("t");
  MakeTable(path, kDdl,
            {R"([{"id":1,"name":"a","amount":1},{"id":10,"name":"b","amount":1}])",
             R"([{"id":11,"name":"c","amount":1},{"id":20,"name":"d","amount":1}])",
             R"([{"id":21,"name":"e","amount":1},{"id":30,"name":"f","amount":1}])"});
  auto before = testing::ParquetFiles(path);
  auto r =
      MergeBuilder(
          MakeLocalFileSystem(), path,
          Src(R"([{"id":12,"name":"x","amount":2},{"id":15,"name":"y","amount":2}])"),
          "t.id = s.id", "t", "s")
          .WhenMatchedUpdateAll()
          .WhenNotMatchedInsertAll()
          .Execute();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->num_target_files_scanned, 1);
  EXPECT_EQ(r->num_target_files_skipped, 2);
  EXPECT_EQ(r->num_target_files_removed, 0);  // 12, 15 are new: no row matched
  EXPECT_EQ(r->num_target_rows_inserted, 2);
  auto r2 =
      MergeBuilder(MakeLocalFileSystem(), path,
                   Src(R"([{"id":20,"name":"x","amount":3}])"), "s.id = t.id", "t", "s")
          .WhenMatchedUpdateAll()
          .Execute();
  ASSERT_TRUE(r2) << r2.error().ToString();
  EXPECT_EQ(r2->num_target_files_removed, 1);
  EXPECT_EQ(r2->num_target_rows_copied, 1);
  std::string info = testing::CommitInfo(path, r2->version);
  // The one remove is the file holding 11..20.
  int removes = 0;
  std::string log = testing::ReadTextFile(path + "/_delta_log/" +
                                          fmt::format("{:020}.json", r2->version));
  for (size_t p = log.find("\"remove\""); p != std::string::npos;
       p = log.find("\"remove\"", p + 1))
    ++removes;
  EXPECT_EQ(removes, 1);
  EXPECT_THAT(log, HasSubstr(R"(\"maxValues\":{\"id\":20)"));
  EXPECT_THAT(Dump(path), ElementsAre("id,name,amount", "10|b|1", "11|c|1", "12|x|2",
                                      "15|y|2", "1|a|1", "20|x|3", "21|e|1", "30|f|1"));
}

TEST(MergeTest, RaceWithBlindAppendRetriesAndSucceeds) {
  TempDir dir;
  std::string path = Base(dir);
  auto fs = std::make_shared<testing::RacingFileSystem>(MakeLocalFileSystem(), [&] {
    std::vector<BatchSource> sources;
    sources.push_back(Src(R"([{"id":100,"name":"z","amount":1}])"));
    auto w = WriteTable(MakeLocalFileSystem(), path, std::move(sources), {});
    ASSERT_TRUE(w) << w.error().ToString();
  });
  auto r = MergeBuilder(fs, path, Src(R"([{"id":2,"name":"B","amount":2}])"),
                        "t.id = s.id", "t", "s")
               .WhenMatchedUpdateAll()
               .Execute();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->commit_attempts, 2);
  EXPECT_THAT(Dump(path),
              ElementsAre("id,name,amount", "100|z|1", "1|a|10", "2|B|2", "3|c|30"));
}

TEST(MergeTest, RaceWithDeleteOfReadFileFailsAndLeavesNoFiles) {
  TempDir dir;
  std::string path = Base(dir);
  auto fs = std::make_shared<testing::RacingFileSystem>(MakeLocalFileSystem(), [&] {
    auto d = DeleteSql(MakeLocalFileSystem(), path, "id = 3");
    ASSERT_TRUE(d) << d.error().ToString();
  });
  auto r = MergeBuilder(fs, path, Src(R"([{"id":2,"name":"B","amount":2}])"),
                        "t.id = s.id", "t", "s")
               .WhenMatchedUpdateAll()
               .Execute();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kCommitConflict);
  // The winner's rows only: the MERGE changed nothing, and its file is gone.
  EXPECT_THAT(Dump(path), ElementsAre("id,name,amount", "1|a|10", "2|b|20"));
  EXPECT_EQ(testing::ParquetFiles(path).size(), 2u);  // original + DELETE's rewrite
}

TEST(MergeTest, InjectedWriteFailureLeavesTableUnchanged) {
  TempDir dir;
  std::string path = Base(dir);
  auto files = testing::ParquetFiles(path);
  auto fs = std::make_shared<FaultInjectionFileSystem>(MakeLocalFileSystem());
  fs->FailNextMatching(".parquet", Fault::kError);
  auto r = MergeBuilder(
               fs, path,
               Src(R"([{"id":2,"name":"B","amount":2},{"id":5,"name":"e","amount":5}])"),
               "t.id = s.id", "t", "s")
               .WhenMatchedUpdateAll()
               .WhenNotMatchedInsertAll()
               .Execute();
  ASSERT_FALSE(r);
  EXPECT_EQ(testing::Version(path), 1);
  EXPECT_EQ(testing::ParquetFiles(path), files);
  EXPECT_THAT(Dump(path), ElementsAre("id,name,amount", "1|a|10", "2|b|20", "3|c|30"));
}

TEST(MergeTest, FailedCommitLeavesTableUnchanged) {
  TempDir dir;
  std::string path = Base(dir);
  auto files = testing::ParquetFiles(path);
  auto fs = std::make_shared<FaultInjectionFileSystem>(MakeLocalFileSystem());
  fs->FailNextMatching("_delta_log/00000000000000000002.json", Fault::kError);
  auto r = MergeBuilder(fs, path, Src(R"([{"id":2,"name":"B","amount":2}])"),
                        "t.id = s.id", "t", "s")
               .WhenMatchedUpdateAll()
               .Execute();
  ASSERT_FALSE(r);
  EXPECT_EQ(testing::Version(path), 1);
  // An I/O error at the commit itself leaves the outcome unknown, so the written file
  // may stay; but the table still reads the same rows.
  EXPECT_THAT(Dump(path), ElementsAre("id,name,amount", "1|a|10", "2|b|20", "3|c|30"));
}

TEST(MergeTest, PartitionedTargetAndPartitionKeyPruning) {
  TempDir dir;
  std::string path = dir.Join("t");
  MakeTable(path, "id BIGINT, part INT, v STRING",
            {R"([{"id":1,"part":1,"v":"a"},{"id":2,"part":2,"v":"b"}])"}, {"part"});
  auto r =
      MergeBuilder(MakeLocalFileSystem(), path,
                   JsonSource("id BIGINT, part INT, v STRING",
                              R"([{"id":2,"part":2,"v":"B"},{"id":3,"part":3,"v":"c"}])"),
                   "t.part = s.part AND t.id = s.id", "t", "s")
          .WhenMatchedUpdateAll()
          .WhenNotMatchedInsertAll()
          .Execute();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->num_target_files_scanned, 1);  // part=1 pruned by its partition value
  EXPECT_EQ(r->num_target_files_removed, 1);
  EXPECT_THAT(Dump(path), ElementsAre("id,part,v", "1|1|a", "2|2|B", "3|3|c"));
}

TEST(MergeTest, MissingTableIsNotFound) {
  TempDir dir;
  auto r = MergeBuilder(MakeLocalFileSystem(), dir.Join("none"), Src("[]"), "t.id = s.id",
                        "t", "s")
               .WhenMatchedDelete()
               .Execute();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace deltaguard

namespace deltaguard {
namespace {

// A source reading one batch (in kDdl's schema) per JSON array, possibly none.
BatchSource Batches(const std::vector<std::string>& jsons) {
  auto schema = testing::Ddl(kDdl);
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  for (const auto& json : jsons) batches.push_back(testing::Rows(schema, json));
  auto arrow_schema = testing::Rows(schema, "[]")->schema();
  auto reader = arrow::RecordBatchReader::Make(batches, arrow_schema);
  EXPECT_TRUE(reader.ok());
  return SourceFromReader("src", *reader);
}

// A source of several batches (column-by-column combine) and one of none.
TEST(MergeSourceTest, ManyBatchesAndNoBatchesCombineToTheSourceRows) {
  TempDir dir;
  std::string path = Base(dir);
  auto r = MergeBuilder(MakeLocalFileSystem(), path,
                        Batches({R"([{"id":1,"name":"A","amount":11}])",
                                 R"([{"id":5,"name":"e","amount":50},)"
                                 R"({"id":6,"name":"f","amount":60}])",
                                 "[]", R"([{"id":3,"name":"C","amount":31}])"}),
                        "t.id = s.id", "t", "s")
               .WhenMatchedUpdateAll()
               .WhenNotMatchedInsertAll()
               .Execute();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->num_source_rows, 4);
  EXPECT_EQ(r->num_target_rows_updated, 2);
  EXPECT_EQ(r->num_target_rows_inserted, 2);
  EXPECT_THAT(Dump(path), ElementsAre("id,name,amount", "1|A|11", "2|b|20", "3|C|31",
                                      "5|e|50", "6|f|60"));

  auto empty =
      MergeBuilder(MakeLocalFileSystem(), path, Batches({}), "t.id = s.id", "t", "s")
          .WhenMatchedDelete()
          .WhenNotMatchedInsertAll()
          .Execute();
  ASSERT_TRUE(empty) << empty.error().ToString();
  EXPECT_EQ(empty->num_source_rows, 0);
  EXPECT_EQ(empty->num_target_rows_deleted, 0);
  EXPECT_EQ(Dump(path).size(), 6u);
}

// Past the memory limit the source is spilled to a memory-mapped file: same rows, same
// metrics, and the spill is reported.
TEST(MergeSourceTest, SpilledSourceGivesTheSameResult) {
  auto run = [&](const std::string& path, std::optional<int64_t> limit) {
    MergeBuilder builder(
        MakeLocalFileSystem(), path,
        Batches({R"([{"id":1,"name":"A","amount":11},{"id":9,"name":"i","amount":9}])",
                 R"([{"id":3,"name":"C","amount":31}])",
                 R"([{"id":7,"name":"g","amount":70}])"}),
        "t.id = s.id", "t", "s");
    builder.WhenMatchedUpdate("s.amount > 20", {{"name", "concat(t.name, s.name)"}})
        .WhenMatchedDelete()
        .WhenNotMatchedInsertAll("s.id > 8");
    if (limit) builder.SourceMemoryLimit(*limit);
    return builder.Execute();
  };
  TempDir dir;
  const std::string in_memory = Base(dir);
  auto a = run(in_memory, std::nullopt);
  ASSERT_TRUE(a) << a.error().ToString();
  EXPECT_EQ(a->source_spilled_bytes, 0);
  for (int64_t limit : {int64_t{0}, int64_t{1}}) {
    TempDir d;
    const std::string path = Base(d);
    auto b = run(path, limit);
    ASSERT_TRUE(b) << b.error().ToString();
    EXPECT_GT(b->source_spilled_bytes, 0) << limit;
    EXPECT_EQ(Dump(path), Dump(in_memory)) << limit;
    EXPECT_EQ(b->num_source_rows, 4);
    EXPECT_EQ(b->num_target_rows_updated, a->num_target_rows_updated);
    EXPECT_EQ(b->num_target_rows_deleted, a->num_target_rows_deleted);
    EXPECT_EQ(b->num_target_rows_inserted, a->num_target_rows_inserted);
  }
  EXPECT_THAT(Dump(in_memory),
              ElementsAre("id,name,amount", "2|b|20", "3|cC|30", "9|i|9"));
}

}  // namespace
}  // namespace deltaguard
