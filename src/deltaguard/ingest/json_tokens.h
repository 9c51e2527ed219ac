/// \file deltaguard/ingest/json_tokens.h
/// One JSON record as a flat list of tokens in document order: the ingestion readers'
/// view of a JSON value. Numbers keep their text exactly as written (a DECIMAL keeps
/// every digit; a string column stores "275.50", not 275.5), strings are unescaped,
/// and each object/array token knows where its subtree ends, so a reader can skip or
/// re-serialise any value (the rescued column holds the value as it arrived).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace deltaguard {

enum class JsonTokenKind : uint8_t { kNull, kBool, kNumber, kString, kObject, kArray };

struct JsonToken {
  JsonTokenKind kind = JsonTokenKind::kNull;
  bool boolean = false;
  std::string_view text;  ///< number text, or the unescaped string (into the record)
  std::string_view key;   ///< the member name when the token is an object member
  uint32_t end = 0;       ///< index one past the token's subtree
  uint32_t count = 0;     ///< members or elements of an object/array
};

/// Why a record did not parse: a 1-based byte column and a message.
struct JsonRecordProblem {
  int64_t column = 0;
  std::string message;
};

/// A parsed record. Parse() reuses the token storage between records.
class JsonRecord {
 public:
  /// Parse `text` (one JSON object; the buffer is modified in place: strings are
  /// unescaped into it, so the tokens point into `text` and stay valid until it
  /// changes). Nesting deeper than `depth_limit` is a problem, as is anything other
  /// than exactly one object with only whitespace around it.
  std::optional<JsonRecordProblem> Parse(std::string* text, int depth_limit);

  /// A whole file as Spark's multiLine JSON reads it: one value, or a top-level array
  /// of values. On success `elements` holds the token index of each record (0 for a
  /// single value; the array's elements otherwise); the caller checks they are objects.
  std::optional<JsonRecordProblem> ParseDocument(std::string* text, int depth_limit,
                                                 std::vector<uint32_t>* elements);

  const std::vector<JsonToken>& tokens() const { return tokens_; }
  const JsonToken& root() const { return tokens_.front(); }

  /// The JSON text of the token at `index` and its subtree (strings re-escaped,
  /// numbers as written).
  void AppendJson(uint32_t index, std::string* out) const;
  std::string ToJson(uint32_t index) const {
    std::string out;
    AppendJson(index, &out);
    return out;
  }

 private:
  friend class JsonRecordHandler;
  std::vector<JsonToken> tokens_;
  std::vector<uint32_t> open_;
};

}  // namespace deltaguard
