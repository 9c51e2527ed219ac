#include "deltaguard/log/json_internal.h"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "deltaguard/util/depth_guard.h"

namespace deltaguard::internal {

ReusableJsonDocument::ReusableJsonDocument()
    : buffer_(new char[kBufferSize]),
      pool_(buffer_.get(), kBufferSize),
      doc_(&pool_, 1024, &stack_allocator_) {}

Result<const JsonValue*> ReusableJsonDocument::Parse(std::string_view text) {
  // The previous DOM lives in pool_; drop it before reusing the memory. SetNull() first
  // so the document never points into freed chunks.
  doc_.SetNull();
  pool_.Clear();
  JsonDepthScan scan = JsonNestingDepth(text, kMaxJsonDepth);
  if (scan.exceeded_at != std::string_view::npos) {
    return MakeError(ErrorCode::kCorruptLog,
                     "invalid JSON: objects and arrays nest deeper than {} levels at "
                     "offset {}",
                     kMaxJsonDepth, scan.exceeded_at);
  }
  doc_.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
  if (doc_.HasParseError()) {
    return MakeError(ErrorCode::kCorruptLog, "{}", LastError());
  }
  return static_cast<const JsonValue*>(&doc_);
}

std::string ReusableJsonDocument::LastError() const {
  return fmt::format("invalid JSON: {} at offset {}",
                     rapidjson::GetParseError_En(doc_.GetParseError()),
                     doc_.GetErrorOffset());
}

ReusableJsonDocument& ThreadJsonDocument() {
  thread_local ReusableJsonDocument doc;
  return doc;
}

Error JsonContext::Located(std::string_view message) const {
  if (line_ > 0) {
    return MakeError(ErrorCode::kCorruptLog, "corrupt log file '{}' line {}: {}", where_,
                     line_, message);
  }
  return MakeError(ErrorCode::kCorruptLog, "corrupt log file '{}': {}", where_, message);
}

std::string_view JsonTypeName(const JsonValue& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "boolean";
    case rapidjson::kObjectType:
      return "object";
    case rapidjson::kArrayType:
      return "array";
    case rapidjson::kStringType:
      return "string";
    case rapidjson::kNumberType:
      return "number";
  }
  return "unknown";
}

std::string JsonToString(const JsonValue& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

Status ReadString(const JsonContext& ctx, std::string_view what, const JsonValue& v,
                  std::string* out) {
  if (!v.IsString()) {
    return ctx.Fail("{} must be a string, found {}", what, JsonTypeName(v));
  }
  out->assign(v.GetString(), v.GetStringLength());
  return OkStatus();
}

Status ReadOptString(const JsonContext& ctx, std::string_view what, const JsonValue& v,
                     std::optional<std::string>* out) {
  if (v.IsNull()) {
    out->reset();
    return OkStatus();
  }
  if (!v.IsString()) {
    return ctx.Fail("{} must be a string, found {}", what, JsonTypeName(v));
  }
  out->emplace(v.GetString(), v.GetStringLength());
  return OkStatus();
}

Status ReadInt64(const JsonContext& ctx, std::string_view what, const JsonValue& v,
                 int64_t* out) {
  if (!v.IsInt64()) {
    return ctx.Fail("{} must be a 64-bit integer, found {}", what,
                    v.IsNumber() ? JsonToString(v) : std::string(JsonTypeName(v)));
  }
  *out = v.GetInt64();
  return OkStatus();
}

Status ReadOptInt64(const JsonContext& ctx, std::string_view what, const JsonValue& v,
                    std::optional<int64_t>* out) {
  if (v.IsNull()) {
    out->reset();
    return OkStatus();
  }
  int64_t x = 0;
  DELTA_RETURN_IF_ERROR(ReadInt64(ctx, what, v, &x));
  *out = x;
  return OkStatus();
}

Status ReadInt32(const JsonContext& ctx, std::string_view what, const JsonValue& v,
                 int32_t* out) {
  if (!v.IsInt()) {
    return ctx.Fail("{} must be a 32-bit integer, found {}", what,
                    v.IsNumber() ? JsonToString(v) : std::string(JsonTypeName(v)));
  }
  *out = v.GetInt();
  return OkStatus();
}

Status ReadBool(const JsonContext& ctx, std::string_view what, const JsonValue& v,
                bool* out) {
  if (!v.IsBool()) {
    return ctx.Fail("{} must be a boolean, found {}", what, JsonTypeName(v));
  }
  *out = v.GetBool();
  return OkStatus();
}

Status ReadOptBool(const JsonContext& ctx, std::string_view what, const JsonValue& v,
                   std::optional<bool>* out) {
  if (v.IsNull()) {
    out->reset();
    return OkStatus();
  }
  bool b = false;
  DELTA_RETURN_IF_ERROR(ReadBool(ctx, what, v, &b));
  *out = b;
  return OkStatus();
}

Status ReadStringMap(const JsonContext& ctx, std::string_view what, const JsonValue& v,
                     StringMap* out) {
  out->clear();
  if (v.IsNull()) return OkStatus();
  if (!v.IsObject()) {
    return ctx.Fail("{} must be an object, found {}", what, JsonTypeName(v));
  }
  out->reserve(v.MemberCount());
  for (const auto& m : v.GetObject()) {
    if (m.value.IsNull()) continue;
    if (!m.value.IsString()) {
      return ctx.Fail("{}['{}'] must be a string, found {}", what, Key(m.name),
                      JsonTypeName(m.value));
    }
    out->emplace_back(
        std::piecewise_construct,
        std::forward_as_tuple(m.name.GetString(), m.name.GetStringLength()),
        std::forward_as_tuple(m.value.GetString(), m.value.GetStringLength()));
  }
  return OkStatus();
}

Status ReadStringArray(const JsonContext& ctx, std::string_view what, const JsonValue& v,
                       std::vector<std::string>* out) {
  if (!v.IsArray()) {
    return ctx.Fail("{} must be an array of strings, found {}", what, JsonTypeName(v));
  }
  out->clear();
  out->reserve(v.Size());
  for (const auto& e : v.GetArray()) {
    if (!e.IsString()) {
      return ctx.Fail("{} must be an array of strings, found an element of type {}", what,
                      JsonTypeName(e));
    }
    out->emplace_back(e.GetString(), e.GetStringLength());
  }
  return OkStatus();
}

Status ReadPartitionValues(const JsonContext& ctx, std::string_view what,
                           const JsonValue& v, PartitionValues* out) {
  if (!v.IsObject()) {
    return ctx.Fail("{} must be an object, found {}", what, JsonTypeName(v));
  }
  out->clear();
  out->reserve(v.MemberCount());
  for (const auto& m : v.GetObject()) {
    std::string key(m.name.GetString(), m.name.GetStringLength());
    if (m.value.IsNull()) {
      out->emplace_back(std::move(key), std::nullopt);
    } else if (m.value.IsString()) {
      out->emplace_back(std::move(key),
                        std::string(m.value.GetString(), m.value.GetStringLength()));
    } else if (m.value.IsNumber() || m.value.IsBool()) {
      out->emplace_back(std::move(key), JsonToString(m.value));
    } else {
      return ctx.Fail("{}['{}'] must be a string or null, found {}", what, key,
                      JsonTypeName(m.value));
    }
  }
  return OkStatus();
}

std::string_view TrimJsonSpace(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

std::optional<std::string_view> RawSingleMemberValue(std::string_view line) {
  std::string_view s = TrimJsonSpace(line);
  if (s.size() < 2 || s.front() != '{' || s.back() != '}') return std::nullopt;
  s = TrimJsonSpace(s.substr(1, s.size() - 2));
  if (s.empty() || s.front() != '"') return std::nullopt;
  size_t close = s.find('"', 1);
  if (close == std::string_view::npos) return std::nullopt;
  if (s.substr(1, close - 1).find('\\') != std::string_view::npos) return std::nullopt;
  s = TrimJsonSpace(s.substr(close + 1));
  if (s.empty() || s.front() != ':') return std::nullopt;
  s = TrimJsonSpace(s.substr(1));
  if (s.empty()) return std::nullopt;
  return s;
}

}  // namespace deltaguard::internal
