#include "deltaguard/evolution/write_schema.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "deltaguard/evolution/schema_format.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/schema/schema_json.h"
#include "testing/matchers.h"
#include "testing/schema_util.h"

namespace deltaguard {
namespace {

WriteSchemaOptions Opts(bool merge, bool widen = false) {
  WriteSchemaOptions o;
  o.merge_schema = merge;
  o.allow_type_widening = widen;
  o.option_hint = "--merge-schema";
  return o;
}

Result<WriteSchemaResolution> Resolve(const SchemaRef& table, const SchemaRef& input,
                                      bool merge = false, bool widen = false) {
  return ResolveWriteSchema(table, *input, Opts(merge, widen), "sales");
}

TEST(ResolveWriteSchemaTest, IdenticalSchemaKeepsTheTableObject) {
  SchemaRef table = Ddl("id BIGINT NOT NULL, name STRING, tags ARRAY<STRING>");
  auto r = Resolve(table, Ddl("id BIGINT, name STRING, tags ARRAY<STRING>"));
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->table_schema.get(), table.get());
  EXPECT_FALSE(r->changed);
  EXPECT_THAT(r->added_columns, IsEmpty());
  EXPECT_THAT(r->widened_columns, IsEmpty());
  EXPECT_THAT(r->missing_columns, IsEmpty());
}

TEST(ResolveWriteSchemaTest, MatchesByNameCaseInsensitivelyAtEveryDepth) {
  SchemaRef table =
      Ddl("id BIGINT, customer STRUCT<name: STRING, tier: INT>, "
          "items ARRAY<STRUCT<sku: STRING>>, attrs MAP<STRING, STRUCT<v: INT>>");
  SchemaRef input =
      Ddl("ATTRS MAP<STRING, STRUCT<V: INT>>, Items ARRAY<STRUCT<SKU: STRING>>, "
          "CUSTOMER STRUCT<Tier: INT, NAME: STRING>, Id BIGINT");
  auto r = Resolve(table, input, /*merge=*/true);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->table_schema.get(), table.get());
  EXPECT_FALSE(r->changed);
}

TEST(ResolveWriteSchemaTest, InputNamesDifferingOnlyByCaseAreDuplicates) {
  SchemaRef table = Ddl("amount INT");
  auto input = std::make_shared<StructType>(
      std::vector<StructField>{{"amount", DataType::Integer(), true, {}},
                               {"Amount", DataType::Integer(), true, {}}});
  auto r = Resolve(table, input, /*merge=*/true);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(r.error().message, StartsWith("DELTA_DUPLICATE_COLUMNS_FOUND: "));
  EXPECT_THAT(r.error().message, HasSubstr("'amount' and 'Amount'"));
  EXPECT_THAT(r.error().message, HasSubstr("table 'sales'"));
}

TEST(ResolveWriteSchemaTest, NestedDuplicatesNameTheirPath) {
  SchemaRef table = Ddl("items ARRAY<STRUCT<sku: STRING>>");
  auto elem = std::make_shared<StructType>(std::vector<StructField>{
      {"sku", DataType::String(), true, {}}, {"SKU", DataType::String(), true, {}}});
  auto input = std::make_shared<StructType>(std::vector<StructField>{
      {"items", std::make_shared<ArrayType>(elem, true), true, {}}});
  auto r = Resolve(table, input);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message,
              HasSubstr("'items.element.sku' and 'items.element.SKU'"));
}

TEST(ResolveWriteSchemaTest, NewColumnWithoutMergeIsMetadataMismatch) {
  SchemaRef table = Ddl("id BIGINT, amount DOUBLE");
  SchemaRef input = Ddl("id BIGINT, amount DOUBLE, coupon STRING");
  auto r = Resolve(table, input);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kSchemaMismatch);
  const std::string& m = r.error().message;
  EXPECT_THAT(m, StartsWith("DELTA_METADATA_MISMATCH:"));
  EXPECT_THAT(m, HasSubstr("'sales'"));
  EXPECT_THAT(m, HasSubstr("'coupon'"));
  EXPECT_THAT(m, HasSubstr("--merge-schema"));
  EXPECT_THAT(m, HasSubstr("mergeSchema"));
  EXPECT_THAT(m, HasSubstr(FormatSchemaComparison(*table, *input)));
}

TEST(ResolveWriteSchemaTest, MetadataMismatchNamesEveryNewFieldAtAnyDepth) {
  SchemaRef table =
      Ddl("id BIGINT, customer STRUCT<name: STRING>, items ARRAY<STRUCT<qty: INT>>");
  SchemaRef input =
      Ddl("id BIGINT, customer STRUCT<name: STRING, tier: STRING>, "
          "items ARRAY<STRUCT<qty: INT, sku: STRING>>, coupon STRING");
  auto r = Resolve(table, input);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message,
              HasSubstr("'customer.tier', 'items.element.sku', 'coupon'"));
}

TEST(ResolveWriteSchemaTest, OptionHintFallsBackToTheGenericOption) {
  SchemaRef table = Ddl("id BIGINT");
  WriteSchemaOptions o;
  auto r = ResolveWriteSchema(table, *Ddl("id BIGINT, x INT"), o, "t");
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("the mergeSchema option"));
}

TEST(ResolveWriteSchemaTest, MergeAppendsNewColumnsNullableInInputOrder) {
  SchemaRef table = Ddl("id BIGINT NOT NULL COMMENT 'key', amount DOUBLE");
  SchemaRef input = Ddl("zeta INT NOT NULL, amount DOUBLE, id BIGINT, alpha STRING");
  auto r = Resolve(table, input, /*merge=*/true);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_TRUE(r->changed);
  EXPECT_NE(r->table_schema.get(), table.get());
  EXPECT_EQ(SchemaToJson(*r->table_schema),
            SchemaToJson(*Ddl("id BIGINT NOT NULL COMMENT 'key', amount DOUBLE, "
                              "zeta INT, alpha STRING")));
  EXPECT_THAT(r->added_columns, ElementsAre("zeta", "alpha"));
  EXPECT_THAT(r->widened_columns, IsEmpty());
}

TEST(ResolveWriteSchemaTest, MergeAddsFieldsInsideStructsArraysAndMapValues) {
  SchemaRef table =
      Ddl("id BIGINT, customer STRUCT<name: STRING NOT NULL>, "
          "items ARRAY<STRUCT<qty: INT>>, attrs MAP<STRING, STRUCT<v: INT>>");
  SchemaRef input =
      Ddl("id BIGINT, customer STRUCT<name: STRING, tier: STRING>, "
          "items ARRAY<STRUCT<sku: STRING, qty: INT>>, "
          "attrs MAP<STRING, STRUCT<v: INT, unit: STRING>>");
  auto r = Resolve(table, input, /*merge=*/true);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(SchemaToJson(*r->table_schema),
            SchemaToJson(*Ddl("id BIGINT, customer STRUCT<name: STRING NOT NULL, tier: "
                              "STRING>, items ARRAY<STRUCT<qty: INT, sku: STRING>>, "
                              "attrs MAP<STRING, STRUCT<v: INT, unit: STRING>>")));
  EXPECT_THAT(r->added_columns,
              ElementsAre("customer.tier", "items.element.sku", "attrs.value.unit"));
}

TEST(ResolveWriteSchemaTest, MergeAddsFieldsInsideMapKeys) {
  SchemaRef table = Ddl("m MAP<STRUCT<a: INT>, STRING>");
  auto r = Resolve(table, Ddl("m MAP<STRUCT<a: INT, b: INT>, STRING>"), true);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_THAT(r->added_columns, ElementsAre("m.key.b"));
  EXPECT_EQ(r->table_schema->ToString(),
            "struct<m: map<struct<a: integer, b: integer>,string>>");
}

TEST(ResolveWriteSchemaTest, NewFieldsAreNullableAtEveryDepthAndLoseForeignMetadata) {
  SchemaRef table = Ddl("id BIGINT");
  auto inner = std::make_shared<StructType>(
      std::vector<StructField>{{"x", DataType::Integer(), false, {}}});
  FieldMetadata md(std::vector<FieldMetadata::Entry>{
      {"comment", "\"c\""},
      {std::string(kColumnMappingIdKey), "7"},
      {std::string(kColumnMappingPhysicalNameKey), "\"col-1\""},
      {std::string(kTypeChangesKey), "[]"}});
  auto input = std::make_shared<StructType>(std::vector<StructField>{
      {"id", DataType::Long(), true, {}},
      {"s", std::make_shared<ArrayType>(inner, false), false, md},
      {"m",
       std::make_shared<MapType>(DataType::String(), DataType::Long(), false),
       false,
       {}}});
  auto r = Resolve(table, input, /*merge=*/true);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(
      SchemaToJson(*r->table_schema),
      R"({"type":"struct","fields":[)"
      R"({"name":"id","type":"long","nullable":true,"metadata":{}},)"
      R"({"name":"s","type":{"type":"array","elementType":{"type":"struct","fields":[)"
      R"({"name":"x","type":"integer","nullable":true,"metadata":{}}]},)"
      R"("containsNull":true},"nullable":true,"metadata":{"comment":"c"}},)"
      R"({"name":"m","type":{"type":"map","keyType":"string","valueType":"long",)"
      R"("valueContainsNull":true},"nullable":true,"metadata":{}}]})");
}

TEST(ResolveWriteSchemaTest, FieldNamesWithDotsAreQuotedInPaths) {
  SchemaRef table = Ddl("`a.b` STRUCT<c: INT>");
  auto r = Resolve(table, Ddl("`a.b` STRUCT<c: INT, `d.e`: INT>"), true);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_THAT(r->added_columns, ElementsAre("`a.b`.`d.e`"));
}

// Input type -> table type pairs that are cast without any change to the table.
TEST(ResolveWriteSchemaTest, LosslessCastsLeaveTheTableUnchanged) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"TINYINT", "SMALLINT"},   {"TINYINT", "INT"},
      {"SMALLINT", "BIGINT"},    {"INT", "BIGINT"},
      {"FLOAT", "DOUBLE"},       {"INT", "DOUBLE"},
      {"INT", "DECIMAL(10,0)"},  {"BIGINT", "DECIMAL(20,1)"},
      {"DATE", "TIMESTAMP_NTZ"}, {"DECIMAL(5,2)", "DECIMAL(7,3)"},
      {"VOID", "STRING"},
  };
  for (const auto& [in, tab] : cases) {
    for (bool merge : {false, true}) {
      SchemaRef table =
          Ddl("c " + tab + ", a ARRAY<" + tab + ">, m MAP<STRING, " + tab + ">");
      SchemaRef input =
          Ddl("c " + in + ", a ARRAY<" + in + ">, m MAP<STRING, " + in + ">");
      auto r = Resolve(table, input, merge, /*widen=*/true);
      ASSERT_TRUE(r) << in << " -> " << tab << ": " << r.error().ToString();
      EXPECT_EQ(r->table_schema.get(), table.get()) << in << " -> " << tab;
      EXPECT_THAT(r->widened_columns, IsEmpty());
    }
  }
}

TEST(ResolveWriteSchemaTest, NonLosslessTypesAreRefusedWithoutMerge) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"BIGINT", "INT"},     {"DOUBLE", "FLOAT"},  {"STRING", "INT"},
      {"INT", "STRING"},     {"BIGINT", "DOUBLE"}, {"DECIMAL(12,2)", "DECIMAL(10,2)"},
      {"TIMESTAMP", "DATE"}, {"INT", "BOOLEAN"},   {"DECIMAL(10,2)", "INT"},
  };
  for (const auto& [in, tab] : cases) {
    auto r = Resolve(Ddl("c " + tab), Ddl("c " + in));
    ASSERT_FALSE(r) << in << " -> " << tab;
    EXPECT_EQ(r.error().code, ErrorCode::kSchemaMismatch);
    auto t = ParseDdlType(tab);
    auto i = ParseDdlType(in);
    EXPECT_THAT(r.error().message,
                StartsWith("DELTA_FAILED_TO_MERGE_FIELDS: Failed to merge fields 'c' and "
                           "'c': column 'c' of table 'sales' has type " +
                           (*t)->ToString() + " but the input has type " +
                           (*i)->ToString() + "."));
    EXPECT_THAT(r.error().message, HasSubstr("lossless"));
  }
}

TEST(ResolveWriteSchemaTest, RefusalExplainsTypeWideningWhenItWouldHelp) {
  SchemaRef table = Ddl("qty INT");
  SchemaRef input = Ddl("qty BIGINT");
  auto r = Resolve(table, input);
  ASSERT_FALSE(r);
  const std::string& m = r.error().message;
  EXPECT_THAT(m, HasSubstr("ALTER TABLE sales SET TBLPROPERTIES "
                           "('delta.enableTypeWidening' = 'true')"));
  EXPECT_THAT(m, HasSubstr("--merge-schema"));
  EXPECT_THAT(m, HasSubstr(FormatSchemaComparison(*table, *input)));

  auto no_hint = Resolve(Ddl("qty INT"), Ddl("qty STRING"));
  ASSERT_FALSE(no_hint);
  EXPECT_THAT(no_hint.error().message, Not(HasSubstr("enableTypeWidening")));

  // Widening on but no merge: only the merge option is missing.
  auto widen_only = Resolve(table, input, /*merge=*/false, /*widen=*/true);
  ASSERT_FALSE(widen_only);
  EXPECT_THAT(widen_only.error().message, HasSubstr("Type widening is enabled"));
  EXPECT_THAT(widen_only.error().message, HasSubstr("--merge-schema"));
}

TEST(ResolveWriteSchemaTest, MergeWithoutTypeWideningRefusesWiderInput) {
  auto r = Resolve(Ddl("qty INT"), Ddl("qty BIGINT"), /*merge=*/true);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message,
              StartsWith("DELTA_FAILED_TO_MERGE_FIELDS: Failed to merge fields 'qty' and "
                         "'qty'"));
  EXPECT_THAT(r.error().message,
              HasSubstr("DELTA_MERGE_INCOMPATIBLE_DATATYPE: Failed to merge incompatible "
                        "data types integer and long"));
  EXPECT_THAT(r.error().message, HasSubstr("delta.enableTypeWidening"));
}

TEST(ResolveWriteSchemaTest, NestedMismatchNamesBothPaths) {
  auto r = Resolve(Ddl("items ARRAY<STRUCT<qty: INT>>"),
                   Ddl("Items ARRAY<STRUCT<QTY: STRING>>"), true);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message,
              HasSubstr("Failed to merge fields 'items.element.qty' and "
                        "'Items.element.QTY'"));
}

TEST(ResolveWriteSchemaTest, DifferentKindsAreIncompatible) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"STRUCT<a: INT>", "INT"},
      {"INT", "STRUCT<a: INT>"},
      {"ARRAY<INT>", "INT"},
      {"MAP<STRING, INT>", "ARRAY<INT>"},
      {"ARRAY<INT>", "STRUCT<a: INT>"},
  };
  for (const auto& [in, tab] : cases) {
    auto r = Resolve(Ddl("c " + tab), Ddl("c " + in), true, true);
    ASSERT_FALSE(r) << in << " -> " << tab;
    EXPECT_EQ(r.error().code, ErrorCode::kSchemaMismatch);
    EXPECT_THAT(r.error().message, StartsWith("DELTA_FAILED_TO_MERGE_FIELDS"));
    EXPECT_THAT(r.error().message, HasSubstr("cannot be written into"));
  }
}

TEST(ResolveWriteSchemaTest, TypeWideningRecordsTypeChanges) {
  FieldMetadata md(std::vector<FieldMetadata::Entry>{{"comment", "\"q\""}});
  auto table = std::make_shared<StructType>(std::vector<StructField>{
      {"id", DataType::Long(), false, {}}, {"qty", DataType::Integer(), true, md}});
  auto r = Resolve(table, Ddl("id BIGINT, qty BIGINT"), true, true);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_TRUE(r->changed);
  EXPECT_THAT(r->widened_columns, ElementsAre("qty: integer -> long"));
  EXPECT_EQ(SchemaToJson(*r->table_schema),
            R"({"type":"struct","fields":[)"
            R"({"name":"id","type":"long","nullable":false,"metadata":{}},)"
            R"({"name":"qty","type":"long","nullable":true,"metadata":{"comment":"q",)"
            R"("delta.typeChanges":[{"toType":"long","fromType":"integer"}]}}]})");
}

TEST(ResolveWriteSchemaTest, TypeWideningAppendsToExistingHistory) {
  FieldMetadata md(std::vector<FieldMetadata::Entry>{
      {std::string(kTypeChangesKey), R"([{"toType":"integer","fromType":"short"}])"}});
  auto table = std::make_shared<StructType>(
      std::vector<StructField>{{"qty", DataType::Integer(), true, md}});
  auto r = Resolve(table, Ddl("qty DECIMAL(12,2)"), true, true);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(*r->table_schema->field(0).metadata.FindRaw(kTypeChangesKey),
            R"([{"toType":"integer","fromType":"short"},)"
            R"j({"toType":"decimal(12,2)","fromType":"integer"}])j");
}

TEST(ResolveWriteSchemaTest, TypeWideningInsideArraysAndMapsUsesFieldPath) {
  SchemaRef table =
      Ddl("scores ARRAY<INT>, m MAP<SMALLINT, ARRAY<FLOAT>>, "
          "items ARRAY<STRUCT<qty: INT, price: DECIMAL(10,2)>>");
  SchemaRef input =
      Ddl("scores ARRAY<BIGINT>, m MAP<INT, ARRAY<DOUBLE>>, "
          "items ARRAY<STRUCT<qty: BIGINT, price: DECIMAL(12,2)>>");
  auto r = Resolve(table, input, true, true);
  ASSERT_TRUE(r) << r.error().ToString();
  const StructType& s = *r->table_schema;
  EXPECT_EQ(s.ToString(),
            "struct<scores: array<long>, m: map<integer,array<double>>, "
            "items: array<struct<qty: long, price: decimal(12,2)>>>");
  EXPECT_EQ(*s.field(0).metadata.FindRaw(kTypeChangesKey),
            R"([{"toType":"long","fromType":"integer","fieldPath":"element"}])");
  EXPECT_EQ(*s.field(1).metadata.FindRaw(kTypeChangesKey),
            R"([{"toType":"integer","fromType":"short","fieldPath":"key"},)"
            R"({"toType":"double","fromType":"float","fieldPath":"value.element"}])");
  // Inside an array of structs the nearest ancestor field is the struct's own field.
  EXPECT_EQ(s.field(2).metadata.FindRaw(kTypeChangesKey), nullptr);
  const auto& elem = static_cast<const StructType&>(
      *static_cast<const ArrayType&>(*s.field(2).type).element_type());
  EXPECT_EQ(*elem.field(0).metadata.FindRaw(kTypeChangesKey),
            R"([{"toType":"long","fromType":"integer"}])");
  EXPECT_EQ(*elem.field(1).metadata.FindRaw(kTypeChangesKey),
            R"j([{"toType":"decimal(12,2)","fromType":"decimal(10,2)"}])j");
  EXPECT_THAT(r->widened_columns,
              ElementsAre("scores.element: integer -> long", "m.key: short -> integer",
                          "m.value.element: float -> double",
                          "items.element.qty: integer -> long",
                          "items.element.price: decimal(10,2) -> decimal(12,2)"));
}

TEST(ResolveWriteSchemaTest, UnsupportedWideningIsRefusedEvenWhenEnabled) {
  // integer -> decimal(10,2) keeps only 8 integer digits; long -> double loses precision.
  for (const auto& [tab, in] : std::vector<std::pair<std::string, std::string>>{
           {"INT", "DECIMAL(10,2)"}, {"BIGINT", "DOUBLE"}, {"INT", "STRING"}}) {
    auto r = Resolve(Ddl("c " + tab), Ddl("c " + in), true, true);
    ASSERT_FALSE(r) << tab << " -> " << in;
    EXPECT_THAT(r.error().message, StartsWith("DELTA_FAILED_TO_MERGE_FIELDS"));
    EXPECT_THAT(r.error().message, Not(HasSubstr("enableTypeWidening")));
  }
}

TEST(ResolveWriteSchemaTest, MissingNullableColumnsBecomeNull) {
  SchemaRef table =
      Ddl("id BIGINT, note STRING, customer STRUCT<name: STRING, tier: STRING>, "
          "items ARRAY<STRUCT<sku: STRING, qty: INT>>");
  SchemaRef input =
      Ddl("id BIGINT, customer STRUCT<name: STRING>, items ARRAY<STRUCT<qty: INT>>");
  auto r = Resolve(table, input);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->table_schema.get(), table.get());
  EXPECT_THAT(r->missing_columns,
              ElementsAre("note", "customer.tier", "items.element.sku"));
}

TEST(ResolveWriteSchemaTest, MissingNotNullColumnIsAConstraintViolation) {
  auto r = Resolve(Ddl("id BIGINT NOT NULL, note STRING"), Ddl("note STRING"), true);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kConstraintViolation);
  EXPECT_THAT(
      r.error().message,
      StartsWith("DELTA_MISSING_NOT_NULL_COLUMN_VALUE: column 'id' is NOT NULL in "
                 "table 'sales' but missing from the input"));
}

TEST(ResolveWriteSchemaTest, MissingNestedNotNullFieldUnderAPresentParent) {
  SchemaRef table =
      Ddl("id BIGINT, customer STRUCT<name: STRING NOT NULL, tier: STRING>");
  auto r = Resolve(table, Ddl("id BIGINT, customer STRUCT<tier: STRING>"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kConstraintViolation);
  EXPECT_THAT(r.error().message, HasSubstr("column 'customer.name' is NOT NULL"));
  // The parent itself is missing (and nullable): the whole struct is NULL, which is fine.
  auto ok = Resolve(table, Ddl("id BIGINT"));
  ASSERT_TRUE(ok) << ok.error().ToString();
  EXPECT_THAT(ok->missing_columns, ElementsAre("customer"));
}

TEST(ResolveWriteSchemaTest, VoidInputFitsAnyExistingColumn) {
  SchemaRef table = Ddl("id BIGINT NOT NULL, s STRUCT<a: INT>, d DECIMAL(10,2)");
  auto r = Resolve(table, Ddl("id VOID, s VOID, d VOID"));
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->table_schema.get(), table.get());
  EXPECT_THAT(r->missing_columns, IsEmpty());
}

TEST(ResolveWriteSchemaTest, NewVoidColumnIsNeverAdded) {
  SchemaRef table = Ddl("id BIGINT");
  auto top = Resolve(table, Ddl("id BIGINT, extra VOID"), true);
  ASSERT_FALSE(top);
  EXPECT_EQ(top.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(top.error().message, HasSubstr("cannot add column 'extra'"));
  EXPECT_THAT(top.error().message, HasSubstr("has no type (every value"));
  EXPECT_THAT(top.error().message, HasSubstr("CAST(NULL AS STRING)"));

  auto nested = Resolve(table, Ddl("id BIGINT, s STRUCT<a: INT, b: ARRAY<VOID>>"), true);
  ASSERT_FALSE(nested);
  EXPECT_THAT(nested.error().message, HasSubstr("'s.b.element' has no type"));

  // Without merge the column is simply an extra column.
  auto no_merge = Resolve(table, Ddl("id BIGINT, extra VOID"));
  ASSERT_FALSE(no_merge);
  EXPECT_THAT(no_merge.error().message, StartsWith("DELTA_METADATA_MISMATCH"));
}

TEST(ResolveWriteSchemaTest, AddAndWidenTogether) {
  auto r =
      Resolve(Ddl("id INT, v FLOAT"), Ddl("v DOUBLE, id BIGINT, w STRING"), true, true);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->table_schema->ToString(), "struct<id: long, v: double, w: string>");
  EXPECT_THAT(r->added_columns, ElementsAre("w"));
  EXPECT_THAT(r->widened_columns,
              ElementsAre("id: integer -> long", "v: float -> double"));
}

TEST(SchemaForNewTableTest, MakesEveryDepthNullable) {
  auto inner = std::make_shared<StructType>(
      std::vector<StructField>{{"x", DataType::Integer(), false, {}}});
  FieldMetadata md(std::vector<FieldMetadata::Entry>{
      {"comment", "\"c\""}, {std::string(kColumnMappingIdKey), "3"}});
  auto input = std::make_shared<StructType>(std::vector<StructField>{
      {"id", DataType::Long(), false, md},
      {"m",
       std::make_shared<MapType>(DataType::String(),
                                 std::make_shared<ArrayType>(inner, false), false),
       false,
       {}}});
  auto r = SchemaForNewTable(*input, "t");
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(SchemaToJson(**r),
            R"({"type":"struct","fields":[)"
            R"({"name":"id","type":"long","nullable":true,"metadata":{"comment":"c"}},)"
            R"({"name":"m","type":{"type":"map","keyType":"string","valueType":)"
            R"({"type":"array","elementType":{"type":"struct","fields":[)"
            R"({"name":"x","type":"integer","nullable":true,"metadata":{}}]},)"
            R"("containsNull":true},"valueContainsNull":true},"nullable":true,)"
            R"("metadata":{}}]})");
}

TEST(SchemaForNewTableTest, RefusesVoidColumnsNamingAllOfThem) {
  auto r = SchemaForNewTable(*Ddl("a VOID, b INT, c STRUCT<d: VOID>"), "t");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(r.error().message, HasSubstr("'a', 'c.d' have no type"));
  EXPECT_THAT(r.error().message, HasSubstr("table 't'"));
}

TEST(SchemaForNewTableTest, RefusesDuplicatesAndEmptySchemas) {
  auto dup = std::make_shared<StructType>(std::vector<StructField>{
      {"Id", DataType::Long(), true, {}}, {"ID", DataType::Long(), true, {}}});
  auto r = SchemaForNewTable(*dup, "t");
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, StartsWith("DELTA_DUPLICATE_COLUMNS_FOUND"));
  EXPECT_THAT(r.error().message, HasSubstr("'Id' and 'ID'"));

  auto empty = SchemaForNewTable(StructType({}), "t");
  ASSERT_FALSE(empty);
  EXPECT_THAT(empty.error().message, StartsWith("DELTA_EMPTY_DATA"));
}

TEST(MakeNullableTest, ReturnsTheSameObjectWhenAlreadyNullable) {
  SchemaRef s = Ddl("a ARRAY<STRUCT<b: INT>>, m MAP<STRING, INT>");
  EXPECT_EQ(MakeNullable(s).get(), s.get());
  SchemaRef nn = Ddl("a INT NOT NULL");
  DataTypeRef out = MakeNullable(nn);
  EXPECT_NE(out.get(), nn.get());
  EXPECT_TRUE(static_cast<const StructType&>(*out).field(0).nullable);
}

}  // namespace
}  // namespace deltaguard
