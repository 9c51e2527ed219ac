// Tests files (quality/data_tests.h), exact row tests (row_tests.h) and their decision
// on a commit (data_test_eval.h): parsing with errors that name the line, every test
// kind passing and failing on constructed rows, and the detectors' tuning.

#include "deltaguard/quality/data_tests.h"

#include <arrow/api.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "deltaguard/contract/parse.h"
#include "deltaguard/quality/data_test_eval.h"
#include "deltaguard/quality/row_tests.h"
#include "deltaguard/schema/data_type.h"

namespace deltaguard {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kDayMs = 86400000;

// `rows` orders: id (unique unless `dup`), amount (cents, scaled), status (with
// `odd` rows of an unknown status), event_ts on day `day`.
struct Rows {
  int64_t rows = 1000;
  double scale = 1.0;
  int64_t odd = 0;
  int64_t dup = 0;
  int64_t null_amount = 0;
  int64_t day = 20;
};

std::shared_ptr<arrow::RecordBatch> Batch(const Rows& r, uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> amount(7.0, 0.5);
  arrow::Int64Builder id;
  arrow::DoubleBuilder a;
  arrow::StringBuilder s;
  arrow::TimestampBuilder t(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
                            arrow::default_memory_pool());
  const char* statuses[] = {"NEW", "SHIPPED", "DELIVERED"};
  for (int64_t i = 0; i < r.rows; ++i) {
    EXPECT_TRUE(id.Append(i < r.dup ? 0 : i).ok());
    EXPECT_TRUE(
        (i < r.null_amount ? a.AppendNull() : a.Append(amount(rng) * r.scale)).ok());
    EXPECT_TRUE(s.Append(i < r.odd ? "PARTIALLY_SHIPPED" : statuses[i % 3]).ok());
    EXPECT_TRUE(t.Append((r.day * kDayMs + (i % 86400) * 1000) * 1000).ok());
  }
  auto schema = arrow::schema(
      {arrow::field("id", arrow::int64()), arrow::field("amount", arrow::float64()),
       arrow::field("status", arrow::utf8()), arrow::field("event_ts", t.type())});
  return arrow::RecordBatch::Make(schema, r.rows,
                                  {*id.Finish(), *a.Finish(), *s.Finish(), *t.Finish()});
}

SchemaRef DeltaSchema() {
  return std::make_shared<const StructType>(
      std::vector<StructField>{{"id", DataType::Long(), true},
                               {"amount", DataType::Double(), true},
                               {"status", DataType::String(), true},
                               {"event_ts", DataType::Timestamp(), true}});
}

TableProfile ProfileOf(const Rows& r, int64_t version, uint64_t seed) {
  auto batch = Batch(r, seed);
  auto p = ProfileBatches(batch->schema(), {batch});
  EXPECT_TRUE(p) << p.error().message;
  p->version = version;
  p->timestamp_ms = r.day * kDayMs + 86400000;  // the commit, the day after
  return std::move(*p);
}

struct Checked {
  std::vector<Finding> findings;
  const Finding* Get(const std::string& test, const std::string& column = "") const {
    for (const auto& f : findings) {
      if (f.test == test && (column.empty() || f.column == column)) return &f;
    }
    return nullptr;
  }
};

// The suite on a commit of `rows` against 14 normal earlier commits.
Checked RunSuite(const std::string& yaml, const Rows& rows) {
  auto suite = ParseDataTests(yaml, "t.yml");
  EXPECT_TRUE(suite) << suite.error().message;
  std::vector<TableProfile> history;
  for (int v = 0; v < 14; ++v) {
    Rows normal;
    normal.day = v;
    history.push_back(ProfileOf(normal, v, 100 + v));
  }
  TableProfile current = ProfileOf(rows, 14, 7);
  current.timestamp_ms = 21 * kDayMs;  // committed the day after the normal load's events
  std::vector<const TableProfile*> baseline;
  for (const auto& p : history) baseline.push_back(&p);
  auto runner = RowTestRunner::Make(*suite, *DeltaSchema(), "orders");
  EXPECT_TRUE(runner) << runner.error().message;
  EXPECT_TRUE(runner->Add(*Batch(rows, 7)));
  auto findings = EvaluateDataTests(*suite, current, baseline, runner->Counts());
  EXPECT_TRUE(findings) << findings.error().message;
  return Checked{std::move(*findings)};
}

const char* kTests = R"(version: 1
baseline: trailing:7
detectors:
  distribution_shift: off
  new_category: {severity: fail, min_share: 0.001}
table:
  - row_count: {min: 500, max_change: 0.5}
  - freshness: {column: event_ts, max_age: 36h}
columns:
  id: [not_null, unique]
  amount:
    - range: {min: 0}
    - null_rate: {max_increase: 0.05}
    - median: {max_change: 0.5}
    - percentile: {p: 0.9, max: 100000}
    - scale_shift: warn
  status:
    - accepted_values: {values: [NEW, SHIPPED, DELIVERED], severity: warn}
    - pattern: {regex: '^[A-Z_]+$'}
)";

TEST(DataTestsParse, ReadsEveryTestWithItsLine) {
  auto suite = ParseDataTests(kTests, "t.yml");
  ASSERT_TRUE(suite) << suite.error().message;
  EXPECT_EQ(suite->baseline->ToString(), "trailing:7");
  ASSERT_EQ(suite->tests.size(), 10u);
  EXPECT_EQ(suite->tests[0].id, "row_count");
  EXPECT_EQ(suite->tests[0].line, 7);
  EXPECT_EQ(suite->tests[2].id, "not_null(id)");
  EXPECT_EQ(suite->tests[3].key_columns, std::vector<std::string>{"id"});
  EXPECT_EQ(suite->tests[8].severity, TestSeverity::kWarn);
  EXPECT_THAT(suite->tests[8].predicate, HasSubstr("IN ('NEW', 'SHIPPED', 'DELIVERED')"));
  EXPECT_EQ(suite->tests[7].id, "percentile(amount, 0.9)");
  ASSERT_EQ(suite->tuning.size(), 3u);
  EXPECT_EQ(suite->tuning[1].params.at("min_share"), 0.001);
  EXPECT_TRUE(suite->HasRowTests());
}

TEST(DataTestsParse, ErrorsNameFileLineAndKey) {
  auto error = [](const std::string& yaml) {
    auto s = ParseDataTests(yaml, "t.yml");
    EXPECT_FALSE(s);
    return s ? std::string() : s.error().message;
  };
  EXPECT_THAT(error("columns:\n  id:\n    - not_nul\n"),
              HasSubstr("t.yml:3: unknown test 'not_nul'"));
  EXPECT_THAT(error("columns:\n  a:\n    - range: {min: 'zero'}\n"),
              HasSubstr("t.yml:3: 'min' must be a number, not the string 'zero'"));
  EXPECT_THAT(error("columns:\n  a:\n    - range: {minimum: 0}\n"),
              HasSubstr("t.yml:3: unknown parameter 'minimum' of range"));
  EXPECT_THAT(error("columns:\n  a:\n    - not_null: {severity: loud}\n"),
              HasSubstr("severity must be warn, fail (or error) or off, not 'loud'"));
  EXPECT_THAT(error("columns:\n  a:\n    - row_count: {min: 1}\n"),
              HasSubstr("t.yml:3: row_count is a table test"));
  EXPECT_THAT(error("table:\n  - freshness: {max_age: 36h}\n"),
              HasSubstr("freshness under 'table' needs 'column'"));
  EXPECT_THAT(error("detectors:\n  scale_shift: {factor: 3}\n"),
              HasSubstr("t.yml:2: unknown parameter 'factor' of scale_shift"));
  EXPECT_THAT(error("detectors:\n  unit_change: fail\n"),
              HasSubstr("unknown detector 'unit_change'"));
  EXPECT_THAT(error("columns:\n  a:\n    - mean\n"), HasSubstr("mean needs a bound"));
  EXPECT_THAT(error("tests: []\n"), HasSubstr("unknown key 'tests'"));
  EXPECT_THAT(error("columns: [a\n"), HasSubstr("t.yml"));  // malformed YAML
}

TEST(DataTestsEval, NormalLoadPassesEveryTest) {
  Rows rows;
  auto c = RunSuite(kTests, rows);
  for (const auto& f : c.findings) {
    EXPECT_TRUE(f.outcome == CheckOutcome::kPassed || f.outcome == CheckOutcome::kSkipped)
        << f.test << " " << f.column << ": " << f.message;
  }
  EXPECT_NE(c.Get("accepted_values(status)"), nullptr);
  EXPECT_EQ(c.Get("DISTRIBUTION_SHIFT"), nullptr);  // turned off
  EXPECT_EQ(c.Get("accepted_values(status)")->location, "t.yml:18");
}

TEST(DataTestsEval, RowTestsCountExactlyWithSamples) {
  Rows rows;
  rows.odd = 3;  // 0.3% of rows: below the detector's share, caught by the test
  rows.dup = 2;
  auto c = RunSuite(kTests, rows);
  const Finding* accepted = c.Get("accepted_values(status)");
  ASSERT_NE(accepted, nullptr);
  EXPECT_EQ(accepted->outcome, CheckOutcome::kWarning);  // severity warn
  EXPECT_EQ(*accepted->violating_rows, 3);
  EXPECT_THAT(accepted->values.at(0), HasSubstr("PARTIALLY_SHIPPED"));
  const Finding* unique = c.Get("unique(id)");
  EXPECT_EQ(unique->outcome, CheckOutcome::kFailed);
  EXPECT_EQ(*unique->violating_rows, 1);
  EXPECT_EQ(c.Get("pattern(status)")->outcome, CheckOutcome::kPassed);
  // The tuned detector: 0.3% >= min_share 0.1%, severity fail.
  EXPECT_EQ(c.Get("NEW_CATEGORY", "status")->outcome, CheckOutcome::kFailed);
}

TEST(DataTestsEval, ProfileTestsAgainstBoundsAndBaseline) {
  Rows rows;
  rows.scale = 100;  // cents -> ... a hundredfold
  rows.null_amount = 100;
  rows.rows = 400;
  rows.day = 10;  // the newest event is days older than the commit
  auto c = RunSuite(kTests, rows);
  EXPECT_EQ(c.Get("row_count")->outcome, CheckOutcome::kFailed);
  EXPECT_THAT(c.Get("row_count")->message, HasSubstr("below 500"));
  EXPECT_EQ(c.Get("median(amount)")->outcome, CheckOutcome::kFailed);
  EXPECT_EQ(c.Get("null_rate(amount)")->outcome, CheckOutcome::kFailed);
  EXPECT_THAT(c.Get("null_rate(amount)")->message, HasSubstr("rose by 25.0 points"));
  EXPECT_EQ(c.Get("freshness(event_ts)")->outcome, CheckOutcome::kFailed);
  // scale_shift tuned to warn on this column.
  const Finding* scale = c.Get("SCALE_SHIFT", "amount");
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ(scale->outcome, CheckOutcome::kWarning);
  EXPECT_EQ(*scale->factor, 100);
}

TEST(DataTestsEval, DefaultsOffRunsOnlyListedDetectors) {
  Rows rows;
  rows.scale = 100;
  rows.odd = 100;
  auto c = RunSuite("defaults: false\ncolumns:\n  status: [new_category]\n", rows);
  EXPECT_EQ(c.Get("SCALE_SHIFT"), nullptr);
  EXPECT_EQ(c.Get("VOLUME_ANOMALY"), nullptr);
  ASSERT_NE(c.Get("NEW_CATEGORY", "status"), nullptr);
  EXPECT_EQ(c.Get("NEW_CATEGORY", "status")->outcome, CheckOutcome::kWarning);
}

TEST(DataTestsEval, MaxFailingToleratesSomeRows) {
  Rows rows;
  rows.odd = 5;
  auto c = RunSuite(
      "columns:\n  status:\n    - accepted_values: {values: [NEW, SHIPPED, "
      "DELIVERED], max_failing_percent: 1}\n",
      rows);
  EXPECT_EQ(c.Get("accepted_values(status)")->outcome, CheckOutcome::kPassed);
  rows.odd = 20;  // 2%
  c = RunSuite(
      "columns:\n  status:\n    - accepted_values: {values: [NEW, SHIPPED, "
      "DELIVERED], max_failing_percent: 1}\n",
      rows);
  EXPECT_EQ(c.Get("accepted_values(status)")->outcome, CheckOutcome::kFailed);
}

TEST(DataTestsEval, CastNullsFailOnNullsACastIntroduced) {
  auto suite = ParseDataTests(
      "columns:\n  amount: [cast_nulls]\n  status:\n    - cast_nulls: {max_failing: "
      "5}\n",
      "t.yml");
  ASSERT_TRUE(suite) << suite.error().message;
  TableProfile clean = ProfileOf(Rows{}, 1, 3);
  auto passed = EvaluateDataTests(*suite, clean, {}, {});
  ASSERT_TRUE(passed) << passed.error().message;
  for (const auto& f : *passed) {
    if (f.test == "cast_nulls(amount)") {
      EXPECT_EQ(f.outcome, CheckOutcome::kPassed);
    }
  }
  TableProfile cast = ProfileOf(Rows{}, 1, 3);
  AddCastNulls({{"amount", 2}, {"status", 5}}, &cast);
  auto findings = EvaluateDataTests(*suite, cast, {}, {});
  ASSERT_TRUE(findings) << findings.error().message;
  Checked c{std::move(*findings)};
  ASSERT_NE(c.Get("cast_nulls(amount)"), nullptr);
  EXPECT_EQ(c.Get("cast_nulls(amount)")->outcome, CheckOutcome::kFailed);
  EXPECT_THAT(c.Get("cast_nulls(amount)")->message, HasSubstr("2 NULLs from casts"));
  EXPECT_EQ(c.Get("cast_nulls(status)")->outcome, CheckOutcome::kPassed);  // 5 allowed
}

TEST(DataTestsEval, UnknownColumnNamesTheLine) {
  auto suite = ParseDataTests(
      "columns:\n  amout: [not_null]\n  stat: "
      "[{accepted_values: [A]}]\n",
      "t.yml");
  ASSERT_TRUE(suite);
  auto runner = RowTestRunner::Make(*suite, *DeltaSchema(), "orders");
  ASSERT_FALSE(runner);
  EXPECT_THAT(runner.error().message,
              HasSubstr("t.yml:3: test accepted_values(stat): column 'stat' is not in "
                        "table 'orders' (columns: id, amount, status, event_ts)"));
  TableProfile p = ProfileOf(Rows{}, 1, 1);
  auto found = EvaluateDataTests(*suite, p, {}, {});
  ASSERT_FALSE(found);
  EXPECT_THAT(found.error().message, HasSubstr("t.yml:2: test not_null(amout): column "
                                               "'amout' is not in the table"));
}

TEST(DataTestsContract, QualityRulesBecomeRowTests) {
  const char* yaml = R"(apiVersion: v3.1.0
kind: DataContract
id: orders
name: orders
version: 1.0.0
status: active
schema:
  - name: orders
    properties:
      - name: id
        logicalType: integer
        required: true
        unique: true
      - name: status
        logicalType: string
        quality:
          - type: library
            metric: invalidValues
            arguments:
              validValues: [NEW, SHIPPED, DELIVERED]
            mustBe: 0
)";
  auto contract = LoadContractText(yaml, "c.odcs.yaml");
  ASSERT_TRUE(contract) << contract.error().message;
  EXPECT_TRUE(LooksLikeContract(yaml));
  auto suite = DataTestSuiteFromContract(*contract, contract->schema[0]);
  ASSERT_GE(suite.tests.size(), 3u);
  Rows rows;
  rows.odd = 4;
  rows.dup = 3;
  auto runner = RowTestRunner::Make(suite, *DeltaSchema(), "orders");
  ASSERT_TRUE(runner) << runner.error().message;
  ASSERT_TRUE(runner->Add(*Batch(rows)));
  auto found = EvaluateDataTests(suite, ProfileOf(rows, 1, 1), {}, runner->Counts());
  ASSERT_TRUE(found);
  int failed = 0;
  for (const auto& f : *found) {
    if (f.outcome == CheckOutcome::kFailed) {
      ++failed;
      EXPECT_TRUE(f.violating_rows == 4 || f.violating_rows == 2) << f.test;
    }
  }
  EXPECT_EQ(failed, 2);  // invalidValues of status, unique id
}

}  // namespace
}  // namespace deltaguard
