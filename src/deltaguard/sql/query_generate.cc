// Generators: LATERAL VIEW [OUTER] explode/posexplode/inline, and a generator in the
// select list (lifted into a LATERAL VIEW, as Spark plans it). A lateral view is a
// source transformation: the source's schema gains the generated columns and each
// batch is exploded, every input row repeated once per generated row (Take by parent
// row), so the rest of the query plans as over any source.

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <string>
#include <utility>
#include <vector>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/expr_eval.h"
#include "deltaguard/expr/binder.h"
#include "deltaguard/sql/query_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::query_internal {
namespace {

constexpr std::string_view kLiftedAlias = "__generate";

struct GeneratorKind {
  std::string base;  ///< explode, posexplode or inline
  bool outer = false;
};

GeneratorKind KindOf(std::string_view name) {
  std::string n = AsciiToLower(name);
  GeneratorKind k;
  constexpr std::string_view kOuter = "_outer";
  if (n.size() > kOuter.size() && n.substr(n.size() - kOuter.size()) == kOuter) {
    k.outer = true;
    n.resize(n.size() - kOuter.size());
  }
  k.base = n;
  return k;
}

// The generated columns of `base` over `arg` (before renaming): explode gives `col`
// (or `key`, `value` for a map), posexplode `pos` before them, inline the struct's
// fields.
Result<std::vector<StructField>> GeneratedFields(const std::string& base,
                                                 const DataType& arg) {
  std::vector<StructField> out;
  if (base == "inline") {
    const auto* array =
        arg.kind() == TypeKind::kArray ? static_cast<const ArrayType*>(&arg) : nullptr;
    if (array == nullptr || array->element_type()->kind() != TypeKind::kStruct) {
      return MakeError(ErrorCode::kSchemaMismatch,
                       "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE: inline() needs an "
                       "ARRAY<STRUCT<...>>, got {}",
                       arg.ToString());
    }
    for (const auto& f :
         static_cast<const StructType&>(*array->element_type()).fields()) {
      out.push_back(StructField{f.name, f.type, true, {}});
    }
    return out;
  }
  if (base == "posexplode")
    out.push_back(StructField{"pos", DataType::Integer(), true, {}});
  if (arg.kind() == TypeKind::kArray) {
    out.push_back(
        StructField{"col", static_cast<const ArrayType&>(arg).element_type(), true, {}});
  } else if (arg.kind() == TypeKind::kMap) {
    const auto& m = static_cast<const MapType&>(arg);
    out.push_back(StructField{"key", m.key_type(), true, {}});
    out.push_back(StructField{"value", m.value_type(), true, {}});
  } else {
    return MakeError(ErrorCode::kSchemaMismatch,
                     "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE: {}() needs an ARRAY or a "
                     "MAP, got {}",
                     base, arg.ToString());
  }
  return out;
}

// One lateral view, bound: what the reader needs per batch.
struct BoundView {
  GeneratorKind kind;
  BoundExprRef arg;
  /// json_tuple: one get_json_object call per field name (one output row per input).
  std::vector<BoundExprRef> values;
  std::vector<std::string> internal;  ///< names of the generated columns in the schema
  std::vector<StructField> fields;
};

// Explodes one batch: input rows repeated per generated row, then the generated
// columns.
Result<BatchRef> Explode(const BatchRef& batch, const BoundView& view,
                         const std::shared_ptr<arrow::Schema>& out_schema,
                         const EvalOptions& eval) {
  if (view.kind.base == "json_tuple") {
    std::vector<std::shared_ptr<arrow::Array>> columns = batch->columns();
    for (const auto& v : view.values) {
      DELTA_ASSIGN_OR_RETURN(auto column, Evaluate(*v, *batch, eval));
      columns.push_back(std::move(column));
    }
    return arrow::RecordBatch::Make(out_schema, batch->num_rows(), std::move(columns));
  }
  DELTA_ASSIGN_OR_RETURN(auto values, Evaluate(*view.arg, *batch, eval));
  const auto& list = static_cast<const arrow::ListArray&>(*values);  // MAP is a list too
  arrow::Int64Builder parents, children;
  arrow::Int32Builder positions;
  for (int64_t r = 0; r < list.length(); ++r) {
    const int64_t n = list.IsNull(r) ? 0 : list.value_length(r);
    if (n == 0 && view.kind.outer) {
      DELTA_ARROW_RETURN_NOT_OK(parents.Append(r), ErrorCode::kInternal, "explode");
      DELTA_ARROW_RETURN_NOT_OK(children.AppendNull(), ErrorCode::kInternal, "explode");
      DELTA_ARROW_RETURN_NOT_OK(positions.AppendNull(), ErrorCode::kInternal, "explode");
    }
    for (int64_t k = 0; k < n; ++k) {
      DELTA_ARROW_RETURN_NOT_OK(parents.Append(r), ErrorCode::kInternal, "explode");
      DELTA_ARROW_RETURN_NOT_OK(children.Append(list.value_offset(r) + k),
                                ErrorCode::kInternal, "explode");
      DELTA_ARROW_RETURN_NOT_OK(positions.Append(static_cast<int32_t>(k)),
                                ErrorCode::kInternal, "explode");
    }
  }
  std::shared_ptr<arrow::Array> parent_idx, child_idx, pos;
  DELTA_ARROW_RETURN_NOT_OK(parents.Finish(&parent_idx), ErrorCode::kInternal, "explode");
  DELTA_ARROW_RETURN_NOT_OK(children.Finish(&child_idx), ErrorCode::kInternal, "explode");
  DELTA_ARROW_RETURN_NOT_OK(positions.Finish(&pos), ErrorCode::kInternal, "explode");
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (const auto& c : batch->columns()) {
    DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum t, arrow::compute::Take(c, parent_idx),
                                 ErrorCode::kInternal, "explode");
    columns.push_back(t.make_array());
  }
  DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum taken,
                               arrow::compute::Take(list.values(), child_idx),
                               ErrorCode::kInternal, "explode");
  auto elements = taken.make_array();
  if (view.kind.base == "posexplode") columns.push_back(pos);
  if (view.kind.base == "inline" || view.arg->type->kind() == TypeKind::kMap) {
    // inline's fields, or a map's key and value.
    const auto& s = static_cast<const arrow::StructArray&>(*elements);
    for (int f = 0; f < s.num_fields(); ++f) {
      DELTA_ARROW_ASSIGN_OR_RETURN(auto field, s.GetFlattenedField(f),
                                   ErrorCode::kInternal, "explode");
      columns.push_back(field);
    }
  } else {
    columns.push_back(elements);
  }
  return arrow::RecordBatch::Make(out_schema, parent_idx->length(), std::move(columns));
}

// json_tuple(json, 'a', 'b', ...): the top-level fields a, b, ... as strings, each
// the get_json_object of its name (NULL where the JSON is malformed or lacks it).
Result<std::vector<BoundExprRef>> JsonTupleValues(const Expr& call, const ExprRef& json,
                                                  const StructType& schema,
                                                  const BindOptions& bind) {
  std::vector<BoundExprRef> out;
  for (size_t i = 1; i < call.children.size(); ++i) {
    const Expr& name = *call.children[i];
    if (name.kind != ExprKind::kLiteral || name.literal_kind != LiteralKind::kString ||
        name.text.find(']') != std::string::npos) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "json_tuple(): field name {} must be a string literal (without "
                       "']')",
                       i);
    }
    auto path = Expr::String("$['" + name.text + "']");
    auto get = Expr::Function("get_json_object", {json, path}, call.position);
    DELTA_ASSIGN_OR_RETURN(BoundExprRef value, Bind(*get, schema, bind));
    out.push_back(std::move(value));
  }
  return out;
}

Result<SourcePlan> ApplyView(SourcePlan src, const LateralView& view, int64_t now_micros,
                             int index) {
  const Expr& call = *view.generator;
  BoundView bound;
  bound.kind = KindOf(call.text);
  if (!IsGeneratorFunction(call.text)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "LATERAL VIEW {}(): not a generator; use explode, posexplode or "
                     "inline (or their _outer forms)",
                     call.text);
  }
  const bool json_tuple = bound.kind.base == "json_tuple";
  if (json_tuple ? call.children.size() < 2 : call.children.size() != 1) {
    return MakeError(
        ErrorCode::kInvalidArgument, "WRONG_NUM_ARGS: {}() takes {}, got {}", call.text,
        json_tuple ? "a JSON string and at least one field name" : "1 argument",
        call.children.size());
  }
  bound.kind.outer = bound.kind.outer || view.outer;
  ExprRef arg = call.children[0];
  if (!src.columns.empty()) {
    DELTA_ASSIGN_OR_RETURN(arg, ResolveJoinRefs(arg, src));
  } else {
    arg = StripQualifiers(arg, src);
  }
  BindOptions bind;
  bind.relation = src.relation;
  bind.unlisted = src.hidden;
  if (json_tuple) {
    DELTA_ASSIGN_OR_RETURN(bound.values, JsonTupleValues(call, arg, *src.schema, bind));
    bound.arg = bound.values[0];
    for (size_t i = 0; i < bound.values.size(); ++i) {
      bound.fields.push_back(
          StructField{fmt::format("c{}", i), DataType::String(), true, {}});
    }
  } else {
    DELTA_ASSIGN_OR_RETURN(bound.arg, Bind(*arg, *src.schema, bind));
    DELTA_ASSIGN_OR_RETURN(bound.fields,
                           GeneratedFields(bound.kind.base, *bound.arg->type));
  }
  if (!view.columns.empty()) {
    if (view.columns.size() != bound.fields.size()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "UDTF_ALIAS_NUMBER_MISMATCH: {}() makes {} column{}, but {} "
                       "alias{} given",
                       call.text, bound.fields.size(),
                       bound.fields.size() == 1 ? "" : "s", view.columns.size(),
                       view.columns.size() == 1 ? " was" : "es were");
    }
    for (size_t i = 0; i < view.columns.size(); ++i)
      bound.fields[i].name = view.columns[i];
  }
  // The new schema: the source's columns, then the generated ones under internal names
  // that cannot clash; `columns` resolves `alias.col` and `col` to them.
  std::vector<ColumnSource> columns = ColumnsOf(src);
  std::vector<StructField> fields = src.schema->fields();
  for (size_t i = 0; i < bound.fields.size(); ++i) {
    std::string internal = fmt::format("__lv{}_{}", index, i);
    bound.internal.push_back(internal);
    fields.push_back(StructField{internal, bound.fields[i].type, true, {}});
    columns.push_back(
        ColumnSource{bound.fields[i].name, {AsciiToLower(view.alias)}, true, true});
  }
  std::vector<std::string> arg_columns;
  for (const auto& path : ReferencedColumns(*bound.arg)) arg_columns.push_back(path[0]);
  for (const auto& v : bound.values) {
    for (const auto& path : ReferencedColumns(*v)) arg_columns.push_back(path[0]);
  }

  SourcePlan out;
  out.schema = std::make_shared<StructType>(std::move(fields));
  out.name = src.name;
  out.relation = src.relation;
  out.qualifiers = src.qualifiers;
  out.columns = std::move(columns);
  auto open = src.open;
  auto shared = std::make_shared<BoundView>(std::move(bound));
  out.open = [open, shared, arg_columns,
              now_micros](const std::vector<std::string>& needed) -> Result<ReaderRef> {
    std::vector<std::string> from_source = arg_columns;
    for (const auto& n : needed) {
      bool generated = false;
      for (const auto& g : shared->internal) generated = generated || g == n;
      if (!generated) from_source.push_back(n);
    }
    DELTA_ASSIGN_OR_RETURN(ReaderRef in, open(from_source));
    auto arrow_fields = in->schema()->fields();
    for (size_t i = 0; i < shared->fields.size(); ++i) {
      DELTA_ASSIGN_OR_RETURN(auto type, ToArrowType(*shared->fields[i].type));
      arrow_fields.push_back(arrow::field(shared->internal[i], type));
    }
    auto schema = arrow::schema(arrow_fields);
    EvalOptions eval;
    eval.now_micros = now_micros;
    return MapReader(in, schema, [shared, schema, eval](const BatchRef& b) {
      return Explode(b, *shared, schema, eval);
    });
  };
  return out;
}

bool HasAggregateCall(const Expr& e) {
  if (e.kind == ExprKind::kFunction && IsAggregateName(e.text)) return true;
  if (e.kind == ExprKind::kWindow || e.kind == ExprKind::kSubquery) return false;
  for (const auto& c : e.children) {
    if (c != nullptr && HasAggregateCall(*c)) return true;
  }
  return false;
}

constexpr std::string_view kGeneratorArgument = "__generator_argument";

// A generator in the select list of an aggregate query runs on the aggregated rows,
// as Spark plans it: SELECT k, explode(collect_list(x)) FROM t GROUP BY k is
//   SELECT k, col FROM (SELECT k, collect_list(x) AS __generator_argument FROM t
//   GROUP BY k) LATERAL VIEW explode(__generator_argument) __generate
// with DISTINCT, ORDER BY and LIMIT on the generated rows (ORDER BY names output
// columns).
Result<std::optional<SelectStmt>> AggregateThenGenerate(const SelectStmt& query,
                                                        size_t found) {
  const SelectItem& gen = query.items[found];
  auto inner = std::make_shared<SelectStmt>(query);
  inner->items.clear();
  inner->order_by.clear();
  inner->limit.reset();
  inner->distinct = false;
  SelectStmt outer;
  outer.distinct = query.distinct;
  outer.order_by = query.order_by;
  outer.limit = query.limit;
  for (size_t i = 0; i < query.items.size(); ++i) {
    const SelectItem& item = query.items[i];
    if (item.star) {
      return MakeError(ErrorCode::kUnsupportedFeature,
                       "a generator next to `*` in an aggregate query is not supported; "
                       "list the grouped columns");
    }
    SelectItem in = item;
    if (i == found) {
      in.expr = item.expr->children.empty() ? Expr::Null() : item.expr->children[0];
      in.alias = std::string(kGeneratorArgument);
      inner->items.push_back(in);
      continue;
    }
    if (in.alias.empty()) {
      in.alias = in.expr->kind == ExprKind::kColumn ? in.expr->path.back()
                                                    : SparkColumnName(*in.expr);
    }
    inner->items.push_back(in);
    SelectItem out;
    out.expr = Expr::Column({in.alias});
    out.alias = in.alias;
    out.text = in.alias;
    outer.items.push_back(out);
  }
  outer.from.kind = FromClause::Kind::kSubquery;
  outer.from.subquery = inner;
  outer.from.alias = "__aggregated";
  // The generator over the aggregated argument, its other arguments (json_tuple's
  // field names) as written; then lifted as any select-list generator.
  auto call = std::make_shared<Expr>(*gen.expr);
  if (!call->children.empty()) {
    call->children[0] = Expr::Column({std::string(kGeneratorArgument)});
  }
  SelectItem lifted = gen;
  lifted.expr = call;
  outer.items.insert(outer.items.begin() + static_cast<std::ptrdiff_t>(found), lifted);
  DELTA_ASSIGN_OR_RETURN(auto result, LiftSelectGenerators(outer));
  return result;
}

// True when a generator call is inside `e` (not `e` itself).
bool HasNestedGenerator(const Expr& e) {
  for (const auto& c : e.children) {
    if (c == nullptr) continue;
    if (c->kind == ExprKind::kFunction && IsGeneratorFunction(c->text)) return true;
    if (HasNestedGenerator(*c)) return true;
  }
  return false;
}

}  // namespace

bool IsGeneratorFunction(std::string_view name) {
  const GeneratorKind k = KindOf(name);
  return k.base == "explode" || k.base == "posexplode" || k.base == "inline" ||
         (k.base == "json_tuple" && !k.outer);
}

Result<std::optional<SelectStmt>> LiftSelectGenerators(const SelectStmt& query) {
  int found = -1;
  for (size_t i = 0; i < query.items.size(); ++i) {
    const SelectItem& item = query.items[i];
    if (item.star || item.expr == nullptr) continue;
    if (HasNestedGenerator(*item.expr)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS: a generator cannot "
                       "be inside an expression ({}); select it as an item of its own",
                       item.text);
    }
    if (item.expr->kind != ExprKind::kFunction || !IsGeneratorFunction(item.expr->text)) {
      continue;
    }
    if (found >= 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "UNSUPPORTED_GENERATOR.MULTI_GENERATOR: only one generator is "
                       "allowed per SELECT clause; use LATERAL VIEW for more");
    }
    found = static_cast<int>(i);
  }
  if (found < 0) return std::optional<SelectStmt>();
  const SelectItem& item = query.items[static_cast<size_t>(found)];
  if (!query.group_by.empty() || query.having != nullptr ||
      HasAggregateCall(*item.expr)) {
    return AggregateThenGenerate(query, static_cast<size_t>(found));
  }
  SelectStmt lifted = query;
  LateralView view;
  view.generator = item.expr;
  view.alias = std::string(kLiftedAlias);
  if (!item.alias.empty()) view.columns.push_back(item.alias);
  view.position = item.expr->position;
  lifted.lateral_views.push_back(view);
  // The item becomes the generated columns, named as Spark names them.
  // Without an alias the generated columns keep the names GeneratedFields gives them
  // (col; key, value for a map; pos first; inline's struct fields): `alias.*`.
  std::vector<std::string> names = view.columns;
  std::vector<SelectItem> items;
  for (size_t i = 0; i < query.items.size(); ++i) {
    if (static_cast<int>(i) != found) {
      items.push_back(query.items[i]);
      continue;
    }
    if (names.empty() ||
        (KindOf(item.expr->text).base != "explode" && !item.alias.empty())) {
      SelectItem all;
      all.star = true;
      all.star_qualifier = std::string(kLiftedAlias);
      items.push_back(all);
      continue;
    }
    for (const auto& n : names) {
      SelectItem col;
      col.expr = Expr::Column({std::string(kLiftedAlias), n});
      col.alias = n;
      col.text = n;
      items.push_back(col);
    }
  }
  lifted.items = std::move(items);
  return std::optional<SelectStmt>(std::move(lifted));
}

Result<SourcePlan> ApplyLateralViews(SourcePlan src,
                                     const std::vector<LateralView>& views,
                                     int64_t now_micros) {
  int index = 0;
  for (const auto& view : views) {
    DELTA_ASSIGN_OR_RETURN(src, ApplyView(std::move(src), view, now_micros, index++));
  }
  return src;
}

}  // namespace deltaguard::query_internal
