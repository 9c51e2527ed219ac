#include "deltaguard/evolution/write_checks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include "deltaguard/schema/ddl.h"
#include "testing/matchers.h"
#include "testing/schema_util.h"

namespace deltaguard {
namespace {

TEST(CheckPositionalNamesTest, SameNamesInTheSameOrderPass) {
  SchemaRef t = Ddl("id BIGINT, name STRING, amount DOUBLE");
  EXPECT_TRUE(CheckPositionalNames(*t, {"ID", "Name", "amount"}, "sales"));
  // Unrelated names (headerless CSV) carry no meaning.
  EXPECT_TRUE(CheckPositionalNames(*t, {"_c0", "_c1", "_c2"}, "sales"));
  // A partial overlap is not the table's columns reordered.
  EXPECT_TRUE(CheckPositionalNames(*t, {"id", "amount", "total"}, "sales"));
}

TEST(CheckPositionalNamesTest, ReorderedTableNamesSuggestByName) {
  SchemaRef t = Ddl("id BIGINT, name STRING, amount DOUBLE");
  auto s = CheckPositionalNames(*t, {"id", "AMOUNT", "name"}, "sales");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(s.error().message, HasSubstr("BY NAME"));
  EXPECT_THAT(s.error().message, HasSubstr("table 'sales'"));
  EXPECT_THAT(s.error().message,
              HasSubstr("(table: id, name, amount; input: id, AMOUNT, name)"));
}

TEST(CheckPositionalNamesTest, RepeatedNamesAreNotAReordering) {
  SchemaRef t = Ddl("a INT, b INT");
  EXPECT_TRUE(CheckPositionalNames(*t, {"b", "b"}, "t"));
}

TEST(CheckPositionalNamesTest, ArityMismatchBothWays) {
  SchemaRef t = Ddl("id BIGINT, name STRING");
  auto few = CheckPositionalNames(*t, {"id"}, "sales");
  ASSERT_FALSE(few);
  EXPECT_EQ(few.error().code, ErrorCode::kSchemaMismatch);
  EXPECT_THAT(few.error().message,
              StartsWith("DELTA_INSERT_COLUMN_ARITY_MISMATCH: Cannot write to table "
                         "'sales': not enough data columns"));
  EXPECT_THAT(few.error().message, HasSubstr("2 column(s) (id, name)"));
  EXPECT_THAT(few.error().message, HasSubstr("input has 1 (id)"));
  auto many = CheckPositionalNames(*t, {"a", "b", "c"}, "sales");
  ASSERT_FALSE(many);
  EXPECT_THAT(many.error().message, HasSubstr("too many data columns"));
}

TEST(CheckPartitionColumnsTest, ReturnsCanonicalNames) {
  SchemaRef s = Ddl("id BIGINT, Region STRING, day DATE");
  auto r = CheckPartitionColumns(*s, {"DAY", "region"});
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_THAT(*r, ElementsAre("day", "Region"));
  auto none = CheckPartitionColumns(*s, {});
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST(CheckPartitionColumnsTest, UnknownColumn) {
  auto r = CheckPartitionColumns(*Ddl("id BIGINT, s STRUCT<a: INT>"), {"s.a"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(r.error().message, HasSubstr("'s.a' is not a top-level column"));
  EXPECT_THAT(r.error().message, HasSubstr("(id, s)"));
}

TEST(CheckPartitionColumnsTest, NonPrimitiveTypesAreRefused) {
  SchemaRef s = Ddl(
      "id BIGINT, s STRUCT<a: INT>, a ARRAY<INT>, m MAP<STRING, INT>, v VOID, x VARIANT");
  for (const char* col : {"s", "a", "m", "v", "x"}) {
    auto r = CheckPartitionColumns(*s, {col});
    ASSERT_FALSE(r) << col;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
    EXPECT_THAT(r.error().message, StartsWith("DELTA_INVALID_PARTITION_COLUMN_TYPE"));
    EXPECT_THAT(r.error().message,
                HasSubstr(std::string("column '") + col + "' of type"));
  }
}

TEST(CheckPartitionColumnsTest, DuplicatesAndAllColumnsAreRefused) {
  SchemaRef s = Ddl("id BIGINT, day DATE");
  auto dup = CheckPartitionColumns(*s, {"day", "DAY"});
  ASSERT_FALSE(dup);
  EXPECT_THAT(dup.error().message, HasSubstr("'day' is given more than once"));
  auto all = CheckPartitionColumns(*s, {"day", "id"});
  ASSERT_FALSE(all);
  EXPECT_THAT(all.error().message,
              StartsWith("DELTA_CANNOT_USE_ALL_COLUMNS_FOR_PARTITION"));
}

}  // namespace
}  // namespace deltaguard
