// The FROM clause: tables (with time travel) and temp views, file functions, VALUES,
// subqueries, and no FROM at all.

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/expr_eval.h"
#include "deltaguard/exec/input_source.h"
#include "deltaguard/expr/literal.h"
#include "deltaguard/io/parquet/table_scan.h"
#include "deltaguard/sql/query_internal.h"
#include "deltaguard/table/table.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::query_internal {

namespace {

constexpr int kMaxDepth = 32;

Result<ReaderRef> ReaderOf(std::vector<BatchRef> batches,
                           std::shared_ptr<arrow::Schema> schema) {
  DELTA_ARROW_ASSIGN_OR_RETURN(ReaderRef reader,
                               arrow::RecordBatchReader::Make(std::move(batches), schema),
                               ErrorCode::kInternal, "query source");
  return reader;
}

Result<std::string> StringArgument(const Expr& arg, const std::string& what,
                                   const QueryContext& context) {
  DELTA_ASSIGN_OR_RETURN(auto value, EvaluateConstant(arg, context));
  if (value->type_id() != arrow::Type::STRING || value->IsNull(0)) {
    return MakeError(ErrorCode::kInvalidArgument, "{} must be a string, got {}", what,
                     SparkColumnName(arg));
  }
  return std::string(static_cast<const arrow::StringArray&>(*value).GetView(0));
}

Result<SourcePlan> PlanFileFunction(const FromClause& from, const QueryContext& context) {
  const std::string& fn = from.function;
  InputOptions options;
  if (fn == "read_parquet") {
    options.format = InputFormat::kParquet;
  } else if (fn == "read_csv") {
    options.format = InputFormat::kCsv;
  } else {
    options.format = InputFormat::kJson;
  }
  if (from.args.size() != 1) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "{}() takes one path (a file, directory or glob), got {} arguments",
                     fn, from.args.size());
  }
  DELTA_ASSIGN_OR_RETURN(std::string glob,
                         StringArgument(*from.args[0], fn + "() path", context));
  for (const auto& [name, expr] : from.named_args) {
    if (fn == "read_csv" && name == "header") {
      DELTA_ASSIGN_OR_RETURN(auto v, EvaluateConstant(*expr, context));
      if (v->type_id() != arrow::Type::BOOL || v->IsNull(0)) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "read_csv() argument header must be TRUE or FALSE, got {}",
                         SparkColumnName(*expr));
      }
      options.csv_header = static_cast<const arrow::BooleanArray&>(*v).Value(0);
    } else if (fn == "read_csv" && EqualsIgnoreCase(name, "multiLine")) {
      DELTA_ASSIGN_OR_RETURN(auto v, EvaluateConstant(*expr, context));
      if (v->type_id() != arrow::Type::BOOL || v->IsNull(0)) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "read_csv() argument multiLine must be TRUE or FALSE, got {}",
                         SparkColumnName(*expr));
      }
      options.csv_multi_line = static_cast<const arrow::BooleanArray&>(*v).Value(0);
    } else if (fn == "read_csv" && name == "delimiter") {
      DELTA_ASSIGN_OR_RETURN(std::string d,
                             StringArgument(*expr, "read_csv() delimiter", context));
      if (d.size() != 1) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "read_csv() delimiter must be one character, got '{}'", d);
      }
      options.csv_delimiter = d[0];
    } else {
      return MakeError(ErrorCode::kInvalidArgument, "{}() has no argument '{}'{}", fn,
                       name,
                       fn == "read_csv" ? "; it takes header => BOOLEAN, delimiter => "
                                          "STRING and multiLine => BOOLEAN"
                                        : "");
    }
  }
  std::string display = fmt::format("{}('{}')", fn, glob);
  DELTA_ASSIGN_OR_RETURN(std::vector<std::string> paths,
                         ExpandInputPaths({glob}, options.fs));
  DELTA_ASSIGN_OR_RETURN(InputFile first, InspectInput(paths[0], options));
  DELTA_ASSIGN_OR_RETURN(SchemaRef schema, FromArrowSchema(*first.schema));
  // Later files parse their untyped columns as the first file's types.
  options.type_hint = schema;
  std::vector<InputFile> files;
  for (const auto& path : paths) {
    DELTA_ASSIGN_OR_RETURN(InputFile file, InspectInput(path, options));
    DELTA_ASSIGN_OR_RETURN(SchemaRef other, FromArrowSchema(*file.schema));
    if (!other->Equals(*schema)) {
      return MakeError(ErrorCode::kSchemaMismatch,
                       "{}: '{}' has columns {} but '{}' has {}", display, path,
                       other->ToString(), paths[0], schema->ToString());
    }
    files.push_back(std::move(file));
  }
  DELTA_ASSIGN_OR_RETURN(auto arrow_schema, ToArrowSchema(*schema));
  SourcePlan src;
  src.schema = schema;
  src.name = display;
  if (!from.alias.empty()) src.qualifiers = {AsciiToLower(from.alias)};
  src.open = [files, options, arrow_schema,
              display](const std::vector<std::string>& wanted) -> Result<ReaderRef> {
    // Parquet decodes only the columns the query reads (exec/input_source.h).
    std::shared_ptr<arrow::Schema> schema = arrow_schema;
    InputOptions read = options;
    if (options.format == InputFormat::kParquet) {
      if (auto fields = InputColumns(*arrow_schema, wanted)) {
        arrow::FieldVector kept;
        for (const int f : *fields) kept.push_back(arrow_schema->field(f));
        schema = arrow::schema(std::move(kept));
        read.columns = wanted;
      }
    }
    // Files are opened one after the other, as the previous one ends.
    auto index = std::make_shared<size_t>(0);
    auto current = std::make_shared<ReaderRef>();
    auto next_file = [files, read, index, current]() -> Result<bool> {
      if (*index >= files.size()) return false;
      DELTA_ASSIGN_OR_RETURN(*current, OpenInput(files[(*index)++], read));
      return true;
    };
    // A reader of "batches of files": each pull reads the current file, moving on at
    // its end.
    class Files final : public arrow::RecordBatchReader {
     public:
      Files(std::shared_ptr<arrow::Schema> schema, std::function<Result<bool>()> next,
            std::shared_ptr<ReaderRef> current)
          : schema_(std::move(schema)),
            next_(std::move(next)),
            current_(std::move(current)) {}
      std::shared_ptr<arrow::Schema> schema() const override { return schema_; }
      arrow::Status ReadNext(BatchRef* out) override {
        *out = nullptr;
        while (true) {
          if (*current_ == nullptr) {
            auto more = next_();
            if (!more) return internal::ToArrowStatus(more.error());
            if (!*more) return arrow::Status::OK();
          }
          ARROW_RETURN_NOT_OK((*current_)->ReadNext(out));
          if (*out != nullptr) return arrow::Status::OK();
          *current_ = nullptr;
        }
      }

     private:
      std::shared_ptr<arrow::Schema> schema_;
      std::function<Result<bool>()> next_;
      std::shared_ptr<ReaderRef> current_;
    };
    auto files_reader = std::make_shared<Files>(schema, next_file, current);
    return MapReader(files_reader, schema, [schema, display](const BatchRef& b) {
      return ConformBatch(b, schema, display);
    });
  };
  return src;
}

bool IsIntegralKind(LiteralKind k) {
  return k == LiteralKind::kByte || k == LiteralKind::kShort ||
         k == LiteralKind::kInteger || k == LiteralKind::kLong;
}

// INSERT ... VALUES typed by the target (PlanOptions::values_target): a literal that
// converts exactly becomes a literal (or a CAST of one) of the target type; one that
// cannot is an error; other expressions are left alone.
Result<ExprRef> TypeCellForTarget(const ExprRef& cell, const StructField& target,
                                  size_t row, size_t column) {
  if (cell->kind != ExprKind::kLiteral) return cell;
  const DataType& type = *target.type;
  const LiteralKind kind = cell->literal_kind;
  auto cast = [&](ExprRef e) {
    auto c = std::make_shared<Expr>();
    c->kind = ExprKind::kCast;
    c->cast_type = target.type;
    c->children = {std::move(e)};
    return ExprRef(c);
  };
  DELTA_ASSIGN_OR_RETURN(LiteralValue value, EvaluateLiteral(*cell));
  auto mismatch = [&](std::string_view why) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "VALUES row {}, column {} ('{}'): {} ({}) {} {}", row + 1,
                     column + 1, target.name, value.ToString(), value.type->ToString(),
                     why, type.ToString());
  };
  if (kind == LiteralKind::kNull) return cast(cell);
  switch (type.kind()) {
    case TypeKind::kByte:
    case TypeKind::kShort:
    case TypeKind::kInteger:
    case TypeKind::kLong: {
      if (!IsIntegralKind(kind) && kind != LiteralKind::kDecimal) return cell;
      std::string text = TrimFractionZeros(cell->text);
      if (text.find('.') != std::string::npos)
        return mismatch("is not a whole number for");
      auto v = ParseDecimalText(text, 38, 0);
      static constexpr int64_t kMax[] = {0, 127, 32767, 2147483647, INT64_MAX};
      int64_t max = kMax[IntegralRank(type.kind())];
      if (!v || *v > max || *v < -max - 1) return mismatch("does not fit");
      return cast(Expr::Literal(LiteralKind::kDecimal, text));
    }
    case TypeKind::kFloat:
    case TypeKind::kDouble:
      if (IsIntegralKind(kind) || kind == LiteralKind::kDecimal ||
          kind == LiteralKind::kDouble || kind == LiteralKind::kFloat) {
        return cast(cell);
      }
      return cell;
    case TypeKind::kDecimal: {
      if (!IsIntegralKind(kind) && kind != LiteralKind::kDecimal &&
          kind != LiteralKind::kString) {
        return cell;
      }
      const auto& d = static_cast<const DecimalType&>(type);
      std::string text = TrimFractionZeros(std::string(Trim(cell->text)));
      if (!ParseDecimalText(text, d.precision(), d.scale())) {
        return mismatch("does not fit");
      }
      return cast(Expr::Literal(LiteralKind::kDecimal, text));
    }
    case TypeKind::kDate:
      if (kind == LiteralKind::kString) {
        if (!ParseDateLiteral(cell->text)) return mismatch("is not a valid");
        return Expr::Literal(LiteralKind::kDate, cell->text);
      }
      return cell;
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz: {
      bool ntz = type.kind() == TypeKind::kTimestampNtz;
      if (kind == LiteralKind::kString) {
        if (!ParseTimestampLiteral(cell->text, !ntz)) return mismatch("is not a valid");
        return Expr::Literal(ntz ? LiteralKind::kTimestampNtz : LiteralKind::kTimestamp,
                             cell->text);
      }
      if (kind == LiteralKind::kDate) return cast(cell);
      return cell;
    }
    default:
      return cell;
  }
}

Result<SourcePlan> PlanValues(const FromClause& from, const QueryContext& context,
                              const StructType* target) {
  const auto& rows = from.rows;
  if (rows.empty() || rows[0].empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "VALUES needs at least one value");
  }
  const size_t width = rows[0].size();
  for (size_t r = 1; r < rows.size(); ++r) {
    if (rows[r].size() != width) {
      return MakeError(
          ErrorCode::kInvalidArgument,
          "VALUES row {} has {} values but row 1 has {}; every row needs the "
          "same number of values",
          r + 1, rows[r].size(), width);
    }
  }
  StructType empty({});
  EvalOptions eval;
  eval.now_micros = context.now_micros;
  auto one_row = EmptyColumnsBatch(1);
  std::vector<StructField> fields;
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (size_t c = 0; c < width; ++c) {
    std::vector<ExprRef> cells;
    for (size_t r = 0; r < rows.size(); ++r) {
      ExprRef cell = rows[r][c];
      if (target != nullptr && c < target->num_fields()) {
        DELTA_ASSIGN_OR_RETURN(cell, TypeCellForTarget(cell, target->field(c), r, c));
      }
      cells.push_back(std::move(cell));
    }
    std::string name = "col" + std::to_string(c + 1);
    // Spark gives each VALUES column the common type of its rows, as coalesce does.
    auto bound = Bind(*Expr::Function("coalesce", cells), empty);
    if (!bound)
      return WithContext(bound.error(), "VALUES column " + std::to_string(c + 1));
    std::vector<std::shared_ptr<arrow::Array>> values;
    bool nullable = false;
    for (size_t r = 0; r < rows.size(); ++r) {
      const BoundExpr& cell = *(*bound)->args[r];
      if (ContainsAggregate(cell) || !ReferencedColumns(cell).empty()) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "VALUES row {}, column {}: {} is not a constant", r + 1, c + 1,
                         SparkColumnName(*rows[r][c]));
      }
      auto v = Evaluate(cell, *one_row, eval);
      if (!v) {
        return WithContext(v.error(),
                           fmt::format("VALUES row {}, column {}", r + 1, c + 1));
      }
      nullable = nullable || (*v)->IsNull(0);
      values.push_back(std::move(*v));
    }
    DELTA_ARROW_ASSIGN_OR_RETURN(auto column, arrow::Concatenate(values),
                                 ErrorCode::kInternal, "VALUES");
    fields.push_back(StructField{name, (*bound)->type, nullable, {}});
    columns.push_back(std::move(column));
  }
  SourcePlan src;
  src.schema = std::make_shared<StructType>(std::move(fields));
  DELTA_ASSIGN_OR_RETURN(auto arrow_schema, ToArrowSchema(*src.schema));
  auto batch = arrow::RecordBatch::Make(arrow_schema, static_cast<int64_t>(rows.size()),
                                        std::move(columns));
  src.name = "VALUES";
  if (!from.alias.empty()) src.qualifiers = {AsciiToLower(from.alias)};
  src.open = [batch](const std::vector<std::string>&) {
    return ReaderOf({batch}, batch->schema());
  };
  return src;
}

// `AS t(c1, c2)`: rename the source's columns.
bool IsBareSelectStar(const SelectStmt& q) {
  return q.items.size() == 1 && q.items[0].star && q.items[0].star_except.empty() &&
         !q.distinct && q.where == nullptr && q.group_by.empty() && q.having == nullptr &&
         q.qualify == nullptr && q.order_by.empty() && !q.limit;
}

}  // namespace

SourcePlan FromPlan(const QueryPlan& plan, std::vector<std::string> qualifiers) {
  SourcePlan src;
  src.schema = plan.schema;
  src.name = plan.source_name;
  src.qualifiers = std::move(qualifiers);
  auto open = plan.open;
  src.open = [open](const std::vector<std::string>&) { return open(); };
  return src;
}

Result<SourcePlan> RenameColumns(SourcePlan src, const std::vector<std::string>& names) {
  if (names.size() != src.schema->num_fields()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "{} has {} columns but the alias names {}: ({})", src.name,
                     src.schema->num_fields(), names.size(), fmt::join(names, ", "));
  }
  std::vector<StructField> fields = src.schema->fields();
  for (size_t i = 0; i < names.size(); ++i) fields[i].name = names[i];
  src.schema = std::make_shared<StructType>(std::move(fields));
  DELTA_ASSIGN_OR_RETURN(auto arrow_schema, ToArrowSchema(*src.schema));
  auto open = src.open;
  src.open = [open, arrow_schema](const std::vector<std::string>&) -> Result<ReaderRef> {
    DELTA_ASSIGN_OR_RETURN(ReaderRef in, open({}));
    return MapReader(
        in, arrow_schema, [arrow_schema](const BatchRef& b) -> Result<BatchRef> {
          return arrow::RecordBatch::Make(arrow_schema, b->num_rows(), b->columns());
        });
  };
  return src;
}

Result<SourcePlan> PlanSource(const SelectStmt& query, const QueryContext& context,
                              const PlanOptions& options, int depth) {
  return PlanFrom(query.from, context,
                  IsBareSelectStar(query) ? options.values_target : nullptr, depth);
}

Result<SourcePlan> PlanFrom(const FromClause& from, const QueryContext& context,
                            const StructType* values_target, int depth) {
  if (depth > kMaxDepth) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "views and subqueries nest more than {} levels deep (does a view "
                     "refer to itself?)",
                     kMaxDepth);
  }
  Result<SourcePlan> src = MakeError(ErrorCode::kInternal, "unknown FROM kind");
  if (from.stream) return PlanStreamSource(from, context);
  switch (from.kind) {
    case FromClause::Kind::kNone: {
      SourcePlan none;
      none.schema = std::make_shared<StructType>(std::vector<StructField>{});
      none.name = "no table";
      none.open = [](const std::vector<std::string>&) {
        BatchRef row = EmptyColumnsBatch(1);
        return ReaderOf({row}, row->schema());
      };
      src = std::move(none);
      break;
    }
    case FromClause::Kind::kTable:
      src = PlanTable(from, context, depth);
      break;
    case FromClause::Kind::kFunction:
      if (from.function == "delta_log") {
        src = PlanDeltaLog(from, context);
      } else if (from.function == "schema_changes") {
        src = PlanSchemaChanges(from, context);
      } else if (from.function == "read_parquet" || from.function == "read_csv" ||
                 from.function == "read_json") {
        src = PlanFileFunction(from, context);
      } else if (from.function == "read_files") {
        src = PlanReadFiles(from, context);
      } else if (from.function == "range") {
        src = PlanRange(from, context);
      } else {
        return MakeError(
            ErrorCode::kInvalidArgument,
            "unknown table function {}(); supported: read_files, read_parquet, "
            "read_csv, read_json, range, delta_log, schema_changes",
            from.function);
      }
      break;
    case FromClause::Kind::kValues:
      src = PlanValues(from, context, values_target);
      break;
    case FromClause::Kind::kJoin:
      src = PlanJoin(from, context, depth);
      break;
    case FromClause::Kind::kSubquery: {
      if (from.subquery == nullptr) {
        return MakeError(ErrorCode::kInternal, "subquery without a query");
      }
      DELTA_ASSIGN_OR_RETURN(QueryPlan plan,
                             PlanQueryAt(*from.subquery, context, {}, depth + 1));
      std::vector<std::string> qualifiers;
      if (!from.alias.empty()) qualifiers.push_back(AsciiToLower(from.alias));
      src = FromPlan(plan, std::move(qualifiers));
      break;
    }
  }
  if (!src) return src;
  if (!from.column_aliases.empty())
    return RenameColumns(std::move(*src), from.column_aliases);
  return src;
}

}  // namespace deltaguard::query_internal
