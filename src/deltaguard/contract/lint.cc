#include "deltaguard/contract/lint.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <variant>

#include "deltaguard/sql/parse/sql_parser.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

const std::set<std::string_view> kMetrics = {
    "nullValues", "missingValues", "invalidValues", "duplicateValues", "rowCount"};
const std::set<std::string_view> kDimensions = {
    "accuracy", "completeness", "conformity", "consistency",
    "coverage", "timeliness",   "uniqueness"};
const std::set<std::string_view> kStatuses = {"proposed", "draft", "active", "deprecated",
                                              "retired"};

class Linter {
 public:
  explicit Linter(const Contract& c) : c_(c) {}

  std::vector<ContractDiagnostic> Run() {
    auto version = ParseSemVer(c_.version);
    if (!version) Error(0, "version", version.error().message);
    if (!c_.status.empty() && !kStatuses.count(c_.status)) {
      Warn(0, "status",
           fmt::format("status '{}' is none of proposed, draft, active, "
                       "deprecated, retired",
                       EscapeForMessage(c_.status)));
    }
    Id(c_.id, 0, "id");
    for (size_t i = 0; i < c_.schema.size(); ++i) Object(c_.schema[i], i);
    return std::move(out_);
  }

 private:
  void Add(ContractDiagnostic::Severity s, int line, std::string key, std::string msg) {
    out_.push_back({s, c_.file, line, line > 0 ? 1 : 0, std::move(key), std::move(msg)});
  }
  void Error(int line, std::string key, std::string msg) {
    Add(ContractDiagnostic::Severity::kError, line, std::move(key), std::move(msg));
  }
  void Warn(int line, std::string key, std::string msg) {
    Add(ContractDiagnostic::Severity::kWarning, line, std::move(key), std::move(msg));
  }

  void Id(const std::string& id, int line, const std::string& key) {
    if (id.empty()) return;
    auto [it, fresh] = ids_.emplace(id, line);
    if (!fresh) {
      Error(line, key,
            fmt::format("duplicate id '{}' (first used at line {})", EscapeForMessage(id),
                        it->second));
    }
  }

  void Object(const ContractObject& o, size_t i) {
    std::string key = fmt::format("schema[{}]", i);
    Id(o.id, o.line, key + ".id");
    Properties(o.properties, key, o);
    std::map<int64_t, std::string> pk, part;
    Positions(o.properties, key, &pk, &part);
    for (size_t r = 0; r < o.quality.size(); ++r) {
      Rule(o.quality[r], fmt::format("{}.quality[{}]", key, r), o, nullptr);
    }
  }

  void Positions(const std::vector<ContractProperty>& props, const std::string& key,
                 std::map<int64_t, std::string>* pk,
                 std::map<int64_t, std::string>* part) {
    for (size_t i = 0; i < props.size(); ++i) {
      const ContractProperty& p = props[i];
      std::string k = fmt::format("{}.properties[{}]", key, i);
      auto check = [&](bool flag, int pos, std::map<int64_t, std::string>* seen,
                       std::string_view what) {
        if (!flag || pos < 0) return;
        auto [it, fresh] = seen->emplace(pos, p.name);
        if (!fresh) {
          Error(p.line, fmt::format("{}.{}Position", k, what),
                fmt::format("{} position {} is used by '{}' and '{}'", what, pos,
                            it->second, p.name));
        }
      };
      check(p.primary_key, p.primary_key_position, pk, "primaryKey");
      check(p.partitioned, p.partition_key_position, part, "partitionKey");
      if (p.partitioned && (!p.type || !p.type->is_primitive())) {
        Error(p.line, k + ".partitioned",
              fmt::format("'{}' cannot be a partition column: only primitive types can",
                          p.name));
      }
    }
  }

  void Properties(const std::vector<ContractProperty>& props, const std::string& key,
                  const ContractObject& o) {
    std::map<std::string, int> names;
    for (size_t i = 0; i < props.size(); ++i) {
      const ContractProperty& p = props[i];
      std::string k = fmt::format("{}.properties[{}]", key, i);
      auto [it, fresh] = names.emplace(AsciiToLower(p.name), p.line);
      if (!fresh) {
        Error(p.line, k + ".name",
              fmt::format("property '{}' is declared twice (first at line {}; names "
                          "compare case-insensitively, as Delta's do)",
                          p.name, it->second));
      }
      for (const auto& alias : p.aliases) {
        if (EqualsIgnoreCase(alias, p.name)) {
          Warn(p.line, k + ".customProperties.aliases",
               fmt::format("alias '{}' is the property's own name", alias));
        }
      }
      Property(p, k, o);
    }
  }

  void Property(const ContractProperty& p, const std::string& k,
                const ContractObject& o) {
    Id(p.id, p.line, k + ".id");
    if (p.type && !p.logical_type.empty() &&
        !LogicalTypeAdmits(p.logical_type, *p.type)) {
      Error(p.line, k + ".logicalType",
            fmt::format("logicalType '{}' does not match physicalType '{}' (a {} type)",
                        p.logical_type,
                        p.physical_type.empty() ? p.type->ToString() : p.physical_type,
                        LogicalTypeOf(*p.type)));
    }
    if (p.type) {
      bool text = p.type->kind() == TypeKind::kString;
      if ((p.min_length || p.max_length || p.pattern) && !text) {
        Error(p.line, k + ".logicalTypeOptions",
              fmt::format("minLength, maxLength and pattern apply to strings; '{}' is {}",
                          p.name, p.type->ToString()));
      }
      bool ordered = p.type->is_numeric() || p.type->kind() == TypeKind::kDate ||
                     p.type->kind() == TypeKind::kTimestamp ||
                     p.type->kind() == TypeKind::kTimestampNtz;
      if ((p.minimum || p.maximum || p.exclusive_minimum || p.exclusive_maximum) &&
          !ordered) {
        Error(p.line, k + ".logicalTypeOptions",
              fmt::format("minimum and maximum apply to numbers, dates and timestamps; "
                          "'{}' is {}",
                          p.name, p.type->ToString()));
      }
    }
    if (p.min_length && p.max_length && *p.min_length > *p.max_length) {
      Error(p.line, k + ".logicalTypeOptions",
            fmt::format("minLength {} is greater than maxLength {}", *p.min_length,
                        *p.max_length));
    }
    Properties(p.properties, k, o);
    for (size_t i = 0; i < p.items.size(); ++i) Property(p.items[i], k + ".items", o);
    for (size_t r = 0; r < p.quality.size(); ++r) {
      Rule(p.quality[r], fmt::format("{}.quality[{}]", k, r), o, &p);
    }
  }

  // A property of `o` by column path (case-insensitive, dotted for nested fields).
  static bool HasColumn(const ContractObject& o, std::string_view name) {
    for (const auto& p : o.properties) {
      if (EqualsIgnoreCase(p.name, name)) return true;
    }
    return false;
  }

  void Rule(const QualityRule& r, const std::string& k, const ContractObject& o,
            const ContractProperty* p) {
    Id(r.id, r.line, k + ".id");
    if (r.severity != "info" && r.severity != "warning" && r.severity != "error") {
      Warn(r.line, k + ".severity",
           fmt::format("severity '{}' is none of info, warning, error (treated as error)",
                       EscapeForMessage(r.severity)));
    }
    if (!r.dimension.empty() && !kDimensions.count(r.dimension)) {
      Warn(r.line, k + ".dimension",
           fmt::format("dimension '{}' is not an ODCS dimension",
                       EscapeForMessage(r.dimension)));
    }
    if (r.unit != "rows" && r.unit != "percent") {
      Error(r.line, k + ".unit", "unit is rows or percent");
    }
    if (r.type == "text") return;
    if (r.type == "custom") {
      if (r.engine.empty())
        Error(r.line, k + ".engine", "a custom rule names its engine");
      Warn(r.line, k,
           fmt::format("custom rules (engine '{}') are not run by deltaguard",
                       EscapeForMessage(r.engine)));
      return;
    }
    if (r.op.empty()) {
      Error(r.line, k, "the rule has no comparison (mustBe, mustBeLessThan, ...)");
    }
    if (r.type == "sql") {
      SqlRule(r, k, o, p);
      return;
    }
    if (r.type != "library") {
      Error(r.line, k + ".type",
            fmt::format("unknown rule type '{}' (library, sql, custom or text)",
                        EscapeForMessage(r.type)));
      return;
    }
    LibraryRule(r, k, o, p);
  }

  void LibraryRule(const QualityRule& r, const std::string& k, const ContractObject& o,
                   const ContractProperty* p) {
    if (!kMetrics.count(r.metric)) {
      Error(r.line, k + ".metric",
            fmt::format("unknown metric '{}' (nullValues, missingValues, invalidValues, "
                        "duplicateValues, rowCount)",
                        EscapeForMessage(r.metric)));
      return;
    }
    bool property_metric = r.metric != "rowCount" && r.metric != "duplicateValues";
    if (property_metric && p == nullptr) {
      Error(r.line, k + ".metric",
            fmt::format("{} is a property-level metric; put the rule under the "
                        "property's quality",
                        r.metric));
    }
    if (r.metric == "rowCount" && p != nullptr) {
      Error(r.line, k + ".metric", "rowCount is an object-level metric");
    }
    if (r.metric == "rowCount" && r.unit == "percent") {
      Error(r.line, k + ".unit", "rowCount counts rows; unit percent does not apply");
    }
    if (r.metric == "invalidValues" && r.valid_values.empty() && !r.pattern) {
      Error(r.line, k + ".arguments",
            "invalidValues needs arguments.validValues or arguments.pattern");
    }
    if (r.metric == "duplicateValues" && p == nullptr) {
      if (r.properties.empty()) {
        Error(r.line, k + ".arguments.properties",
              "an object-level duplicateValues rule lists its properties");
      }
      for (const auto& name : r.properties) {
        if (!HasColumn(o, name)) {
          Error(r.line, k + ".arguments.properties",
                fmt::format("'{}' is not a property of '{}'", EscapeForMessage(name),
                            o.name));
        }
      }
    }
  }

  void SqlRule(const QualityRule& r, const std::string& k, const ContractObject& o,
               const ContractProperty* p) {
    if (r.query.empty()) {
      Error(r.line, k + ".query", "a sql rule needs a query");
      return;
    }
    std::string sql = r.query;
    auto replace = [&sql](std::string_view from, const std::string& to) {
      for (size_t at = sql.find(from); at != std::string::npos;
           at = sql.find(from, at + to.size())) {
        sql.replace(at, from.size(), to);
      }
    };
    replace("{object}",
            BacktickQuote(o.physical_name.empty() ? o.name : o.physical_name));
    replace("{property}", p ? BacktickQuote(p->name) : std::string("NULL"));
    auto parsed = ParseSql(sql);
    if (!parsed) {
      Error(r.line, k + ".query",
            fmt::format("the query does not parse: {}", parsed.error().message));
      return;
    }
    if (parsed->size() != 1 ||
        !std::holds_alternative<SelectStmt>(parsed->front().body)) {
      Error(r.line, k + ".query", "a sql rule is one read-only SELECT");
    }
  }

  const Contract& c_;
  std::vector<ContractDiagnostic> out_;
  std::map<std::string, int> ids_;
};

}  // namespace

std::string_view LogicalTypeOf(const DataType& type) {
  switch (type.kind()) {
    case TypeKind::kString:
      return "string";
    case TypeKind::kByte:
    case TypeKind::kShort:
    case TypeKind::kInteger:
    case TypeKind::kLong:
      return "integer";
    case TypeKind::kBoolean:
      return "boolean";
    case TypeKind::kDate:
      return "date";
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
      return "timestamp";
    case TypeKind::kStruct:
      return "object";
    case TypeKind::kArray:
      return "array";
    default:
      break;
  }
  if (type.is_numeric()) return "number";
  return "object";  // map, binary, variant: no ODCS logical type fits better
}

bool LogicalTypeAdmits(std::string_view logical, const DataType& type) {
  std::string_view actual = LogicalTypeOf(type);
  if (logical == actual) return true;
  if (logical == "number" && actual == "integer") return true;
  if (logical == "time" && actual == "string") return true;
  return false;
}

std::vector<ContractDiagnostic> LintContract(const Contract& contract) {
  return Linter(contract).Run();
}

}  // namespace deltaguard
