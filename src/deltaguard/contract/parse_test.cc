// ParseContract / LintContract (contract/parse.h, lint.h): the ODCS subset, our
// customProperties, and every kind of bad input as a diagnostic with file, line and key.

#include "deltaguard/contract/parse.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "deltaguard/contract/lint.h"
#include "deltaguard/contract/yaml_reader.h"

namespace deltaguard {
namespace {

using ::testing::HasSubstr;

const char* kSilver = R"(apiVersion: v3.1.0
kind: DataContract
id: orders-silver
name: orders_silver
version: 1.0.0
status: active
schema:
  - id: orders_obj
    name: orders
    physicalType: table
    quality:
      - {id: rows, metric: rowCount, mustBeGreaterThan: 0}
      - id: pk
        metric: duplicateValues
        arguments: {properties: [order_id]}
        mustBe: 0
    properties:
      - id: order_id_prop
        name: order_id
        logicalType: integer
        physicalType: bigint
        required: true
        primaryKey: true
        primaryKeyPosition: 1
      - id: cust_prop
        name: cust_id
        logicalType: string
        physicalType: string
        required: true
        description: the customer
      - id: amount_prop
        name: amount
        logicalType: number
        physicalType: decimal(18,2)
        logicalTypeOptions: {minimum: 0}
        quality:
          - {id: amount_nulls, metric: nullValues, unit: percent, mustBeLessThan: 1, severity: warning}
      - id: status_prop
        name: status
        logicalType: string
        quality:
          - id: status_values
            metric: invalidValues
            arguments: {validValues: [pending, shipped]}
            mustBe: 0
      - id: ts_prop
        name: order_ts
        logicalType: timestamp
customProperties:
  - {property: medallionLayer, value: silver}
  - {property: castPolicy, value: try}
  - {property: maxCastNulls, value: 3}
)";

ContractParse Parse(std::string_view text) {
  auto p = ParseContract(text, "c.odcs.yaml");
  EXPECT_TRUE(p) << p.error().ToString();
  return p ? std::move(*p) : ContractParse{};
}

std::vector<std::string> Messages(const ContractParse& p) {
  std::vector<std::string> out;
  for (const auto& d : p.diagnostics) out.push_back(d.ToString());
  for (const auto& d : LintContract(p.contract)) out.push_back(d.ToString());
  return out;
}

TEST(ContractParseTest, ReadsTheSubsetAndOurSettings) {
  ContractParse p = Parse(kSilver);
  EXPECT_THAT(Messages(p), ::testing::IsEmpty());
  const Contract& c = p.contract;
  EXPECT_EQ(c.id, "orders-silver");
  EXPECT_EQ(c.version, "1.0.0");
  EXPECT_EQ(c.layer, MedallionLayer::kSilver);
  EXPECT_EQ(EffectiveCompatibility(c), CompatMode::kBackwardTransitive);
  EXPECT_EQ(c.cast_policy, CastPolicy::kTry);
  EXPECT_EQ(c.max_cast_nulls, 3);
  EXPECT_EQ(c.hash.size(), 32u);
  ASSERT_EQ(c.schema.size(), 1u);
  const ContractObject& o = c.schema[0];
  ASSERT_EQ(o.properties.size(), 5u);
  EXPECT_EQ(o.properties[0].type->ToString(), "long");
  EXPECT_TRUE(o.properties[0].required && o.properties[0].primary_key);
  EXPECT_EQ(o.properties[2].type->ToString(), "decimal(18,2)");
  EXPECT_EQ(o.properties[2].minimum, "0");
  EXPECT_EQ(o.properties[3].type->ToString(), "string");  // from logicalType
  EXPECT_EQ(o.properties[4].type->ToString(), "timestamp");
  ASSERT_EQ(o.quality.size(), 2u);
  EXPECT_EQ(o.quality[1].properties, std::vector<std::string>{"order_id"});
  const QualityRule& nulls = o.properties[2].quality[0];
  EXPECT_EQ(nulls.property, "amount");
  EXPECT_EQ(nulls.unit, "percent");
  EXPECT_EQ(nulls.severity, "warning");
  EXPECT_TRUE(nulls.Passes(0.5));
  EXPECT_FALSE(nulls.Passes(1.0));
  EXPECT_EQ(o.properties[3].quality[0].valid_values,
            (std::vector<std::string>{"pending", "shipped"}));
  auto obj = c.Object();
  ASSERT_TRUE(obj);
  EXPECT_EQ((*obj)->name, "orders");
  EXPECT_FALSE(c.Object("nope"));
  // the same text hashes the same, another text differently
  EXPECT_EQ(Parse(kSilver).contract.hash, c.hash);
  EXPECT_NE(Parse(std::string(kSilver) + "\n# x\n").contract.hash, c.hash);
}

TEST(ContractParseTest, EveryProblemIsADiagnosticWithLineAndKey) {
  std::string bad = R"(apiVersion: v9
kind: Contract
id: x
version: one
status: active
owner: me
schema:
  - name: t
    properties:
      - id: a
        name: a
        physicalType: varchr(2)
      - id: a
        name: b
        logicalType: integer
        physicalType: string
      - name: B
        logicalType: string
        logicalTypeOptions: {enum: [x], minimum: 3}
        quality:
          - {metric: nullValues}
          - {metric: rowCount, mustBe: 1}
          - {metric: frobnicate, mustBe: 0}
          - {metric: invalidValues, mustBe: 0}
          - {type: sql, query: "DELETE FROM {object}", mustBe: 0}
          - {type: sql, query: "SELEC x", mustBe: 0}
customProperties:
  - {property: medallionLayer, value: platinum}
  - {property: compatibility, value: SIDEWAYS}
)";
  ContractParse p = Parse(bad);
  std::string all;
  for (const auto& m : Messages(p)) all += m + "\n";
  EXPECT_THAT(
      all, HasSubstr("c.odcs.yaml:1:13: error: apiVersion: unsupported apiVersion 'v9'"));
  EXPECT_THAT(all, HasSubstr("error: kind: kind must be DataContract"));
  EXPECT_THAT(all, HasSubstr("c.odcs.yaml:6:8: warning: owner: unknown key 'owner'"));
  EXPECT_THAT(all, HasSubstr(":12:23: error: schema[0].properties[0].physicalType: "
                             "physicalType 'varchr(2)' is not a Delta type"));
  EXPECT_THAT(all, HasSubstr("logicalTypeOptions has no 'enum' in ODCS"));
  EXPECT_THAT(all, HasSubstr("unknown medallion layer 'platinum'"));
  EXPECT_THAT(all, HasSubstr("unknown compatibility mode 'SIDEWAYS'"));
  EXPECT_TRUE(p.HasErrors());
  // the lint half (on a contract that parses)
  std::string lintable = R"(apiVersion: v3.1.0
kind: DataContract
id: x
version: one
status: active
schema:
  - name: t
    quality:
      - {metric: duplicateValues, arguments: {properties: [zz]}, mustBe: 0}
      - {metric: nullValues, mustBe: 0}
    properties:
      - {id: a, name: a, logicalType: integer, physicalType: bigint}
      - {id: a, name: b, logicalType: integer, physicalType: string}
      - name: A
        logicalType: string
        logicalTypeOptions: {minimum: 3, minLength: 5, maxLength: 2}
        quality:
          - {metric: rowCount, mustBe: 1}
          - {metric: frobnicate, mustBe: 0}
          - {metric: invalidValues, mustBe: 0}
          - {metric: nullValues}
          - {type: sql, query: "DELETE FROM {object}", mustBe: 0}
          - {type: sql, query: "SELEC x", mustBe: 0}
)";
  ContractParse q = Parse(lintable);
  EXPECT_FALSE(q.HasErrors()) << (q.diagnostics.empty() ? ""
                                                        : q.diagnostics[0].ToString());
  std::string lint;
  for (const auto& d : LintContract(q.contract)) lint += d.ToString() + "\n";
  EXPECT_THAT(lint, HasSubstr("version: version 'one' is not a semantic version"));
  EXPECT_THAT(lint, HasSubstr("duplicate id 'a' (first used at line 12)"));
  EXPECT_THAT(lint,
              HasSubstr("logicalType 'integer' does not match physicalType 'string'"));
  EXPECT_THAT(lint, HasSubstr("property 'A' is declared twice"));
  EXPECT_THAT(lint, HasSubstr("minimum and maximum apply to numbers"));
  EXPECT_THAT(lint, HasSubstr("minLength 5 is greater than maxLength 2"));
  EXPECT_THAT(lint, HasSubstr("'zz' is not a property of 't'"));
  EXPECT_THAT(lint, HasSubstr("nullValues is a property-level metric"));
  EXPECT_THAT(lint, HasSubstr("rowCount is an object-level metric"));
  EXPECT_THAT(lint, HasSubstr("unknown metric 'frobnicate'"));
  EXPECT_THAT(lint, HasSubstr("invalidValues needs arguments.validValues"));
  EXPECT_THAT(lint, HasSubstr("the rule has no comparison"));
  EXPECT_THAT(lint, HasSubstr("a sql rule is one read-only SELECT"));
  EXPECT_THAT(lint, HasSubstr("the query does not parse"));
}

TEST(ContractParseTest, MalformedYamlAndHostileInputFailCleanly) {
  auto broken = ParseContract("a: [1, 2\nb: c", "x.yaml");
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().code, ErrorCode::kParseError);
  EXPECT_THAT(broken.error().message, HasSubstr("x.yaml:"));
  EXPECT_THAT(broken.error().message, HasSubstr("malformed YAML"));
  auto twice = ParseContract("a: 1\na: 2\n", "x.yaml");
  ASSERT_FALSE(twice);
  EXPECT_THAT(twice.error().message, HasSubstr("x.yaml:2:1: key 'a' appears twice"));
  auto docs = ParseContract("a: 1\n---\nb: 2\n", "x.yaml");
  ASSERT_FALSE(docs);
  EXPECT_THAT(docs.error().message, HasSubstr("more than one YAML document"));
  // a leading document marker is one document
  EXPECT_TRUE(ParseContract("# c\n---\napiVersion: v3.1.0\n", "x.yaml"));
  // a stray ',' (yaml-cpp's LoadAll never returns on it) is a parse, not a hang
  auto comma = ParseContract(",rip\n", "x.yaml");
  ASSERT_TRUE(comma);
  EXPECT_TRUE(comma->HasErrors());
  // nesting and alias expansion are bounded
  std::string deep(500, '[');
  auto nested = ParseYaml(deep + std::string(500, ']'), "deep.yaml");
  ASSERT_FALSE(nested);
  std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'j'; ++c, ++prev) {
    laughs +=
        fmt::format("{}: &{} [*{}, *{}, *{}, *{}, *{}, *{}, *{}, *{}, *{}, *{}]\n", c, c,
                    prev, prev, prev, prev, prev, prev, prev, prev, prev, prev);
  }
  auto bomb = ParseYaml(laughs, "bomb.yaml");
  ASSERT_FALSE(bomb);
  EXPECT_THAT(bomb.error().message, HasSubstr("more than 1000000 nodes"));
  // not text: invalid UTF-8 and control characters, with line and column
  auto binary = ParseContract("id: x\nname: \xff\xfe\n", "bin.yaml");
  ASSERT_FALSE(binary);
  EXPECT_EQ(binary.error().code, ErrorCode::kParseError);
  EXPECT_THAT(binary.error().message,
              HasSubstr("bin.yaml:2:7: a byte that is not UTF-8 (0xff)"));
  auto control = ParseContract("id: x\x01\n", "c.yaml");
  ASSERT_FALSE(control);
  EXPECT_THAT(control.error().message,
              HasSubstr("c.yaml:1:6: a control character (0x01)"));
  // not a mapping, an empty file
  ContractParse list = Parse("- 1\n- 2\n");
  ASSERT_TRUE(list.HasErrors());
  EXPECT_THAT(list.diagnostics[0].message, HasSubstr("a contract is a YAML mapping"));
  ContractParse empty = Parse("");
  EXPECT_TRUE(empty.HasErrors());
  auto loaded = LoadContractText("", "empty.yaml");
  ASSERT_FALSE(loaded);
  EXPECT_THAT(loaded.error().message, HasSubstr("contract empty.yaml is not valid"));
}

TEST(ContractParseTest, SemVer) {
  auto v = ParseSemVer("v2.10.3-rc.1");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->major, 2);
  EXPECT_EQ(v->minor, 10);
  EXPECT_EQ(v->patch, 3);
  EXPECT_FALSE(ParseSemVer("1.2"));
  EXPECT_FALSE(ParseSemVer("1.2.x"));
  EXPECT_FALSE(ParseSemVer("1.2.3.4"));
  EXPECT_FALSE(ParseSemVer(""));
}

// The ODCS examples of the shared reference notes lint clean (read in place; without
// ../shared the test says why it did not run).
TEST(ContractParseTest, ReferenceExamplesLintClean) {
  const char* root = std::getenv("DELTAGUARD_CORPORA");
  std::string path =
      std::string(root ? root : "../shared/corpora") + "/../reference/ecosystem.md";
  std::ifstream in(path);
  if (!in) GTEST_SKIP() << "no shared reference notes at " << path;
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  std::regex block("```yaml\n([\\s\\S]*?)```");
  int checked = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), block), end; it != end; ++it) {
    std::string yaml = (*it)[1];
    if (yaml.find("kind: DataContract") == std::string::npos) continue;
    std::vector<ContractDiagnostic> warnings;
    auto c = LoadContractText(yaml, "ecosystem.md example");
    EXPECT_TRUE(c) << c.error().ToString();
    ++checked;
  }
  EXPECT_GE(checked, 1);
}

}  // namespace
}  // namespace deltaguard
