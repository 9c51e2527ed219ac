// The only file that includes yaml-cpp (contract/yaml_reader.h): a yaml-cpp node graph
// is copied into YamlNode with bounded depth and node count, and every exception the
// library throws becomes an Error here.

#include "deltaguard/contract/yaml_reader.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <exception>
#include <string>

#include "deltaguard/util/depth_guard.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

struct Converter {
  std::string_view file;
  RecursionBudget budget{kMaxYamlDepth};
  size_t nodes = 0;
  Status status = OkStatus();

  bool Fail(const YAML::Mark& mark, std::string message) {
    if (status) {
      status = MakeError(ErrorCode::kInvalidArgument, "{}:{}:{}: {}", file, mark.line + 1,
                         mark.column + 1, message);
    }
    return false;
  }

  bool Convert(const YAML::Node& in, YamlNode* out) {
    DepthGuard guard(&budget);
    const YAML::Mark mark = in.Mark();
    if (guard.exceeded()) {
      return Fail(mark, fmt::format("YAML nested deeper than {} levels", kMaxYamlDepth));
    }
    if (++nodes > kMaxYamlNodes) {
      return Fail(mark, fmt::format("YAML document has more than {} nodes (after "
                                    "expanding aliases)",
                                    kMaxYamlNodes));
    }
    out->line = mark.line + 1;
    out->column = mark.column + 1;
    switch (in.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        out->kind = YamlNode::Kind::kNull;
        return true;
      case YAML::NodeType::Scalar:
        out->kind = YamlNode::Kind::kScalar;
        out->scalar = in.Scalar();
        // yaml-cpp tags a non-plain (quoted or block) scalar "!".
        out->quoted = in.Tag() == "!";
        return true;
      case YAML::NodeType::Sequence:
        out->kind = YamlNode::Kind::kSequence;
        for (const auto& item : in) {
          out->items.emplace_back();
          if (!Convert(item, &out->items.back())) return false;
        }
        return true;
      case YAML::NodeType::Map:
        out->kind = YamlNode::Kind::kMap;
        for (const auto& kv : in) {
          if (!kv.first.IsScalar()) {
            return Fail(kv.first.Mark(), "a mapping key must be a plain name");
          }
          std::string key = kv.first.Scalar();
          for (const auto& existing : out->entries) {
            if (existing.key == key) {
              return Fail(kv.first.Mark(),
                          fmt::format("key '{}' appears twice", EscapeForMessage(key)));
            }
          }
          out->entries.push_back(YamlEntry{std::move(key), YamlNode{}});
          out->key_lines.push_back(kv.first.Mark().line + 1);
          if (!Convert(kv.second, &out->entries.back().value)) return false;
        }
        return true;
    }
    return true;
  }
};

}  // namespace

const YamlNode* YamlNode::Find(std::string_view key) const {
  for (const auto& entry : entries) {
    if (entry.key == key) return &entry.value;
  }
  return nullptr;
}

std::string_view YamlNode::KindName() const {
  switch (kind) {
    case Kind::kNull:
      return "null";
    case Kind::kScalar:
      return "scalar";
    case Kind::kSequence:
      return "sequence";
    case Kind::kMap:
      return "mapping";
  }
  return "null";
}

Result<YamlNode> ParseYaml(std::string_view text, std::string_view file) {
  if (text.size() > kMaxYamlBytes) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "{}: YAML document of {} bytes is larger than the limit of {} bytes",
                     file, text.size(), kMaxYamlBytes);
  }
  // YAML is Unicode text: invalid UTF-8 and control characters other than tab, line
  // feed and carriage return are refused here, before the YAML library sees them (it
  // can spend unbounded time on such bytes).
  size_t bad = 0;
  std::string_view what;
  if (!IsValidUtf8(text, &bad)) {
    what = "a byte that is not UTF-8";
  } else {
    for (bad = 0; bad < text.size(); ++bad) {
      unsigned char c = static_cast<unsigned char>(text[bad]);
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) break;
    }
    if (bad < text.size()) what = "a control character";
  }
  if (!what.empty()) {
    size_t line =
        1 + static_cast<size_t>(std::count(text.begin(), text.begin() + bad, '\n'));
    size_t start = text.rfind('\n', bad == 0 ? 0 : bad - 1);
    size_t column = start == std::string_view::npos || bad == 0 ? bad + 1 : bad - start;
    return MakeError(ErrorCode::kParseError,
                     "{}:{}:{}: {} (0x{:02x}); YAML files are UTF-8 text", file, line,
                     column, what, static_cast<unsigned char>(text[bad]));
  }
  // One document: a second one (a `---` line after content) is refused by a look at
  // the text, because yaml-cpp's LoadAll loops forever on some malformed input (a stray
  // ',' at the top level), while Load parses the first document and stops.
  bool content = false;
  for (auto line : Split(text, '\n')) {
    std::string_view trimmed = Trim(line);
    bool marker = line.starts_with("---") &&
                  (line.size() == 3 || line[3] == ' ' || line[3] == '\r');
    if (marker && content) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "{}: more than one YAML document in the file; a contract is one "
                       "document",
                       file);
    }
    if (!marker && !trimmed.empty() && trimmed.front() != '#' && trimmed.front() != '%') {
      content = true;
    }
  }
  YAML::Node doc;
  try {
    doc = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return MakeError(ErrorCode::kParseError, "{}:{}:{}: malformed YAML: {}", file,
                     e.mark.line + 1, e.mark.column + 1, EscapeForMessage(e.msg));
  } catch (const std::exception& e) {
    return MakeError(ErrorCode::kParseError, "{}: malformed YAML: {}", file,
                     EscapeForMessage(e.what()));
  }
  YamlNode root;
  if (!doc.IsDefined()) return root;  // an empty file: a null document
  Converter converter{file};
  try {
    converter.Convert(doc, &root);
  } catch (const std::exception& e) {
    return MakeError(ErrorCode::kParseError, "{}: malformed YAML: {}", file,
                     EscapeForMessage(e.what()));
  }
  if (!converter.status) return converter.status.error();
  return root;
}

}  // namespace deltaguard
