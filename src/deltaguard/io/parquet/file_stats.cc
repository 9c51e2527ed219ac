#include "deltaguard/io/parquet/file_stats.h"

#include <arrow/array.h>
#include <arrow/buffer.h>
#include <arrow/compute/api_vector.h>
#include <arrow/util/decimal.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>
#include <utility>
#include <variant>

#include "deltaguard/arrow/status.h"
#include "deltaguard/io/parquet/file_stats_internal.h"
#include "deltaguard/schema/column_path.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {

namespace {

using Node = FileStatsCollector::Node;

bool HasMinMax(TypeKind kind) {
  switch (kind) {
    case TypeKind::kByte:
    case TypeKind::kShort:
    case TypeKind::kInteger:
    case TypeKind::kLong:
    case TypeKind::kFloat:
    case TypeKind::kDouble:
    case TypeKind::kDecimal:
    case TypeKind::kDate:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
    case TypeKind::kString:
      return true;
    default:
      return false;
  }
}

struct Selector {
  int remaining = 32;  // leaves left to index (num_indexed_cols mode); -1 = unlimited
  const std::vector<std::vector<std::string>>* paths = nullptr;  // stats_columns mode

  // Whether the leaf at logical path `path` is indexed; consumes one leaf.
  bool TakeLeaf(const std::vector<std::string>& path) {
    if (paths != nullptr) {
      for (const auto& p : *paths) {
        if (p.size() > path.size()) continue;
        bool match = true;
        for (size_t i = 0; i < p.size() && match; ++i)
          match = EqualsIgnoreCase(p[i], path[i]);
        if (match) return true;
      }
      return false;
    }
    if (remaining < 0) return true;
    if (remaining == 0) return false;
    --remaining;
    return true;
  }
};

std::unique_ptr<Node> BuildNode(const StructField& field, int index, bool mapped,
                                std::vector<std::string>* path, Selector* selector) {
  auto node = std::make_unique<Node>();
  node->key = mapped ? field.physical_name().value_or(field.name) : field.name;
  node->type = field.type;
  node->field_index = index;
  path->push_back(field.name);
  if (field.type->kind() == TypeKind::kStruct) {
    node->is_group = true;
    const auto& st = static_cast<const StructType&>(*field.type);
    for (size_t i = 0; i < st.num_fields(); ++i) {
      auto child = BuildNode(st.field(i), static_cast<int>(i), mapped, path, selector);
      if (child) node->children.push_back(std::move(child));
    }
    path->pop_back();
    if (node->children.empty()) return nullptr;
    return node;
  }
  bool indexed = selector->TakeLeaf(*path);
  path->pop_back();
  if (!indexed) return nullptr;
  node->min_max_type = HasMinMax(field.type->kind());
  return node;
}

// The loops below find a batch's extremes in locals and merge them once: the per-value
// work is a compare, not a variant access.
template <typename ArrayType>
void ObserveIntegers(const arrow::Array& array, Node* node) {
  const auto& typed = static_cast<const ArrayType&>(array);
  const auto* values = typed.raw_values();
  const bool all_valid = typed.null_count() == 0;
  bool any = false;
  int64_t lo = 0;
  int64_t hi = 0;
  for (int64_t i = 0; i < typed.length(); ++i) {
    if (!all_valid && typed.IsNull(i)) continue;
    const auto v = static_cast<int64_t>(values[i]);
    if (!any) {
      lo = hi = v;
      any = true;
    }
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  if (!any) return;
  ObserveBound<int64_t>(node, lo);
  ObserveBound<int64_t>(node, hi);
}

template <typename ArrayType>
void ObserveFloats(const arrow::Array& array, Node* node) {
  const auto& typed = static_cast<const ArrayType&>(array);
  const auto* values = typed.raw_values();
  const bool all_valid = typed.null_count() == 0;
  bool any = false;
  double lo = 0;
  double hi = 0;
  for (int64_t i = 0; i < typed.length(); ++i) {
    if (!all_valid && typed.IsNull(i)) continue;
    const auto v = static_cast<double>(values[i]);
    if (!std::isfinite(v)) {
      node->min_max_broken = true;
      return;
    }
    if (!any) {
      lo = hi = v;
      any = true;
    }
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  if (!any) return;
  ObserveBound<double>(node, lo);
  ObserveBound<double>(node, hi);
}

void ObserveStrings(const arrow::StringArray& array, Node* node) {
  bool any = false;
  std::string_view lo;
  std::string_view hi;
  for (int64_t i = 0; i < array.length(); ++i) {
    if (!array.IsValid(i)) continue;
    std::string_view v = array.GetView(i);
    if (!any) {
      lo = hi = v;
      any = true;
      continue;
    }
    if (v < lo) lo = v;
    if (hi < v) hi = v;
  }
  if (!any) return;
  ObserveBound<std::string>(node, std::string(lo));
  ObserveBound<std::string>(node, std::string(hi));
}

// A leaf bounded by the Parquet footer only folds in its long strings (see Node).
void ObserveLongStrings(const arrow::StringArray& array, Node* node) {
  const int64_t n = array.length();
  if (n == 0) return;
  const int32_t* offsets = array.raw_value_offsets();
  // No single value can be longer than all of them together.
  if (offsets[n] - offsets[0] < node->long_string_bytes) return;
  // Batches rarely hold a long value: find the longest first, in a branch-free loop
  // the compiler vectorizes.
  int64_t longest = 0;
  for (int64_t i = 0; i < n; ++i) {
    longest = std::max<int64_t>(longest, offsets[i + 1] - offsets[i]);
  }
  if (longest < node->long_string_bytes) return;
  for (int64_t i = 0; i < n; ++i) {
    if (offsets[i + 1] - offsets[i] < node->long_string_bytes || !array.IsValid(i))
      continue;
    node->long_string_seen = true;
    ObserveBound<std::string>(node, std::string(array.GetView(i)));
  }
}

// The values a dictionary array's valid indices reference, each once (a string
// column may come dictionary-encoded: DataFileWriter::Write).
Result<std::shared_ptr<arrow::Array>> ReferencedValues(const arrow::Array& array,
                                                       const std::string& key) {
  const auto& dict = static_cast<const arrow::DictionaryArray&>(array);
  const arrow::Array& values = *dict.dictionary();
  if (dict.indices()->type_id() != arrow::Type::INT32) {
    return MakeError(ErrorCode::kInternal, "stats of column '{}': {} indices", key,
                     dict.indices()->type()->ToString());
  }
  const auto& indices = static_cast<const arrow::Int32Array&>(*dict.indices());
  std::vector<uint8_t> used(static_cast<size_t>(values.length()), 0);
  const int32_t* raw = indices.raw_values();
  const bool all_valid = indices.null_count() == 0;
  for (int64_t i = 0; i < indices.length(); ++i) {
    if (!all_valid && indices.IsNull(i)) continue;
    const int32_t v = raw[i];
    if (v < 0 || v >= values.length()) {
      return MakeError(ErrorCode::kInternal,
                       "stats of column '{}': dictionary index {} out of range", key, v);
    }
    used[static_cast<size_t>(v)] = 1;
  }
  std::vector<int32_t> take;
  for (size_t v = 0; v < used.size(); ++v) {
    if (used[v]) take.push_back(static_cast<int32_t>(v));
  }
  if (static_cast<int64_t>(take.size()) == values.length()) return dict.dictionary();
  arrow::Int32Array positions(static_cast<int64_t>(take.size()),
                              arrow::Buffer::Wrap(take));
  DELTA_ARROW_ASSIGN_OR_RETURN(auto out, arrow::compute::Take(values, positions),
                               ErrorCode::kInternal, "stats of column " + key);
  return out;
}

Status UpdateLeaf(const arrow::Array& array, Node* node) {
  // A dictionary's NULLs are its NULL indices (or NULL values, which the writer's
  // dictionaries do not hold).
  node->null_count += array.type_id() == arrow::Type::DICTIONARY
                          ? array.ComputeLogicalNullCount()
                          : array.null_count();
  if (!node->min_max_type || node->min_max_broken) return OkStatus();
  if (node->parquet_column >= 0 && node->type->kind() != TypeKind::kString)
    return OkStatus();
  auto expect = [&](arrow::Type::type id, const arrow::Array& a) -> Status {
    if (a.type_id() == id) return OkStatus();
    return MakeError(ErrorCode::kInternal,
                     "stats of column '{}': expected {} data, got {}", node->key,
                     node->type->ToString(), a.type()->ToString());
  };
  switch (node->type->kind()) {
    case TypeKind::kByte:
      DELTA_RETURN_IF_ERROR(expect(arrow::Type::INT8, array));
      ObserveIntegers<arrow::Int8Array>(array, node);
      break;
    case TypeKind::kShort:
      DELTA_RETURN_IF_ERROR(expect(arrow::Type::INT16, array));
      ObserveIntegers<arrow::Int16Array>(array, node);
      break;
    case TypeKind::kInteger:
      DELTA_RETURN_IF_ERROR(expect(arrow::Type::INT32, array));
      ObserveIntegers<arrow::Int32Array>(array, node);
      break;
    case TypeKind::kLong:
      DELTA_RETURN_IF_ERROR(expect(arrow::Type::INT64, array));
      ObserveIntegers<arrow::Int64Array>(array, node);
      break;
    case TypeKind::kDate:
      DELTA_RETURN_IF_ERROR(expect(arrow::Type::DATE32, array));
      ObserveIntegers<arrow::Date32Array>(array, node);
      break;
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
      DELTA_RETURN_IF_ERROR(expect(arrow::Type::TIMESTAMP, array));
      ObserveIntegers<arrow::TimestampArray>(array, node);
      break;
    case TypeKind::kFloat:
      DELTA_RETURN_IF_ERROR(expect(arrow::Type::FLOAT, array));
      ObserveFloats<arrow::FloatArray>(array, node);
      break;
    case TypeKind::kDouble:
      DELTA_RETURN_IF_ERROR(expect(arrow::Type::DOUBLE, array));
      ObserveFloats<arrow::DoubleArray>(array, node);
      break;
    case TypeKind::kDecimal: {
      DELTA_RETURN_IF_ERROR(expect(arrow::Type::DECIMAL128, array));
      const auto& typed = static_cast<const arrow::Decimal128Array&>(array);
      std::optional<arrow::Decimal128> lo;
      std::optional<arrow::Decimal128> hi;
      for (int64_t i = 0; i < typed.length(); ++i) {
        if (!typed.IsValid(i)) continue;
        arrow::Decimal128 v(typed.GetValue(i));
        if (!lo) {
          lo = hi = v;
        } else if (v < *lo) {
          lo = v;
        } else if (*hi < v) {
          hi = v;
        }
      }
      if (lo) {
        ObserveBound(node, *lo);
        ObserveBound(node, *hi);
      }
      break;
    }
    case TypeKind::kString: {
      std::shared_ptr<arrow::Array> values;  // a dictionary's referenced values
      const arrow::Array* strings = &array;
      if (array.type_id() == arrow::Type::DICTIONARY) {
        DELTA_ASSIGN_OR_RETURN(values, ReferencedValues(array, node->key));
        strings = values.get();
      }
      DELTA_RETURN_IF_ERROR(expect(arrow::Type::STRING, *strings));
      if (node->parquet_column >= 0) {
        ObserveLongStrings(static_cast<const arrow::StringArray&>(*strings), node);
      } else {
        ObserveStrings(static_cast<const arrow::StringArray&>(*strings), node);
      }
      break;
    }
    default:
      break;
  }
  return OkStatus();
}

Status UpdateNode(const std::shared_ptr<arrow::Array>& array, Node* node) {
  if (!node->is_group) return UpdateLeaf(*array, node);
  if (array->type_id() != arrow::Type::STRUCT) {
    return MakeError(ErrorCode::kInternal,
                     "stats of column '{}': expected struct, got {}", node->key,
                     array->type()->ToString());
  }
  const auto& st = static_cast<const arrow::StructArray&>(*array);
  for (auto& child : node->children) {
    if (child->field_index >= st.num_fields()) {
      return MakeError(ErrorCode::kInternal, "stats of column '{}': missing field {}",
                       node->key, child->key);
    }
    // The flattened field is null wherever the struct itself is null.
    DELTA_ARROW_ASSIGN_OR_RETURN(auto flat, st.GetFlattenedField(child->field_index),
                                 ErrorCode::kInternal, "stats of column " + node->key);
    DELTA_RETURN_IF_ERROR(UpdateNode(flat, child.get()));
  }
  return OkStatus();
}

// Render a leaf's min (or max) as JSON text; nullopt when there is no bound.
std::optional<std::string> RenderBound(const Node& node, bool is_max, int prefix) {
  if (!node.min_max_type || node.min_max_broken || !node.has_value) return std::nullopt;
  const auto& v = is_max ? node.max : node.min;
  switch (node.type->kind()) {
    case TypeKind::kDate:
      return JsonQuote(FormatDateDays(std::get<int64_t>(v)));
    case TypeKind::kTimestamp:
      return JsonQuote(FormatTimestampMicros(std::get<int64_t>(v), 3) + "Z");
    case TypeKind::kTimestampNtz:
      return JsonQuote(FormatTimestampMicros(std::get<int64_t>(v), 3));
    case TypeKind::kFloat:
      return FormatJavaFloat(static_cast<float>(std::get<double>(v)));
    case TypeKind::kDouble:
      return FormatJavaDouble(std::get<double>(v));
    case TypeKind::kDecimal:
      return std::get<arrow::Decimal128>(v).ToString(
          static_cast<const DecimalType&>(*node.type).scale());
    case TypeKind::kString: {
      const std::string& s = std::get<std::string>(v);
      if (!IsValidUtf8(s)) return std::nullopt;
      if (!is_max) return JsonQuote(TruncateStringMin(s, prefix));
      auto bound = TruncateStringMax(s, prefix);
      if (!bound) return std::nullopt;
      return JsonQuote(*bound);
    }
    default:
      return fmt::format("{}", std::get<int64_t>(v));
  }
}

enum class StatKind { kMin, kMax, kNullCount };

// Append `{"k":v,...}` for the node's children; empty groups are left out.
void AppendObject(const Node& node, StatKind kind, int prefix, std::string* out) {
  out->push_back('{');
  bool first = true;
  for (const auto& child : node.children) {
    std::string value;
    if (child->is_group) {
      AppendObject(*child, kind, prefix, &value);
      if (value == "{}") continue;
    } else if (kind == StatKind::kNullCount) {
      value = fmt::format("{}", child->null_count);
    } else {
      auto bound = RenderBound(*child, kind == StatKind::kMax, prefix);
      if (!bound) continue;
      value = std::move(*bound);
    }
    if (!first) out->push_back(',');
    first = false;
    AppendJsonString(out, child->key);
    out->push_back(':');
    out->append(value);
  }
  out->push_back('}');
}

// Byte length of the UTF-8 sequence starting with `lead` (1 for stray bytes).
size_t Utf8Length(unsigned char lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

// Byte offset after the first `n` code points of `s` (s.size() if it has fewer).
size_t CodePointOffset(std::string_view s, int64_t n) {
  size_t pos = 0;
  for (int64_t i = 0; i < n && pos < s.size(); ++i) {
    pos = std::min(s.size(), pos + Utf8Length(static_cast<unsigned char>(s[pos])));
  }
  return pos;
}

constexpr std::string_view kMaxCodePoint = "\xF4\x8F\xBF\xBF";  // U+10FFFF

// Java-style rendering from the shortest scientific digits of `value`.
std::string JavaStyle(std::string_view sci, bool negative) {
  // sci is like "1.2345e+10" or "5e-07" (no sign).
  size_t e_pos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e_pos)) {
    if (c != '.') digits.push_back(c);
  }
  int exponent = 0;
  std::string_view exp_text = sci.substr(e_pos + 1);
  if (!exp_text.empty() && exp_text[0] == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out = negative ? "-" : "";
  if (exponent >= -3 && exponent < 7) {
    if (exponent >= 0) {
      size_t int_len = static_cast<size_t>(exponent) + 1;
      if (digits.size() <= int_len) {
        out += digits + std::string(int_len - digits.size(), '0') + ".0";
      } else {
        out += digits.substr(0, int_len) + "." + digits.substr(int_len);
      }
    } else {
      out += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    }
    return out;
  }
  out += digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0");
  out += fmt::format("E{}", exponent);
  return out;
}

template <typename Float>
std::string FormatJava(Float value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value < 0 ? "-Infinity" : "Infinity";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), std::fabs(value),
                                 std::chars_format::scientific);
  return JavaStyle(std::string_view(buf, ptr - buf), value < 0);
}

}  // namespace

FileStatsCollector::~FileStatsCollector() = default;

Result<std::unique_ptr<FileStatsCollector>> FileStatsCollector::Make(
    SchemaRef schema, ColumnMappingMode mode, FileStatsOptions options) {
  if (options.num_indexed_cols < -1) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "delta.dataSkippingNumIndexedCols must be >= -1, got {}",
                     options.num_indexed_cols);
  }
  if (options.string_prefix_length < 1) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "stats string prefix length must be >= 1, got {}",
                     options.string_prefix_length);
  }
  std::vector<std::vector<std::string>> paths;
  Selector selector;
  selector.remaining = options.num_indexed_cols;
  if (options.stats_columns) {
    for (const auto& name : *options.stats_columns) {
      DELTA_ASSIGN_OR_RETURN(auto path, ParseColumnPath(name));
      paths.push_back(std::move(path));
    }
    selector.paths = &paths;
  }
  std::unique_ptr<FileStatsCollector> out(new FileStatsCollector());
  out->string_prefix_length_ = options.string_prefix_length;
  out->root_ = std::make_unique<Node>();
  out->root_->is_group = true;
  bool mapped = mode != ColumnMappingMode::kNone;
  std::vector<std::string> path;
  for (size_t i = 0; i < schema->num_fields(); ++i) {
    auto child =
        BuildNode(schema->field(i), static_cast<int>(i), mapped, &path, &selector);
    if (child) out->root_->children.push_back(std::move(child));
  }
  return out;
}

Status FileStatsCollector::Update(const arrow::RecordBatch& batch) {
  num_records_ += batch.num_rows();
  for (auto& child : root_->children) {
    if (child->field_index >= batch.num_columns()) {
      return MakeError(ErrorCode::kInternal, "stats: batch has no column {} ('{}')",
                       child->field_index, child->key);
    }
    DELTA_RETURN_IF_ERROR(UpdateNode(batch.column(child->field_index), child.get()));
  }
  return OkStatus();
}

int64_t FileStatsCollector::num_records() const { return num_records_; }

std::string FileStatsCollector::ToJson() const {
  std::string out = fmt::format(R"({{"numRecords":{},"minValues":)", num_records_);
  AppendObject(*root_, StatKind::kMin, string_prefix_length_, &out);
  out += R"(,"maxValues":)";
  AppendObject(*root_, StatKind::kMax, string_prefix_length_, &out);
  out += R"(,"nullCount":)";
  AppendObject(*root_, StatKind::kNullCount, string_prefix_length_, &out);
  out.push_back('}');
  return out;
}

std::string FormatDateDays(int64_t days) {
  // Civil date from a day count (era-based proleptic Gregorian computation).
  int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  if (y >= 0 && y <= 9999) return fmt::format("{:04d}-{:02d}-{:02d}", y, m, d);
  return fmt::format("{}{:04d}-{:02d}-{:02d}", y < 0 ? "-" : "+", y < 0 ? -y : y, m, d);
}

std::string FormatTimestampMicros(int64_t micros, int fraction_digits) {
  constexpr int64_t kMicrosPerDay = 86400LL * 1000000;
  int64_t days = micros / kMicrosPerDay;
  int64_t rem = micros % kMicrosPerDay;
  if (rem < 0) {
    rem += kMicrosPerDay;
    --days;
  }
  int64_t secs = rem / 1000000;
  int64_t frac = rem % 1000000;
  std::string out = fmt::format("{}T{:02d}:{:02d}:{:02d}", FormatDateDays(days),
                                secs / 3600, secs / 60 % 60, secs % 60);
  if (fraction_digits == 3) out += fmt::format(".{:03d}", frac / 1000);
  if (fraction_digits == 6) out += fmt::format(".{:06d}", frac);
  return out;
}

std::string FormatJavaDouble(double value) { return FormatJava(value); }
std::string FormatJavaFloat(float value) { return FormatJava(value); }

std::string TruncateStringMin(std::string_view value, int prefix_length) {
  return std::string(value.substr(0, CodePointOffset(value, prefix_length)));
}

std::optional<std::string> TruncateStringMax(std::string_view value, int prefix_length) {
  size_t pos = CodePointOffset(value, prefix_length);
  if (pos >= value.size()) return std::string(value);
  // Any value starting with value[0, pos) followed by a code point < U+10FFFF sorts
  // below value[0, pos) + U+10FFFF; extend the prefix past any U+10FFFF.
  for (int64_t n = prefix_length; n < 2LL * prefix_length && pos < value.size(); ++n) {
    if (value.substr(pos, kMaxCodePoint.size()) != kMaxCodePoint) {
      return std::string(value.substr(0, pos)) + std::string(kMaxCodePoint);
    }
    pos += kMaxCodePoint.size();
  }
  if (pos >= value.size()) return std::string(value);
  return std::nullopt;
}

}  // namespace deltaguard
