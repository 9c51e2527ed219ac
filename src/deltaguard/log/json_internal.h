/// \file deltaguard/log/json_internal.h
/// RapidJSON plumbing shared by the log module (not part of the public API): a reusable
/// per-thread document, typed field readers that produce kCorruptLog errors naming the
/// file and line, and raw-text extraction for free-form objects.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "deltaguard/log/actions.h"
#include "deltaguard/util/result.h"

namespace deltaguard::internal {

using JsonAllocator = rapidjson::MemoryPoolAllocator<rapidjson::CrtAllocator>;
using JsonDocument =
    rapidjson::GenericDocument<rapidjson::UTF8<>, JsonAllocator, rapidjson::CrtAllocator>;
using JsonValue = rapidjson::GenericValue<rapidjson::UTF8<>, JsonAllocator>;

/// A document whose pool allocator starts in a fixed buffer and is cleared before every
/// parse, so parsing typical commit lines allocates nothing. One per thread (see
/// ThreadJsonDocument); not reentrant: a parse invalidates the previous DOM.
class ReusableJsonDocument {
 public:
  ReusableJsonDocument();
  /// Parse `text` (not NUL-terminated). On failure the error names `where`.
  Result<const JsonValue*> Parse(std::string_view text);
  /// Error text of the last failed parse: "<message> at offset N".
  std::string LastError() const;

 private:
  static constexpr size_t kBufferSize = 32 * 1024;
  std::unique_ptr<char[]> buffer_;
  JsonAllocator pool_;
  rapidjson::CrtAllocator stack_allocator_;
  JsonDocument doc_;
};

/// The calling thread's reusable document.
ReusableJsonDocument& ThreadJsonDocument();

/// Names the file/line of the value being parsed; builds kCorruptLog errors.
class JsonContext {
 public:
  JsonContext(std::string_view where, int64_t line) : where_(where), line_(line) {}

  template <typename... Args>
  Error Fail(fmt::format_string<Args...> format, Args&&... args) const {
    return Located(fmt::format(format, std::forward<Args>(args)...));
  }
  Error Located(std::string_view message) const;

 private:
  std::string_view where_;
  int64_t line_;
};

inline std::string_view Key(const JsonValue& name) {
  return {name.GetString(), name.GetStringLength()};
}

/// "null", "boolean", "object", "array", "string" or "number".
std::string_view JsonTypeName(const JsonValue& v);

/// Compact JSON text of a value.
std::string JsonToString(const JsonValue& v);

// Typed readers. `what` is "action.field" for messages. The Opt* variants accept null.
Status ReadString(const JsonContext& ctx, std::string_view what, const JsonValue& v,
                  std::string* out);
Status ReadOptString(const JsonContext& ctx, std::string_view what, const JsonValue& v,
                     std::optional<std::string>* out);
Status ReadInt64(const JsonContext& ctx, std::string_view what, const JsonValue& v,
                 int64_t* out);
Status ReadOptInt64(const JsonContext& ctx, std::string_view what, const JsonValue& v,
                    std::optional<int64_t>* out);
Status ReadInt32(const JsonContext& ctx, std::string_view what, const JsonValue& v,
                 int32_t* out);
Status ReadBool(const JsonContext& ctx, std::string_view what, const JsonValue& v,
                bool* out);
Status ReadOptBool(const JsonContext& ctx, std::string_view what, const JsonValue& v,
                   std::optional<bool>* out);
/// JSON object of strings (null object ⇒ empty; null values are dropped).
Status ReadStringMap(const JsonContext& ctx, std::string_view what, const JsonValue& v,
                     StringMap* out);
Status ReadStringArray(const JsonContext& ctx, std::string_view what, const JsonValue& v,
                       std::vector<std::string>* out);
/// Partition values: strings or null; numbers/booleans are kept as their JSON text.
Status ReadPartitionValues(const JsonContext& ctx, std::string_view what,
                           const JsonValue& v, PartitionValues* out);

/// If `line` is exactly `{"<key>": <value>}` (one member, plain key), the text of
/// <value>; used to keep commitInfo byte-for-byte.
std::optional<std::string_view> RawSingleMemberValue(std::string_view line);

/// Trim JSON whitespace from both ends.
std::string_view TrimJsonSpace(std::string_view s);

}  // namespace deltaguard::internal
