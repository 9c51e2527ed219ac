// JSON records as flat tokens (ingest/json_tokens.h), parsed with RapidJSON's SAX
// reader in place: iterative (no stack per nesting level) and without a DOM.

#include "deltaguard/ingest/json_tokens.h"

#include <fmt/format.h>
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include "deltaguard/util/string_util.h"

namespace deltaguard {

class JsonRecordHandler
    : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, JsonRecordHandler> {
 public:
  JsonRecordHandler(JsonRecord* record, int depth_limit)
      : r_(record), depth_limit_(depth_limit) {}

  bool Null() { return Leaf(JsonTokenKind::kNull, {}); }
  bool Bool(bool b) {
    if (!Leaf(JsonTokenKind::kBool, {})) return false;
    r_->tokens_.back().boolean = b;
    return true;
  }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    return Leaf(JsonTokenKind::kNumber, std::string_view(s, n));
  }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    return Leaf(JsonTokenKind::kString, std::string_view(s, n));
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    key_ = std::string_view(s, n);
    return true;
  }
  bool StartObject() { return Open(JsonTokenKind::kObject); }
  bool StartArray() { return Open(JsonTokenKind::kArray); }
  bool EndObject(rapidjson::SizeType n) { return Close(n); }
  bool EndArray(rapidjson::SizeType n) { return Close(n); }

  bool not_object = false;
  bool too_deep = false;

 private:
  bool Leaf(JsonTokenKind kind, std::string_view text) {
    if (r_->tokens_.empty()) {
      not_object = true;
      return false;
    }
    JsonToken t;
    t.kind = kind;
    t.text = text;
    t.key = key_;
    key_ = {};
    t.end = static_cast<uint32_t>(r_->tokens_.size() + 1);
    r_->tokens_.push_back(t);
    return true;
  }
  bool Open(JsonTokenKind kind) {
    if (r_->tokens_.empty() && kind != JsonTokenKind::kObject) {
      not_object = true;
      return false;
    }
    if (static_cast<int>(r_->open_.size()) >= depth_limit_) {
      too_deep = true;
      return false;
    }
    JsonToken t;
    t.kind = kind;
    t.key = key_;
    key_ = {};
    r_->open_.push_back(static_cast<uint32_t>(r_->tokens_.size()));
    r_->tokens_.push_back(t);
    return true;
  }
  bool Close(rapidjson::SizeType n) {
    JsonToken& t = r_->tokens_[r_->open_.back()];
    r_->open_.pop_back();
    t.end = static_cast<uint32_t>(r_->tokens_.size());
    t.count = n;
    return true;
  }

  JsonRecord* r_;
  int depth_limit_;
  std::string_view key_;
};

std::optional<JsonRecordProblem> JsonRecord::Parse(std::string* text, int depth_limit) {
  tokens_.clear();
  open_.clear();
  text->push_back('\0');  // the in-situ stream reads up to a terminator
  constexpr unsigned kFlags =
      rapidjson::kParseIterativeFlag | rapidjson::kParseStopWhenDoneFlag |
      rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseNanAndInfFlag |
      rapidjson::kParseInsituFlag;
  rapidjson::InsituStringStream stream(text->data());
  JsonRecordHandler handler(this, depth_limit);
  // One reader per thread: a reader allocates its stack when constructed, and keeps
  // it between records (Parse clears it on exit).
  thread_local rapidjson::Reader reader;
  rapidjson::ParseResult parsed = reader.Parse<kFlags>(stream, handler);
  const size_t consumed = stream.Tell();
  text->pop_back();
  if (handler.not_object) {
    return JsonRecordProblem{1, "a JSON record must be an object"};
  }
  if (handler.too_deep) {
    return JsonRecordProblem{
        static_cast<int64_t>(parsed.Offset()) + 1,
        fmt::format("objects and arrays nest deeper than {} levels", depth_limit)};
  }
  if (parsed.IsError()) {
    return JsonRecordProblem{
        static_cast<int64_t>(parsed.Offset()) + 1,
        fmt::format("invalid JSON: {}", rapidjson::GetParseError_En(parsed.Code()))};
  }
  for (size_t i = consumed; i < text->size(); ++i) {
    if (!IsAsciiSpace((*text)[i])) {
      return JsonRecordProblem{static_cast<int64_t>(i) + 1,
                               "a second JSON value follows the record"};
    }
  }
  return std::nullopt;
}

std::optional<JsonRecordProblem> JsonRecord::ParseDocument(
    std::string* text, int depth_limit, std::vector<uint32_t>* elements) {
  elements->clear();
  const std::string_view trimmed = Trim(*text);
  if (trimmed.empty() || trimmed.front() != '[') {
    auto problem = Parse(text, depth_limit);
    if (!problem) elements->push_back(0);
    return problem;
  }
  // An array: parsed as the member of an object, so the record rules hold.
  std::string wrapped = "{\"r\":" + *text + "}";
  auto problem = Parse(&wrapped, depth_limit + 1);
  if (problem) return problem;
  *text = std::move(wrapped);  // the tokens point into it
  for (uint32_t c = 2; c < tokens_[1].end; c = tokens_[c].end) elements->push_back(c);
  return std::nullopt;
}

void JsonRecord::AppendJson(uint32_t index, std::string* out) const {
  const JsonToken& t = tokens_[index];
  switch (t.kind) {
    case JsonTokenKind::kNull:
      *out += "null";
      return;
    case JsonTokenKind::kBool:
      *out += t.boolean ? "true" : "false";
      return;
    case JsonTokenKind::kNumber:
      *out += t.text;
      return;
    case JsonTokenKind::kString:
      AppendJsonString(out, t.text);
      return;
    case JsonTokenKind::kObject:
    case JsonTokenKind::kArray: {
      const bool object = t.kind == JsonTokenKind::kObject;
      out->push_back(object ? '{' : '[');
      bool first = true;
      for (uint32_t c = index + 1; c < t.end; c = tokens_[c].end) {
        if (!first) out->push_back(',');
        first = false;
        if (object) {
          AppendJsonString(out, tokens_[c].key);
          out->push_back(':');
        }
        AppendJson(c, out);
      }
      out->push_back(object ? '}' : ']');
      return;
    }
  }
}

}  // namespace deltaguard
