#include "deltaguard/schema/schema_tree.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

namespace deltaguard {
namespace {

void AppendFieldTree(const StructField& field, int depth, std::string* out);

void AppendNestedTree(const DataType& type, int depth, std::string* out) {
  const std::string indent(depth * 2 + 2, ' ');
  if (type.kind() == TypeKind::kStruct) {
    for (const auto& f : static_cast<const StructType&>(type).fields()) {
      AppendFieldTree(f, depth, out);
    }
  } else if (type.kind() == TypeKind::kArray) {
    const auto& a = static_cast<const ArrayType&>(type);
    if (a.element_type()->is_nested()) {
      out->append(indent + "element: " + a.element_type()->TypeName() +
                  (a.contains_null() ? "" : " not null") + "\n");
      AppendNestedTree(*a.element_type(), depth + 1, out);
    }
  } else if (type.kind() == TypeKind::kMap) {
    const auto& m = static_cast<const MapType&>(type);
    if (m.key_type()->is_nested()) {
      out->append(indent + "key: " + m.key_type()->TypeName() + "\n");
      AppendNestedTree(*m.key_type(), depth + 1, out);
    }
    if (m.value_type()->is_nested()) {
      out->append(indent + "value: " + m.value_type()->TypeName() +
                  (m.value_contains_null() ? "" : " not null") + "\n");
      AppendNestedTree(*m.value_type(), depth + 1, out);
    }
  }
}

void AppendFieldTree(const StructField& field, int depth, std::string* out) {
  std::string line(depth * 2 + 2, ' ');
  line += field.name + ": ";
  line += field.type->kind() == TypeKind::kStruct ? std::string("struct")
                                                  : field.type->ToString();
  if (!field.nullable) line += " not null";
  std::vector<std::string> notes;
  if (auto id = field.column_mapping_id()) notes.push_back(fmt::format("id {}", *id));
  if (auto phys = field.physical_name()) notes.push_back("physical " + *phys);
  if (const std::string* tc = field.metadata.FindRaw(kTypeChangesKey)) {
    notes.push_back("type changes " + *tc);
  }
  if (!notes.empty()) line += fmt::format("  [{}]", fmt::join(notes, ", "));
  if (auto c = field.comment()) line += "  -- " + *c;
  out->append(line + "\n");
  AppendNestedTree(*field.type, depth + 1, out);
}

}  // namespace

std::string FormatSchemaTree(const StructType& schema) {
  std::string out;
  for (const auto& f : schema.fields()) AppendFieldTree(f, 0, &out);
  return out;
}

}  // namespace deltaguard
