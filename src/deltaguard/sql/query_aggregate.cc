// GROUP BY and aggregates: Arrow's Grouper assigns group ids, and our accumulators
// compute count/sum/min/max/avg with Spark's result types and ANSI overflow errors
// (Arrow's hash aggregates would silently wrap sums and round decimal averages
// differently).

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/compute/exec.h>
#include <arrow/compute/row/grouper.h>
#include <arrow/util/decimal.h>

#include <cmath>
#include <utility>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/expr_eval.h"
#include "deltaguard/expr/literal.h"
#include "deltaguard/sql/query_aggregate_internal.h"
#include "deltaguard/sql/query_internal.h"

namespace deltaguard::query_internal {

namespace {

Int128 Pow10(int n) {
  Int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

template <typename ArrayType>
int ComparePrimitive(const arrow::Array& a, int64_t i, const arrow::Array& b, int64_t j) {
  auto x = static_cast<const ArrayType&>(a).Value(i);
  auto y = static_cast<const ArrayType&>(b).Value(j);
  if constexpr (std::is_floating_point_v<decltype(x)>) {
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) - std::isnan(y);
  }
  return x < y ? -1 : (y < x ? 1 : 0);
}

template <typename ArrayType>
int CompareBinary(const arrow::Array& a, int64_t i, const arrow::Array& b, int64_t j) {
  int c = static_cast<const ArrayType&>(a).GetView(i).compare(
      static_cast<const ArrayType&>(b).GetView(j));
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

int CompareDecimal(const arrow::Array& a, int64_t i, const arrow::Array& b, int64_t j) {
  Int128 x = DecimalAt(static_cast<const arrow::Decimal128Array&>(a), i);
  Int128 y = DecimalAt(static_cast<const arrow::Decimal128Array&>(b), j);
  return x < y ? -1 : (y < x ? 1 : 0);
}

}  // namespace

Result<Comparator> ComparatorFor(const arrow::DataType& type, const std::string& name) {
  switch (type.id()) {
    case arrow::Type::BOOL:
      return &ComparePrimitive<arrow::BooleanArray>;
    case arrow::Type::INT8:
      return &ComparePrimitive<arrow::Int8Array>;
    case arrow::Type::INT16:
      return &ComparePrimitive<arrow::Int16Array>;
    case arrow::Type::INT32:
      return &ComparePrimitive<arrow::Int32Array>;
    case arrow::Type::INT64:
      return &ComparePrimitive<arrow::Int64Array>;
    case arrow::Type::FLOAT:
      return &ComparePrimitive<arrow::FloatArray>;
    case arrow::Type::DOUBLE:
      return &ComparePrimitive<arrow::DoubleArray>;
    case arrow::Type::DATE32:
      return &ComparePrimitive<arrow::Date32Array>;
    case arrow::Type::TIMESTAMP:
      return &ComparePrimitive<arrow::TimestampArray>;
    case arrow::Type::DECIMAL128:
      return &CompareDecimal;
    case arrow::Type::STRING:
      return &CompareBinary<arrow::StringArray>;
    case arrow::Type::BINARY:
      return &CompareBinary<arrow::BinaryArray>;
    case arrow::Type::NA:
      return &ComparePrimitive<arrow::Int8Array>;  // never called: every value is null
    default:
      return MakeError(ErrorCode::kUnsupportedFeature, "{} of type {} is not supported",
                       name, type.ToString());
  }
}

arrow::Decimal128 ToArrowDecimal(Int128 v) {
  return arrow::Decimal128(static_cast<int64_t>(v >> 64),
                           static_cast<uint64_t>(static_cast<unsigned __int128>(v)));
}

Int128 DecimalAt(const arrow::Decimal128Array& a, int64_t i) {
  arrow::Decimal128 d(a.GetValue(i));
  return (static_cast<Int128>(d.high_bits()) << 64) |
         static_cast<Int128>(static_cast<uint64_t>(d.low_bits()));
}

// The sum or average at the result type's scale; averages round half up (Spark's
// Average divides the decimal sum by the count, rounding HALF_UP).
Result<Int128> DecimalSumResult(Int128 sum, int64_t count, bool average,
                                const DecimalType& in, const DecimalType& out,
                                const std::string& what) {
  auto overflow = [&] {
    return MakeError(ErrorCode::kInvalidArgument,
                     "{}: arithmetic overflow, the result does not fit {}", what,
                     out.ToString());
  };
  Int128 divisor = average ? count : 1;
  int shift = out.scale() - in.scale();
  if (shift < 0) {
    divisor *= Pow10(-shift);
    shift = 0;
  }
  Int128 q = sum / divisor;
  Int128 r = sum % divisor;
  Int128 scale = Pow10(shift);
  Int128 v;
  if (__builtin_mul_overflow(q, scale, &v)) return overflow();
  // r * scale < divisor * 10^shift; both stay well inside 128 bits.
  Int128 frac = r * scale;
  Int128 extra = frac / divisor;
  Int128 rest = frac % divisor;
  if (rest < 0) rest = -rest;
  if (2 * rest >= divisor) extra += sum < 0 ? -1 : 1;
  if (__builtin_add_overflow(v, extra, &v)) return overflow();
  Int128 limit = Pow10(out.precision());
  if (v >= limit || v <= -limit) return overflow();
  return v;
}

bool AllValid(const Arrays& args, int64_t row) {
  for (const auto& a : args) {
    if (a->IsNull(row)) return false;
  }
  return true;
}

namespace {

class CountAccumulator final : public Accumulator {
 public:
  Status Consume(const Arrays& args, const uint32_t* ids, int64_t rows,
                 uint32_t num_groups) override {
    counts_.resize(num_groups, 0);
    for (int64_t r = 0; r < rows; ++r) {
      if (args.empty() || AllValid(args, r)) ++counts_[ids[r]];
    }
    return OkStatus();
  }
  Result<ArrayRef> Finish(uint32_t num_groups) override {
    counts_.resize(num_groups, 0);
    arrow::Int64Builder builder;
    if (!counts_.empty()) {
      DELTA_ARROW_RETURN_NOT_OK(builder.AppendValues(counts_), ErrorCode::kInternal,
                                "count");
    }
    DELTA_ARROW_ASSIGN_OR_RETURN(ArrayRef out, builder.Finish(), ErrorCode::kInternal,
                                 "count");
    return out;
  }

 private:
  std::vector<int64_t> counts_;
};

Result<ArrayRef> CastArray(const ArrayRef& in, const std::shared_ptr<arrow::DataType>& to,
                           const std::string& what) {
  if (in->type()->Equals(*to)) return in;
  // Integers become doubles rounding as Java's long-to-double (Spark's avg sums
  // doubles); Arrow's safe cast would refuse |x| > 2^53.
  auto options = arrow::is_floating(to->id()) ? arrow::compute::CastOptions::Unsafe(to)
                                              : arrow::compute::CastOptions::Safe(to);
  DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum out, arrow::compute::Cast(in, options),
                               ErrorCode::kInternal, what);
  return out.make_array();
}

// sum/avg over integers (exact, BIGINT), floating point (DOUBLE) or decimals (unscaled
// 128-bit at the argument's scale).
class SumAccumulator final : public Accumulator {
 public:
  enum class Kind { kInteger, kDouble, kDecimal };
  /// `lenient` (try_sum, try_avg): a group whose sum overflows is NULL, not an error.
  SumAccumulator(std::string name, bool average, DataTypeRef arg_type,
                 DataTypeRef result_type, bool lenient)
      : name_(std::move(name)),
        average_(average),
        lenient_(lenient),
        arg_type_(std::move(arg_type)),
        result_type_(std::move(result_type)) {
    if (arg_type_->kind() == TypeKind::kDecimal) {
      kind_ = Kind::kDecimal;
    } else if (arg_type_->is_integral() && !average_) {
      kind_ = Kind::kInteger;
    } else {
      kind_ = Kind::kDouble;
    }
  }

  Status Consume(const Arrays& args, const uint32_t* ids, int64_t rows,
                 uint32_t num_groups) override {
    counts_.resize(num_groups, 0);
    switch (kind_) {
      case Kind::kInteger: {
        ints_.resize(num_groups, 0);
        DELTA_ASSIGN_OR_RETURN(ArrayRef a, CastArray(args[0], arrow::int64(), name_));
        const auto& values = static_cast<const arrow::Int64Array&>(*a);
        for (int64_t r = 0; r < rows; ++r) {
          if (values.IsNull(r)) continue;
          int64_t& sum = ints_[ids[r]];
          if (__builtin_add_overflow(sum, values.Value(r), &sum)) {
            if (lenient_) {
              MarkOverflow(ids[r]);
              continue;
            }
            return MakeError(ErrorCode::kInvalidArgument,
                             "{}: arithmetic overflow, the sum does not fit BIGINT "
                             "(use CAST(... AS DECIMAL(38, 0)) or try_cast)",
                             name_);
          }
          ++counts_[ids[r]];
        }
        return OkStatus();
      }
      case Kind::kDouble: {
        doubles_.resize(num_groups, 0.0);
        DELTA_ASSIGN_OR_RETURN(ArrayRef a, CastArray(args[0], arrow::float64(), name_));
        const auto& values = static_cast<const arrow::DoubleArray&>(*a);
        for (int64_t r = 0; r < rows; ++r) {
          if (values.IsNull(r)) continue;
          doubles_[ids[r]] += values.Value(r);
          ++counts_[ids[r]];
        }
        return OkStatus();
      }
      case Kind::kDecimal: {
        decimals_.resize(num_groups, 0);
        const auto& values = static_cast<const arrow::Decimal128Array&>(*args[0]);
        for (int64_t r = 0; r < rows; ++r) {
          if (values.IsNull(r)) continue;
          Int128& sum = decimals_[ids[r]];
          if (__builtin_add_overflow(sum, DecimalAt(values, r), &sum)) {
            if (!lenient_) return Overflow();
            MarkOverflow(ids[r]);
            continue;
          }
          ++counts_[ids[r]];
        }
        return OkStatus();
      }
    }
    return OkStatus();
  }

  Result<ArrayRef> Finish(uint32_t num_groups) override {
    counts_.resize(num_groups, 0);
    ints_.resize(num_groups, 0);
    doubles_.resize(num_groups, 0.0);
    decimals_.resize(num_groups, 0);
    DELTA_ASSIGN_OR_RETURN(auto type, ToArrowType(*result_type_));
    std::unique_ptr<arrow::ArrayBuilder> builder;
    DELTA_ARROW_RETURN_NOT_OK(
        arrow::MakeBuilder(arrow::default_memory_pool(), type, &builder),
        ErrorCode::kInternal, name_);
    for (uint32_t g = 0; g < num_groups; ++g) {
      arrow::Status st;
      if (counts_[g] == 0 || (g < overflowed_.size() && overflowed_[g])) {
        st = builder->AppendNull();  // no values (SQL), or a try_ sum that overflowed
      } else if (result_type_->kind() == TypeKind::kLong) {
        st = static_cast<arrow::Int64Builder&>(*builder).Append(ints_[g]);
      } else if (result_type_->kind() == TypeKind::kDouble) {
        double v =
            kind_ == Kind::kDecimal
                ? static_cast<double>(decimals_[g]) /
                      std::pow(10.0, static_cast<const DecimalType&>(*arg_type_).scale())
                : doubles_[g];
        st = static_cast<arrow::DoubleBuilder&>(*builder).Append(
            average_ ? v / static_cast<double>(counts_[g]) : v);
      } else {
        auto v = DecimalResult(g);
        if (!v && lenient_) {
          st = builder->AppendNull();  // the result does not fit its precision
        } else {
          if (!v) return v.error();
          st =
              static_cast<arrow::Decimal128Builder&>(*builder).Append(ToArrowDecimal(*v));
        }
      }
      DELTA_ARROW_RETURN_NOT_OK(st, ErrorCode::kInternal, name_);
    }
    DELTA_ARROW_ASSIGN_OR_RETURN(ArrayRef out, builder->Finish(), ErrorCode::kInternal,
                                 name_);
    return out;
  }

 private:
  void MarkOverflow(uint32_t g) {
    if (overflowed_.size() <= g) overflowed_.resize(counts_.size(), false);
    overflowed_[g] = true;
  }

  Error Overflow() const {
    return MakeError(ErrorCode::kInvalidArgument,
                     "{}: arithmetic overflow, the result does not fit {}", name_,
                     result_type_->ToString());
  }

  Result<Int128> DecimalResult(uint32_t g) const {
    return DecimalSumResult(decimals_[g], counts_[g], average_,
                            static_cast<const DecimalType&>(*arg_type_),
                            static_cast<const DecimalType&>(*result_type_), name_);
  }

  std::string name_;
  bool average_;
  bool lenient_;
  std::vector<bool> overflowed_;  ///< try_: groups whose sum overflowed (grown lazily)
  DataTypeRef arg_type_;
  DataTypeRef result_type_;
  Kind kind_ = Kind::kDouble;
  std::vector<int64_t> counts_;
  std::vector<int64_t> ints_;
  std::vector<double> doubles_;
  std::vector<Int128> decimals_;
};

// min/max: remembers, per group, where its best value is (chunk, row) and gathers the
// values at the end, so any orderable type keeps its exact Arrow type.
class MinMaxAccumulator final : public Accumulator {
 public:
  MinMaxAccumulator(bool max, Comparator compare, std::shared_ptr<arrow::DataType> type)
      : max_(max), compare_(compare), type_(std::move(type)) {}

  Status Consume(const Arrays& args, const uint32_t* ids, int64_t rows,
                 uint32_t num_groups) override {
    best_.resize(num_groups, {-1, 0});
    const arrow::Array& values = *args[0];
    int64_t chunk = static_cast<int64_t>(chunks_.size());
    bool used = false;
    for (int64_t r = 0; r < rows; ++r) {
      if (values.IsNull(r)) continue;
      auto& [best_chunk, best_row] = best_[ids[r]];
      bool better = best_chunk < 0;
      if (!better) {
        const arrow::Array& current =
            best_chunk == chunk ? values : *chunks_[static_cast<size_t>(best_chunk)];
        int c = compare_(values, r, current, best_row);
        better = max_ ? c > 0 : c < 0;
      }
      if (better) {
        best_chunk = chunk;
        best_row = r;
        used = true;
      }
    }
    // Keep the chunk slot even when unused, so chunk numbers stay aligned.
    chunks_.push_back(used ? args[0] : nullptr);
    return OkStatus();
  }

  Result<ArrayRef> Finish(uint32_t num_groups) override {
    best_.resize(num_groups, {-1, 0});
    Arrays present;
    std::vector<int64_t> offsets(chunks_.size(), 0);
    int64_t total = 0;
    for (size_t c = 0; c < chunks_.size(); ++c) {
      offsets[c] = total;
      if (chunks_[c] != nullptr) {
        present.push_back(chunks_[c]);
        total += chunks_[c]->length();
      }
    }
    if (present.empty()) {
      DELTA_ARROW_ASSIGN_OR_RETURN(ArrayRef nulls,
                                   arrow::MakeArrayOfNull(type_, num_groups),
                                   ErrorCode::kInternal, "min/max");
      return nulls;
    }
    DELTA_ARROW_ASSIGN_OR_RETURN(ArrayRef all, arrow::Concatenate(present),
                                 ErrorCode::kInternal, "min/max");
    arrow::Int64Builder indices;
    for (const auto& [chunk, row] : best_) {
      arrow::Status st = chunk < 0
                             ? indices.AppendNull()
                             : indices.Append(offsets[static_cast<size_t>(chunk)] + row);
      DELTA_ARROW_RETURN_NOT_OK(st, ErrorCode::kInternal, "min/max");
    }
    DELTA_ARROW_ASSIGN_OR_RETURN(ArrayRef idx, indices.Finish(), ErrorCode::kInternal,
                                 "min/max");
    DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum out, arrow::compute::Take(all, idx),
                                 ErrorCode::kInternal, "min/max");
    return out.make_array();
  }

 private:
  bool max_;
  Comparator compare_;
  std::shared_ptr<arrow::DataType> type_;
  Arrays chunks_;
  std::vector<std::pair<int64_t, int64_t>> best_;
};

// agg(DISTINCT ...): passes on only the first occurrence of each (group, arguments)
// combination, found with a Grouper over the group id and the arguments.
class DistinctAccumulator final : public Accumulator {
 public:
  DistinctAccumulator(std::unique_ptr<arrow::compute::Grouper> seen,
                      std::unique_ptr<Accumulator> inner)
      : seen_(std::move(seen)), inner_(std::move(inner)) {}

  Status Consume(const Arrays& args, const uint32_t* ids, int64_t rows,
                 uint32_t num_groups) override {
    auto id_array = std::make_shared<arrow::UInt32Array>(
        rows, arrow::Buffer::Wrap(ids, static_cast<size_t>(rows)));
    std::vector<arrow::Datum> keys{arrow::Datum(id_array)};
    for (const auto& a : args) keys.emplace_back(a);
    arrow::compute::ExecBatch batch(std::move(keys), rows);
    DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum distinct_ids,
                                 seen_->Consume(arrow::compute::ExecSpan(batch)),
                                 ErrorCode::kUnsupportedFeature, "DISTINCT aggregate");
    auto dids = distinct_ids.array_as<arrow::UInt32Array>();
    arrow::Int64Builder take;
    std::vector<uint32_t> first_ids;
    for (int64_t r = 0; r < rows; ++r) {
      uint32_t d = dids->Value(r);
      if (d >= marked_.size()) marked_.resize(d + 1, false);
      if (marked_[d]) continue;
      marked_[d] = true;
      DELTA_ARROW_RETURN_NOT_OK(take.Append(r), ErrorCode::kInternal, "DISTINCT");
      first_ids.push_back(ids[r]);
    }
    DELTA_ARROW_ASSIGN_OR_RETURN(ArrayRef idx, take.Finish(), ErrorCode::kInternal,
                                 "DISTINCT");
    Arrays firsts;
    for (const auto& a : args) {
      DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum t, arrow::compute::Take(a, idx),
                                   ErrorCode::kInternal, "DISTINCT");
      firsts.push_back(t.make_array());
    }
    return inner_->Consume(firsts, first_ids.data(), idx->length(), num_groups);
  }
  Result<ArrayRef> Finish(uint32_t num_groups) override {
    return inner_->Finish(num_groups);
  }

 private:
  std::unique_ptr<arrow::compute::Grouper> seen_;
  std::unique_ptr<Accumulator> inner_;
  std::vector<bool> marked_;
};

}  // namespace

Result<std::unique_ptr<Accumulator>> MakeAccumulator(const BoundExpr& agg) {
  std::string name = agg.name + "()";
  std::unique_ptr<Accumulator> acc;
  if (agg.name == "count") {
    acc = std::make_unique<CountAccumulator>();
  } else if (agg.name == "min" || agg.name == "max") {
    DELTA_ASSIGN_OR_RETURN(auto type, ToArrowType(*agg.args[0]->type));
    DELTA_ASSIGN_OR_RETURN(Comparator cmp, ComparatorFor(*type, name));
    acc = std::make_unique<MinMaxAccumulator>(agg.name == "max", cmp, type);
  } else if (agg.name == "sum" || agg.name == "avg" || agg.name == "mean" ||
             agg.name == "try_sum" || agg.name == "try_avg") {
    const bool average = agg.name != "sum" && agg.name != "try_sum";
    acc = std::make_unique<SumAccumulator>(name, average, agg.args[0]->type, agg.type,
                                           agg.name.starts_with("try_"));
  } else {
    DELTA_ASSIGN_OR_RETURN(acc, MakeLibraryAccumulator(agg));
    if (acc == nullptr) {
      return MakeError(ErrorCode::kInvalidArgument, "unknown aggregate function {}",
                       name);
    }
  }
  if (!agg.distinct) return acc;
  std::vector<arrow::TypeHolder> types{arrow::uint32()};
  for (const auto& arg : agg.args) {
    DELTA_ASSIGN_OR_RETURN(auto type, ToArrowType(*arg->type));
    types.emplace_back(type);
  }
  DELTA_ARROW_ASSIGN_OR_RETURN(auto grouper, arrow::compute::Grouper::Make(types),
                               ErrorCode::kUnsupportedFeature,
                               fmt::format("{} DISTINCT", name));
  return std::unique_ptr<Accumulator>(
      new DistinctAccumulator(std::move(grouper), std::move(acc)));
}

namespace {}  // namespace

std::string GroupColumnName(size_t i) { return "_g" + std::to_string(i); }
std::string AggregateColumnName(size_t i) { return "_a" + std::to_string(i); }

Result<BatchRef> Aggregate(const ReaderRef& input, const AggregateSpec& spec) {
  std::vector<std::shared_ptr<arrow::Field>> fields;
  std::vector<arrow::TypeHolder> key_types;
  for (size_t i = 0; i < spec.keys.size(); ++i) {
    DELTA_ASSIGN_OR_RETURN(auto type, ToArrowType(*spec.keys[i]->type));
    key_types.emplace_back(type);
    fields.push_back(arrow::field(GroupColumnName(i), type));
  }
  std::unique_ptr<arrow::compute::Grouper> grouper;
  if (!spec.keys.empty()) {
    std::string keys_text;
    for (const auto& t : key_types)
      keys_text += (keys_text.empty() ? "" : ", ") + t.ToString();
    DELTA_ARROW_ASSIGN_OR_RETURN(grouper, arrow::compute::Grouper::Make(key_types),
                                 ErrorCode::kUnsupportedFeature,
                                 "GROUP BY keys of type " + keys_text);
  }
  std::vector<std::unique_ptr<Accumulator>> accumulators;
  for (size_t i = 0; i < spec.aggregates.size(); ++i) {
    DELTA_ASSIGN_OR_RETURN(auto acc, MakeAccumulator(*spec.aggregates[i]));
    accumulators.push_back(std::move(acc));
    DELTA_ASSIGN_OR_RETURN(auto type, ToArrowType(*spec.aggregates[i]->type));
    fields.push_back(arrow::field(AggregateColumnName(i), type));
  }
  EvalOptions eval;
  eval.now_micros = spec.now_micros;
  uint32_t num_groups = spec.keys.empty() ? 1 : 0;
  std::vector<uint32_t> zeros;
  while (true) {
    BatchRef batch;
    arrow::Status st = input->ReadNext(&batch);
    if (!st.ok())
      return internal::FromArrowStatus(st, ErrorCode::kIOError, "GROUP BY input");
    if (batch == nullptr) break;
    const int64_t rows = batch->num_rows();
    if (rows == 0) continue;
    const uint32_t* ids = nullptr;
    std::shared_ptr<arrow::UInt32Array> id_array;
    if (grouper != nullptr) {
      std::vector<arrow::Datum> keys;
      for (const auto& key : spec.keys) {
        DELTA_ASSIGN_OR_RETURN(auto array, Evaluate(*key, *batch, eval));
        keys.emplace_back(std::move(array));
      }
      arrow::compute::ExecBatch exec(std::move(keys), rows);
      DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum d,
                                   grouper->Consume(arrow::compute::ExecSpan(exec)),
                                   ErrorCode::kInternal, "GROUP BY");
      id_array = d.array_as<arrow::UInt32Array>();
      ids = id_array->raw_values();
      num_groups = grouper->num_groups();
    } else {
      zeros.assign(static_cast<size_t>(rows), 0);
      ids = zeros.data();
    }
    for (size_t i = 0; i < accumulators.size(); ++i) {
      Arrays args;
      for (const auto& arg : spec.aggregates[i]->args) {
        DELTA_ASSIGN_OR_RETURN(auto array, Evaluate(*arg, *batch, eval));
        args.push_back(std::move(array));
      }
      DELTA_RETURN_IF_ERROR(accumulators[i]->Consume(args, ids, rows, num_groups));
    }
  }
  std::vector<ArrayRef> columns;
  if (grouper != nullptr) {
    DELTA_ARROW_ASSIGN_OR_RETURN(arrow::compute::ExecBatch uniques, grouper->GetUniques(),
                                 ErrorCode::kInternal, "GROUP BY");
    for (const auto& v : uniques.values) columns.push_back(v.make_array());
  }
  for (auto& acc : accumulators) {
    DELTA_ASSIGN_OR_RETURN(ArrayRef out, acc->Finish(num_groups));
    columns.push_back(std::move(out));
  }
  return arrow::RecordBatch::Make(arrow::schema(fields), num_groups, std::move(columns));
}

}  // namespace deltaguard::query_internal
