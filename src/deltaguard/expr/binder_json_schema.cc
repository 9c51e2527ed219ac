// schema_of_json('json literal'): the type Spark's JSON schema inference gives the
// document, written as Spark's DataType.sql ("STRUCT<a: BIGINT, b: ARRAY<STRING>>").
// Inference follows Spark's JsonInferSchema with its defaults: integers BIGINT
// (DECIMAL(n, 0) past BIGINT, DOUBLE past 38 digits), other numbers DOUBLE, strings
// STRING (no date or timestamp inference), objects STRUCT with fields sorted by name,
// arrays of the elements' merged type; values that meet with different types become
// STRING; a NULL (or an empty array's element) is STRING at the end. Bound to a
// literal: the argument must be one (Spark requires it foldable).

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "deltaguard/expr/binder_internal.h"
#include "deltaguard/expr/printer.h"

namespace deltaguard::internal {
namespace {

// nullptr stands for Spark's NullType (a JSON null, or no element seen yet).
DataTypeRef Merge(const DataTypeRef& a, const DataTypeRef& b);

DataTypeRef MergeDecimal(int p1, int s1, int p2, int s2) {
  const int scale = std::max(s1, s2);
  const int range = std::max(p1 - s1, p2 - s2);
  if (range + scale > 38) return DataType::Double();
  return std::make_shared<DecimalType>(range + scale, scale);
}

DataTypeRef Merge(const DataTypeRef& a, const DataTypeRef& b) {
  if (a == nullptr) return b;
  if (b == nullptr) return a;
  if (a->Equals(*b)) return a;
  const TypeKind ka = a->kind(), kb = b->kind();
  auto decimal_of = [](const DataType& t, int* p, int* s) {
    if (t.kind() == TypeKind::kLong) {
      *p = 20;
      *s = 0;
      return true;
    }
    if (t.kind() != TypeKind::kDecimal) return false;
    *p = static_cast<const DecimalType&>(t).precision();
    *s = static_cast<const DecimalType&>(t).scale();
    return true;
  };
  int p1 = 0, s1 = 0, p2 = 0, s2 = 0;
  if (decimal_of(*a, &p1, &s1) && decimal_of(*b, &p2, &s2)) {
    return MergeDecimal(p1, s1, p2, s2);
  }
  const bool num_a =
      ka == TypeKind::kLong || ka == TypeKind::kDouble || ka == TypeKind::kDecimal;
  const bool num_b =
      kb == TypeKind::kLong || kb == TypeKind::kDouble || kb == TypeKind::kDecimal;
  if (num_a && num_b) return DataType::Double();
  if (ka == TypeKind::kArray && kb == TypeKind::kArray) {
    return std::make_shared<ArrayType>(
        Merge(static_cast<const ArrayType&>(*a).element_type(),
              static_cast<const ArrayType&>(*b).element_type()),
        true);
  }
  if (ka == TypeKind::kStruct && kb == TypeKind::kStruct) {
    std::map<std::string, DataTypeRef> fields;
    for (const auto* t : {a.get(), b.get()}) {
      for (const auto& f : static_cast<const StructType&>(*t).fields()) {
        auto it = fields.find(f.name);
        fields[f.name] = it == fields.end() ? f.type : Merge(it->second, f.type);
      }
    }
    std::vector<StructField> out;
    for (auto& [name, type] : fields) out.push_back(StructField{name, type, true, {}});
    return std::make_shared<StructType>(std::move(out));
  }
  return DataType::String();
}

// NullType left anywhere becomes STRING.
DataTypeRef Canonical(const DataTypeRef& t) {
  if (t == nullptr) return DataType::String();
  if (t->kind() == TypeKind::kArray) {
    return std::make_shared<ArrayType>(
        Canonical(static_cast<const ArrayType&>(*t).element_type()), true);
  }
  if (t->kind() == TypeKind::kStruct) {
    std::vector<StructField> out;
    for (const auto& f : static_cast<const StructType&>(*t).fields()) {
      out.push_back(StructField{f.name, Canonical(f.type), true, {}});
    }
    return std::make_shared<StructType>(std::move(out));
  }
  return t;
}

// A SAX handler that infers as it reads: a stack of open objects and arrays.
class Inferrer : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Inferrer> {
 public:
  bool Null() { return Value(nullptr); }
  bool Bool(bool) { return Value(DataType::Boolean()); }
  bool RawNumber(const char* s, rapidjson::SizeType len, bool) {
    std::string_view n(s, len);
    if (n.find_first_of(".eE") != std::string_view::npos)
      return Value(DataType::Double());
    const size_t digits = n.size() - (n[0] == '-' ? 1 : 0);
    if (digits <= 18 || (digits == 19 && FitsLong(n))) return Value(DataType::Long());
    if (digits <= 38) {
      return Value(std::make_shared<DecimalType>(static_cast<int>(digits), 0));
    }
    return Value(DataType::Double());
  }
  bool String(const char*, rapidjson::SizeType, bool) {
    return Value(DataType::String());
  }
  bool StartObject() {
    stack_.push_back(Frame{true, {}, {}, nullptr});
    return true;
  }
  bool Key(const char* s, rapidjson::SizeType len, bool) {
    stack_.back().key.assign(s, len);
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    std::vector<StructField> fields;
    for (auto& [name, type] : stack_.back().fields) {
      fields.push_back(StructField{name, type, true, {}});
    }
    stack_.pop_back();
    return Value(std::make_shared<StructType>(std::move(fields)));
  }
  bool StartArray() {
    stack_.push_back(Frame{false, {}, {}, nullptr});
    return true;
  }
  bool EndArray(rapidjson::SizeType) {
    DataTypeRef element = stack_.back().element;
    stack_.pop_back();
    return Value(std::make_shared<ArrayType>(element, true));
  }
  DataTypeRef result() const { return result_; }

 private:
  static bool FitsLong(std::string_view n) {
    const bool negative = n[0] == '-';
    std::string_view d = negative ? n.substr(1) : n;
    return d <= (negative ? std::string_view("9223372036854775808")
                          : std::string_view("9223372036854775807"));
  }
  bool Value(DataTypeRef t) {
    if (stack_.empty()) {
      result_ = std::move(t);
      return true;
    }
    Frame& f = stack_.back();
    if (f.object) {
      auto it = f.fields.find(f.key);
      f.fields[f.key] = it == f.fields.end() ? t : Merge(it->second, t);
    } else {
      f.element = Merge(f.element, t);
    }
    return true;
  }
  struct Frame {
    bool object;
    std::string key;
    std::map<std::string, DataTypeRef> fields;  ///< sorted by name, as Spark sorts
    DataTypeRef element;
  };
  std::vector<Frame> stack_;
  DataTypeRef result_;
};

std::string QuoteIfNeeded(const std::string& name) {
  const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  }) && !std::all_of(name.begin(), name.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
  if (plain) return name;
  std::string out = "`";
  for (char c : name) out += c == '`' ? std::string("``") : std::string(1, c);
  return out + "`";
}

// Spark's DataType.sql.
std::string SparkSql(const DataType& t) {
  switch (t.kind()) {
    case TypeKind::kArray:
      return "ARRAY<" + SparkSql(*static_cast<const ArrayType&>(t).element_type()) + ">";
    case TypeKind::kStruct: {
      std::string out = "STRUCT<";
      const auto& fields = static_cast<const StructType&>(t).fields();
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i > 0) out += ", ";
        out += QuoteIfNeeded(fields[i].name) + ": " + SparkSql(*fields[i].type);
      }
      return out + ">";
    }
    default:
      return TypeToSql(t);
  }
}

}  // namespace

Result<BoundExprRef> BindSchemaOfJson(const Expr& node,
                                      const std::vector<BoundExprRef>& args) {
  if (args.size() != 1) {
    // Spark's second argument (a map of JSON options) is not supported.
    return MakeError(ErrorCode::kInvalidArgument,
                     "WRONG_NUM_ARGS: function schema_of_json() takes 1 argument (JSON "
                     "options are not supported), got {}",
                     args.size());
  }
  const BoundExpr& json = *args[0];
  if (json.kind != BoundKind::kLiteral || json.literal.is_null() ||
      json.type->kind() != TypeKind::kString) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT: function {}(): the JSON must "
                     "be a string literal, got {}",
                     node.text, DescribeOperand(json));
  }
  const auto& text = std::get<std::string>(json.literal.value);
  Inferrer inferrer;
  rapidjson::Reader reader;
  rapidjson::StringStream stream(text.c_str());
  auto ok = reader.Parse<rapidjson::kParseNumbersAsStringsFlag |
                         rapidjson::kParseStopWhenDoneFlag>(stream, inferrer);
  if (ok.IsError()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "function schema_of_json(): malformed JSON at offset {}: {}",
                     ok.Offset(), rapidjson::GetParseError_En(ok.Code()));
  }
  return MakeLiteral(
      LiteralValue{DataType::String(), SparkSql(*Canonical(inferrer.result()))});
}

}  // namespace deltaguard::internal
