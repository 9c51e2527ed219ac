#include "deltaguard/protocol/column_mapping.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "deltaguard/schema/ddl.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/util/string_util.h"
#include "testing/matchers.h"
#include "testing/schema_util.h"

namespace deltaguard {
namespace {

struct Seen {
  std::string path;
  int64_t id;
  std::string physical;
};

std::vector<Seen> Collect(const StructType& schema) {
  std::vector<Seen> out;
  ForEachField(schema, [&](const std::string& path, const StructField& f) {
    out.push_back(
        {path, f.column_mapping_id().value_or(-1), f.physical_name().value_or("")});
  });
  return out;
}

const char* kNested =
    "id BIGINT, s STRUCT<x: INT, y: STRUCT<z: STRING>>, "
    "arr ARRAY<STRUCT<e: INT>>, m MAP<STRUCT<k: INT>, STRUCT<v: INT>>";

TEST(ColumnMappingTest, AssignsIdsPreOrderAtEveryDepth) {
  auto got = AssignColumnMapping(*Ddl(kNested), 0, false);
  ASSERT_TRUE(got.has_value()) << got.error().message;
  EXPECT_EQ(got->max_column_id, 10);
  std::vector<Seen> seen = Collect(*got->schema);
  std::vector<std::string> paths;
  std::vector<int64_t> ids;
  for (const Seen& s : seen) {
    paths.push_back(s.path);
    ids.push_back(s.id);
  }
  EXPECT_THAT(paths, ElementsAre("id", "s", "s.x", "s.y", "s.y.z", "arr", "arr.element.e",
                                 "m", "m.key.k", "m.value.v"));
  EXPECT_THAT(ids, ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
  const std::regex uuid(
      "col-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  std::set<std::string> names;
  for (const Seen& s : seen) {
    EXPECT_TRUE(std::regex_match(s.physical, uuid)) << s.physical;
    names.insert(s.physical);
  }
  EXPECT_EQ(names.size(), seen.size());
  EXPECT_TRUE(ValidateColumnMapping(*got->schema, got->max_column_id));
  // Display names, types and other metadata are untouched.
  EXPECT_EQ(got->schema->field(1).name, "s");
  EXPECT_EQ(got->schema->field(0).type->kind(), TypeKind::kLong);
}

TEST(ColumnMappingTest, KeepNamesAsPhysicalForUpgrades) {
  auto got = AssignColumnMapping(*Ddl("a INT, `Weird Name` STRUCT<b: INT>"), 0, true);
  ASSERT_TRUE(got.has_value());
  std::vector<Seen> seen = Collect(*got->schema);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].physical, "a");
  EXPECT_EQ(seen[1].physical, "Weird Name");
  EXPECT_EQ(seen[2].physical, "b");
  EXPECT_EQ(seen[2].id, 3);
  // The metadata is written the way Spark writes it.
  auto json = SchemaToJson(*got->schema);
  EXPECT_THAT(json, HasSubstr(R"("delta.columnMapping.id":2,)"
                              R"("delta.columnMapping.physicalName":"Weird Name")"));
}

TEST(ColumnMappingTest, OnlyNewFieldsGetIdsAboveTheMax) {
  auto first = AssignColumnMapping(*Ddl("a INT, b INT"), 0, false);
  ASSERT_TRUE(first.has_value());
  // Add a column c and a nested struct d to the mapped schema.
  std::vector<StructField> fields = first->schema->fields();
  SchemaRef added = Ddl("c INT, d STRUCT<e: INT>");
  for (const StructField& f : added->fields()) fields.push_back(f);
  StructType grown(fields);
  // maxColumnId says 5 (ids 3..5 were used by columns dropped earlier).
  auto second = AssignColumnMapping(grown, 5, false);
  ASSERT_TRUE(second.has_value());
  std::vector<Seen> before = Collect(*first->schema);
  std::vector<Seen> after = Collect(*second->schema);
  ASSERT_EQ(after.size(), 5u);
  EXPECT_EQ(after[0].id, 1);
  EXPECT_EQ(after[0].physical, before[0].physical);
  EXPECT_EQ(after[1].physical, before[1].physical);
  EXPECT_EQ(after[2].id, 6);
  EXPECT_EQ(after[3].id, 7);
  EXPECT_EQ(after[4].id, 8);
  EXPECT_EQ(second->max_column_id, 8);
  // Nothing new: max unchanged.
  auto third = AssignColumnMapping(*second->schema, 8, false);
  ASSERT_TRUE(third.has_value());
  EXPECT_EQ(third->max_column_id, 8);
  EXPECT_TRUE(third->schema->Equals(*second->schema));
}

TEST(ColumnMappingTest, StaleMaxNeverDuplicatesIds) {
  auto first = AssignColumnMapping(*Ddl("a INT, b INT"), 0, false);
  ASSERT_TRUE(first.has_value());
  std::vector<StructField> fields = first->schema->fields();
  fields.push_back(Ddl("c INT")->field(0));
  auto got = AssignColumnMapping(StructType(fields), 0, false);  // stale: ids 1,2 exist
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(Collect(*got->schema)[2].id, 3);
  EXPECT_EQ(got->max_column_id, 3);
}

TEST(ColumnMappingTest, AssignmentErrors) {
  EXPECT_EQ(AssignColumnMapping(*Ddl("a INT"), -1, false).error().code,
            ErrorCode::kInvalidArgument);
  StructField bad{"a", DataType::Integer(), true,
                  FieldMetadata().With(kColumnMappingIdKey, "\"one\"")};
  auto got = AssignColumnMapping(StructType({bad}), 0, false);
  ASSERT_FALSE(got.has_value());
  EXPECT_THAT(got.error().message, HasSubstr("column 'a'"));
}

StructField Mapped(std::string name, int64_t id, std::string physical,
                   DataTypeRef type = DataType::Integer()) {
  return StructField{std::move(name), std::move(type), true,
                     FieldMetadata()
                         .With(kColumnMappingIdKey, std::to_string(id))
                         .With(kColumnMappingPhysicalNameKey, JsonQuote(physical))};
}

TEST(ColumnMappingTest, ValidateRefusesBrokenMappings) {
  struct Case {
    std::string label;
    std::vector<StructField> fields;
    int64_t max;
    std::vector<std::string> needles;
  };
  auto inner = [](std::vector<StructField> f) {
    return std::make_shared<const StructType>(std::move(f));
  };
  const std::vector<Case> cases = {
      {"missing id",
       {Mapped("a", 1, "p1"), StructField{"b", DataType::Integer(), true, {}}},
       2,
       {"column 'b'", "no column mapping id"}},
      {"id above max",
       {Mapped("a", 1, "p1"), Mapped("b", 3, "p2")},
       2,
       {"column 'b'", "id 3", "0..2"}},
      {"duplicate id across levels",
       {Mapped("a", 1, "p1"), Mapped("s", 2, "p2", inner({Mapped("x", 1, "p3")}))},
       3,
       {"'a'", "'s.x'", "same column mapping id 1"}},
      {"duplicate physical name",
       {Mapped("a", 1, "p1"), Mapped("b", 2, "P1")},
       2,
       {"'a'", "'b'", "same physical name"}},
      {"missing physical name inside an array",
       {Mapped("arr", 1, "p1",
               std::make_shared<const ArrayType>(
                   inner({StructField{"e", DataType::Integer(), true,
                                      FieldMetadata().With(kColumnMappingIdKey, "2")}}),
                   true))},
       2,
       {"column 'arr.element.e'", "no physical name"}},
  };
  for (const Case& c : cases) {
    auto st = ValidateColumnMapping(StructType(c.fields), c.max);
    ASSERT_FALSE(st.has_value()) << c.label;
    EXPECT_EQ(st.error().code, ErrorCode::kCorruptLog) << c.label;
    for (const std::string& n : c.needles) {
      EXPECT_THAT(st.error().message, HasSubstr(n)) << c.label;
    }
  }
  // Same physical name at different levels is fine.
  StructType ok({Mapped("a", 1, "p"), Mapped("s", 2, "q", inner({Mapped("x", 3, "p")}))});
  EXPECT_TRUE(ValidateColumnMapping(ok, 3));
}

TEST(ColumnMappingTest, PhysicalNamesAreFresh) {
  std::set<std::string> names;
  for (int i = 0; i < 1000; ++i) names.insert(NewPhysicalColumnName());
  EXPECT_EQ(names.size(), 1000u);
}

}  // namespace
}  // namespace deltaguard
