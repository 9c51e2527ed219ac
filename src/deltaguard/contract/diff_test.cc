// DiffContracts (contract/diff.h): renames by id and by alias, contract-only changes,
// the verdict under the contract's mode and the major-version rule (seed 001, "Gold:
// version breaking changes").

#include "deltaguard/contract/diff.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/contract/parse.h"

namespace deltaguard {
namespace {

using ::testing::HasSubstr;

Contract Make(const std::string& version, const std::string& layer,
              const std::string& properties, const std::string& quality = "") {
  std::string text =
      "apiVersion: v3.1.0\nkind: DataContract\nid: orders\nname: orders\n"
      "version: " +
      version + "\nstatus: active\nschema:\n  - name: orders\n";
  if (!quality.empty()) text += "    quality:\n" + quality;
  text += "    properties:\n" + properties;
  text += "customProperties:\n  - {property: medallionLayer, value: " + layer + "}\n";
  auto c = LoadContractText(text, "v" + version + ".odcs.yaml");
  EXPECT_TRUE(c) << c.error().ToString() << "\n" << text;
  return c ? *c : Contract{};
}

const char* kV1 =
    "      - {id: oid, name: order_id, physicalType: bigint, required: true}\n"
    "      - {id: cust, name: cust_id, physicalType: string, required: true}\n"
    "      - {id: amt, name: amount, physicalType: 'decimal(10,2)', logicalTypeOptions: "
    "{minimum: 0}}\n"
    "      - id: st\n        name: status\n        physicalType: string\n"
    "        quality:\n          - {id: st_values, metric: invalidValues, arguments: "
    "{validValues: [pending, shipped]}, mustBe: 0}\n";

std::vector<std::string> Classes(const ContractDiff& d) {
  std::vector<std::string> out;
  for (const auto& c : d.changes) {
    out.push_back(c.cls + " " + (c.old_path.empty() ? "" : c.old_path + "->") + c.path +
                  (c.breaks ? " !" : ""));
  }
  return out;
}

TEST(ContractDiffTest, RenameByIdIsARenameAndBreaksForward) {
  std::string v2 = kV1;
  v2.replace(v2.find("name: cust_id"), 13, "name: customer_id");
  Contract a = Make("1.0.0", "gold", kV1);
  Contract b = Make("1.1.0", "gold", v2);
  auto d = DiffContracts(a, b);
  ASSERT_TRUE(d) << d.error().ToString();
  EXPECT_EQ(d->mode, CompatMode::kFullTransitive);
  EXPECT_THAT(Classes(*d),
              ::testing::ElementsAre("COLUMN_RENAMED cust_id->customer_id !"));
  EXPECT_FALSE(d->compatible);
  EXPECT_TRUE(d->fails);
  ASSERT_EQ(d->problems.size(), 1u);
  EXPECT_THAT(d->problems[0], HasSubstr("1 breaking change under FULL_TRANSITIVE without "
                                        "a major version bump (1.0.0 -> 1.1.0)"));
  ASSERT_FALSE(d->migration.empty());
  EXPECT_THAT(d->migration[0], HasSubstr("add 'customer_id' beside 'cust_id'"));
  EXPECT_THAT(d->migration[0], HasSubstr("orders_v2"));
  // with a major bump it is accepted (still breaking, announced)
  Contract c = Make("2.0.0", "gold", v2);
  auto ok = DiffContracts(a, c);
  ASSERT_TRUE(ok);
  EXPECT_TRUE(ok->major_bump);
  EXPECT_FALSE(ok->compatible);
  EXPECT_FALSE(ok->fails);
  EXPECT_THAT(ContractDiffText(*ok),
              HasSubstr("result: breaking, with a major version bump"));
  // BACKWARD (silver's plain mode) lets a rename through
  auto silver = DiffContracts(a, b, CompatMode::kBackward);
  ASSERT_TRUE(silver);
  EXPECT_TRUE(silver->compatible);
  EXPECT_FALSE(silver->fails);
}

TEST(ContractDiffTest, RenameByAliasWithoutIds) {
  Contract a = Make("1.0.0", "silver", "      - {name: cust_id, physicalType: string}\n");
  Contract b = Make("1.0.1", "silver",
                    "      - name: customer_id\n        physicalType: string\n"
                    "        customProperties:\n"
                    "          - {property: aliases, value: [cust_id]}\n");
  auto d = DiffContracts(a, b);
  ASSERT_TRUE(d);
  EXPECT_THAT(Classes(*d), ::testing::ElementsAre("COLUMN_RENAMED cust_id->customer_id"));
  // without the alias it is a removal plus an addition, with drift's suspicion beside
  // them (a hint to add the alias; heuristic, so it breaks nothing)
  Contract c =
      Make("1.0.1", "silver", "      - {name: customer_id, physicalType: string}\n");
  auto e = DiffContracts(a, c);
  ASSERT_TRUE(e);
  EXPECT_THAT(Classes(*e),
              ::testing::ElementsAre("COLUMN_ADDED_NULLABLE customer_id",
                                     "COLUMN_REMOVED cust_id",
                                     "COLUMN_RENAME_SUSPECTED cust_id->customer_id"));
}

TEST(ContractDiffTest, ContractOnlyChanges) {
  std::string v2 = kV1;
  v2.replace(v2.find("{minimum: 0}"), 12, "{minimum: 1}");
  v2.replace(v2.find("[pending, shipped]"), 18, "[pending, shipped, PARTIALLY_SHIPPED]");
  v2.replace(v2.find("name: order_id, physicalType: bigint, required: true"), 52,
             "name: order_id, physicalType: bigint, required: true, unique: true");
  Contract a = Make("1.0.0", "silver", kV1);
  Contract b = Make("1.1.0", "silver", v2,
                    "      - {id: rows, metric: rowCount, mustBeGreaterThan: 0}\n");
  auto d = DiffContracts(a, b, CompatMode::kFull);
  ASSERT_TRUE(d) << d.error().ToString();
  EXPECT_THAT(Classes(*d), ::testing::UnorderedElementsAre(
                               "KEY_CHANGED order_id !", "CONSTRAINT_TIGHTENED amount !",
                               "ENUM_VALUE_ADDED status !", "QUALITY_RULE_ADDED rows"));
  for (const auto& c : d->changes) {
    if (c.cls == "ENUM_VALUE_ADDED") {
      EXPECT_EQ(c.after, "PARTIALLY_SHIPPED");
      EXPECT_EQ(c.forward, Compat::kBreak);
      EXPECT_EQ(c.backward, Compat::kOk);
    }
    if (c.cls == "CONSTRAINT_TIGHTENED") {
      EXPECT_EQ(c.before, "minimum 0");
      EXPECT_EQ(c.after, "minimum 1");
    }
  }
  EXPECT_TRUE(d->fails);
  std::string json = ContractDiffJson(*d);
  EXPECT_THAT(json, HasSubstr(R"("class":"ENUM_VALUE_ADDED")"));
  EXPECT_THAT(json, HasSubstr(R"("fails":true)"));
  EXPECT_THAT(ContractDiffJunit(*d), HasSubstr("<failure"));
  EXPECT_THAT(ContractDiffGithub(*d), HasSubstr("::error title=contract diff::"));
}

TEST(ContractDiffTest, VersionRules) {
  Contract a = Make("1.2.0", "silver", kV1);
  Contract same = Make("1.2.0", "silver", kV1);
  auto none = DiffContracts(a, same);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->changes.empty());
  EXPECT_FALSE(none->fails);
  EXPECT_THAT(ContractDiffText(*none), HasSubstr("no changes"));
  std::string v2 =
      std::string(kV1) + "      - {id: ch, name: channel, physicalType: string}\n";
  Contract unchanged_version = Make("1.2.0", "silver", v2);
  auto note = DiffContracts(a, unchanged_version);
  ASSERT_TRUE(note);
  EXPECT_FALSE(note->fails);
  ASSERT_EQ(note->notes.size(), 1u);
  EXPECT_THAT(note->notes[0], HasSubstr("its version did not"));
  Contract older = Make("1.1.9", "silver", kV1);
  auto back = DiffContracts(a, older);
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->fails);
  EXPECT_THAT(back->problems[0], HasSubstr("the version went backwards"));
  // a removed required column breaks FORWARD: refused under gold without a major bump
  std::string dropped = kV1;
  dropped.erase(dropped.find("      - {id: cust"),
                dropped.find("      - {id: amt") - dropped.find("      - {id: cust"));
  auto gold = DiffContracts(Make("1.0.0", "gold", kV1), Make("1.1.0", "gold", dropped));
  ASSERT_TRUE(gold);
  EXPECT_THAT(Classes(*gold), ::testing::ElementsAre("COLUMN_REMOVED cust_id !"));
  EXPECT_TRUE(gold->fails);
  EXPECT_THAT(gold->migration[0], HasSubstr("keep 'cust_id' beside its replacement"));
}

}  // namespace
}  // namespace deltaguard
