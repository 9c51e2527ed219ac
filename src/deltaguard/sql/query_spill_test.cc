// Joins, windows, ORDER BY, DISTINCT and set operations past the statement's memory
// limit (docs/sql.md "Memory and spilling"): the same rows as without a limit, and the
// rows did go through spill files.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "deltaguard/sql/query.h"
#include "deltaguard/sql/query_test_util_internal.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

using ::testing::HasSubstr;

// Two sources of 20,000 and 6,000 rows with NULL keys, duplicate keys and keys only
// one side has, and a string column wide enough that a 16 KiB limit spills.
constexpr const char* kWith =
    "WITH f AS (SELECT id, CASE WHEN id % 97 = 0 THEN NULL ELSE id % 3000 END AS k, "
    "concat('fact-', id) AS v FROM range(20000)), "
    "d AS (SELECT id AS k, concat('dim-', id) AS name FROM range(1000, 4000) "
    "UNION ALL SELECT id AS k, 'dup' AS name FROM range(2000, 5000, 1000) "
    "UNION ALL SELECT NULL AS k, 'nil' AS name) ";

class QuerySpillTest : public testing::QueryFixture {
 protected:
  // The rows of `sql`, sorted, under `limit` bytes; the budget stays for inspection.
  std::vector<std::string> RowsUnder(const std::string& sql, int64_t limit) {
    memory_ = std::make_shared<QueryMemory>(limit, dir_.Join("spill"));
    std::filesystem::create_directories(dir_.Join("spill"));
    QueryContext context = Context();
    context.memory = memory_;
    auto plan = PlanQuery(ParseSelect(sql), context);
    EXPECT_TRUE(plan) << plan.error().ToString();
    if (!plan) return {};
    auto table = CollectQuery(*plan);
    EXPECT_TRUE(table) << sql << ": " << table.error().ToString();
    if (!table) return {};
    auto rows = Rows(**table);
    if (sort_) std::sort(rows.begin(), rows.end());
    return rows;
  }

  // Equal rows with and without a 16 KiB limit; whether the limited run spilled.
  void ExpectSameRows(const std::string& sql, bool spills = true) {
    auto unlimited = RowsUnder(kWith + sql, -1);
    EXPECT_EQ(memory_->spilled_bytes(), 0);
    auto limited = RowsUnder(kWith + sql, 16 << 10);
    EXPECT_FALSE(unlimited.empty()) << sql;
    EXPECT_EQ(limited, unlimited) << sql;
    if (spills) {
      EXPECT_GT(memory_->spilled_bytes(), 16 << 10) << sql;
    } else {
      EXPECT_EQ(memory_->spill_files(), 0) << sql;
    }
    EXPECT_TRUE(std::filesystem::is_empty(dir_.Join("spill"))) << sql;
  }

  QueryMemoryRef memory_;
  bool sort_ = true;
};

TEST_F(QuerySpillTest, EveryJoinTypeGivesTheSameRowsPastTheLimit) {
  for (const char* type : {"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"}) {
    ExpectSameRows(std::string("SELECT f.id, f.v, d.k, d.name FROM f ") + type +
                   " d ON f.k = d.k");
  }
  ExpectSameRows("SELECT f.id, f.v FROM f LEFT SEMI JOIN d ON f.k = d.k");
  ExpectSameRows("SELECT f.id, f.v FROM f LEFT ANTI JOIN d ON f.k = d.k");
  // A residual condition, and a key that is an expression over both types.
  ExpectSameRows(
      "SELECT f.id, d.name FROM f JOIN d ON CAST(f.k AS INT) + 1 = d.k + 1 "
      "AND d.name <> 'dup'");
  // Without equality keys: the nested loop reads the mapped right side.
  ExpectSameRows(
      "SELECT d.name, f.id FROM (SELECT * FROM d WHERE k < 1010) d JOIN f "
      "ON d.k > f.k + 990");
}

TEST_F(QuerySpillTest, WindowsAreComputedSpillPartitionBySpillPartition) {
  ExpectSameRows(
      "SELECT id, v, row_number() OVER (PARTITION BY k ORDER BY id DESC) AS rn, "
      "sum(id) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN 2 PRECEDING AND "
      "CURRENT ROW) AS s, lag(v) OVER (PARTITION BY k, id % 2 ORDER BY id) AS prev "
      "FROM f");
  ExpectSameRows(
      "SELECT * FROM (SELECT id, v, row_number() OVER (PARTITION BY k % 7 ORDER BY id) "
      "AS rn FROM f) WHERE rn <= 2");
  // No PARTITION BY in common: the input is held whole (it still spilled first).
  ExpectSameRows("SELECT id, rank() OVER (ORDER BY k, id) FROM f");
}

TEST_F(QuerySpillTest, AWindowsWorkingSetCountsAgainstTheLimit) {
  // 20,000 BIGINT ids (160 KB of data) fit a 256 KiB limit as ORDER BY's input, but
  // not with a window's combined copy, sort entries, boundaries and results
  // (WindowCost): the window spills and gives the same rows.
  const std::string ids = "(SELECT id FROM range(20000)) t";
  RowsUnder("SELECT id FROM " + ids + " ORDER BY id DESC", 256 << 10);
  EXPECT_EQ(memory_->spill_files(), 0);
  const std::string window =
      "SELECT id, row_number() OVER (PARTITION BY id % 10 ORDER BY id) AS rn FROM " + ids;
  auto limited = RowsUnder(window, 256 << 10);
  EXPECT_GT(memory_->spill_files(), 0);
  auto unlimited = RowsUnder(window, -1);
  EXPECT_EQ(memory_->spill_files(), 0);
  EXPECT_EQ(limited.size(), 20000u);
  EXPECT_EQ(limited, unlimited);
}

TEST_F(QuerySpillTest, OrderByDistinctAndSetOperations) {
  sort_ = false;  // ORDER BY decides the order
  ExpectSameRows("SELECT id, v FROM f ORDER BY k DESC NULLS FIRST, v LIMIT 50");
  ExpectSameRows("SELECT id, v FROM f ORDER BY v");
  sort_ = true;
  ExpectSameRows("SELECT DISTINCT k, length(v) FROM f");
  ExpectSameRows("SELECT k, v FROM f EXCEPT SELECT k, concat('fact-', k) FROM f");
}

TEST_F(QuerySpillTest, SmallInputsDoNotSpill) {
  ExpectSameRows(
      "SELECT f.id, d.name FROM (SELECT * FROM f WHERE id < 10) f JOIN "
      "(SELECT * FROM d WHERE k < 1005) d ON f.k + 1000 = d.k ORDER BY f.id",
      false);
}

TEST_F(QuerySpillTest, AnUnwritableSpillDirectoryIsAClearError) {
  auto memory = std::make_shared<QueryMemory>(1024, "/nonexistent/spill");
  QueryContext context = Context();
  context.memory = memory;
  auto plan = PlanQuery(
      ParseSelect(std::string(kWith) + "SELECT f.id FROM f JOIN d ON f.k = d.k"),
      context);
  ASSERT_TRUE(plan) << plan.error().ToString();
  auto table = CollectQuery(*plan);
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error().code, ErrorCode::kIOError);
  EXPECT_THAT(table.error().message, HasSubstr("/nonexistent/spill"));
  EXPECT_THAT(table.error().message, HasSubstr("JOIN right side"));
}

}  // namespace
}  // namespace deltaguard
