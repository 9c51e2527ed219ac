/// \file deltaguard/contract/yaml_reader.h
/// YAML documents as a small tree with line and column on every node: the one place
/// the YAML library (yaml-cpp, from Debian) is used, so its exceptions and its node
/// graph never leave this file. Bounded against hostile input: nesting deeper than
/// kMaxYamlDepth, more than kMaxYamlNodes nodes (alias expansion: "billion laughs"),
/// and documents over kMaxYamlBytes are refused with an error naming the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltaguard/util/result.h"

namespace deltaguard {

/// Nesting of mappings and sequences (a contract nests about 8 levels; nested struct
/// properties add 2 per level, bounded by kMaxTypeDepth).
inline constexpr int kMaxYamlDepth = 160;
/// Nodes after alias expansion.
inline constexpr size_t kMaxYamlNodes = 1'000'000;
inline constexpr size_t kMaxYamlBytes = size_t{64} << 20;

struct YamlEntry;

struct YamlNode {
  enum class Kind : uint8_t { kNull, kScalar, kSequence, kMap };
  Kind kind = Kind::kNull;
  /// Scalars: the text as written (without quotes); `quoted` when it was quoted (then
  /// it is always a string, never a number or boolean).
  std::string scalar;
  bool quoted = false;
  std::vector<YamlNode> items;     ///< sequences
  std::vector<YamlEntry> entries;  ///< mappings, in file order
  std::vector<int> key_lines;      ///< mappings: the 1-based line of each key
  int line = 0;                    ///< 1-based
  int column = 0;                  ///< 1-based

  bool is_map() const { return kind == Kind::kMap; }
  bool is_sequence() const { return kind == Kind::kSequence; }
  bool is_scalar() const { return kind == Kind::kScalar; }
  bool is_null() const { return kind == Kind::kNull; }
  /// The entry `key` of a mapping (first match), or null.
  const YamlNode* Find(std::string_view key) const;
  /// "mapping", "sequence", "scalar" or "null", for messages.
  std::string_view KindName() const;
};

/// One key of a mapping and its value.
struct YamlEntry {
  std::string key;
  YamlNode value;
};

/// Parse one YAML document. kParseError naming `file`, the line and column and the
/// YAML library's reason for malformed YAML, or the offending byte for text that is
/// not UTF-8 or holds a control character other than tab, LF and CR; kInvalidArgument for
/// the bounds above, a mapping key that is not a scalar, a repeated key, or more than one
/// document.
Result<YamlNode> ParseYaml(std::string_view text, std::string_view file);

}  // namespace deltaguard
