// Arrow data registered as temp views (Session::RegisterDataView, Python's
// Session.register): queryable like a view, its Arrow types conformed, shadowed by a SQL
// temp view of the same name, and usable as a MERGE / INSERT source.

#include <arrow/api.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/sql/session.h"
#include "deltaguard/sql/session_test_util_internal.h"

namespace deltaguard {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class SessionDataViewTest : public testing::SessionFixture {
 protected:
  // name: large_utf8 (polars' strings), n: int64, ts: timestamp[ns] (pandas' default).
  static std::shared_ptr<arrow::Table> Data() {
    arrow::LargeStringBuilder names;
    EXPECT_TRUE(names.AppendValues({"a", "b", "c"}).ok());
    arrow::Int64Builder ns;
    EXPECT_TRUE(ns.AppendValues({1, 2, 3}).ok());
    arrow::TimestampBuilder ts(arrow::timestamp(arrow::TimeUnit::NANO, "UTC"),
                               arrow::default_memory_pool());
    EXPECT_TRUE(ts.AppendValues({0, 86'400'000'000'000, 2 * 86'400'000'000'000}).ok());
    auto schema =
        arrow::schema({arrow::field("name", arrow::large_utf8()),
                       arrow::field("n", arrow::int64()), arrow::field("ts", ts.type())});
    return arrow::Table::Make(schema,
                              {names.Finish().ValueOrDie(), ns.Finish().ValueOrDie(),
                               ts.Finish().ValueOrDie()});
  }
};

TEST_F(SessionDataViewTest, QueriedLikeAView) {
  ASSERT_TRUE(session_.RegisterDataView("Incoming", Data()));
  EXPECT_THAT(Rows("SELECT upper(name), n * 10 FROM incoming WHERE n > 1 ORDER BY n"),
              ElementsAre("B|20", "C|30"));
  EXPECT_THAT(Rows("SELECT count(*) FROM INCOMING i WHERE i.ts >= '1970-01-02'"),
              ElementsAre("2"));
  Error e = Fail("SELECT * FROM incoming VERSION AS OF 1");
  EXPECT_THAT(e.message, HasSubstr("time travel is not supported on temp view"));
}

TEST_F(SessionDataViewTest, FeedsInsertAndMerge) {
  Run("CREATE TABLE t (name STRING, n BIGINT) USING delta");
  ASSERT_TRUE(session_.RegisterDataView("src", Data()));
  Run("INSERT INTO t SELECT name, n FROM src WHERE n < 3");
  Run("MERGE INTO t USING src s ON t.n = s.n WHEN MATCHED THEN UPDATE SET name = "
      "concat(s.name, '!') WHEN NOT MATCHED THEN INSERT (name, n) VALUES (s.name, s.n)");
  EXPECT_THAT(Rows("SELECT name, n FROM t ORDER BY n"),
              ElementsAre("a!|1", "b!|2", "c|3"));
}

TEST_F(SessionDataViewTest, SqlViewsShadowAndRegistrationReplaces) {
  Run("CREATE TEMP VIEW v AS SELECT 42 AS x");
  ASSERT_TRUE(session_.RegisterDataView("v", Data()));  // drops the SQL view
  EXPECT_THAT(Rows("SELECT count(*) FROM v"), ElementsAre("3"));
  Run("CREATE TEMP VIEW v AS SELECT 42 AS x");  // a SQL view of the name wins
  EXPECT_THAT(Rows("SELECT x FROM v"), ElementsAre("42"));
  ASSERT_TRUE(session_.DropDataView("V"));
  EXPECT_EQ(session_.DropDataView("v").error().code, ErrorCode::kNotFound);
}

TEST_F(SessionDataViewTest, BadRegistrationsAreRefused) {
  EXPECT_EQ(session_.RegisterDataView("a.b", Data()).error().code,
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(session_.RegisterDataView("", Data()).error().code,
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(session_.RegisterDataView("x", nullptr).error().code,
            ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace deltaguard
