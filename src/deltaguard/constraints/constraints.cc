// CHECK constraints and legacy invariants (constraints.h).

#include "deltaguard/constraints/constraints.h"

#include <fmt/format.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <utility>

#include "deltaguard/expr/parser.h"
#include "deltaguard/protocol/write_protocol.h"
#include "deltaguard/schema/column_path.h"
#include "deltaguard/util/json_bounded.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

// The expression text inside a `delta.invariants` value: a JSON string whose content is
// {"expression":{"expression":"<SQL>"}} (PROTOCOL.md "Column Invariants").
Result<std::string> InvariantExpression(const StructField& field,
                                        const std::vector<std::string>& path) {
  auto text = field.metadata.GetString(kInvariantsKey);
  auto bad = [&](std::string_view why) {
    return MakeError(ErrorCode::kCorruptLog,
                     "column '{}': {} metadata {} is not a JSON string holding "
                     "{{\"expression\":{{\"expression\":\"<SQL>\"}}}}: {}",
                     JoinColumnPath(path), kInvariantsKey,
                     *field.metadata.FindRaw(kInvariantsKey), why);
  };
  if (!text) return bad("the value is not a string");
  rapidjson::Document doc;
  switch (ParseBoundedJson(*text, &doc)) {
    case JsonParseOutcome::kTooDeep:
      return bad(fmt::format("the JSON nests deeper than {} levels", kMaxJsonDepth));
    case JsonParseOutcome::kInvalid:
      return bad("the string is not JSON");
    case JsonParseOutcome::kOk:
      break;
  }
  if (!doc.IsObject()) return bad("the JSON is not an object");
  auto outer = doc.FindMember("expression");
  if (outer == doc.MemberEnd() || !outer->value.IsObject()) {
    return bad("no \"expression\" object");
  }
  auto inner = outer->value.FindMember("expression");
  if (inner == outer->value.MemberEnd() || !inner->value.IsString()) {
    return bad("no \"expression\" string inside the \"expression\" object");
  }
  return std::string(inner->value.GetString(), inner->value.GetStringLength());
}

// Walk struct fields depth first; invariants inside arrays and maps cannot be expressed
// over the top-level columns and are refused rather than skipped.
Status CollectInvariants(const StructType& type, std::vector<std::string>* path,
                         bool inside_collection, std::vector<Constraint>* out);

Status CollectInvariantsIn(const DataType& type, std::vector<std::string>* path,
                           bool inside_collection, std::vector<Constraint>* out) {
  switch (type.kind()) {
    case TypeKind::kStruct:
      return CollectInvariants(static_cast<const StructType&>(type), path,
                               inside_collection, out);
    case TypeKind::kArray:
      return CollectInvariantsIn(*static_cast<const ArrayType&>(type).element_type(),
                                 path, true, out);
    case TypeKind::kMap: {
      const auto& map = static_cast<const MapType&>(type);
      DELTA_RETURN_IF_ERROR(CollectInvariantsIn(*map.key_type(), path, true, out));
      return CollectInvariantsIn(*map.value_type(), path, true, out);
    }
    default:
      return OkStatus();
  }
}

Status CollectInvariants(const StructType& type, std::vector<std::string>* path,
                         bool inside_collection, std::vector<Constraint>* out) {
  for (const StructField& field : type.fields()) {
    path->push_back(field.name);
    if (field.metadata.FindRaw(kInvariantsKey) != nullptr) {
      if (inside_collection) {
        return MakeError(ErrorCode::kUnsupportedFeature,
                         "column '{}' has an invariant ({}) inside an array or map; "
                         "deltaguard cannot enforce it, so it refuses to write",
                         JoinColumnPath(*path), kInvariantsKey);
      }
      DELTA_ASSIGN_OR_RETURN(std::string expression, InvariantExpression(field, *path));
      out->push_back(Constraint{ConstraintKind::kInvariant, JoinColumnPath(*path),
                                std::move(expression)});
    }
    DELTA_RETURN_IF_ERROR(CollectInvariantsIn(*field.type, path, inside_collection, out));
    path->pop_back();
  }
  return OkStatus();
}

bool HasControlCharacter(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
}

// True when one path is a prefix of the other (case-insensitive).
bool Overlaps(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    if (!EqualsIgnoreCase(a[i], b[i])) return false;
  }
  return true;
}

}  // namespace

std::string Constraint::Describe() const {
  switch (kind) {
    case ConstraintKind::kCheck:
      return fmt::format("CHECK constraint {}", name);
    case ConstraintKind::kInvariant:
      return fmt::format("invariant on column {}", name);
    case ConstraintKind::kNotNull:
      return fmt::format("NOT NULL column {}", name);
    case ConstraintKind::kContractRule:
      return fmt::format("contract rule {}", name);
    case ConstraintKind::kDataTest:
      return fmt::format("data test {}", name);
  }
  return name;
}

namespace {

// NOT NULL fields of `st` and of the structs nested in it (not inside arrays or maps),
// each before its children; `name`/`expr` are the enclosing struct's dotted name and
// backquoted reference.
void AddNotNull(const StructType& st, const std::string& name, const std::string& expr,
                std::vector<Constraint>* out) {
  for (const StructField& field : st.fields()) {
    const std::string quoted = BacktickQuote(field.name);
    std::string field_name = ChildColumnPath(name, field.name);
    std::string field_expr = expr.empty() ? quoted : expr + "." + quoted;
    if (!field.nullable) {
      out->push_back(
          Constraint{ConstraintKind::kNotNull, field_name, field_expr + " IS NOT NULL"});
    }
    if (field.type->kind() == TypeKind::kStruct) {
      AddNotNull(static_cast<const StructType&>(*field.type), field_name, field_expr,
                 out);
    }
  }
}

}  // namespace

std::vector<Constraint> NotNullConstraints(const StructType& schema) {
  std::vector<Constraint> out;
  AddNotNull(schema, "", "", &out);
  return out;
}

std::string ConstraintPropertyKey(std::string_view name) {
  return std::string(kConstraintPropertyPrefix) + AsciiToLower(name);
}

std::vector<Constraint> CheckConstraints(const Metadata& metadata) {
  std::vector<Constraint> out;
  for (const auto& [key, value] : metadata.configuration) {
    if (!StartsWithIgnoreCase(key, kConstraintPropertyPrefix)) continue;
    out.push_back(Constraint{ConstraintKind::kCheck,
                             key.substr(kConstraintPropertyPrefix.size()), value});
  }
  return out;
}

std::optional<Constraint> FindCheckConstraint(const Metadata& metadata,
                                              std::string_view name) {
  for (auto& c : CheckConstraints(metadata)) {
    if (EqualsIgnoreCase(c.name, name)) return c;
  }
  return std::nullopt;
}

Result<std::vector<Constraint>> Invariants(const StructType& schema) {
  std::vector<Constraint> out;
  std::vector<std::string> path;
  DELTA_RETURN_IF_ERROR(CollectInvariants(schema, &path, false, &out));
  return out;
}

Result<std::vector<Constraint>> AllConstraints(const Metadata& metadata,
                                               const StructType& schema) {
  std::vector<Constraint> out = CheckConstraints(metadata);
  DELTA_ASSIGN_OR_RETURN(auto invariants, Invariants(schema));
  for (auto& c : invariants) out.push_back(std::move(c));
  return out;
}

Result<BoundConstraint> BindConstraint(const Constraint& constraint,
                                       const StructType& schema) {
  const std::string what =
      fmt::format("{} ({})", constraint.Describe(), constraint.expression);
  auto parsed = ParseExpression(constraint.expression);
  if (!parsed) return WithContext(parsed.error(), what);
  auto bound = Bind(**parsed, schema);
  if (!bound) {
    Error e = bound.error();
    if (e.code == ErrorCode::kNotFound) {
      e.message = "DELTA_INVALID_CHECK_CONSTRAINT_REFERENCES: " + e.message;
    }
    return WithContext(std::move(e), what);
  }
  const BoundExpr& expr = **bound;
  if (expr.type->kind() != TypeKind::kBoolean) {
    return MakeError(ErrorCode::kSchemaMismatch,
                     "DELTA_NON_BOOLEAN_CHECK_CONSTRAINT: {}: the expression is {}, a "
                     "constraint must be BOOLEAN",
                     what, expr.type->ToString());
  }
  if (ContainsAggregate(expr)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "DELTA_AGGREGATE_IN_CHECK_CONSTRAINT: {}: aggregate functions are "
                     "not allowed in a constraint, which is checked row by row",
                     what);
  }
  if (!IsDeterministic(expr)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "DELTA_NON_DETERMINISTIC_EXPRESSION_IN_CHECK_CONSTRAINT: {}: "
                     "current_date()/current_timestamp() are not allowed in a "
                     "constraint; its result must not change over time",
                     what);
  }
  BoundConstraint out;
  out.constraint = constraint;
  out.predicate = *bound;
  out.columns = ReferencedColumns(expr);
  return out;
}

Result<std::vector<BoundConstraint>> BindAllConstraints(const Metadata& metadata,
                                                        const StructType& schema) {
  DELTA_ASSIGN_OR_RETURN(auto all, AllConstraints(metadata, schema));
  std::vector<BoundConstraint> out;
  out.reserve(all.size());
  for (const auto& c : all) {
    DELTA_ASSIGN_OR_RETURN(auto bound, BindConstraint(c, schema));
    out.push_back(std::move(bound));
  }
  return out;
}

Result<BoundConstraint> ValidateNewCheckConstraint(const Metadata& metadata,
                                                   const StructType& schema,
                                                   std::string_view name,
                                                   std::string_view expr_sql) {
  if (name.empty() || HasControlCharacter(name) || !IsValidUtf8(name)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "DELTA_INVALID_CONSTRAINT_NAME: '{}' cannot be a constraint name: "
                     "it must be non-empty UTF-8 without control characters",
                     name);
  }
  if (EqualsIgnoreCase(name, kReservedConstraintName)) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        "DELTA_INVALID_CONSTRAINT_NAME: cannot use '{}' as the name of a "
        "CHECK constraint: the name is reserved for CHAR/VARCHAR length checks",
        name);
  }
  if (auto old = FindCheckConstraint(metadata, name)) {
    return MakeError(ErrorCode::kAlreadyExists,
                     "DELTA_CONSTRAINT_ALREADY_EXISTS: Constraint '{}' already exists. "
                     "Please delete the old constraint first. Old constraint: {}",
                     old->name, old->expression);
  }
  if (Trim(expr_sql).empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "CHECK constraint {}: the expression is empty", name);
  }
  auto parsed = ParseExpression(expr_sql);
  if (!parsed) {
    return WithContext(parsed.error(),
                       fmt::format("CHECK constraint {} ({})", name, Trim(expr_sql)));
  }
  Constraint c{ConstraintKind::kCheck, AsciiToLower(name), std::string(Trim(expr_sql))};
  return BindConstraint(c, schema);
}

Result<std::vector<ConstraintDependent>> ConstraintsReferencing(
    const Metadata& metadata, const StructType& schema,
    const std::vector<std::string>& column) {
  DELTA_ASSIGN_OR_RETURN(auto bound, BindAllConstraints(metadata, schema));
  std::vector<ConstraintDependent> out;
  for (auto& b : bound) {
    for (const auto& path : b.columns) {
      if (Overlaps(path, column)) {
        out.push_back(ConstraintDependent{b.constraint, path});
        break;
      }
    }
  }
  return out;
}

}  // namespace deltaguard
