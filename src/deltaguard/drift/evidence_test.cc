// EvidenceFromAddStats (evidence.h): sums, bounds, physical names, unknown stats.

#include "deltaguard/drift/evidence.h"

#include <gtest/gtest.h>

#include "deltaguard/schema/ddl.h"
#include "deltaguard/schema/schema_json.h"

namespace deltaguard {
namespace {

AddFile File(std::optional<std::string> stats) {
  AddFile f;
  f.path = "part.parquet";
  f.stats = std::move(stats);
  return f;
}

TEST(EvidenceTest, SumsCountsAndBounds) {
  auto schema = *ParseDdlSchema("id BIGINT, name STRING");
  AddFile a = File(R"({"numRecords":3,"minValues":{"id":5,"name":"b"},)"
                   R"("maxValues":{"id":9,"name":"d"},"nullCount":{"id":0,"name":3}})");
  AddFile b = File(R"({"numRecords":2,"minValues":{"id":1,"name":"c"},)"
                   R"("maxValues":{"id":10,"name":"z"},"nullCount":{"id":0,"name":2}})");
  auto ev = EvidenceFromAddStats(*schema, {&a, &b});
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].path, "id");
  EXPECT_EQ(*ev[0].null_count, 0);
  EXPECT_EQ(*ev[0].num_records, 5);
  EXPECT_EQ(*ev[0].min, "1");  // numerically, not "1" < "5" by accident: 10 > 9
  EXPECT_EQ(*ev[0].max, "10");
  EXPECT_EQ(*ev[1].null_count, 5);
  EXPECT_EQ(*ev[1].min, "b");
  EXPECT_EQ(*ev[1].max, "z");
}

TEST(EvidenceTest, MissingStatsMakeCountsUnknown) {
  auto schema = *ParseDdlSchema("id BIGINT");
  AddFile a = File(R"({"numRecords":3,"nullCount":{"id":3}})");
  AddFile b = File(std::nullopt);
  AddFile c = File("not json");
  auto ev = EvidenceFromAddStats(*schema, {&a, &b, &c});
  EXPECT_TRUE(ev.empty());  // no count, no bounds: nothing known
  auto alone = EvidenceFromAddStats(*schema, {&a});
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(*alone[0].null_count, 3);
}

TEST(EvidenceTest, PhysicalNamesUnderColumnMapping) {
  auto schema = *ParseSchemaJson(
      R"({"type":"struct","fields":[{"name":"cust_id","type":"long","nullable":true,)"
      R"("metadata":{"delta.columnMapping.id":1,)"
      R"("delta.columnMapping.physicalName":"col-1"}}]})");
  AddFile a = File(R"({"numRecords":2,"nullCount":{"col-1":2}})");
  auto ev = EvidenceFromAddStats(*schema, {&a});
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].path, "cust_id");
  EXPECT_EQ(*ev[0].null_count, 2);
}

}  // namespace
}  // namespace deltaguard
