// Record values into Arrow builders with rescue (ingest/values.h).

#include "deltaguard/ingest/values.h"

#include <arrow/api.h>
#include <arrow/util/base64.h>
#include <arrow/util/decimal.h>
#include <arrow/util/value_parsing.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/datetime_format.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerDay = 86400 * kMicrosPerSecond;

template <typename B>
B* As(arrow::ArrayBuilder* b) {
  return static_cast<B*>(b);
}

bool ParseInt64(std::string_view text, int64_t* out) {
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && p == text.data() + text.size() && !text.empty();
}

bool ParseDouble(std::string_view text, double* out) {
  if (text == "NaN") {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (text == "Infinity" || text == "+Infinity" || text == "-Infinity") {
    *out = text[0] == '-' ? -std::numeric_limits<double>::infinity()
                          : std::numeric_limits<double>::infinity();
    return true;
  }
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && p == text.data() + text.size() && !text.empty() &&
         std::isfinite(*out);
}

bool IsBase64(std::string_view s) {
  if (s.size() % 4 != 0) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool pad = c == '=' && i + 2 >= s.size();
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || pad)) {
      return false;
    }
  }
  return true;
}

bool IsIntegerText(std::string_view t) {
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) t.remove_prefix(1);
  if (t.empty()) return false;
  for (char c : t) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

DataTypeRef InferNumber(std::string_view text) {
  int64_t i = 0;
  if (ParseInt64(text, &i)) return DataType::Long();
  if (IsIntegerText(text)) {
    if (text.size() <= 39) return *DecimalType::Make(38, 0);
    return DataType::Double();
  }
  return DataType::Double();
}

int NumericRank(const DataType& t) {
  switch (t.kind()) {
    case TypeKind::kInteger:
      return 1;
    case TypeKind::kLong:
      return 2;
    case TypeKind::kDecimal:
      return 3;
    case TypeKind::kDouble:
      return 4;
    default:
      return 0;
  }
}

}  // namespace

void RescuedFields::Add(std::vector<std::string> path, std::string json) {
  entries_.emplace_back(std::move(path), std::move(json));
}

std::string RescuedFields::Render(std::string_view file_path) const {
  // Entries sharing a first name nest under it: {"a":{"b":1,"c":2}}.
  std::function<void(const std::vector<size_t>&, size_t, std::string*)> render =
      [&](const std::vector<size_t>& items, size_t depth, std::string* out) {
        std::vector<std::string> seen;
        bool first = true;
        for (size_t k = 0; k < items.size(); ++k) {
          const auto& [path, json] = entries_[items[k]];
          const std::string& name = path[depth];
          if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
          seen.push_back(name);
          if (!first) out->push_back(',');
          first = false;
          AppendJsonString(out, name);
          out->push_back(':');
          if (path.size() == depth + 1) {
            *out += json;
            continue;
          }
          std::vector<size_t> children;
          for (size_t j = k; j < items.size(); ++j) {
            const auto& p = entries_[items[j]].first;
            if (p.size() > depth + 1 && p[depth] == name) children.push_back(items[j]);
          }
          out->push_back('{');
          render(children, depth + 1, out);
          out->push_back('}');
        }
      };
  std::vector<size_t> all;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (!entries_[i].first.empty()) all.push_back(i);
  }
  std::string out = "{";
  render(all, 0, &out);
  if (out.size() > 1) out.push_back(',');
  AppendJsonString(&out, "_file_path");
  out.push_back(':');
  AppendJsonString(&out, file_path);
  out.push_back('}');
  return out;
}

ValueAppender::ValueAppender(ValueOptions options) : options_(std::move(options)) {}

void ValueAppender::AppendRecord(const JsonRecord& record, uint32_t index,
                                 const StructType& schema,
                                 const std::vector<arrow::ArrayBuilder*>& builders,
                                 RescuedFields* rescued,
                                 std::vector<UnknownField>* unknown) {
  path_.clear();
  Members(record, index, schema, builders, &path_, rescued, unknown);
}

void ValueAppender::Members(const JsonRecord& record, uint32_t index,
                            const StructType& type,
                            const std::vector<arrow::ArrayBuilder*>& children,
                            std::vector<std::string>* path, RescuedFields* rescued,
                            std::vector<UnknownField>* unknown) {
  const auto& tokens = record.tokens();
  const JsonToken& object = tokens[index];
  // Which fields the object set (a word of bits for the usual width: no allocation
  // per object).
  const size_t width = type.num_fields();
  uint64_t seen_word = 0;
  std::vector<bool> seen_wide(width > 64 ? width : 0, false);
  auto seen = [&](size_t i) {
    return width > 64 ? static_cast<bool>(seen_wide[i]) : ((seen_word >> i) & 1) != 0;
  };
  auto mark = [&](size_t i) {
    if (width > 64) {
      seen_wide[i] = true;
    } else {
      seen_word |= uint64_t{1} << i;
    }
  };
  size_t next = 0;  // records mostly list fields in the schema's order: try it first
  for (uint32_t c = index + 1; c < object.end; c = tokens[c].end) {
    const std::string_view key = tokens[c].key;
    int i = next < width && type.field(next).name == key ? static_cast<int>(next)
                                                         : type.FieldIndex(key);
    if (i >= 0) next = static_cast<size_t>(i) + 1;
    path->emplace_back(key);
    if (i < 0) {
      const int folded = type.FieldIndexCaseInsensitive(key);
      if (folded >= 0 && !options_.case_sensitive) {
        i = folded;
      } else {
        // A name the schema lacks, or one differing only by case (a Delta table
        // cannot hold both `Channel` and `channel`): rescued, and reported as new
        // when it is new.
        rescued->Add(*path, record.ToJson(c));
        if (folded < 0 && unknown != nullptr) {
          unknown->push_back(UnknownField{*path, InferJson(record, c)});
        }
        path->pop_back();
        continue;
      }
    }
    if (seen(static_cast<size_t>(i))) {  // a repeated key: the first one counts
      rescued->Add(*path, record.ToJson(c));
    } else {
      mark(static_cast<size_t>(i));
      AppendJson(record, c, *type.field(static_cast<size_t>(i)).type,
                 children[static_cast<size_t>(i)], path, rescued, unknown);
    }
    path->pop_back();
  }
  for (size_t i = 0; i < width; ++i) {
    if (!seen(i)) Keep(children[i]->AppendNull());
  }
}

void ValueAppender::AppendJson(const JsonRecord& record, uint32_t index,
                               const DataType& type, arrow::ArrayBuilder* builder,
                               std::vector<std::string>* path, RescuedFields* rescued,
                               std::vector<UnknownField>* unknown) {
  const JsonToken& t = record.tokens()[index];
  if (t.kind == JsonTokenKind::kNull) {
    Keep(builder->AppendNull());
    return;
  }
  auto mismatch = [&] {
    Keep(builder->AppendNull());
    rescued->Add(*path, record.ToJson(index));
    if (options_.report_mismatches && unknown != nullptr && type.is_primitive()) {
      unknown->push_back(UnknownField{*path, InferJson(record, index), true});
    }
  };
  switch (type.kind()) {
    case TypeKind::kStruct: {
      if (t.kind != JsonTokenKind::kObject) return mismatch();
      auto* sb = As<arrow::StructBuilder>(builder);
      Keep(sb->Append());
      // The children's list per nesting depth, reused (no allocation per value).
      while (children_.size() <= path->size()) children_.emplace_back();
      std::vector<arrow::ArrayBuilder*>& children = children_[path->size()];
      children.clear();
      for (int i = 0; i < sb->num_fields(); ++i) children.push_back(sb->field_builder(i));
      Members(record, index, static_cast<const StructType&>(type), children, path,
              rescued, unknown);
      return;
    }
    case TypeKind::kArray:
    case TypeKind::kMap: {
      const bool is_array = type.kind() == TypeKind::kArray;
      if (t.kind != (is_array ? JsonTokenKind::kArray : JsonTokenKind::kObject)) {
        return mismatch();
      }
      // An element that does not fit is NULL in the array and the whole array is
      // rescued as it arrived (its other elements stay readable in the column).
      RescuedFields inner;
      if (is_array) {
        auto* lb = As<arrow::ListBuilder>(builder);
        Keep(lb->Append());
        const DataType& element = *static_cast<const ArrayType&>(type).element_type();
        for (uint32_t c = index + 1; c < t.end; c = record.tokens()[c].end) {
          AppendJson(record, c, element, lb->value_builder(), path, &inner, unknown);
        }
      } else {
        auto* mb = As<arrow::MapBuilder>(builder);
        Keep(mb->Append());
        const auto& map = static_cast<const MapType&>(type);
        for (uint32_t c = index + 1; c < t.end; c = record.tokens()[c].end) {
          const std::string_view key = record.tokens()[c].key;
          if (map.key_type()->kind() == TypeKind::kString) {
            Keep(As<arrow::StringBuilder>(mb->key_builder())->Append(key));
          } else if (!AppendParsed(key, *map.key_type(), mb->key_builder())) {
            // A key that is not of the key type: the entry is left out and the whole
            // map is rescued below.
            inner.Add(*path, "null");
            continue;
          }
          AppendJson(record, c, *map.value_type(), mb->item_builder(), path, &inner,
                     unknown);
        }
      }
      if (!inner.empty()) rescued->Add(*path, record.ToJson(index));
      return;
    }
    case TypeKind::kString: {
      auto* sb = As<arrow::StringBuilder>(builder);
      if (t.kind == JsonTokenKind::kString || t.kind == JsonTokenKind::kNumber) {
        Keep(sb->Append(t.text));
      } else {
        Keep(sb->Append(record.ToJson(index)));
      }
      return;
    }
    default:
      if (!AppendPrimitive(t, type, builder)) mismatch();
      return;
  }
}

bool ValueAppender::AppendPrimitive(const JsonToken& t, const DataType& type,
                                    arrow::ArrayBuilder* builder) {
  switch (type.kind()) {
    case TypeKind::kBoolean:
      if (t.kind != JsonTokenKind::kBool) return false;
      Keep(As<arrow::BooleanBuilder>(builder)->Append(t.boolean));
      return true;
    case TypeKind::kByte:
    case TypeKind::kShort:
    case TypeKind::kInteger:
    case TypeKind::kLong:
      return t.kind == JsonTokenKind::kNumber && AppendParsed(t.text, type, builder);
    case TypeKind::kFloat:
    case TypeKind::kDouble:
      // Spark's JSON reader also takes "NaN" and "Infinity" as strings.
      if (t.kind == JsonTokenKind::kString &&
          (t.text == "NaN" || t.text == "Infinity" || t.text == "-Infinity" ||
           t.text == "+Infinity")) {
        return AppendParsed(t.text, type, builder);
      }
      return t.kind == JsonTokenKind::kNumber && AppendParsed(t.text, type, builder);
    case TypeKind::kDecimal:
      return (t.kind == JsonTokenKind::kNumber || t.kind == JsonTokenKind::kString) &&
             AppendParsed(t.text, type, builder);
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
      if (t.kind == JsonTokenKind::kNumber) {  // seconds since the epoch, as Spark
        int64_t seconds = 0;
        constexpr int64_t kLimit = std::numeric_limits<int64_t>::max() / kMicrosPerSecond;
        if (!ParseInt64(t.text, &seconds) || seconds > kLimit || seconds < -kLimit) {
          return false;
        }
        Keep(As<arrow::TimestampBuilder>(builder)->Append(seconds * kMicrosPerSecond));
        return true;
      }
      return t.kind == JsonTokenKind::kString && AppendParsed(t.text, type, builder);
    case TypeKind::kDate:
    case TypeKind::kBinary:
      return t.kind == JsonTokenKind::kString && AppendParsed(t.text, type, builder);
    default:
      return false;
  }
}

bool ValueAppender::AppendParsed(std::string_view text, const DataType& type,
                                 arrow::ArrayBuilder* builder) {
  switch (type.kind()) {
    case TypeKind::kBoolean: {
      const std::string_view v = Trim(text);
      if (EqualsIgnoreCase(v, "true") || EqualsIgnoreCase(v, "false")) {
        Keep(As<arrow::BooleanBuilder>(builder)->Append(EqualsIgnoreCase(v, "true")));
        return true;
      }
      return false;
    }
    case TypeKind::kByte:
    case TypeKind::kShort:
    case TypeKind::kInteger:
    case TypeKind::kLong: {
      int64_t v = 0;
      if (!ParseInt64(Trim(text), &v)) return false;
      switch (type.kind()) {
        case TypeKind::kByte:
          if (v < -128 || v > 127) return false;
          Keep(As<arrow::Int8Builder>(builder)->Append(static_cast<int8_t>(v)));
          return true;
        case TypeKind::kShort:
          if (v < -32768 || v > 32767) return false;
          Keep(As<arrow::Int16Builder>(builder)->Append(static_cast<int16_t>(v)));
          return true;
        case TypeKind::kInteger:
          if (v < std::numeric_limits<int32_t>::min() ||
              v > std::numeric_limits<int32_t>::max()) {
            return false;
          }
          Keep(As<arrow::Int32Builder>(builder)->Append(static_cast<int32_t>(v)));
          return true;
        default:
          Keep(As<arrow::Int64Builder>(builder)->Append(v));
          return true;
      }
    }
    case TypeKind::kFloat:
    case TypeKind::kDouble: {
      double v = 0;
      if (!ParseDouble(Trim(text), &v)) return false;
      if (type.kind() == TypeKind::kFloat) {
        if (std::isfinite(v) && std::abs(v) > std::numeric_limits<float>::max()) {
          return false;
        }
        Keep(As<arrow::FloatBuilder>(builder)->Append(static_cast<float>(v)));
      } else {
        Keep(As<arrow::DoubleBuilder>(builder)->Append(v));
      }
      return true;
    }
    case TypeKind::kDecimal: {
      const auto& d = static_cast<const DecimalType&>(type);
      arrow::Decimal128 value;
      int32_t precision = 0;
      int32_t scale = 0;
      if (!arrow::Decimal128::FromString(Trim(text), &value, &precision, &scale).ok()) {
        return false;
      }
      // Digits are never dropped: 12.345 does not fit DECIMAL(10,2) (rescued).
      auto rescaled = value.Rescale(scale, d.scale());
      if (!rescaled.ok() || !rescaled->FitsInPrecision(d.precision())) return false;
      Keep(As<arrow::Decimal128Builder>(builder)->Append(*rescaled));
      return true;
    }
    case TypeKind::kDate: {
      const std::string_view v = Trim(text);
      int64_t days = 0;
      if (options_.date_format.empty()) {
        int32_t d = 0;
        if (!arrow::internal::ParseValue<arrow::Date32Type>(v.data(), v.size(), &d)) {
          return false;
        }
        days = d;
      } else {
        auto micros = ParseWithPattern(v, options_.date_format);
        if (!micros) return false;
        days = *micros / kMicrosPerDay - (*micros % kMicrosPerDay < 0 ? 1 : 0);
      }
      Keep(As<arrow::Date32Builder>(builder)->Append(static_cast<int32_t>(days)));
      return true;
    }
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz: {
      const std::string_view v = Trim(text);
      int64_t micros = 0;
      if (options_.timestamp_format.empty()) {
        bool zoned = false;
        if (!arrow::internal::ParseTimestampISO8601(
                v.data(), v.size(), arrow::TimeUnit::MICRO, &micros, &zoned)) {
          return false;
        }
        // A zone on a TIMESTAMP_NTZ value would be dropped: not the column's value.
        if (zoned && type.kind() == TypeKind::kTimestampNtz) return false;
      } else {
        auto parsed = ParseWithPattern(v, options_.timestamp_format);
        if (!parsed) return false;
        micros = *parsed;
      }
      Keep(As<arrow::TimestampBuilder>(builder)->Append(micros));
      return true;
    }
    case TypeKind::kBinary: {
      if (!IsBase64(text)) return false;
      Keep(As<arrow::BinaryBuilder>(builder)->Append(arrow::util::base64_decode(text)));
      return true;
    }
    case TypeKind::kString:
      Keep(As<arrow::StringBuilder>(builder)->Append(text));
      return true;
    default:
      return false;
  }
}

void ValueAppender::AppendText(std::string_view text, const DataType& type,
                               arrow::ArrayBuilder* builder,
                               const std::vector<std::string>& path,
                               RescuedFields* rescued,
                               std::vector<UnknownField>* unknown) {
  if (text == options_.null_value) {
    Keep(builder->AppendNull());
    return;
  }
  if (AppendParsed(text, type, builder)) return;
  Keep(builder->AppendNull());
  rescued->Add(path, JsonQuote(text));
  if (options_.report_mismatches && unknown != nullptr) {
    unknown->push_back(UnknownField{path, InferText(text), true});
  }
}

DataTypeRef ValueAppender::InferJson(const JsonRecord& record, uint32_t index) const {
  const JsonToken& t = record.tokens()[index];
  switch (t.kind) {
    case JsonTokenKind::kNull:
      return DataType::Void();
    case JsonTokenKind::kBool:
      return options_.infer_column_types ? DataType::Boolean() : DataType::String();
    case JsonTokenKind::kNumber:
      return options_.infer_column_types ? InferNumber(t.text) : DataType::String();
    case JsonTokenKind::kString:
      return DataType::String();
    case JsonTokenKind::kObject: {
      std::vector<StructField> fields;
      DataTypeRef merged = std::make_shared<StructType>(std::vector<StructField>{});
      for (uint32_t c = index + 1; c < t.end; c = record.tokens()[c].end) {
        StructField f{
            std::string(record.tokens()[c].key), InferJson(record, c), true, {}};
        merged = MergeInferredTypes(
            merged, std::make_shared<StructType>(std::vector<StructField>{f}));
      }
      return merged;
    }
    case JsonTokenKind::kArray: {
      DataTypeRef element = DataType::Void();
      for (uint32_t c = index + 1; c < t.end; c = record.tokens()[c].end) {
        element = MergeInferredTypes(element, InferJson(record, c));
      }
      return std::make_shared<ArrayType>(element, true);
    }
  }
  return DataType::String();
}

DataTypeRef ValueAppender::InferText(std::string_view text) const {
  if (!options_.infer_column_types || text == options_.null_value) {
    return options_.infer_column_types ? DataType::Void() : DataType::String();
  }
  int64_t i = 0;
  const std::string_view v = Trim(text);
  if (ParseInt64(v, &i)) {
    return i >= std::numeric_limits<int32_t>::min() &&
                   i <= std::numeric_limits<int32_t>::max()
               ? DataType::Integer()
               : DataType::Long();
  }
  double d = 0;
  if (ParseDouble(v, &d)) return DataType::Double();
  if (EqualsIgnoreCase(v, "true") || EqualsIgnoreCase(v, "false")) {
    return DataType::Boolean();
  }
  return DataType::String();
}

DataTypeRef MergeInferredTypes(const DataTypeRef& a, const DataTypeRef& b) {
  if (a->kind() == TypeKind::kVoid) return b;
  if (b->kind() == TypeKind::kVoid) return a;
  if (a->Equals(*b)) return a;
  const int ra = NumericRank(*a);
  const int rb = NumericRank(*b);
  if (ra > 0 && rb > 0) return ra >= rb ? a : b;
  if (a->kind() == TypeKind::kStruct && b->kind() == TypeKind::kStruct) {
    std::vector<StructField> fields = static_cast<const StructType&>(*a).fields();
    for (const auto& f : static_cast<const StructType&>(*b).fields()) {
      auto it = std::find_if(fields.begin(), fields.end(), [&](const StructField& g) {
        return EqualsIgnoreCase(g.name, f.name);
      });
      if (it == fields.end()) {
        fields.push_back(f);
      } else {
        it->type = MergeInferredTypes(it->type, f.type);
      }
    }
    return std::make_shared<StructType>(std::move(fields));
  }
  if (a->kind() == TypeKind::kArray && b->kind() == TypeKind::kArray) {
    return std::make_shared<ArrayType>(
        MergeInferredTypes(static_cast<const ArrayType&>(*a).element_type(),
                           static_cast<const ArrayType&>(*b).element_type()),
        true);
  }
  return DataType::String();
}

DataTypeRef ResolveVoid(const DataTypeRef& type) {
  switch (type->kind()) {
    case TypeKind::kVoid:
      return DataType::String();
    case TypeKind::kStruct: {
      std::vector<StructField> fields = static_cast<const StructType&>(*type).fields();
      for (auto& f : fields) f.type = ResolveVoid(f.type);
      return std::make_shared<StructType>(std::move(fields));
    }
    case TypeKind::kArray:
      return std::make_shared<ArrayType>(
          ResolveVoid(static_cast<const ArrayType&>(*type).element_type()), true);
    default:
      return type;
  }
}

Result<std::unique_ptr<arrow::ArrayBuilder>> MakeIngestBuilder(const DataType& type) {
  DELTA_ASSIGN_OR_RETURN(auto arrow_type, ToArrowType(type));
  std::unique_ptr<arrow::ArrayBuilder> builder;
  DELTA_ARROW_RETURN_NOT_OK(
      arrow::MakeBuilder(arrow::default_memory_pool(), arrow_type, &builder),
      ErrorCode::kInternal, fmt::format("a builder for {}", type.ToString()));
  return builder;
}

}  // namespace deltaguard
