/// \file deltaguard/schema/json_tree_internal.h
/// A small JSON tree that remembers where each value came from in the source text, so
/// that field metadata can keep its exact raw JSON (numbers are never reformatted).
/// Built on RapidJSON's iterative SAX reader; internal to the schema module.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/util/depth_guard.h"
#include "deltaguard/util/result.h"

namespace deltaguard::internal {

struct JsonNode {
  enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kObject, kArray };

  Kind kind = Kind::kNull;
  bool bool_value = false;
  /// Unescaped string value, or the literal text of a number.
  std::string text;
  /// Object member names, in source order; parallel to `children`.
  std::vector<std::string> keys;
  /// Object member values or array elements, in source order.
  std::vector<JsonNode> children;
  /// The value's byte span [begin, end) in the parsed text.
  size_t begin = 0;
  size_t end = 0;

  /// The value of member `key`, or nullptr (also when this is not an object).
  const JsonNode* Find(std::string_view key) const;
  /// "null", "boolean", "number", "string", "object" or "array".
  std::string_view KindName() const;
};

/// ParseJsonTree accepts objects and arrays nested at most kMaxJsonDepth
/// (util/depth_guard.h) deep, which keeps the recursive walks over the tree (and its
/// destructor) far from the stack limit on hostile input.

/// Parse one JSON document (UTF-8 validated, no trailing content). Invariants of the
/// result: object keys are unique (duplicates are kParseError), and every node's span
/// holds exactly that value's text. Errors are kParseError with the byte offset.
Result<JsonNode> ParseJsonTree(std::string_view json);

}  // namespace deltaguard::internal
