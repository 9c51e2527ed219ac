#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <algorithm>

#include "deltaguard/schema/json_tree_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard::internal {

const JsonNode* JsonNode::Find(std::string_view key) const {
  if (kind != Kind::kObject) return nullptr;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == key) return &children[i];
  }
  return nullptr;
}

std::string_view JsonNode::KindName() const {
  switch (kind) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return "boolean";
    case Kind::kNumber:
      return "number";
    case Kind::kString:
      return "string";
    case Kind::kObject:
      return "object";
    case Kind::kArray:
      return "array";
  }
  return "value";
}

namespace {

// SAX handler building a JsonNode tree. It finds each value's span from the source text
// rather than from the stream position: RapidJSON reports some events before and some
// after consuming the token, and numbers are parsed on a local copy of the stream. The
// source is known to be valid JSON up to the current event, so scanning it is safe.
class TreeBuilder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, TreeBuilder> {
 public:
  explicit TreeBuilder(std::string_view src) : src_(src) {}

  bool Null() { return Scalar(JsonNode::Kind::kNull, 4); }
  bool Bool(bool b) {
    JsonNode* n = Open(JsonNode::Kind::kBool);
    n->bool_value = b;
    return Close(n, n->begin + (b ? 4 : 5));
  }
  bool RawNumber(const char* str, rapidjson::SizeType len, bool /*copy*/) {
    JsonNode* n = Open(JsonNode::Kind::kNumber);
    n->text.assign(str, len);
    return Close(n, n->begin + len);
  }
  bool String(const char* str, rapidjson::SizeType len, bool /*copy*/) {
    JsonNode* n = Open(JsonNode::Kind::kString);
    n->text.assign(str, len);
    return CheckDecoded(n->text, n->begin) && Close(n, StringEnd(n->begin));
  }
  bool Key(const char* str, rapidjson::SizeType len, bool /*copy*/) {
    pending_key_.assign(str, len);
    size_t begin = SkipSeparators(last_end_);
    last_end_ = StringEnd(begin);
    return CheckDecoded(pending_key_, begin);
  }
  bool StartObject() { return StartContainer(JsonNode::Kind::kObject); }
  bool StartArray() { return StartContainer(JsonNode::Kind::kArray); }
  bool EndObject(rapidjson::SizeType) { return EndContainer(); }
  bool EndArray(rapidjson::SizeType) { return EndContainer(); }

  JsonNode TakeRoot() { return std::move(root_); }
  const std::string& failure() const { return failure_; }

 private:
  size_t SkipSeparators(size_t pos) const {
    while (pos < src_.size()) {
      char c = src_[pos];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != ',' && c != ':') break;
      ++pos;
    }
    return pos;
  }

  // `begin` is at the opening quote; return one past the closing quote.
  size_t StringEnd(size_t begin) const {
    size_t i = begin + 1;
    while (i < src_.size() && src_[i] != '"') i += (src_[i] == '\\') ? 2 : 1;
    return std::min(i + 1, src_.size());
  }

  // Attach a new value under the open container (or as the root) and set its begin.
  JsonNode* Open(JsonNode::Kind kind) {
    JsonNode* node = &root_;
    if (!stack_.empty()) {
      JsonNode* parent = stack_.back();
      if (parent->kind == JsonNode::Kind::kObject) parent->keys.push_back(pending_key_);
      // Only the innermost open container grows, so pointers held on stack_ (each the
      // last child of its parent) stay valid.
      parent->children.emplace_back();
      node = &parent->children.back();
    }
    node->kind = kind;
    node->begin = SkipSeparators(last_end_);
    return node;
  }

  bool Close(JsonNode* node, size_t end) {
    node->end = end;
    last_end_ = end;
    return true;
  }

  bool Scalar(JsonNode::Kind kind, size_t length) {
    JsonNode* n = Open(kind);
    return Close(n, n->begin + length);
  }

  bool StartContainer(JsonNode::Kind kind) {
    if (stack_.size() >= static_cast<size_t>(kMaxJsonDepth)) {
      failure_ = fmt::format("JSON nests deeper than {} levels", kMaxJsonDepth);
      return false;
    }
    JsonNode* n = Open(kind);
    stack_.push_back(n);
    last_end_ = n->begin + 1;
    return true;
  }

  bool EndContainer() {
    JsonNode* n = stack_.back();
    stack_.pop_back();
    size_t pos = last_end_;
    while (pos < src_.size() && src_[pos] != '}' && src_[pos] != ']') ++pos;
    Close(n, std::min(pos + 1, src_.size()));
    if (n->kind == JsonNode::Kind::kObject) return CheckUniqueKeys(*n);
    return true;
  }

  // RapidJSON 1.1 validates raw bytes but decodes a lone surrogate escape ("\uDDDD")
  // into invalid UTF-8; such a string could not be written back, so reject it.
  bool CheckDecoded(const std::string& text, size_t begin) {
    if (IsValidUtf8(text)) return true;
    failure_ = fmt::format(
        "invalid JSON at offset {}: string escapes a lone UTF-16 surrogate", begin);
    return false;
  }

  bool CheckUniqueKeys(const JsonNode& obj) {
    if (obj.keys.size() < 2) return true;
    std::vector<std::string_view> sorted(obj.keys.begin(), obj.keys.end());
    std::sort(sorted.begin(), sorted.end());
    auto dup = std::adjacent_find(sorted.begin(), sorted.end());
    if (dup == sorted.end()) return true;
    failure_ = fmt::format("duplicate key '{}' in the JSON object at offset {}", *dup,
                           obj.begin);
    return false;
  }

  std::string_view src_;
  JsonNode root_;
  std::vector<JsonNode*> stack_;
  std::string pending_key_;
  size_t last_end_ = 0;
  std::string failure_;
};

}  // namespace

Result<JsonNode> ParseJsonTree(std::string_view json) {
  TreeBuilder builder(json);
  rapidjson::Reader reader;
  rapidjson::MemoryStream ms(json.data(), json.size());
  constexpr unsigned kFlags = rapidjson::kParseIterativeFlag |
                              rapidjson::kParseNumbersAsStringsFlag |
                              rapidjson::kParseValidateEncodingFlag;
  rapidjson::ParseResult ok = reader.Parse<kFlags>(ms, builder);
  if (!ok) {
    if (!builder.failure().empty()) {
      return MakeError(ErrorCode::kParseError, "{}", builder.failure());
    }
    return MakeError(ErrorCode::kParseError, "invalid JSON at offset {}: {}", ok.Offset(),
                     rapidjson::GetParseError_En(ok.Code()));
  }
  JsonNode root = builder.TakeRoot();
  // MemoryStream reports a NUL byte as the end of input, so RapidJSON accepts "{}\0x";
  // anything but whitespace after the root value is an error.
  for (size_t i = root.end; i < json.size(); ++i) {
    char c = json[i];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      return MakeError(ErrorCode::kParseError,
                       "invalid JSON at offset {}: unexpected content after the value",
                       i);
    }
  }
  return root;
}

}  // namespace deltaguard::internal
