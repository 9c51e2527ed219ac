#include "deltaguard/contract/emit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>

#include "deltaguard/schema/ddl.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

// Whether a plain scalar `s` would read back as something other than a string: a YAML
// 1.2 core-schema boolean, null or number (1.1 words too, for older readers).
bool LooksTyped(std::string_view s) {
  static const char* kWords[] = {"true", "false", "null", "yes",   "no",    "on",
                                 "off",  "~",     ".inf", "-.inf", "+.inf", ".nan"};
  std::string lower = AsciiToLower(s);
  for (const char* w : kWords) {
    if (lower == w) return true;
  }
  static const std::regex kNumber(
      R"(^[-+]?(0x[0-9a-fA-F]+|0o[0-7]+|([0-9][0-9_]*)?\.?[0-9_]*([eE][-+]?[0-9]+)?)$)");
  bool digit = std::any_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
  return digit && std::regex_match(std::string(s), kNumber);
}

class Emitter {
 public:
  explicit Emitter(const EmitComments& comments) : comments_(comments) {}

  void Line(int indent, const std::string& text) {
    out_ += std::string(static_cast<size_t>(indent), ' ') + text + "\n";
  }
  void Comment(int indent, const std::string& key) {
    auto it = comments_.find(key);
    if (it == comments_.end()) return;
    for (auto part : Split(it->second, '\n')) Line(indent, "# " + std::string(part));
  }
  void Field(int indent, std::string_view key, std::string_view value) {
    if (!value.empty()) Line(indent, fmt::format("{}: {}", key, YamlScalar(value)));
  }
  void Flag(int indent, std::string_view key, bool value) {
    if (value) Line(indent, fmt::format("{}: true", key));
  }
  void List(int indent, std::string_view key, const std::vector<std::string>& values) {
    if (values.empty()) return;
    std::string items;
    for (const auto& v : values) items += (items.empty() ? "" : ", ") + YamlScalar(v);
    Line(indent, fmt::format("{}: [{}]", key, items));
  }

  void Rule(int indent, const QualityRule& r, const std::string& owner) {
    Comment(indent, owner + "#" + r.id);
    Line(indent, "- " + (r.id.empty() ? std::string("type: ") + r.type
                                      : "id: " + YamlScalar(r.id)));
    int in = indent + 2;
    if (!r.id.empty() && r.type != "library") Field(in, "type", r.type);
    Field(in, "name", r.name);
    Field(in, "description", r.description);
    if (r.type == "library") Field(in, "metric", r.metric);
    if (!r.valid_values.empty() || r.pattern || !r.missing_values.empty() ||
        !r.properties.empty()) {
      Line(in, "arguments:");
      List(in + 2, "validValues", r.valid_values);
      if (r.pattern) Field(in + 2, "pattern", *r.pattern);
      List(in + 2, "missingValues", r.missing_values);
      List(in + 2, "properties", r.properties);
    }
    Field(in, "query", r.query);
    Field(in, "engine", r.engine);
    Field(in, "implementation", r.implementation);
    if (r.operands.size() == 2) {
      Line(in, fmt::format("{}: [{}, {}]", r.op, r.operands[0], r.operands[1]));
    } else if (r.operands.size() == 1) {
      Line(in, fmt::format("{}: {}", r.op, r.operands[0]));
    }
    if (r.unit != "rows") Field(in, "unit", r.unit);
    if (r.severity != "error") Field(in, "severity", r.severity);
    Field(in, "dimension", r.dimension);
  }

  void Rules(int indent, const std::vector<QualityRule>& rules,
             const std::string& owner) {
    if (rules.empty()) return;
    Line(indent, "quality:");
    for (const auto& r : rules) Rule(indent + 2, r, owner);
  }

  // A property as a list item ("- id: ..."), or as a mapping of its own (`as_item`
  // false: an array's `items`).
  void Property(int indent, const ContractProperty& p, const std::string& parent,
                bool as_item = true) {
    std::string path = parent.empty() ? p.name : parent + "." + p.name;
    int in = as_item ? indent + 2 : indent;
    if (as_item) {
      Line(indent, "- " + (p.id.empty() ? "name: " + YamlScalar(p.name)
                                        : "id: " + YamlScalar(p.id)));
      if (!p.id.empty()) Field(in, "name", p.name);
    } else {
      Field(in, "id", p.id);
      Field(in, "name", p.name);
    }
    Field(in, "physicalName", p.physical_name);
    Field(in, "logicalType", p.logical_type);
    Field(in, "physicalType", p.physical_type);
    Field(in, "description", p.description);
    Flag(in, "required", p.required);
    Flag(in, "unique", p.unique);
    Flag(in, "primaryKey", p.primary_key);
    if (p.primary_key && p.primary_key_position >= 0) {
      Line(in, fmt::format("primaryKeyPosition: {}", p.primary_key_position));
    }
    Flag(in, "partitioned", p.partitioned);
    if (p.partitioned && p.partition_key_position >= 0) {
      Line(in, fmt::format("partitionKeyPosition: {}", p.partition_key_position));
    }
    Field(in, "classification", p.classification);
    bool options = p.min_length || p.max_length || p.pattern || p.format || p.minimum ||
                   p.maximum || p.exclusive_minimum || p.exclusive_maximum;
    if (options) {
      Comment(in, path);
      Line(in, "logicalTypeOptions:");
      // Bounds that are numbers are written as YAML numbers (ODCS types them so).
      auto opt = [&](std::string_view k, const std::optional<std::string>& v) {
        if (!v) return;
        if (LooksTyped(*v) && std::isdigit(static_cast<unsigned char>(v->back()))) {
          Line(in + 2, fmt::format("{}: {}", k, *v));
        } else {
          Field(in + 2, k, *v);
        }
      };
      if (p.min_length) Line(in + 2, fmt::format("minLength: {}", *p.min_length));
      if (p.max_length) Line(in + 2, fmt::format("maxLength: {}", *p.max_length));
      opt("pattern", p.pattern);
      opt("format", p.format);
      opt("minimum", p.minimum);
      opt("maximum", p.maximum);
      opt("exclusiveMinimum", p.exclusive_minimum);
      opt("exclusiveMaximum", p.exclusive_maximum);
    }
    if (!p.aliases.empty()) {
      Line(in, "customProperties:");
      std::string items;
      for (const auto& a : p.aliases)
        items += (items.empty() ? "" : ", ") + YamlScalar(a);
      Line(in + 2, fmt::format("- {{property: aliases, value: [{}]}}", items));
    }
    if (!p.properties.empty()) {
      Line(in, "properties:");
      for (const auto& child : p.properties) Property(in + 2, child, path);
    }
    for (const auto& item : p.items) {
      Line(in, "items:");
      Property(in + 2, item, path + ".element", /*as_item=*/false);
    }
    Rules(in, p.quality, path);
  }

  std::string Take() { return std::move(out_); }

 private:
  const EmitComments& comments_;
  std::string out_;
};

}  // namespace

std::string YamlScalar(std::string_view text) {
  bool control = false;
  for (unsigned char c : text) control |= c < 0x20 || c == 0x7f;
  if (control) return JsonQuote(text);  // a JSON string is a YAML double-quoted scalar
  bool plain =
      !text.empty() && !LooksTyped(text) && text.front() != ' ' && text.back() != ' ';
  static const std::string_view kSpecial = ":#{}[],&*!|>'\"%@`?";
  for (char c : text) {
    if (kSpecial.find(c) != std::string_view::npos) plain = false;
  }
  if (plain) return std::string(text);
  std::string out = "'";
  for (char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

std::string ContractToYaml(const Contract& c, const EmitComments& comments,
                           std::string_view header) {
  Emitter e(comments);
  for (auto part : Split(header, '\n')) {
    if (!part.empty()) e.Line(0, "# " + std::string(part));
  }
  e.Field(0, "apiVersion", c.api_version.empty() ? "v3.1.0" : c.api_version);
  e.Field(0, "kind", c.kind.empty() ? "DataContract" : c.kind);
  e.Field(0, "id", c.id);
  e.Field(0, "name", c.name);
  e.Field(0, "version", c.version);
  e.Field(0, "status", c.status);
  e.Field(0, "domain", c.domain);
  e.List(0, "tags", c.tags);
  if (!c.description.empty()) {
    e.Line(0, "description:");
    e.Field(2, "purpose", c.description);
  }
  if (!c.schema.empty()) e.Line(0, "schema:");
  for (const auto& o : c.schema) {
    e.Line(2, "- " + (o.id.empty() ? "name: " + YamlScalar(o.name)
                                   : "id: " + YamlScalar(o.id)));
    if (!o.id.empty()) e.Field(4, "name", o.name);
    e.Field(4, "physicalName", o.physical_name);
    e.Field(4, "physicalType", o.physical_type);
    e.Field(4, "description", o.description);
    e.Rules(4, o.quality, "");
    if (!o.properties.empty()) e.Line(4, "properties:");
    for (const auto& p : o.properties) e.Property(6, p, "");
  }
  if (!c.custom_properties.empty()) e.Line(0, "customProperties:");
  for (const auto& [name, value] : c.custom_properties) {
    e.Line(2, fmt::format("- {{property: {}, value: {}}}", YamlScalar(name),
                          YamlScalar(value)));
  }
  return e.Take();
}

}  // namespace deltaguard
