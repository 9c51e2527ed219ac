// WriteFilesWithQuarantine: violating rows (CHECK and NOT NULL) go to the quarantine
// table with the constraint and the time, good rows to the table; quarantine first.

#include "deltaguard/table/quarantine.h"

#include <arrow/array.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "deltaguard/exec/constraint_checker.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/table/constraints_ddl.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/write.h"
#include "testing/matchers.h"
#include "testing/table_fixture.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

// Every row of the table as "col=value,..." text, sorted.
std::vector<std::string> TableRows(const std::string& path) {
  std::vector<std::string> out;
  for (const auto& batch : testing::ScanTable(path, ScanOptions{}).batches) {
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      std::string line;
      for (int c = 0; c < batch->num_columns(); ++c) {
        auto scalar = batch->column(c)->GetScalar(r);
        line += (c ? "," : "") + batch->schema()->field(c)->name() + "=" +
                (scalar.ok() ? (*scalar)->ToString() : "?");
      }
      out.push_back(line);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

class QuarantineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CreateTableOptions create;
    create.schema = Ddl("id BIGINT NOT NULL, amount INT");
    ASSERT_TRUE(CreateTable(MakeLocalFileSystem(), table_, create));
    ASSERT_TRUE(AddConstraint(MakeLocalFileSystem(), table_, "positive", "amount > 0"));
    WriteTextFile(input_, "id,amount\n1,5\n2,-1\n,7\n4,\n5,9\n");
  }
  TempDir dir_;
  std::string table_ = dir_.Join("t");
  std::string quarantine_ = dir_.Join("q");
  std::string input_ = dir_.Join("in.csv");
};

TEST_F(QuarantineTest, RoutesViolatingRowsAndCommitsGoodOnes) {
  auto r = WriteFilesWithQuarantine(MakeLocalFileSystem(), table_, {input_}, {}, {},
                                    quarantine_, {}, int64_t{1700000000} * 1000000);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->good_rows, 2);
  EXPECT_EQ(r->quarantined_rows, 3);
  EXPECT_TRUE(r->quarantine_created);
  ASSERT_TRUE(r->quarantine);
  EXPECT_EQ(r->table.rows, 2);
  EXPECT_THAT(r->by_constraint,
              ElementsAre(std::pair<std::string, int64_t>{"CHECK constraint positive", 2},
                          std::pair<std::string, int64_t>{"NOT NULL column id", 1}));
  EXPECT_THAT(TableRows(table_), ElementsAre("id=1,amount=5", "id=5,amount=9"));
  auto q = TableRows(quarantine_);
  ASSERT_EQ(q.size(), 3u);
  EXPECT_THAT(q[0], HasSubstr("_violated_constraint=CHECK constraint positive"));
  EXPECT_THAT(q[0], HasSubstr("_quarantined_at=2023-11-14"));
  // A second write appends to the existing quarantine table.
  auto again = WriteFilesWithQuarantine(MakeLocalFileSystem(), table_, {input_}, {}, {},
                                        quarantine_);
  ASSERT_TRUE(again) << again.error().ToString();
  EXPECT_FALSE(again->quarantine_created);
  EXPECT_EQ(TableRows(quarantine_).size(), 6u);
  EXPECT_EQ(TableRows(table_).size(), 4u);
}

TEST_F(QuarantineTest, NoViolationsCreatesNoQuarantineTable) {
  WriteTextFile(input_, "id,amount\n1,5\n");
  auto r = WriteFilesWithQuarantine(MakeLocalFileSystem(), table_, {input_}, {}, {},
                                    quarantine_);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->quarantined_rows, 0);
  EXPECT_FALSE(r->quarantine);
  EXPECT_FALSE(OpenSnapshot(quarantine_));
}

TEST_F(QuarantineTest, FailedQuarantineCommitWritesNothingToTheTable) {
  // A quarantine table whose schema cannot take the rows.
  CreateTableOptions other;
  other.schema = Ddl("x STRING NOT NULL");
  ASSERT_TRUE(CreateTable(MakeLocalFileSystem(), quarantine_, other));
  auto r = WriteFilesWithQuarantine(MakeLocalFileSystem(), table_, {input_}, {}, {},
                                    quarantine_);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("nothing was written to"));
  EXPECT_TRUE(TableRows(table_).empty());
  // The good rows were staged as the table's data files in the same pass; the failed
  // quarantine commit removed them.
  int data_files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(table_))
    data_files += e.path().extension() == ".parquet";
  EXPECT_EQ(data_files, 0);
}

TEST_F(QuarantineTest, RoutesNullsInNestedNotNullFields) {
  // s.x is NOT NULL inside a nullable struct: a NULL x, and a NULL s (Delta's NOT NULL
  // check treats a NULL parent as a NULL child), both violate it.
  CreateTableOptions create;
  create.schema =
      Ddl("id BIGINT NOT NULL, s STRUCT<x: INT NOT NULL, y: STRING>, "
          "tags ARRAY<STRUCT<e: INT NOT NULL>>");
  const std::string table = dir_.Join("nested");
  ASSERT_TRUE(CreateTable(MakeLocalFileSystem(), table, create));
  const std::string input = dir_.Join("nested.json");
  WriteTextFile(input,
                "{\"id\": 1, \"s\": {\"x\": 1, \"y\": \"a\"}}\n"
                "{\"id\": 2, \"s\": {\"x\": null, \"y\": \"b\"}}\n"
                "{\"id\": 3, \"s\": null}\n"
                "{\"id\": null, \"s\": {\"y\": \"d\"}}\n"
                "{\"id\": 5, \"s\": {\"x\": 5}, \"tags\": [{\"e\": 1}]}\n");
  auto r = WriteFilesWithQuarantine(MakeLocalFileSystem(), table, {input}, {}, {},
                                    quarantine_);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->good_rows, 2);
  EXPECT_EQ(r->quarantined_rows, 3);
  // Row 4 violates both; the first in order (the top-level column) is recorded.
  EXPECT_THAT(r->by_constraint,
              ElementsAre(std::pair<std::string, int64_t>{"NOT NULL column s.x", 2},
                          std::pair<std::string, int64_t>{"NOT NULL column id", 1}));
  auto rows = TableRows(table);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_THAT(rows[0], HasSubstr("id=1,"));
  EXPECT_THAT(rows[1], HasSubstr("id=5,"));
  auto q = TableRows(quarantine_);
  ASSERT_EQ(q.size(), 3u);
  EXPECT_THAT(q[0], HasSubstr("id=2,"));
  EXPECT_THAT(q[0], HasSubstr("_violated_constraint=NOT NULL column s.x"));
  EXPECT_THAT(q[1], HasSubstr("id=3,s=null"));
  EXPECT_THAT(q[2], HasSubstr("id=null,"));
  EXPECT_THAT(q[2], HasSubstr("_violated_constraint=NOT NULL column id"));

  // Without quarantine the same input fails with Delta's error naming the field (the
  // JSON reader reads nested fields nullable and leaves NOT NULL to the conformer).
  WriteTextFile(input, "{\"id\": 7, \"s\": {\"x\": null}}\n");
  auto plain = WriteFiles(MakeLocalFileSystem(), table, {input}, {}, {});
  ASSERT_FALSE(plain);
  EXPECT_THAT(
      plain.error().message,
      HasSubstr("DELTA_NOT_NULL_CONSTRAINT_VIOLATED: NOT NULL constraint violated "
                "for column: s.x"));

  // NOT NULL inside an array has no routing expression: the write still fails, and
  // nothing is written anywhere.
  WriteTextFile(input, "{\"id\": 6, \"tags\": [{\"e\": null}]}\n");
  auto bad = WriteFilesWithQuarantine(MakeLocalFileSystem(), table, {input}, {}, {},
                                      quarantine_);
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message, HasSubstr("tags.element.e"));
  EXPECT_EQ(TableRows(table).size(), 2u);
  EXPECT_EQ(TableRows(quarantine_).size(), 3u);
}

TEST_F(QuarantineTest, RefusesSchemaEvolutionAndSameTable) {
  WriteOptions merge;
  merge.merge_schema = true;
  auto r = WriteFilesWithQuarantine(MakeLocalFileSystem(), table_, {input_}, {}, merge,
                                    quarantine_);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  auto same =
      WriteFilesWithQuarantine(MakeLocalFileSystem(), table_, {input_}, {}, {}, table_);
  ASSERT_FALSE(same);
  EXPECT_THAT(same.error().message, HasSubstr("must differ"));
}

}  // namespace
}  // namespace deltaguard
