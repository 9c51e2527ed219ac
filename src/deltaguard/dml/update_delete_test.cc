// UPDATE and DELETE: row selection, copy-on-write, whole-file deletes, constraints,
// commitInfo metrics.

#include "deltaguard/dml/update_delete.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/expr/parser.h"
#include "deltaguard/table/constraints_ddl.h"
#include "deltaguard/table/table.h"
#include "testing/matchers.h"
#include "testing/table_fixture.h"

namespace deltaguard {
namespace {

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

// Two files, one storing `name` dictionary-encoded (few values) and one PLAIN (every
// value distinct), both rewritten: DELETE copies the kept rows with `name` as each file
// stores it (ScanOptions::dictionary_columns) and a WHERE on `name` reads its values;
// UPDATE reads every file through the same prefetching scan.
TEST(DeleteTest, DictionaryAndPlainFilesKeepTheirValues) {
  TempDir dir;
  std::string path = dir.Join("t");
  std::string plain = "[";
  for (int i = 0; i < 9000; ++i) {
    plain += fmt::format(R"({}{{"id":{},"name":"n{}"}})", i ? "," : "", 100 + i, i);
  }
  plain += "]";
  MakeTable(path, "id BIGINT, name STRING",
            {R"([{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"a"}])", plain});
  auto r = DeleteSql(MakeLocalFileSystem(), path, "id % 2 = 0");
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->num_deleted_rows, 4501);
  EXPECT_EQ(r->num_copied_rows, 4502);
  EXPECT_EQ(r->num_removed_files, 2);
  auto rows = Dump(path);
  ASSERT_EQ(rows.size(), 4503u);
  EXPECT_THAT(rows, ::testing::Contains("1|a"));
  EXPECT_THAT(rows, ::testing::Contains("3|a"));
  EXPECT_THAT(rows, ::testing::Contains("101|n1"));
  EXPECT_THAT(rows, Not(::testing::Contains("2|b")));
  EXPECT_THAT(rows, Not(::testing::Contains("100|n0")));
  auto by_name = DeleteSql(MakeLocalFileSystem(), path, "name = 'a' OR name = 'n3'");
  ASSERT_TRUE(by_name) << by_name.error().ToString();
  EXPECT_EQ(by_name->num_deleted_rows, 3);
  auto updated =
      UpdateSql(MakeLocalFileSystem(), path, {{"name", "concat(name, '!')"}}, "id < 106");
  ASSERT_TRUE(updated) << updated.error().ToString();
  EXPECT_EQ(updated->num_updated_rows, 2);  // 101 and 105
  rows = Dump(path);
  EXPECT_EQ(rows.size(), 4500u);
  EXPECT_THAT(rows, ::testing::Contains("101|n1!"));
  EXPECT_THAT(rows, ::testing::Contains("105|n5!"));
  EXPECT_THAT(rows, ::testing::Contains("107|n7"));
  EXPECT_THAT(rows, Not(::testing::Contains("103|n3")));
  // An UPDATE that does not read `name` keeps it as stored in copied and updated rows.
  auto moved = UpdateSql(MakeLocalFileSystem(), path, {{"id", "id + 100000"}},
                         "id = 1 OR id = 107");
  ASSERT_TRUE(moved) << moved.error().ToString();
  EXPECT_EQ(moved->num_updated_rows, 1);
  rows = Dump(path);
  EXPECT_EQ(rows.size(), 4500u);
  EXPECT_THAT(rows, ::testing::Contains("100107|n7"));
  EXPECT_THAT(rows, ::testing::Contains("101|n1!"));
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
