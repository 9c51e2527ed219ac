// ContractToYaml (contract/emit.h): what it writes parses back to the same contract,
// scalars that would read as numbers, booleans or YAML syntax are quoted, and proposal
// comments land above their element.

#include "deltaguard/contract/emit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/contract/parse.h"

namespace deltaguard {
namespace {

using ::testing::HasSubstr;

TEST(ContractEmitTest, ScalarsQuoteOnlyWhenTheyWouldReadOtherwise) {
  EXPECT_EQ(YamlScalar("orders"), "orders");
  EXPECT_EQ(YamlScalar("1.0.0"), "1.0.0");  // no YAML number
  EXPECT_EQ(YamlScalar("1.5"), "'1.5'");
  EXPECT_EQ(YamlScalar("007"), "'007'");
  EXPECT_EQ(YamlScalar("yes"), "'yes'");
  EXPECT_EQ(YamlScalar("a: b"), "'a: b'");
  EXPECT_EQ(YamlScalar("it's"), "'it''s'");
  EXPECT_EQ(YamlScalar(""), "''");
  EXPECT_EQ(YamlScalar(" x"), "' x'");
  EXPECT_EQ(YamlScalar("tab\there"), "\"tab\\there\"");
}

TEST(ContractEmitTest, RoundTripIsAFixedPoint) {
  const char* text = R"(apiVersion: v3.1.0
kind: DataContract
id: 'c: 1'
name: orders
version: 2.0.0
status: active
tags: [a, 'yes']
schema:
  - name: t
    quality:
      - {id: r, metric: rowCount, mustBeBetween: [1, 100], severity: warning}
    properties:
      - {id: k, name: id, physicalType: bigint, required: true, primaryKey: true,
         primaryKeyPosition: 1}
      - name: tags
        logicalType: array
        items:
          name: element
          physicalType: string
          logicalTypeOptions: {maxLength: 5}
      - name: s
        physicalType: string
        customProperties:
          - {property: aliases, value: [old_s]}
        quality:
          - {id: v, metric: invalidValues, arguments: {validValues: ['1', 'no', 'a,b']},
             mustBe: 0}
      - name: amount
        physicalType: decimal(10,2)
        logicalTypeOptions: {minimum: 0, maximum: 1e6}
customProperties:
  - {property: medallionLayer, value: gold}
)";
  auto first = LoadContractText(text, "c.yaml");
  ASSERT_TRUE(first) << first.error().ToString();
  std::string yaml = ContractToYaml(*first, {{"amount", "proposed\nfrom the data"}});
  EXPECT_THAT(yaml, HasSubstr("        # proposed\n        # from the data\n"
                              "        logicalTypeOptions:\n          minimum: 0\n"));
  EXPECT_THAT(yaml, HasSubstr("validValues: ['1', 'no', 'a,b']"));
  auto second = LoadContractText(yaml, "c.yaml");
  ASSERT_TRUE(second) << second.error().ToString() << "\n" << yaml;
  EXPECT_EQ(ContractToYaml(*second, {{"amount", "proposed\nfrom the data"}}), yaml);
  const ContractObject& o = second->schema[0];
  EXPECT_EQ(second->id, "c: 1");
  ASSERT_EQ(o.properties[1].items.size(), 1u);
  EXPECT_EQ(o.properties[1].type->ToString(), "array<string>");
  EXPECT_EQ(o.properties[1].items[0].max_length, 5);
  EXPECT_EQ(o.properties[2].aliases, std::vector<std::string>{"old_s"});
  EXPECT_EQ(o.quality[0].operands, (std::vector<double>{1, 100}));
}

}  // namespace
}  // namespace deltaguard
