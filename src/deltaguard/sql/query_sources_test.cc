// SELECT engine sources: time travel, file functions, delta_log(), streaming.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "deltaguard/log/history.h"
#include "deltaguard/sql/query.h"
#include "deltaguard/sql/query_test_util_internal.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

class QuerySourcesTest : public testing::QueryFixture {
 protected:
  std::string WriteText(const std::string& name, const std::string& text) {
    std::string path = dir_.Join(name);
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << text;
    return path;
  }
};

TEST_F(QuerySourcesTest, TimeTravelByVersionAndTimestamp) {
  std::string path = CreateOrders();  // v0 create, v1 five rows
  // Commit timestamps have millisecond precision: keep v2 in a later millisecond than
  // v1, or TIMESTAMP AS OF v1's time would (correctly) resolve to v2.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  Insert(path, "VALUES (6, 'north', 1, 1.00, 'fay')");  // v2
  EXPECT_THAT(Query("SELECT count(*) FROM orders"), ElementsAre("6"));
  EXPECT_THAT(Query("SELECT count(*) FROM orders VERSION AS OF 1"), ElementsAre("5"));
  EXPECT_THAT(Query("SELECT count(*) FROM orders VERSION AS OF 0"), ElementsAre("0"));
  auto v0 = OpenSnapshot(fs_, path, SnapshotSpec{0, std::nullopt});
  auto v1 = OpenSnapshot(fs_, path, SnapshotSpec{1, std::nullopt});
  ASSERT_TRUE(v0);
  ASSERT_TRUE(v1);
  // v0 and v1 may share a millisecond: commit times are then made increasing (v1 is
  // read as v0 + 1 ms, log/history.h), as Spark does.
  std::string ts =
      FormatTimestampMs(std::max((*v1)->timestamp_ms(), (*v0)->timestamp_ms() + 1));
  EXPECT_THAT(Query("SELECT count(*) FROM orders TIMESTAMP AS OF '" + ts + "'"),
              ElementsAre("5"));
  EXPECT_THAT(
      Query("SELECT count(*) FROM delta.`" + path + "` TIMESTAMP AS OF '" + ts + "'"),
      ElementsAre("5"));
  auto plan = Plan("SELECT id FROM orders VERSION AS OF 1");
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->source_name, "orders version 1");
  Error missing = QueryError("SELECT * FROM orders VERSION AS OF 9");
  EXPECT_THAT(missing.message, HasSubstr("orders"));
  Error early = QueryError("SELECT * FROM orders TIMESTAMP AS OF '2001-01-01'");
  EXPECT_EQ(early.code, ErrorCode::kNotFound) << early.ToString();
  EXPECT_THAT(early.message, HasSubstr("DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION"));
  // The latest commit's own instant reads it; a later instant is an error, as in Spark.
  auto v2 = OpenSnapshot(fs_, path);
  ASSERT_TRUE(v2);
  EXPECT_THAT(Query("SELECT count(*) FROM orders TIMESTAMP AS OF '" +
                    FormatTimestampMs((*v2)->timestamp_ms()) + "'"),
              ElementsAre("6"));
  Error late = QueryError("SELECT * FROM orders TIMESTAMP AS OF '" +
                          FormatTimestampMs((*v2)->timestamp_ms() + 1) + "'");
  EXPECT_EQ(late.code, ErrorCode::kInvalidArgument) << late.ToString();
  EXPECT_THAT(late.ToString(), HasSubstr("orders"));
  EXPECT_THAT(late.message, HasSubstr("DELTA_TIMESTAMP_GREATER_THAN_COMMIT: The provided "
                                      "timestamp ("));
  Error bad = QueryError("SELECT * FROM orders TIMESTAMP AS OF 'yesterday'");
  EXPECT_EQ(bad.code, ErrorCode::kInvalidArgument) << bad.ToString();
  EXPECT_THAT(bad.message, HasSubstr("yesterday"));
}

TEST_F(QuerySourcesTest, PathReferences) {
  std::string path = CreateOrders();
  EXPECT_THAT(Query("SELECT count(*) FROM delta.`" + path + "`"), ElementsAre("5"));
  EXPECT_THAT(Query("SELECT max(id) FROM '" + path + "'"), ElementsAre("5"));
  Error e = QueryError("SELECT * FROM delta.`" + dir_.Join("nothing") + "`");
  EXPECT_EQ(e.code, ErrorCode::kNotFound);
  EXPECT_THAT(e.message, HasSubstr("nothing"));
}

TEST_F(QuerySourcesTest, ReadCsvWithOptions) {
  WriteText("in/a.csv", "id,name\n1,ann\n2,bob\n");
  WriteText("in/b.csv", "id,name\n3,cid\n");
  auto t = Run("SELECT name, id + 1 FROM read_csv('" + dir_.Join("in/*.csv") +
               "') WHERE id > 1 ORDER BY id");
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_THAT(Rows(**t), ElementsAre("bob|3", "cid|4"));
  WriteText("semi.csv", "1;x\n2;y\n");
  auto headerless = Run("SELECT * FROM read_csv('" + dir_.Join("semi.csv") +
                        "', header => false, delimiter => ';')");
  ASSERT_TRUE(headerless) << headerless.error().ToString();
  EXPECT_THAT(Names(**headerless), ElementsAre("_c0", "_c1"));
  EXPECT_THAT(Rows(**headerless), ElementsAre("1|x", "2|y"));
  Error arg =
      QueryError("SELECT * FROM read_csv('" + dir_.Join("semi.csv") + "', sep => ';')");
  EXPECT_EQ(arg.code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(arg.message, HasSubstr("sep"));
  Error missing = QueryError("SELECT * FROM read_csv('" + dir_.Join("none/*.csv") + "')");
  EXPECT_EQ(missing.code, ErrorCode::kNotFound);
}

TEST_F(QuerySourcesTest, ReadJsonAndParquet) {
  WriteText("j/a.json", "{\"k\": 1, \"v\": \"x\"}\n{\"k\": 2, \"v\": \"y\"}\n");
  EXPECT_THAT(Query("SELECT v FROM read_json('" + dir_.Join("j/a.json") +
                    "') "
                    "WHERE k = 2"),
              ElementsAre("y"));
  std::string path = CreateOrders();
  EXPECT_THAT(
      Query("SELECT count(*), sum(qty) FROM read_parquet('" + path + "/*.parquet')"),
      ElementsAre("5|11"));
  Error named =
      QueryError("SELECT * FROM read_parquet('" + path + "/*.parquet', header => true)");
  EXPECT_EQ(named.code, ErrorCode::kInvalidArgument);
  Error unknown = QueryError("SELECT * FROM read_xml('x')");
  EXPECT_THAT(unknown.message, HasSubstr("read_xml"));
}

TEST_F(QuerySourcesTest, FilesWithDifferentColumnsAreRefused) {
  WriteText("mix/a.csv", "id,name\n1,ann\n");
  WriteText("mix/b.csv", "id,other\n2,bob\n");
  Error e = QueryError("SELECT * FROM read_csv('" + dir_.Join("mix/*.csv") + "')");
  EXPECT_EQ(e.code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(e.message, HasSubstr("b.csv"));
}

// Scan -> filter -> project -> limit streams: with LIMIT 1 the second (broken) file is
// never opened; without it the read fails naming that file.
TEST_F(QuerySourcesTest, LimitStopsReadingInput) {
  WriteText("stream/a.csv", "id\n1\n2\n");
  WriteText("stream/b.csv", "id\nnot-a-number\n");
  std::string glob = dir_.Join("stream/*.csv");
  EXPECT_THAT(Query("SELECT id FROM read_csv('" + glob + "') LIMIT 1"), ElementsAre("1"));
  Error e = QueryError("SELECT id FROM read_csv('" + glob + "')");
  EXPECT_THAT(e.message, HasSubstr("b.csv"));
}

TEST_F(QuerySourcesTest, DeltaLogSummarisesActions) {
  std::string path = CreateOrders();
  auto t = Run("SELECT version, action, summary FROM delta_log('orders')");
  ASSERT_TRUE(t) << t.error().ToString();
  std::vector<std::string> rows = Rows(**t);
  EXPECT_THAT(rows, Contains("0|protocol|reader=1 writer=2"));
  EXPECT_THAT(rows, Contains("0|metaData|id INT, region STRING, qty INT, amount "
                             "DECIMAL(10,2), name STRING TBLPROPERTIES "
                             "(deltaguard.profiles=true)"));
  EXPECT_THAT(rows, Contains(HasSubstr("0|commitInfo|CREATE TABLE")));
  EXPECT_THAT(rows, Contains("1|commitInfo|WRITE mode=Append"));
  EXPECT_THAT(rows, Contains("1|add|add part-<masked>.parquet rows=5"));
  auto one = Run("SELECT action FROM delta_log('" + path + "', 1) ORDER BY action");
  ASSERT_TRUE(one) << one.error().ToString();
  EXPECT_THAT(Rows(**one), ElementsAre("add", "commitInfo"));
  auto by_path = Run("SELECT count(*) FROM delta_log('delta.`" + path + "`')");
  ASSERT_TRUE(by_path) << by_path.error().ToString();
  EXPECT_EQ(Rows(**by_path).size(), 1u);
  Error missing = QueryError("SELECT * FROM delta_log('nope')");
  EXPECT_EQ(missing.code, ErrorCode::kNotFound);
  Error version = QueryError("SELECT * FROM delta_log('orders', 7)");
  EXPECT_EQ(version.code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace deltaguard
