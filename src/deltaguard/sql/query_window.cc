// Window functions, planning: each `f(...) OVER (...)` of a query becomes a column of
// the window stage (query_window_exec.cc); this file finds the calls, binds them and
// applies Spark's analyzer rules (docs/sql.md "Window functions").

#include <string>
#include <utility>

#include "deltaguard/expr/printer.h"
#include "deltaguard/sql/query_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::query_internal {

namespace {

constexpr std::string_view kWindowPrefix = "__w";

// A frame offset: Spark requires a constant; deltaguard takes a numeric literal.
Result<double> FrameOffset(const FrameBound& b, bool rows, std::string_view function) {
  if (b.kind != FrameBoundKind::kPreceding && b.kind != FrameBoundKind::kFollowing) {
    return 0.0;
  }
  const Expr& e = *b.offset;
  const bool integral =
      e.kind == ExprKind::kLiteral &&
      (e.literal_kind == LiteralKind::kInteger || e.literal_kind == LiteralKind::kLong ||
       e.literal_kind == LiteralKind::kByte || e.literal_kind == LiteralKind::kShort);
  const bool numeric = integral || (e.kind == ExprKind::kLiteral &&
                                    (e.literal_kind == LiteralKind::kDecimal ||
                                     e.literal_kind == LiteralKind::kDouble ||
                                     e.literal_kind == LiteralKind::kFloat));
  if (rows ? !integral : !numeric) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the frame offset '{}' of {}() must be {} literal "
                     "(DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_UNACCEPTED_TYPE)",
                     ToSql(e), function, rows ? "an integer" : "a numeric");
  }
  double v = std::stod(e.text);
  if (v < 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the frame offset {} of {}() must not be negative; write {} instead",
                     e.text, function,
                     b.kind == FrameBoundKind::kPreceding ? "FOLLOWING" : "PRECEDING");
  }
  return v;
}

// Position of a bound on the line UNBOUNDED PRECEDING .. UNBOUNDED FOLLOWING, for the
// "start after end" check of constant frames.
double BoundRank(FrameBoundKind kind, double offset) {
  switch (kind) {
    case FrameBoundKind::kUnboundedPreceding:
      return -1e300;
    case FrameBoundKind::kPreceding:
      return -offset;
    case FrameBoundKind::kCurrentRow:
      return 0;
    case FrameBoundKind::kFollowing:
      return offset;
    case FrameBoundKind::kUnboundedFollowing:
      return 1e300;
  }
  return 0;
}

Status ResolveFrame(const WindowSpec& spec, const std::string& fn, WindowCall* call) {
  WindowFrameSpec& f = call->frame;
  if (!spec.has_frame) {
    // Spark's default frame: up to the current row's peers with ORDER BY, the whole
    // partition without.
    f.rows = spec.order_by.empty();
    f.start = FrameBoundKind::kUnboundedPreceding;
    f.end = spec.order_by.empty() ? FrameBoundKind::kUnboundedFollowing
                                  : FrameBoundKind::kCurrentRow;
    return OkStatus();
  }
  f.rows = !spec.range;
  f.start = spec.start.kind;
  f.end = spec.end.kind;
  if (f.start == FrameBoundKind::kUnboundedFollowing ||
      f.end == FrameBoundKind::kUnboundedPreceding) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        "the window frame of {}() cannot start at UNBOUNDED FOLLOWING or end "
        "at UNBOUNDED PRECEDING (INVALID_BOUNDARY)",
        fn);
  }
  DELTA_ASSIGN_OR_RETURN(f.start_offset, FrameOffset(spec.start, f.rows, fn));
  DELTA_ASSIGN_OR_RETURN(f.end_offset, FrameOffset(spec.end, f.rows, fn));
  if (BoundRank(f.start, f.start_offset) > BoundRank(f.end, f.end_offset)) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        "the window frame of {}() starts after it ends: the lower bound must "
        "not be after the upper bound "
        "(DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_WRONG_COMPARISON)",
        fn);
  }
  const bool value_offsets = f.start_offset != 0 || f.end_offset != 0 ||
                             spec.start.kind == FrameBoundKind::kPreceding ||
                             spec.start.kind == FrameBoundKind::kFollowing ||
                             spec.end.kind == FrameBoundKind::kPreceding ||
                             spec.end.kind == FrameBoundKind::kFollowing;
  if (!f.rows && value_offsets) {
    if (call->order.size() != 1) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "a RANGE frame with an offset needs exactly one ORDER BY "
                       "expression, {}() has {} "
                       "(DATATYPE_MISMATCH.RANGE_FRAME_MULTI_ORDER)",
                       fn, call->order.size());
    }
    const DataType& t = *call->order[0]->type;
    if (!t.is_numeric()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "a RANGE frame with an offset orders by a number; {}() orders by "
                       "{} (DATATYPE_MISMATCH.RANGE_FRAME_INVALID_TYPE)",
                       fn, t.ToString());
    }
  }
  return OkStatus();
}

// A positive integer literal argument (ntile's buckets, nth_value's n, lag's offset).
Result<int64_t> IntArgument(const BoundExprRef& arg, const std::string& fn,
                            bool positive) {
  if (arg->kind != BoundKind::kLiteral || !arg->type->is_integral() ||
      arg->literal.is_null()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "{}() takes an integer literal here, got {}", fn,
                     arg->type->ToString());
  }
  int64_t v = std::get<int64_t>(arg->literal.value);
  if (positive && v <= 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "{}() needs a positive number here, got {} "
                     "(DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE)",
                     fn, v);
  }
  return v;
}

Status Arity(const WindowCall& call, size_t min, size_t max) {
  if (call.args.size() >= min && call.args.size() <= max) return OkStatus();
  std::string want = min == max ? std::to_string(min)
                                : std::to_string(min) + " to " + std::to_string(max);
  return MakeError(ErrorCode::kInvalidArgument,
                   "{}() takes {} argument(s), got {} (WRONG_NUM_ARGS)", call.name, want,
                   call.args.size());
}

// A cast of `e` to `type` (lag's default to the value's type).
BoundExprRef CastTo(const BoundExprRef& e, const DataTypeRef& type) {
  if (e->type->Equals(*type)) return e;
  auto c = std::make_shared<BoundExpr>();
  c->kind = BoundKind::kCast;
  c->type = type;
  c->nullable = e->nullable;
  c->args.push_back(e);
  return c;
}

// The function's own arguments and result type.
Status BindFunctionPart(const Expr& f, const StructType& input, const BindOptions& bind,
                        WindowCall* call) {
  const std::string& fn = call->name;
  for (const auto& c : f.children) {
    DELTA_ASSIGN_OR_RETURN(BoundExprRef a, Bind(*c, input, bind));
    call->args.push_back(std::move(a));
  }
  DataTypeRef integer = DataType::Integer();
  DataTypeRef dbl = DataType::Double();
  if (fn == "row_number" || fn == "rank" || fn == "dense_rank") {
    DELTA_RETURN_IF_ERROR(Arity(*call, 0, 0));
    call->type = integer;
    call->nullable = false;
  } else if (fn == "percent_rank" || fn == "cume_dist") {
    DELTA_RETURN_IF_ERROR(Arity(*call, 0, 0));
    call->type = dbl;
    call->nullable = false;
  } else if (fn == "ntile") {
    DELTA_RETURN_IF_ERROR(Arity(*call, 1, 1));
    DELTA_ASSIGN_OR_RETURN(call->offset, IntArgument(call->args[0], fn, true));
    call->type = integer;
    call->nullable = false;
  } else if (fn == "lag" || fn == "lead") {
    DELTA_RETURN_IF_ERROR(Arity(*call, 1, 3));
    if (call->args.size() >= 2) {
      DELTA_ASSIGN_OR_RETURN(call->offset, IntArgument(call->args[1], fn, false));
    }
    call->type = call->args[0]->type;
    if (call->args.size() == 3) {
      // Spark casts the default to the value's type (lag(tinyint_col, 1, 0) stays
      // TINYINT); the two must still have a common type.
      DataTypeRef common = CommonTypeOf(call->args[0]->type, call->args[2]->type);
      if (common == nullptr) {
        return MakeError(
            ErrorCode::kSchemaMismatch,
            "the default of {}() has type {}, which does not fit the value's "
            "{} (DATATYPE_MISMATCH)",
            fn, call->args[2]->type->ToString(), call->args[0]->type->ToString());
      }
      call->args[2] = CastTo(call->args[2], call->args[0]->type);
      call->type = call->args[0]->type;
    }
  } else if (fn == "first_value" || fn == "last_value" || fn == "first" || fn == "last" ||
             fn == "any_value") {
    DELTA_RETURN_IF_ERROR(Arity(*call, 1, 2));
    if (call->args.size() == 2) {
      const BoundExpr& flag = *call->args[1];
      if (flag.kind != BoundKind::kLiteral || flag.type->kind() != TypeKind::kBoolean ||
          flag.literal.is_null()) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "the second argument of {}() (ignoreNulls) must be a boolean "
                         "literal",
                         fn);
      }
      call->ignore_nulls = call->ignore_nulls || std::get<bool>(flag.literal.value);
      call->args.pop_back();
    }
    call->type = call->args[0]->type;
  } else if (fn == "nth_value") {
    DELTA_RETURN_IF_ERROR(Arity(*call, 2, 2));
    DELTA_ASSIGN_OR_RETURN(call->offset, IntArgument(call->args[1], fn, true));
    call->type = call->args[0]->type;
  } else if (fn == "count" || fn == "sum" || fn == "avg" || fn == "mean" || fn == "min" ||
             fn == "max") {
    // The aggregate's own binding gives Spark's result type (sum(int) is BIGINT).
    DELTA_ASSIGN_OR_RETURN(BoundExprRef agg, Bind(f, input, bind));
    call->type = agg->type;
    call->nullable = fn != "count";
    if (fn == "count" && f.star) call->args.clear();
  } else {
    // The aggregate library (stddev, count_if, collect_list, percentile, ...): its own
    // binding checks the arguments and gives the result type; each frame is folded by
    // its GROUP BY accumulator (query_window_frames.cc).
    auto agg = Bind(f, input, bind);
    if (!agg || (*agg)->kind != BoundKind::kCall || (*agg)->fn != BoundFn::kAggregate) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "{}() cannot be used with OVER: it is neither a window function "
                       "nor an aggregate (UNSUPPORTED_EXPR_FOR_WINDOW)",
                       fn);
    }
    call->aggregate = *agg;
    call->args = (*agg)->args;
    call->type = (*agg)->type;
    call->nullable = (*agg)->nullable;
  }
  return OkStatus();
}

}  // namespace

Result<std::optional<SelectStmt>> ResolveNamedWindows(const SelectStmt& query) {
  bool named = !query.windows.empty();
  auto find = [&](const Expr& e) -> ExprRef {
    if (e.kind == ExprKind::kWindow && !e.window->name.empty()) named = true;
    return nullptr;
  };
  for (const auto& item : query.items) {
    if (item.expr != nullptr) TransformExpr(item.expr, find);
  }
  if (query.qualify != nullptr) TransformExpr(query.qualify, find);
  for (const auto& o : query.order_by) TransformExpr(o.expr, find);
  if (!named) return std::optional<SelectStmt>();
  std::optional<Error> missing;
  auto resolve = [&](const Expr& e) -> ExprRef {
    if (e.kind != ExprKind::kWindow || e.window->name.empty()) return nullptr;
    for (const auto& [name, spec] : query.windows) {
      if (!EqualsIgnoreCase(name, e.window->name)) continue;
      auto resolved = std::make_shared<WindowSpec>(*spec);
      resolved->ignore_nulls = e.window->ignore_nulls;
      auto w = std::make_shared<Expr>(e);
      w->window = std::move(resolved);
      return w;
    }
    missing = MakeError(ErrorCode::kInvalidArgument,
                        "MISSING_WINDOW_SPECIFICATION: window '{}' is not defined in the "
                        "WINDOW clause{}",
                        e.window->name, query.windows.empty() ? " (there is none)" : "");
    return nullptr;
  };
  SelectStmt out = query;
  out.windows.clear();
  for (auto& item : out.items) {
    if (item.expr != nullptr) item.expr = TransformExpr(item.expr, resolve);
  }
  if (out.qualify != nullptr) out.qualify = TransformExpr(out.qualify, resolve);
  for (auto& o : out.order_by) o.expr = TransformExpr(o.expr, resolve);
  if (missing) return *missing;
  return std::optional<SelectStmt>(std::move(out));
}

std::string WindowColumnName(size_t i) {
  return std::string(kWindowPrefix) + std::to_string(i);
}

bool IsWindowColumnName(std::string_view name) {
  if (name.size() <= kWindowPrefix.size() || name.substr(0, 3) != kWindowPrefix) {
    return false;
  }
  for (char c : name.substr(3)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

void AddColumnsRead(const BoundExprRef& b, std::vector<std::string>* names) {
  if (b == nullptr) return;
  for (const auto& path : ReferencedColumns(*b)) {
    if (IsWindowColumnName(path[0])) continue;
    bool seen = false;
    for (const auto& n : *names) seen = seen || EqualsIgnoreCase(n, path[0]);
    if (!seen) names->push_back(path[0]);
  }
}

bool IsRankingWindowFunction(std::string_view name) {
  static constexpr std::string_view kNames[] = {"row_number",   "rank",      "dense_rank",
                                                "percent_rank", "cume_dist", "ntile",
                                                "lag",          "lead"};
  for (std::string_view n : kNames) {
    if (EqualsIgnoreCase(n, name)) return true;
  }
  return false;
}

ExprRef ExtractWindows(const ExprRef& e, std::vector<ExprRef>* windows) {
  return TransformExpr(e, [&](const Expr& node) -> ExprRef {
    if (node.kind != ExprKind::kWindow) return nullptr;
    size_t i = 0;
    while (i < windows->size() && !(*(*windows)[i] == node)) ++i;
    if (i == windows->size()) windows->push_back(std::make_shared<Expr>(node));
    return Expr::Column({WindowColumnName(i)}, node.position);
  });
}

Result<ExprRef> MapWindowSpec(const ExprRef& window,
                              const std::function<Result<ExprRef>(const ExprRef&)>& fn) {
  auto spec = std::make_shared<WindowSpec>(*window->window);
  for (auto& p : spec->partition_by) {
    DELTA_ASSIGN_OR_RETURN(p, fn(p));
  }
  for (auto& o : spec->order_by) {
    DELTA_ASSIGN_OR_RETURN(o.expr, fn(o.expr));
  }
  auto copy = std::make_shared<Expr>(*window);
  copy->window = std::move(spec);
  return ExprRef(copy);
}

Result<WindowCall> BindWindow(const Expr& window, const StructType& input,
                              const BindOptions& bind) {
  const Expr& f = *window.children[0];
  const WindowSpec& spec = *window.window;
  WindowCall call;
  call.name = f.text;
  call.ignore_nulls = spec.ignore_nulls;
  if (f.distinct) {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "DISTINCT is not supported in window function {}() "
                     "(DISTINCT_WINDOW_FUNCTION_UNSUPPORTED)",
                     f.text);
  }
  for (const auto& p : spec.partition_by) {
    DELTA_ASSIGN_OR_RETURN(BoundExprRef b, Bind(*p, input, bind));
    call.partition.push_back(std::move(b));
  }
  for (const auto& o : spec.order_by) {
    DELTA_ASSIGN_OR_RETURN(BoundExprRef b, Bind(*o.expr, input, bind));
    call.order.push_back(std::move(b));
    SortKeySpec dir;
    dir.descending = o.descending;
    dir.nulls_first = o.nulls_first;
    call.order_dirs.push_back(dir);
  }
  DELTA_RETURN_IF_ERROR(BindFunctionPart(f, input, bind, &call));
  if (IsRankingWindowFunction(call.name)) {
    if (call.order.empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "window function {}() requires window to be ordered, please add "
                       "ORDER BY clause, e.g. {}() OVER (PARTITION BY k ORDER BY v)",
                       call.name, call.name);
    }
    if (spec.has_frame) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "window function {}() takes no window frame (ROWS/RANGE): it "
                       "works on positions in the ordered partition",
                       call.name);
    }
    return call;
  }
  if (spec.ignore_nulls && call.name != "first_value" && call.name != "last_value" &&
      call.name != "nth_value" && call.name != "first" && call.name != "last" &&
      call.name != "any_value") {
    return MakeError(ErrorCode::kInvalidArgument,
                     "IGNORE NULLS is not supported for {}()", call.name);
  }
  DELTA_RETURN_IF_ERROR(ResolveFrame(spec, call.name, &call));
  return call;
}

}  // namespace deltaguard::query_internal
