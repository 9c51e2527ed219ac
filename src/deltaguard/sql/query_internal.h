/// \file deltaguard/sql/query_internal.h
/// Pieces of the SELECT engine (query.h) shared by its files: the planned source of a
/// query, streaming batch readers, aggregation, DISTINCT, sorting and Spark's output
/// column names. Internal to sql/.
#pragma once

#include <arrow/compute/exec.h>
#include <arrow/record_batch.h>
#include <arrow/table.h>
#include <arrow/type_fwd.h>
#include <arrow/util/decimal.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "deltaguard/exec/expr_eval.h"
#include "deltaguard/exec/query_memory.h"
#include "deltaguard/expr/binder.h"
#include "deltaguard/expr/literal.h"
#include "deltaguard/ingest/options.h"
#include "deltaguard/sql/query.h"
#include "deltaguard/table/table_drift.h"

namespace deltaguard::query_internal {

using ReaderRef = std::shared_ptr<arrow::RecordBatchReader>;
using BatchRef = std::shared_ptr<arrow::RecordBatch>;

/// A column of a join's output (query_join.cc): the name it is shown and referred to
/// by, the relation qualifiers that may precede it (`o.id`), whether an unqualified
/// name finds it (not the sides' copies of a USING column), and whether `*` lists it.
struct ColumnSource {
  std::string name;
  std::vector<std::string> qualifiers;
  bool unqualified = true;
  bool in_star = true;
  /// A hidden column (a file source's `_metadata`): in neither `*` nor `t.*`, and no
  /// NATURAL join key; named, it is read.
  bool hidden = false;
};

/// The rows a SELECT reads. Batches from `open` hold (at least) the columns named in
/// its argument, by the names of `schema`; an empty list still yields every row (with
/// whatever columns are cheapest), so count(*) works.
struct SourcePlan {
  SchemaRef schema;
  std::string name;
  /// How unknown-column errors name the source ("table `orders`"); empty when the
  /// source has no name of its own.
  std::string relation;
  /// Lower-case names a column reference may be qualified with (`t.a`).
  std::vector<std::string> qualifiers;
  std::function<Result<ReaderRef>(const std::vector<std::string>& columns)> open;
  /// Joins: one entry per column of `schema` (whose names are then internal and
  /// unique); empty for a single relation (every column named as in `schema`,
  /// qualified by `qualifiers`).
  std::vector<ColumnSource> columns;
  /// Columns `*` leaves out but a query may name: a file source's `_metadata`, as
  /// Spark's hidden file-metadata column.
  std::vector<std::string> hidden;
  bool IsHidden(const std::string& column) const {
    return std::find(hidden.begin(), hidden.end(), column) != hidden.end();
  }
};

/// A column reference `path` resolved against a join's columns: the internal name
/// followed by the rest of the path (struct fields); nullopt when no column fits;
/// AMBIGUOUS_REFERENCE (kInvalidArgument) when several do.
Result<std::optional<std::vector<std::string>>> ResolveColumnPath(
    const std::vector<std::string>& path, const std::vector<ColumnSource>& cols,
    const StructType& schema);

/// `t.a` -> `a` when `t` qualifies the source and the source has no column `t`
/// (query.cc).
ExprRef StripQualifiers(const ExprRef& e, const SourcePlan& src);
/// Column references resolved against a join's columns (SourcePlan::columns): to the
/// internal names of its schema; names that fit no column stay (aliases, or errors the
/// binder reports); several fitting columns are AMBIGUOUS_REFERENCE (query.cc).
Result<ExprRef> ResolveJoinRefs(const ExprRef& e, const SourcePlan& src);

/// Generators (query_generate.cc): explode, posexplode, inline and their _outer forms.
bool IsGeneratorFunction(std::string_view name);
/// The query with a generator of its select list moved into a LATERAL VIEW (the item
/// becomes the generated columns), or nullopt when the select list has none. Spark's
/// errors for several generators, a generator inside an expression, and (not yet
/// supported here) a generator next to aggregates.
Result<std::optional<SelectStmt>> LiftSelectGenerators(const SelectStmt& query);
/// `src` joined with each view's generated rows: its schema gains the generated
/// columns (qualified by the view's alias), its reader explodes each batch.
Result<SourcePlan> ApplyLateralViews(SourcePlan src,
                                     const std::vector<LateralView>& views,
                                     int64_t now_micros);

/// The columns of a source as ColumnSource entries: a join's own, or one per field of
/// a single relation, qualified by its qualifiers (query_join.cc).
std::vector<ColumnSource> ColumnsOf(const SourcePlan& src);

/// A join (query_join.cc).
Result<SourcePlan> PlanJoin(const FromClause& from, const QueryContext& context,
                            int depth);

/// Plans the FROM clause of `query` (query_sources.cc). `depth` counts nested views
/// and subqueries, to stop a view that (after OR REPLACE) refers to itself.
/// One FROM source (a relation or a join tree); `values_target` types a VALUES list.
Result<SourcePlan> PlanFrom(const FromClause& from, const QueryContext& context,
                            const StructType* values_target, int depth);
Result<SourcePlan> PlanSource(const SelectStmt& query, const QueryContext& context,
                              const PlanOptions& options, int depth);

/// PlanQuery with the nesting depth (query.cc).
Result<QueryPlan> PlanQueryAt(const SelectStmt& query, const QueryContext& context,
                              const PlanOptions& options, int depth);

/// read_files(path, option => value, ...) (query_read_files.cc): files read as
/// `deltaguard ingest` reads them (docs/ingest.md "SQL").
Result<SourcePlan> PlanReadFiles(const FromClause& from, const QueryContext& context);

/// The arguments of read_files(): the path, and the options (names as Auto Loader
/// spells them). `checkpointLocation` is taken out: a streaming INSERT's checkpoint.
struct ReadFilesArgs {
  std::string path;
  IngestOptions options;
  std::string checkpoint;
};
Result<ReadFilesArgs> ReadFilesArguments(const FromClause& from,
                                         const QueryContext& context);

/// `STREAM read_files(...)`: the micro-batch of context.stream_batch
/// (query_read_files.cc).
Result<SourcePlan> PlanStreamSource(const FromClause& from, const QueryContext& context);

/// A query with a WITH clause, and a set operation (query_set.cc).
Result<QueryPlan> PlanWith(const SelectStmt& query, const QueryContext& context,
                           const PlanOptions& options, int depth);
Result<QueryPlan> PlanSetOperation(const SetOperation& op, const QueryContext& context,
                                   int depth);

/// The batches of `table`; a batch as Arrow compute's ExecBatch (query_exec.cc).
Result<std::vector<BatchRef>> TableBatches(const std::shared_ptr<arrow::Table>& table);
arrow::compute::ExecBatch ToExecBatch(const arrow::RecordBatch& batch);

/// A table by name or path (with time travel), a temp view, a WITH query or a data
/// view (query_table.cc).
Result<SourcePlan> PlanTable(const FromClause& from, const QueryContext& context,
                             int depth);
/// A planned query as a source qualified by `qualifiers`; `src` with its columns
/// renamed to `names` (query_sources.cc).
SourcePlan FromPlan(const QueryPlan& plan, std::vector<std::string> qualifiers);
Result<SourcePlan> RenameColumns(SourcePlan src, const std::vector<std::string>& names);

/// range([start,] end[, step[, numPartitions]]) (query_range.cc).
Result<SourcePlan> PlanRange(const FromClause& from, const QueryContext& context);

/// delta_log(table, [version]) (query_delta_log.cc).
Result<SourcePlan> PlanDeltaLog(const FromClause& from, const QueryContext& context);

/// The table argument of a log table function (delta_log, schema_changes): a string
/// naming a table ('orders', 'silver.orders') or a path ('/data/orders',
/// 'delta.`/data/orders`'), resolved through the catalog when there is one.
struct FunctionTable {
  std::string text;  ///< as written
  std::string root;  ///< the table directory
};
Result<FunctionTable> ResolveFunctionTable(std::string_view function, const Expr& arg,
                                           const QueryContext& context);

/// schema_changes(table, [from_version, [to_version]]) (query_schema_changes.cc).
Result<SourcePlan> PlanSchemaChanges(const FromClause& from, const QueryContext& context);

/// One row of schema_changes() or DESCRIBE DRIFT: a change, with its commit for
/// schema_changes() and whether it breaks the chosen mode for DESCRIBE DRIFT ... MODE.
struct DriftRow {
  const VersionDrift* version = nullptr;
  const DriftChange* change = nullptr;
  bool breaks = false;
};
/// The columns of those rows: [version, timestamp, operation,] class, path, old_path,
/// before, after, risk, spark_default, deltaguard_default, option, score, evidence,
/// backward, forward[, breaks]. Empty texts of the change are NULL.
SchemaRef DriftRowsSchema(bool with_version, bool with_breaks);
Result<BatchRef> DriftRowsBatch(const std::vector<DriftRow>& rows, bool with_version,
                                bool with_breaks);

/// Evaluate an expression that must not read columns (function arguments, time
/// travel timestamps) to a one-element array.
Result<std::shared_ptr<arrow::Array>> EvaluateConstant(const Expr& expr,
                                                       const QueryContext& context,
                                                       BoundExprRef* bound = nullptr);

/// A batch with no columns and `rows` rows.
BatchRef EmptyColumnsBatch(int64_t rows);

/// Per-batch transformation of a streaming stage: returns the output batch, or null to
/// drop the input batch.
using BatchFn = std::function<Result<BatchRef>(const BatchRef&)>;

/// A reader that pulls from `input`, maps each batch with `fn` and stops after `limit`
/// rows (no further input is read then). Errors travel as arrow::Status carrying the
/// Error (arrow/status.h).
ReaderRef MapReader(ReaderRef input, std::shared_ptr<arrow::Schema> schema, BatchFn fn,
                    std::optional<int64_t> limit = std::nullopt);

/// MapReader without a limit for a `fn` that may run on two threads at once (a pure
/// function of its batch, as FilterProject): two input batches are mapped at a time,
/// one per core, and come out in input order; an error comes after the batches before
/// it.
ReaderRef ParallelMapReader(ReaderRef input, std::shared_ptr<arrow::Schema> schema,
                            BatchFn fn);

/// A reader over the batches of `table`, at most `limit` rows.
Result<ReaderRef> TableReader(const std::shared_ptr<arrow::Table>& table,
                              std::optional<int64_t> limit = std::nullopt);

/// A reader of no batches.
Result<ReaderRef> EmptyReader(const std::shared_ptr<arrow::Schema>& schema);

/// Whether `predicate` is the literal FALSE or NULL: no row passes it.
bool NeverTrue(const BoundExpr* predicate);

/// The rows a holding operator read (HoldAll): in RAM while they fit the statement's
/// budget, else every row in a spill file mapped back (docs/sql.md "Memory and
/// spilling").
struct HeldRows {
  std::vector<BatchRef> batches;
  bool spilled = false;
  int64_t bytes = 0;  ///< the cost of every row (HoldCost; Arrow bytes by default)
  /// The budget the RAM-held rows take; returned when the rows go.
  std::shared_ptr<MemoryReservation> reservation;
};

/// What an operator's held rows cost it beyond their Arrow data: `copies` of the data
/// in all, and `per_row` bytes of working memory per row (a window's sort entries,
/// boundaries and results).
struct HoldCost {
  int64_t copies = 1;
  int64_t per_row = 0;
};

/// Read every batch of `reader` (of `schema`; `what` names the operator in errors),
/// reserving each batch's cost in `memory` (null: no limit). The first batch that does
/// not fit sends every row read so far, and every later one, to a spill file.
/// HeldRows::bytes is the cost of every row.
Result<HeldRows> HoldAll(const ReaderRef& reader,
                         const std::shared_ptr<arrow::Schema>& schema,
                         const std::string& what, const QueryMemoryRef& memory,
                         HoldCost cost = {});

/// `reader`, holding `anchor` (a reservation, a spill mapping) while it is alive.
ReaderRef KeepAlive(ReaderRef reader, std::shared_ptr<void> anchor);

/// `batches` (of `schema`) as one batch; an empty batch when there are none.
Result<BatchRef> CombineRows(const std::vector<BatchRef>& batches,
                             const std::shared_ptr<arrow::Schema>& schema);

/// HoldAll as a table. The table's buffers may be mapped from a spill file.
Result<std::shared_ptr<arrow::Table>> ReadAll(
    const ReaderRef& reader, const std::shared_ptr<arrow::Schema>& schema,
    const std::string& what, const QueryMemoryRef& memory = nullptr);

/// Cast each column of `batch` whose Arrow type differs from `schema`'s. `what` names
/// the source in errors.
Result<BatchRef> ConformBatch(const BatchRef& batch,
                              const std::shared_ptr<arrow::Schema>& schema,
                              const std::string& what);

/// The GROUP BY / aggregate stage (query_aggregate.cc): evaluates `keys` and the
/// arguments of `aggregates` (kAggregate calls bound against the input) over every
/// input batch and returns one row per group: columns `_g0..` (keys) then `_a0..`
/// (aggregate results). Without keys there is exactly one group, also on empty input.
struct AggregateSpec {
  std::vector<BoundExprRef> keys;
  std::vector<BoundExprRef> aggregates;
  int64_t now_micros = 0;
};
Result<BatchRef> Aggregate(const ReaderRef& input, const AggregateSpec& spec);

/// Column names of the aggregate stage's output.
std::string GroupColumnName(size_t i);
std::string AggregateColumnName(size_t i);
/// `e` (bound against the input) over the aggregate stage's output: group keys become
/// `_gN`, aggregate calls `_aN` (appended to `aggregates` once each); any other column
/// is Spark's MISSING_AGGREGATION (query_names.cc).
Result<BoundExprRef> OverGroups(const BoundExprRef& e,
                                const std::vector<BoundExprRef>& keys,
                                std::vector<BoundExprRef>* aggregates);

/// DISTINCT: the first occurrence of each distinct row of `table`, in input order.
Result<std::shared_ptr<arrow::Table>> DistinctRows(
    const std::shared_ptr<arrow::Table>& table);

/// One ORDER BY key over a column of the table being sorted.
struct SortKeySpec {
  int column = 0;
  bool descending = false;
  bool nulls_first = true;
};
/// The row order of a stable sort with Spark's ordering (NaN greater than every other
/// number; NULLs placed per key): UInt64 indices into `table`.
Result<std::shared_ptr<arrow::Array>> SortIndices(
    const std::shared_ptr<arrow::Table>& table, const std::vector<SortKeySpec>& keys);

/// The first `visible` columns of `table` in the order of `keys`, streamed (Take of
/// one slice of the sorted row numbers per batch), at most `limit` rows. `spilled`:
/// the table came from a spill file; its columns are then combined in file-backed
/// memory of that budget's directory (query_sort.cc).
Result<ReaderRef> SortedReader(const std::shared_ptr<arrow::Table>& table,
                               const std::vector<SortKeySpec>& keys, int visible,
                               std::optional<int64_t> limit,
                               const QueryMemoryRef& spilled);

/// Where the sorted rows' keys change: `leading` starts where the first keys change
/// (a window's partitions), `all` where any key does (its peer groups); each list ends
/// with the row count.
struct SortBoundaries {
  bool want_all = true;  ///< input: whether to find `all`
  std::vector<int64_t> leading;
  std::vector<int64_t> all;
};

/// SortIndices for integer, date and timestamp keys whose value ranges pack into 128
/// bits (query_sort_packed.cc); null when the keys do not qualify. With `boundaries`,
/// also where the first `leading` keys and all keys change in the sorted order.
Result<std::shared_ptr<arrow::Array>> PackedSortIndices(
    const std::shared_ptr<arrow::Table>& table, const std::vector<SortKeySpec>& keys,
    int leading = 0, SortBoundaries* boundaries = nullptr);

/// Three-way comparison of two non-null values of one Arrow type in Spark's order (NaN
/// above every number); ComparatorFor names `what` when the type has no order.
using Comparator = int (*)(const arrow::Array&, int64_t, const arrow::Array&, int64_t);
Result<Comparator> ComparatorFor(const arrow::DataType& type, const std::string& what);

/// A decimal sum (avg: divided by `count`, rounding HALF_UP as Spark's Average) of
/// unscaled values at `in`'s scale, at `out`'s scale; ANSI overflow past `out`'s
/// precision, naming `what`.
Result<Int128> DecimalSumResult(Int128 sum, int64_t count, bool average,
                                const DecimalType& in, const DecimalType& out,
                                const std::string& what);
Int128 DecimalAt(const arrow::Decimal128Array& a, int64_t i);
arrow::Decimal128 ToArrowDecimal(Int128 v);

/// Take indices for `rows`: -1 is a NULL (a row of the other side without a match, a
/// frame without a value).
Result<std::shared_ptr<arrow::Array>> IndexArray(const std::vector<int64_t>& rows);

/// The AND-ed parts of `e` (none for null), and their AND again (null for none).
void SplitConjuncts(const ExprRef& e, std::vector<ExprRef>* out);
ExprRef AndOf(const std::vector<ExprRef>& parts);

/// Window functions (query_window.cc): `f(...) OVER (...)` bound over the rows the
/// window stage reads (the source's rows after WHERE, or the groups after HAVING).
struct WindowFrameSpec {
  bool rows = true;  ///< ROWS (positions) or RANGE (ORDER BY values)
  FrameBoundKind start = FrameBoundKind::kUnboundedPreceding;
  FrameBoundKind end = FrameBoundKind::kUnboundedFollowing;
  double start_offset = 0;  ///< kPreceding / kFollowing amounts
  double end_offset = 0;
};
struct WindowCall {
  std::string name;                ///< lower-case function name
  std::vector<BoundExprRef> args;  ///< count(*): none
  bool ignore_nulls = false;
  int64_t offset = 1;  ///< lag/lead offset, ntile buckets, nth_value's n
  DataTypeRef type;    ///< the result
  bool nullable = true;
  /// A library aggregate (stddev, collect_list, ...) over frames: the bound call
  /// (BoundFn::kAggregate), whose arguments are `args`; null for the others.
  BoundExprRef aggregate;
  std::vector<BoundExprRef> partition;
  std::vector<BoundExprRef> order;
  std::vector<SortKeySpec> order_dirs;  ///< per `order` (column unused)
  WindowFrameSpec frame;
};
/// The query with each `OVER w` replaced by the WINDOW clause's spec for w
/// (MISSING_WINDOW_SPECIFICATION when there is none), or nullopt when it names no
/// window and has no WINDOW clause.
Result<std::optional<SelectStmt>> ResolveNamedWindows(const SelectStmt& query);
/// The column the window stage adds for window call i ("__w<i>"), and whether a
/// name is one.
std::string WindowColumnName(size_t i);
bool IsWindowColumnName(std::string_view name);
/// Adds the top-level input columns `b` reads (not window columns) to `names`, once
/// each (case-insensitively); a null `b` reads none.
void AddColumnsRead(const BoundExprRef& b, std::vector<std::string>* names);
/// Functions whose result depends only on positions in the ordered partition: they
/// need ORDER BY and take no frame.
bool IsRankingWindowFunction(std::string_view name);
/// Replaces each window call in `e` by a reference to its window column, adding the
/// call to `windows` (equal calls share one column).
ExprRef ExtractWindows(const ExprRef& e, std::vector<ExprRef>* windows);
/// `window` (kWindow) with `fn` applied to its PARTITION BY and ORDER BY expressions.
Result<ExprRef> MapWindowSpec(const ExprRef& window,
                              const std::function<Result<ExprRef>(const ExprRef&)>& fn);
/// Binds a kWindow expression over `input`; errors as Spark's analyzer.
Result<WindowCall> BindWindow(const Expr& window, const StructType& input,
                              const BindOptions& bind);
/// `rows` with one more column per call (WindowColumnName(i)), in the same row order;
/// or, given `keep` (the input columns read after the stage) when the calls share one
/// sorted window and `keep` names no more columns than there are calls, the `keep`
/// columns and the calls' columns in window order, as Spark's Window emits its rows.
Result<BatchRef> ComputeWindows(const BatchRef& rows,
                                const std::vector<WindowCall>& calls,
                                const EvalOptions& eval,
                                const std::vector<std::string>* keep = nullptr);

/// Past the memory limit (query_window_spill.cc): the PARTITION BY expressions every
/// call shares (empty when they share none: the stage then holds its input whole), and
/// the stage run spill partition by spill partition over `held` (spilled rows) dealt by
/// those columns. `stage` turns one partition's rows into output rows of `out_schema`.
using WindowStage = std::function<Result<BatchRef>(const BatchRef&)>;
std::vector<BoundExprRef> SharedPartitionKeys(const std::vector<WindowCall>& calls);
/// What the stage's held input costs it (HoldCost): the input and its combined copy,
/// and per row the sort entries with their scratch (at most 48 bytes), partition and
/// peer starts (16) and each call's result (9), so the memory limit bounds the stage's
/// working set, not only its input.
HoldCost WindowCost(const std::vector<WindowCall>& calls);
Result<ReaderRef> SpilledWindowStage(HeldRows held, const std::vector<BoundExprRef>& keys,
                                     std::shared_ptr<arrow::Schema> out_schema,
                                     WindowStage stage, QueryMemory& memory,
                                     const EvalOptions& eval);

/// Subqueries (query_subquery.cc). Whether `e` holds one; the query with its WHERE's
/// [NOT] EXISTS / [NOT] IN conjuncts turned into LEFT SEMI / ANTI joins (nullopt when
/// there are none to turn); and an uncorrelated subquery run for the binder
/// (BindOptions::subquery).
bool HasSubquery(const ExprRef& e);
bool HasSubquery(const Expr& e);
Result<std::optional<SelectStmt>> JoinWhereSubqueries(const SelectStmt& query,
                                                      const QueryContext& context,
                                                      int depth);
/// The query with each correlated scalar subquery of its select list, WHERE and HAVING
/// turned into a LEFT JOIN with the subquery grouped by its correlated keys (nullopt
/// when there is none; query_subquery_scalar.cc).
Result<std::optional<SelectStmt>> JoinScalarSubqueries(const SelectStmt& query,
                                                       const QueryContext& context,
                                                       int depth);
/// Correlated `EXISTS` and `IN` subqueries anywhere in `e` (under OR, in HAVING or the
/// select list; AND-ed into WHERE they are semi joins; in UPDATE / DELETE): an EXISTS
/// of one equality correlation (`s.k = o.k`) as the equivalent uncorrelated
/// `coalesce(o.k IN (SELECT s.k ... WHERE s.k IS NOT NULL), false)`, which runs once;
/// other EXISTS as `(SELECT count(*) ...) > 0` and IN as SQL's three-valued IN from
/// correlated counts (query_subquery_correlated.cc). `shown`, when set, receives
/// Spark's name of each rewritten node (`exists(<outer columns>)`,
/// `(x IN (listquery(<outer columns>)))`). `outer_from`, the FROM of the query `e`
/// belongs to, qualifies IN's outer columns that the subquery would hide.
Result<ExprRef> RewriteCorrelatedConditions(
    const ExprRef& e, const QueryContext& context, int depth,
    std::map<const Expr*, std::string>* shown = nullptr,
    const FromClause* outer_from = nullptr);
/// The query with RewriteCorrelatedConditions applied to WHERE, HAVING and the select
/// list (nullopt when nothing changed).
Result<std::optional<SelectStmt>> CorrelatedConditionSubqueries(
    const SelectStmt& query, const QueryContext& context, int depth);
/// The first of the rewrites above that applies (the planner plans its result again,
/// so each applies in turn), nullopt when none does.
Result<std::optional<SelectStmt>> RewriteSubqueries(const SelectStmt& query,
                                                    const QueryContext& context,
                                                    int depth);
Result<SubqueryValues> RunSubquery(const Expr& node, const QueryContext& context,
                                   int depth);

/// Spark's name for an unaliased expression: `count(1)`, `(amount * 2)`, `upper(name)`.
std::string SparkColumnName(const Expr& expr);
/// The columns of `input` a star reads: all but `src`'s hidden ones.
StructType VisibleColumns(const StructType& input, const SourcePlan& src);
/// The name of an unaliased select item `item` (bound as `e`, `b` over `input` of
/// `src`), as Spark names it: a column (a join's internal name mapped back), and
/// CAST/TRY_CAST of a column, by the column; f(*) as f(a, b, ...); anything else by
/// SparkColumnName.
std::string OutputColumnName(const Expr& item, const Expr& e, const BoundExpr& b,
                             const StructType& input, const SourcePlan& src);

/// Structural equality of bound expressions (column names compared
/// case-insensitively).
bool SameBound(const BoundExpr& a, const BoundExpr& b);

/// A bound column reference to `name`.
BoundExprRef BoundColumn(std::string name, DataTypeRef type, bool nullable);

}  // namespace deltaguard::query_internal
