#include "deltaguard/drift/classify.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "deltaguard/drift/classify_internal.h"
#include "deltaguard/evolution/type_rules.h"
#include "deltaguard/protocol/table_properties.h"
#include "deltaguard/schema/column_path.h"
#include "deltaguard/schema/schema_diff.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

constexpr std::string_view kConstraintPrefix = "delta.constraints.";

DriftChange Make(ChangeClass cls, const std::vector<std::string>& parts,
                 std::string before, std::string after) {
  DriftChange c;
  c.cls = cls;
  c.path = FormatColumnPath(parts);
  c.before = std::move(before);
  c.after = std::move(after);
  c.risk = ChangeClassInfoFor(cls).risk;
  return c;
}

void Breaks(DriftChange* c, bool backward, std::string reason) {
  (backward ? c->backward : c->forward) = Compat::kBreak;
  (backward ? c->backward_reason : c->forward_reason) = std::move(reason);
}

std::string TypeText(const DataTypeRef& type, bool nullable) {
  return type->ToString() + (nullable ? "" : " not null");
}

const ColumnEvidence* FindEvidence(const std::vector<ColumnEvidence>& list,
                                   const std::string& path) {
  for (const auto& e : list) {
    if (EqualsIgnoreCase(e.path, path)) return &e;
  }
  return nullptr;
}

bool AllNull(const ColumnEvidence* e) {
  return e && e->null_count && e->num_records && *e->num_records > 0 &&
         *e->null_count == *e->num_records;
}

// A change of type at `parts` (DiffSchemas reports the column whose outer shape
// changed; arrays and maps are followed down to the part that differs).
void ClassifyTypeChange(const std::vector<std::string>& parts, const DataTypeRef& from,
                        const DataTypeRef& to, const DriftEvidence& evidence,
                        std::vector<DriftChange>* out);

void ClassifyNestedStruct(const std::vector<std::string>& parts, const StructType& from,
                          const StructType& to, const DriftEvidence& evidence,
                          std::vector<DriftChange>* out) {
  SchemaDiffOptions options;
  options.report_moves = options.report_metadata = true;
  for (auto entry : DiffSchemas(from, to, options)) {
    std::vector<std::string> full = parts;
    full.insert(full.end(), entry.parts.begin(), entry.parts.end());
    entry.parts = std::move(full);
    ClassifyEntry(entry, evidence, {}, out);
  }
}

void ClassifyTypeChange(const std::vector<std::string>& parts, const DataTypeRef& from,
                        const DataTypeRef& to, const DriftEvidence& evidence,
                        std::vector<DriftChange>* out) {
  auto child = [&](const char* step) {
    std::vector<std::string> p = parts;
    p.push_back(step);
    return p;
  };
  if (from->kind() == to->kind() && from->kind() == TypeKind::kArray) {
    ClassifyTypeChange(child("element"),
                       static_cast<const ArrayType&>(*from).element_type(),
                       static_cast<const ArrayType&>(*to).element_type(), evidence, out);
    return;
  }
  if (from->kind() == to->kind() && from->kind() == TypeKind::kMap) {
    const auto& fm = static_cast<const MapType&>(*from);
    const auto& tm = static_cast<const MapType&>(*to);
    ClassifyTypeChange(child("key"), fm.key_type(), tm.key_type(), evidence, out);
    ClassifyTypeChange(child("value"), fm.value_type(), tm.value_type(), evidence, out);
    return;
  }
  if (from->kind() == to->kind() && from->kind() == TypeKind::kStruct) {
    ClassifyNestedStruct(parts, static_cast<const StructType&>(*from),
                         static_cast<const StructType&>(*to), evidence, out);
    return;
  }
  if (from->Equals(*to)) return;
  ChangeClass cls = ClassifyPrimitiveChange(*from, *to);
  DriftChange c = Make(cls, parts, from->ToString(), to->ToString());
  if (cls == ChangeClass::kTypeWidened) {
    Breaks(&c, false, "readers of the old type cannot read the wider values");
  } else if (cls == ChangeClass::kTypeNarrowed) {
    Breaks(&c, true, "old values may not fit the narrower type");
  } else {
    Breaks(&c, true, "old values cannot be read as the new type");
    Breaks(&c, false, "new values cannot be read as the old type");
  }
  out->push_back(std::move(c));
}

void ClassifyPartitioning(const DriftSide& before, const DriftSide& after,
                          std::vector<DriftChange>* out) {
  if (!before.partition_columns || !after.partition_columns) return;
  const auto& b = *before.partition_columns;
  const auto& a = *after.partition_columns;
  bool same = a.size() == b.size();
  for (size_t i = 0; same && i < a.size(); ++i) same = EqualsIgnoreCase(a[i], b[i]);
  if (same) return;
  out->push_back(Make(ChangeClass::kPartitioningChanged, {},
                      fmt::format("[{}]", fmt::join(b, ", ")),
                      fmt::format("[{}]", fmt::join(a, ", "))));
}

void ClassifyConstraints(const DriftSide& before, const DriftSide& after,
                         std::vector<DriftChange>* out) {
  if (!before.constraints || !after.constraints) return;
  auto find = [](const auto& list, const std::string& name) -> const std::string* {
    for (const auto& [n, expr] : list) {
      if (EqualsIgnoreCase(n, name)) return &expr;
    }
    return nullptr;
  };
  for (const auto& [name, expr] : *before.constraints) {
    const std::string* now = find(*after.constraints, name);
    if (now && *now == expr) continue;
    DriftChange c = Make(ChangeClass::kConstraintDropped, {name}, expr, "");
    Breaks(&c, false, "readers of the old schema rely on the constraint");
    out->push_back(std::move(c));
  }
  for (const auto& [name, expr] : *after.constraints) {
    const std::string* was = find(*before.constraints, name);
    if (was && *was == expr) continue;
    DriftChange c = Make(ChangeClass::kConstraintAdded, {name}, "", expr);
    Breaks(&c, true, "old rows were not checked against the constraint");
    out->push_back(std::move(c));
  }
}

// COLUMN_ALL_NULL: a column of both schemas whose new values are all NULL while the
// old ones were not (or are not known).
void ClassifyAllNull(const DriftSide& before, const DriftEvidence& evidence,
                     const std::set<std::string>& added, std::vector<DriftChange>* out) {
  for (const auto& e : evidence.after) {
    if (!AllNull(&e) || added.count(AsciiToLower(e.path))) continue;
    auto parts = ParseColumnPath(e.path);
    if (!parts || parts->size() != 1 ||
        before.schema->FieldIndexCaseInsensitive(parts->front()) < 0) {
      continue;  // nested paths: statistics name leaves only; not checked here
    }
    const ColumnEvidence* old = FindEvidence(evidence.before, e.path);
    if (AllNull(old)) continue;
    DriftChange c = Make(ChangeClass::kColumnAllNull, *parts, "", "all NULL");
    c.backward = c.forward = Compat::kNotJudged;
    c.score = 1.0;
    c.evidence = fmt::format("{} of {} new rows are NULL", *e.null_count, *e.num_records);
    if (old && old->null_count && old->num_records) {
      c.before = fmt::format("{} of {} NULL", *old->null_count, *old->num_records);
    }
    out->push_back(std::move(c));
  }
}

}  // namespace

ChangeClass ClassifyPrimitiveChange(const DataType& from, const DataType& to) {
  if (IsTypeWideningSupported(from, to) || IsLosslessWriteCast(from, to)) {
    return ChangeClass::kTypeWidened;
  }
  if (IsTypeWideningSupported(to, from) || IsLosslessWriteCast(to, from)) {
    return ChangeClass::kTypeNarrowed;
  }
  return ChangeClass::kTypeChangedIncompatible;
}

void ClassifyEntry(const SchemaDiffEntry& entry, const DriftEvidence& evidence,
                   const std::vector<ColumnEvidence>& before_evidence,
                   std::vector<DriftChange>* out) {
  using Kind = SchemaDiffEntry::Kind;
  const auto& parts = entry.parts;
  switch (entry.kind) {
    case Kind::kAdded: {
      bool nullable = entry.to_nullable || evidence.ignore_new_nullability;
      DriftChange c = Make(
          nullable ? ChangeClass::kColumnAddedNullable : ChangeClass::kColumnAddedNotNull,
          parts, "", TypeText(entry.to_type, nullable));
      if (!nullable) Breaks(&c, true, "old rows have no value for the NOT NULL column");
      out->push_back(std::move(c));
      return;
    }
    case Kind::kDropped: {
      DriftChange c = Make(ChangeClass::kColumnRemoved, parts,
                           TypeText(entry.from_type, entry.from_nullable), "");
      if (!entry.from_nullable) {
        Breaks(&c, false, "readers of the old schema require a value (NOT NULL)");
      }
      out->push_back(std::move(c));
      return;
    }
    case Kind::kRenamed: {
      bool case_only = EqualsIgnoreCase(entry.from, entry.to);
      DriftChange c =
          Make(case_only ? ChangeClass::kColumnCaseChanged : ChangeClass::kColumnRenamed,
               parts, entry.from, entry.to);
      std::vector<std::string> old_parts = parts;
      old_parts.back() = entry.from;
      c.old_path = FormatColumnPath(old_parts);
      if (!case_only) {
        Breaks(&c, false, "readers of the old schema look the column up by its old name");
      }
      out->push_back(std::move(c));
      return;
    }
    case Kind::kTypeChanged:
      ClassifyTypeChange(parts, entry.from_type, entry.to_type, evidence, out);
      return;
    case Kind::kNullabilityChanged: {
      if (evidence.ignore_new_nullability) return;
      if (entry.to_nullable) {
        DriftChange c =
            Make(ChangeClass::kNullabilityRelaxed, parts, "not null", "nullable");
        Breaks(&c, false, "readers of the old schema assume no NULLs");
        out->push_back(std::move(c));
      } else {
        DriftChange c =
            Make(ChangeClass::kNullabilityTightened, parts, "nullable", "not null");
        const ColumnEvidence* e = FindEvidence(before_evidence, FormatColumnPath(parts));
        if (e && e->null_count && *e->null_count == 0) {
          c.evidence = "the old rows hold no NULL (file statistics)";
        } else {
          Breaks(&c, true, "old rows may hold NULL");
        }
        out->push_back(std::move(c));
      }
      return;
    }
    case Kind::kCommentChanged:
      out->push_back(Make(ChangeClass::kCommentChanged, parts, entry.from, entry.to));
      return;
    case Kind::kMetadataChanged:
      out->push_back(Make(ChangeClass::kMetadataChanged, parts, entry.from, entry.to));
      return;
    case Kind::kMoved: {
      DriftChange c = Make(ChangeClass::kColumnReordered, parts, "position " + entry.from,
                           "position " + entry.to);
      if (evidence.positional) {
        c.risk = Risk::kHigh;
        c.evidence = "the input is matched by position: values land in other columns";
      }
      out->push_back(std::move(c));
      return;
    }
  }
}

Result<DriftSide> DriftSideFromMetadata(const Metadata& metadata) {
  auto schema = ParseSchemaJson(metadata.schema_string);
  if (!schema) {
    return MakeError(ErrorCode::kCorruptLog,
                     "the table's schemaString does not parse: {}",
                     schema.error().message);
  }
  return DriftSideFromMetadata(metadata, *schema);
}

DriftSide DriftSideFromMetadata(const Metadata& metadata, SchemaRef schema) {
  DriftSide side;
  side.schema = std::move(schema);
  side.partition_columns = metadata.partition_columns;
  side.constraints.emplace();
  for (const auto& [key, value] : metadata.configuration) {
    if (StartsWithIgnoreCase(key, kConstraintPrefix)) {
      side.constraints->emplace_back(key.substr(kConstraintPrefix.size()), value);
    }
  }
  auto mode = GetColumnMappingMode(metadata);
  side.column_mapping = mode && *mode != ColumnMappingMode::kNone;
  return side;
}

std::vector<DriftChange> ClassifyDrift(const DriftSide& before, const DriftSide& after,
                                       const DriftEvidence& evidence) {
  std::vector<DriftChange> out;
  if (!before.schema || !after.schema) return out;
  SchemaDiffOptions options;
  options.report_moves = options.report_metadata = true;
  std::vector<SchemaDiffEntry> entries =
      DiffSchemas(*before.schema, *after.schema, options);
  std::set<std::string> added;
  for (const auto& entry : entries) {
    ClassifyEntry(entry, evidence, evidence.before, &out);
    if (entry.kind == SchemaDiffEntry::Kind::kAdded) {
      added.insert(AsciiToLower(FormatColumnPath(entry.parts)));
    }
  }
  ClassifyPartitioning(before, after, &out);
  ClassifyConstraints(before, after, &out);
  ClassifyAllNull(before, evidence, added, &out);
  AppendRenameSuspicions(before, after, entries, evidence, &out);
  return out;
}

}  // namespace deltaguard
