#include "deltaguard/schema/data_type.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/matchers.h"
#include "testing/schema_util.h"

namespace deltaguard {
namespace {

using testing::Field;

DataTypeRef Struct(std::vector<StructField> fields) {
  return std::make_shared<StructType>(std::move(fields));
}

DataTypeRef Decimal(int p, int s) { return std::make_shared<DecimalType>(p, s); }

TEST(DataTypeTest, PrimitiveNamesRoundTripThroughFromTypeName) {
  const std::vector<std::pair<DataTypeRef, std::string>> cases = {
      {DataType::Byte(), "byte"},           {DataType::Short(), "short"},
      {DataType::Integer(), "integer"},     {DataType::Long(), "long"},
      {DataType::Float(), "float"},         {DataType::Double(), "double"},
      {DataType::String(), "string"},       {DataType::Binary(), "binary"},
      {DataType::Boolean(), "boolean"},     {DataType::Date(), "date"},
      {DataType::Timestamp(), "timestamp"}, {DataType::TimestampNtz(), "timestamp_ntz"},
      {DataType::Variant(), "variant"},     {DataType::Void(), "void"},
  };
  for (const auto& [type, name] : cases) {
    EXPECT_EQ(type->TypeName(), name);
    EXPECT_EQ(type->ToString(), name);
    auto parsed = DataType::FromTypeName(name);
    ASSERT_TRUE(parsed) << name << ": " << parsed.error().ToString();
    // Parameterless types are shared singletons.
    EXPECT_EQ(parsed->get(), type.get()) << name;
    EXPECT_TRUE(type->is_primitive());
    EXPECT_FALSE(type->is_nested());
  }
}

TEST(DataTypeTest, DecimalNamesAcceptSpacesAndBareDecimal) {
  struct Case {
    std::string name;
    int precision;
    int scale;
  };
  for (const Case& c : std::vector<Case>{{"decimal(10,2)", 10, 2},
                                         {"decimal(10, 2)", 10, 2},
                                         {"decimal( 5 , 1 )", 5, 1},
                                         {"decimal(38,38)", 38, 38},
                                         {"decimal(1,0)", 1, 0},
                                         {"decimal", 10, 0}}) {
    auto parsed = DataType::FromTypeName(c.name);
    ASSERT_TRUE(parsed) << c.name << ": " << parsed.error().ToString();
    ASSERT_EQ((*parsed)->kind(), TypeKind::kDecimal) << c.name;
    const auto& d = static_cast<const DecimalType&>(**parsed);
    EXPECT_EQ(d.precision(), c.precision) << c.name;
    EXPECT_EQ(d.scale(), c.scale) << c.name;
    // Output never has spaces, as Spark writes it.
    EXPECT_EQ(d.TypeName(), fmt::format("decimal({},{})", c.precision, c.scale));
  }
}

TEST(DataTypeTest, BadTypeNamesAreParseErrorsNamingTheType) {
  for (std::string name :
       {"decimal(0,0)", "decimal(39,0)", "decimal(5,6)", "decimal(5,-1)", "decimal(a,b)",
        "decimal(5)", "decimal(5,1", "decimal(5,1)x", "Integer", "int", "", "interval",
        "char(5)"}) {
    auto parsed = DataType::FromTypeName(name);
    ASSERT_FALSE(parsed) << name;
    EXPECT_EQ(parsed.error().code, ErrorCode::kParseError) << name;
    if (!name.empty()) {
      EXPECT_THAT(parsed.error().message, HasSubstr(name));
    }
  }
  auto out_of_range = DataType::FromTypeName("decimal(39,0)");
  EXPECT_THAT(out_of_range.error().message, HasSubstr("between 1 and 38"));
}

TEST(DataTypeTest, GeospatialTypesAreUnsupportedNotUnknown) {
  auto parsed = DataType::FromTypeName("geometry(OGC:CRS84)");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().code, ErrorCode::kUnsupportedFeature);
  EXPECT_THAT(parsed.error().message, HasSubstr("geometry(OGC:CRS84)"));
}

TEST(DataTypeTest, DecimalMakeValidatesBounds) {
  EXPECT_TRUE(DecimalType::Make(38, 0));
  EXPECT_TRUE(DecimalType::Make(1, 1));
  for (auto [p, s] : std::vector<std::pair<int, int>>{{0, 0}, {39, 1}, {5, 6}, {5, -1}}) {
    auto made = DecimalType::Make(p, s);
    ASSERT_FALSE(made) << p << "," << s;
    EXPECT_EQ(made.error().code, ErrorCode::kInvalidArgument);
    EXPECT_THAT(made.error().message, HasSubstr(fmt::format("decimal({},{})", p, s)));
  }
}

TEST(DataTypeTest, NumericClassification) {
  EXPECT_TRUE(DataType::Byte()->is_integral());
  EXPECT_TRUE(DataType::Long()->is_integral());
  EXPECT_FALSE(DataType::Float()->is_integral());
  EXPECT_FALSE(Decimal(10, 2)->is_integral());
  EXPECT_TRUE(Decimal(10, 2)->is_numeric());
  EXPECT_TRUE(DataType::Double()->is_numeric());
  EXPECT_TRUE(DataType::Short()->is_numeric());
  EXPECT_FALSE(DataType::String()->is_numeric());
  EXPECT_FALSE(DataType::Boolean()->is_numeric());
  EXPECT_FALSE(DataType::Date()->is_numeric());
  auto arr = std::make_shared<ArrayType>(DataType::Integer(), true);
  EXPECT_TRUE(arr->is_nested());
  EXPECT_FALSE(arr->is_primitive());
  EXPECT_FALSE(arr->is_numeric());
}

TEST(DataTypeTest, ToStringIsReadableSqlStyle) {
  auto arr = std::make_shared<ArrayType>(DataType::String(), true);
  auto map = std::make_shared<MapType>(DataType::String(), DataType::Integer(), true);
  auto st = Struct({Field("a", DataType::Integer()), Field("b", arr),
                    Field("c", map, /*nullable=*/false), Field("d", Decimal(10, 2)),
                    Field("weird name", DataType::Long()), Field("x`y", DataType::Date()),
                    Field("1st", DataType::Date())});
  EXPECT_EQ(arr->ToString(), "array<string>");
  EXPECT_EQ(map->ToString(), "map<string,integer>");
  EXPECT_EQ(Decimal(10, 2)->ToString(), "decimal(10,2)");
  EXPECT_EQ(st->ToString(),
            "struct<a: integer, b: array<string>, c: map<string,integer> NOT NULL, "
            "d: decimal(10,2), `weird name`: long, `x``y`: date, `1st`: date>");
  EXPECT_EQ(st->TypeName(), "struct");
  EXPECT_EQ(arr->TypeName(), "array");
  EXPECT_EQ(map->TypeName(), "map");
  EXPECT_EQ(Struct({})->ToString(), "struct<>");
}

TEST(DataTypeTest, EqualityComparesEveryAttribute) {
  EXPECT_EQ(*Decimal(10, 2), *Decimal(10, 2));
  EXPECT_FALSE(*Decimal(10, 2) == *Decimal(10, 3));
  EXPECT_FALSE(*Decimal(10, 2) == *Decimal(11, 2));
  EXPECT_FALSE(*DataType::Integer() == *DataType::Long());
  EXPECT_FALSE(*DataType::Integer() == *Decimal(10, 0));

  auto a1 = std::make_shared<ArrayType>(DataType::Integer(), true);
  auto a2 = std::make_shared<ArrayType>(DataType::Integer(), false);
  auto a3 = std::make_shared<ArrayType>(DataType::Long(), true);
  EXPECT_EQ(*a1, *std::make_shared<ArrayType>(DataType::Integer(), true));
  EXPECT_FALSE(*a1 == *a2);
  EXPECT_FALSE(*a1 == *a3);

  auto m1 = std::make_shared<MapType>(DataType::String(), DataType::Long(), true);
  EXPECT_EQ(*m1, *std::make_shared<MapType>(DataType::String(), DataType::Long(), true));
  EXPECT_FALSE(*m1 ==
               *std::make_shared<MapType>(DataType::String(), DataType::Long(), false));
  EXPECT_FALSE(*m1 ==
               *std::make_shared<MapType>(DataType::Long(), DataType::Long(), true));
  EXPECT_FALSE(*m1 ==
               *std::make_shared<MapType>(DataType::String(), DataType::Integer(), true));

  FieldMetadata md(std::vector<FieldMetadata::Entry>{{"comment", "\"x\""}});
  auto s1 = Struct({Field("a", DataType::Integer(), true, md)});
  EXPECT_EQ(*s1, *Struct({Field("a", DataType::Integer(), true, md)}));
  EXPECT_FALSE(*s1 == *Struct({Field("A", DataType::Integer(), true, md)}));
  EXPECT_FALSE(*s1 == *Struct({Field("a", DataType::Long(), true, md)}));
  EXPECT_FALSE(*s1 == *Struct({Field("a", DataType::Integer(), false, md)}));
  EXPECT_FALSE(*s1 == *Struct({Field("a", DataType::Integer(), true)}));
  EXPECT_FALSE(*s1 == *Struct({}));
  EXPECT_FALSE(*s1 == *a1);
}

TEST(FieldMetadataTest, TypedAccessorsReadRawJson) {
  FieldMetadata md({{"delta.columnMapping.id", "5"},
                    {"delta.columnMapping.physicalName", "\"col-1\\\"x\""},
                    {"comment", "\"caf\\u00e9\""},
                    {"ratio", "1.0"},
                    {"nested", "{\"a\":[1,2]}"}});
  ASSERT_NE(md.FindRaw("ratio"), nullptr);
  EXPECT_EQ(*md.FindRaw("ratio"), "1.0");
  EXPECT_EQ(md.FindRaw("missing"), nullptr);
  EXPECT_EQ(md.GetInt("delta.columnMapping.id"), 5);
  EXPECT_EQ(md.GetInt("ratio"), std::nullopt);  // not an integer
  EXPECT_EQ(md.GetInt("comment"), std::nullopt);
  EXPECT_EQ(md.GetString("delta.columnMapping.physicalName"), "col-1\"x");
  EXPECT_EQ(md.GetString("comment"), "caf\xc3\xa9");
  EXPECT_EQ(md.GetString("nested"), std::nullopt);
  EXPECT_EQ(md.GetString("missing"), std::nullopt);

  StructField f = Field("c", DataType::String(), true, md);
  EXPECT_EQ(f.column_mapping_id(), 5);
  EXPECT_EQ(f.physical_name(), "col-1\"x");
  EXPECT_EQ(f.comment(), "caf\xc3\xa9");
  EXPECT_EQ(Field("d", DataType::String()).comment(), std::nullopt);
}

TEST(FieldMetadataTest, WithReplacesInPlaceOrAppendsAndWithoutRemoves) {
  FieldMetadata md({{"a", "1"}, {"b", "2"}});
  FieldMetadata replaced = md.With("a", "3");
  ASSERT_EQ(replaced.entries().size(), 2u);
  EXPECT_EQ(replaced.entries()[0], (FieldMetadata::Entry{"a", "3"}));
  EXPECT_EQ(replaced.entries()[1], (FieldMetadata::Entry{"b", "2"}));
  FieldMetadata appended = md.With("c", "\"x\"");
  ASSERT_EQ(appended.entries().size(), 3u);
  EXPECT_EQ(appended.entries()[2].first, "c");
  // The original is unchanged (values are immutable).
  EXPECT_EQ(*md.FindRaw("a"), "1");
  FieldMetadata removed = md.Without("a");
  ASSERT_EQ(removed.entries().size(), 1u);
  EXPECT_EQ(removed.entries()[0].first, "b");
  EXPECT_TRUE(removed.Without("b").empty());
  EXPECT_EQ(md.Without("zzz"), md);
}

TEST(StructTypeTest, FieldLookupExactAndCaseInsensitive) {
  StructType st({Field("Id", DataType::Long()), Field("name", DataType::String())});
  EXPECT_EQ(st.FieldIndex("Id"), 0);
  EXPECT_EQ(st.FieldIndex("id"), -1);
  EXPECT_EQ(st.FieldIndexCaseInsensitive("ID"), 0);
  EXPECT_EQ(st.FieldIndexCaseInsensitive("NAME"), 1);
  EXPECT_EQ(st.FieldIndexCaseInsensitive("missing"), -1);
  // An exact match wins over an earlier case-insensitive one.
  StructType clash({Field("a", DataType::Long()), Field("A", DataType::String())});
  EXPECT_EQ(clash.FieldIndexCaseInsensitive("A"), 1);
  EXPECT_EQ(clash.FieldIndexCaseInsensitive("a"), 0);
}

TEST(StructTypeTest, FindPathWalksNestedStructs) {
  auto inner =
      Struct({Field("City", DataType::String()), Field("zip", DataType::Integer())});
  auto arr = std::make_shared<ArrayType>(inner, true);
  StructType st(
      {Field("id", DataType::Long()), Field("Address", inner), Field("history", arr)});
  const StructField* f = st.FindPath({"address", "city"});
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->name, "City");
  EXPECT_EQ(st.FindPath({"address", "city"}, /*case_sensitive=*/true), nullptr);
  ASSERT_NE(st.FindPath({"Address", "City"}, /*case_sensitive=*/true), nullptr);
  EXPECT_EQ(st.FindPath({"id"})->type->kind(), TypeKind::kLong);
  EXPECT_EQ(st.FindPath({"address"})->name, "Address");
  EXPECT_EQ(st.FindPath({"id", "x"}), nullptr);          // id is not a struct
  EXPECT_EQ(st.FindPath({"history", "city"}), nullptr);  // arrays are not walked
  EXPECT_EQ(st.FindPath({"address", "street"}), nullptr);
  EXPECT_EQ(st.FindPath({}), nullptr);
}

TEST(StructTypeTest, DuplicateNamesAreFoundCaseInsensitively) {
  std::vector<StructField> fields = {
      Field("a", DataType::Long()), Field("b", DataType::Long()),
      Field("B", DataType::Long()), Field("A", DataType::Long())};
  auto dup = FindDuplicateFieldName(fields);
  ASSERT_TRUE(dup);
  EXPECT_EQ(*dup, (std::pair<size_t, size_t>{1, 2}));  // the first clash in field order
  EXPECT_FALSE(FindDuplicateFieldName(
      {Field("a", DataType::Long()), Field("ab", DataType::Long())}));

  auto nested = Struct({Field("x", DataType::Long()), Field("X", DataType::Long())});
  auto arr = std::make_shared<ArrayType>(nested, true);
  StructType st({Field("ok", DataType::Long()), Field("list", arr)});
  auto status = ValidateFieldNames(st);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(status.error().message, HasSubstr("'X'"));
  EXPECT_THAT(status.error().message, HasSubstr("list.element"));
  auto ok_value = Struct({Field("x", DataType::Long()), Field("y", DataType::Long())});
  auto map = std::make_shared<MapType>(DataType::String(), ok_value, true);
  EXPECT_TRUE(ValidateFieldNames(StructType({Field("x", map), Field("y", ok_value)})));
  auto bad_map = std::make_shared<MapType>(DataType::String(), nested, true);
  auto in_map = ValidateFieldNames(StructType({Field("m", bad_map)}));
  ASSERT_FALSE(in_map);
  EXPECT_THAT(in_map.error().message, HasSubstr("m.value"));
  auto top = ValidateFieldNames(
      StructType({Field("Id", DataType::Long()), Field("ID", DataType::Long())}));
  ASSERT_FALSE(top);
  EXPECT_THAT(top.error().message, HasSubstr("top-level"));
}

}  // namespace
}  // namespace deltaguard
