// Column profiles (quality/profile.h): walking Arrow arrays to their leaves and the
// per-kind accumulation. The loops over values read the buffers directly; sketches see
// a systematic sample (every stride-th value) so that profiling stays a small part of
// a write (docs/profiles.md "Cost").

#include "deltaguard/quality/profile.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <unordered_map>

#include "deltaguard/arrow/status.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

constexpr size_t kPatternPrefix = 64;
constexpr int64_t kMicrosPerHour = 3600LL * 1000 * 1000;

int64_t Stride(int64_t n) {
  return std::max<int64_t>(1, (n + kSketchValuesPerBatch - 1) / kSketchValuesPerBatch);
}

// The weighted sketches (top values, patterns, hours) see every value of a column's
// first kExactValues: a daily load of a few thousand rows is then counted exactly, so
// a new category at 0.5% of it is not lost to sampling; a large write samples after
// that, where 1024 values per batch are plenty (docs/profiles.md "Sampling").
int64_t WeightedStride(int64_t seen, int64_t n) {
  return seen < kExactValues ? 1 : Stride(n);
}

// Adds a batch's mean and m2 over `n` values to the running ones (Chan et al.).
void CombineMoments(ColumnProfile* p, int64_t n, double mean, double m2) {
  if (n == 0) return;
  if (p->numeric_count == 0) {
    p->numeric_count = n;
    p->mean = mean;
    p->m2 = m2;
    return;
  }
  const double na = static_cast<double>(p->numeric_count);
  const double nb = static_cast<double>(n);
  const double delta = mean - p->mean;
  const double total = na + nb;
  p->mean += delta * nb / total;
  p->m2 += m2 + delta * delta * na * nb / total;
  p->numeric_count += n;
}

int64_t ToMicros(int64_t value, arrow::TimeUnit::type unit) {
  switch (unit) {
    case arrow::TimeUnit::SECOND:
      return value * 1000000;
    case arrow::TimeUnit::MILLI:
      return value * 1000;
    case arrow::TimeUnit::MICRO:
      return value;
    case arrow::TimeUnit::NANO:
      return value / 1000;
  }
  return value;
}

// Numbers as doubles through `get(i)` (NaN is left out of every statistic). One pass
// for the exact statistics: the moments are accumulated around the first value (a
// shifted sum of squares, exact enough and free of a second pass); the sketches then
// see every stride-th value.
template <typename Get>
void AddNumbers(ColumnProfile* p, const arrow::Array& array, Get get, bool may_nan) {
  const int64_t n = array.length();
  const bool has_nulls = array.null_count() > 0;
  auto valid = [&](int64_t i) { return !has_nulls || array.IsValid(i); };
  int64_t first = 0;
  while (first < n && (!valid(first) || (may_nan && std::isnan(get(first))))) ++first;
  if (first == n) return;
  const double shift = get(first);
  double s1 = 0, s2 = 0;
  double lo = shift, hi = shift;
  int64_t count = 0, zeros = 0;
  auto add = [&](double v) {
    const double d = v - shift;
    s1 += d;
    s2 += d * d;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    zeros += v == 0 ? 1 : 0;
    ++count;
  };
  if (!has_nulls && !may_nan) {
    for (int64_t i = first; i < n; ++i) add(get(i));
  } else {
    for (int64_t i = first; i < n; ++i) {
      if (!valid(i)) continue;
      const double v = get(i);
      if (may_nan && std::isnan(v)) continue;
      add(v);
    }
  }
  p->min = std::isnan(p->min) ? lo : std::min(p->min, lo);
  p->max = std::isnan(p->max) ? hi : std::max(p->max, hi);
  p->zeros += zeros;
  const double nb = static_cast<double>(count);
  const double mean = shift + s1 / nb;
  const double m2 = std::max(0.0, s2 - s1 * s1 / nb);
  CombineMoments(p, count, mean, m2);
  for (int64_t i = 0; i < n; i += Stride(n)) {
    if (!valid(i)) continue;
    const double v = get(i);
    if (std::isnan(v)) continue;
    p->quantiles.Update(v);
    p->distinct.Update(v);
    ++p->sampled;
  }
}

// The hour-of-day histogram from the sampled values, each counted `stride` times.
void AddHours(ColumnProfile* p, const arrow::TimestampArray& array) {
  const auto unit = static_cast<const arrow::TimestampType&>(*array.type()).unit();
  const bool has_nulls = array.null_count() > 0;
  const int64_t n = array.length();
  int64_t seen = 0;
  for (int64_t h : p->hours) seen += h;
  const int64_t stride = WeightedStride(seen, n);
  for (int64_t i = 0; i < n; i += stride) {
    if (has_nulls && array.IsNull(i)) continue;
    const int64_t micros = ToMicros(array.Value(i), unit);
    int64_t hour = (micros / kMicrosPerHour) % 24;
    if (micros < 0 && micros % kMicrosPerHour != 0) hour -= 1;
    if (hour < 0) hour += 24;
    p->hours[static_cast<size_t>(hour)] += std::min(stride, n - i);
  }
}

template <typename StringArrayT>
void AddStrings(ColumnProfile* p, const StringArrayT& array) {
  const int64_t n = array.length();
  const bool has_nulls = array.null_count() > 0;
  const int64_t stride = WeightedStride(static_cast<int64_t>(p->top.total_weight()), n);
  std::string_view lo, hi;
  bool have = !p->min_text.empty() || p->max_length >= 0;
  bool changed_lo = false, changed_hi = false;
  if (have) {
    lo = p->min_text;
    hi = p->max_text;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (has_nulls && array.IsNull(i)) continue;
    std::string_view v = array.GetView(i);
    const auto len = static_cast<int64_t>(v.size());
    p->total_length += len;
    if (p->min_length < 0 || len < p->min_length) p->min_length = len;
    if (len > p->max_length) p->max_length = len;
    if (!have) {
      lo = hi = v;
      have = changed_lo = changed_hi = true;
    } else {
      if (v < lo) lo = v, changed_lo = true;
      if (v > hi) hi = v, changed_hi = true;
    }
  }
  if (changed_lo) p->min_text = std::string(lo);
  if (changed_hi) p->max_text = std::string(hi);
  for (int64_t i = 0; i < n; i += stride) {
    if (has_nulls && array.IsNull(i)) continue;
    std::string_view v = array.GetView(i);
    p->distinct.Update(v);
    p->top.Update(v, static_cast<uint64_t>(std::min(stride, n - i)));
    p->patterns.Update(CharacterPattern(v),
                       static_cast<uint64_t>(std::min(stride, n - i)));
    ++p->sampled;
  }
}

void AddBooleans(ColumnProfile* p, const arrow::BooleanArray& array) {
  const int64_t trues = array.true_count();
  const int64_t falses = array.false_count();
  p->top.Update("true", static_cast<uint64_t>(trues));
  p->top.Update("false", static_cast<uint64_t>(falses));
  if (trues > 0) p->distinct.Update(std::string_view("true"));
  if (falses > 0) p->distinct.Update(std::string_view("false"));
  p->sampled += trues + falses;
}

ProfileKind KindOf(const arrow::DataType& type) {
  if (arrow::is_integer(type.id()) || arrow::is_floating(type.id()) ||
      type.id() == arrow::Type::DECIMAL128) {
    return ProfileKind::kNumber;
  }
  switch (type.id()) {
    case arrow::Type::TIMESTAMP:
      return ProfileKind::kTimestamp;
    case arrow::Type::DATE32:
      return ProfileKind::kDate;
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
      return ProfileKind::kString;
    case arrow::Type::BOOL:
      return ProfileKind::kBoolean;
    default:
      return ProfileKind::kOther;
  }
}

template <typename T>
void AddPrimitive(ColumnProfile* p, const arrow::Array& array) {
  const auto& a = static_cast<const arrow::NumericArray<T>&>(array);
  const auto* values = a.raw_values();
  constexpr bool kFloating = std::is_floating_point_v<typename T::c_type>;
  AddNumbers(
      p, array, [values](int64_t i) { return static_cast<double>(values[i]); },
      kFloating);
}

Status AddLeaf(ColumnProfile* p, const arrow::Array& array) {
  p->rows += array.length();
  p->nulls += array.null_count();
  switch (array.type_id()) {
    case arrow::Type::INT8:
      AddPrimitive<arrow::Int8Type>(p, array);
      break;
    case arrow::Type::INT16:
      AddPrimitive<arrow::Int16Type>(p, array);
      break;
    case arrow::Type::INT32:
      AddPrimitive<arrow::Int32Type>(p, array);
      break;
    case arrow::Type::INT64:
      AddPrimitive<arrow::Int64Type>(p, array);
      break;
    case arrow::Type::UINT8:
      AddPrimitive<arrow::UInt8Type>(p, array);
      break;
    case arrow::Type::UINT16:
      AddPrimitive<arrow::UInt16Type>(p, array);
      break;
    case arrow::Type::UINT32:
      AddPrimitive<arrow::UInt32Type>(p, array);
      break;
    case arrow::Type::UINT64:
      AddPrimitive<arrow::UInt64Type>(p, array);
      break;
    case arrow::Type::FLOAT:
      AddPrimitive<arrow::FloatType>(p, array);
      break;
    case arrow::Type::DOUBLE:
      AddPrimitive<arrow::DoubleType>(p, array);
      break;
    case arrow::Type::DATE32:
      AddPrimitive<arrow::Date32Type>(p, array);
      break;
    case arrow::Type::DECIMAL128: {
      const auto& a = static_cast<const arrow::Decimal128Array&>(array);
      const int32_t scale = static_cast<const arrow::Decimal128Type&>(*a.type()).scale();
      const double divisor = std::pow(10.0, scale);
      const uint8_t* raw = a.raw_values();
      // Fast path: a value whose 128 bits are the sign extension of its low 64 (every
      // value below 9.2e18 units) converts as an int64; others through Decimal128.
      AddNumbers(
          p, array,
          [&a, raw, scale, divisor](int64_t i) {
            int64_t low, high;
            std::memcpy(&low, raw + 16 * i, 8);
            std::memcpy(&high, raw + 16 * i + 8, 8);
            if (high == (low >> 63)) return static_cast<double>(low) / divisor;
            return arrow::Decimal128(a.GetValue(i)).ToDouble(scale);
          },
          false);
      break;
    }
    case arrow::Type::TIMESTAMP: {
      const auto& a = static_cast<const arrow::TimestampArray&>(array);
      const auto unit = static_cast<const arrow::TimestampType&>(*a.type()).unit();
      const int64_t* values = a.raw_values();
      AddNumbers(
          p, array,
          [values, unit](int64_t i) {
            return static_cast<double>(ToMicros(values[i], unit));
          },
          false);
      AddHours(p, a);
      break;
    }
    case arrow::Type::STRING:
      AddStrings(p, static_cast<const arrow::StringArray&>(array));
      break;
    case arrow::Type::LARGE_STRING:
      AddStrings(p, static_cast<const arrow::LargeStringArray&>(array));
      break;
    case arrow::Type::BOOL:
      AddBooleans(p, static_cast<const arrow::BooleanArray&>(array));
      break;
    default:
      break;  // binary, variant, ...: rows and nulls only
  }
  return OkStatus();
}

}  // namespace

std::string_view ProfileKindName(ProfileKind kind) {
  switch (kind) {
    case ProfileKind::kNumber:
      return "number";
    case ProfileKind::kTimestamp:
      return "timestamp";
    case ProfileKind::kDate:
      return "date";
    case ProfileKind::kString:
      return "string";
    case ProfileKind::kBoolean:
      return "boolean";
    case ProfileKind::kOther:
      return "other";
  }
  return "other";
}

std::string CharacterPattern(std::string_view value) {
  std::string out;
  char last = 0;
  bool repeated = false;
  for (size_t i = 0; i < value.size() && i < kPatternPrefix; ++i) {
    const char c = value[i];
    char cls = c >= 'A' && c <= 'Z'   ? 'A'
               : c >= 'a' && c <= 'z' ? 'a'
               : c >= '0' && c <= '9' ? '9'
                                      : c;
    const bool is_class = cls == 'A' || cls == 'a' || cls == '9';
    if (is_class && cls == last) {
      if (!repeated) out += '+';
      repeated = true;
      continue;
    }
    out += cls;
    last = is_class ? cls : 0;
    repeated = false;
  }
  return out;
}

double ColumnProfile::stddev() const { return std::sqrt(variance()); }

double ColumnProfile::mean_length() const {
  const int64_t n = non_null();
  return n > 0 ? static_cast<double>(total_length) / static_cast<double>(n) : 0.0;
}

ColumnProfile ColumnProfile::Clone() const {
  ColumnProfile c;
  c.column = column;
  c.type = type;
  c.kind = kind;
  c.rows = rows;
  c.nulls = nulls;
  c.numeric_count = numeric_count;
  c.min = min;
  c.max = max;
  c.mean = mean;
  c.m2 = m2;
  c.zeros = zeros;
  c.hours = hours;
  c.cast_nulls = cast_nulls;
  c.min_length = min_length;
  c.max_length = max_length;
  c.total_length = total_length;
  c.min_text = min_text;
  c.max_text = max_text;
  c.sampled = sampled;
  c.quantiles = quantiles.Clone();
  c.distinct = distinct.Clone();
  c.top = top.Clone();
  c.patterns = patterns.Clone();
  return c;
}

Status ColumnProfile::Merge(const ColumnProfile& o, bool with_distinct) {
  if (o.kind != kind && o.rows > 0 && rows > 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "profiles of column '{}' do not merge: {} values ({}) and {} values "
                     "({})",
                     column, ProfileKindName(kind), type, ProfileKindName(o.kind),
                     o.type);
  }
  if (rows == 0) {
    kind = o.kind;
    type = o.type;
  }
  rows += o.rows;
  nulls += o.nulls;
  if (o.numeric_count > 0) {
    min = std::isnan(min) ? o.min : std::min(min, o.min);
    max = std::isnan(max) ? o.max : std::max(max, o.max);
  }
  CombineMoments(this, o.numeric_count, o.mean, o.m2);
  zeros += o.zeros;
  for (size_t h = 0; h < hours.size(); ++h) hours[h] += o.hours[h];
  cast_nulls += o.cast_nulls;
  if (o.max_length >= 0) {
    const bool first = max_length < 0;
    min_length = first ? o.min_length : std::min(min_length, o.min_length);
    max_length = std::max(max_length, o.max_length);
    if (first || o.min_text < min_text) min_text = o.min_text;
    if (first || o.max_text > max_text) max_text = o.max_text;
  }
  total_length += o.total_length;
  sampled += o.sampled;
  quantiles.Merge(o.quantiles);
  if (with_distinct) distinct.Merge(o.distinct);
  top.Merge(o.top);
  patterns.Merge(o.patterns);
  return OkStatus();
}

void AddCastNulls(const std::vector<std::pair<std::string, int64_t>>& cast_nulls,
                  TableProfile* profile) {
  for (const auto& [name, n] : cast_nulls) {
    for (ColumnProfile& c : profile->columns) {
      if (EqualsIgnoreCase(c.column, name)) c.cast_nulls += n;
    }
  }
}

TableProfile TableProfile::Clone() const {
  TableProfile t;
  t.version = version;
  t.timestamp_ms = timestamp_ms;
  t.operation = operation;
  t.rows = rows;
  for (const auto& c : columns) t.columns.push_back(c.Clone());
  return t;
}

const ColumnProfile* TableProfile::Column(std::string_view path) const {
  for (const auto& c : columns) {
    if (EqualsIgnoreCase(c.column, path)) return &c;
  }
  return nullptr;
}

Status TableProfile::Merge(const TableProfile& other) {
  rows += other.rows;
  for (const auto& oc : other.columns) {
    auto it = std::find_if(columns.begin(), columns.end(), [&](const ColumnProfile& c) {
      return EqualsIgnoreCase(c.column, oc.column);
    });
    if (it == columns.end()) {
      columns.push_back(oc.Clone());
    } else {
      DELTA_RETURN_IF_ERROR(it->Merge(oc));
    }
  }
  return OkStatus();
}

// ---------------------------------------------------------------- Profiler
struct Profiler::Impl {
  std::shared_ptr<arrow::Schema> schema;
  TableProfile profile;
  std::unordered_map<std::string, size_t> index;

  ColumnProfile* Leaf(const std::string& path, const arrow::DataType& type) {
    auto [it, added] = index.emplace(path, profile.columns.size());
    if (added) {
      ColumnProfile c;
      c.column = path;
      c.type = type.ToString();
      c.kind = KindOf(type);
      profile.columns.push_back(std::move(c));
    }
    return &profile.columns[it->second];
  }

  Status Walk(const std::string& path, const std::shared_ptr<arrow::Array>& array) {
    switch (array->type_id()) {
      case arrow::Type::STRUCT: {
        const auto& s = static_cast<const arrow::StructArray&>(*array);
        const auto& type = static_cast<const arrow::StructType&>(*s.type());
        for (int i = 0; i < type.num_fields(); ++i) {
          DELTA_ARROW_ASSIGN_OR_RETURN(auto child, s.GetFlattenedField(i),
                                       ErrorCode::kInternal, "profiling a struct");
          DELTA_RETURN_IF_ERROR(Walk(path + "." + type.field(i)->name(), child));
        }
        return OkStatus();
      }
      case arrow::Type::LIST:
      case arrow::Type::LARGE_LIST: {
        std::shared_ptr<arrow::Array> values;
        if (array->type_id() == arrow::Type::LIST) {
          DELTA_ARROW_ASSIGN_OR_RETURN(
              values, static_cast<const arrow::ListArray&>(*array).Flatten(),
              ErrorCode::kInternal, "profiling an array");
        } else {
          DELTA_ARROW_ASSIGN_OR_RETURN(
              values, static_cast<const arrow::LargeListArray&>(*array).Flatten(),
              ErrorCode::kInternal, "profiling an array");
        }
        return Walk(path + ".element", values);
      }
      case arrow::Type::MAP: {
        const auto& m = static_cast<const arrow::MapArray&>(*array);
        DELTA_ARROW_ASSIGN_OR_RETURN(auto entries, m.Flatten(), ErrorCode::kInternal,
                                     "profiling a map");
        const auto& s = static_cast<const arrow::StructArray&>(*entries);
        DELTA_RETURN_IF_ERROR(Walk(path + ".key", s.field(0)));
        return Walk(path + ".value", s.field(1));
      }
      case arrow::Type::DICTIONARY: {
        const auto& d = static_cast<const arrow::DictionaryArray&>(*array);
        DELTA_ARROW_ASSIGN_OR_RETURN(
            auto dense, arrow::compute::Take(*d.dictionary(), *d.indices()),
            ErrorCode::kInternal, "profiling a dictionary column");
        return Walk(path, dense);
      }
      default:
        return AddLeaf(Leaf(path, *array->type()), *array);
    }
  }
};

Profiler::Profiler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Profiler::Profiler(Profiler&&) noexcept = default;
Profiler& Profiler::operator=(Profiler&&) noexcept = default;
Profiler::~Profiler() = default;

Result<Profiler> Profiler::Make(std::shared_ptr<arrow::Schema> schema) {
  auto impl = std::make_unique<Impl>();
  impl->schema = std::move(schema);
  return Profiler(std::move(impl));
}

Status Profiler::Add(const arrow::RecordBatch& batch) {
  if (batch.num_columns() != impl_->schema->num_fields()) {
    return MakeError(ErrorCode::kInternal,
                     "profiling: a batch of {} columns for a schema of {}",
                     batch.num_columns(), impl_->schema->num_fields());
  }
  SeedSketches(static_cast<uint64_t>(impl_->profile.rows));  // see SeedSketches
  impl_->profile.rows += batch.num_rows();
  for (int i = 0; i < batch.num_columns(); ++i) {
    DELTA_RETURN_IF_ERROR(impl_->Walk(impl_->schema->field(i)->name(), batch.column(i)));
  }
  return OkStatus();
}

TableProfile Profiler::Snapshot() const { return impl_->profile.Clone(); }

Result<TableProfile> ProfileBatches(
    const std::shared_ptr<arrow::Schema>& schema,
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches) {
  DELTA_ASSIGN_OR_RETURN(Profiler profiler, Profiler::Make(schema));
  for (const auto& b : batches) DELTA_RETURN_IF_ERROR(profiler.Add(*b));
  return profiler.Snapshot();
}

}  // namespace deltaguard
