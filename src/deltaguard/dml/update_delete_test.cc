// UPDATE and DELETE: row selection, copy-on-write, whole-file deletes, constraints,
// commitInfo metrics.

#include "deltaguard/dml/update_delete.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/dml/dml_test_util_internal.h"
#include "deltaguard/expr/parser.h"
#include "deltaguard/table/constraints_ddl.h"
#include "deltaguard/table/table.h"

namespace deltaguard {
namespace {

using testing::Dump;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::MakeTable;
using ::testing::Not;
using testing::TempDir;

// Two partitions (US: ids 1, 3; DE: ids 2, 4), one file each.
std::string Partitioned(const TempDir& dir) {
  std::string path = dir.Join("t");
  MakeTable(
      path, "id BIGINT, country STRING, amount INT",
      {R"([{"id":1,"country":"US","amount":10},{"id":2,"country":"DE","amount":20},)"
       R"({"id":3,"country":"US","amount":30},{"id":4,"country":"DE","amount":40}])"},
      {"country"});
  return path;
}

TEST(UpdateTest, UpdatesSelectedRowsAndCopiesTheRest) {
  TempDir dir;
  std::string path = Partitioned(dir);
  auto r = UpdateSql(MakeLocalFileSystem(), path, {{"amount", "amount + 1"}}, "id >= 3");
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->num_updated_rows, 2);
  EXPECT_EQ(r->num_copied_rows, 2);
  EXPECT_EQ(r->num_removed_files, 2);
  EXPECT_THAT(Dump(path), ElementsAre("id,country,amount", "1|US|10", "2|DE|20",
                                      "3|US|31", "4|DE|41"));
  std::string info = testing::CommitInfo(path, r->version);
  EXPECT_THAT(info, HasSubstr(R"("operation":"UPDATE")"));
  EXPECT_THAT(info, HasSubstr(R"("predicate":"[\"id >= 3\"]")"));
  EXPECT_THAT(info, HasSubstr(R"("numUpdatedRows":"2")"));
  EXPECT_THAT(info, HasSubstr(R"("numCopiedRows":"2")"));
}

TEST(UpdateTest, NoMatchingRowCommitsNothingAsSpark) {
  TempDir dir;
  std::string path = Partitioned(dir);
  auto before = OpenSnapshot(MakeLocalFileSystem(), path);
  ASSERT_TRUE(before) << before.error().ToString();
  auto updated =
      UpdateSql(MakeLocalFileSystem(), path, {{"amount", "amount + 1"}}, "id > 100");
  ASSERT_TRUE(updated) << updated.error().ToString();
  EXPECT_EQ(updated->num_updated_rows, 0);
  EXPECT_EQ(updated->version, (*before)->version());
  auto deleted = DeleteSql(MakeLocalFileSystem(), path, "amount < 0");
  ASSERT_TRUE(deleted) << deleted.error().ToString();
  EXPECT_EQ(deleted->num_deleted_rows, 0);
  EXPECT_EQ(deleted->version, (*before)->version());
  auto after = OpenSnapshot(MakeLocalFileSystem(), path);
  ASSERT_TRUE(after) << after.error().ToString();
  EXPECT_EQ((*after)->version(), (*before)->version());
  EXPECT_THAT(Dump(path), ElementsAre("id,country,amount", "1|US|10", "2|DE|20",
                                      "3|US|30", "4|DE|40"));
}

TEST(UpdateTest, PartitionPredicateSkipsOtherPartitionsAndAliasWorks) {
  TempDir dir;
  std::string path = Partitioned(dir);
  UpdateSpec spec;
  spec.alias = "o";
  auto value = ParseExpression("o.amount * 2");
  auto where = ParseExpression("o.country = 'DE'");
  ASSERT_TRUE(value && where);
  spec.assignments.push_back({{"o", "amount"}, *value});
  spec.where = *where;
  auto r = Update(MakeLocalFileSystem(), path, spec);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->num_files_scanned, 1);
  EXPECT_EQ(r->num_removed_files, 1);
  EXPECT_EQ(r->num_copied_rows, 0);
  EXPECT_THAT(Dump(path), ElementsAre("id,country,amount", "1|US|10", "2|DE|40",
                                      "3|US|30", "4|DE|80"));
}

TEST(UpdateTest, NoWhereUpdatesEveryRowAndMovesPartitions) {
  TempDir dir;
  std::string path = Partitioned(dir);
  auto r = UpdateSql(MakeLocalFileSystem(), path, {{"country", "'FR'"}}, "");
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->num_updated_rows, 4);
  EXPECT_THAT(Dump(path), ElementsAre("id,country,amount", "1|FR|10", "2|FR|20",
                                      "3|FR|30", "4|FR|40"));
}

TEST(UpdateTest, ConstraintsAreEnforcedAndNothingIsCommitted) {
  TempDir dir;
  std::string path = dir.Join("t");
  MakeTable(path, "id BIGINT, name STRING NOT NULL, amount INT",
            {R"([{"id":1,"name":"a","amount":1},{"id":2,"name":"b","amount":2}])"});
  auto added = AddConstraint(MakeLocalFileSystem(), path, "positive", "amount > 0");
  ASSERT_TRUE(added) << added.error().ToString();
  int64_t version = testing::Version(path);
  auto files = testing::ParquetFiles(path);
  auto not_null = UpdateSql(MakeLocalFileSystem(), path, {{"name", "NULL"}}, "id = 2");
  ASSERT_FALSE(not_null);
  EXPECT_EQ(not_null.error().code, ErrorCode::kConstraintViolation);
  auto check =
      UpdateSql(MakeLocalFileSystem(), path, {{"amount", "amount - 5"}}, "id = 1");
  ASSERT_FALSE(check);
  EXPECT_EQ(check.error().code, ErrorCode::kConstraintViolation);
  EXPECT_THAT(check.error().message, HasSubstr("positive"));
  EXPECT_EQ(testing::Version(path), version);
  EXPECT_EQ(testing::ParquetFiles(path), files);
}

TEST(UpdateTest, UnknownColumnsAndBadTypesFailBeforeWriting) {
  TempDir dir;
  std::string path = Partitioned(dir);
  auto unknown = UpdateSql(MakeLocalFileSystem(), path, {{"nope", "1"}}, "");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
  auto text = UpdateSql(MakeLocalFileSystem(), path, {{"amount", "'x'"}}, "");
  ASSERT_FALSE(text);
  EXPECT_THAT(text.error().message, HasSubstr("amount"));
  auto overflow = UpdateSql(MakeLocalFileSystem(), path,
                            {{"amount", "CAST(id AS BIGINT) * 10000000000"}}, "id = 1");
  ASSERT_FALSE(overflow);
  EXPECT_EQ(testing::Version(path), 1);
}

TEST(DeleteTest, DataPredicateRewritesMatchingFilesOnly) {
  TempDir dir;
  std::string path = Partitioned(dir);
  auto r = DeleteSql(MakeLocalFileSystem(), path, "amount > 25");
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->num_deleted_rows, 2);
  EXPECT_EQ(r->num_copied_rows, 2);
  EXPECT_EQ(r->num_removed_files, 2);
  EXPECT_EQ(r->num_added_files, 2);
  EXPECT_THAT(Dump(path), ElementsAre("id,country,amount", "1|US|10", "2|DE|20"));
  std::string info = testing::CommitInfo(path, r->version);
  EXPECT_THAT(info, HasSubstr(R"("operation":"DELETE")"));
  EXPECT_THAT(info, HasSubstr(R"("numDeletedRows":"2")"));
  // Nothing matches: nothing is rewritten.
  auto none = DeleteSql(MakeLocalFileSystem(), path, "amount > 1000");
  ASSERT_TRUE(none) << none.error().ToString();
  EXPECT_EQ(none->num_removed_files, 0);
  EXPECT_EQ(none->num_added_files, 0);
}

TEST(DeleteTest, PartitionPredicateRemovesWholeFilesWithoutRewriting) {
  TempDir dir;
  std::string path = Partitioned(dir);
  auto r = DeleteSql(MakeLocalFileSystem(), path, "country = 'US'");
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->num_removed_files, 1);
  EXPECT_EQ(r->num_added_files, 0);
  EXPECT_EQ(r->num_files_scanned, 0);
  EXPECT_EQ(r->num_deleted_rows, 2);
  EXPECT_THAT(Dump(path), ElementsAre("id,country,amount", "2|DE|20", "4|DE|40"));
  EXPECT_THAT(testing::CommitInfo(path, r->version), Not(HasSubstr("\"add\"")));
}

TEST(DeleteTest, NoWhereRemovesEverything) {
  TempDir dir;
  std::string path = Partitioned(dir);
  auto r = DeleteSql(MakeLocalFileSystem(), path, "");
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->num_removed_files, 2);
  EXPECT_EQ(r->num_deleted_rows, 4);
  EXPECT_THAT(Dump(path), ElementsAre("id,country,amount"));
  EXPECT_THAT(testing::CommitInfo(path, r->version), HasSubstr(R"("predicate":"[]")"));
}

TEST(DeleteTest, AppendOnlyTableRefusesDelete) {
  TempDir dir;
  std::string path = dir.Join("t");
  MakeTable(path, "id BIGINT", {R"([{"id":1}])"}, {}, {{"delta.appendOnly", "true"}});
  auto r = DeleteSql(MakeLocalFileSystem(), path, "id = 1");
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("DELTA_CANNOT_MODIFY_APPEND_ONLY"));
}

TEST(DeleteTest, ChangeDataFeedTablesAreRefused) {
  TempDir dir;
  std::string path = dir.Join("t");
  MakeTable(path, "id BIGINT", {R"([{"id":1}])"}, {},
            {{"delta.enableChangeDataFeed", "true"}});
  auto r = DeleteSql(MakeLocalFileSystem(), path, "id = 1");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kUnsupportedFeature);
  EXPECT_EQ(testing::Version(path), 1);
}

}  // namespace
}  // namespace deltaguard

namespace deltaguard {
namespace {

// Spark: SET s.a.b = v rebuilds the struct; other fields keep their values (NULL when
// the parent struct was NULL, which becomes a struct).
TEST(UpdateTest, NestedFieldAssignmentsKeepTheOtherFields) {
  TempDir dir;
  std::string path = dir.Join("t");
  testing::MakeTable(
      path,
      "id BIGINT, customer STRUCT<name: STRING, addr: STRUCT<city: STRING, zip: INT>>",
      {R"([{"id":1,"customer":{"name":"ann","addr":{"city":"Oslo","zip":150}}},)"
       R"({"id":2,"customer":null}])"});
  auto r = UpdateSql(MakeLocalFileSystem(), path,
                     {{"customer.addr.city", "'Bergen'"},
                      {"customer.name", "upper(customer.name)"},
                      {"customer.addr.zip", "5003"}},
                     "");
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->num_updated_rows, 2);
  auto dump = testing::Dump(path);
  ASSERT_EQ(dump.size(), 3u) << ::testing::PrintToString(dump);
  EXPECT_THAT(dump[1], HasSubstr("ANN"));
  EXPECT_THAT(dump[1], HasSubstr("Bergen"));
  EXPECT_THAT(dump[1], HasSubstr("5003"));
  EXPECT_THAT(dump[1], Not(HasSubstr("Oslo")));
  EXPECT_THAT(dump[2], HasSubstr("name:string = null"));
  EXPECT_THAT(dump[2], HasSubstr("Bergen"));

  auto missing = UpdateSql(MakeLocalFileSystem(), path, {{"customer.nope", "1"}}, "");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(missing.error().message, HasSubstr("customer.nope"));
  auto bad_type = UpdateSql(MakeLocalFileSystem(), path,
                            {{"customer.addr.city", "DATE'2024-01-01'"}}, "");
  ASSERT_FALSE(bad_type);
  EXPECT_THAT(bad_type.error().message, HasSubstr("customer.addr.city"));
  auto twice = UpdateSql(MakeLocalFileSystem(), path,
                         {{"customer", "customer"}, {"customer.name", "'x'"}}, "");
  ASSERT_FALSE(twice);
  EXPECT_THAT(twice.error().message, HasSubstr("both as a whole"));
}

}  // namespace
}  // namespace deltaguard
