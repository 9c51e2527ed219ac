// JSON and struct kernels of the function library, as Spark's:
//  - get_json_object(json, path): the value at a JSONPath ($, .name, ['name'], [n],
//    [*]); a string comes back unquoted, anything else as compact JSON with numbers as
//    Java writes doubles ("1.0", "100.0"); JSON null, a missing path or text that is
//    not JSON give NULL; [*] over several matches gives them as a JSON array;
//  - to_json(struct | array | map): NULL struct fields left out, dates and timestamps
//    as Spark's JSON options write them (yyyy-MM-dd, yyyy-MM-dd'T'HH:mm:ss.SSSXXX);
//  - from_json(json, schema): PERMISSIVE mode: a value that does not fit its field is
//    NULL, text that is not a JSON object gives a struct of NULLs (blank text NULL), a
//    STRING field keeps the JSON text of a non-string value;
//  - named_struct / struct: the arguments as the fields of a struct.

#include <arrow/util/decimal.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "deltaguard/exec/datetime_format.h"
#include "deltaguard/exec/expr_eval_library_internal.h"
#include "deltaguard/expr/literal.h"
#include "deltaguard/io/parquet/file_stats.h"

namespace deltaguard::internal {

using arrow::Datum;

namespace {

constexpr int64_t kMicrosPerDay = 86'400'000'000;
constexpr unsigned kParseFlags = rapidjson::kParseFullPrecisionFlag;

// ---- get_json_object ----

struct PathStep {
  enum Kind { kField, kIndex, kAll } kind;
  std::string field;
  int64_t index = 0;
};

// The steps of a JSONPath, or an error naming the position that does not parse.
Result<std::vector<PathStep>> ParsePath(std::string_view path) {
  auto bad = [&](size_t at) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "get_json_object(): path '{}' does not parse at position {} "
                     "(expected $ followed by .name, ['name'], [n] or [*])",
                     path, at);
  };
  if (path.empty() || path[0] != '$') return bad(0);
  std::vector<PathStep> steps;
  size_t i = 1;
  while (i < path.size()) {
    if (path[i] == '.') {
      size_t end = i + 1;
      while (end < path.size() && path[end] != '.' && path[end] != '[') ++end;
      if (end == i + 1) return bad(i + 1);
      steps.push_back({PathStep::kField, std::string(path.substr(i + 1, end - i - 1))});
      i = end;
    } else if (path[i] == '[') {
      size_t close = path.find(']', i);
      if (close == std::string_view::npos) return bad(i);
      std::string_view inner = path.substr(i + 1, close - i - 1);
      if (inner == "*") {
        steps.push_back({PathStep::kAll, ""});
      } else if (inner.size() >= 2 && inner.front() == '\'' && inner.back() == '\'') {
        steps.push_back(
            {PathStep::kField, std::string(inner.substr(1, inner.size() - 2))});
      } else {
        if (inner.empty()) return bad(i + 1);
        int64_t n = 0;
        for (char ch : inner) {
          if (ch < '0' || ch > '9' || n > (INT64_MAX - 9) / 10) return bad(i + 1);
          n = n * 10 + (ch - '0');
        }
        steps.push_back({PathStep::kIndex, "", n});
      }
      i = close + 1;
    } else {
      return bad(i);
    }
  }
  return steps;
}

// Writes `v` as Spark's JSON generator does: doubles as Java writes them.
void WriteJsonValue(const rapidjson::Value& v, std::string* out) {
  if (v.IsDouble()) {
    *out += FormatJavaDouble(v.GetDouble());
  } else if (v.IsObject()) {
    *out += '{';
    bool first = true;
    for (const auto& m : v.GetObject()) {
      if (!first) *out += ',';
      first = false;
      rapidjson::StringBuffer key;
      rapidjson::Writer<rapidjson::StringBuffer> w(key);
      m.name.Accept(w);
      out->append(key.GetString(), key.GetSize());
      *out += ':';
      WriteJsonValue(m.value, out);
    }
    *out += '}';
  } else if (v.IsArray()) {
    *out += '[';
    bool first = true;
    for (const auto& e : v.GetArray()) {
      if (!first) *out += ',';
      first = false;
      WriteJsonValue(e, out);
    }
    *out += ']';
  } else {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    v.Accept(w);
    out->append(buf.GetString(), buf.GetSize());
  }
}

// The values `steps` lead to from `root` ([*] fans out).
std::vector<const rapidjson::Value*> Walk(const rapidjson::Value& root,
                                          const std::vector<PathStep>& steps) {
  std::vector<const rapidjson::Value*> at = {&root};
  for (const PathStep& s : steps) {
    std::vector<const rapidjson::Value*> next;
    for (const rapidjson::Value* v : at) {
      if (s.kind == PathStep::kField && v->IsObject()) {
        auto m = v->FindMember(rapidjson::StringRef(s.field.data(), s.field.size()));
        if (m != v->MemberEnd()) next.push_back(&m->value);
      } else if (s.kind == PathStep::kIndex && v->IsArray()) {
        if (s.index < static_cast<int64_t>(v->Size())) {
          next.push_back(&(*v)[static_cast<rapidjson::SizeType>(s.index)]);
        }
      } else if (s.kind == PathStep::kAll && v->IsArray()) {
        for (const auto& e : v->GetArray()) next.push_back(&e);
      }
    }
    at = std::move(next);
  }
  return at;
}

// The value a path without [*] leads to, or null.
const rapidjson::Value* Step(const rapidjson::Value& root,
                             const std::vector<PathStep>& steps) {
  const rapidjson::Value* v = &root;
  for (const PathStep& s : steps) {
    if (s.kind == PathStep::kField && v->IsObject()) {
      auto m = v->FindMember(rapidjson::StringRef(s.field.data(), s.field.size()));
      if (m == v->MemberEnd()) return nullptr;
      v = &m->value;
    } else if (s.kind == PathStep::kIndex && v->IsArray() &&
               s.index < static_cast<int64_t>(v->Size())) {
      v = &(*v)[static_cast<rapidjson::SizeType>(s.index)];
    } else {
      return nullptr;
    }
  }
  return v;
}

Result<Datum> GetJsonObject(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(std::vector<PathStep> steps, ParsePath(c.StrLiteral(1)));
  bool fans_out = false;
  for (const auto& s : steps) fans_out = fans_out || s.kind == PathStep::kAll;
  using SB = arrow::StringBuilder;
  // One document and memory pool for the whole batch, the pool cleared per row. Its
  // first chunk is ours, which Clear keeps: a row's document that fits in it takes no
  // heap allocation.
  std::vector<char> chunk(64 * 1024);
  rapidjson::MemoryPoolAllocator<> pool(chunk.data(), chunk.size());
  rapidjson::CrtAllocator stack;
  rapidjson::Document doc(&pool, 1024, &stack);
  std::vector<const rapidjson::Value*> found;
  std::string out;
  std::string text;  // the row's JSON, NUL-terminated and parsed in place
  auto row = [&](const std::vector<ArgRows>& r, int64_t i, SB& b) -> Status {
    text.assign(r[0].Str(i));
    pool.Clear();
    // Like Spark's parser, the first JSON value is read and what follows is ignored.
    // In place: strings are decoded inside `text` rather than copied out of it (a NUL
    // ends the text, as it may not stand unescaped in JSON).
    doc.ParseInsitu<kParseFlags | rapidjson::kParseStopWhenDoneFlag>(text.data());
    if (doc.HasParseError()) return Appended(b.AppendNull(), c);
    if (fans_out) {
      found = Walk(doc, steps);
    } else {
      found.assign(1, Step(doc, steps));
      if (found[0] == nullptr) found.clear();
    }
    if (found.empty()) return Appended(b.AppendNull(), c);
    out.clear();
    if (fans_out && found.size() > 1) {
      out += '[';
      for (size_t k = 0; k < found.size(); ++k) {
        if (k > 0) out += ',';
        WriteJsonValue(*found[k], &out);
      }
      out += ']';
    } else if (found[0]->IsNull()) {
      return Appended(b.AppendNull(), c);
    } else if (found[0]->IsString()) {
      return Appended(b.Append(found[0]->GetString(), found[0]->GetStringLength()), c);
    } else {
      WriteJsonValue(*found[0], &out);
    }
    return Appended(b.Append(out), c);
  };
  return MapRows<SB>(c, true, row);
}

// ---- to_json ----

void AppendQuoted(std::string_view s, std::string* out) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  out->append(buf.GetString(), buf.GetSize());
}

Status ToJson(const arrow::Array& a, int64_t i, std::string* out) {
  if (a.IsNull(i)) {
    *out += "null";
    return OkStatus();
  }
  switch (a.type_id()) {
    case arrow::Type::BOOL:
      *out += static_cast<const arrow::BooleanArray&>(a).Value(i) ? "true" : "false";
      return OkStatus();
    case arrow::Type::INT8:
      *out += std::to_string(static_cast<const arrow::Int8Array&>(a).Value(i));
      return OkStatus();
    case arrow::Type::INT16:
      *out += std::to_string(static_cast<const arrow::Int16Array&>(a).Value(i));
      return OkStatus();
    case arrow::Type::INT32:
      *out += std::to_string(static_cast<const arrow::Int32Array&>(a).Value(i));
      return OkStatus();
    case arrow::Type::INT64:
      *out += std::to_string(static_cast<const arrow::Int64Array&>(a).Value(i));
      return OkStatus();
    case arrow::Type::FLOAT:
      *out += FormatJavaFloat(static_cast<const arrow::FloatArray&>(a).Value(i));
      return OkStatus();
    case arrow::Type::DOUBLE:
      *out += FormatJavaDouble(static_cast<const arrow::DoubleArray&>(a).Value(i));
      return OkStatus();
    case arrow::Type::DECIMAL128:
      *out += static_cast<const arrow::Decimal128Array&>(a).FormatValue(i);
      return OkStatus();
    case arrow::Type::STRING:
      AppendQuoted(static_cast<const arrow::StringArray&>(a).GetView(i), out);
      return OkStatus();
    case arrow::Type::DATE32: {
      const int64_t days = static_cast<const arrow::Date32Array&>(a).Value(i);
      DELTA_ASSIGN_OR_RETURN(std::string d,
                             FormatWithPattern(days * kMicrosPerDay, "yyyy-MM-dd"));
      AppendQuoted(d, out);
      return OkStatus();
    }
    case arrow::Type::TIMESTAMP: {
      const int64_t t = static_cast<const arrow::TimestampArray&>(a).Value(i);
      DELTA_ASSIGN_OR_RETURN(std::string d,
                             FormatWithPattern(t, "yyyy-MM-dd'T'HH:mm:ss.SSSXXX"));
      AppendQuoted(d, out);
      return OkStatus();
    }
    case arrow::Type::STRUCT: {
      const auto& s = static_cast<const arrow::StructArray&>(a);
      *out += '{';
      bool first = true;
      for (int f = 0; f < s.num_fields(); ++f) {
        const auto& child = *s.field(f);
        if (child.IsNull(i)) continue;  // Spark's ignoreNullFields
        if (!first) *out += ',';
        first = false;
        AppendQuoted(s.struct_type()->field(f)->name(), out);
        *out += ':';
        DELTA_RETURN_IF_ERROR(ToJson(child, i, out));
      }
      *out += '}';
      return OkStatus();
    }
    case arrow::Type::LIST: {
      const auto& l = static_cast<const arrow::ListArray&>(a);
      *out += '[';
      for (int64_t k = l.value_offset(i); k < l.value_offset(i + 1); ++k) {
        if (k > l.value_offset(i)) *out += ',';
        DELTA_RETURN_IF_ERROR(ToJson(*l.values(), k, out));
      }
      *out += ']';
      return OkStatus();
    }
    case arrow::Type::MAP: {
      const auto& m = static_cast<const arrow::MapArray&>(a);
      *out += '{';
      for (int64_t k = m.value_offset(i); k < m.value_offset(i + 1); ++k) {
        if (k > m.value_offset(i)) *out += ',';
        std::string key;
        DELTA_RETURN_IF_ERROR(ToJson(*m.keys(), k, &key));
        if (key.empty() || key[0] != '"') key = "\"" + key + "\"";
        *out += key + ':';
        DELTA_RETURN_IF_ERROR(ToJson(*m.items(), k, out));
      }
      *out += '}';
      return OkStatus();
    }
    default:
      return MakeError(ErrorCode::kUnsupportedFeature,
                       "to_json(): values of type {} are not supported yet",
                       a.type()->ToString());
  }
}

Result<Datum> ToJsonKernel(const LibraryCall& c) {
  using SB = arrow::StringBuilder;
  DELTA_ASSIGN_OR_RETURN(auto values, ArgArray(c, c.args[0], 1));
  return MapRows<SB>(
      c, true, [&](const std::vector<ArgRows>&, int64_t i, SB& b) -> Status {
        std::string out;
        DELTA_RETURN_IF_ERROR(ToJson(*values, c.args[0].is_array() ? i : 0, &out));
        return Appended(b.Append(out), c);
      });
}

// ---- from_json ----

Status AppendJson(const rapidjson::Value* v, const DataType& type,
                  arrow::ArrayBuilder* b);

Status AppendOk(const arrow::Status& st) {
  if (st.ok()) return OkStatus();
  return MakeError(ErrorCode::kInternal, "from_json(): {}", st.ToString());
}

// A struct from an object (fields by exact name); `v` not an object: a NULL struct,
// or at the top a struct of NULLs (`top`), as Spark's PERMISSIVE mode.
Status AppendStruct(const rapidjson::Value* v, const StructType& type,
                    arrow::StructBuilder* b, bool top) {
  const bool object = v != nullptr && v->IsObject();
  if (!object && !top) return AppendOk(b->AppendNull());
  DELTA_RETURN_IF_ERROR(AppendOk(b->Append()));
  for (size_t f = 0; f < type.num_fields(); ++f) {
    const StructField& field = type.field(f);
    const rapidjson::Value* child = nullptr;
    if (object) {
      auto m = v->FindMember(rapidjson::StringRef(field.name.data(), field.name.size()));
      if (m != v->MemberEnd()) child = &m->value;
    }
    DELTA_RETURN_IF_ERROR(
        AppendJson(child, *field.type, b->field_builder(static_cast<int>(f))));
  }
  return OkStatus();
}

template <typename Builder, typename T>
Status AppendIntegral(const rapidjson::Value& v, arrow::ArrayBuilder* b) {
  auto* tb = static_cast<Builder*>(b);
  if (!v.IsInt64()) return AppendOk(tb->AppendNull());
  const int64_t x = v.GetInt64();
  if (x < std::numeric_limits<T>::min() || x > std::numeric_limits<T>::max()) {
    return AppendOk(tb->AppendNull());
  }
  return AppendOk(tb->Append(static_cast<T>(x)));
}

Status AppendJson(const rapidjson::Value* v, const DataType& type,
                  arrow::ArrayBuilder* b) {
  if (v == nullptr || v->IsNull()) return AppendOk(b->AppendNull());
  switch (type.kind()) {
    case TypeKind::kByte:
      return AppendIntegral<arrow::Int8Builder, int8_t>(*v, b);
    case TypeKind::kShort:
      return AppendIntegral<arrow::Int16Builder, int16_t>(*v, b);
    case TypeKind::kInteger:
      return AppendIntegral<arrow::Int32Builder, int32_t>(*v, b);
    case TypeKind::kLong:
      return AppendIntegral<arrow::Int64Builder, int64_t>(*v, b);
    case TypeKind::kFloat:
    case TypeKind::kDouble: {
      if (!v->IsNumber()) return AppendOk(b->AppendNull());
      if (type.kind() == TypeKind::kFloat) {
        return AppendOk(static_cast<arrow::FloatBuilder*>(b)->Append(
            static_cast<float>(v->GetDouble())));
      }
      return AppendOk(static_cast<arrow::DoubleBuilder*>(b)->Append(v->GetDouble()));
    }
    case TypeKind::kDecimal: {
      const auto& d = static_cast<const DecimalType&>(type);
      if (!v->IsNumber()) return AppendOk(b->AppendNull());
      auto dec = arrow::Decimal128::FromReal(v->GetDouble(), d.precision(), d.scale());
      if (!dec.ok()) return AppendOk(b->AppendNull());
      return AppendOk(static_cast<arrow::Decimal128Builder*>(b)->Append(*dec));
    }
    case TypeKind::kBoolean:
      if (!v->IsBool()) return AppendOk(b->AppendNull());
      return AppendOk(static_cast<arrow::BooleanBuilder*>(b)->Append(v->GetBool()));
    case TypeKind::kString: {
      auto* sb = static_cast<arrow::StringBuilder*>(b);
      if (v->IsString())
        return AppendOk(sb->Append(v->GetString(), v->GetStringLength()));
      std::string text;
      WriteJsonValue(*v, &text);
      return AppendOk(sb->Append(text));
    }
    case TypeKind::kDate:
    case TypeKind::kTimestamp: {
      if (!v->IsString()) return AppendOk(b->AppendNull());
      auto lit = CoerceStringLiteral(v->GetString(), type);
      if (!lit) return AppendOk(b->AppendNull());
      const int64_t x = std::get<int64_t>(lit->value);
      if (type.kind() == TypeKind::kDate) {
        return AppendOk(
            static_cast<arrow::Date32Builder*>(b)->Append(static_cast<int32_t>(x)));
      }
      return AppendOk(static_cast<arrow::TimestampBuilder*>(b)->Append(x));
    }
    case TypeKind::kStruct:
      return AppendStruct(v, static_cast<const StructType&>(type),
                          static_cast<arrow::StructBuilder*>(b), false);
    case TypeKind::kArray: {
      auto* lb = static_cast<arrow::ListBuilder*>(b);
      if (!v->IsArray()) return AppendOk(lb->AppendNull());
      DELTA_RETURN_IF_ERROR(AppendOk(lb->Append()));
      const auto& element = *static_cast<const ArrayType&>(type).element_type();
      for (const auto& e : v->GetArray()) {
        DELTA_RETURN_IF_ERROR(AppendJson(&e, element, lb->value_builder()));
      }
      return OkStatus();
    }
    default:
      return MakeError(ErrorCode::kUnsupportedFeature,
                       "from_json(): fields of type {} are not supported yet",
                       type.ToString());
  }
}

Result<Datum> FromJson(const LibraryCall& c) {
  const auto& schema = static_cast<const StructType&>(*c.e.type);
  return MapRows<arrow::StructBuilder>(
      c, true,
      [&](const std::vector<ArgRows>& r, int64_t i, arrow::StructBuilder& b) -> Status {
        std::string_view text = r[0].Str(i);
        // Blank text is NULL; other text that is not an object, a struct of NULLs.
        if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
          return AppendOk(b.AppendNull());
        }
        rapidjson::Document doc;
        doc.Parse<kParseFlags>(text.data(), text.size());
        return AppendStruct(doc.HasParseError() ? nullptr : &doc, schema, &b, true);
      });
}

// ---- struct constructors ----

Result<Datum> MakeStruct(const LibraryCall& c) {
  DELTA_ASSIGN_OR_RETURN(auto type, ArrowTypeOf(*c.e.type));
  const int64_t n = c.all_scalar() ? 1 : c.length;
  std::vector<std::shared_ptr<arrow::Array>> children;
  for (const auto& d : c.args) {
    DELTA_ASSIGN_OR_RETURN(auto a, ArgArray(c, d, n));
    children.push_back(std::move(a));
  }
  auto out = arrow::StructArray::Make(children, type->fields());
  if (!out.ok()) return EvalError(out.status(), c.e.name, *c.e.type);
  return Shaped(c, *out);
}

}  // namespace

std::vector<KernelEntry> JsonKernels() {
  return {
      {"get_json_object", GetJsonObject},
      {"to_json", ToJsonKernel},
      {"from_json", FromJson},
      {"named_struct", MakeStruct},
      {"struct", MakeStruct},
  };
}

}  // namespace deltaguard::internal
