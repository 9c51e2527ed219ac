// ALTER TABLE forms of the SQL parser: columns, properties, constraints, and the errors.

#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "deltaguard/expr/printer.h"
#include "deltaguard/sql/parse/parser_test_util_internal.h"
#include "deltaguard/sql/parse/sql_parser.h"

namespace deltaguard {
namespace {

using testing::ErrorOf;
using testing::Headline;

/// The action of an ALTER TABLE statement that must parse as `T`.
template <typename T>
T AlterAs(std::string_view sql, AlterTableStmt* stmt_out = nullptr) {
  auto r = ParseStatement(sql);
  if (!r) {
    ADD_FAILURE() << sql << "\n" << r.error().message;
    return T{};
  }
  const auto* stmt = std::get_if<AlterTableStmt>(&r->body);
  if (stmt == nullptr) {
    ADD_FAILURE() << sql << "\nparsed as " << StatementKindName(r->body);
    return T{};
  }
  if (stmt_out != nullptr) *stmt_out = *stmt;
  const T* action = std::get_if<T>(&stmt->action);
  if (action == nullptr) {
    ADD_FAILURE() << sql << "\nparsed as " << stmt->OperationName();
    return T{};
  }
  return *action;
}

using Path = std::vector<std::string>;

TEST(SqlParserAlter, AddColumnsWithOptionsAndPlacement) {
  AlterTableStmt stmt;
  auto add = AlterAs<AlterAddColumns>(
      "alter table silver.orders ADD COLUMNS (channel STRING COMMENT 'web or app', "
      "`my col`.inner DECIMAL(10,2) AFTER x, code VARCHAR(3) FIRST, s.t.n INT NOT NULL)",
      &stmt);
  EXPECT_EQ(stmt.table.parts, (Path{"silver", "orders"}));
  EXPECT_EQ(stmt.action_position, 26);
  EXPECT_EQ(stmt.OperationName(), "ADD COLUMNS");
  ASSERT_EQ(add.columns.size(), 4u);
  const AddColumnSpec& channel = add.columns[0];
  EXPECT_TRUE(channel.parent.empty());
  EXPECT_EQ(channel.field.name, "channel");
  EXPECT_EQ(channel.field.type->ToString(), "string");
  EXPECT_TRUE(channel.field.nullable);
  EXPECT_EQ(channel.field.comment(), std::optional<std::string>("web or app"));
  EXPECT_FALSE(channel.placement);
  EXPECT_EQ(channel.position, 39);
  const AddColumnSpec& inner = add.columns[1];
  EXPECT_EQ(inner.parent, (Path{"my col"}));
  EXPECT_EQ(inner.field.name, "inner");
  EXPECT_EQ(inner.field.type->ToString(), "decimal(10,2)");
  EXPECT_EQ(inner.type_text, "DECIMAL(10,2)");
  ASSERT_TRUE(inner.placement);
  EXPECT_FALSE(inner.placement->first);
  EXPECT_EQ(inner.placement->after, "x");
  const AddColumnSpec& code = add.columns[2];
  ASSERT_TRUE(code.placement);
  EXPECT_TRUE(code.placement->first);
  // CHAR/VARCHAR metadata as CREATE TABLE records it.
  EXPECT_EQ(code.field.metadata.GetString("__CHAR_VARCHAR_TYPE_STRING"),
            std::optional<std::string>("varchar(3)"));
  const AddColumnSpec& n = add.columns[3];
  EXPECT_EQ(n.parent, (Path{"s", "t"}));
  EXPECT_FALSE(n.field.nullable);  // recorded; the executor refuses it as Spark does
}

TEST(SqlParserAlter, AddOneColumnWithoutParentheses) {
  auto add = AlterAs<AlterAddColumns>(
      "ALTER TABLE t ADD COLUMN tags ARRAY<STRUCT<k: STRING, v: INT>> AFTER id");
  ASSERT_EQ(add.columns.size(), 1u);
  EXPECT_EQ(add.columns[0].field.name, "tags");
  EXPECT_EQ(add.columns[0].field.type->kind(), TypeKind::kArray);
  ASSERT_TRUE(add.columns[0].placement);
  EXPECT_EQ(add.columns[0].placement->after, "id");
  // Spark's list without parentheses.
  auto two = AlterAs<AlterAddColumns>("ALTER TABLE t ADD COLUMNS a INT, b STRING");
  ASSERT_EQ(two.columns.size(), 2u);
  EXPECT_EQ(two.columns[1].field.name, "b");
}

TEST(SqlParserAlter, RenameColumnAndTable) {
  AlterTableStmt stmt;
  auto rename = AlterAs<AlterRenameColumn>(
      "ALTER TABLE delta.`/data/t` RENAME COLUMN `a.b`.c TO `new name`", &stmt);
  EXPECT_EQ(stmt.table.kind, TableRef::Kind::kPath);
  EXPECT_EQ(stmt.OperationName(), "RENAME COLUMN");
  EXPECT_EQ(rename.column, (Path{"a.b", "c"}));
  EXPECT_EQ(rename.new_name, "new name");
  auto table = AlterAs<AlterRenameTable>("ALTER TABLE t RENAME TO db.t2");
  EXPECT_EQ(table.new_name.parts, (Path{"db", "t2"}));
}

TEST(SqlParserAlter, DropColumns) {
  auto one = AlterAs<AlterDropColumns>("ALTER TABLE t DROP COLUMN a");
  EXPECT_FALSE(one.if_exists);
  EXPECT_EQ(one.columns, (std::vector<Path>{{"a"}}));
  AlterTableStmt stmt;
  auto many =
      AlterAs<AlterDropColumns>("ALTER TABLE t DROP COLUMNS IF EXISTS (a, b.c)", &stmt);
  EXPECT_TRUE(many.if_exists);
  EXPECT_EQ(many.columns, (std::vector<Path>{{"a"}, {"b", "c"}}));
  EXPECT_EQ(stmt.OperationName(), "DROP COLUMNS");
  auto bare = AlterAs<AlterDropColumns>("ALTER TABLE t DROP COLUMNS a, `x y`");
  EXPECT_EQ(bare.columns, (std::vector<Path>{{"a"}, {"x y"}}));
}

TEST(SqlParserAlter, AlterColumnActions) {
  auto type = AlterAs<AlterChangeColumn>("ALTER TABLE t ALTER COLUMN s.n TYPE BIGINT");
  EXPECT_EQ(type.column, (Path{"s", "n"}));
  ASSERT_TRUE(type.type);
  EXPECT_EQ(type.type->ToString(), "long");
  EXPECT_EQ(type.type_text, "BIGINT");
  EXPECT_FALSE(type.nullable || type.comment || type.placement || type.new_name);

  auto set_nn = AlterAs<AlterChangeColumn>("ALTER TABLE t ALTER c SET NOT NULL");
  EXPECT_EQ(set_nn.nullable, std::optional<bool>(false));
  EXPECT_FALSE(set_nn.type);
  auto drop_nn =
      AlterAs<AlterChangeColumn>("ALTER TABLE t CHANGE COLUMN c DROP NOT NULL");
  EXPECT_EQ(drop_nn.nullable, std::optional<bool>(true));
  auto comment = AlterAs<AlterChangeColumn>("ALTER TABLE t ALTER COLUMN c COMMENT 'x'");
  EXPECT_EQ(comment.comment, std::optional<std::string>("x"));
  auto first = AlterAs<AlterChangeColumn>("ALTER TABLE t CHANGE c FIRST");
  ASSERT_TRUE(first.placement);
  EXPECT_TRUE(first.placement->first);
  AlterTableStmt stmt;
  auto after = AlterAs<AlterChangeColumn>("ALTER TABLE t ALTER COLUMN c AFTER d", &stmt);
  ASSERT_TRUE(after.placement);
  EXPECT_EQ(after.placement->after, "d");
  EXPECT_EQ(stmt.OperationName(), "CHANGE COLUMN");
}

TEST(SqlParserAlter, HiveStyleChangeColumnRecordsTheNewName) {
  auto same = AlterAs<AlterChangeColumn>(
      "ALTER TABLE t CHANGE COLUMN price price DECIMAL(12,2) COMMENT 'eur' AFTER id");
  EXPECT_EQ(same.column, (Path{"price"}));
  EXPECT_EQ(same.new_name, std::optional<std::string>("price"));
  ASSERT_TRUE(same.type);
  EXPECT_EQ(same.type->ToString(), "decimal(12,2)");
  EXPECT_EQ(same.comment, std::optional<std::string>("eur"));
  ASSERT_TRUE(same.placement);
  EXPECT_EQ(same.placement->after, "id");
  // A rename is parsed; the executor refuses it ("please run RENAME COLUMN").
  auto renamed = AlterAs<AlterChangeColumn>("ALTER TABLE t CHANGE a b INT");
  EXPECT_EQ(renamed.new_name, std::optional<std::string>("b"));
  // `first` followed by a type is a column named first, not the FIRST action.
  auto named_first = AlterAs<AlterChangeColumn>("ALTER TABLE t CHANGE first first INT");
  EXPECT_EQ(named_first.new_name, std::optional<std::string>("first"));
  EXPECT_FALSE(named_first.placement);
  EXPECT_NE(Headline("ALTER TABLE t CHANGE c c INT NOT NULL")
                .find("column 30: NOT NULL is not supported in Hive-style ALTER COLUMN"),
            std::string::npos);
}

TEST(SqlParserAlter, SetAndUnsetTableProperties) {
  AlterTableStmt stmt;
  auto set = AlterAs<AlterSetProperties>(
      "ALTER TABLE t SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name', "
      "delta.enableTypeWidening = true, 'delta.checkpointInterval' 5)",
      &stmt);
  EXPECT_EQ(stmt.OperationName(), "SET TBLPROPERTIES");
  using Props = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(set.properties, (Props{{"delta.columnMapping.mode", "name"},
                                   {"delta.enableTypeWidening", "true"},
                                   {"delta.checkpointInterval", "5"}}));
  auto unset = AlterAs<AlterUnsetProperties>(
      "ALTER TABLE t UNSET TBLPROPERTIES IF EXISTS ('a.b', c.d)", &stmt);
  EXPECT_TRUE(unset.if_exists);
  EXPECT_EQ(unset.keys, (std::vector<std::string>{"a.b", "c.d"}));
  EXPECT_EQ(stmt.OperationName(), "UNSET TBLPROPERTIES");
  EXPECT_FALSE(
      AlterAs<AlterUnsetProperties>("ALTER TABLE t UNSET TBLPROPERTIES ('k')").if_exists);
}

TEST(SqlParserAlter, AddConstraintKeepsTheTextAsWritten) {
  AlterTableStmt stmt;
  auto add = AlterAs<AlterAddConstraint>(
      "ALTER TABLE t ADD CONSTRAINT amountPositive CHECK (  concat(num, text) != '9i'"
      "  AND (amount > 0 OR amount IS NULL) )",
      &stmt);
  EXPECT_EQ(stmt.OperationName(), "ADD CONSTRAINT");
  EXPECT_EQ(add.name, "amountPositive");
  EXPECT_EQ(add.expr_text,
            "concat(num, text) != '9i'  AND (amount > 0 OR amount IS NULL)");
  EXPECT_EQ(add.token_text,
            "concat ( num , text ) != '9i' AND ( amount > 0 OR amount IS NULL )");
  ASSERT_TRUE(add.expr);
  EXPECT_EQ(ToSql(*add.expr),
            "concat(num, text) <> '9i' AND (amount > 0 OR amount IS NULL)");
}

TEST(SqlParserAlter, DropConstraint) {
  AlterTableStmt stmt;
  auto drop = AlterAs<AlterDropConstraint>("ALTER TABLE t DROP CONSTRAINT c1", &stmt);
  EXPECT_EQ(drop.name, "c1");
  EXPECT_FALSE(drop.if_exists);
  EXPECT_EQ(stmt.OperationName(), "DROP CONSTRAINT");
  EXPECT_TRUE(AlterAs<AlterDropConstraint>("ALTER TABLE t DROP CONSTRAINT IF EXISTS c1")
                  .if_exists);
}

TEST(SqlParserAlter, KindName) {
  auto r = ParseStatement("ALTER TABLE t DROP COLUMN a");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(StatementKindName(r->body), "ALTER TABLE");
}

TEST(SqlParserAlterErrors, ExactCaretForAMissingType) {
  EXPECT_EQ(ErrorOf("ALTER TABLE t\n  ADD COLUMNS (a INT, b)"),
            "syntax error at line 2, column 24: expected a type for column 'b' but "
            "found ')'\n"
            "    ADD COLUMNS (a INT, b)\n"
            "                         ^");
}

TEST(SqlParserAlterErrors, ExactCaretInsideAConstraint) {
  EXPECT_EQ(ErrorOf("ALTER TABLE t ADD CONSTRAINT c CHECK (a > )"),
            "syntax error at line 1, column 43: expected an expression but found ')'\n"
            "  ALTER TABLE t ADD CONSTRAINT c CHECK (a > )\n"
            "                                            ^");
}

TEST(SqlParserAlterErrors, Syntax) {
  struct Case {
    const char* sql;
    const char* message;
  };
  const Case cases[] = {
      {"ALTER TABLE t", "expected an ALTER TABLE action (ADD, DROP, RENAME"},
      {"ALTER TABLE t FROB", "expected an ALTER TABLE action"},
      {"ALTER t ADD COLUMN a INT", "expected 'TABLE' but found 't'"},
      {"ALTER TABLE t ADD a INT",
       "expected 'COLUMN', 'COLUMNS' or 'CONSTRAINT' but "
       "found 'a'"},
      {"ALTER TABLE t ADD COLUMNS (a INT", "expected ',' or ')' in the column list"},
      {"ALTER TABLE t ADD COLUMNS (a STRNG)", "invalid type 'STRNG' for column 'a'"},
      {"ALTER TABLE t ADD COLUMN s.'x' INT",
       "expected a name after '.' but found string literal"},
      {"ALTER TABLE t ADD COLUMN a INT COMMENT 'x' COMMENT 'y'",
       "duplicate COMMENT clause"},
      {"ALTER TABLE t ADD COLUMN a INT FIRST AFTER b", "duplicate FIRST/AFTER clause"},
      {"ALTER TABLE t ADD COLUMN a INT AFTER", "expected a column name after AFTER"},
      {"ALTER TABLE t RENAME COLUMN a b", "expected 'TO' but found 'b'"},
      {"ALTER TABLE t RENAME COLUMN a TO b.c", "expected end of statement but found '.'"},
      {"ALTER TABLE t DROP COLUMNS (a, b", "expected ')' but found end of input"},
      {"ALTER TABLE t DROP a", "expected 'COLUMN', 'COLUMNS' or 'CONSTRAINT'"},
      {"ALTER TABLE t ALTER COLUMN c",
       "expected TYPE, SET NOT NULL, DROP NOT NULL, "
       "COMMENT, FIRST or AFTER but found end of input"},
      {"ALTER TABLE t ALTER COLUMN c SET NULL", "expected TYPE, SET NOT NULL"},
      {"ALTER TABLE t ALTER COLUMN c TYPE", "expected a type for column 'c'"},
      {"ALTER TABLE t CHANGE COLUMN c", "FIRST, AFTER or a column definition"},
      {"ALTER TABLE t SET TBLPROPERTIES ('a' = 1, 'a' = 2)",
       "duplicate table property 'a'"},
      {"ALTER TABLE t UNSET TBLPROPERTIES ('a' = '1')",
       "UNSET TBLPROPERTIES takes keys only, but a value is given for 'a'"},
      {"ALTER TABLE t ADD CONSTRAINT c (a > 0)", "expected 'CHECK' but found '('"},
      {"ALTER TABLE t ADD CONSTRAINT c CHECK a > 0", "expected '(' but found 'a'"},
      {"ALTER TABLE t ADD CONSTRAINT c CHECK (a > 0", "expected ')' but found end"},
      {"ALTER TABLE t DROP CONSTRAINT", "expected a constraint name"},
  };
  for (const Case& c : cases) {
    std::string headline = Headline(c.sql);
    EXPECT_NE(headline.find(c.message), std::string::npos) << c.sql << "\n" << headline;
  }
}

TEST(SqlParserAlterErrors, UnsupportedFormsAreNamed) {
  struct Case {
    const char* sql;
    const char* message;
  };
  const Case cases[] = {
      {"ALTER VIEW v AS SELECT 1", "ALTER VIEW is not supported yet"},
      {"ALTER DATABASE d SET LOCATION '/x'", "ALTER DATABASE is not supported yet"},
      {"ALTER TABLE t ADD PARTITION (p = 1)", "ALTER TABLE ADD PARTITION"},
      {"ALTER TABLE t ADD IF NOT EXISTS PARTITION (p = 1)", "ALTER TABLE ADD PARTITION"},
      {"ALTER TABLE t DROP IF EXISTS PARTITION (p = 1)", "ALTER TABLE DROP PARTITION"},
      {"ALTER TABLE t DROP FEATURE checkConstraints", "ALTER TABLE DROP FEATURE"},
      {"ALTER TABLE t SET LOCATION '/x'", "ALTER TABLE SET LOCATION is not supported"},
      {"ALTER TABLE t SET SERDE 'x'", "ALTER TABLE SET SERDE"},
      {"ALTER TABLE t UNSET TAGS ('a')", "ALTER TABLE UNSET TAGS"},
      {"ALTER TABLE t CLUSTER BY (a)", "ALTER TABLE CLUSTER BY (liquid clustering)"},
      {"ALTER TABLE t REPLACE COLUMNS (a INT)", "ALTER TABLE REPLACE COLUMNS"},
      {"ALTER TABLE t RECOVER PARTITIONS", "ALTER TABLE RECOVER PARTITIONS"},
      {"ALTER TABLE t PARTITION (p = 1) SET LOCATION '/x'", "with a PARTITION clause"},
      {"ALTER TABLE t RENAME PARTITION (p = 1) TO (p = 2)", "RENAME PARTITION"},
      {"ALTER TABLE t ADD COLUMN a INT DEFAULT 1",
       "column option DEFAULT in ALTER TABLE ADD COLUMN (column 'a')"},
      {"ALTER TABLE t ALTER COLUMN a SET DEFAULT 1", "ALTER COLUMN SET DEFAULT"},
      {"ALTER TABLE t ALTER COLUMN a DROP DEFAULT", "ALTER COLUMN DROP DEFAULT"},
      {"ALTER TABLE t ADD CONSTRAINT pk PRIMARY KEY (id)", "PRIMARY constraints"},
  };
  for (const Case& c : cases) {
    std::string message = ErrorOf(c.sql, ErrorCode::kUnsupportedFeature);
    EXPECT_NE(message.find(c.message), std::string::npos) << c.sql << "\n" << message;
  }
}

}  // namespace
}  // namespace deltaguard
