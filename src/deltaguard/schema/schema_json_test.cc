#include "deltaguard/schema/schema_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace deltaguard {
namespace {

// A schema in exactly Spark's output form, with every type, nesting at several levels,
// and metadata of every JSON kind.
constexpr std::string_view kSparkSchema =
    R"j({"type":"struct","fields":[)j"
    R"j({"name":"b","type":"byte","nullable":true,"metadata":{}},)j"
    R"j({"name":"s","type":"short","nullable":true,"metadata":{}},)j"
    R"j({"name":"i","type":"integer","nullable":false,"metadata":{"comment":"an int"}},)j"
    R"j({"name":"l","type":"long","nullable":true,)j"
    R"j("metadata":{"delta.columnMapping.id":7,)j"
    R"j("delta.columnMapping.physicalName":"col-5f1e"}},)j"
    R"j({"name":"f","type":"float","nullable":true,"metadata":{}},)j"
    R"j({"name":"d","type":"double","nullable":true,"metadata":{"x":1.0,"y":-0.5e10}},)j"
    R"j({"name":"dec","type":"decimal(38,18)","nullable":true,"metadata":{}},)j"
    R"j({"name":"str","type":"string","nullable":true,)j"
    R"j("metadata":{"__CHAR_VARCHAR_TYPE_STRING":"varchar(10)"}},)j"
    R"j({"name":"bin","type":"binary","nullable":true,"metadata":{}},)j"
    R"j({"name":"bool","type":"boolean","nullable":true,)j"
    R"j("metadata":{"flag":true,"n":null}},)j"
    R"j({"name":"date","type":"date","nullable":true,"metadata":{}},)j"
    R"j({"name":"ts","type":"timestamp","nullable":true,"metadata":{}},)j"
    R"j({"name":"ntz","type":"timestamp_ntz","nullable":true,"metadata":{}},)j"
    R"j({"name":"v","type":"variant","nullable":true,"metadata":{}},)j"
    R"j({"name":"nil","type":"void","nullable":true,"metadata":{}},)j"
    R"j({"name":"arr","type":{"type":"array","elementType":{"type":"struct","fields":[)j"
    R"j({"name":"x","type":"integer","nullable":true,"metadata":{}}]},)j"
    R"j("containsNull":false},)j"
    R"j("nullable":true,"metadata":{}},)j"
    R"j({"name":"m","type":{"type":"map","keyType":"string","valueType":{"type":"map",)j"
    R"j("keyType":"integer","valueType":{"type":"array","elementType":"decimal(5,2)",)j"
    R"j("containsNull":true},"valueContainsNull":false},"valueContainsNull":true},)j"
    R"j("nullable":true,"metadata":{}},)j"
    R"j({"name":"st","type":{"type":"struct","fields":[{"name":"inner","type":{"type":)j"
    R"j("struct","fields":[{"name":"deep","type":"long","nullable":false,"metadata":)j"
    R"j({"delta.typeChanges":[{"toType":"long","fromType":"integer"}]}}]},)j"
    R"j("nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}}]})j";

SchemaRef MustParse(std::string_view json) {
  auto parsed = ParseSchemaJson(json);
  EXPECT_TRUE(parsed) << parsed.error().ToString();
  return parsed ? *parsed : nullptr;
}

Error MustFail(std::string_view json) {
  auto parsed = ParseSchemaJson(json);
  EXPECT_FALSE(parsed) << "unexpectedly parsed: " << json;
  return parsed ? Error{ErrorCode::kInternal, "parsed"} : parsed.error();
}

std::string OneField(std::string_view type_json, std::string_view extra = "") {
  return fmt::format(
      R"j({{"type":"struct","fields":[{{"name":"a","type":{},"nullable":true{}}}]}})j",
      type_json, extra);
}

TEST(SchemaJsonTest, SparkSchemaRoundTripsByteForByte) {
  SchemaRef schema = MustParse(kSparkSchema);
  ASSERT_TRUE(schema);
  EXPECT_EQ(SchemaToJson(*schema), kSparkSchema);
  ASSERT_EQ(schema->num_fields(), 18u);
  EXPECT_EQ(schema->field(2).nullable, false);
  EXPECT_EQ(schema->field(2).comment(), "an int");
  EXPECT_EQ(schema->field(3).column_mapping_id(), 7);
  EXPECT_EQ(schema->field(3).physical_name(), "col-5f1e");
  EXPECT_EQ(schema->field(6).type->ToString(), "decimal(38,18)");
  EXPECT_EQ(schema->field(15).type->ToString(), "array<struct<x: integer>>");
  EXPECT_EQ(schema->field(16).type->ToString(),
            "map<string,map<integer,array<decimal(5,2)>>>");
  const StructField* deep = schema->FindPath({"st", "inner", "deep"});
  ASSERT_NE(deep, nullptr);
  EXPECT_EQ(deep->type->kind(), TypeKind::kLong);
  EXPECT_EQ(*deep->metadata.FindRaw(kTypeChangesKey),
            R"j([{"toType":"long","fromType":"integer"}])j");
}

TEST(SchemaJsonTest, ParseIsStableUnderReserialization) {
  SchemaRef once = MustParse(kSparkSchema);
  SchemaRef twice = MustParse(SchemaToJson(*once));
  ASSERT_TRUE(once && twice);
  EXPECT_EQ(*once, *twice);
}

TEST(SchemaJsonTest, MetadataValuesKeepTheirRawText) {
  // Numbers that a float round trip would reformat, and a 20-digit integer.
  std::string json = OneField(
      R"j("long")j",
      R"j(,"metadata":{"a":1.0,"b":1e5,"c":-0,"d":12345678901234567890,"e":0.1000,)j"
      R"j("f":[1,{"g":"h"}],"i":{"j":false}})j");
  SchemaRef schema = MustParse(json);
  ASSERT_TRUE(schema);
  const FieldMetadata& md = schema->field(0).metadata;
  ASSERT_EQ(md.entries().size(), 7u);
  EXPECT_EQ(*md.FindRaw("a"), "1.0");
  EXPECT_EQ(*md.FindRaw("b"), "1e5");
  EXPECT_EQ(*md.FindRaw("c"), "-0");
  EXPECT_EQ(*md.FindRaw("d"), "12345678901234567890");
  EXPECT_EQ(*md.FindRaw("e"), "0.1000");
  EXPECT_EQ(*md.FindRaw("f"), R"j([1,{"g":"h"}])j");
  EXPECT_EQ(*md.FindRaw("i"), R"j({"j":false})j");
  EXPECT_EQ(SchemaToJson(*schema), json);
}

TEST(SchemaJsonTest, PrettyPrintedMetadataKeepsItsSpacing) {
  std::string json = OneField(R"j("long")j", R"j(, "metadata": { "k" : [ 1, 2 ] })j");
  SchemaRef schema = MustParse(json);
  ASSERT_TRUE(schema);
  EXPECT_EQ(*schema->field(0).metadata.FindRaw("k"), "[ 1, 2 ]");
}

TEST(SchemaJsonTest, UnicodeAndEscapesRoundTrip) {
  // Raw UTF-8 stays raw; escapes JSON requires are written the way Jackson writes them.
  std::string json =
      R"j({"type":"struct","fields":[)j"
      R"j({"name":"caf\u00e9","type":"string","nullable":true,"metadata":{}},)j"
      "{\"name\":\"\xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80\",\"type\":\"string\","
      "\"nullable\":true,\"metadata\":{\"comment\":\"\xc3\xa9t\xc3\xa9\"}},"
      R"j({"name":"q\"b\\s\/n\n\u0001\t","type":"string","nullable":true,)j"
      R"j("metadata":{}}]})j";
  SchemaRef schema = MustParse(json);
  ASSERT_TRUE(schema);
  EXPECT_EQ(schema->field(0).name, "caf\xc3\xa9");
  EXPECT_EQ(schema->field(1).name, "\xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80");
  EXPECT_EQ(schema->field(1).comment(), "\xc3\xa9t\xc3\xa9");
  EXPECT_EQ(schema->field(2).name, "q\"b\\s/n\n\x01\t");
  std::string out = SchemaToJson(*schema);
  // \u00e9 comes back as raw UTF-8 and \/ as '/', as Spark would write them.
  EXPECT_THAT(out, HasSubstr("\"name\":\"caf\xc3\xa9\""));
  EXPECT_THAT(out, HasSubstr(R"j("name":"q\"b\\s/n\n\u0001\t")j"));
  EXPECT_THAT(out, HasSubstr("\xf0\x9f\x98\x80"));
  // A surrogate pair escape decodes to one 4-byte UTF-8 character.
  SchemaRef pair =
      MustParse(OneField(R"j("long")j", R"j(,"metadata":{"\ud83d\ude00":1})j"));
  ASSERT_TRUE(pair);
  EXPECT_EQ(pair->field(0).metadata.entries()[0].first, "\xf0\x9f\x98\x80");
  EXPECT_EQ(*MustParse(out), *schema);
}

TEST(SchemaJsonTest, MissingMetadataIsEmptyAndEmittedAsEmptyObject) {
  SchemaRef schema = MustParse(OneField(R"j("integer")j"));
  ASSERT_TRUE(schema);
  EXPECT_TRUE(schema->field(0).metadata.empty());
  EXPECT_EQ(SchemaToJson(*schema), OneField(R"j("integer")j", R"j(,"metadata":{})j"));
}

TEST(SchemaJsonTest, UnknownKeysAreAcceptedAndKeyOrderDoesNotMatter) {
  std::string json =
      R"j({ "fields" : [ { "metadata" : {}, "nullable" : false, "extra" : [1],)j"
      R"j( "type" : { "valueContainsNull" : true, "valueType" : "long",)j"
      R"j( "keyType" : "string", "type" : "map", "note" : null }, "name" : "m" } ],)j"
      R"j( "type" : "struct", "x" : 1 })j";
  SchemaRef schema = MustParse(json);
  ASSERT_TRUE(schema);
  EXPECT_EQ(SchemaToJson(*schema),
            R"j({"type":"struct","fields":[{"name":"m","type":{"type":"map","keyType":)j"
            R"j("string","valueType":"long","valueContainsNull":true},"nullable":false,)j"
            R"j("metadata":{}}]})j");
}

TEST(SchemaJsonTest, DecimalWithSpacesIsNormalized) {
  SchemaRef schema = MustParse(OneField(R"j("decimal(10, 4)")j"));
  ASSERT_TRUE(schema);
  EXPECT_THAT(SchemaToJson(*schema), HasSubstr(R"j("type":"decimal(10,4)")j"));
}

TEST(SchemaJsonTest, UnknownTypeNamesTheTypeAndThePath) {
  Error top = MustFail(OneField(R"j("int")j"));
  EXPECT_EQ(top.code, ErrorCode::kParseError);
  EXPECT_THAT(top.message, HasSubstr("'int'"));
  EXPECT_THAT(top.message, HasSubstr("field 'a'"));

  Error nested = MustFail(
      OneField(R"j({"type":"struct","fields":[{"name":"b","type":{"type":"array",)j"
               R"j("elementType":"strin","containsNull":true},"nullable":true}]})j"));
  EXPECT_EQ(nested.code, ErrorCode::kParseError);
  EXPECT_THAT(nested.message, HasSubstr("'strin'"));
  EXPECT_THAT(nested.message, HasSubstr("'a.b.element'"));

  Error map_key =
      MustFail(OneField(R"j({"type":"map","keyType":"float8","valueType":"long",)j"
                        R"j("valueContainsNull":true})j"));
  EXPECT_THAT(map_key.message, HasSubstr("'a.key'"));
  Error map_value = MustFail(OneField(
      R"j({"type":"map","keyType":"long","valueType":"x","valueContainsNull":true})j"));
  EXPECT_THAT(map_value.message, HasSubstr("'a.value'"));

  Error udt = MustFail(OneField(R"j({"type":"udt","class":"x"})j"));
  EXPECT_THAT(udt.message, HasSubstr("'udt'"));
  EXPECT_THAT(udt.message, HasSubstr("field 'a'"));
}

TEST(SchemaJsonTest, DecimalBoundsAreChecked) {
  for (std::string_view bad :
       {R"j("decimal(39,2)")j", R"j("decimal(0,0)")j", R"j("decimal(4,5)")j"}) {
    Error e = MustFail(OneField(bad));
    EXPECT_EQ(e.code, ErrorCode::kParseError) << bad;
    EXPECT_THAT(e.message, HasSubstr("field 'a'")) << bad;
  }
}

TEST(SchemaJsonTest, GeospatialTypeIsUnsupportedFeature) {
  Error e = MustFail(OneField(R"j("geography(OGC:CRS84, spherical)")j"));
  EXPECT_EQ(e.code, ErrorCode::kUnsupportedFeature);
  EXPECT_THAT(e.message, HasSubstr("field 'a'"));
}

TEST(SchemaJsonTest, DuplicateNamesAreRejectedCaseInsensitivelyAtEachLevel) {
  Error top = MustFail(
      R"j({"type":"struct","fields":[{"name":"Id","type":"long","nullable":true},)j"
      R"j({"name":"ID","type":"long","nullable":true}]})j");
  EXPECT_EQ(top.code, ErrorCode::kParseError);
  EXPECT_THAT(top.message, HasSubstr("'ID'"));
  EXPECT_THAT(top.message, HasSubstr("'Id'"));
  EXPECT_THAT(top.message, HasSubstr("top-level"));

  Error nested = MustFail(OneField(
      R"j({"type":"struct","fields":[{"name":"x","type":"long","nullable":true},)j"
      R"j({"name":"X","type":"long","nullable":true}]})j"));
  EXPECT_THAT(nested.message, HasSubstr("struct 'a'"));
  EXPECT_THAT(nested.message, HasSubstr("'X'"));

  // The same name at different levels is fine.
  EXPECT_TRUE(MustParse(
      R"j({"type":"struct","fields":[{"name":"a","type":{"type":"struct","fields":[)j"
      R"j({"name":"a","type":"long","nullable":true}]},"nullable":true}]})j"));
}

TEST(SchemaJsonTest, StructuralErrorsNameWhatIsWrong) {
  struct Case {
    std::string json;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {R"j({"type":"struct","fields":[)j", "offset"},
      {"", "offset 0"},
      {R"j([1,2])j", "got an array"},
      {R"j({"type":"array","elementType":"long","containsNull":true})j", "struct"},
      {R"j({"type":"struct"})j", "\"fields\""},
      {R"j({"type":"struct","fields":{}})j",
       "\"fields\" of the struct type must be an array, got an object"},
      {R"j({"type":"struct","fields":[1]})j", "JSON object"},
      {R"j({"type":"struct","fields":[{"type":"long","nullable":true}]})j", "\"name\""},
      {R"j({"type":"struct","fields":[{"name":"a","nullable":true}]})j", "\"type\""},
      {R"j({"type":"struct","fields":[{"name":"a","type":"long"}]})j", "\"nullable\""},
      {OneField(R"j("long")j").replace(OneField(R"j("long")j").find("true"), 4, "1"),
       "must be a boolean"},
      {OneField(R"j("long")j", R"j(,"metadata":[])j"),
       "\"metadata\" of the struct field must be an object"},
      {OneField(R"j("long")j", R"j(,"metadata":{"k":1,"k":2})j"), "duplicate key 'k'"},
      {OneField(R"j({"type":"array","elementType":"long"})j"), "\"containsNull\""},
      {OneField(R"j({"type":"array","containsNull":true})j"), "\"elementType\""},
      {OneField(R"j({"type":"map","keyType":"long","valueType":"long"})j"),
       "\"valueContainsNull\""},
      {OneField(R"j({"type":"map","valueType":"long","valueContainsNull":true})j"),
       "\"keyType\""},
      {OneField("7"), "string or an object"},
      {OneField(R"j({"elementType":"long"})j"), "\"type\""},
      {std::string(R"j({"type":"struct","fields":[]} x)j"), "offset"},
      {std::string(R"j({"type":"struct","fields":[]})j") + std::string(1, '\0') + "x",
       "unexpected content"},
      {OneField(R"j("long")j")
           .replace(OneField(R"j("long")j").find("\"a\""), 3, R"j("\uDDDD")j"),
       "lone UTF-16 surrogate"},
      {OneField(R"j("long")j", R"j(,"metadata":{"\ud800x":1})j"), "offset"},
      {"{\"type\":\"struct\",\"fields\":[{\"name\":\"\xff\",\"type\":\"long\","
       "\"nullable\":true}]}",
       "encoding"},
  };
  for (const Case& c : cases) {
    Error e = MustFail(c.json);
    EXPECT_EQ(e.code, ErrorCode::kParseError) << c.json;
    EXPECT_THAT(e.message, HasSubstr(c.expected)) << c.json;
  }
}

TEST(SchemaJsonTest, DeepNestingIsRejectedNotACrash) {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "[";
  Error e = MustFail(deep);
  EXPECT_EQ(e.code, ErrorCode::kParseError);
  EXPECT_THAT(e.message, HasSubstr("deeper"));

  // 100 nested arrays of long are fine.
  std::string type = R"j("long")j";
  for (int i = 0; i < 100; ++i) {
    type = R"j({"type":"array","elementType":)j" + type + R"j(,"containsNull":true})j";
  }
  SchemaRef schema = MustParse(OneField(type, R"j(,"metadata":{})j"));
  ASSERT_TRUE(schema);
  EXPECT_EQ(SchemaToJson(*schema), OneField(type, R"j(,"metadata":{})j"));
}

TEST(SchemaJsonTest, EmptyStructRoundTrips) {
  constexpr std::string_view kEmpty = R"j({"type":"struct","fields":[]})j";
  SchemaRef schema = MustParse(kEmpty);
  ASSERT_TRUE(schema);
  EXPECT_EQ(schema->num_fields(), 0u);
  EXPECT_EQ(SchemaToJson(*schema), kEmpty);
}

TEST(DataTypeJsonTest, ParsesStringsObjectsAndBareNames) {
  auto quoted = ParseDataTypeJson(R"j("long")j");
  ASSERT_TRUE(quoted) << quoted.error().ToString();
  EXPECT_EQ(**quoted, *DataType::Long());
  auto bare = ParseDataTypeJson(" decimal(10, 2) ");
  ASSERT_TRUE(bare) << bare.error().ToString();
  EXPECT_EQ((*bare)->ToString(), "decimal(10,2)");
  auto arr = ParseDataTypeJson(
      R"j({"type":"array","elementType":"date","containsNull":false})j");
  ASSERT_TRUE(arr) << arr.error().ToString();
  EXPECT_EQ((*arr)->ToString(), "array<date>");
  EXPECT_FALSE(static_cast<const ArrayType&>(**arr).contains_null());

  auto bad = ParseDataTypeJson(R"j("nope")j");
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message, HasSubstr("'nope'"));
  EXPECT_FALSE(ParseDataTypeJson(R"j({"type":"array")j"));
}

TEST(DataTypeJsonTest, SerializesPrimitivesAsJsonStrings) {
  EXPECT_EQ(DataTypeToJson(*DataType::TimestampNtz()), R"j("timestamp_ntz")j");
  EXPECT_EQ(DataTypeToJson(DecimalType(7, 3)), R"j("decimal(7,3)")j");
  EXPECT_EQ(DataTypeToJson(MapType(DataType::String(), DataType::Variant(), false)),
            R"j({"type":"map","keyType":"string","valueType":"variant",)j"
            R"j("valueContainsNull":false})j");
}

TEST(DataTypeJsonTest, ProgrammaticMetadataIsEmittedVerbatim) {
  StructField f{"c", DataType::Integer(), false, {}};
  f.metadata = f.metadata.With("comment", "\"hi\"").With("delta.columnMapping.id", "3");
  StructType st({f});
  EXPECT_EQ(
      SchemaToJson(st),
      R"j({"type":"struct","fields":[{"name":"c","type":"integer","nullable":false,)j"
      R"j("metadata":{"comment":"hi","delta.columnMapping.id":3}}]})j");
}

}  // namespace
}  // namespace deltaguard
