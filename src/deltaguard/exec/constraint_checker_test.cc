#include "deltaguard/exec/constraint_checker.h"

#include <arrow/array.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "deltaguard/util/string_util.h"
#include "testing/test_util.h"

namespace deltaguard {
namespace {

Metadata WithConfig(StringMap config) {
  Metadata m;
  m.configuration = std::move(config);
  return m;
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

class ConstraintCheckerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = Ddl("id INT, amount INT, name STRING, s STRUCT<x: INT>");
    batch_ = Rows(schema_, R"([
      {"id": 1, "amount": 10, "name": "ok", "s": {"x": 1}},
      {"id": 2, "amount": -1, "name": "neg", "s": {"x": 2}},
      {"id": 3, "amount": null, "name": null, "s": null},
      {"id": 4, "amount": 0, "name": "zero", "s": {"x": 4}},
      {"id": 5, "amount": 7, "name": "fine", "s": {"x": 5}}
    ])");
  }

  ConstraintChecker Checker(StringMap config) {
    auto c = ConstraintChecker::Make(WithConfig(std::move(config)), *schema_, "/t");
    EXPECT_TRUE(c) << c.error().ToString();
    return c ? std::move(*c) : ConstraintChecker({}, {}, "/t");
  }

  SchemaRef schema_;
  std::shared_ptr<arrow::RecordBatch> batch_;
};

TEST_F(ConstraintCheckerTest, PassingBatchIsOk) {
  auto checker = Checker({{"delta.constraints.id_pos", "id > 0"}});
  EXPECT_FALSE(checker.empty());
  auto st = checker.Check(*batch_);
  EXPECT_TRUE(st) << st.error().ToString();
  auto v = checker.FirstViolation(*batch_);
  ASSERT_TRUE(v);
  EXPECT_FALSE(v->has_value());
}

TEST_F(ConstraintCheckerTest, NoConstraintsIsEmptyAndPasses) {
  auto checker = Checker({{"delta.appendOnly", "true"}});
  EXPECT_TRUE(checker.empty());
  EXPECT_TRUE(checker.Check(*batch_));
}

TEST_F(ConstraintCheckerTest, ViolationNamesConstraintCountAndSamplesAndNullViolates) {
  auto checker = Checker({{"delta.constraints.id_pos", "id > 0"},
                          {"delta.constraints.amount_positive", "amount > 0"}});
  auto st = checker.Check(*batch_);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::kConstraintViolation);
  EXPECT_EQ(st.error().message,
            "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES: table '/t': CHECK constraint "
            "amount_positive (amount > 0) violated by 3 rows, e.g. {amount: -1}, "
            "{amount: NULL}, {amount: 0}");
  auto v = checker.FirstViolation(*batch_, 2);
  ASSERT_TRUE(v && v->has_value());
  EXPECT_EQ((*v)->constraint, "amount_positive");
  EXPECT_EQ((*v)->expression, "amount > 0");
  EXPECT_EQ((*v)->count, 3);
  EXPECT_EQ((*v)->samples, (std::vector<std::string>{"{amount: -1}", "{amount: NULL}"}));
}

TEST_F(ConstraintCheckerTest, SamplesShowEveryReferencedColumnStringsQuoted) {
  auto checker = Checker({{"delta.constraints.c", "length(name) > 2 AND s.x < amount"}});
  auto v = checker.FirstViolation(*batch_);
  ASSERT_TRUE(v && v->has_value()) << (v ? "" : v.error().ToString());
  EXPECT_EQ((*v)->count, 4);
  ASSERT_GE((*v)->samples.size(), 2u);
  ASSERT_EQ((*v)->samples.size(), 4u);
  EXPECT_EQ((*v)->samples[0], "{name: \"ok\", s.x: 1, amount: 10}");
  EXPECT_EQ((*v)->samples[2], "{name: NULL, s.x: NULL, amount: NULL}");
}

TEST_F(ConstraintCheckerTest, FirstViolatedConstraintInOrderIsReported) {
  auto checker = Checker({{"delta.constraints.small", "id < 5"},
                          {"delta.constraints.amount_positive", "amount > 0"}});
  auto st = checker.Check(*batch_);
  ASSERT_FALSE(st);
  EXPECT_TRUE(Contains(st.error().message,
                       "CHECK constraint small (id < 5) violated by "
                       "1 row, e.g. {id: 5}"))
      << st.error().message;
}

TEST_F(ConstraintCheckerTest, LegacyInvariantsAreEnforced) {
  std::string inner = "{\"expression\":{\"expression\":\"id <> 3\"}}";
  std::vector<StructField> fields = schema_->fields();
  fields[0].metadata = fields[0].metadata.With(kInvariantsKey, JsonQuote(inner));
  StructType schema(fields);
  auto checker = ConstraintChecker::Make(Metadata{}, schema, "/t");
  ASSERT_TRUE(checker) << checker.error().ToString();
  auto st = checker->Check(*batch_);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message,
            "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES: table '/t': invariant on column id "
            "(id <> 3) violated by 1 row, e.g. {id: 3}");
}

TEST_F(ConstraintCheckerTest, UnbindableConstraintFailsMakeNamingIt) {
  auto c = ConstraintChecker::Make(WithConfig({{"delta.constraints.gone", "nope > 1"}}),
                                   *schema_, "/t");
  ASSERT_FALSE(c);
  EXPECT_TRUE(Contains(c.error().message, "table '/t'")) << c.error().message;
  EXPECT_TRUE(Contains(c.error().message, "CHECK constraint gone")) << c.error().message;
}

TEST_F(ConstraintCheckerTest, EvaluationErrorNamesTheConstraint) {
  auto checker = Checker({{"delta.constraints.div",
                           "100 / (amount - amount) > 0 OR "
                           "id % (id - 1) = 0"}});
  auto st = checker.Check(*batch_);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().code, ErrorCode::kConstraintViolation);
  EXPECT_TRUE(Contains(st.error().message, "CHECK constraint div")) << st.error().message;
}

TEST_F(ConstraintCheckerTest, SplitSeparatesGoodAndViolatingRows) {
  auto checker = Checker({{"delta.constraints.amount_positive", "amount > 0"},
                          {"delta.constraints.small", "id < 5"}});
  auto split = checker.Split(batch_, 1700000000000000);
  ASSERT_TRUE(split) << split.error().ToString();
  EXPECT_EQ(split->num_violating, 4);
  ASSERT_EQ(split->good_mask->length(), 5);
  EXPECT_EQ(split->good_mask->null_count(), 0);
  std::vector<bool> mask;
  for (int64_t i = 0; i < 5; ++i) mask.push_back(split->good_mask->Value(i));
  EXPECT_EQ(mask, (std::vector<bool>{true, false, false, false, false}));
  ASSERT_EQ(split->good->num_rows(), 1);
  EXPECT_EQ(split->good->schema()->Equals(*batch_->schema()), true);
  const auto& bad = *split->violating;
  ASSERT_EQ(bad.num_rows(), 4);
  ASSERT_EQ(bad.num_columns(), batch_->num_columns() + 2);
  EXPECT_EQ(bad.schema()->field(4)->name(), kQuarantineConstraintColumn);
  EXPECT_EQ(bad.schema()->field(5)->name(), kQuarantineTimeColumn);
  auto names = std::static_pointer_cast<arrow::StringArray>(bad.column(4));
  EXPECT_EQ(names->GetString(0), "CHECK constraint amount_positive");
  EXPECT_EQ(names->GetString(3), "CHECK constraint small");  // id 5, amount 7
  auto ids = std::static_pointer_cast<arrow::Int32Array>(bad.column(0));
  EXPECT_EQ(ids->Value(3), 5);
  auto times = std::static_pointer_cast<arrow::TimestampArray>(bad.column(5));
  EXPECT_EQ(times->Value(0), 1700000000000000);
}

TEST_F(ConstraintCheckerTest, SplitOfPassingBatchKeepsEverything) {
  auto checker = Checker({{"delta.constraints.id_pos", "id > 0"}});
  auto split = checker.Split(batch_);
  ASSERT_TRUE(split) << split.error().ToString();
  EXPECT_EQ(split->num_violating, 0);
  EXPECT_EQ(split->good.get(), batch_.get());
  EXPECT_EQ(split->violating->num_rows(), 0);
  EXPECT_EQ(split->violating->num_columns(), batch_->num_columns() + 2);
}

TEST(QuarantineSchemaTest, AddsColumnsAndDropsConstraintMetadata) {
  auto schema = Ddl("id INT NOT NULL COMMENT 'key', s STRUCT<x: INT NOT NULL>");
  std::vector<StructField> fields = schema->fields();
  fields[0].metadata = fields[0].metadata.With(kInvariantsKey, "\"{}\"");
  auto q = QuarantineSchema(StructType(fields));
  ASSERT_TRUE(q) << q.error().ToString();
  ASSERT_EQ((*q)->num_fields(), 4u);
  EXPECT_TRUE((*q)->field(0).nullable);
  EXPECT_EQ((*q)->field(0).metadata.FindRaw(kInvariantsKey), nullptr);
  EXPECT_EQ((*q)->field(0).comment(), "key");
  EXPECT_TRUE((*q)->FindPath({"s", "x"})->nullable);
  EXPECT_EQ((*q)->field(2).name, kQuarantineConstraintColumn);
  EXPECT_EQ((*q)->field(3).type->kind(), TypeKind::kTimestamp);
  auto clash = QuarantineSchema(*Ddl("_violated_constraint STRING"));
  ASSERT_FALSE(clash);
  EXPECT_EQ(clash.error().code, ErrorCode::kInvalidArgument);
}

TEST(DescribeViolationTest, SingularAndNoSamples) {
  ConstraintViolation v{"c", "a > 0", 1, {}};
  EXPECT_EQ(DescribeViolation("NOT NULL constraint on column a", v),
            "NOT NULL constraint on column a (a > 0) violated by 1 row");
}

}  // namespace
}  // namespace deltaguard
