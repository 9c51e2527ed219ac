// Ingestion end to end (ingest/ingest.h): each evolution mode on the source articles'
// cases, malformed records, exactly-once across failures at every file-system
// operation of a batch, and the checkpoint's guard rails.

#include "deltaguard/ingest/ingest.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "deltaguard/ingest/state.h"
#include "deltaguard/io/fs/fault_injection_file_system.h"
#include "testing/table_fixture.h"
#include "testing/temp_dir.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

using testing::Dump;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::WriteTextFile;

class IngestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_.Join("in"));
    request_.source = dir_.Join("in");
    request_.table = dir_.Join("bronze");
    request_.checkpoint = dir_.Join("cp");
  }

  void Source(const std::string& name, const std::string& text) {
    const std::string path = dir_.Join("in/" + name);
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    WriteTextFile(path, text);
  }

  Result<IngestResult> Ingest(FileSystemRef fs = MakeLocalFileSystem()) {
    return RunIngest(std::move(fs), request_, nullptr);
  }

  void Options(std::vector<std::pair<std::string, std::string>> pairs) {
    auto o = ParseIngestOptions(pairs);
    ASSERT_TRUE(o) << o.error().message;
    request_.options = std::move(*o);
  }

  TempDir dir_;
  IngestRequest request_;
};

TEST_F(IngestTest, AddNewColumnsFailsOnceThenPicksThemUp) {
  Source("a.json", R"({"order_id": "1", "amount": 10.5}
{"order_id": "2", "amount": 7})");
  auto first = Ingest();
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_EQ(first->batches.size(), 1u);
  EXPECT_EQ(first->batches[0].rows, 2);
  // Text formats infer strings (Auto Loader's default); the rescued column is added.
  EXPECT_THAT(Dump(request_.table),
              ElementsAre("order_id,amount,_rescued_data", "1|10.5|null", "2|7|null"));

  Source("b.json", R"({"order_id": "3", "amount": 1, "payment_method": "card"})");
  auto second = Ingest();
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(second.error().message, HasSubstr("UNKNOWN_FIELD_EXCEPTION"));
  EXPECT_THAT(second.error().message, HasSubstr("payment_method (string)"));
  EXPECT_THAT(second.error().message, HasSubstr("schema version 1"));
  EXPECT_EQ(testing::Version(request_.table), 0);  // nothing of the batch committed

  auto history = ReadSchemaHistory(*MakeLocalFileSystem(), request_.checkpoint);
  ASSERT_TRUE(history);
  ASSERT_EQ(history->size(), 2u);
  EXPECT_THAT((*history)[1].added, ElementsAre("payment_method"));
  EXPECT_EQ((*history)[1].batch, 1);

  auto third = Ingest();  // the restart picks the new column up, same batch
  ASSERT_TRUE(third) << third.error().message;
  ASSERT_EQ(third->batches.size(), 1u);
  EXPECT_TRUE(third->batches[0].replayed);
  EXPECT_EQ(third->batches[0].batch, 1);
  EXPECT_THAT(Dump(request_.table),
              ElementsAre("order_id,amount,_rescued_data,payment_method",
                          "1|10.5|null|null", "2|7|null|null", "3|1|null|card"));
  auto again = Ingest();  // nothing new: nothing written
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->batches.empty());
  EXPECT_EQ(testing::Version(request_.table), 1);
}

TEST_F(IngestTest, RescueNeverEvolvesAndKeepsEveryField) {
  Options({{"cloudFiles.schemaEvolutionMode", "rescue"},
           {"cloudFiles.inferColumnTypes", "true"}});
  Source("a.json", R"({"order_id": 1, "amount": 10.5, "channel": "web"})");
  ASSERT_TRUE(Ingest());
  Source(
      "b.json",
      R"({"order_id": 2, "amount": "275.50", "Channel": "app", "payment_method": "card"})");
  auto r = Ingest();
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->batches[0].rescued_rows, 1);
  const std::string path = dir_.Join("in/b.json");
  EXPECT_THAT(Dump(request_.table),
              ElementsAre("order_id,amount,channel,_rescued_data", "1|10.5|web|null",
                          "2|null|null|{\"amount\":\"275.50\",\"Channel\":\"app\","
                          "\"payment_method\":\"card\",\"_file_path\":\"" +
                              path + "\"}"));
}

TEST_F(IngestTest, FailOnNewColumnsEvolvesNothing) {
  Options({{"cloudFiles.schemaEvolutionMode", "failOnNewColumns"}});
  Source("a.json", R"({"id": "1"})");
  ASSERT_TRUE(Ingest());
  Source("b.json", R"({"id": "2", "extra": "x"})");
  for (int i = 0; i < 2; ++i) {  // it stays failed: nothing recorded
    auto r = Ingest();
    ASSERT_FALSE(r);
    EXPECT_THAT(r.error().message, HasSubstr("failOnNewColumns"));
    EXPECT_THAT(r.error().message, HasSubstr("extra (string)"));
  }
  auto history = ReadSchemaHistory(*MakeLocalFileSystem(), request_.checkpoint);
  EXPECT_EQ(history->size(), 1u);
}

TEST_F(IngestTest, NoneWithASchemaRescuesOnlyWithARescuedColumn) {
  Options({{"schema", "id BIGINT, amount DECIMAL(10,2)"}});
  Source("a.json", R"({"id": 1, "amount": 2.50})");
  ASSERT_TRUE(Ingest());
  Source("b.json", R"({"id": 2, "amount": 3, "extra": "x"})");
  auto refused = Ingest();  // no rescued column: the field would be lost
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message, HasSubstr("set rescuedDataColumn"));
  EXPECT_EQ(testing::Version(request_.table), 0);
}

TEST_F(IngestTest, TypeWideningWidensWithinDeltasList) {
  Options({{"cloudFiles.schemaEvolutionMode", "addNewColumnsWithTypeWidening"},
           {"cloudFiles.format", "csv"},
           {"cloudFiles.inferColumnTypes", "true"}});
  Source("a.csv", "id,qty\n1,5\n");
  ASSERT_TRUE(Ingest());
  Source("b.csv", "id,qty\n2,3000000000\n3,x\n");
  auto r = Ingest();
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("qty (values of type long)"));
  auto history = ReadSchemaHistory(*MakeLocalFileSystem(), request_.checkpoint);
  ASSERT_EQ(history->size(), 2u);
  EXPECT_THAT((*history)[1].widened, ElementsAre("qty: integer -> long"));
  auto done = Ingest();
  ASSERT_TRUE(done) << done.error().message;
  // "x" is no widening of a number: rescued.
  EXPECT_EQ(done->batches[0].rescued_rows, 1);
  EXPECT_EQ(Dump(request_.table)[2], "2|3000000000|null");
}

TEST_F(IngestTest, MalformedRecordsAreKeptWithFileAndLine) {
  Source("a.json", "{\"id\": \"1\"}\n{\"id\": \"2\"\n{\"id\": \"3\"}\n");
  auto r = Ingest();
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->batches[0].malformed_rows, 1);
  auto rows = Dump(request_.table);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_THAT(rows[3], HasSubstr("\"_corrupt_record\":\"{\\\"id\\\": \\\"2\\\"\""));
  EXPECT_THAT(rows[3], HasSubstr("\"_line\":2"));

  Options({{"mode", "FAILFAST"}});
  Source("b.json", "{\"id\": \"4\"}\nnot json\n");
  auto failed = Ingest();
  ASSERT_FALSE(failed);
  EXPECT_THAT(failed.error().message, HasSubstr("b.json:2: malformed record"));
  EXPECT_EQ(testing::Version(request_.table), 0);
}

TEST_F(IngestTest, CsvWithHeaderHintsAndPartitionColumns) {
  Options({{"cloudFiles.format", "csv"},
           {"cloudFiles.schemaHints", "amount DECIMAL(10,2)"},
           {"cloudFiles.partitionColumns", "region"},
           {"metadataColumns", "_source_file"}});
  Source("region=eu/a.csv", "id,amount\n1,\"2.50\"\n2,abc\n");
  auto r = Ingest();
  ASSERT_TRUE(r) << r.error().message;
  const std::string path = dir_.Join("in/region=eu/a.csv");
  EXPECT_THAT(
      Dump(request_.table),
      ElementsAre(
          "id,amount,region,_rescued_data,_source_file", "1|2.50|eu|null|" + path,
          "2|null|eu|{\"amount\":\"abc\",\"_file_path\":\"" + path + "\"}|" + path));
}

TEST_F(IngestTest, SchemaHintsPinNestedAndTopLevelTypes) {
  Options({{"cloudFiles.schemaHints",
            "customer.id BIGINT, amount DECIMAL(10,2), tags MAP<STRING, INT>"}});
  Source("a.json", R"({"customer": {"id": 5, "name": "x"}, "amount": 2.5})");
  auto r = Ingest();
  ASSERT_TRUE(r) << r.error().message;
  auto history = ReadSchemaHistory(*MakeLocalFileSystem(), request_.checkpoint);
  ASSERT_TRUE(history);
  EXPECT_EQ((*history)[0].schema->ToString(),
            "struct<customer: struct<id: long, name: string>, amount: decimal(10,2), "
            "tags: map<string,integer>>");
  EXPECT_THAT((*history)[0].reason, HasSubstr("inferred from 1 file"));
  EXPECT_EQ(r->batches[0].rescued_rows, 0);
}

TEST_F(IngestTest, MultiLineJsonIsOneObjectOrAnArrayOfThem) {
  Options({{"multiLine", "true"}});
  Source("a.json",
         "[\n  {\"id\": \"1\",\n   \"tags\": [\"x\"]},\n  {\"id\": \"2\"}\n]\n");
  Source("b.json", "{\n  \"id\": \"3\"\n}\n");
  Source("c.json", "[{\"id\": \"4\"}, 5]\n");  // not every element is a record
  auto r = Ingest();
  ASSERT_TRUE(r) << r.error().message;
  auto rows = Dump(request_.table);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0], "id,tags,_rescued_data");
  EXPECT_EQ(rows[1], "1|list<element: string>[x]|null");
  EXPECT_EQ(rows[2], "2|null|null");
  EXPECT_EQ(rows[3], "3|null|null");
  EXPECT_EQ(rows[4], "4|null|null");  // records before the element that is not one
  EXPECT_THAT(rows[5], HasSubstr("_corrupt_record"));  // c.json's text kept whole
  EXPECT_EQ(r->batches[0].malformed_rows, 1);
}

TEST_F(IngestTest, RateLimitsMakeSeveralBatchesEachOneCommit) {
  Options({{"cloudFiles.maxFilesPerTrigger", "2"}});
  for (int i = 0; i < 5; ++i) {
    Source(fmt::format("f{}.json", i), fmt::format("{{\"n\": \"{}\"}}\n", i));
  }
  auto r = Ingest();
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->batches.size(), 3u);
  EXPECT_EQ(r->batches[2].files, 1);
  EXPECT_EQ(testing::Version(request_.table), 2);
  // Each commit carries the stream's txn with the batch id.
  EXPECT_THAT(testing::CommitFile(request_.table, 2), HasSubstr("\"version\":2"));
  EXPECT_THAT(testing::CommitFile(request_.table, 2), HasSubstr("\"txn\""));
}

TEST_F(IngestTest, ACheckpointBelongsToOneSourceAndTable) {
  Source("a.json", R"({"id": "1"})");
  ASSERT_TRUE(Ingest());
  request_.table = dir_.Join("other");
  auto r = Ingest();
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("needs its own checkpoint"));
}

// A failure at every file-system operation of a batch, then a clean run: the table
// holds every record exactly once.
TEST_F(IngestTest, ExactlyOnceAcrossAFailureAtEveryOperation) {
  for (int i = 0; i < 3; ++i) {
    Source(fmt::format("f{}.json", i), fmt::format("{{\"n\": \"{}\"}}\n", i));
  }
  Options({{"cloudFiles.maxFilesPerTrigger", "1"}});
  // Count the operations of a clean run first.
  {
    TempDir probe;
    IngestRequest r = request_;
    r.table = probe.Join("t");
    r.checkpoint = probe.Join("cp");
    auto fs = std::make_shared<FaultInjectionFileSystem>(MakeLocalFileSystem());
    ASSERT_TRUE(RunIngest(fs, r, nullptr));
    ASSERT_GT(fs->num_mutations(), 10);
    for (int64_t op = 0; op < fs->num_mutations(); ++op) {
      for (Fault kind : {Fault::kCrashBeforeWrite, Fault::kCrashAfterWrite}) {
        TempDir run;
        IngestRequest q = request_;
        q.table = run.Join("t");
        q.checkpoint = run.Join("cp");
        auto faulty = std::make_shared<FaultInjectionFileSystem>(MakeLocalFileSystem());
        faulty->FailAt(op, kind);
        auto crashed = RunIngest(faulty, q, nullptr);
        EXPECT_FALSE(crashed) << "op " << op;
        auto restarted = RunIngest(MakeLocalFileSystem(), q, nullptr);
        ASSERT_TRUE(restarted) << "op " << op << ": " << restarted.error().message;
        auto rows = Dump(q.table);
        EXPECT_THAT(rows, ElementsAre("n,_rescued_data", "0|null", "1|null", "2|null"))
            << "op " << op << " (" << fs->ops()[static_cast<size_t>(op)] << ")";
      }
    }
  }
}

TEST(IngestOptionsTest, UnknownKeysAndBadValuesNameTheKey) {
  auto unknown = ParseIngestOptions({{"cloudFiles.schemaEvolutionMod", "rescue"}});
  ASSERT_FALSE(unknown);
  EXPECT_THAT(unknown.error().message, HasSubstr("unknown ingestion option"));
  EXPECT_THAT(unknown.error().message, HasSubstr("cloudFiles.schemaEvolutionMode"));
  auto mode = ParseIngestOptions({{"cloudFiles.schemaEvolutionMode", "evolve"}});
  EXPECT_THAT(mode.error().message, HasSubstr("not one of addNewColumns"));
  auto bytes = ParseIngestOptions({{"cloudFiles.maxBytesPerTrigger", "10g"}});
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->max_bytes_per_trigger, int64_t{10} << 30);
  auto hints = ParseIngestOptions({{"cloudFiles.schemaHints", "amount DECIMAL(10"}});
  EXPECT_FALSE(hints);
  auto both = ParseIngestOptions(
      {{"schema", "a INT"}, {"cloudFiles.schemaEvolutionMode", "addNewColumns"}});
  EXPECT_THAT(both.error().message, HasSubstr("not allowed with a given schema"));
  EXPECT_EQ(ParseIngestOptions({})->EffectiveMode(), EvolutionMode::kAddNewColumns);
  EXPECT_EQ(ParseIngestOptions({{"schema", "a INT"}})->EffectiveMode(),
            EvolutionMode::kNone);
}

TEST(IngestTriggerTest, Parses) {
  int64_t ms = 0;
  EXPECT_EQ(*ParseIngestTrigger("once", &ms), IngestTrigger::kOnce);
  EXPECT_EQ(*ParseIngestTrigger("availableNow", &ms), IngestTrigger::kAvailableNow);
  EXPECT_EQ(*ParseIngestTrigger("continuous=500ms", &ms), IngestTrigger::kContinuous);
  EXPECT_EQ(ms, 500);
  EXPECT_EQ(*ParseIngestTrigger("continuous=2m", &ms), IngestTrigger::kContinuous);
  EXPECT_EQ(ms, 120000);
  EXPECT_FALSE(ParseIngestTrigger("sometimes", &ms));
}

}  // namespace
}  // namespace deltaguard
