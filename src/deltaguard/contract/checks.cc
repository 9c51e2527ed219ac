#include "deltaguard/contract/checks.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "deltaguard/expr/ast.h"
#include "deltaguard/expr/printer.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

std::string ColumnSql(const std::string& path) {
  std::string out;
  for (auto part : Split(path, '.')) {
    out += (out.empty() ? "" : ".") + QuoteIdentifier(part);
  }
  return out;
}

bool IsNumber(const std::string& text) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && ptr == text.data() + text.size() && std::isfinite(v);
}

// A bound of `type` as a SQL literal: numbers as written, dates and timestamps typed.
std::string BoundLiteral(const DataType& type, const std::string& text) {
  switch (type.kind()) {
    case TypeKind::kDate:
      return "DATE " + SqlStringLiteral(text);
    case TypeKind::kTimestamp:
      return "TIMESTAMP " + SqlStringLiteral(text);
    case TypeKind::kTimestampNtz:
      return "TIMESTAMP_NTZ " + SqlStringLiteral(text);
    default:
      break;
  }
  return IsNumber(text) ? text : SqlStringLiteral(text);
}

QualityRule MustBeZero() {
  QualityRule r;
  r.op = "mustBe";
  r.operands = {0};
  return r;
}

class Planner {
 public:
  Planner(const ContractObject& object, std::string table)
      : object_(object), table_(std::move(table)) {}

  std::vector<ContractCheckSpec> Run() {
    for (const auto& p : object_.properties) Property(p, "");
    std::vector<std::string> key;
    for (const auto& p : object_.properties) {
      if (p.primary_key) key.push_back(p.name);
    }
    if (key.size() > 1) {
      ContractCheckSpec s = Implied(
          "primaryKey", "", "rows sharing a primary key (" + JoinNames(key) + ")");
      s.kind = ContractCheckSpec::Kind::kDuplicates;
      s.columns = key;
      out_.push_back(std::move(s));
    }
    for (const auto& r : object_.quality) Rule(r, nullptr);
    return std::move(out_);
  }

 private:
  static std::string JoinNames(const std::vector<std::string>& names) {
    std::string s;
    for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
  }

  ContractCheckSpec Implied(const std::string& what, const std::string& path,
                            const std::string& description) {
    ContractCheckSpec s;
    s.id = path.empty() ? what : path + "." + what;
    s.description = description;
    s.property = path;
    s.rule = MustBeZero();
    s.implied = true;
    return s;
  }

  void Predicate(const std::string& what, const std::string& path,
                 const std::string& description, std::string predicate,
                 bool as_constraint) {
    ContractCheckSpec s = Implied(what, path, description);
    s.predicate = std::move(predicate);
    s.as_constraint = as_constraint;
    out_.push_back(std::move(s));
  }

  void Property(const ContractProperty& p, const std::string& parent) {
    std::string path = parent.empty() ? p.name : parent + "." + p.name;
    std::string col = ColumnSql(path);
    std::string or_null = col + " IS NULL OR ";
    if (p.required) {
      Predicate("required", path, "rows where " + path + " is NULL", col + " IS NOT NULL",
                false);
    }
    if ((p.unique || p.primary_key) && parent.empty()) {
      size_t keys = 0;
      for (const auto& q : object_.properties) keys += q.primary_key;
      if (p.unique || keys == 1) {
        ContractCheckSpec s = Implied(p.unique ? "unique" : "primaryKey", path,
                                      "rows repeating a value of " + path);
        s.kind = ContractCheckSpec::Kind::kDuplicates;
        s.columns = {path};
        out_.push_back(std::move(s));
      }
    }
    if (p.min_length) {
      Predicate("minLength", path,
                fmt::format("values of {} shorter than {}", path, *p.min_length),
                or_null + fmt::format("length({}) >= {}", col, *p.min_length), true);
    }
    if (p.max_length) {
      Predicate("maxLength", path,
                fmt::format("values of {} longer than {}", path, *p.max_length),
                or_null + fmt::format("length({}) <= {}", col, *p.max_length), true);
    }
    if (p.pattern) {
      Predicate("pattern", path,
                fmt::format("values of {} not matching {}", path, *p.pattern),
                or_null + col + " RLIKE " + SqlStringLiteral(*p.pattern), true);
    }
    if (p.type) {
      auto bound = [&](const std::optional<std::string>& v, const char* what,
                       const char* op) {
        if (!v) return;
        Predicate(what, path, fmt::format("values of {} not {} {}", path, op, *v),
                  or_null + fmt::format("{} {} {}", col, op, BoundLiteral(*p.type, *v)),
                  true);
      };
      bound(p.minimum, "minimum", ">=");
      bound(p.maximum, "maximum", "<=");
      bound(p.exclusive_minimum, "exclusiveMinimum", ">");
      bound(p.exclusive_maximum, "exclusiveMaximum", "<");
    }
    for (const auto& child : p.properties) Property(child, path);
    for (const auto& r : p.quality) Rule(r, &path);
  }

  void Rule(const QualityRule& r, const std::string* path) {
    ContractCheckSpec s;
    s.rule = r;
    s.property = path ? *path : "";
    std::string what = r.type == "library" ? r.metric : r.type + " rule";
    s.id = !r.id.empty() ? r.id : (path ? *path + "." : "") + what;
    s.description =
        fmt::format("{}{} {}{}", what, path ? " of " + *path : "", r.ComparisonText(),
                    r.unit == "percent" ? " (percent)" : "");
    if (r.type == "text" || r.type == "custom") {
      s.kind = ContractCheckSpec::Kind::kSkipped;
      s.skip_reason = r.type == "text" ? "a text rule documents, it is not run"
                                       : "custom rules (engine " + r.engine +
                                             ") are not run by deltaguard";
      out_.push_back(std::move(s));
      return;
    }
    if (r.type == "sql") {
      s.kind = ContractCheckSpec::Kind::kSql;
      s.query = r.query;
      Replace(&s.query, "{object}", table_);
      Replace(&s.query, "{property}", path ? ColumnSql(*path) : "NULL");
      out_.push_back(std::move(s));
      return;
    }
    std::string col = path ? ColumnSql(*path) : "";
    if (r.metric == "rowCount") {
      s.kind = ContractCheckSpec::Kind::kRowCount;
    } else if (r.metric == "duplicateValues") {
      s.kind = ContractCheckSpec::Kind::kDuplicates;
      s.columns = path ? std::vector<std::string>{*path} : r.properties;
    } else if (r.metric == "nullValues") {
      s.predicate = col + " IS NOT NULL";
    } else if (r.metric == "missingValues") {
      std::string values;
      for (const auto& v : r.missing_values) {
        values += (values.empty() ? "" : ", ") + SqlStringLiteral(v);
      }
      s.predicate =
          col + " IS NOT NULL" +
          (values.empty() ? ""
                          : " AND CAST(" + col + " AS STRING) NOT IN (" + values + ")");
    } else if (r.metric == "invalidValues") {
      std::string cond;
      if (!r.valid_values.empty()) {
        std::string values;
        for (const auto& v : r.valid_values) {
          values += (values.empty() ? "" : ", ") + SqlStringLiteral(v);
        }
        cond = "CAST(" + col + " AS STRING) IN (" + values + ")";
      }
      if (r.pattern) {
        cond += (cond.empty() ? "" : " AND ") + col + " RLIKE " +
                SqlStringLiteral(*r.pattern);
      }
      s.predicate = col + " IS NULL OR (" + cond + ")";
      // accepted values that must hold for every row are a CHECK constraint
      s.as_constraint =
          r.unit == "rows" && r.op == "mustBe" && r.operands == std::vector<double>{0};
    }
    out_.push_back(std::move(s));
  }

  static void Replace(std::string* s, std::string_view from, const std::string& to) {
    for (size_t at = s->find(from); at != std::string::npos;
         at = s->find(from, at + to.size())) {
      s->replace(at, from.size(), to);
    }
  }

  const ContractObject& object_;
  std::string table_;
  std::vector<ContractCheckSpec> out_;
};

}  // namespace

std::string SqlStringLiteral(const std::string& value) {
  return ToSql(*Expr::String(value));
}

std::vector<ContractCheckSpec> PlanContractChecks(const ContractObject& object,
                                                  const std::string& table) {
  return Planner(object, table).Run();
}

}  // namespace deltaguard
