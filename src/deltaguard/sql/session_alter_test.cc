// Session: ALTER TABLE (issue 5), every action through the SQL layer: messages, errors
// naming the table as written, and the table read back afterwards.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltaguard/sql/session_test_util_internal.h"
#include "testing/matchers.h"

namespace deltaguard {
namespace {

class SessionAlterTest : public testing::SessionFixture {
 protected:
  void SetUp() override {
    Run("CREATE TABLE orders (id BIGINT, amount INT, s STRUCT<a: INT>) USING DELTA");
    Run("INSERT INTO orders VALUES (1, 10, NULL), "
        "(2, 20, NULL)");
  }
  std::string Table() const { return Warehouse() + "/orders"; }
};

TEST_F(SessionAlterTest, AddColumnsThenAppendAndRead) {
  StatementResult r = Run("ALTER TABLE orders ADD COLUMNS (channel STRING)");
  EXPECT_EQ(r.message, "Added column channel to orders (version 2)");
  ASSERT_TRUE(r.write);
  EXPECT_EQ(r.write->version, 2);
  Run("INSERT INTO orders VALUES (3, 30, NULL, 'web')");
  EXPECT_THAT(Rows("SELECT id, channel FROM orders ORDER BY id"),
              ElementsAre("1|NULL", "2|NULL", "3|web"));
}

TEST_F(SessionAlterTest, AddNestedColumnFirstAndAfter) {
  Run("ALTER TABLE orders ADD COLUMN s.b STRING");
  Run("ALTER TABLE orders ADD COLUMN note STRING FIRST");
  Run("ALTER TABLE orders ADD COLUMN region STRING AFTER id");
  EXPECT_THAT(Rows("SHOW COLUMNS IN orders"),
              ElementsAre("note", "id", "region", "amount", "s"));
  EXPECT_THAT(Column("DESCRIBE orders", "data_type"),
              ElementsAre("string", "bigint", "string", "int", "struct<a:int,b:string>"));
}

TEST_F(SessionAlterTest, AddColumnNotNullIsRefusedWithReason) {
  Error e = Fail("ALTER TABLE orders ADD COLUMN c INT NOT NULL");
  EXPECT_THAT(e.message, HasSubstr("NOT NULL"));
  EXPECT_THAT(e.message, Not(HasSubstr(Table())));
  EXPECT_EQ(Version(Table()), 1);
}

TEST_F(SessionAlterTest, RenameAndDropNeedColumnMapping) {
  Error e = Fail("ALTER TABLE orders RENAME COLUMN amount TO total");
  EXPECT_THAT(e.message, HasSubstr("'delta.columnMapping.mode' = 'name'"));
  e = Fail("ALTER TABLE orders DROP COLUMN amount");
  EXPECT_THAT(e.message, HasSubstr("'delta.columnMapping.mode' = 'name'"));
  EXPECT_EQ(Version(Table()), 1);
}

TEST_F(SessionAlterTest, RenameAndDropWithColumnMapping) {
  StatementResult set =
      Run("ALTER TABLE orders SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name')");
  EXPECT_THAT(set.message, HasSubstr("Set table property delta.columnMapping.mode on "
                                     "orders (version 2); protocol upgraded"));
  EXPECT_EQ(Run("ALTER TABLE orders RENAME COLUMN amount TO total").message,
            "Renamed column amount to total in orders (version 3)");
  EXPECT_EQ(Run("ALTER TABLE orders DROP COLUMN s").message,
            "Dropped column s from orders (version 4)");
  EXPECT_THAT(Rows("SELECT * FROM orders ORDER BY id"), ElementsAre("1|10", "2|20"));
  StatementResult none = Run("ALTER TABLE orders DROP COLUMNS IF EXISTS (nothing)");
  EXPECT_THAT(none.message, HasSubstr("No change to orders"));
  ASSERT_TRUE(none.write);
  EXPECT_TRUE(none.write->skipped);
  EXPECT_EQ(Version(Table()), 4);
}

TEST_F(SessionAlterTest, TypeWideningNeedsProperty) {
  Error e = Fail("ALTER TABLE orders ALTER COLUMN amount TYPE BIGINT");
  EXPECT_THAT(e.message, HasSubstr("delta.enableTypeWidening"));
  Run("ALTER TABLE orders SET TBLPROPERTIES ('delta.enableTypeWidening' = 'true')");
  EXPECT_THAT(Run("ALTER TABLE orders ALTER COLUMN amount TYPE BIGINT").message,
              HasSubstr("Changed column amount of orders: type bigint (version 3)"));
  EXPECT_THAT(Column("DESCRIBE orders", "data_type"),
              ElementsAre("bigint", "bigint", "struct<a:int>"));
  EXPECT_THAT(Rows("SELECT amount FROM orders ORDER BY id"), ElementsAre("10", "20"));
  e = Fail("ALTER TABLE orders ALTER COLUMN amount TYPE INT");
  EXPECT_THAT(e.message, HasSubstr("from long to integer"));
  EXPECT_THAT(e.message, HasSubstr("'orders'"));
}

TEST_F(SessionAlterTest, SetNotNullScansAndDropNotNull) {
  Run("INSERT INTO orders VALUES (3, NULL, NULL)");
  Error e = Fail("ALTER TABLE orders ALTER COLUMN amount SET NOT NULL");
  EXPECT_EQ(e.code, ErrorCode::kConstraintViolation);
  EXPECT_THAT(e.message, HasSubstr("1"));
  Run("ALTER TABLE orders ALTER COLUMN id SET NOT NULL");
  EXPECT_THAT(Column("DESCRIBE orders", "nullable"),
              ElementsAre("false", "true", "true"));
  Error insert = Fail("INSERT INTO orders VALUES (NULL, 1, NULL)");
  EXPECT_THAT(insert.message, HasSubstr("id"));
  Run("ALTER TABLE orders CHANGE COLUMN id DROP NOT NULL");
  Run("INSERT INTO orders VALUES (NULL, 1, NULL)");
  EXPECT_EQ(Rows("SELECT count(*) FROM orders"), std::vector<std::string>{"4"});
}

TEST_F(SessionAlterTest, CommentAndReorder) {
  Run("ALTER TABLE orders ALTER COLUMN amount COMMENT 'in cents'");
  Run("ALTER TABLE orders ALTER COLUMN s FIRST");
  EXPECT_THAT(Rows("SHOW COLUMNS IN orders"), ElementsAre("s", "id", "amount"));
  EXPECT_THAT(Column("DESCRIBE orders", "comment"),
              ElementsAre("NULL", "NULL", "in cents"));
}

TEST_F(SessionAlterTest, HiveChangeMayNotRename) {
  Error e = Fail("ALTER TABLE orders CHANGE COLUMN amount total INT");
  EXPECT_EQ(e.code, ErrorCode::kUnsupportedFeature);
  EXPECT_THAT(e.message, HasSubstr("RENAME COLUMN amount TO total"));
}

TEST_F(SessionAlterTest, UnsetProperties) {
  Run("ALTER TABLE orders SET TBLPROPERTIES ('owner.team' = 'sales')");
  EXPECT_THAT(Rows("SHOW TBLPROPERTIES orders ('owner.team')"),
              ElementsAre("owner.team|sales"));
  Error e = Fail("ALTER TABLE orders UNSET TBLPROPERTIES ('nope')");
  EXPECT_EQ(e.code, ErrorCode::kNotFound);
  EXPECT_THAT(Run("ALTER TABLE orders UNSET TBLPROPERTIES IF EXISTS ('nope')").message,
              HasSubstr("No change to orders"));
  EXPECT_EQ(Run("ALTER TABLE orders UNSET TBLPROPERTIES ('owner.team')").message,
            "Unset table property owner.team on orders (version 3)");
}

TEST_F(SessionAlterTest, CheckConstraintLifecycle) {
  Error e = Fail("ALTER TABLE orders ADD CONSTRAINT big CHECK (amount > 15)");
  EXPECT_EQ(e.code, ErrorCode::kConstraintViolation);
  EXPECT_THAT(e.message, HasSubstr("1"));
  EXPECT_EQ(Version(Table()), 1);
  StatementResult ok = Run("ALTER TABLE orders ADD CONSTRAINT positive CHECK (amount>0)");
  EXPECT_EQ(ok.message,
            "Added constraint positive CHECK (amount > 0) to orders (version 2); "
            "protocol upgraded to reader 1 / writer 3");
  EXPECT_THAT(Rows("SHOW TBLPROPERTIES orders ('delta.constraints.positive')"),
              ElementsAre("delta.constraints.positive|amount > 0"));
  Error insert = Fail("INSERT INTO orders VALUES (3, -1, NULL)");
  EXPECT_THAT(insert.message, HasSubstr("positive"));
  Error drop = Fail("ALTER TABLE orders DROP COLUMN amount");
  EXPECT_FALSE(drop.message.empty());
  Run("ALTER TABLE orders DROP CONSTRAINT positive");
  Run("INSERT INTO orders VALUES (3, -1, NULL)");
  Error again = Fail("ALTER TABLE orders DROP CONSTRAINT positive");
  EXPECT_EQ(again.code, ErrorCode::kNotFound);
  EXPECT_THAT(Run("ALTER TABLE orders DROP CONSTRAINT IF EXISTS positive").message,
              HasSubstr("No change to orders"));
}

TEST_F(SessionAlterTest, ConstraintColumnCannotBeRetypedOrDropped) {
  Run("ALTER TABLE orders SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name', "
      "'delta.enableTypeWidening' = 'true')");
  Run("ALTER TABLE orders ADD CONSTRAINT positive CHECK (amount > 0)");
  Error drop = Fail("ALTER TABLE orders DROP COLUMN amount");
  EXPECT_THAT(drop.message, HasSubstr("positive"));
  Error retype = Fail("ALTER TABLE orders ALTER COLUMN amount TYPE BIGINT");
  EXPECT_THAT(retype.message, HasSubstr("positive"));
}

TEST_F(SessionAlterTest, MissingTableAndRenameTable) {
  Error e = Fail("ALTER TABLE nope ADD COLUMN x INT");
  EXPECT_EQ(e.code, ErrorCode::kNotFound);
  EXPECT_THAT(e.message, HasSubstr("'nope'"));
  Error rename = Fail("ALTER TABLE orders RENAME TO orders2");
  EXPECT_EQ(rename.code, ErrorCode::kUnsupportedFeature);
}

}  // namespace
}  // namespace deltaguard
