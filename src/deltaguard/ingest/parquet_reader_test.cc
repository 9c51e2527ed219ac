// Parquet sources of the ingestion (ingest/parquet_reader.h): inference from footers,
// casts that keep values, rescue of what does not fit, evolution from the footers.

#include "deltaguard/ingest/parquet_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "deltaguard/ingest/ingest.h"
#include "deltaguard/ingest/state.h"
#include "deltaguard/schema/ddl.h"
#include "testing/schema_util.h"
#include "testing/table_fixture.h"
#include "testing/temp_dir.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

using testing::Ddl;
using testing::Dump;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class ParquetIngestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_.Join("in"));
    request_.source = dir_.Join("in");
    request_.table = dir_.Join("bronze");
    request_.checkpoint = dir_.Join("cp");
    Options({});
  }

  void Source(const std::string& name, const std::string& ddl, const std::string& rows) {
    testing::WriteParquet(dir_.Join("in/" + name), testing::Rows(Ddl(ddl), rows));
  }

  void Options(std::vector<std::pair<std::string, std::string>> pairs) {
    pairs.emplace_back("cloudFiles.format", "parquet");
    auto o = ParseIngestOptions(pairs);
    ASSERT_TRUE(o) << o.error().message;
    request_.options = std::move(*o);
  }

  Result<IngestResult> Ingest() {
    return RunIngest(MakeLocalFileSystem(), request_, nullptr);
  }

  std::string Path(const std::string& name) { return dir_.Join("in/" + name); }

  TempDir dir_;
  IngestRequest request_;
};

TEST_F(ParquetIngestTest, InfersTheFootersTypesAndKeepsThem) {
  Source("a.parquet", "id BIGINT, amount DECIMAL(10,2), ts TIMESTAMP",
         R"([{"id": 1, "amount": "10.50", "ts": 0}])");
  Source("b.parquet", "id BIGINT, amount DECIMAL(10,2), ts TIMESTAMP, note STRING",
         R"([{"id": 2, "amount": "7.25", "ts": 1000000, "note": "x"}])");
  auto r = Ingest();
  ASSERT_TRUE(r) << r.error().message;
  auto schema = testing::OpenTable(request_.table)->schema();
  // Typed: no strings unless the file says so; the sample's schemas merged.
  EXPECT_EQ(SchemaToDdl(*schema),
            "id bigint, amount decimal(10,2), ts timestamp, note string, _rescued_data "
            "string");
  EXPECT_THAT(Dump(request_.table),
              ElementsAre("id,amount,ts,note,_rescued_data",
                          "1|10.50|1970-01-01 00:00:00.000000Z|null|null",
                          "2|7.25|1970-01-01 00:00:01.000000Z|x|null"));
}

TEST_F(ParquetIngestTest, CastsWhatFitsAndRescuesWhatDoesNot) {
  Options({{"cloudFiles.schemaEvolutionMode", "rescue"}});
  Source("a.parquet", "id BIGINT, amount DOUBLE, qty INT",
         R"([{"id": 1, "amount": 1.5, "qty": 2}])");
  ASSERT_TRUE(Ingest());
  // amount arrives as strings, qty as a LONG, an unknown column and a case-differing
  // one (readerCaseSensitive: rescued, not new).
  // (Arrow types directly: a DDL cannot name `id` and `ID`.)
  auto type = arrow::struct_(
      {arrow::field("id", arrow::int64()), arrow::field("amount", arrow::utf8()),
       arrow::field("qty", arrow::int64()), arrow::field("coupon", arrow::utf8()),
       arrow::field("ID", arrow::int64())});
  auto rows = testing::ArrayFromJson(
      type, R"([{"id": 2, "amount": "275.50", "qty": 3, "coupon": null, "ID": null},
                {"id": 3, "amount": "n/a", "qty": 9999999999, "coupon": "X1", "ID": 7}])");
  testing::WriteParquet(Path("b.parquet"), *arrow::RecordBatch::FromStructArray(rows));
  auto r = Ingest();
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->batches[0].rescued_rows, 1);
  const std::string b = Path("b.parquet");
  EXPECT_THAT(Dump(request_.table),
              ElementsAre("id,amount,qty,_rescued_data", "1|1.5|2|null", "2|275.5|3|null",
                          "3|null|null|{\"amount\":\"n/a\",\"qty\":9999999999,\"coupon\":"
                          "\"X1\",\"ID\":7,\"_file_path\":\"" +
                              b + "\"}"));
}

TEST_F(ParquetIngestTest, AddNewColumnsEvolvesFromTheFooters) {
  Source("a.parquet", "id BIGINT, customer STRUCT<name: STRING>",
         R"([{"id": 1, "customer": {"name": "ann"}}])");
  ASSERT_TRUE(Ingest());
  Source("b.parquet",
         "id BIGINT, customer STRUCT<name: STRING, tier: STRING>, region STRING",
         R"([{"id": 2, "customer": {"name": "bo", "tier": "gold"}, "region": "EU"}])");
  auto failed = Ingest();
  ASSERT_FALSE(failed);
  EXPECT_THAT(failed.error().message, HasSubstr("UNKNOWN_FIELD_EXCEPTION"));
  EXPECT_THAT(failed.error().message, HasSubstr("customer.tier"));
  EXPECT_THAT(failed.error().message, HasSubstr("region"));
  EXPECT_EQ(testing::Version(request_.table), 0);
  auto again = Ingest();
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_THAT(Dump(request_.table),
              ElementsAre("id,customer,_rescued_data,region",
                          "1|{name:string = ann, tier:string = null}|null|null",
                          "2|{name:string = bo, tier:string = gold}|null|EU"));
}

TEST_F(ParquetIngestTest, NestedFieldsTheSchemaLacksAreRescuedUnderTheirPath) {
  Options({{"cloudFiles.schemaEvolutionMode", "rescue"}});
  Source("a.parquet", "id BIGINT, customer STRUCT<name: STRING>",
         R"([{"id": 1, "customer": {"name": "ann"}}])");
  ASSERT_TRUE(Ingest());
  Source("b.parquet", "id BIGINT, customer STRUCT<tier: STRING, name: STRING>",
         R"([{"id": 2, "customer": {"tier": "gold", "name": "bo"}},
             {"id": 3, "customer": null}])");
  ASSERT_TRUE(Ingest());
  EXPECT_THAT(Dump(request_.table),
              ElementsAre("id,customer,_rescued_data", "1|{name:string = ann}|null",
                          "2|{name:string = bo}|{\"customer\":{\"tier\":\"gold\"},"
                          "\"_file_path\":\"" +
                              Path("b.parquet") + "\"}",
                          "3|null|null"));
}

TEST_F(ParquetIngestTest, WideningModeWidensATypeTheFileWidened) {
  Options({{"cloudFiles.schemaEvolutionMode", "addNewColumnsWithTypeWidening"}});
  Source("a.parquet", "id INT", R"([{"id": 1}])");
  ASSERT_TRUE(Ingest());
  Source("b.parquet", "id BIGINT", R"([{"id": 5000000000}])");
  auto failed = Ingest();
  ASSERT_FALSE(failed);
  EXPECT_THAT(failed.error().message, HasSubstr("id (values of type long)"));
  ASSERT_TRUE(Ingest());
  EXPECT_THAT(Dump(request_.table),
              ElementsAre("id,_rescued_data", "1|null", "5000000000|null"));
}

TEST_F(ParquetIngestTest, MetadataAndRawColumns) {
  Options({{"metadataColumns", "_source_file"}, {"rawColumn", "_raw"}});
  Source("a.parquet", "id BIGINT, name STRING", R"([{"id": 1, "name": null}])");
  ASSERT_TRUE(Ingest());
  EXPECT_THAT(Dump(request_.table),
              ElementsAre("id,name,_rescued_data,_raw,_source_file",
                          "1|null|null|{\"id\":1}|" + Path("a.parquet")));
}

TEST_F(ParquetIngestTest, AFileThatIsNotParquetFailsTheBatchNamingIt) {
  Source("a.parquet", "id BIGINT", R"([{"id": 1}])");
  testing::WriteTextFile(Path("b.parquet"), "not parquet at all");
  request_.options.schema = "id BIGINT";
  auto r = Ingest();
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("b.parquet"));
  EXPECT_FALSE(std::filesystem::exists(request_.table + "/_delta_log"));
}

// SQL's read_files reads only the columns a query names (ReadSpec::columns).
TEST_F(ParquetIngestTest, AQueryDecodesOnlyTheColumnsItNames) {
  Options({{"metadataColumns", "_source_file"}, {"rawColumn", "_raw"}});
  Source("a.parquet", "id BIGINT, amount DOUBLE, note STRING",
         R"([{"id": 1, "amount": 1.5, "note": "x"}, {"id": 2, "amount": null,
             "note": null}])");
  ReadSpec spec;
  spec.options = request_.options;
  spec.data_schema = Ddl("id BIGINT, amount DOUBLE, note STRING");
  const IngestFile file{
      Path("a.parquet"),
      static_cast<int64_t>(std::filesystem::file_size(Path("a.parquet"))),
      0,
      {}};
  // The column names and rows of what a reader with `columns` yields.
  auto read = [&](std::optional<std::vector<std::string>> columns) {
    ReadSpec s = spec;
    s.columns = std::move(columns);
    std::vector<std::string> out;
    auto reader =
        OpenIngestReader(MakeLocalFileSystem(), {file}, s, std::make_shared<ReadStats>());
    EXPECT_TRUE(reader) << reader.error().message;
    if (!reader) return out;
    std::string names;
    for (const auto& f : (*reader)->schema()->fields()) names += f->name() + ",";
    out.push_back(names);
    std::shared_ptr<arrow::RecordBatch> b;
    while ((*reader)->ReadNext(&b).ok() && b != nullptr) {
      EXPECT_TRUE(b->schema()->Equals(*(*reader)->schema()));
      for (int64_t r = 0; r < b->num_rows(); ++r) {
        std::string row;
        for (const auto& c : b->columns())
          row += c->GetScalar(r).ValueOrDie()->ToString() + "|";
        out.push_back(row);
      }
    }
    return out;
  };
  EXPECT_THAT(read(std::vector<std::string>{"AMOUNT", "_source_file"}),
              ElementsAre("amount,_source_file,", "1.5|" + Path("a.parquet") + "|",
                          "null|" + Path("a.parquet") + "|"));
  // count(*): no columns, every row.
  EXPECT_THAT(read(std::vector<std::string>{}), ElementsAre("", "", ""));
  // The raw (or rescued) column sees every column: no projection.
  const std::string all = "id,amount,note,_rescued_data,_raw,_source_file,";
  EXPECT_EQ(read(std::vector<std::string>{"_raw"})[0], all);
  EXPECT_EQ(read(std::vector<std::string>{"_rescued_data"})[0], all);
  EXPECT_EQ(read(std::nullopt)[0], all);
  EXPECT_EQ(read(std::vector<std::string>{"id", "missing"})[0], all);
}

}  // namespace
}  // namespace deltaguard
