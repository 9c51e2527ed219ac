// The default detectors (quality/detectors.h) on constructed loads: each of the source
// article's cases is caught with the right class, factor or hours, a stable load
// raises nothing, and the threshold edges and baseline selection behave as documented.

#include "deltaguard/quality/detectors.h"

#include <arrow/api.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace deltaguard {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kDayMs = 86400000;

struct Load {
  int64_t rows = 2000;
  double amount_scale = 1.0;    // cents -> dollars: 0.01
  int hour_shift = 0;           // UTC -> local
  double new_status_share = 0;  // PARTIALLY_SHIPPED
  bool country_names = false;   // ISO codes -> names
  double null_email = 0.01;
};

TableProfile Profile(const Load& load, uint64_t seed, int64_t version) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> amount(7.0, 0.6);  // cents
  std::normal_distribution<double> hour(14.0, 3.0);
  std::uniform_real_distribution<double> u(0, 1);
  const char* iso[] = {"US", "DE", "FR", "GB", "JP", "BR", "IN", "CA"};
  const char* names[] = {"United States", "Germany", "France", "United Kingdom",
                         "Japan",         "Brazil",  "India",  "Canada"};
  arrow::DoubleBuilder a;
  arrow::TimestampBuilder t(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
                            arrow::default_memory_pool());
  arrow::StringBuilder s, c, e;
  for (int64_t i = 0; i < load.rows; ++i) {
    EXPECT_TRUE(a.Append(std::round(amount(rng)) * load.amount_scale).ok());
    double h = std::fmod(std::max(0.0, hour(rng)) + load.hour_shift + 24.0, 24.0);
    int64_t micros = (version * kDayMs + static_cast<int64_t>(h * 3600000)) * 1000;
    EXPECT_TRUE(t.Append(micros).ok());
    const double r = u(rng);
    const char* status = r < load.new_status_share ? "PARTIALLY_SHIPPED"
                         : r < 0.5                 ? "pending"
                         : r < 0.85                ? "shipped"
                                                   : "delivered";
    EXPECT_TRUE(s.Append(status).ok());
    const size_t k = static_cast<size_t>(u(rng) * 8);
    EXPECT_TRUE(c.Append(load.country_names ? names[k] : iso[k]).ok());
    EXPECT_TRUE(
        (u(rng) < load.null_email ? e.AppendNull() : e.Append(fmt::format("u{}@x.io", i)))
            .ok());
  }
  auto schema = arrow::schema(
      {arrow::field("amount", arrow::float64()), arrow::field("event_ts", t.type()),
       arrow::field("status", arrow::utf8()), arrow::field("country", arrow::utf8()),
       arrow::field("email", arrow::utf8())});
  auto batch = arrow::RecordBatch::Make(
      schema, load.rows,
      {*a.Finish(), *t.Finish(), *s.Finish(), *c.Finish(), *e.Finish()});
  auto p = ProfileBatches(schema, {batch});
  EXPECT_TRUE(p);
  p->version = version;
  p->timestamp_ms = version * kDayMs;
  return std::move(*p);
}

std::vector<TableProfile> History(int commits = 14) {
  std::vector<TableProfile> out;
  for (int v = 0; v < commits; ++v) {
    Load load;
    load.rows = 2000 + (v % 3) * 100;
    out.push_back(Profile(load, 100 + v, v));
  }
  return out;
}

std::vector<Finding> Raised(const std::vector<Finding>& all) {
  std::vector<Finding> out;
  for (const auto& f : all) {
    if (f.outcome == CheckOutcome::kWarning || f.outcome == CheckOutcome::kFailed) {
      out.push_back(f);
    }
  }
  return out;
}

std::vector<Finding> Check(const Load& load, uint64_t seed = 999) {
  static const std::vector<TableProfile> history = History();
  TableProfile current = Profile(load, seed, 14);
  return RunDetectors(current, SelectBaseline(history, current, BaselineSpec{}));
}

std::vector<std::string> Names(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) {
    out.push_back(fmt::format("{} {} {}", CheckOutcomeName(f.outcome), f.test, f.column));
  }
  return out;
}

TEST(DetectorsTest, StableLoadsRaiseNothing) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    EXPECT_THAT(Names(Raised(Check(Load{}, seed))), ElementsAre()) << seed;
  }
}

// An order number that only grows and a reference whose day counter gains a digit
// (day 9 -> 10) are normal loads, not drift.
TEST(DetectorsTest, SequencesAndGrowingCountersAreNotDrift) {
  auto day = [](int64_t d) {
    arrow::Int64Builder id;
    arrow::StringBuilder ref;
    for (int64_t i = 0; i < 500; ++i) {
      EXPECT_TRUE(id.Append(d * 100000 + i).ok());
      EXPECT_TRUE(ref.Append(fmt::format("u{}_{}", d, i)).ok());
    }
    auto schema = arrow::schema(
        {arrow::field("order_id", arrow::int64()), arrow::field("ref", arrow::utf8())});
    auto batch = arrow::RecordBatch::Make(schema, 500, {*id.Finish(), *ref.Finish()});
    auto p = ProfileBatches(schema, {batch});
    EXPECT_TRUE(p);
    p->version = d;
    p->timestamp_ms = d * kDayMs;
    return std::move(*p);
  };
  std::vector<TableProfile> history;
  for (int64_t d = 0; d < 10; ++d) history.push_back(day(d));
  TableProfile current = day(10);
  auto found = RunDetectors(current, SelectBaseline(history, current, BaselineSpec{}));
  EXPECT_THAT(Names(Raised(found)), ElementsAre());
  bool skipped = false;
  for (const auto& f : found) {
    if (f.test == "DISTRIBUTION_SHIFT" && f.column == "order_id") {
      skipped = f.outcome == CheckOutcome::kSkipped;
      EXPECT_THAT(f.message, HasSubstr("ascending"));
    }
  }
  EXPECT_TRUE(skipped);
}

TEST(DetectorsTest, CentsBecomeDollars) {
  Load load;
  load.amount_scale = 0.01;
  auto raised = Raised(Check(load));
  ASSERT_THAT(Names(raised), ElementsAre("failed SCALE_SHIFT amount"));
  EXPECT_DOUBLE_EQ(*raised[0].factor, 0.01);
  EXPECT_THAT(raised[0].message, HasSubstr("0.01x"));
}

TEST(DetectorsTest, UtcBecomesLocalTime) {
  for (int shift : {2, -5}) {
    Load load;
    load.hour_shift = shift;
    auto raised = Raised(Check(load));
    ASSERT_THAT(Names(raised), ElementsAre("failed TIME_OFFSET_SHIFT event_ts")) << shift;
    EXPECT_EQ(*raised[0].hours, shift);
  }
}

TEST(DetectorsTest, NewStatusValue) {
  Load load;
  load.new_status_share = 0.02;
  auto raised = Raised(Check(load));
  ASSERT_THAT(Names(raised), ElementsAre("warning NEW_CATEGORY status"));
  EXPECT_THAT(raised[0].values, ElementsAre("PARTIALLY_SHIPPED"));
}

TEST(DetectorsTest, IsoCodesBecomeNames) {
  Load load;
  load.country_names = true;
  auto names = Names(Raised(Check(load)));
  EXPECT_THAT(names, ::testing::Contains("warning FORMAT_DRIFT country"));
  EXPECT_THAT(names, ::testing::Contains("warning NEW_CATEGORY country"));
  EXPECT_THAT(names, ::testing::Contains("warning CATEGORY_DROPPED country"));
}

TEST(DetectorsTest, ColumnTurnsNullAndVolumeDrops) {
  Load load;
  load.null_email = 0.99;
  load.rows = 1000;
  auto raised = Raised(Check(load));
  EXPECT_THAT(Names(raised),
              ElementsAre("warning VOLUME_ANOMALY ", "failed NULL_RATE_SHIFT email"));
  Load small_shift;
  small_shift.null_email = 0.08;  // 7 points: a shift, not all-NULL
  EXPECT_THAT(Names(Raised(Check(small_shift))),
              ElementsAre("warning NULL_RATE_SHIFT email"));
  Load under;
  under.null_email = 0.025;  // 1.5 points: under the 3-point threshold
  EXPECT_THAT(Names(Raised(Check(under))), ElementsAre());
  Load edge;
  edge.null_email = 0.05;  // 4 points: over it
  EXPECT_THAT(Names(Raised(Check(edge))), ElementsAre("warning NULL_RATE_SHIFT email"));
}

TEST(DetectorsTest, TooLittleBaselineIsSkippedNotPassed) {
  auto history = History(2);
  TableProfile current = Profile(Load{}, 5, 2);
  auto findings = RunDetectors(current, SelectBaseline(history, current, BaselineSpec{}));
  EXPECT_EQ(findings[0].test, "VOLUME_ANOMALY");
  EXPECT_EQ(findings[0].outcome, CheckOutcome::kSkipped);
  EXPECT_THAT(findings[1].message, HasSubstr("2 baseline commits (at least 3 needed)"));
}

TEST(DetectorsTest, BaselineSpecs) {
  auto spec = ParseBaselineSpec("trailing:7d");
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->ToString(), "trailing:7d");
  EXPECT_EQ(ParseBaselineSpec("trailing:5")->commits, 5);
  EXPECT_EQ(ParseBaselineSpec("trailing:36h")->ToString(), "trailing:36h");
  for (const char* bad : {"7d", "trailing:", "trailing:0", "trailing:x", "trailing:-3"}) {
    EXPECT_FALSE(ParseBaselineSpec(bad)) << bad;
  }
  auto history = History(10);
  TableProfile current = Profile(Load{}, 5, 10);
  std::vector<int64_t> picked;
  for (auto* p : SelectBaseline(history, current, *ParseBaselineSpec("trailing:3"))) {
    picked.push_back(p->version);
  }
  EXPECT_THAT(picked, ElementsAre(7, 8, 9));
  picked.clear();
  for (auto* p : SelectBaseline(history, current, *spec)) picked.push_back(p->version);
  EXPECT_THAT(picked, ElementsAre(3, 4, 5, 6, 7, 8, 9));
}

}  // namespace
}  // namespace deltaguard
