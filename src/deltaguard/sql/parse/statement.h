/// \file deltaguard/sql/parse/statement.h
/// The parsed form of deltaguard's SQL statements (Spark SQL's dialect of Delta's DDL
/// and DML). Produced by sql_parser.h, executed by sql/session.h.
///
/// Invariants:
///  1. Nodes are plain values; expressions inside are the shared, immutable ExprRef of
///     expr/ast.h (column paths keep their spelling; binding happens at execution).
///  2. Every statement keeps its own source text (`Statement::text`) and each table
///     reference its byte position in that text, so errors can point at it.
///  3. Keywords are case-insensitive; identifiers keep their spelling (backticks
///     removed). Table and database names are compared case-insensitively, as Spark's
///     catalog does.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "deltaguard/expr/ast.h"
#include "deltaguard/schema/data_type.h"

namespace deltaguard {

/// A table reference: a catalog name (`orders`, `silver.orders`) or a path
/// (delta.`/data/orders`, or a quoted path '/data/orders' / "/data/orders").
struct TableRef {
  enum class Kind : uint8_t { kName, kPath };
  Kind kind = Kind::kName;
  /// kName: [database, table] or [table].
  std::vector<std::string> parts;
  std::string path;       ///< kPath
  int32_t position = -1;  ///< byte offset in the statement text
  /// As written for messages: "silver.orders", "delta.`/data/orders`".
  std::string ToString() const;
};

/// `VERSION AS OF n` / `TIMESTAMP AS OF 'ts'` (also Spark's `@v123` is not supported).
struct TimeTravel {
  std::optional<int64_t> version;
  /// The timestamp expression as written (a string literal, TIMESTAMP'...', or an
  /// expression such as current_timestamp() - INTERVAL is not supported); evaluated at
  /// execution to milliseconds since the epoch.
  ExprRef timestamp;
};

struct SelectStmt;
using SelectRef = std::shared_ptr<const SelectStmt>;

struct JoinClause;

/// The source of a SELECT: one relation, or a join tree of them (kJoin).
struct FromClause {
  enum class Kind : uint8_t {
    kNone,      ///< SELECT without FROM: one row
    kTable,     ///< a table or temp view, with optional time travel
    kFunction,  ///< read_parquet/read_csv/read_json/delta_log(...)
    kValues,    ///< VALUES (...), (...) [AS alias(c1, c2)]
    kSubquery,  ///< (SELECT ...) [AS] alias
    kJoin,      ///< left JOIN right (`join`); `a, b` is a CROSS join
  };
  Kind kind = Kind::kNone;
  TableRef table;  ///< kTable
  std::optional<TimeTravel> time_travel;
  std::string function;       ///< kFunction, lower-case
  std::vector<ExprRef> args;  ///< kFunction positional arguments
  /// kFunction named arguments `name => expr`, names lower-case, in order written.
  std::vector<std::pair<std::string, ExprRef>> named_args;
  std::vector<std::vector<ExprRef>> rows;   ///< kValues
  SelectRef subquery;                       ///< kSubquery
  std::shared_ptr<const JoinClause> join;   ///< kJoin
  std::string alias;                        ///< empty when none
  std::vector<std::string> column_aliases;  ///< alias(c1, c2, ...)
  /// `STREAM read_files(...)` or `STREAM(...)`: read incrementally by a streaming
  /// INSERT (docs/ingest.md "SQL").
  bool stream = false;
  int32_t position = -1;
};

struct SelectItem {
  /// `*` or `alias.*`; `* EXCEPT (a, b)` lists the excluded columns.
  bool star = false;
  std::string star_qualifier;
  std::vector<std::string> star_except;
  ExprRef expr;       ///< when !star
  std::string alias;  ///< `AS name` (or bare name); empty when none
  std::string text;   ///< the item's source text (Spark names unaliased columns
                      ///< after the expression's SQL; the engine decides)
};

struct OrderItem {
  ExprRef expr;
  bool descending = false;
  /// NULLS FIRST / NULLS LAST; nullopt = Spark's default (first for ASC, last for DESC).
  std::optional<bool> nulls_first;
};

/// SELECT [DISTINCT] items FROM source [WHERE] [GROUP BY] [HAVING] [ORDER BY] [LIMIT],
/// or a bare VALUES list (then items is `*` and from.kind is kValues).
/// `left [NATURAL] {[INNER] | CROSS | LEFT [OUTER] | RIGHT [OUTER] | FULL [OUTER] |
/// [LEFT] SEMI | [LEFT] ANTI} JOIN right [ON cond | USING (c, ...)]`, left-deep.
struct JoinClause {
  enum class Type : uint8_t {
    kInner,
    kCross,
    kLeft,
    kRight,
    kFull,
    kLeftSemi,
    kLeftAnti
  };
  Type type = Type::kInner;
  bool natural = false;
  FromClause left;
  FromClause right;
  ExprRef on;                              ///< null: no ON (USING, NATURAL or none)
  std::vector<std::string> using_columns;  ///< USING (c, ...)
  int32_t position = -1;                   ///< of the JOIN keyword
};

/// `left UNION|INTERSECT|EXCEPT [ALL|DISTINCT] right` (MINUS is EXCEPT).
struct SetOperation {
  enum class Kind : uint8_t { kUnion, kIntersect, kExcept };
  Kind kind = Kind::kUnion;
  bool all = false;
  SelectRef left;
  SelectRef right;
};

/// `name [(c1, c2)] AS (query)` of a WITH clause.
struct CommonTableExpr {
  std::string name;
  std::vector<std::string> columns;
  SelectRef query;
};

/// `LATERAL VIEW [OUTER] generator(args) alias [AS] c1, c2`: each row of the source
/// joined with the rows its generator (explode, posexplode, inline) makes of it; OUTER
/// keeps a row whose generator makes none (with NULLs). sql/query_generate.cc.
struct LateralView {
  bool outer = false;
  ExprRef generator;  ///< a function call
  std::string alias;  ///< the table alias (qualifies the generated columns)
  std::vector<std::string> columns;  ///< the generated columns' names; empty: defaults
  int32_t position = -1;
};

struct SelectStmt {
  /// WITH: the common table expressions this query (and its subqueries) see; each
  /// sees the ones before it.
  std::vector<CommonTableExpr> with;
  /// Set when the query is a set operation; then the other fields are unused (ORDER
  /// BY and LIMIT of the whole go on a query over it as a subquery).
  std::shared_ptr<const SetOperation> set_op;
  bool distinct = false;
  std::vector<SelectItem> items;
  FromClause from;
  std::vector<LateralView> lateral_views;  ///< after FROM, applied in order
  ExprRef where;
  std::vector<ExprRef> group_by;
  ExprRef having;
  /// QUALIFY: a filter over the window functions' results (evaluated after them).
  ExprRef qualify;
  /// WINDOW w AS (...), ...: the specifications `OVER w` names, in order written.
  std::vector<std::pair<std::string, WindowSpecRef>> windows;
  std::vector<OrderItem> order_by;
  std::optional<int64_t> limit;
};

/// A query inside an expression (expr/ast.h kSubquery): its statement and its text.
struct QuerySubquery final : SubqueryNode {
  SelectRef query;
  std::string sql;
  const std::string& text() const override { return sql; }
};

/// Spark's column definition in CREATE TABLE.
struct ColumnDef {
  std::string name;
  DataTypeRef type;
  bool nullable = true;
  std::optional<std::string> comment;
};

/// CREATE [OR REPLACE] TABLE [IF NOT EXISTS] t [(cols)] [USING DELTA]
///   [PARTITIONED BY (c, ...)] [LOCATION 'path'] [COMMENT 'text']
///   [TBLPROPERTIES ('k' = 'v', ...)] [AS SELECT ...]
/// Also `REPLACE TABLE t ...` (or_replace with must_exist).
struct CreateTableStmt {
  bool or_replace = false;
  bool replace_only = false;  ///< REPLACE TABLE: the table must exist
  bool if_not_exists = false;
  TableRef table;
  /// The column list; empty with CREATE TABLE ... AS SELECT without one. The whole list
  /// as a schema (NOT NULL and comments applied), null when absent.
  SchemaRef schema;
  std::string using_format = "delta";  ///< lower-case; anything else is refused later
  std::vector<std::string> partitioned_by;
  std::optional<std::string> location;
  std::optional<std::string> comment;
  std::vector<std::pair<std::string, std::string>> properties;  ///< in order written
  SelectRef as_select;                                          ///< CTAS
};

/// CREATE (DATABASE|SCHEMA) [IF NOT EXISTS] name [LOCATION 'path'] [COMMENT 'text']
struct CreateDatabaseStmt {
  std::string name;
  bool if_not_exists = false;
  std::optional<std::string> location;
  std::optional<std::string> comment;
};

/// DROP (DATABASE|SCHEMA) [IF EXISTS] name [RESTRICT|CASCADE]
struct DropDatabaseStmt {
  std::string name;
  bool if_exists = false;
  bool cascade = false;
};

/// CREATE [OR REPLACE] TEMP|TEMPORARY VIEW name AS SELECT ...
struct CreateViewStmt {
  bool or_replace = false;
  std::string name;
  SelectRef query;
};

/// DROP VIEW [IF EXISTS] name
struct DropViewStmt {
  std::string name;
  bool if_exists = false;
};

/// INSERT (INTO|OVERWRITE) [TABLE] t [WITH SCHEMA EVOLUTION] [(c1, c2) | BY NAME]
///   [REPLACE WHERE pred] (VALUES ... | SELECT ... | TABLE src)
/// Spark 4's `INSERT WITH SCHEMA EVOLUTION INTO t` order is also accepted.
struct InsertStmt {
  bool overwrite = false;
  TableRef table;
  bool schema_evolution = false;
  bool by_name = false;
  std::vector<std::string> columns;  ///< explicit column list; empty when none
  ExprRef replace_where;
  std::string replace_where_text;  ///< the predicate's source text
  SelectRef query;
};

/// DESCRIBE [TABLE] [EXTENDED|FORMATTED] t
struct DescribeTableStmt {
  TableRef table;
  bool extended = false;
};

/// DESCRIBE HISTORY t [LIMIT n]
struct DescribeHistoryStmt {
  TableRef table;
  std::optional<int64_t> limit;
};

/// DESCRIBE DETAIL t
struct DescribeDetailStmt {
  TableRef table;
};

/// SHOW TBLPROPERTIES t [('key')]
struct ShowTblPropertiesStmt {
  TableRef table;
  std::optional<std::string> key;
};

/// SHOW COLUMNS (IN|FROM) t [(IN|FROM) db]
struct ShowColumnsStmt {
  TableRef table;
};

/// SHOW TABLES [(IN|FROM) db] [[LIKE] 'pattern']
struct ShowTablesStmt {
  std::optional<std::string> database;
  std::optional<std::string> pattern;
};

/// SHOW (DATABASES|SCHEMAS) [[LIKE] 'pattern']
struct ShowDatabasesStmt {
  std::optional<std::string> pattern;
};

/// SET key = value; SET key (show one); SET (show all); RESET [key]
struct SetStmt {
  std::optional<std::string> key;
  std::optional<std::string> value;
  bool reset = false;
};

/// USE [DATABASE|SCHEMA] db
struct UseStmt {
  std::string database;
};

/// DROP TABLE [IF EXISTS] t [PURGE]
struct DropTableStmt {
  TableRef table;
  bool if_exists = false;
};

// ---------------------------------------------------------------------------
// ALTER TABLE and constraints (issue 5). docs/spark_semantics.md §5.5, §4.4.

/// A column path as written (`a`, `s.inner`, `t.s.inner`): one entry per dotted part,
/// backticks removed (`a.b` in backticks is one part). Resolution (case, a leading
/// table alias) happens at execution.
using ColumnPath = std::vector<std::string>;

/// `FIRST` / `AFTER col` of ADD COLUMNS and ALTER COLUMN: where the column goes in its
/// parent struct. `after` is a sibling's name (Spark: a single identifier).
struct ColumnPlacement {
  bool first = false;  ///< FIRST; otherwise AFTER `after`
  std::string after;
};

/// One column of `ADD COLUMN(S)`: `path TYPE [NOT NULL] [COMMENT 'c'] [FIRST|AFTER x]`.
struct AddColumnSpec {
  ColumnPath parent;  ///< the struct the column is added to; empty = top level
  /// The new field as CREATE TABLE would build it (name = last part of the path; comment
  /// and CHAR/VARCHAR metadata applied). `nullable` is false when NOT NULL was written:
  /// Spark refuses that for Delta, so the executor must too, saying why.
  StructField field;
  std::string type_text;  ///< the type as written
  std::optional<ColumnPlacement> placement;
  int32_t position = -1;  ///< byte offset of the column path in the statement text
};

/// ADD COLUMN|COLUMNS [(] spec, ... [)]
struct AlterAddColumns {
  std::vector<AddColumnSpec> columns;
};

/// RENAME COLUMN a.b TO c (the new name replaces the last part of the path).
struct AlterRenameColumn {
  ColumnPath column;
  std::string new_name;
};

/// DROP COLUMN|COLUMNS [IF EXISTS] [(] a, b.c [)]
struct AlterDropColumns {
  bool if_exists = false;
  std::vector<ColumnPath> columns;
};

/// ALTER|CHANGE [COLUMN] c { TYPE t | SET NOT NULL | DROP NOT NULL | COMMENT 'x' |
/// FIRST | AFTER x }: exactly one of type / nullable / comment / placement is set.
/// Spark's Hive-style `CHANGE [COLUMN] c c2 TYPE [COMMENT 'x'] [FIRST|AFTER x]` sets
/// `new_name` and `type`, optionally comment and placement. Spark refuses it unless
/// the names are equal (per the session's case sensitivity), so the executor compares
/// `new_name` with the column and refuses a rename ("please run RENAME COLUMN").
struct AlterChangeColumn {
  ColumnPath column;
  DataTypeRef type;              ///< TYPE t; null when not changed
  std::string type_text;         ///< the type as written (CHAR/VARCHAR keep their length)
  std::optional<bool> nullable;  ///< SET NOT NULL: false; DROP NOT NULL: true
  std::optional<std::string> comment;
  std::optional<ColumnPlacement> placement;
  std::optional<std::string> new_name;  ///< Hive-style CHANGE only
};

/// SET TBLPROPERTIES ('k' = 'v', ...): keys and values as text, in order written.
struct AlterSetProperties {
  std::vector<std::pair<std::string, std::string>> properties;
};

/// UNSET TBLPROPERTIES [IF EXISTS] ('k', ...)
struct AlterUnsetProperties {
  bool if_exists = false;
  std::vector<std::string> keys;
};

/// ADD CONSTRAINT name CHECK (expr)
struct AlterAddConstraint {
  std::string name;  ///< as written; Spark lower-cases it for delta.constraints.<name>
  ExprRef expr;
  /// The expression exactly as written between the parentheses.
  std::string expr_text;
  /// The expression's tokens joined by single spaces: what Spark Delta stores in
  /// `delta.constraints.<name>` (docs/spark_semantics.md §4.4: `concat(num, text) !=
  /// '9i'` is stored as "concat ( num , text ) != '9i'").
  std::string token_text;
};

/// DROP CONSTRAINT [IF EXISTS] name
struct AlterDropConstraint {
  std::string name;
  bool if_exists = false;
};

/// RENAME TO t2 (parsed; the executor may refuse it).
struct AlterRenameTable {
  TableRef new_name;
};

using AlterAction =
    std::variant<AlterAddColumns, AlterRenameColumn, AlterDropColumns, AlterChangeColumn,
                 AlterSetProperties, AlterUnsetProperties, AlterAddConstraint,
                 AlterDropConstraint, AlterRenameTable>;

/// ALTER TABLE t <action>. Other ALTER TABLE forms (ADD PARTITION, SET LOCATION,
/// CLUSTER BY, REPLACE COLUMNS, DROP FEATURE, ...) are refused by the parser as
/// kUnsupportedFeature naming them.
struct AlterTableStmt {
  TableRef table;
  AlterAction action;
  int32_t action_position = -1;  ///< byte offset of the action's first keyword
  /// Spark's operation name for commitInfo: "ADD COLUMNS", "RENAME COLUMN",
  /// "DROP COLUMNS", "CHANGE COLUMN", "SET TBLPROPERTIES", "UNSET TBLPROPERTIES",
  /// "ADD CONSTRAINT", "DROP CONSTRAINT", "RENAME TABLE".
  std::string_view OperationName() const;
};

// ---------------------------------------------------------------------------
// MERGE, UPDATE, DELETE (issue 6). docs/spark_semantics.md §5.6.

/// `path = expr` of UPDATE SET and MERGE's UPDATE SET. The target keeps its qualifier as
/// written (`t.b.c`); the executor strips the target table's name or alias.
struct Assignment {
  ColumnPath column;
  ExprRef value;
  int32_t position = -1;  ///< byte offset of the column path
};

/// One WHEN clause of MERGE. Which actions a kind allows is checked by the parser:
///   kMatched:            kUpdate, kUpdateAll, kDelete
///   kNotMatched:         kInsert, kInsertAll          (NOT MATCHED [BY TARGET])
///   kNotMatchedBySource: kUpdate, kDelete
struct MergeClause {
  enum class Kind : uint8_t { kMatched, kNotMatched, kNotMatchedBySource };
  enum class Action : uint8_t { kUpdate, kUpdateAll, kDelete, kInsert, kInsertAll };
  Kind kind = Kind::kMatched;
  ExprRef condition;  ///< `AND cond`; null when omitted
  Action action = Action::kDelete;
  std::vector<Assignment> assignments;     ///< kUpdate
  std::vector<ColumnPath> insert_columns;  ///< kInsert, as many as insert_values
  std::vector<ExprRef> insert_values;      ///< kInsert
  std::vector<ColumnPath> except;          ///< kUpdateAll / kInsertAll: `* EXCEPT (...)`
  int32_t position = -1;                   ///< byte offset of the clause's WHEN
};

/// MERGE [WITH SCHEMA EVOLUTION] INTO target [[AS] t] USING source [[AS] s] ON cond
///   (WHEN ... THEN ...)+
/// `source` is a table (with optional time travel), a file function or a parenthesised
/// query, its alias in `source.alias`. Invariants checked at parse time: at least one
/// clause; within each kind only the last clause may omit its condition (Spark
/// NON_LAST_*_CLAUSE_OMIT_CONDITION); actions fit their kind (see MergeClause). Clauses
/// keep the order written; kinds may interleave (Databricks allows it; Spark's grammar
/// wants MATCHED, then NOT MATCHED, then NOT MATCHED BY SOURCE), and within a kind
/// the first clause whose condition holds wins.
struct MergeStmt {
  bool schema_evolution = false;
  TableRef target;
  std::string target_alias;  ///< empty when none
  FromClause source;
  ExprRef on;
  std::vector<MergeClause> clauses;
};

/// UPDATE t [[AS] alias] SET a = e, b.c = e2 [WHERE cond]
struct UpdateStmt {
  TableRef table;
  std::string alias;  ///< empty when none
  std::vector<Assignment> assignments;
  ExprRef where;  ///< null: every row
};

/// DELETE FROM t [[AS] alias] [WHERE cond]
struct DeleteStmt {
  TableRef table;
  std::string alias;  ///< empty when none
  ExprRef where;      ///< null: every row
};

/// VACUUM t [RETAIN n HOURS] [DRY RUN] (Delta's VacuumTableCommand; table/vacuum.h).
/// `FULL` is accepted (it is Delta's default); `LITE` and `USING INVENTORY` are not
/// supported.
struct VacuumStmt {
  TableRef table;
  std::optional<double> retain_hours;
  bool dry_run = false;
};

/// DESCRIBE DRIFT t USING source [MODE m]: the schema changes of `source` (as MERGE's:
/// a table, a file function, a subquery) against t's current schema (docs/drift.md).
/// `mode` is the compatibility mode as written (BACKWARD, FULL, ...), checked at
/// execution; empty when none.
struct DescribeDriftStmt {
  TableRef table;
  FromClause source;
  std::string mode;
};

/// New statements go at the end, so code that dispatches on the index keeps working.
using StatementBody =
    std::variant<SelectStmt, CreateTableStmt, CreateDatabaseStmt, DropDatabaseStmt,
                 CreateViewStmt, DropViewStmt, InsertStmt, DescribeTableStmt,
                 DescribeHistoryStmt, DescribeDetailStmt, ShowTblPropertiesStmt,
                 ShowColumnsStmt, ShowTablesStmt, ShowDatabasesStmt, SetStmt, UseStmt,
                 DropTableStmt, AlterTableStmt, MergeStmt, UpdateStmt, DeleteStmt,
                 VacuumStmt, DescribeDriftStmt>;

struct Statement {
  StatementBody body;
  std::string text;    ///< this statement's source text, without the ';'
  int32_t offset = 0;  ///< byte offset of `text` in the parsed script
  int32_t line = 1;    ///< 1-based line of the statement's first byte in the script
};

/// "SELECT", "CREATE TABLE", "INSERT", ... for messages and results.
std::string_view StatementKindName(const StatementBody& body);

}  // namespace deltaguard
