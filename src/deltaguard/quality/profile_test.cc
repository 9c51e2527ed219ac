// Sketches and column profiles (quality/sketches.h, quality/profile.h,
// quality/profile_table.h): every sketch merges to what one pass gives within its
// documented error, profiles of nested leaves, the exact statistics, and profile rows
// that round-trip (and refuse to decode when corrupt).

#include "deltaguard/quality/profile.h"

#include <arrow/api.h>
#include <arrow/json/from_string.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "deltaguard/quality/profile_table.h"
#include "deltaguard/quality/sketches.h"

namespace deltaguard {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::shared_ptr<arrow::RecordBatch> Batch(const std::shared_ptr<arrow::Schema>& schema,
                                          const std::string& json) {
  auto array = arrow::json::ArrayFromJSONString(arrow::struct_(schema->fields()), json);
  EXPECT_TRUE(array.ok()) << array.status().ToString();
  auto batch = arrow::RecordBatch::FromStructArray(*array);
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  return *batch;
}

TEST(SketchTest, QuantilesMergeLikeOnePass) {
  QuantileSketch all, a, b;
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(3.0, 1.0);
  std::vector<double> values;
  for (int i = 0; i < 200000; ++i) values.push_back(dist(rng));
  for (size_t i = 0; i < values.size(); ++i) {
    all.Update(values[i]);
    (i % 3 == 0 ? a : b).Update(values[i]);
  }
  a.Merge(b);
  std::sort(values.begin(), values.end());
  for (double rank : {0.1, 0.5, 0.9, 0.99}) {
    const double exact = values[static_cast<size_t>(rank * (values.size() - 1))];
    // KLL k=200: normalized rank error about 1.65% (99% confidence).
    EXPECT_NEAR(all.Cdf(a.Quantile(rank)), rank, 0.0165) << rank;
    EXPECT_NEAR(all.Cdf(all.Quantile(rank)), rank, 0.0165) << rank;
    EXPECT_GT(exact, 0);
  }
  EXPECT_EQ(a.count(), 200000u);
  auto back = QuantileSketch::Deserialize(a.Serialize());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->Quantile(0.5), a.Quantile(0.5));
  EXPECT_FALSE(QuantileSketch::Deserialize("not a sketch"));
  EXPECT_TRUE(std::isnan(QuantileSketch().Quantile(0.5)));
}

TEST(SketchTest, DistinctAndTopValuesMerge) {
  DistinctSketch d1, d2;
  for (int i = 0; i < 50000; ++i) d1.Update(static_cast<int64_t>(i));
  for (int i = 25000; i < 75000; ++i) d2.Update(static_cast<int64_t>(i));
  d1.Merge(d2);
  EXPECT_NEAR(d1.Estimate(), 75000, 75000 * 0.05);  // lg_k 12: ~1.6% (3 sigma ~5%)
  auto back = DistinctSketch::Deserialize(d1.Serialize());
  ASSERT_TRUE(back);
  EXPECT_DOUBLE_EQ(back->Estimate(), d1.Estimate());

  TopValuesSketch t1, t2;
  t1.Update("pending", 600);
  t1.Update("shipped", 300);
  t2.Update("shipped", 500);
  t2.Update("lost", 5);
  t1.Merge(t2);
  auto top = t1.Top(10);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].value, "shipped");
  EXPECT_EQ(top[0].count, 800);
  EXPECT_EQ(top[2].value, "lost");
  EXPECT_EQ(t1.total_weight(), 1405u);
  auto t3 = TopValuesSketch::Deserialize(t1.Serialize());
  ASSERT_TRUE(t3);
  EXPECT_EQ(t3->Top(1)[0].count, 800);
  EXPECT_FALSE(TopValuesSketch::Deserialize(std::string(3, '\xff')));
}

TEST(ProfileTest, CharacterPatterns) {
  EXPECT_EQ(CharacterPattern("US"), "A+");
  EXPECT_EQ(CharacterPattern("United States"), "Aa+ Aa+");
  EXPECT_EQ(CharacterPattern("2024-01-05"), "9+-9+-9+");
  EXPECT_EQ(CharacterPattern("a"), "a");
  EXPECT_EQ(CharacterPattern(""), "");
  EXPECT_EQ(CharacterPattern(std::string(100, 'x')), "a+");
}

TEST(ProfileTest, ExactStatisticsAndNestedLeaves) {
  auto schema = arrow::schema(
      {arrow::field("amount", arrow::float64()), arrow::field("country", arrow::utf8()),
       arrow::field("at", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")),
       arrow::field("ok", arrow::boolean()),
       arrow::field("customer", arrow::struct_({arrow::field("id", arrow::int32()),
                                                arrow::field("zip", arrow::utf8())})),
       arrow::field("tags", arrow::list(arrow::utf8()))});
  auto batch = Batch(schema, R"([
    {"amount": 10.0, "country": "US", "at": 3600000000, "ok": true,
     "customer": {"id": 1, "zip": "02139"}, "tags": ["a", "b"]},
    {"amount": 30.0, "country": "DE", "at": 7200000000, "ok": false,
     "customer": null, "tags": null},
    {"amount": null, "country": "United States", "at": -1, "ok": true,
     "customer": {"id": 3, "zip": null}, "tags": ["c"]}])");
  auto profile = ProfileBatches(schema, {batch, batch});
  ASSERT_TRUE(profile) << profile.error().ToString();
  EXPECT_EQ(profile->rows, 6);
  std::vector<std::string> names;
  for (const auto& c : profile->columns) names.push_back(c.column);
  EXPECT_THAT(names, ElementsAre("amount", "country", "at", "ok", "customer.id",
                                 "customer.zip", "tags.element"));
  const ColumnProfile* amount = profile->Column("AMOUNT");
  ASSERT_NE(amount, nullptr);
  EXPECT_EQ(amount->kind, ProfileKind::kNumber);
  EXPECT_EQ(amount->nulls, 2);
  EXPECT_DOUBLE_EQ(amount->min, 10.0);
  EXPECT_DOUBLE_EQ(amount->max, 30.0);
  EXPECT_DOUBLE_EQ(amount->mean, 20.0);
  EXPECT_NEAR(amount->stddev(), std::sqrt(400.0 / 3.0), 1e-9);
  const ColumnProfile* country = profile->Column("country");
  EXPECT_EQ(country->min_length, 2);
  EXPECT_EQ(country->max_length, 13);
  EXPECT_EQ(country->min_text, "DE");
  EXPECT_EQ(country->max_text, "United States");
  EXPECT_EQ(country->patterns.Top(1)[0].value, "A+");
  EXPECT_EQ(country->patterns.Top(1)[0].count, 4);
  const ColumnProfile* at = profile->Column("at");
  EXPECT_EQ(at->hours[1], 2);
  EXPECT_EQ(at->hours[2], 2);
  EXPECT_EQ(at->hours[23], 2);  // one microsecond before the epoch
  EXPECT_EQ(profile->Column("ok")->top.Top(1)[0].value, "true");
  EXPECT_EQ(profile->Column("customer.id")->nulls, 2);  // the NULL struct
  EXPECT_EQ(profile->Column("customer.zip")->nulls, 4);
  EXPECT_EQ(profile->Column("tags.element")->rows, 6);
}

TEST(ProfileTest, MergedBatchesEqualOnePass) {
  auto schema = arrow::schema({arrow::field("x", arrow::int64())});
  std::string first = "[", second = "[";
  for (int i = 0; i < 1000; ++i) {
    std::string& out = i < 400 ? first : second;
    out += (out.size() > 1 ? "," : "") + fmt::format("{{\"x\": {}}}", i);
  }
  auto a = ProfileBatches(schema, {Batch(schema, first + "]")});
  auto b = ProfileBatches(schema, {Batch(schema, second + "]")});
  auto all =
      ProfileBatches(schema, {Batch(schema, first + "]"), Batch(schema, second + "]")});
  ASSERT_TRUE(a && b && all);
  ASSERT_TRUE(a->Merge(*b));
  const ColumnProfile& m = a->columns[0];
  const ColumnProfile& o = all->columns[0];
  EXPECT_EQ(m.rows, 1000);
  EXPECT_DOUBLE_EQ(m.mean, o.mean);
  EXPECT_NEAR(m.variance(), o.variance(), 1e-6);
  EXPECT_DOUBLE_EQ(m.min, 0);
  EXPECT_DOUBLE_EQ(m.max, 999);
  EXPECT_EQ(m.zeros, 1);
}

TEST(ProfileTableTest, RowsRoundTripAndCorruptionIsNamed) {
  auto schema =
      arrow::schema({arrow::field("n", arrow::int32()), arrow::field("s", arrow::utf8()),
                     arrow::field("t", arrow::timestamp(arrow::TimeUnit::MICRO))});
  auto profile = ProfileBatches(
      schema,
      {Batch(schema,
             R"([{"n": 1, "s": "a", "t": 0}, {"n": null, "s": "bb", "t": null}])")});
  ASSERT_TRUE(profile);
  profile->version = 4;
  profile->timestamp_ms = 1700000000000;
  profile->operation = "WRITE";
  AddCastNulls({{"N", 3}, {"absent", 9}}, &*profile);  // matched case-insensitively
  EXPECT_EQ(profile->Column("n")->cast_nulls, 3);
  auto rows = ProfileRows(*profile);
  ASSERT_TRUE(rows) << rows.error().ToString();
  EXPECT_EQ((*rows)->num_rows(), 3);
  auto back = ProfilesFromRows({*rows});
  ASSERT_TRUE(back) << back.error().ToString();
  ASSERT_EQ(back->size(), 1u);
  const TableProfile& p = (*back)[0];
  EXPECT_EQ(p.version, 4);
  EXPECT_EQ(p.timestamp_ms, 1700000000000);
  EXPECT_EQ(p.rows, 2);
  EXPECT_EQ(p.Column("n")->nulls, 1);
  EXPECT_EQ(p.Column("s")->max_text, "bb");
  EXPECT_EQ(p.Column("t")->hours[0], 1);
  EXPECT_EQ(p.Column("n")->quantiles.Quantile(0.5), 1);
  EXPECT_EQ(p.Column("n")->cast_nulls, 3);
  EXPECT_EQ(p.Column("s")->cast_nulls, 0);
  // A profile table from before cast_nulls existed reads as no cast NULLs.
  auto without = (*rows)->RemoveColumn((*rows)->schema()->GetFieldIndex("cast_nulls"));
  ASSERT_TRUE(without.ok());
  auto old_rows = ProfilesFromRows({*without});
  ASSERT_TRUE(old_rows) << old_rows.error().ToString();
  EXPECT_EQ((*old_rows)[0].Column("n")->cast_nulls, 0);

  // A sketch cut short: the version and column are named, nothing passes silently.
  auto columns = (*rows)->columns();
  arrow::BinaryBuilder broken;
  ASSERT_TRUE(broken.AppendValues({"\x01\x02", "x", "y"}).ok());
  columns[22] = *broken.Finish();
  auto corrupt = arrow::RecordBatch::Make((*rows)->schema(), 3, columns);
  auto refused = ProfilesFromRows({corrupt});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kCorruptData);
  EXPECT_THAT(refused.error().message, HasSubstr("profile of version 4 column 'n'"));
}

}  // namespace
}  // namespace deltaguard
