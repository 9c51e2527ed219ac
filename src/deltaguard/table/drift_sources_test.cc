// The sides of a drift comparison and BuildDriftReport (table/drift_sources.h): what the
// CLI's drift/diff, SQL DESCRIBE DRIFT and the Python package share. The front ends are
// covered by test/cli/test_drift.py, describe_drift.test and test_py_drift.py.

#include "deltaguard/table/drift_sources.h"

#include <arrow/api.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "deltaguard/table/alter.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/write.h"
#include "testing/table_fixture.h"
#include "testing/temp_dir.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

using testing::Ddl;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TempDir;

std::vector<std::pair<std::string, std::string>> Classes(const DriftReport& r) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& c : r.changes) {
    out.emplace_back(std::string(ChangeClassName(c.cls)), c.path);
  }
  return out;
}

void WriteCsv(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

class DriftSourcesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.Join("orders");
    testing::MakeTable(root_, "cust_id BIGINT, amount DOUBLE, discount DOUBLE",
                       {R"([{"cust_id": 1, "amount": 1.5, "discount": 0.1},
                            {"cust_id": 2, "amount": 2.5, "discount": null}])"});
    fs_ = MakeLocalFileSystem();
  }
  DriftSource Table(int64_t version = -1) {
    SnapshotSpec spec;
    if (version >= 0) spec.version = version;
    auto snap = OpenSnapshot(fs_, root_, spec);
    EXPECT_TRUE(snap) << snap.error().ToString();
    auto side = TableDriftSource(fs_, **snap);
    EXPECT_TRUE(side) << side.error().ToString();
    return *side;
  }
  TempDir dir_;
  std::string root_;
  FileSystemRef fs_;
};

TEST_F(DriftSourcesTest, TableSideHasLabelEvidenceAndVersion) {
  DriftSource t = Table();
  EXPECT_EQ(t.label, root_ + "@v1");
  EXPECT_EQ(t.version, 1);
  EXPECT_FALSE(t.data);
  ASSERT_EQ(t.evidence.size(), 3u);
  EXPECT_EQ(t.evidence[0].path, "cust_id");
  EXPECT_EQ(t.evidence[0].num_records, 2);
  EXPECT_EQ(t.evidence[2].null_count, 1);
}

TEST_F(DriftSourcesTest, BatchSideClassifiesTheSeedRename) {
  auto batch = testing::Rows(Ddl("customer_id BIGINT, amount DOUBLE, channel STRING"),
                             R"([{"customer_id": 2, "amount": 1.0, "channel": "web"}])");
  auto after = ArrowBatchDriftSource(*batch->schema(), batch.get(), "incoming");
  ASSERT_TRUE(after) << after.error().ToString();
  EXPECT_TRUE(after->data);
  auto report = BuildDriftReport(Table(), *after);
  ASSERT_TRUE(report) << report.error().ToString();
  EXPECT_THAT(
      Classes(*report),
      ElementsAre(
          std::pair<std::string, std::string>{"COLUMN_ADDED_NULLABLE", "customer_id"},
          std::pair<std::string, std::string>{"COLUMN_ADDED_NULLABLE", "channel"},
          std::pair<std::string, std::string>{"COLUMN_REMOVED", "cust_id"},
          std::pair<std::string, std::string>{"COLUMN_REMOVED", "discount"},
          std::pair<std::string, std::string>{"COLUMN_RENAME_SUSPECTED", "customer_id"}));
  EXPECT_EQ(report->fail_on, FailBar::kHigh);  // no mode: the risk bar
  EXPECT_EQ(report->verdict.mode, CompatMode::kNone);
  EXPECT_TRUE(ReportFails(*report));
  EXPECT_THAT(report->changes.back().evidence, HasSubstr("value"));
  // without rows there is no value evidence: the suspicion rests on names and positions
  DriftSource empty = BatchDriftSource(after->side.schema, nullptr, "empty");
  auto bare = BuildDriftReport(Table(), empty);
  ASSERT_TRUE(bare);
  EXPECT_THAT(bare->changes.back().evidence, ::testing::Not(HasSubstr("value")));
}

TEST_F(DriftSourcesTest, ModesAndBars) {
  auto narrower = Ddl("cust_id INT, amount DOUBLE, discount DOUBLE");
  auto side = SchemaDriftSource(narrower, "ddl");
  ASSERT_TRUE(side);
  DriftReportOptions backward;
  backward.mode = CompatMode::kBackward;
  auto r = BuildDriftReport(Table(), *side, backward);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->fail_on, FailBar::kBreaking);  // a mode's default bar
  ASSERT_EQ(r->verdict.breaking.size(), 1u);
  EXPECT_EQ(r->verdict.breaking[0].direction, "BACKWARD");
  EXPECT_TRUE(ReportFails(*r));
  DriftReportOptions any;
  any.fail_on = FailBar::kBreaking;  // breaking without a mode judges BACKWARD
  auto b = BuildDriftReport(Table(), *side, any);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->verdict.mode, CompatMode::kBackward);
  DriftReportOptions forward;
  forward.mode = CompatMode::kForward;
  auto f = BuildDriftReport(Table(), *side, forward);
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->verdict.compatible);
  EXPECT_FALSE(ReportFails(*f));
  EXPECT_FALSE(SchemaDriftSource(nullptr, "none"));
}

TEST_F(DriftSourcesTest, TransitiveModeJudgesEveryEarlierSchema) {
  // v2 drops discount (column mapping on); an input bringing it back as a string is
  // an added column now, and an incompatible change against v0/v1.
  const std::string root = dir_.Join("mapped");
  testing::CreateDdlTable(root, "id INT, discount DOUBLE",
                          {{"delta.columnMapping.mode", "name"}});
  auto dropped = DropColumns(fs_, root, {{"discount"}}, /*if_exists=*/false);
  ASSERT_TRUE(dropped) << dropped.error().ToString();
  auto latest = OpenSnapshot(fs_, root);
  ASSERT_TRUE(latest);
  auto before = TableDriftSource(fs_, **latest);
  ASSERT_TRUE(before);
  auto after = SchemaDriftSource(Ddl("id INT, discount STRING"), "input");
  ASSERT_TRUE(after);
  DriftReportOptions plain;
  plain.mode = CompatMode::kBackward;
  auto p = BuildDriftReport(*before, *after, plain);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->verdict.compatible);
  DriftReportOptions transitive;
  transitive.mode = CompatMode::kBackwardTransitive;
  auto t = BuildDriftReport(*before, *after, transitive);
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_FALSE(t->verdict.compatible);
  ASSERT_FALSE(t->verdict.breaking.empty());
  const DriftChange& c = t->changes[t->verdict.breaking[0].change];
  EXPECT_EQ(c.cls, ChangeClass::kTypeChangedIncompatible);
  EXPECT_EQ(c.evidence, "from v0 to input");
  EXPECT_THAT(t->verdict.breaking[0].reason, HasSubstr("v0 -> input"));
}

TEST_F(DriftSourcesTest, FileSidesAndSpecs) {
  const std::string csv = dir_.Join("drop.csv");
  WriteCsv(csv, "cust_id,amount,discount,coupon\n1,2.5,0.1,X\n");
  auto file = FileDriftSource({csv}, {}, Table().side.schema);
  ASSERT_TRUE(file) << file.error().ToString();
  EXPECT_EQ(file->label, csv);
  ASSERT_EQ(file->inferred.size(), 4u);
  EXPECT_EQ(file->inferred[3].cast, "new column");
  auto r = BuildDriftReport(Table(), *file);
  ASSERT_TRUE(r);
  EXPECT_THAT(Classes(*r), ElementsAre(std::pair<std::string, std::string>{
                               "COLUMN_ADDED_NULLABLE", "coupon"}));
  EXPECT_EQ(r->inferred.size(), 4u);

  // diff's specs: table@version, a table, schema text, DDL; missing paths
  auto v0 = ResolveDriftSource(fs_, root_ + "@v0", {}, nullptr);
  ASSERT_TRUE(v0) << v0.error().ToString();
  EXPECT_EQ(v0->version, 0);
  EXPECT_EQ(v0->label, root_ + "@v0");
  auto latest = ResolveDriftSource(fs_, root_, {}, nullptr);
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->label, root_ + "@v1");
  auto text = ResolveDriftSource(fs_, "id BIGINT NOT NULL", {}, nullptr);
  ASSERT_TRUE(text);
  EXPECT_EQ(text->label, "schema text");
  EXPECT_FALSE(text->data);
  auto data = ResolveDriftSource(fs_, csv, {}, latest->side.schema);
  ASSERT_TRUE(data);
  EXPECT_TRUE(data->data);
  auto missing = ResolveDriftSource(fs_, dir_.Join("nope.parquet"), {}, nullptr);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  auto garbage = ResolveDriftSource(fs_, "id INT,,", {}, nullptr);
  ASSERT_FALSE(garbage);
  auto unknown_version = ResolveDriftSource(fs_, root_ + "@v9", {}, nullptr);
  ASSERT_FALSE(unknown_version);
}

}  // namespace
}  // namespace deltaguard
