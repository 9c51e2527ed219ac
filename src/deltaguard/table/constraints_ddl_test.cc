// ADD / DROP CONSTRAINT on real tables, FindViolations, and enforcement of CHECK
// constraints, legacy invariants and NOT NULL on the write path (table/write.cc).

#include "deltaguard/table/constraints_ddl.h"

#include <arrow/record_batch.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "deltaguard/exec/constraint_checker.h"
#include "deltaguard/protocol/protocol.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/write.h"
#include "deltaguard/util/string_util.h"
#include "testing/matchers.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

constexpr const char* kDdl = "id BIGINT, amount INT, name STRING";

FileSystemRef Fs() { return MakeLocalFileSystem(); }

SnapshotRef Open(const std::string& path) {
  auto snapshot = OpenSnapshot(path);
  EXPECT_TRUE(snapshot) << snapshot.error().ToString();
  return snapshot ? *snapshot : nullptr;
}

int64_t Version(const std::string& path) {
  auto s = Open(path);
  return s ? s->version() : -100;
}

std::string CommitFile(const std::string& path, int64_t version) {
  char name[32];
  std::snprintf(name, sizeof(name), "%020lld.json", static_cast<long long>(version));
  return ReadTextFile(path + "/_delta_log/" + name);
}

size_t CountDataFiles(const std::string& path) {
  size_t n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(path)) {
    if (e.path().extension() == ".parquet" &&
        e.path().string().find("_delta_log") == std::string::npos) {
      ++n;
    }
  }
  return n;
}

void Create(const std::string& path, SchemaRef schema) {
  CreateTableOptions options;
  options.schema = std::move(schema);
  auto created = CreateTable(Fs(), path, options);
  ASSERT_TRUE(created) << created.error().ToString();
}

Result<WriteResult> Append(const std::string& path, const std::string& ddl,
                           const std::string& json) {
  auto batch = Rows(Ddl(ddl), json);
  std::vector<BatchSource> sources;
  sources.push_back(SourceFromReader(
      "rows", *arrow::RecordBatchReader::Make({batch}, batch->schema())));
  return WriteTable(Fs(), path, std::move(sources), {});
}

// A table with rows (1, 10, "a"), (2, NULL, "b"), (3, -5, NULL), version 1.
std::string MakeTable(const TempDir& dir) {
  const std::string path = dir.Join("t");
  Create(path, Ddl(kDdl));
  auto w = Append(path, kDdl,
                  R"([{"id":1,"amount":10,"name":"a"},{"id":2,"amount":null,"name":"b"},
                      {"id":3,"amount":-5,"name":null}])");
  EXPECT_TRUE(w) << w.error().ToString();
  return path;
}

TEST(AddConstraintTest, StoresLowerCasedKeyUpgradesProtocolAndLogsSparkParameters) {
  TempDir dir;
  const std::string path = MakeTable(dir);
  auto added = AddConstraint(Fs(), path, "ID_Positive", "id > 0");
  ASSERT_TRUE(added) << added.error().ToString();
  EXPECT_EQ(added->version, 2);
  auto s = Open(path);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->metadata().GetConfig("delta.constraints.id_positive"), "id > 0");
  EXPECT_TRUE(IsFeatureSupported(s->protocol(), "checkConstraints"));
  EXPECT_EQ(s->protocol().min_writer_version, 3);
  const std::string log = CommitFile(path, 2);
  EXPECT_THAT(log, HasSubstr(R"("operation":"ADD CONSTRAINT")"));
  EXPECT_THAT(
      log, HasSubstr(R"("operationParameters":{"name":"ID_Positive","expr":"id > 0"})"));
  EXPECT_THAT(log, HasSubstr(R"("delta.constraints.id_positive":"id > 0")"));
}

TEST(AddConstraintTest, RefusesWhenExistingRowsViolateCountingNullAndShowingSamples) {
  TempDir dir;
  const std::string path = MakeTable(dir);
  auto added = AddConstraint(Fs(), path, "amount_positive", "amount > 0");
  ASSERT_FALSE(added);
  EXPECT_EQ(added.error().code, ErrorCode::kConstraintViolation);
  EXPECT_EQ(added.error().message,
            "DELTA_NEW_CHECK_CONSTRAINT_VIOLATION: 2 rows in table '" + path +
                "' violate the new CHECK constraint amount_positive (amount > 0), e.g. "
                "{amount: NULL}, {amount: -5}");
  EXPECT_EQ(Version(path), 1);  // nothing committed
  auto one = AddConstraint(Fs(), path, "named", "name IS NOT NULL");
  ASSERT_FALSE(one);
  EXPECT_THAT(one.error().message, HasSubstr("1 row in table"));
  EXPECT_THAT(one.error().message, HasSubstr("violates the new CHECK constraint named"));
}

TEST(AddConstraintTest, RefusesInvalidDuplicateAndMissingTables) {
  TempDir dir;
  const std::string path = MakeTable(dir);
  ASSERT_TRUE(AddConstraint(Fs(), path, "c", "id > 0"));
  auto dup = AddConstraint(Fs(), path, "C", "id > -1");
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().code, ErrorCode::kAlreadyExists);
  EXPECT_THAT(dup.error().message, HasSubstr("DELTA_CONSTRAINT_ALREADY_EXISTS"));
  auto non_bool = AddConstraint(Fs(), path, "d", "amount + 1");
  ASSERT_FALSE(non_bool);
  EXPECT_THAT(non_bool.error().message, HasSubstr("DELTA_NON_BOOLEAN_CHECK_CONSTRAINT"));
  EXPECT_THAT(non_bool.error().message, HasSubstr(path));
  auto unknown = AddConstraint(Fs(), path, "d", "nope > 1");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(Version(path), 2);
  auto missing = AddConstraint(Fs(), dir.Join("absent"), "c", "id > 0");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
}

TEST(DropConstraintTest, DropsAndReportsMissingUnlessIfExists) {
  TempDir dir;
  const std::string path = MakeTable(dir);
  ASSERT_TRUE(AddConstraint(Fs(), path, "id_pos", "id > 0"));
  auto missing = DropConstraint(Fs(), path, "other", false);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(missing.error().message, HasSubstr("DELTA_CONSTRAINT_DOES_NOT_EXIST"));
  EXPECT_THAT(missing.error().message, HasSubstr("other"));
  EXPECT_THAT(missing.error().message, HasSubstr("id_pos"));
  auto quiet = DropConstraint(Fs(), path, "other", true);
  ASSERT_TRUE(quiet) << quiet.error().ToString();
  EXPECT_EQ(quiet->version, -1);
  EXPECT_EQ(Version(path), 2);

  auto dropped = DropConstraint(Fs(), path, "ID_POS", false);
  ASSERT_TRUE(dropped) << dropped.error().ToString();
  EXPECT_EQ(dropped->version, 3);
  auto s = Open(path);
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->metadata().GetConfig("delta.constraints.id_pos"));
  EXPECT_TRUE(IsFeatureSupported(s->protocol(), "checkConstraints"));
  const std::string log = CommitFile(path, 3);
  EXPECT_THAT(log, HasSubstr(R"("operation":"DROP CONSTRAINT")"));
  EXPECT_THAT(log, HasSubstr(R"("name":"ID_POS","expr":"id > 0")"));
  // The row the constraint refused is accepted now.
  EXPECT_TRUE(Append(path, kDdl, R"([{"id":-1,"amount":1,"name":"x"}])"));
}

TEST(ConstraintWriteTest, ViolatingAppendFailsNamingConstraintAndCommitsNothing) {
  TempDir dir;
  const std::string path = MakeTable(dir);
  ASSERT_TRUE(AddConstraint(Fs(), path, "id_positive", "id > 0"));
  const size_t files_before = CountDataFiles(path);
  auto w = Append(path, kDdl,
                  R"([{"id":5,"amount":1,"name":"ok"},{"id":-1,"amount":1,"name":"x"},
                      {"id":0,"amount":2,"name":"y"}])");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().code, ErrorCode::kConstraintViolation);
  EXPECT_THAT(w.error().message,
              HasSubstr("DELTA_VIOLATE_CONSTRAINT_WITH_VALUES: table '" + path +
                        "': CHECK constraint id_positive (id > 0) violated by 2 rows, "
                        "e.g. {id: -1}, {id: 0}"));
  EXPECT_EQ(Version(path), 2);
  EXPECT_EQ(CountDataFiles(path), files_before);  // the written file was removed
  auto ok = Append(path, kDdl, R"([{"id":7,"amount":null,"name":null}])");
  ASSERT_TRUE(ok) << ok.error().ToString();
  EXPECT_EQ(ok->version, 3);
}

TEST(ConstraintWriteTest, NullResultIsAViolationOnWrite) {
  TempDir dir;
  const std::string path = MakeTable(dir);
  ASSERT_TRUE(AddConstraint(Fs(), path, "id_positive", "id > 0"));
  auto w = Append(path, kDdl, R"([{"id":null,"amount":1,"name":"n"}])");
  ASSERT_FALSE(w);
  EXPECT_THAT(w.error().message, HasSubstr("violated by 1 row, e.g. {id: NULL}"));
  EXPECT_EQ(Version(path), 2);
}

TEST(ConstraintWriteTest, OverwriteIsCheckedToo) {
  TempDir dir;
  const std::string path = MakeTable(dir);
  ASSERT_TRUE(AddConstraint(Fs(), path, "short_name", "coalesce(length(name), 0) < 3"));
  auto batch = Rows(Ddl(kDdl), R"([{"id":1,"amount":1,"name":"long name"}])");
  std::vector<BatchSource> sources;
  sources.push_back(SourceFromReader(
      "rows", *arrow::RecordBatchReader::Make({batch}, batch->schema())));
  WriteOptions options;
  options.mode = WriteMode::kOverwrite;
  auto w = WriteTable(Fs(), path, std::move(sources), options);
  ASSERT_FALSE(w);
  EXPECT_THAT(w.error().message, HasSubstr("CHECK constraint short_name"));
  EXPECT_THAT(w.error().message, HasSubstr("{name: \"long name\"}"));
  EXPECT_EQ(Version(path), 2);
}

TEST(ConstraintWriteTest, LegacyInvariantsAreEnforced) {
  TempDir dir;
  const std::string path = dir.Join("t");
  std::vector<StructField> fields = Ddl(kDdl)->fields();
  fields[1].metadata = fields[1].metadata.With(
      kInvariantsKey, JsonQuote(R"({"expression":{"expression":"amount < 100"}})"));
  Create(path, std::make_shared<StructType>(fields));
  auto s = Open(path);
  ASSERT_TRUE(s);
  EXPECT_TRUE(IsFeatureSupported(s->protocol(), "invariants"));
  auto w = Append(path, kDdl, R"([{"id":1,"amount":150,"name":"big"}])");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().code, ErrorCode::kConstraintViolation);
  EXPECT_THAT(w.error().message,
              HasSubstr("invariant on column amount (amount < 100) violated by 1 row, "
                        "e.g. {amount: 150}"));
  EXPECT_EQ(Version(path), 0);
  EXPECT_TRUE(Append(path, kDdl, R"([{"id":1,"amount":99,"name":"ok"}])"));
}

TEST(ConstraintWriteTest, NotNullStillEnforced) {
  TempDir dir;
  const std::string path = dir.Join("t");
  Create(path, Ddl("id BIGINT NOT NULL, amount INT, name STRING"));
  ASSERT_TRUE(AddConstraint(Fs(), path, "amount_small", "amount < 10"));
  auto w = Append(path, kDdl, R"([{"id":null,"amount":1,"name":"n"}])");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().code, ErrorCode::kConstraintViolation);
  EXPECT_THAT(w.error().message, HasSubstr("DELTA_NOT_NULL_CONSTRAINT_VIOLATED"));
  EXPECT_EQ(Version(path), 1);
}

TEST(FindViolationsTest, CountsFalseAndNullRowsAcrossFilesWithSamples) {
  TempDir dir;
  const std::string path = MakeTable(dir);
  ASSERT_TRUE(Append(path, kDdl, R"([{"id":4,"amount":-7,"name":"c"}])"));
  auto snapshot = Open(path);
  ASSERT_TRUE(snapshot);
  auto v = FindViolations(snapshot, "amount_positive", "amount > 0", 2);
  ASSERT_TRUE(v) << v.error().ToString();
  EXPECT_EQ(v->constraint, "amount_positive");
  EXPECT_EQ(v->expression, "amount > 0");
  EXPECT_EQ(v->count, 3);
  EXPECT_EQ(v->samples.size(), 2u);
  auto nn = FindViolations(snapshot, "NOT NULL name", "name IS NOT NULL");
  ASSERT_TRUE(nn) << nn.error().ToString();
  EXPECT_EQ(nn->count, 1);
  EXPECT_EQ(nn->samples, (std::vector<std::string>{"{name: NULL}"}));
  auto none = FindViolations(snapshot, "always", "true");
  ASSERT_TRUE(none) << none.error().ToString();
  EXPECT_EQ(none->count, 0);
  auto all = FindViolations(snapshot, "never", "false");
  ASSERT_TRUE(all);
  EXPECT_EQ(all->count, 4);
  EXPECT_EQ(all->samples.front(), "{}");
  auto bad = FindViolations(snapshot, "bad", "amount + 1");
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message, HasSubstr(path));
}

}  // namespace
}  // namespace deltaguard

namespace deltaguard {
namespace {

// ReplaceTable (CREATE OR REPLACE TABLE ... AS SELECT) with a schema that carries a
// legacy invariant checks the new rows against it, and so does a CHECK constraint given
// as a property of the new definition.
TEST(ReplaceTableConstraintTest, InvariantsOfTheNewSchemaAreEnforced) {
  TempDir dir;
  const std::string path = dir.Join("t");
  std::vector<StructField> fields = Ddl("id BIGINT, amount INT")->fields();
  fields[1].metadata = fields[1].metadata.With(
      kInvariantsKey, JsonQuote(R"({"expression":{"expression":"amount < 100"}})"));
  CreateTableOptions options;
  options.schema = std::make_shared<StructType>(fields);
  auto rows = [](const char* json) {
    auto batch = Rows(Ddl("id BIGINT, amount INT"), json);
    return SourceFromReader("rows",
                            *arrow::RecordBatchReader::Make({batch}, batch->schema()));
  };
  auto bad = ReplaceTable(MakeLocalFileSystem(), path, options,
                          rows(R"([{"id":1,"amount":150}])"), "CREATE OR REPLACE TABLE");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kConstraintViolation);
  EXPECT_THAT(bad.error().message, HasSubstr("invariant on column amount"));
  EXPECT_FALSE(OpenSnapshot(path));
  auto good = ReplaceTable(MakeLocalFileSystem(), path, options,
                           rows(R"([{"id":1,"amount":50}])"), "CREATE OR REPLACE TABLE");
  ASSERT_TRUE(good) << good.error().ToString();
  // CHECK constraints given as properties of the new definition (as Spark accepts in
  // CREATE) are enforced on the rows written with it.
  CreateTableOptions with_check;
  with_check.schema = Ddl("id BIGINT, amount INT");
  with_check.properties = {{"delta.constraints.pos", "id > 0"}};
  auto refused =
      ReplaceTable(MakeLocalFileSystem(), path, with_check,
                   rows(R"([{"id":-1,"amount":1}])"), "CREATE OR REPLACE TABLE");
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message, HasSubstr("CHECK constraint pos (id > 0)"));
  auto replaced =
      ReplaceTable(MakeLocalFileSystem(), path, with_check,
                   rows(R"([{"id":2,"amount":1}])"), "CREATE OR REPLACE TABLE");
  ASSERT_TRUE(replaced) << replaced.error().ToString();
  // An expression that does not bind is refused before anything is written.
  with_check.properties = {{"delta.constraints.pos", "missing > 0"}};
  auto unbound = ReplaceTable(MakeLocalFileSystem(), path, with_check, std::nullopt,
                              "CREATE OR REPLACE TABLE");
  ASSERT_FALSE(unbound);
  EXPECT_THAT(unbound.error().message,
              HasSubstr("table property 'delta.constraints.pos'"));
}

}  // namespace
}  // namespace deltaguard
