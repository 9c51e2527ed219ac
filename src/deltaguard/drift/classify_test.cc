// ClassifyDrift (classify.h): every change class, flat and nested, and the seed
// scenarios of docs/drift.md (a new column, a column no longer sent, a rename with and
// without column mapping, widenings, incompatible changes, a reordered positional
// input).

#include "deltaguard/drift/classify.h"

#include <gtest/gtest.h>

#include "deltaguard/schema/ddl.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

DriftSide Side(std::string_view ddl) {
  auto schema = ParseDdlSchema(ddl);
  EXPECT_TRUE(schema) << (schema ? "" : schema.error().message);
  DriftSide side;
  side.schema = schema ? *schema : nullptr;
  return side;
}

// "CLASS path: before -> after" per change, for compact expectations.
std::vector<std::string> Lines(const std::vector<DriftChange>& changes) {
  std::vector<std::string> out;
  for (const auto& c : changes) {
    std::string what = c.old_path.empty() ? c.path : c.old_path + " -> " + c.path;
    out.push_back(
        fmt::format("{} {}: {} -> {}", ChangeClassName(c.cls), what, c.before, c.after));
  }
  return out;
}

std::vector<std::string> Classify(std::string_view before, std::string_view after,
                                  const DriftEvidence& evidence = {}) {
  return Lines(ClassifyDrift(Side(before), Side(after), evidence));
}

using L = std::vector<std::string>;

TEST(ClassifyDriftTest, NoChange) {
  EXPECT_EQ(Classify("id INT, s STRUCT<a: INT>", "id INT, s STRUCT<a: INT>"), L{});
}

TEST(ClassifyDriftTest, SeedNewChannelColumn) {
  auto changes = ClassifyDrift(Side("id INT, amount DOUBLE"),
                               Side("id INT, amount DOUBLE, channel STRING"));
  EXPECT_EQ(Lines(changes), L{"COLUMN_ADDED_NULLABLE channel:  -> string"});
  EXPECT_EQ(changes[0].risk, Risk::kLow);
  EXPECT_EQ(changes[0].backward, Compat::kOk);
  EXPECT_EQ(changes[0].forward, Compat::kOk);
  EXPECT_NE(changes[0].info().option.find("mergeSchema"), std::string::npos);
}

TEST(ClassifyDriftTest, AddedNotNull) {
  auto changes = ClassifyDrift(Side("id INT"), Side("id INT, code STRING NOT NULL"));
  EXPECT_EQ(Lines(changes), L{"COLUMN_ADDED_NOT_NULL code:  -> string not null"});
  EXPECT_EQ(changes[0].risk, Risk::kHigh);
  EXPECT_EQ(changes[0].backward, Compat::kBreak);
  // Data inputs: their nullability says nothing, so the column counts as nullable.
  DriftEvidence data;
  data.ignore_new_nullability = true;
  EXPECT_EQ(Classify("id INT", "id INT, code STRING NOT NULL", data),
            L{"COLUMN_ADDED_NULLABLE code:  -> string"});
}

TEST(ClassifyDriftTest, SeedDiscountNoLongerSent) {
  auto changes = ClassifyDrift(Side("id INT, discount DOUBLE"), Side("id INT"));
  EXPECT_EQ(Lines(changes), L{"COLUMN_REMOVED discount: double -> "});
  EXPECT_EQ(changes[0].risk, Risk::kHigh);
  EXPECT_EQ(changes[0].forward, Compat::kOk);  // nullable: old readers see NULL
  auto required = ClassifyDrift(Side("id INT, discount DOUBLE NOT NULL"), Side("id INT"));
  EXPECT_EQ(required[0].forward, Compat::kBreak);
}

TEST(ClassifyDriftTest, SeedRenameSuspectedWithoutColumnMapping) {
  auto changes = ClassifyDrift(Side("cust_id BIGINT, amount DOUBLE"),
                               Side("customer_id BIGINT, amount DOUBLE"));
  EXPECT_EQ(Lines(changes), (L{"COLUMN_ADDED_NULLABLE customer_id:  -> long",
                               "COLUMN_REMOVED cust_id: long -> ",
                               "COLUMN_RENAME_SUSPECTED cust_id -> customer_id: long -> "
                               "long"}));
  const DriftChange& s = changes[2];
  ASSERT_TRUE(s.score);
  // name 1.0 (cust abbreviates customer, id = id), same position: 0.6 + 0.25.
  EXPECT_DOUBLE_EQ(*s.score, 0.85);
  EXPECT_EQ(s.evidence, "name similarity 1.00; position 1 -> 1");
  EXPECT_EQ(s.backward, Compat::kNotJudged);
  EXPECT_TRUE(s.info().heuristic);
}

TEST(ClassifyDriftTest, RenameSuspicionUsesValueOverlap) {
  DriftEvidence evidence;
  evidence.before.push_back({"cust_id", 0, 100, "1", "100", {}});
  evidence.after.push_back({"customer_id", 0, 50, "51", "150", {}});
  auto changes =
      ClassifyDrift(Side("cust_id BIGINT"), Side("customer_id BIGINT"), evidence);
  ASSERT_EQ(changes.size(), 3u);
  // ranges [1,100] and [51,150]: overlap 49 / 149.
  double overlap = 49.0 / 149.0;
  EXPECT_NEAR(*changes[2].score, 0.45 + 0.15 + 0.4 * overlap, 1e-9);
  EXPECT_NE(changes[2].evidence.find("value ranges [1, 100] and [51, 150] overlap 0.33"),
            std::string::npos);
  // Samples win over ranges when both sides have them.
  evidence.before[0].samples = {"1", "2", "3"};
  evidence.after[0].samples = {"2", "3", "9", "9"};
  changes = ClassifyDrift(Side("cust_id BIGINT"), Side("customer_id BIGINT"), evidence);
  EXPECT_NEAR(*changes[2].score, 0.45 + 0.15 + 0.4 * (2.0 / 3.0), 1e-9);
}

TEST(ClassifyDriftTest, NoSuspicionForUnrelatedOrIncompatible) {
  EXPECT_EQ(Classify("discount DOUBLE", "channel STRING"),
            (L{"COLUMN_ADDED_NULLABLE channel:  -> string",
               "COLUMN_REMOVED discount: double -> "}));
  // Similar names but string vs int: not a rename.
  EXPECT_EQ(Classify("cust_id STRING", "customer_id INT"),
            (L{"COLUMN_ADDED_NULLABLE customer_id:  -> integer",
               "COLUMN_REMOVED cust_id: string -> "}));
}

DriftSide MappedSide(const std::vector<std::pair<std::string, int>>& fields) {
  std::string json = R"({"type":"struct","fields":[)";
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) json += ",";
    json += fmt::format(
        R"({{"name":"{}","type":"long","nullable":true,"metadata":{{)"
        R"("delta.columnMapping.id":{},"delta.columnMapping.physicalName":"col-{}"}}}})",
        fields[i].first, fields[i].second, fields[i].second);
  }
  DriftSide side;
  side.schema = *ParseSchemaJson(json + "]}");
  side.column_mapping = true;
  return side;
}

TEST(ClassifyDriftTest, SeedRenameExactWithColumnMapping) {
  auto changes = ClassifyDrift(MappedSide({{"cust_id", 1}, {"amount", 2}}),
                               MappedSide({{"customer_id", 1}, {"amount", 2}}));
  EXPECT_EQ(Lines(changes), L{"COLUMN_RENAMED cust_id -> customer_id: cust_id -> "
                              "customer_id"});
  EXPECT_EQ(changes[0].backward, Compat::kOk);
  EXPECT_EQ(changes[0].forward, Compat::kBreak);
}

TEST(ClassifyDriftTest, CaseChanged) {
  auto changes = ClassifyDrift(Side("id INT, s STRUCT<Name: STRING>"),
                               Side("ID INT, s STRUCT<name: STRING>"));
  EXPECT_EQ(Lines(changes), (L{"COLUMN_CASE_CHANGED id -> ID: id -> ID",
                               "COLUMN_CASE_CHANGED s.Name -> s.name: Name -> name"}));
  EXPECT_EQ(changes[0].forward, Compat::kOk);
}

TEST(ClassifyDriftTest, SeedReorderedHeaderlessCsv) {
  EXPECT_EQ(Classify("a INT, b INT, c INT", "a INT, c INT, b INT"),
            L{"COLUMN_REORDERED b: position 2 -> position 3"});
  auto by_name = ClassifyDrift(Side("a INT, b INT"), Side("b INT, a INT"));
  EXPECT_EQ(by_name[0].risk, Risk::kLow);
  DriftEvidence positional;
  positional.positional = true;
  auto by_position =
      ClassifyDrift(Side("a INT, b INT"), Side("b INT, a INT"), positional);
  ASSERT_EQ(by_position.size(), 1u);
  EXPECT_EQ(by_position[0].risk, Risk::kHigh);
  EXPECT_FALSE(by_position[0].evidence.empty());
}

TEST(ClassifyDriftTest, SeedWidenings) {
  auto changes = ClassifyDrift(Side("qty INT, price DECIMAL(10,2)"),
                               Side("qty BIGINT, price DECIMAL(18,2)"));
  EXPECT_EQ(Lines(changes), (L{"TYPE_WIDENED qty: integer -> long",
                               "TYPE_WIDENED price: decimal(10,2) -> decimal(18,2)"}));
  EXPECT_EQ(changes[0].risk, Risk::kLow);
  EXPECT_EQ(changes[0].backward, Compat::kOk);
  EXPECT_EQ(changes[0].forward, Compat::kBreak);
  EXPECT_NE(changes[0].info().option.find("delta.enableTypeWidening"), std::string::npos);
  EXPECT_EQ(
      Classify("d DATE, f FLOAT", "d TIMESTAMP_NTZ, f DOUBLE"),
      (L{"TYPE_WIDENED d: date -> timestamp_ntz", "TYPE_WIDENED f: float -> double"}));
}

TEST(ClassifyDriftTest, Narrowed) {
  auto changes = ClassifyDrift(Side("qty BIGINT"), Side("qty INT"));
  EXPECT_EQ(Lines(changes), L{"TYPE_NARROWED qty: long -> integer"});
  EXPECT_EQ(changes[0].backward, Compat::kBreak);
  EXPECT_EQ(changes[0].forward, Compat::kOk);
}

TEST(ClassifyDriftTest, SeedIncompatibleTypes) {
  auto changes = ClassifyDrift(Side("zip STRING, amount DOUBLE"),
                               Side("zip INT, amount DECIMAL(10,2)"));
  EXPECT_EQ(Lines(changes),
            (L{"TYPE_CHANGED_INCOMPATIBLE zip: string -> integer",
               "TYPE_CHANGED_INCOMPATIBLE amount: double -> decimal(10,2)"}));
  EXPECT_EQ(changes[0].risk, Risk::kHigh);
  EXPECT_EQ(changes[0].backward, Compat::kBreak);
  EXPECT_EQ(changes[0].forward, Compat::kBreak);
}

TEST(ClassifyDriftTest, NestedTypesThroughArraysAndMaps) {
  EXPECT_EQ(Classify("l ARRAY<INT>, m MAP<STRING, INT>, s STRUCT<x: INT>",
                     "l ARRAY<BIGINT>, m MAP<STRING, STRING>, s STRUCT<x: SMALLINT>"),
            (L{"TYPE_WIDENED l.element: integer -> long",
               "TYPE_CHANGED_INCOMPATIBLE m.value: integer -> string",
               "TYPE_NARROWED s.x: integer -> short"}));
  EXPECT_EQ(
      Classify("m MAP<INT, STRUCT<a: INT>>", "m MAP<BIGINT, STRUCT<a: INT, b: INT>>"),
      (L{"TYPE_WIDENED m.key: integer -> long",
         "COLUMN_ADDED_NULLABLE m.value.b:  -> integer"}));
  EXPECT_EQ(Classify("a ARRAY<STRUCT<x: INT, y: INT>>", "a ARRAY<STRUCT<x: INT>>"),
            L{"COLUMN_REMOVED a.element.y: integer -> "});
  // A whole-kind change is incompatible at the column.
  EXPECT_EQ(Classify("a ARRAY<INT>", "a INT"),
            L{"TYPE_CHANGED_INCOMPATIBLE a: array<integer> -> integer"});
}

// Each column class inside structs, array elements and map values.
TEST(ClassifyDriftTest, EveryColumnClassNested) {
  EXPECT_EQ(Classify("s STRUCT<a: INT, b: INT, c: INT COMMENT 'x', d: INT>",
                     "s STRUCT<b: INT, A: INT, c: INT COMMENT 'y', d: BIGINT NOT NULL, "
                     "e: STRING NOT NULL>"),
            (L{"COLUMN_CASE_CHANGED s.a -> s.A: a -> A", "COMMENT_CHANGED s.c: x -> y",
               "TYPE_WIDENED s.d: integer -> long",
               "NULLABILITY_TIGHTENED s.d: nullable -> not null",
               "COLUMN_ADDED_NOT_NULL s.e:  -> string not null",
               "COLUMN_REORDERED s.A: position 1 -> position 2"}));
  EXPECT_EQ(Classify("l ARRAY<STRUCT<cust_id: BIGINT, v: INT NOT NULL>>",
                     "l ARRAY<STRUCT<customer_id: BIGINT, v: INT>>"),
            (L{"COLUMN_ADDED_NULLABLE l.element.customer_id:  -> long",
               "NULLABILITY_RELAXED l.element.v: not null -> nullable",
               "COLUMN_REMOVED l.element.cust_id: long -> ",
               "COLUMN_RENAME_SUSPECTED l.element.cust_id -> l.element.customer_id: long "
               "-> long"}));
  EXPECT_EQ(Classify("m MAP<STRING, STRUCT<x: STRING>>", "m MAP<STRING, STRUCT<x: INT>>"),
            L{"TYPE_CHANGED_INCOMPATIBLE m.value.x: string -> integer"});
}

TEST(ClassifyDriftTest, NestedPathsUseTheColumnPathPrinter) {
  EXPECT_EQ(Classify("`a.b` STRUCT<c: INT>", "`a.b` STRUCT<c: INT, `d.e`: INT>"),
            L{"COLUMN_ADDED_NULLABLE `a.b`.`d.e`:  -> integer"});
}

TEST(ClassifyDriftTest, Nullability) {
  auto relaxed = ClassifyDrift(Side("id INT NOT NULL"), Side("id INT"));
  EXPECT_EQ(Lines(relaxed), L{"NULLABILITY_RELAXED id: not null -> nullable"});
  EXPECT_EQ(relaxed[0].backward, Compat::kOk);
  EXPECT_EQ(relaxed[0].forward, Compat::kBreak);
  auto tightened =
      ClassifyDrift(Side("s STRUCT<x: INT>"), Side("s STRUCT<x: INT NOT NULL>"));
  EXPECT_EQ(Lines(tightened), L{"NULLABILITY_TIGHTENED s.x: nullable -> not null"});
  EXPECT_EQ(tightened[0].backward, Compat::kBreak);
  // Statistics proving the old rows hold no NULL make tightening backward-safe.
  DriftEvidence evidence;
  evidence.before.push_back({"id", 0, 10, std::nullopt, std::nullopt, {}});
  auto proven = ClassifyDrift(Side("id INT"), Side("id INT NOT NULL"), evidence);
  EXPECT_EQ(proven[0].backward, Compat::kOk);
  DriftEvidence data;
  data.ignore_new_nullability = true;
  EXPECT_EQ(Classify("id INT NOT NULL", "id INT", data), L{});
}

TEST(ClassifyDriftTest, CommentAndMetadata) {
  EXPECT_EQ(Classify("id INT COMMENT 'a'", "id INT COMMENT 'b'"),
            L{"COMMENT_CHANGED id: a -> b"});
  auto field = [](const char* metadata) {
    DriftSide side;
    side.schema = *ParseSchemaJson(
        std::string(R"({"type":"struct","fields":[{"name":"id","type":"integer",)"
                    R"("nullable":true,"metadata":)") +
        metadata + "}]}");
    return side;
  };
  EXPECT_EQ(Lines(ClassifyDrift(field(R"({"pii":true})"), field("{}"))),
            L{"METADATA_CHANGED id: pii=true -> "});
}

TEST(ClassifyDriftTest, PartitioningAndConstraints) {
  DriftSide before = Side("d DATE, x INT");
  DriftSide after = Side("d DATE, x INT");
  before.partition_columns = std::vector<std::string>{"d"};
  after.partition_columns = std::vector<std::string>{};
  before.constraints.emplace();
  before.constraints->emplace_back("x_pos", "x > 0");
  before.constraints->emplace_back("keep", "x < 10");
  after.constraints.emplace();
  after.constraints->emplace_back("keep", "x < 10");
  after.constraints->emplace_back("x_pos", "x >= 0");
  auto changes = ClassifyDrift(before, after);
  EXPECT_EQ(Lines(changes),
            (L{"PARTITIONING_CHANGED : [d] -> []", "CONSTRAINT_DROPPED x_pos: x > 0 -> ",
               "CONSTRAINT_ADDED x_pos:  -> x >= 0"}));
  EXPECT_EQ(changes[1].forward, Compat::kBreak);
  EXPECT_EQ(changes[2].backward, Compat::kBreak);
  // Unknown on one side (a data file): not compared.
  after.partition_columns.reset();
  after.constraints.reset();
  EXPECT_EQ(ClassifyDrift(before, after).size(), 0u);
}

TEST(ClassifyDriftTest, ColumnBecameAllNullAndSuggestsRename) {
  DriftEvidence evidence;
  evidence.before.push_back({"cust_id", 0, 100, "1", "100", {}});
  evidence.after.push_back({"cust_id", 40, 40, std::nullopt, std::nullopt, {}});
  evidence.after.push_back({"customer_id", 0, 40, "60", "100", {}});
  auto changes = ClassifyDrift(Side("cust_id BIGINT"),
                               Side("cust_id BIGINT, customer_id BIGINT"), evidence);
  EXPECT_EQ(Lines(changes),
            (L{"COLUMN_ADDED_NULLABLE customer_id:  -> long",
               "COLUMN_ALL_NULL cust_id: 0 of 100 NULL -> all NULL",
               "COLUMN_RENAME_SUSPECTED cust_id -> customer_id: long -> long"}));
  EXPECT_EQ(changes[1].risk, Risk::kVeryHigh);
  EXPECT_EQ(changes[1].evidence, "40 of 40 new rows are NULL");
  EXPECT_NE(changes[2].evidence.find("'cust_id' is NULL in every new row"),
            std::string::npos);
}

TEST(NameSimilarityTest, WordsAndEdits) {
  EXPECT_DOUBLE_EQ(NameSimilarity("cust_id", "customer_id"), 1.0);
  EXPECT_DOUBLE_EQ(NameSimilarity("custId", "customer_id"), 1.0);
  EXPECT_DOUBLE_EQ(NameSimilarity("id", "customer_id"), 0.5);
  EXPECT_DOUBLE_EQ(NameSimilarity("abc", "abd"), 1.0 - 1.0 / 3.0);
  EXPECT_LT(NameSimilarity("discount", "channel"), 0.3);
}

TEST(ChangeClassTest, NamesRoundTripAndEveryClassHasFacts) {
  for (int i = 0; i < kNumChangeClasses; ++i) {
    auto cls = static_cast<ChangeClass>(i);
    const ChangeClassInfo& info = ChangeClassInfoFor(cls);
    EXPECT_EQ(info.cls, cls);
    EXPECT_FALSE(info.spark.empty());
    EXPECT_FALSE(info.deltaguard.empty());
    auto parsed = ParseChangeClass(AsciiToLower(info.name));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(*parsed, cls);
  }
  EXPECT_FALSE(ParseChangeClass("COLUMN_EXPLODED"));
}

}  // namespace
}  // namespace deltaguard
