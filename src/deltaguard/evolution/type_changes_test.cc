#include "deltaguard/evolution/type_changes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include "testing/matchers.h"

namespace deltaguard {
namespace {

TEST(TypeChangesTest, EntryJsonUsesSparkKeyOrderAndTypeNames) {
  EXPECT_EQ(TypeChangeEntryJson(*DataType::Integer(), *DataType::Long(), ""),
            R"({"toType":"long","fromType":"integer"})");
  EXPECT_EQ(
      TypeChangeEntryJson(DecimalType(10, 2), DecimalType(12, 4), "value.element"),
      R"j({"toType":"decimal(12,4)","fromType":"decimal(10,2)","fieldPath":"value.element"})j");
}

TEST(TypeChangesTest, AppendCreatesTheArrayAfterOtherMetadata) {
  FieldMetadata md(std::vector<FieldMetadata::Entry>{{"comment", "\"qty\""}});
  auto out = AppendTypeChange(md, *DataType::Short(), *DataType::Integer(), "", "qty");
  ASSERT_TRUE(out) << out.error().ToString();
  ASSERT_EQ(out->entries().size(), 2u);
  EXPECT_EQ(out->entries()[0].first, "comment");
  EXPECT_EQ(out->entries()[1].first, std::string(kTypeChangesKey));
  EXPECT_EQ(out->entries()[1].second, R"([{"toType":"integer","fromType":"short"}])");
}

TEST(TypeChangesTest, AppendKeepsEarlierEntriesByteForByte) {
  const std::string old = R"([{"toType":"short","fromType":"byte","tableVersion":2}])";
  FieldMetadata md(
      std::vector<FieldMetadata::Entry>{{std::string(kTypeChangesKey), old}});
  auto out =
      AppendTypeChange(md, *DataType::Short(), *DataType::Integer(), "element", "a");
  ASSERT_TRUE(out) << out.error().ToString();
  EXPECT_EQ(*out->FindRaw(kTypeChangesKey),
            R"([{"toType":"short","fromType":"byte","tableVersion":2},)"
            R"({"toType":"integer","fromType":"short","fieldPath":"element"}])");
}

TEST(TypeChangesTest, AppendToAnEmptyArray) {
  FieldMetadata md(
      std::vector<FieldMetadata::Entry>{{std::string(kTypeChangesKey), "[ ]"}});
  auto out = AppendTypeChange(md, *DataType::Float(), *DataType::Double(), "", "a");
  ASSERT_TRUE(out);
  EXPECT_EQ(*out->FindRaw(kTypeChangesKey),
            R"([{"toType":"double","fromType":"float"}])");
}

TEST(TypeChangesTest, ANonArrayValueIsCorrupt) {
  FieldMetadata md(std::vector<FieldMetadata::Entry>{
      {std::string(kTypeChangesKey), R"({"toType":"long"})"}});
  auto out = AppendTypeChange(md, *DataType::Integer(), *DataType::Long(), "", "qty");
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::kCorruptLog);
  EXPECT_THAT(out.error().message, HasSubstr("column 'qty'"));
  EXPECT_THAT(out.error().message, HasSubstr("delta.typeChanges"));
}

}  // namespace
}  // namespace deltaguard
