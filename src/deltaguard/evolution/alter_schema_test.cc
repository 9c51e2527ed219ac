// The ALTER TABLE schema transforms: every operation, every refusal (a labelled
// matrix), and every type-widening pair Delta 4.x allows plus a sample of refused ones.

#include "deltaguard/evolution/alter_schema.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "deltaguard/schema/ddl.h"
#include "deltaguard/schema/schema_json.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

SchemaRef Schema(const std::string& ddl) {
  auto schema = ParseDdlSchema(ddl);
  EXPECT_TRUE(schema) << schema.error().ToString();
  return schema ? *schema : nullptr;
}

DataTypeRef Type(const std::string& ddl) {
  auto type = ParseDdlType(ddl);
  EXPECT_TRUE(type) << type.error().ToString();
  return type ? *type : nullptr;
}

// Field names of a struct, in order, for order checks.
std::string Names(const StructType& s) {
  std::string out;
  for (const auto& f : s.fields()) out += (out.empty() ? "" : ",") + f.name;
  return out;
}

const StructType& StructAt(const StructType& s, const std::vector<std::string>& path) {
  const StructField* f = s.FindPath(path);
  EXPECT_NE(f, nullptr);
  return static_cast<const StructType&>(*f->type);
}

constexpr const char* kBase =
    "id BIGINT NOT NULL, name STRING, s STRUCT<a: INT, b: STRING>, "
    "arr ARRAY<STRUCT<x: INT>>, m MAP<STRING, STRUCT<v: INT>>, ints ARRAY<INT>, "
    "country STRING";

AlterContext Context(ColumnMappingMode mode = ColumnMappingMode::kName,
                     bool widening = true) {
  AlterContext c;
  c.table_name = "t";
  c.partition_columns = {"country"};
  c.column_mapping = mode;
  c.type_widening_enabled = widening;
  c.constraints = {{"positive", "s.a > 0", {{"s", "a"}}}};
  return c;
}

NewColumnSpec Col(std::vector<std::string> path, const std::string& type) {
  NewColumnSpec spec;
  spec.path = std::move(path);
  spec.type = Type(type);
  return spec;
}

// ---- ADD COLUMNS ---------------------------------------------------------------------

TEST(AddColumnsTest, AppendsFirstAfterNestedAndInArrays) {
  auto schema = Schema(kBase);
  std::vector<NewColumnSpec> specs;
  specs.push_back(Col({"c1"}, "INT"));
  specs.push_back(Col({"c0"}, "STRING"));
  specs.back().position = ColumnPosition{true, ""};
  specs.push_back(Col({"NAME2"}, "DATE"));
  specs.back().position = ColumnPosition{false, "NAME"};  // case-insensitive sibling
  specs.push_back(Col({"S", "c"}, "DOUBLE"));
  specs.back().comment = "nested";
  specs.push_back(Col({"arr", "element", "y"}, "BIGINT"));
  specs.push_back(Col({"m", "value", "w"}, "STRING"));
  specs.back().position = ColumnPosition{true, ""};
  specs.push_back(Col({"c2"}, "INT"));
  specs.back().position = ColumnPosition{false, "c1"};  // after an earlier spec
  auto result = AddColumnsToSchema(*schema, specs, Context(ColumnMappingMode::kNone));
  ASSERT_TRUE(result) << result.error().ToString();
  const StructType& out = *result->schema;
  EXPECT_EQ(Names(out), "c0,id,name,NAME2,s,arr,m,ints,country,c1,c2");
  EXPECT_EQ(Names(StructAt(out, {"s"})), "a,b,c");
  EXPECT_EQ(out.FindPath({"s", "c"})->comment(), "nested");
  EXPECT_TRUE(out.FindPath({"s", "c"})->nullable);
  const auto& arr = static_cast<const ArrayType&>(*out.FindPath({"arr"})->type);
  EXPECT_EQ(Names(static_cast<const StructType&>(*arr.element_type())), "x,y");
  const auto& m = static_cast<const MapType&>(*out.FindPath({"m"})->type);
  EXPECT_EQ(Names(static_cast<const StructType&>(*m.value_type())), "w,v");
  ASSERT_EQ(result->columns.size(), 7u);
  EXPECT_EQ(result->columns[3], (std::vector<std::string>{"s", "c"}));  // table spelling
  EXPECT_EQ(result->changes[1], "added column 'c0' (string) first");
  EXPECT_EQ(result->changes[3], "added column 's.c' (double)");
  // The input schema is untouched (copy on write).
  EXPECT_EQ(Names(*schema), "id,name,s,arr,m,ints,country");
}

TEST(AddColumnsTest, NewColumnsDropCopiedColumnMappingMetadata) {
  auto schema = Schema("id INT");
  auto inner = std::make_shared<StructType>(std::vector<StructField>{
      {"x", DataType::Integer(), true,
       FieldMetadata({{std::string(kColumnMappingIdKey), "7"},
                      {std::string(kColumnMappingPhysicalNameKey), "\"col-x\""}})}});
  NewColumnSpec spec;
  spec.path = {"s"};
  spec.type = inner;
  auto result = AddColumnsToSchema(*schema, {spec}, Context());
  ASSERT_TRUE(result) << result.error().ToString();
  EXPECT_TRUE(result->schema->FindPath({"s", "x"})->metadata.empty());
}

// ---- RENAME / DROP -------------------------------------------------------------------

// `schema` (kBase) with a physical name on s.b, as a column-mapped table has.
SchemaRef EditFieldForTest(const StructType& schema) {
  std::vector<StructField> fields = schema.fields();
  std::vector<StructField> s = static_cast<const StructType&>(*fields[2].type).fields();
  s[1].metadata = s[1].metadata.With(kColumnMappingPhysicalNameKey, "\"col-b\"");
  fields[2].type = std::make_shared<StructType>(std::move(s));
  return std::make_shared<StructType>(std::move(fields));
}

TEST(RenameColumnTest, KeepsMetadataPositionAndAllowsCaseChange) {
  auto schema = Schema(kBase);
  auto with_id = EditFieldForTest(*schema);
  auto result = RenameColumnInSchema(*with_id, {"S", "B"}, "bee", Context());
  ASSERT_TRUE(result) << result.error().ToString();
  EXPECT_EQ(Names(StructAt(*result->schema, {"s"})), "a,bee");
  EXPECT_EQ(result->schema->FindPath({"s", "bee"})->physical_name(), "col-b");
  EXPECT_EQ(result->columns[0], (std::vector<std::string>{"s", "b"}));
  EXPECT_EQ(result->new_path, (std::vector<std::string>{"s", "bee"}));
  EXPECT_EQ(result->changes[0], "renamed column 's.b' to 's.bee'");

  auto recased = RenameColumnInSchema(*schema, {"name"}, "NAME", Context());
  ASSERT_TRUE(recased) << recased.error().ToString();
  EXPECT_EQ(Names(*recased->schema), "id,NAME,s,arr,m,ints,country");
  // Partition columns may be renamed (the caller renames partitionColumns).
  auto partition = RenameColumnInSchema(*schema, {"country"}, "region", Context());
  ASSERT_TRUE(partition) << partition.error().ToString();
  EXPECT_EQ(Names(*partition->schema), "id,name,s,arr,m,ints,region");
  // A struct inside an array.
  auto in_array = RenameColumnInSchema(*schema, {"arr", "element", "x"}, "x2", Context());
  ASSERT_TRUE(in_array) << in_array.error().ToString();
  EXPECT_EQ(DataTypeToJson(*in_array->schema->FindPath({"arr"})->type),
            R"({"type":"array","elementType":{"type":"struct","fields":[)"
            R"({"name":"x2","type":"integer","nullable":true,"metadata":{}}]},)"
            R"("containsNull":true})");
}

TEST(DropColumnsTest, DropsNestedSkipsMissingWithIfExistsAndDeduplicates) {
  auto schema = Schema(kBase);
  auto result = DropColumnsFromSchema(
      *schema, {{"name"}, {"S", "b"}, {"nope"}, {"arr"}, {"arr", "element", "x"}},
      /*if_exists=*/true, Context());
  ASSERT_TRUE(result) << result.error().ToString();
  EXPECT_EQ(Names(*result->schema), "id,s,m,ints,country");
  EXPECT_EQ(Names(StructAt(*result->schema, {"s"})), "a");
  ASSERT_EQ(result->columns.size(), 3u);  // arr.element.x goes with arr
  EXPECT_EQ(result->columns[1], (std::vector<std::string>{"s", "b"}));

  auto nothing = DropColumnsFromSchema(*schema, {{"nope"}}, true, Context());
  ASSERT_TRUE(nothing) << nothing.error().ToString();
  EXPECT_TRUE(nothing->columns.empty());
  EXPECT_TRUE(nothing->schema->Equals(*schema));
}

// ---- ALTER COLUMN --------------------------------------------------------------------

TEST(ChangeColumnTest, CommentPositionNullabilityAndNoOps) {
  auto schema = Schema(kBase);
  ChangeColumnSpec spec;
  spec.comment = "the name";
  spec.position = ColumnPosition{true, ""};
  auto result = ChangeColumnInSchema(*schema, {"NAME"}, spec, Context());
  ASSERT_TRUE(result) << result.error().ToString();
  EXPECT_EQ(Names(*result->schema), "name,id,s,arr,m,ints,country");
  EXPECT_EQ(result->schema->field(0).comment(), "the name");
  ASSERT_TRUE(result->field);
  EXPECT_EQ(result->field->comment(), "the name");
  EXPECT_EQ(result->changes.size(), 2u);

  ChangeColumnSpec after;
  after.position = ColumnPosition{false, "b"};
  auto nested = ChangeColumnInSchema(*schema, {"s", "a"}, after, Context());
  ASSERT_TRUE(nested) << nested.error().ToString();
  EXPECT_EQ(Names(StructAt(*nested->schema, {"s"})), "b,a");

  ChangeColumnSpec drop_not_null;
  drop_not_null.nullable = true;
  auto dropped = ChangeColumnInSchema(*schema, {"id"}, drop_not_null, Context());
  ASSERT_TRUE(dropped) << dropped.error().ToString();
  EXPECT_TRUE(dropped->schema->field(0).nullable);
  EXPECT_FALSE(dropped->tightened_nullability);

  ChangeColumnSpec set_not_null;
  set_not_null.nullable = false;
  auto set = ChangeColumnInSchema(*schema, {"s", "b"}, set_not_null, Context());
  ASSERT_TRUE(set) << set.error().ToString();
  EXPECT_FALSE(set->schema->FindPath({"s", "b"})->nullable);
  EXPECT_TRUE(set->tightened_nullability);

  // Changes to the current definition leave the schema as it is.
  ChangeColumnSpec same;
  same.type = DataType::Long();
  same.nullable = false;
  auto noop = ChangeColumnInSchema(*schema, {"id"}, same, Context());
  ASSERT_TRUE(noop) << noop.error().ToString();
  EXPECT_TRUE(noop->schema->Equals(*schema));
  EXPECT_TRUE(noop->changes.empty());
  ChangeColumnSpec element_nullable;
  element_nullable.nullable = true;  // array<int> elements are nullable already
  EXPECT_TRUE(
      ChangeColumnInSchema(*schema, {"ints", "element"}, element_nullable, Context()));
}

TEST(ChangeColumnTest, WideningInsideArraysAndMapsRecordsFieldPath) {
  auto schema = Schema("a ARRAY<INT>, m MAP<SHORT, ARRAY<FLOAT>>, s STRUCT<x: BYTE>");
  ChangeColumnSpec to_long;
  to_long.type = DataType::Long();
  auto a = ChangeColumnInSchema(*schema, {"a", "element"}, to_long, Context());
  ASSERT_TRUE(a) << a.error().ToString();
  EXPECT_EQ(a->schema->field(0).type->ToString(), "array<long>");
  ASSERT_TRUE(a->field);
  EXPECT_EQ(a->field->name, "a");
  EXPECT_EQ(a->field_path, std::vector<std::string>{"a"});
  EXPECT_EQ(*a->schema->field(0).metadata.FindRaw(kTypeChangesKey),
            R"([{"toType":"long","fromType":"integer","fieldPath":"element"}])");
  ChangeColumnSpec to_double;
  to_double.type = DataType::Double();
  auto m =
      ChangeColumnInSchema(*a->schema, {"m", "value", "element"}, to_double, Context());
  ASSERT_TRUE(m) << m.error().ToString();
  EXPECT_EQ(*m->schema->field(1).metadata.FindRaw(kTypeChangesKey),
            R"([{"toType":"double","fromType":"float","fieldPath":"value.element"}])");
  auto k = ChangeColumnInSchema(*m->schema, {"m", "key"}, to_long, Context());
  ASSERT_TRUE(k) << k.error().ToString();
  EXPECT_EQ(k->schema->field(1).type->ToString(), "map<long,array<double>>");
  EXPECT_THAT(*k->schema->field(1).metadata.FindRaw(kTypeChangesKey),
              HasSubstr(R"({"toType":"long","fromType":"short","fieldPath":"key"}])"));
  auto s = ChangeColumnInSchema(*k->schema, {"s", "x"}, to_long, Context());
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(*s->schema->FindPath({"s", "x"})->metadata.FindRaw(kTypeChangesKey),
            R"([{"toType":"long","fromType":"byte"}])");
  // A second widening is appended in history order.
  auto again = ChangeColumnInSchema(*a->schema, {"a", "element"},
                                    ChangeColumnSpec{Type("DECIMAL(22,2)"), {}, {}, {}},
                                    Context());
  ASSERT_TRUE(again) << again.error().ToString();
  EXPECT_EQ(*again->schema->field(0).metadata.FindRaw(kTypeChangesKey),
            R"([{"toType":"long","fromType":"integer","fieldPath":"element"},)"
            R"j({"toType":"decimal(22,2)","fromType":"long",)j"
            R"("fieldPath":"element"}])");
}

// ---- refusals ------------------------------------------------------------------------

struct RefusalCase {
  const char* label;
  std::function<Result<SchemaAlteration>(const StructType&)> run;
  ErrorCode code;
  std::vector<std::string> message_parts;
};

void PrintTo(const RefusalCase& c, std::ostream* os) { *os << c.label; }

class AlterRefusalTest : public ::testing::TestWithParam<RefusalCase> {};

TEST_P(AlterRefusalTest, RefusesNamingTheColumnAndBothSides) {
  const RefusalCase& c = GetParam();
  auto schema = Schema(kBase);
  auto result = c.run(*schema);
  ASSERT_FALSE(result) << c.label << " was accepted";
  EXPECT_EQ(result.error().code, c.code) << result.error().ToString();
  for (const auto& part : c.message_parts) {
    EXPECT_THAT(result.error().message, HasSubstr(part));
  }
}

Result<SchemaAlteration> Add(const StructType& s, NewColumnSpec spec,
                             ColumnMappingMode mode = ColumnMappingMode::kNone) {
  return AddColumnsToSchema(s, {std::move(spec)}, Context(mode));
}

Result<SchemaAlteration> Retype(const StructType& s, std::vector<std::string> path,
                                const std::string& type, bool widening = true) {
  ChangeColumnSpec spec;
  spec.type = Type(type);
  return ChangeColumnInSchema(s, path, spec, Context(ColumnMappingMode::kName, widening));
}

Result<SchemaAlteration> Nullability(const StructType& s, std::vector<std::string> path,
                                     bool nullable) {
  ChangeColumnSpec spec;
  spec.nullable = nullable;
  return ChangeColumnInSchema(s, path, spec, Context());
}

const std::string kMappingHint =
    "ALTER TABLE t SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name')";

std::vector<RefusalCase> RefusalCases() {
  return {
      RefusalCase{"add_not_null",
                  [](const StructType& s) {
                    auto spec = Col({"c"}, "INT");
                    spec.not_null = true;
                    return Add(s, spec);
                  },
                  ErrorCode::kInvalidArgument,
                  {"DELTA_OPERATION_NOT_ALLOWED", "'c'", "NOT NULL",
                   "existing rows would hold NULL", "SET NOT NULL"}},
      RefusalCase{"add_nested_not_null_field",
                  [](const StructType& s) {
                    return Add(s, Col({"c"}, "STRUCT<x: INT NOT NULL>"));
                  },
                  ErrorCode::kInvalidArgument,
                  {"'c.x' is NOT NULL"}},
      RefusalCase{"add_duplicate_case_insensitive",
                  [](const StructType& s) {
                    return Add(s, Col({"S", "A"}, "INT"));
                  },
                  ErrorCode::kAlreadyExists,
                  {"DELTA_DUPLICATE_COLUMNS_FOUND", "'s.A'", "'s.a' already exists"}},
      RefusalCase{"add_duplicate_within_one_statement",
                  [](const StructType& s) {
                    return AddColumnsToSchema(s, {Col({"c"}, "INT"), Col({"C"}, "INT")},
                                              Context(ColumnMappingMode::kNone));
                  },
                  ErrorCode::kAlreadyExists,
                  {"'C'", "'c' already exists"}},
      RefusalCase{"add_unknown_parent",
                  [](const StructType& s) {
                    return Add(s, Col({"zz", "c"}, "INT"));
                  },
                  ErrorCode::kNotFound,
                  {"DELTA_COLUMN_NOT_FOUND", "'zz'", "available columns: id, name, s"}},
      RefusalCase{"add_parent_not_struct",
                  [](const StructType& s) {
                    return Add(s, Col({"arr", "c"}, "INT"));
                  },
                  ErrorCode::kInvalidArgument,
                  {"DELTA_ADD_COLUMN_PARENT_NOT_STRUCT", "'arr'", "array<struct<x"}},
      RefusalCase{
          "add_under_primitive",
          [](const StructType& s) {
            return Add(s, Col({"name", "c"}, "INT"));
          },
          ErrorCode::kInvalidArgument,
          {"DELTA_ADD_COLUMN_PARENT_NOT_STRUCT", "parent 'name' has type string"}},
      RefusalCase{"add_under_primitive_deeper",
                  [](const StructType& s) {
                    return Add(s, Col({"name", "x", "c"}, "INT"));
                  },
                  ErrorCode::kNotFound,
                  {"'name' has type string, which has no fields"}},
      RefusalCase{"add_void",
                  [](const StructType& s) { return Add(s, Col({"c"}, "VOID")); },
                  ErrorCode::kInvalidArgument,
                  {"'c'", "void"}},
      RefusalCase{"add_invalid_characters_without_mapping",
                  [](const StructType& s) { return Add(s, Col({"a b"}, "INT")); },
                  ErrorCode::kInvalidArgument,
                  {"DELTA_INVALID_CHARACTERS_IN_COLUMN_NAMES", "'a b'", kMappingHint}},
      RefusalCase{"add_after_unknown",
                  [](const StructType& s) {
                    auto spec = Col({"s", "c"}, "INT");
                    spec.position = ColumnPosition{false, "zz"};
                    return Add(s, spec);
                  },
                  ErrorCode::kNotFound,
                  {"AFTER 's.zz'", "available: s.a, s.b"}},
      RefusalCase{"rename_without_column_mapping",
                  [](const StructType& s) {
                    return RenameColumnInSchema(s, {"name"}, "n",
                                                Context(ColumnMappingMode::kNone));
                  },
                  ErrorCode::kInvalidArgument,
                  {"DELTA_UNSUPPORTED_RENAME_COLUMN", "'name'", kMappingHint}},
      RefusalCase{"rename_unknown",
                  [](const StructType& s) {
                    return RenameColumnInSchema(s, {"s", "zz"}, "n", Context());
                  },
                  ErrorCode::kNotFound,
                  {"'s.zz'", "available fields: s.a, s.b"}},
      RefusalCase{"rename_to_existing",
                  [](const StructType& s) {
                    return RenameColumnInSchema(s, {"name"}, "ID", Context());
                  },
                  ErrorCode::kAlreadyExists,
                  {"DELTA_DUPLICATE_COLUMNS_FOUND", "'name'", "'ID'", "'id'"}},
      RefusalCase{
          "rename_constraint_column",
          [](const StructType& s) {
            return RenameColumnInSchema(s, {"s"}, "s2", Context());
          },
          ErrorCode::kInvalidArgument,
          {"DELTA_CONSTRAINT_DEPENDENT_COLUMN_CHANGE", "'s'", "'positive'", "s.a > 0"}},
      RefusalCase{"rename_array_element",
                  [](const StructType& s) {
                    return RenameColumnInSchema(s, {"ints", "element"}, "e", Context());
                  },
                  ErrorCode::kInvalidArgument,
                  {"'ints.element'"}},
      RefusalCase{"drop_without_column_mapping",
                  [](const StructType& s) {
                    return DropColumnsFromSchema(s, {{"name"}}, false,
                                                 Context(ColumnMappingMode::kNone));
                  },
                  ErrorCode::kInvalidArgument,
                  {"DELTA_UNSUPPORTED_DROP_COLUMN", "'name'", kMappingHint}},
      RefusalCase{
          "drop_unknown",
          [](const StructType& s) {
            return DropColumnsFromSchema(s, {{"name"}, {"nope"}}, false, Context());
          },
          ErrorCode::kNotFound,
          {"'nope'", "available columns"}},
      RefusalCase{"drop_partition_column",
                  [](const StructType& s) {
                    return DropColumnsFromSchema(s, {{"COUNTRY"}}, false, Context());
                  },
                  ErrorCode::kInvalidArgument,
                  {"DELTA_UNSUPPORTED_DROP_PARTITION_COLUMN", "'country'"}},
      RefusalCase{"drop_constraint_column",
                  [](const StructType& s) {
                    return DropColumnsFromSchema(s, {{"s", "a"}}, false, Context());
                  },
                  ErrorCode::kInvalidArgument,
                  {"DELTA_CONSTRAINT_DEPENDENT_COLUMN_CHANGE", "'s.a'", "'positive'"}},
      RefusalCase{"drop_struct_around_constraint_column",
                  [](const StructType& s) {
                    return DropColumnsFromSchema(s, {{"s"}}, false, Context());
                  },
                  ErrorCode::kInvalidArgument,
                  {"'s'", "'positive'"}},
      RefusalCase{"drop_every_column",
                  [](const StructType& s) {
                    std::vector<std::vector<std::string>> all;
                    for (const auto& f : s.fields()) {
                      if (f.name != "country" && f.name != "s") all.push_back({f.name});
                    }
                    AlterContext c = Context();
                    c.partition_columns.clear();
                    c.constraints.clear();
                    all.push_back({"s"});
                    all.push_back({"country"});
                    return DropColumnsFromSchema(s, all, false, c);
                  },
                  ErrorCode::kInvalidArgument,
                  {"DELTA_DROP_COLUMN_ON_SINGLE_FIELD_SCHEMA", "without columns"}},
      RefusalCase{
          "drop_last_struct_field",
          [](const StructType& s) {
            return DropColumnsFromSchema(s, {{"arr", "element", "x"}}, false, Context());
          },
          ErrorCode::kInvalidArgument,
          {"'arr.element.x'", "struct 'arr.element' without fields"}},
      RefusalCase{
          "drop_array_element",
          [](const StructType& s) {
            return DropColumnsFromSchema(s, {{"ints", "element"}}, false, Context());
          },
          ErrorCode::kInvalidArgument,
          {"'ints.element'"}},
      RefusalCase{"retype_narrowing",
                  [](const StructType& s) { return Retype(s, {"id"}, "INT"); },
                  ErrorCode::kSchemaMismatch,
                  {"DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP", "'id'",
                   "from long to integer", "narrowing"}},
      RefusalCase{"retype_unrelated",
                  [](const StructType& s) { return Retype(s, {"name"}, "INT"); },
                  ErrorCode::kSchemaMismatch,
                  {"'name'", "from string to integer", "unrelated"}},
      RefusalCase{"retype_widening_not_enabled",
                  [](const StructType& s) {
                    return Retype(s, {"arr", "element", "x"}, "BIGINT", false);
                  },
                  ErrorCode::kSchemaMismatch,
                  {"'arr.element.x'", "from integer to long",
                   "'delta.enableTypeWidening' = 'true'"}},
      RefusalCase{"retype_partition_column",
                  [](const StructType& s) { return Retype(s, {"country"}, "INT"); },
                  ErrorCode::kInvalidArgument,
                  {"partition column 'country'", "from string to integer"}},
      RefusalCase{"retype_constraint_column",
                  [](const StructType& s) {
                    return Retype(s, {"s", "a"}, "BIGINT");
                  },
                  ErrorCode::kInvalidArgument,
                  {"DELTA_CONSTRAINT_DEPENDENT_COLUMN_CHANGE", "'s.a'", "'positive'"}},
      RefusalCase{"retype_struct_wholesale",
                  [](const StructType& s) {
                    return Retype(s, {"s"}, "STRUCT<a: BIGINT, b: STRING>");
                  },
                  ErrorCode::kSchemaMismatch,
                  {"DELTA_CANNOT_UPDATE_STRUCT_FIELD", "'s'", "one by one"}},
      RefusalCase{
          "retype_array_wholesale",
          [](const StructType& s) { return Retype(s, {"ints"}, "ARRAY<BIGINT>"); },
          ErrorCode::kSchemaMismatch,
          {"DELTA_CANNOT_UPDATE_ARRAY_FIELD", "change 'ints.element' instead"}},
      RefusalCase{
          "retype_map_wholesale",
          [](const StructType& s) { return Retype(s, {"m"}, "MAP<STRING, STRING>"); },
          ErrorCode::kSchemaMismatch,
          {"DELTA_CANNOT_UPDATE_MAP_FIELD", "'m.key' or 'm.value'"}},
      RefusalCase{
          "retype_primitive_to_struct",
          [](const StructType& s) { return Retype(s, {"name"}, "STRUCT<x: INT>"); },
          ErrorCode::kSchemaMismatch,
          {"'name'", "nested type"}},
      RefusalCase{"set_not_null_inside_array",
                  [](const StructType& s) {
                    return Nullability(s, {"arr", "element", "x"}, false);
                  },
                  ErrorCode::kInvalidArgument,
                  {"DELTA_NESTED_NOT_NULL_CONSTRAINT", "'arr.element.x'"}},
      RefusalCase{"set_not_null_on_array_element",
                  [](const StructType& s) {
                    return Nullability(s, {"ints", "element"}, false);
                  },
                  ErrorCode::kInvalidArgument,
                  {"'ints.element'", "cannot change"}},
      RefusalCase{"drop_not_null_on_map_key",
                  [](const StructType& s) {
                    return Nullability(s, {"m", "key"}, true);
                  },
                  ErrorCode::kInvalidArgument,
                  {"'m.key'"}},
      RefusalCase{"comment_on_array_element",
                  [](const StructType& s) {
                    ChangeColumnSpec spec;
                    spec.comment = "x";
                    return ChangeColumnInSchema(s, {"ints", "element"}, spec, Context());
                  },
                  ErrorCode::kInvalidArgument,
                  {"'ints.element'"}},
      RefusalCase{"address_map_wrongly",
                  [](const StructType& s) {
                    return Nullability(s, {"m", "v"}, true);
                  },
                  ErrorCode::kNotFound,
                  {"'m' is a map", "'m.key' and 'm.value'"}},
      RefusalCase{"change_nothing",
                  [](const StructType& s) {
                    return ChangeColumnInSchema(s, {"id"}, {}, Context());
                  },
                  ErrorCode::kInvalidArgument,
                  {"nothing to change"}}};
}

INSTANTIATE_TEST_SUITE_P(Matrix, AlterRefusalTest, ::testing::ValuesIn(RefusalCases()),
                         [](const ::testing::TestParamInfo<RefusalCase>& info) {
                           return std::string(info.param.label);
                         });

// ---- helpers -------------------------------------------------------------------------

TEST(FormatColumnPathTest, QuotesPartsWithDotsOrBackticks) {
  EXPECT_EQ(FormatColumnPath({"a", "b"}), "a.b");
  EXPECT_EQ(FormatColumnPath({"a.b", "c"}), "`a.b`.c");
  EXPECT_EQ(FormatColumnPath({"x`y"}), "`x``y`");
}

}  // namespace
}  // namespace deltaguard
