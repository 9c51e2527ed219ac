#include "deltaguard/schema/data_type.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <charconv>

#include "deltaguard/schema/column_path.h"
#include "deltaguard/util/json_bounded.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

// The parameterless types. Only the singletons below create them, so two primitive types
// are equal exactly when their kinds are.
class PrimitiveType final : public DataType {
 public:
  explicit PrimitiveType(TypeKind kind) : DataType(kind) {}
};

DataTypeRef MakePrimitive(TypeKind kind) { return std::make_shared<PrimitiveType>(kind); }

bool TypesEqual(const DataTypeRef& a, const DataTypeRef& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  return a->Equals(*b);
}

// A name is printed bare when it is a plain identifier, otherwise in backticks (doubling
// embedded backticks), so that ParseDdlType can read ToString() back.
std::string QuoteNameIfNeeded(std::string_view name) {
  bool plain = !name.empty() && !(name[0] >= '0' && name[0] <= '9');
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_';
    if (!ok) plain = false;
  }
  if (plain) return std::string(name);
  return BacktickQuote(name);
}

// Parse `raw` as one JSON value; nullopt when it is not valid JSON.
std::optional<rapidjson::Document> ParseRaw(const std::string& raw) {
  rapidjson::Document doc;
  if (ParseBoundedJson(raw, &doc) != JsonParseOutcome::kOk) return std::nullopt;
  return doc;
}

Status ValidateNamesIn(const DataType& type, const std::string& path);

Status ValidateStructNames(const StructType& st, const std::string& path) {
  if (auto dup = FindDuplicateFieldName(st.fields())) {
    return MakeError(
        ErrorCode::kSchemaMismatch,
        "duplicate field name '{}' in {}: conflicts case-insensitively with '{}'",
        st.field(dup->second).name,
        path.empty() ? "the top-level struct" : "struct '" + path + "'",
        st.field(dup->first).name);
  }
  for (const StructField& f : st.fields()) {
    // The log stores names in JSON, which must be UTF-8 (other engines decode strictly).
    if (size_t bad = 0; !IsValidUtf8(f.name, &bad)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "field name '{}' in {} is not valid UTF-8 (byte {} at offset {})",
                       EscapeForMessage(f.name),
                       path.empty() ? "the top-level struct"
                                    : "struct '" + EscapeForMessage(path) + "'",
                       EscapeForMessage(f.name.substr(bad, 1)), bad);
    }
    DELTA_RETURN_IF_ERROR(ValidateNamesIn(*f.type, ChildColumnPath(path, f.name)));
  }
  return OkStatus();
}

Status ValidateNamesIn(const DataType& type, const std::string& path) {
  switch (type.kind()) {
    case TypeKind::kStruct:
      return ValidateStructNames(static_cast<const StructType&>(type), path);
    case TypeKind::kArray:
      return ValidateNamesIn(*static_cast<const ArrayType&>(type).element_type(),
                             path + ".element");
    case TypeKind::kMap: {
      const auto& map = static_cast<const MapType&>(type);
      DELTA_RETURN_IF_ERROR(ValidateNamesIn(*map.key_type(), path + ".key"));
      return ValidateNamesIn(*map.value_type(), path + ".value");
    }
    default:
      return OkStatus();
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------
// FieldMetadata

const std::string* FieldMetadata::FindRaw(std::string_view key) const {
  for (const Entry& e : entries_) {
    if (e.first == key) return &e.second;
  }
  return nullptr;
}

std::optional<std::string> FieldMetadata::GetString(std::string_view key) const {
  const std::string* raw = FindRaw(key);
  if (raw == nullptr) return std::nullopt;
  auto doc = ParseRaw(*raw);
  if (!doc || !doc->IsString()) return std::nullopt;
  return std::string(doc->GetString(), doc->GetStringLength());
}

std::optional<int64_t> FieldMetadata::GetInt(std::string_view key) const {
  const std::string* raw = FindRaw(key);
  if (raw == nullptr) return std::nullopt;
  auto doc = ParseRaw(*raw);
  if (!doc || !doc->IsInt64()) return std::nullopt;
  return doc->GetInt64();
}

FieldMetadata FieldMetadata::With(std::string_view key, std::string raw_json) const {
  std::vector<Entry> entries = entries_;
  for (Entry& e : entries) {
    if (e.first == key) {
      e.second = std::move(raw_json);
      return FieldMetadata(std::move(entries));
    }
  }
  entries.emplace_back(std::string(key), std::move(raw_json));
  return FieldMetadata(std::move(entries));
}

FieldMetadata FieldMetadata::Without(std::string_view key) const {
  std::vector<Entry> entries;
  entries.reserve(entries_.size());
  for (const Entry& e : entries_) {
    if (e.first != key) entries.push_back(e);
  }
  return FieldMetadata(std::move(entries));
}

// ---------------------------------------------------------------------------------------
// DataType

std::string DataType::TypeName() const {
  switch (kind_) {
    case TypeKind::kByte:
      return "byte";
    case TypeKind::kShort:
      return "short";
    case TypeKind::kInteger:
      return "integer";
    case TypeKind::kLong:
      return "long";
    case TypeKind::kFloat:
      return "float";
    case TypeKind::kDouble:
      return "double";
    case TypeKind::kDecimal:
      return "decimal";  // DecimalType overrides
    case TypeKind::kString:
      return "string";
    case TypeKind::kBinary:
      return "binary";
    case TypeKind::kBoolean:
      return "boolean";
    case TypeKind::kDate:
      return "date";
    case TypeKind::kTimestamp:
      return "timestamp";
    case TypeKind::kTimestampNtz:
      return "timestamp_ntz";
    case TypeKind::kVariant:
      return "variant";
    case TypeKind::kVoid:
      return "void";
    case TypeKind::kStruct:
      return "struct";
    case TypeKind::kArray:
      return "array";
    case TypeKind::kMap:
      return "map";
  }
  return "unknown";
}

std::string DataType::ToString() const { return TypeName(); }

bool DataType::Equals(const DataType& other) const { return kind_ == other.kind_; }

int IntegralRank(TypeKind kind) {
  switch (kind) {
    case TypeKind::kByte:
      return 1;
    case TypeKind::kShort:
      return 2;
    case TypeKind::kInteger:
      return 3;
    case TypeKind::kLong:
      return 4;
    default:
      return 0;
  }
}

bool DataType::is_integral() const {
  return kind_ == TypeKind::kByte || kind_ == TypeKind::kShort ||
         kind_ == TypeKind::kInteger || kind_ == TypeKind::kLong;
}

bool DataType::is_numeric() const {
  return is_integral() || kind_ == TypeKind::kFloat || kind_ == TypeKind::kDouble ||
         kind_ == TypeKind::kDecimal;
}

#define DELTA_PRIMITIVE_SINGLETON(Name, Kind)             \
  DataTypeRef DataType::Name() {                          \
    static const DataTypeRef kType = MakePrimitive(Kind); \
    return kType;                                         \
  }
DELTA_PRIMITIVE_SINGLETON(Byte, TypeKind::kByte)
DELTA_PRIMITIVE_SINGLETON(Short, TypeKind::kShort)
DELTA_PRIMITIVE_SINGLETON(Integer, TypeKind::kInteger)
DELTA_PRIMITIVE_SINGLETON(Long, TypeKind::kLong)
DELTA_PRIMITIVE_SINGLETON(Float, TypeKind::kFloat)
DELTA_PRIMITIVE_SINGLETON(Double, TypeKind::kDouble)
DELTA_PRIMITIVE_SINGLETON(String, TypeKind::kString)
DELTA_PRIMITIVE_SINGLETON(Binary, TypeKind::kBinary)
DELTA_PRIMITIVE_SINGLETON(Boolean, TypeKind::kBoolean)
DELTA_PRIMITIVE_SINGLETON(Date, TypeKind::kDate)
DELTA_PRIMITIVE_SINGLETON(Timestamp, TypeKind::kTimestamp)
DELTA_PRIMITIVE_SINGLETON(TimestampNtz, TypeKind::kTimestampNtz)
DELTA_PRIMITIVE_SINGLETON(Variant, TypeKind::kVariant)
DELTA_PRIMITIVE_SINGLETON(Void, TypeKind::kVoid)
#undef DELTA_PRIMITIVE_SINGLETON

namespace {

// Parse "(p, s)" after "decimal", Spark's `decimal\(\s*(\d+)\s*,\s*(-?\d+)\s*\)`.
Result<DataTypeRef> ParseDecimalName(std::string_view name) {
  std::string_view rest = name.substr(7);             // after "decimal"
  if (rest.empty()) return DecimalType::Make(10, 0);  // Spark's default decimal
  auto bad = [&] {
    return MakeError(ErrorCode::kParseError,
                     "malformed decimal type '{}': expected decimal(precision,scale)",
                     name);
  };
  if (rest.front() != '(' || rest.back() != ')') return bad();
  auto parts = Split(rest.substr(1, rest.size() - 2), ',');
  if (parts.size() != 2) return bad();
  int values[2];
  for (int i = 0; i < 2; ++i) {
    std::string_view digits = Trim(parts[i]);
    const char* end = digits.data() + digits.size();
    auto [ptr, ec] = std::from_chars(digits.data(), end, values[i]);
    if (digits.empty() || ec != std::errc() || ptr != end) return bad();
  }
  auto made = DecimalType::Make(values[0], values[1]);
  if (!made) return MakeError(ErrorCode::kParseError, "{}", made.error().message);
  return made;
}

}  // namespace

Result<DataTypeRef> DataType::FromTypeName(std::string_view name) {
  static constexpr std::pair<std::string_view, DataTypeRef (*)()> kNames[] = {
      {"byte", &DataType::Byte},           {"short", &DataType::Short},
      {"integer", &DataType::Integer},     {"long", &DataType::Long},
      {"float", &DataType::Float},         {"double", &DataType::Double},
      {"string", &DataType::String},       {"binary", &DataType::Binary},
      {"boolean", &DataType::Boolean},     {"date", &DataType::Date},
      {"timestamp", &DataType::Timestamp}, {"timestamp_ntz", &DataType::TimestampNtz},
      {"variant", &DataType::Variant},     {"void", &DataType::Void},
  };
  for (const auto& [n, make] : kNames) {
    if (n == name) return make();
  }
  if (name.starts_with("decimal")) return ParseDecimalName(name);
  // Known Delta types that this engine does not implement (geospatial table feature).
  if (name.starts_with("geometry") || name.starts_with("geography")) {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "data type '{}' (geospatial) is not supported", name);
  }
  return MakeError(ErrorCode::kParseError, "unknown data type '{}'", name);
}

bool operator==(const DataType& a, const DataType& b) { return a.Equals(b); }

// ---------------------------------------------------------------------------------------
// DecimalType

Result<DataTypeRef> DecimalType::Make(int precision, int scale) {
  if (precision < 1 || precision > kMaxPrecision) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "decimal precision must be between 1 and {}, got decimal({},{})",
                     kMaxPrecision, precision, scale);
  }
  if (scale < 0 || scale > precision) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "decimal scale must be between 0 and the precision {}, got "
                     "decimal({},{})",
                     precision, precision, scale);
  }
  return std::make_shared<DecimalType>(precision, scale);
}

std::string DecimalType::TypeName() const {
  return fmt::format("decimal({},{})", precision_, scale_);
}

bool DecimalType::Equals(const DataType& other) const {
  if (other.kind() != TypeKind::kDecimal) return false;
  const auto& d = static_cast<const DecimalType&>(other);
  return precision_ == d.precision_ && scale_ == d.scale_;
}

// ---------------------------------------------------------------------------------------
// StructField / StructType

std::optional<int64_t> StructField::column_mapping_id() const {
  return metadata.GetInt(kColumnMappingIdKey);
}

std::optional<std::string> StructField::physical_name() const {
  return metadata.GetString(kColumnMappingPhysicalNameKey);
}

std::optional<std::string> StructField::comment() const {
  return metadata.GetString(kCommentKey);
}

bool StructField::Equals(const StructField& other) const {
  return name == other.name && nullable == other.nullable && metadata == other.metadata &&
         TypesEqual(type, other.type);
}

int StructType::FieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int StructType::FieldIndexCaseInsensitive(std::string_view name) const {
  // An exact match wins, so a (invalid) schema with 'a' and 'A' still resolves 'A'.
  int exact = FieldIndex(name);
  if (exact >= 0) return exact;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (EqualsIgnoreCase(fields_[i].name, name)) return static_cast<int>(i);
  }
  return -1;
}

const StructField* StructType::FindPath(const std::vector<std::string>& path,
                                        bool case_sensitive) const {
  const StructType* current = this;
  const StructField* found = nullptr;
  for (const std::string& part : path) {
    if (current == nullptr) return nullptr;  // the previous step was not a struct
    int idx = case_sensitive ? current->FieldIndex(part)
                             : current->FieldIndexCaseInsensitive(part);
    if (idx < 0) return nullptr;
    found = &current->field(static_cast<size_t>(idx));
    current = found->type && found->type->kind() == TypeKind::kStruct
                  ? static_cast<const StructType*>(found->type.get())
                  : nullptr;
  }
  return found;
}

std::string StructType::ToString() const {
  std::string out = "struct<";
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (i > 0) out += ", ";
    out += QuoteNameIfNeeded(fields_[i].name);
    out += ": ";
    out += fields_[i].type ? fields_[i].type->ToString() : "<null>";
    if (!fields_[i].nullable) out += " NOT NULL";
  }
  out += ">";
  return out;
}

bool StructType::Equals(const DataType& other) const {
  if (other.kind() != TypeKind::kStruct) return false;
  const auto& s = static_cast<const StructType&>(other);
  if (fields_.size() != s.fields_.size()) return false;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!fields_[i].Equals(s.fields_[i])) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------
// ArrayType / MapType

std::string ArrayType::ToString() const {
  return fmt::format("array<{}>", element_type_ ? element_type_->ToString() : "<null>");
}

bool ArrayType::Equals(const DataType& other) const {
  if (other.kind() != TypeKind::kArray) return false;
  const auto& a = static_cast<const ArrayType&>(other);
  return contains_null_ == a.contains_null_ && TypesEqual(element_type_, a.element_type_);
}

std::string MapType::ToString() const {
  return fmt::format("map<{},{}>", key_type_ ? key_type_->ToString() : "<null>",
                     value_type_ ? value_type_->ToString() : "<null>");
}

bool MapType::Equals(const DataType& other) const {
  if (other.kind() != TypeKind::kMap) return false;
  const auto& m = static_cast<const MapType&>(other);
  return value_contains_null_ == m.value_contains_null_ &&
         TypesEqual(key_type_, m.key_type_) && TypesEqual(value_type_, m.value_type_);
}

// ---------------------------------------------------------------------------------------
// Validation

std::optional<std::pair<size_t, size_t>> FindDuplicateFieldName(
    const std::vector<StructField>& fields) {
  std::vector<std::pair<std::string, size_t>> lowered;
  lowered.reserve(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    lowered.emplace_back(AsciiToLower(fields[i].name), i);
  }
  std::sort(lowered.begin(), lowered.end());
  std::optional<std::pair<size_t, size_t>> best;
  for (size_t i = 1; i < lowered.size(); ++i) {
    if (lowered[i].first != lowered[i - 1].first) continue;
    // Equal names sort by index, so this is the earliest pair for this name; keep the
    // pair whose second field comes first in the struct, to report a stable result.
    std::pair<size_t, size_t> pair{lowered[i - 1].second, lowered[i].second};
    if (!best || pair.second < best->second) best = pair;
  }
  return best;
}

Status ValidateFieldNames(const StructType& schema) {
  return ValidateStructNames(schema, "");
}

}  // namespace deltaguard
