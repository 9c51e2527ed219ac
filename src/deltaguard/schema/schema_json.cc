#include "deltaguard/schema/schema_json.h"

#include "deltaguard/schema/column_path.h"
#include "deltaguard/schema/json_tree_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

using internal::JsonNode;

// Paths in messages follow Spark's naming of nested positions: `a.b`, `a.element`,
// `a.key`, `a.value`. The root type has the empty path.
std::string Where(const std::string& path) {
  return path.empty() ? "the schema root" : fmt::format("field '{}'", path);
}

// "an object", "a string": the JSON kind with its article, for messages.
std::string Article(std::string_view kind) {
  bool vowel =
      !kind.empty() && std::string_view("aeiou").find(kind[0]) != std::string_view::npos;
  return fmt::format("{} {}", vowel ? "an" : "a", kind);
}

// A member that must be present with a given JSON kind.
Result<const JsonNode*> Require(const JsonNode& obj, std::string_view key,
                                JsonNode::Kind kind, std::string_view what,
                                const std::string& path) {
  const JsonNode* v = obj.Find(key);
  if (v == nullptr) {
    return MakeError(ErrorCode::kParseError, "{}: the {} object has no \"{}\"",
                     Where(path), what, key);
  }
  if (v->kind != kind) {
    JsonNode expected;
    expected.kind = kind;
    return MakeError(ErrorCode::kParseError, "{}: \"{}\" of the {} must be {}, got {}",
                     Where(path), key, what, Article(expected.KindName()),
                     Article(v->KindName()));
  }
  return v;
}

Result<DataTypeRef> TypeFromNode(const JsonNode& node, std::string_view src,
                                 const std::string& path);

Result<StructField> FieldFromNode(const JsonNode& node, std::string_view src,
                                  const std::string& parent, size_t index) {
  if (node.kind != JsonNode::Kind::kObject) {
    return MakeError(ErrorCode::kParseError,
                     "{}: struct field #{} must be a JSON object, got {}", Where(parent),
                     index, Article(node.KindName()));
  }
  const JsonNode* name = node.Find("name");
  if (name == nullptr || name->kind != JsonNode::Kind::kString) {
    return MakeError(ErrorCode::kParseError,
                     "{}: struct field #{} has no string \"name\"", Where(parent), index);
  }
  StructField field;
  field.name = name->text;
  std::string path = ChildColumnPath(parent, field.name);
  const JsonNode* type = node.Find("type");
  if (type == nullptr) {
    return MakeError(ErrorCode::kParseError,
                     "{}: the struct field object has no \"type\"", Where(path));
  }
  DELTA_ASSIGN_OR_RETURN(field.type, TypeFromNode(*type, src, path));
  DELTA_ASSIGN_OR_RETURN(
      const JsonNode* nullable,
      Require(node, "nullable", JsonNode::Kind::kBool, "struct field", path));
  field.nullable = nullable->bool_value;
  // Spark omits nothing here, but older writers may: a missing "metadata" is empty.
  if (const JsonNode* md = node.Find("metadata")) {
    if (md->kind != JsonNode::Kind::kObject) {
      return MakeError(ErrorCode::kParseError,
                       "{}: \"metadata\" of the struct field must be an object, got {}",
                       Where(path), Article(md->KindName()));
    }
    std::vector<FieldMetadata::Entry> entries;
    entries.reserve(md->keys.size());
    for (size_t i = 0; i < md->keys.size(); ++i) {
      const JsonNode& v = md->children[i];
      entries.emplace_back(md->keys[i],
                           std::string(src.substr(v.begin, v.end - v.begin)));
    }
    field.metadata = FieldMetadata(std::move(entries));
  }
  return field;
}

Result<DataTypeRef> StructFromNode(const JsonNode& node, std::string_view src,
                                   const std::string& path) {
  DELTA_ASSIGN_OR_RETURN(
      const JsonNode* fields,
      Require(node, "fields", JsonNode::Kind::kArray, "struct type", path));
  std::vector<StructField> out;
  out.reserve(fields->children.size());
  for (size_t i = 0; i < fields->children.size(); ++i) {
    DELTA_ASSIGN_OR_RETURN(StructField f,
                           FieldFromNode(fields->children[i], src, path, i));
    out.push_back(std::move(f));
  }
  if (auto dup = FindDuplicateFieldName(out)) {
    return MakeError(ErrorCode::kParseError,
                     "duplicate field name '{}' in {}: conflicts case-insensitively with "
                     "'{}' (Delta column names are case-insensitive)",
                     out[dup->second].name,
                     path.empty() ? "the top-level struct" : "struct '" + path + "'",
                     out[dup->first].name);
  }
  return std::make_shared<StructType>(std::move(out));
}

Result<DataTypeRef> TypeFromNode(const JsonNode& node, std::string_view src,
                                 const std::string& path) {
  if (node.kind == JsonNode::Kind::kString) {
    auto type = DataType::FromTypeName(node.text);
    if (!type) {
      if (path.empty()) return type.error();
      return WithContext(type.error(), Where(path));
    }
    return type;
  }
  if (node.kind != JsonNode::Kind::kObject) {
    return MakeError(ErrorCode::kParseError,
                     "{}: a data type must be a string or an object, got {}", Where(path),
                     Article(node.KindName()));
  }
  DELTA_ASSIGN_OR_RETURN(
      const JsonNode* kind,
      Require(node, "type", JsonNode::Kind::kString, "data type", path));
  if (kind->text == "struct") return StructFromNode(node, src, path);
  if (kind->text == "array") {
    const JsonNode* element = node.Find("elementType");
    if (element == nullptr) {
      return MakeError(ErrorCode::kParseError,
                       "{}: the array type object has no \"elementType\"", Where(path));
    }
    DELTA_ASSIGN_OR_RETURN(DataTypeRef element_type,
                           TypeFromNode(*element, src, ChildColumnPath(path, "element")));
    DELTA_ASSIGN_OR_RETURN(
        const JsonNode* contains_null,
        Require(node, "containsNull", JsonNode::Kind::kBool, "array type", path));
    return std::make_shared<ArrayType>(std::move(element_type),
                                       contains_null->bool_value);
  }
  if (kind->text == "map") {
    const JsonNode* key = node.Find("keyType");
    const JsonNode* value = node.Find("valueType");
    if (key == nullptr || value == nullptr) {
      return MakeError(ErrorCode::kParseError, "{}: the map type object has no \"{}\"",
                       Where(path), key == nullptr ? "keyType" : "valueType");
    }
    DELTA_ASSIGN_OR_RETURN(DataTypeRef key_type,
                           TypeFromNode(*key, src, ChildColumnPath(path, "key")));
    DELTA_ASSIGN_OR_RETURN(DataTypeRef value_type,
                           TypeFromNode(*value, src, ChildColumnPath(path, "value")));
    DELTA_ASSIGN_OR_RETURN(
        const JsonNode* value_contains_null,
        Require(node, "valueContainsNull", JsonNode::Kind::kBool, "map type", path));
    return std::make_shared<MapType>(std::move(key_type), std::move(value_type),
                                     value_contains_null->bool_value);
  }
  return MakeError(ErrorCode::kParseError,
                   "{}: unknown data type '{}' (a type object must be \"struct\", "
                   "\"array\" or \"map\")",
                   Where(path), kind->text);
}

// ---------------------------------------------------------------------------------------
// Serialization: Spark's compact form, keys in Spark's order.

void AppendType(std::string* out, const DataType& type);

void AppendField(std::string* out, const StructField& f) {
  out->append("{\"name\":");
  AppendJsonString(out, f.name);
  out->append(",\"type\":");
  AppendType(out, *f.type);
  out->append(f.nullable ? ",\"nullable\":true" : ",\"nullable\":false");
  out->append(",\"metadata\":{");
  bool first = true;
  for (const auto& [key, raw] : f.metadata.entries()) {
    if (!first) out->push_back(',');
    first = false;
    AppendJsonString(out, key);
    out->push_back(':');
    out->append(raw);
  }
  out->append("}}");
}

void AppendType(std::string* out, const DataType& type) {
  switch (type.kind()) {
    case TypeKind::kStruct: {
      const auto& st = static_cast<const StructType&>(type);
      out->append("{\"type\":\"struct\",\"fields\":[");
      for (size_t i = 0; i < st.num_fields(); ++i) {
        if (i > 0) out->push_back(',');
        AppendField(out, st.field(i));
      }
      out->append("]}");
      return;
    }
    case TypeKind::kArray: {
      const auto& arr = static_cast<const ArrayType&>(type);
      out->append("{\"type\":\"array\",\"elementType\":");
      AppendType(out, *arr.element_type());
      out->append(arr.contains_null() ? ",\"containsNull\":true}"
                                      : ",\"containsNull\":false}");
      return;
    }
    case TypeKind::kMap: {
      const auto& map = static_cast<const MapType&>(type);
      out->append("{\"type\":\"map\",\"keyType\":");
      AppendType(out, *map.key_type());
      out->append(",\"valueType\":");
      AppendType(out, *map.value_type());
      out->append(map.value_contains_null() ? ",\"valueContainsNull\":true}"
                                            : ",\"valueContainsNull\":false}");
      return;
    }
    default:
      AppendJsonString(out, type.TypeName());
  }
}

}  // namespace

Result<SchemaRef> ParseSchemaJson(std::string_view json) {
  auto tree = internal::ParseJsonTree(json);
  if (!tree) return WithContext(tree.error(), "schema JSON");
  if (tree->kind != JsonNode::Kind::kObject) {
    return MakeError(ErrorCode::kParseError,
                     "schema JSON must be a struct type object, got {}",
                     Article(tree->KindName()));
  }
  const JsonNode* kind = tree->Find("type");
  if (kind == nullptr || kind->kind != JsonNode::Kind::kString ||
      kind->text != "struct") {
    return MakeError(
        ErrorCode::kParseError,
        "schema JSON must be a struct type: expected \"type\":\"struct\" at the "
        "root");
  }
  DELTA_ASSIGN_OR_RETURN(DataTypeRef type, TypeFromNode(*tree, json, ""));
  return std::static_pointer_cast<const StructType>(std::move(type));
}

Result<DataTypeRef> ParseDataTypeJson(std::string_view json) {
  std::string_view trimmed = Trim(json);
  // Convenience: a bare primitive name ("long", not "\"long\"") is accepted too.
  if (!trimmed.empty() && trimmed.front() != '"' && trimmed.front() != '{') {
    return DataType::FromTypeName(trimmed);
  }
  auto tree = internal::ParseJsonTree(json);
  if (!tree) return WithContext(tree.error(), "data type JSON");
  return TypeFromNode(*tree, json, "");
}

std::string SchemaToJson(const StructType& schema) { return DataTypeToJson(schema); }

std::string DataTypeToJson(const DataType& type) {
  std::string out;
  AppendType(&out, type);
  return out;
}

}  // namespace deltaguard
