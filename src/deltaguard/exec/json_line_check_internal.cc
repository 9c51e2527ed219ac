#include "deltaguard/exec/json_line_check_internal.h"

#include <fmt/format.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

namespace deltaguard::internal {

namespace {

// Keeps nothing; stops the parse at the first token the line may not hold.
class LineHandler final
    : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, LineHandler> {
 public:
  explicit LineHandler(int limit) : limit_(limit) {}

  bool Default() { return Value("a scalar value"); }
  bool Null() { return Value("null"); }
  bool Bool(bool) { return Value("a boolean"); }
  bool RawNumber(const char*, rapidjson::SizeType, bool) { return Value("a number"); }
  bool String(const char*, rapidjson::SizeType, bool) { return Value("a string"); }
  bool StartObject() { return Open(nullptr); }
  bool StartArray() { return Open("an array"); }
  bool EndObject(rapidjson::SizeType) { return Close(); }
  bool EndArray(rapidjson::SizeType) { return Close(); }

  int limit() const { return limit_; }
  bool too_deep() const { return too_deep_; }
  /// What the line holds instead of an object (nullptr when it holds an object).
  const char* not_object() const { return not_object_; }

 private:
  bool Value(const char* what) {
    if (depth_ > 0) return true;
    not_object_ = what;
    return false;
  }
  bool Open(const char* what) {
    if (depth_ == 0 && what != nullptr) return Value(what);
    if (++depth_ > limit_) {
      too_deep_ = true;
      return false;
    }
    return true;
  }
  bool Close() {
    --depth_;
    return true;
  }

  int limit_;
  int depth_ = 0;
  bool too_deep_ = false;
  const char* not_object_ = nullptr;
};

bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\r'; }

size_t SkipSpace(std::string_view s, size_t pos) {
  while (pos < s.size() && IsJsonSpace(s[pos])) ++pos;
  return pos;
}

}  // namespace

std::optional<JsonLineProblem> CheckJsonLine(std::string_view line, int depth_limit) {
  const size_t start = SkipSpace(line, 0);
  if (start == line.size()) return std::nullopt;  // blank lines hold no record
  // Numbers as strings: the value is Arrow's to convert; only its syntax is checked.
  // NaN and Infinity: Arrow's reader accepts them as doubles.
  constexpr unsigned kFlags =
      rapidjson::kParseIterativeFlag | rapidjson::kParseStopWhenDoneFlag |
      rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseNanAndInfFlag;
  rapidjson::MemoryStream stream(line.data() + start, line.size() - start);
  LineHandler handler(depth_limit);
  rapidjson::Reader reader;
  rapidjson::ParseResult parsed = reader.Parse<kFlags>(stream, handler);
  const auto column = [&](size_t offset) { return static_cast<int64_t>(offset + 1); };
  if (handler.not_object() != nullptr) {
    return JsonLineProblem{ErrorCode::kParseError, column(start),
                           fmt::format("a line of NDJSON input must hold one JSON object "
                                       "(one record), found {}",
                                       handler.not_object())};
  }
  if (handler.too_deep()) {
    return JsonLineProblem{
        ErrorCode::kInvalidArgument, column(start + parsed.Offset()),
        fmt::format("objects and arrays nest deeper than {} levels (a Delta column "
                    "holds at most {} levels of nested types); flatten the record or "
                    "store the value as a JSON string",
                    depth_limit, kMaxTypeDepth)};
  }
  if (parsed.IsError()) {
    return JsonLineProblem{
        ErrorCode::kParseError, column(start + parsed.Offset()),
        fmt::format("invalid JSON: {}", rapidjson::GetParseError_En(parsed.Code()))};
  }
  const size_t end = SkipSpace(line, start + stream.Tell());
  if (end < line.size()) {
    return JsonLineProblem{ErrorCode::kParseError, column(end),
                           "a second JSON value follows the record; a line of NDJSON "
                           "input holds one object"};
  }
  return std::nullopt;
}

}  // namespace deltaguard::internal
