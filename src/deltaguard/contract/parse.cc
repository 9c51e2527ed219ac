// ODCS v3.1 YAML -> Contract (contract/parse.h). The reader walks the YAML tree once,
// keyed by the ODCS names; every problem becomes a diagnostic with the file, line,
// column and key path, so one lint run reports them all.

#include "deltaguard/contract/parse.h"

#include <fmt/format.h>
// xxHash header-only: nothing to link, and the same digest on every platform.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "deltaguard/contract/lint.h"
#include "deltaguard/contract/yaml_reader.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/util/depth_guard.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

// Keys ODCS v3.1 defines at each level that deltaguard reads or knowingly ignores; any
// other key is a warning (ODCS itself rejects unknown keys: extensions belong in
// customProperties).
const std::set<std::string_view> kTopKeys = {"apiVersion",
                                             "kind",
                                             "id",
                                             "name",
                                             "version",
                                             "status",
                                             "tenant",
                                             "domain",
                                             "dataProduct",
                                             "tags",
                                             "description",
                                             "schema",
                                             "servers",
                                             "customProperties",
                                             "team",
                                             "roles",
                                             "support",
                                             "price",
                                             "slaProperties",
                                             "slaDefaultElement",
                                             "authoritativeDefinitions",
                                             "contractCreatedTs"};
const std::set<std::string_view> kObjectKeys = {"id",
                                                "name",
                                                "physicalName",
                                                "physicalType",
                                                "logicalType",
                                                "description",
                                                "businessName",
                                                "authoritativeDefinitions",
                                                "quality",
                                                "tags",
                                                "customProperties",
                                                "properties",
                                                "dataGranularityDescription"};
const std::set<std::string_view> kPropertyKeys = {"id",
                                                  "name",
                                                  "physicalName",
                                                  "physicalType",
                                                  "logicalType",
                                                  "logicalTypeOptions",
                                                  "description",
                                                  "businessName",
                                                  "required",
                                                  "unique",
                                                  "primaryKey",
                                                  "primaryKeyPosition",
                                                  "partitioned",
                                                  "partitionKeyPosition",
                                                  "classification",
                                                  "encryptedName",
                                                  "transformSourceObjects",
                                                  "transformLogic",
                                                  "transformDescription",
                                                  "examples",
                                                  "criticalDataElement",
                                                  "items",
                                                  "properties",
                                                  "relationships",
                                                  "quality",
                                                  "tags",
                                                  "customProperties",
                                                  "authoritativeDefinitions"};
const std::set<std::string_view> kQualityKeys = {"id",
                                                 "name",
                                                 "description",
                                                 "type",
                                                 "metric",
                                                 "rule",
                                                 "arguments",
                                                 "unit",
                                                 "severity",
                                                 "dimension",
                                                 "businessImpact",
                                                 "method",
                                                 "schedule",
                                                 "scheduler",
                                                 "tags",
                                                 "query",
                                                 "engine",
                                                 "implementation",
                                                 "authoritativeDefinitions",
                                                 "validValues",
                                                 "mustBe",
                                                 "mustNotBe",
                                                 "mustBeGreaterThan",
                                                 "mustBeGreaterOrEqualTo",
                                                 "mustBeLessThan",
                                                 "mustBeLessOrEqualTo",
                                                 "mustBeBetween",
                                                 "mustNotBeBetween"};
const std::set<std::string_view> kLogicalTypes = {"string", "date",   "timestamp",
                                                  "time",   "number", "integer",
                                                  "object", "array",  "boolean"};
const std::vector<std::string_view> kOperators = {"mustBe",
                                                  "mustNotBe",
                                                  "mustBeGreaterThan",
                                                  "mustBeGreaterOrEqualTo",
                                                  "mustBeLessThan",
                                                  "mustBeLessOrEqualTo",
                                                  "mustBeBetween",
                                                  "mustNotBeBetween"};

class Reader {
 public:
  explicit Reader(ContractParse* out) : out_(out), file_(out->contract.file) {}

  void Diag(ContractDiagnostic::Severity severity, const YamlNode& at,
            const std::string& key, std::string message) {
    out_->diagnostics.push_back(
        {severity, file_, at.line, at.column, key, std::move(message)});
  }
  void Error(const YamlNode& at, const std::string& key, std::string message) {
    Diag(ContractDiagnostic::Severity::kError, at, key, std::move(message));
  }
  void Warn(const YamlNode& at, const std::string& key, std::string message) {
    Diag(ContractDiagnostic::Severity::kWarning, at, key, std::move(message));
  }

  // Warns about every key of `node` outside `known`.
  void CheckKeys(const YamlNode& node, const std::string& key,
                 const std::set<std::string_view>& known, std::string_view what) {
    for (size_t i = 0; i < node.entries.size(); ++i) {
      const auto& [k, v] = node.entries[i];
      if (known.count(k)) continue;
      Warn(v, Join(key, k),
           fmt::format("unknown key '{}' in {} (ignored; deltaguard's settings go in "
                       "customProperties)",
                       EscapeForMessage(k), what));
    }
  }

  static std::string Join(const std::string& key, std::string_view child) {
    return key.empty() ? std::string(child) : key + "." + std::string(child);
  }
  static std::string Index(const std::string& key, size_t i) {
    return fmt::format("{}[{}]", key, i);
  }

  // A scalar as text; a non-scalar is an error and gives "".
  std::string Text(const YamlNode& node, const std::string& key) {
    if (node.is_scalar()) return node.scalar;
    if (!node.is_null())
      Error(node, key, fmt::format("expected text, got a {}", node.KindName()));
    return "";
  }
  std::string Text(const YamlNode& parent, const std::string& key,
                   std::string_view name) {
    const YamlNode* n = parent.Find(name);
    return n ? Text(*n, Join(key, name)) : "";
  }
  // true/false (YAML 1.2 core schema); anything else is an error and gives false.
  bool Bool(const YamlNode& parent, const std::string& key, std::string_view name) {
    const YamlNode* n = parent.Find(name);
    if (n == nullptr || n->is_null()) return false;
    std::string lower = AsciiToLower(n->is_scalar() ? n->scalar : "");
    if (n->is_scalar() && !n->quoted && (lower == "true" || lower == "false")) {
      return lower == "true";
    }
    Error(*n, Join(key, name), "expected true or false");
    return false;
  }
  std::optional<int64_t> Int(const YamlNode& parent, const std::string& key,
                             std::string_view name) {
    const YamlNode* n = parent.Find(name);
    if (n == nullptr || n->is_null()) return std::nullopt;
    int64_t v = 0;
    if (n->is_scalar() && !n->quoted) {
      const std::string& s = n->scalar;
      auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec == std::errc() && ptr == s.data() + s.size()) return v;
    }
    Error(*n, Join(key, name), "expected an integer");
    return std::nullopt;
  }
  std::optional<double> Number(const YamlNode& n, const std::string& key) {
    if (n.is_scalar() && !n.quoted) {
      const std::string& s = n.scalar;
      double v = 0;
      auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(v)) return v;
    }
    Error(n, key, "expected a number");
    return std::nullopt;
  }
  // A sequence of scalars (numbers and strings as written); a scalar alone is a list of
  // one.
  std::vector<std::string> TextList(const YamlNode& n, const std::string& key) {
    std::vector<std::string> out;
    if (n.is_scalar()) {
      out.push_back(n.scalar);
    } else if (n.is_sequence()) {
      for (size_t i = 0; i < n.items.size(); ++i) {
        const YamlNode& item = n.items[i];
        if (item.is_scalar()) {
          out.push_back(item.scalar);
        } else {
          Error(item, Index(key, i),
                fmt::format("expected a value, got a {}", item.KindName()));
        }
      }
    } else if (!n.is_null()) {
      Error(n, key, fmt::format("expected a list, got a {}", n.KindName()));
    }
    return out;
  }
  std::vector<std::string> TextList(const YamlNode& parent, const std::string& key,
                                    std::string_view name) {
    const YamlNode* n = parent.Find(name);
    return n ? TextList(*n, Join(key, name)) : std::vector<std::string>{};
  }
  // A mapping or sequence expected at `name` ("" and null allowed: absent).
  const YamlNode* Child(const YamlNode& parent, const std::string& key,
                        std::string_view name, YamlNode::Kind kind) {
    const YamlNode* n = parent.Find(name);
    if (n == nullptr || n->is_null()) return nullptr;
    if (n->kind != kind) {
      Error(
          *n, Join(key, name),
          fmt::format("expected a {}, got a {}",
                      kind == YamlNode::Kind::kMap ? "mapping" : "list", n->KindName()));
      return nullptr;
    }
    return n;
  }

  void Top(const YamlNode& root);

 private:
  void CustomProperties(const YamlNode& parent, const std::string& key,
                        std::vector<std::pair<std::string, const YamlNode*>>* out);
  void ContractSettings(const YamlNode& root);
  void Object(const YamlNode& node, const std::string& key, ContractObject* out);
  void Property(const YamlNode& node, const std::string& key, const std::string& object,
                const std::string& path, int depth, ContractProperty* out);
  void Options(const YamlNode& node, const std::string& key, ContractProperty* out);
  void ResolveType(const YamlNode& node, const std::string& key, ContractProperty* p);
  void Quality(const YamlNode& parent, const std::string& key, const std::string& object,
               const std::string& property, std::vector<QualityRule>* out);
  void Rule(const YamlNode& node, const std::string& key, QualityRule* r);

  ContractParse* out_;
  std::string file_;
};

void Reader::CustomProperties(const YamlNode& parent, const std::string& key,
                              std::vector<std::pair<std::string, const YamlNode*>>* out) {
  const YamlNode* list =
      Child(parent, key, "customProperties", YamlNode::Kind::kSequence);
  if (list == nullptr) return;
  std::string k = Join(key, "customProperties");
  for (size_t i = 0; i < list->items.size(); ++i) {
    const YamlNode& item = list->items[i];
    std::string ik = Index(k, i);
    if (!item.is_map()) {
      Error(item, ik, "expected a mapping {property, value}");
      continue;
    }
    CheckKeys(item, ik, {"property", "value", "id", "description"}, "a custom property");
    std::string name = Text(item, ik, "property");
    const YamlNode* value = item.Find("value");
    if (name.empty()) {
      Error(item, ik, "a custom property needs 'property'");
      continue;
    }
    out->emplace_back(name, value);
  }
}

void Reader::ContractSettings(const YamlNode& root) {
  std::vector<std::pair<std::string, const YamlNode*>> props;
  CustomProperties(root, "", &props);
  Contract& c = out_->contract;
  for (const auto& [name, value] : props) {
    std::string key = "customProperties." + name;
    std::string text = value != nullptr && value->is_scalar() ? value->scalar : "";
    c.custom_properties.emplace_back(name, text);
    const YamlNode& at = value != nullptr ? *value : root;
    if (name == "medallionLayer") {
      auto layer = ParseMedallionLayer(text);
      if (layer)
        c.layer = *layer;
      else
        Error(at, key, layer.error().message);
    } else if (name == "compatibility") {
      auto mode = ParseCompatMode(text);
      if (mode)
        c.compatibility = *mode;
      else
        Error(at, key, mode.error().message);
    } else if (name == "schemaEvolutionMode") {
      static const std::set<std::string_view> kModes = {
          "addNewColumns", "addNewColumnsWithTypeWidening",
          "rescue",        "failOnNewColumns",
          "none",          "quarantine"};
      if (!kModes.count(text)) {
        Error(at, key,
              fmt::format("unknown schemaEvolutionMode '{}' (one of "
                          "addNewColumns, addNewColumnsWithTypeWidening, rescue, "
                          "failOnNewColumns, none, quarantine)",
                          EscapeForMessage(text)));
      }
      c.schema_evolution_mode = text;
    } else if (name == "quarantineTable") {
      c.quarantine_table = text;
    } else if (name == "castPolicy") {
      if (EqualsIgnoreCase(text, "strict")) {
        c.cast_policy = CastPolicy::kStrict;
      } else if (EqualsIgnoreCase(text, "try")) {
        c.cast_policy = CastPolicy::kTry;
      } else {
        Error(at, key,
              fmt::format("unknown castPolicy '{}' (strict or try)",
                          EscapeForMessage(text)));
      }
    } else if (name == "maxCastNulls") {
      int64_t v = -1;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || ptr != text.data() + text.size() || v < 0) {
        Error(at, key, "expected a count of rows (an integer >= 0)");
      } else {
        c.max_cast_nulls = v;
      }
    } else if (name != "compatibilityLevel" && name != "rescuedDataColumn" &&
               name != "drift") {
      Warn(at, key,
           fmt::format("unknown custom property '{}' (kept, not used by "
                       "deltaguard)",
                       EscapeForMessage(name)));
    }
  }
}

void Reader::Top(const YamlNode& root) {
  Contract& c = out_->contract;
  if (!root.is_map()) {
    Error(root, "",
          fmt::format("a contract is a YAML mapping, got a {}", root.KindName()));
    return;
  }
  CheckKeys(root, "", kTopKeys, "the contract");
  c.api_version = Text(root, "", "apiVersion");
  c.kind = Text(root, "", "kind");
  c.id = Text(root, "", "id");
  c.name = Text(root, "", "name");
  c.version = Text(root, "", "version");
  c.status = Text(root, "", "status");
  c.domain = Text(root, "", "domain");
  c.tags = TextList(root, "", "tags");
  if (const YamlNode* d = root.Find("description")) {
    // ODCS 3.1: description is {purpose, limitations, usage}; a plain text is accepted.
    if (d->is_scalar()) {
      c.description = d->scalar;
    } else if (d->is_map()) {
      c.description = Text(*d, "description", "purpose");
    }
  }
  for (auto [name, value] :
       {std::pair<std::string_view, const std::string*>{"apiVersion", &c.api_version},
        {"kind", &c.kind},
        {"id", &c.id},
        {"version", &c.version},
        {"status", &c.status}}) {
    if (value->empty()) Error(root, std::string(name), "required key missing");
  }
  if (!c.api_version.empty() && c.api_version != "v3.1.0" && c.api_version != "v3.0.2" &&
      c.api_version != "v3.0.1" && c.api_version != "v3.0.0") {
    Error(*root.Find("apiVersion"), "apiVersion",
          fmt::format("unsupported apiVersion '{}' (v3.1.0, or v3.0.x)",
                      EscapeForMessage(c.api_version)));
  }
  if (!c.kind.empty() && c.kind != "DataContract") {
    Error(*root.Find("kind"), "kind", "kind must be DataContract");
  }
  ContractSettings(root);
  const YamlNode* schema = Child(root, "", "schema", YamlNode::Kind::kSequence);
  if (schema == nullptr) return;
  for (size_t i = 0; i < schema->items.size(); ++i) {
    c.schema.emplace_back();
    Object(schema->items[i], Index("schema", i), &c.schema.back());
  }
}

void Reader::Object(const YamlNode& node, const std::string& key, ContractObject* out) {
  out->line = node.line;
  if (!node.is_map()) {
    Error(node, key, "a schema object is a mapping");
    return;
  }
  CheckKeys(node, key, kObjectKeys, "a schema object");
  out->id = Text(node, key, "id");
  out->name = Text(node, key, "name");
  out->physical_name = Text(node, key, "physicalName");
  out->physical_type = Text(node, key, "physicalType");
  out->description = Text(node, key, "description");
  if (out->name.empty()) Error(node, Join(key, "name"), "required key missing");
  std::string logical = Text(node, key, "logicalType");
  if (!logical.empty() && logical != "object") {
    Error(*node.Find("logicalType"), Join(key, "logicalType"),
          "a schema object's logicalType is 'object'");
  }
  if (const YamlNode* props = Child(node, key, "properties", YamlNode::Kind::kSequence)) {
    for (size_t i = 0; i < props->items.size(); ++i) {
      out->properties.emplace_back();
      Property(props->items[i], Index(Join(key, "properties"), i), out->name, "", 1,
               &out->properties.back());
    }
  }
  Quality(node, key, out->name, "", &out->quality);
}

void Reader::Options(const YamlNode& node, const std::string& key, ContractProperty* p) {
  std::string k = Join(key, "logicalTypeOptions");
  p->min_length = Int(node, k, "minLength");
  p->max_length = Int(node, k, "maxLength");
  auto text = [&](std::string_view name) -> std::optional<std::string> {
    const YamlNode* n = node.Find(name);
    if (n == nullptr || n->is_null()) return std::nullopt;
    return Text(*n, Join(k, name));
  };
  p->pattern = text("pattern");
  p->format = text("format");
  p->minimum = text("minimum");
  p->maximum = text("maximum");
  p->exclusive_minimum = text("exclusiveMinimum");
  p->exclusive_maximum = text("exclusiveMaximum");
  static const std::set<std::string_view> kKnown = {
      "minLength",       "maxLength",        "pattern",          "format",     "minimum",
      "maximum",         "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "timezone",
      "defaultTimezone", "minProperties",    "maxProperties",    "required",   "minItems",
      "maxItems",        "uniqueItems"};
  for (const auto& [name, value] : node.entries) {
    if (name == "enum") {
      Error(value, Join(k, name),
            "logicalTypeOptions has no 'enum' in ODCS; list accepted values with a "
            "quality rule {metric: invalidValues, arguments: {validValues: [...]}, "
            "mustBe: 0}");
    } else if (!kKnown.count(name)) {
      Warn(value, Join(k, name),
           fmt::format("unknown logicalTypeOptions key '{}' (ignored)",
                       EscapeForMessage(name)));
    }
  }
}

void Reader::Property(const YamlNode& node, const std::string& key,
                      const std::string& object, const std::string& parent_path,
                      int depth, ContractProperty* p) {
  p->line = node.line;
  if (!node.is_map()) {
    Error(node, key, "a property is a mapping");
    return;
  }
  if (depth > kMaxTypeDepth) {
    Error(node, key,
          fmt::format("properties nested deeper than {} levels", kMaxTypeDepth));
    return;
  }
  CheckKeys(node, key, kPropertyKeys, "a property");
  p->id = Text(node, key, "id");
  p->name = Text(node, key, "name");
  p->physical_name = Text(node, key, "physicalName");
  p->description = Text(node, key, "description");
  p->business_name = Text(node, key, "businessName");
  p->classification = Text(node, key, "classification");
  p->logical_type = Text(node, key, "logicalType");
  p->physical_type = Text(node, key, "physicalType");
  p->required = Bool(node, key, "required");
  p->unique = Bool(node, key, "unique");
  p->primary_key = Bool(node, key, "primaryKey");
  p->partitioned = Bool(node, key, "partitioned");
  p->critical = Bool(node, key, "criticalDataElement");
  p->primary_key_position = Int(node, key, "primaryKeyPosition").value_or(-1);
  p->partition_key_position = Int(node, key, "partitionKeyPosition").value_or(-1);
  if (p->name.empty() && depth >= 0)
    Error(node, Join(key, "name"), "required key missing");
  std::string path = parent_path.empty() ? p->name : parent_path + "." + p->name;
  if (const YamlNode* o = Child(node, key, "logicalTypeOptions", YamlNode::Kind::kMap)) {
    Options(*o, key, p);
  }
  std::vector<std::pair<std::string, const YamlNode*>> custom;
  CustomProperties(node, key, &custom);
  for (const auto& [name, value] : custom) {
    if (name == "aliases" && value != nullptr) {
      p->aliases = TextList(*value, Join(key, "customProperties.aliases"));
    } else if (name != "drift") {
      Warn(value ? *value : node, Join(key, "customProperties." + name),
           fmt::format("unknown custom property '{}' (ignored)", EscapeForMessage(name)));
    }
  }
  if (const YamlNode* props = Child(node, key, "properties", YamlNode::Kind::kSequence)) {
    for (size_t i = 0; i < props->items.size(); ++i) {
      p->properties.emplace_back();
      Property(props->items[i], Index(Join(key, "properties"), i), object, path,
               depth + 1, &p->properties.back());
    }
  }
  if (const YamlNode* items = node.Find("items")) {
    if (items->is_map()) {
      p->items.emplace_back();
      p->items.back().name = "element";
      Property(*items, Join(key, "items"), object, path + ".element", depth + 1,
               &p->items.back());
    } else if (!items->is_null()) {
      Error(*items, Join(key, "items"), "expected a mapping (the array's element)");
    }
  }
  ResolveType(node, key, p);
  Quality(node, key, object, path, &p->quality);
}

// The Delta type of a property: physicalType when given (a Delta/Spark SQL type),
// else from logicalType (and nested properties/items).
void Reader::ResolveType(const YamlNode& node, const std::string& key,
                         ContractProperty* p) {
  if (!p->logical_type.empty() && !kLogicalTypes.count(p->logical_type)) {
    Error(*node.Find("logicalType"), Join(key, "logicalType"),
          fmt::format("unknown logicalType '{}' (one of string, date, timestamp, time, "
                      "number, integer, object, array, boolean)",
                      EscapeForMessage(p->logical_type)));
    return;
  }
  if (!p->physical_type.empty()) {
    auto type = ParseDdlType(p->physical_type);
    if (!type) {
      Error(*node.Find("physicalType"), Join(key, "physicalType"),
            fmt::format("physicalType '{}' is not a Delta type: {}",
                        EscapeForMessage(p->physical_type), type.error().message));
      return;
    }
    p->type = *type;
    return;
  }
  const std::string& lt = p->logical_type;
  std::string ddl;
  if (lt == "string" || lt == "time") ddl = "string";
  if (lt == "integer") ddl = "bigint";
  if (lt == "number") ddl = "double";
  if (lt == "boolean") ddl = "boolean";
  if (lt == "date") ddl = "date";
  if (lt == "timestamp") ddl = "timestamp";
  if (!ddl.empty()) {
    p->type = *ParseDdlType(ddl);
    return;
  }
  if (lt == "object" || (lt.empty() && !p->properties.empty())) {
    std::vector<StructField> fields;
    for (const auto& child : p->properties) {
      if (!child.type) return;  // the child's own diagnostic says why
      fields.push_back({child.name, child.type, !child.required, {}});
    }
    p->type = std::make_shared<StructType>(std::move(fields));
    return;
  }
  if (lt == "array") {
    if (p->items.empty()) {
      Error(node, Join(key, "items"),
            "an array property needs 'items' or a physicalType");
      return;
    }
    if (!p->items[0].type) return;
    p->type = std::make_shared<ArrayType>(p->items[0].type, !p->items[0].required);
    return;
  }
  Error(node, key, "a property needs a physicalType (a Delta type) or a logicalType");
}

void Reader::Quality(const YamlNode& parent, const std::string& key,
                     const std::string& object, const std::string& property,
                     std::vector<QualityRule>* out) {
  const YamlNode* list = Child(parent, key, "quality", YamlNode::Kind::kSequence);
  if (list == nullptr) return;
  for (size_t i = 0; i < list->items.size(); ++i) {
    QualityRule r;
    r.object = object;
    r.property = property;
    r.line = list->items[i].line;
    Rule(list->items[i], Index(Join(key, "quality"), i), &r);
    out->push_back(std::move(r));
  }
}

void Reader::Rule(const YamlNode& node, const std::string& key, QualityRule* r) {
  if (!node.is_map()) {
    Error(node, key, "a quality rule is a mapping");
    return;
  }
  CheckKeys(node, key, kQualityKeys, "a quality rule");
  r->id = Text(node, key, "id");
  r->name = Text(node, key, "name");
  r->description = Text(node, key, "description");
  r->metric = Text(node, key, "metric");
  if (r->metric.empty()) r->metric = Text(node, key, "rule");  // ODCS v3.0's name
  std::string type = Text(node, key, "type");
  r->type = type.empty() ? "library" : type;
  r->unit = Text(node, key, "unit");
  if (r->unit.empty()) r->unit = "rows";
  r->severity = Text(node, key, "severity");
  if (r->severity.empty()) r->severity = "error";
  r->dimension = Text(node, key, "dimension");
  r->query = Text(node, key, "query");
  r->engine = Text(node, key, "engine");
  r->implementation = Text(node, key, "implementation");
  if (const YamlNode* args = Child(node, key, "arguments", YamlNode::Kind::kMap)) {
    std::string ak = Join(key, "arguments");
    r->valid_values = TextList(*args, ak, "validValues");
    r->missing_values = TextList(*args, ak, "missingValues");
    r->properties = TextList(*args, ak, "properties");
    if (const YamlNode* p = args->Find("pattern"))
      r->pattern = Text(*p, Join(ak, "pattern"));
  }
  if (const YamlNode* v = node.Find("validValues")) {  // ODCS v3.0 placement
    r->valid_values = TextList(*v, Join(key, "validValues"));
  }
  for (std::string_view op : kOperators) {
    const YamlNode* n = node.Find(op);
    if (n == nullptr) continue;
    if (!r->op.empty()) {
      Error(*n, Join(key, op),
            fmt::format("a rule has one comparison; '{}' already given", r->op));
      continue;
    }
    r->op = std::string(op);
    bool between = op == "mustBeBetween" || op == "mustNotBeBetween";
    if (between) {
      if (!n->is_sequence() || n->items.size() != 2) {
        Error(*n, Join(key, op), "expected two numbers [low, high]");
        continue;
      }
      for (size_t i = 0; i < 2; ++i) {
        if (auto d = Number(n->items[i], Index(Join(key, op), i))) {
          r->operands.push_back(*d);
        }
      }
    } else if (auto d = Number(*n, Join(key, op))) {
      r->operands.push_back(*d);
    }
  }
}

}  // namespace

std::string ContractDiagnostic::ToString() const {
  std::string where = file;
  if (line > 0) where += fmt::format(":{}:{}", line, column);
  return fmt::format("{}: {}: {}{}", where, is_error() ? "error" : "warning",
                     key.empty() ? "" : key + ": ", message);
}

bool ContractParse::HasErrors() const {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const ContractDiagnostic& d) { return d.is_error(); });
}

std::string ContractHash(std::string_view bytes) {
  XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

Result<ContractParse> ParseContract(std::string_view text, std::string_view file) {
  DELTA_ASSIGN_OR_RETURN(YamlNode root, ParseYaml(text, file));
  ContractParse out;
  out.contract.file = std::string(file);
  out.contract.hash = ContractHash(text);
  Reader reader(&out);
  reader.Top(root);
  return out;
}

Result<ContractParse> ReadContract(const FileSystem& fs, const std::string& path) {
  DELTA_ASSIGN_OR_RETURN(std::string text, fs.ReadFile(path));
  return ParseContract(text, path);
}

namespace {

Result<Contract> Checked(ContractParse parse, std::vector<ContractDiagnostic>* warnings) {
  if (!parse.HasErrors()) {
    for (auto& d : LintContract(parse.contract))
      parse.diagnostics.push_back(std::move(d));
  }
  std::string errors;
  size_t count = 0;
  for (const auto& d : parse.diagnostics) {
    if (d.is_error()) {
      ++count;
      errors += "\n  " + d.ToString();
    } else if (warnings != nullptr) {
      warnings->push_back(d);
    }
  }
  if (count > 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "contract {} is not valid ({} error{}):{}", parse.contract.file,
                     count, count == 1 ? "" : "s", errors);
  }
  return std::move(parse.contract);
}

}  // namespace

Result<Contract> LoadContract(const FileSystem& fs, const std::string& path,
                              std::vector<ContractDiagnostic>* warnings) {
  DELTA_ASSIGN_OR_RETURN(ContractParse parse, ReadContract(fs, path));
  return Checked(std::move(parse), warnings);
}

Result<Contract> LoadContractText(std::string_view text, std::string_view file,
                                  std::vector<ContractDiagnostic>* warnings) {
  DELTA_ASSIGN_OR_RETURN(ContractParse parse, ParseContract(text, file));
  return Checked(std::move(parse), warnings);
}

}  // namespace deltaguard
