// Writes under a contract (write/contract_write.h) and contract apply
// (table/contract_apply.h): projection, aliases, casts and their policies, the contract
// a table carries, and apply's constraints across contract versions. The CLI and Spark
// sides are in test/cli/test_contract.py and test_interop_spark_contract.py.

#include "deltaguard/write/contract_write.h"

#include <arrow/api.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/constraints/constraints.h"
#include "deltaguard/contract/parse.h"
#include "deltaguard/table/contract_apply.h"
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

std::string ContractText(const std::string& version, const std::string& settings,
                         const std::string& values = "[a, b]") {
  return "apiVersion: v3.1.0\nkind: DataContract\nid: t\nname: t\nversion: " + version +
         "\nstatus: active\nschema:\n  - name: t\n    properties:\n"
         "      - {id: k, name: id, physicalType: bigint, required: true}\n"
         "      - name: customer_id\n        physicalType: string\n"
         "        customProperties:\n          - {property: aliases, value: [cust_id]}\n"
         "      - {id: a, name: amount, physicalType: 'decimal(10,2)', "
         "logicalTypeOptions: {minimum: 0}}\n"
         "      - id: c\n        name: code\n        physicalType: string\n"
         "        quality:\n          - {id: codes, metric: invalidValues, arguments: "
         "{validValues: " +
         values +
         "}, mustBe: 0}\n"
         "customProperties:\n" +
         settings;
}

std::shared_ptr<const Contract> Load(const std::string& text) {
  auto c = LoadContractText(text, "t.odcs.yaml");
  EXPECT_TRUE(c) << c.error().ToString();
  return std::make_shared<const Contract>(c ? *c : Contract{});
}

Result<WriteResult> Write(const std::string& root, const std::string& ddl,
                          const std::string& json, std::shared_ptr<const Contract> c) {
  std::vector<BatchSource> sources;
  sources.push_back(testing::JsonSource(ddl, json));
  WriteOptions options;
  options.contract = std::move(c);
  return WriteTable(MakeLocalFileSystem(), root, std::move(sources), options);
}

TEST(ContractWriteTest, ProjectsAliasesCastsAndReportsIgnoredColumns) {
  TempDir dir;
  const std::string root = dir.Join("t");
  auto contract =
      Load(ContractText("1.0.0", "  - {property: medallionLayer, value: silver}\n"));
  auto r =
      Write(root, "extra STRING, AMOUNT INT, cust_id STRING, id INT, code STRING",
            R"([{"extra": "x", "AMOUNT": 5, "cust_id": "c1", "id": 1, "code": "a"}])",
            contract);
  ASSERT_TRUE(r) << r.error().ToString();
  ASSERT_TRUE(r->contract);
  EXPECT_THAT(r->contract->ignored_columns, ElementsAre("extra"));
  EXPECT_THAT(r->contract->renamed, ElementsAre("cust_id -> customer_id (alias)"));
  EXPECT_THAT(r->contract->cast_columns,
              ElementsAre("id: integer -> long", "amount: integer -> decimal(10,2)"));
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_THAT(r->warnings[0], HasSubstr("new upstream column ignored"));
  EXPECT_THAT(testing::Dump(root),
              ElementsAre("id,customer_id,amount,code", "1|c1|5.00|a"));
  EXPECT_THAT(testing::CommitInfo(root, 0), HasSubstr(R"("contract":"t 1.0.0")"));
}

TEST(ContractWriteTest, RefusesMissingRequiredNullsAndLostDigits) {
  TempDir dir;
  const std::string root = dir.Join("t");
  auto contract =
      Load(ContractText("1.0.0", "  - {property: medallionLayer, value: gold}\n"));
  auto missing = Write(root, "amount DOUBLE", R"([{"amount": 1.0}])", contract);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(missing.error().message, HasSubstr("required column 'id' is missing"));
  EXPECT_THAT(missing.error().message, HasSubstr("COLUMN_REMOVED id"));
  auto nulls = Write(root, "id BIGINT", R"([{"id": null}])", contract);
  ASSERT_FALSE(nulls);
  EXPECT_EQ(nulls.error().code, ErrorCode::kConstraintViolation);
  EXPECT_THAT(nulls.error().message, HasSubstr("required column 'id' holds 1 NULL"));
  auto digits = Write(root, "id BIGINT, amount DOUBLE", R"([{"id": 1, "amount": 1.234}])",
                      contract);
  ASSERT_FALSE(digits);
  EXPECT_THAT(digits.error().message, HasSubstr("would lose digits in 1 value"));
  auto text = Write(root, "id BIGINT, amount STRING", R"([{"id": 1, "amount": "abc"}])",
                    contract);
  ASSERT_FALSE(text);
  EXPECT_THAT(text.error().message,
              HasSubstr("casting 'amount' (string -> decimal(10,2))"));
  EXPECT_FALSE(OpenSnapshot(root));  // nothing was ever committed
}

TEST(ContractWriteTest, RowRulesAreNamedAndRefuseTheWrite) {
  auto contract =
      Load(ContractText("1.0.0", "  - {property: medallionLayer, value: silver}\n"));
  auto rules = ContractRowConstraints(*contract, contract->schema[0]);
  std::vector<std::string> described;
  for (const auto& c : rules) described.push_back(c.Describe() + ": " + c.expression);
  EXPECT_THAT(described,
              ElementsAre("contract rule id.required (t 1.0.0): id IS NOT NULL",
                          "contract rule amount.minimum (t 1.0.0): amount IS NULL OR "
                          "amount >= 0",
                          "contract rule codes (t 1.0.0): code IS NULL OR (CAST(code AS "
                          "STRING) IN ('a', 'b'))"));
  EXPECT_EQ(ContractRowConstraints(*contract, contract->schema[0], false).size(), 2u);

  TempDir dir;
  const std::string root = dir.Join("t");
  auto bad = Write(root, "id BIGINT, code STRING",
                   R"([{"id": 1, "code": "a"}, {"id": 2, "code": "z"}])", contract);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kConstraintViolation);
  EXPECT_THAT(bad.error().message,
              HasSubstr("contract rule codes (t 1.0.0) (code IS NULL OR (CAST(code AS "
                        "STRING) IN ('a', 'b'))) violated by 1 row, e.g. {code: \"z\"}"));
  EXPECT_FALSE(OpenSnapshot(root));
}

TEST(ContractWriteTest, KeepUndeclaredAppendsTheOtherInputColumns) {
  auto contract =
      Load(ContractText("1.0.0", "  - {property: medallionLayer, value: silver}\n"));
  auto report = std::make_shared<ContractWriteReport>();
  auto conformed = ConformToContract(
      testing::JsonSource("op STRING, cust_id STRING, id INT",
                          R"([{"op": "D", "cust_id": "c", "id": 7}])"),
      *contract, contract->schema[0], report, {.keep_undeclared = true});
  ASSERT_TRUE(conformed) << conformed.error().ToString();
  EXPECT_EQ(conformed->delta_schema->ToString(),
            "struct<id: long, customer_id: string, amount: decimal(10,2), code: string, "
            "op: string>");
  EXPECT_THAT(report->ignored_columns, ElementsAre("op"));
  auto reader = conformed->open();
  ASSERT_TRUE(reader);
  std::shared_ptr<arrow::RecordBatch> batch;
  ASSERT_TRUE((*reader)->ReadNext(&batch).ok());
  ASSERT_NE(batch, nullptr);
  EXPECT_EQ(batch->num_columns(), 5);
  EXPECT_EQ(batch->column(4)->ToString(), "[\n  \"D\"\n]");
}

TEST(ContractWriteTest, TryPolicyCountsNullsAgainstTheThreshold) {
  TempDir dir;
  const std::string root = dir.Join("t");
  auto contract = Load(ContractText("1.0.0",
                                    "  - {property: castPolicy, value: try}\n"
                                    "  - {property: maxCastNulls, value: 1}\n"));
  auto one = Write(root, "id BIGINT, amount STRING",
                   R"([{"id": 1, "amount": "1.5"}, {"id": 2, "amount": "x"}])", contract);
  ASSERT_TRUE(one) << one.error().ToString();
  EXPECT_THAT(one->contract->cast_nulls,
              ElementsAre(std::pair<std::string, int64_t>{"amount", 1}));
  auto two = Write(root, "id BIGINT, amount STRING",
                   R"([{"id": 3, "amount": "y"}, {"id": 4, "amount": "z"}])", contract);
  ASSERT_FALSE(two);
  EXPECT_THAT(two.error().message, HasSubstr("turned 2 values into NULL"));
}

TEST(ContractWriteTest, ApplyRecordsTheContractAndLaterWritesFollowIt) {
  TempDir dir;
  const std::string root = dir.Join("t");
  testing::MakeTable(
      root, "id BIGINT, customer_id STRING, amount DECIMAL(10,2), code STRING",
      {R"([{"id": 1, "customer_id": "c", "amount": "1.00", "code": "a"}])"});
  std::string v1 =
      ContractText("1.0.0", "  - {property: medallionLayer, value: silver}\n");
  auto c1 = Load(v1);
  auto applied = ApplyContract(MakeLocalFileSystem(), root, *c1, c1->schema[0], v1);
  ASSERT_TRUE(applied) << applied.error().ToString();
  SnapshotRef snap = testing::OpenTable(root);
  EXPECT_FALSE(snap->schema()->field(0).nullable);
  EXPECT_TRUE(FindCheckConstraint(snap->metadata(), "contract_codes"));
  EXPECT_TRUE(FindCheckConstraint(snap->metadata(), "contract_amount_minimum"));
  EXPECT_EQ(snap->metadata().GetConfig(kContractVersionProperty), "1.0.0");
  // applying the same version again changes nothing but the record
  auto again = ApplyContract(MakeLocalFileSystem(), root, *c1, c1->schema[0], v1);
  ASSERT_TRUE(again);
  EXPECT_THAT(again->changes, ElementsAre("contract t 1.0.0 recorded"));
  // a write without a contract follows the carried one
  auto w = Write(root, "id BIGINT, cust_id STRING, amount DOUBLE, code STRING, x INT",
                 R"([{"id": 2, "cust_id": "d", "amount": 2.5, "code": "b", "x": 1}])",
                 nullptr);
  ASSERT_TRUE(w) << w.error().ToString();
  ASSERT_TRUE(w->contract);
  EXPECT_EQ(w->contract->version, "1.0.0");
  // v2 widens the accepted values (compatible under BACKWARD_TRANSITIVE: writes may use
  // it before it is applied); applying it replaces the constraint
  std::string v2 = ContractText(
      "1.1.0", "  - {property: medallionLayer, value: silver}\n", "[a, b, z]");
  auto c2 = Load(v2);
  auto under_v2 = Write(root, "id BIGINT, customer_id STRING, code STRING",
                        R"([{"id": 3, "customer_id": "e", "code": "a"}])", c2);
  ASSERT_TRUE(under_v2) << under_v2.error().ToString();
  auto applied2 = ApplyContract(MakeLocalFileSystem(), root, *c2, c2->schema[0], v2);
  ASSERT_TRUE(applied2) << applied2.error().ToString();
  auto codes =
      FindCheckConstraint(testing::OpenTable(root)->metadata(), "contract_codes");
  ASSERT_TRUE(codes);
  EXPECT_THAT(codes->expression, HasSubstr("'z'"));
  // v3 narrows them: incompatible, refused for writes until applied
  std::string v3 =
      ContractText("2.0.0", "  - {property: medallionLayer, value: silver}\n", "[a]");
  auto refused = Write(root, "id BIGINT, customer_id STRING, code STRING",
                       R"([{"id": 4, "customer_id": "f", "code": "a"}])", Load(v3));
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message, HasSubstr("writing under t 2.0.0 is refused"));
  EXPECT_THAT(refused.error().message, HasSubstr("ENUM_VALUE_REMOVED"));
}

}  // namespace
}  // namespace deltaguard
