#include "deltaguard/contract/contract_schema.h"

#include <fmt/format.h>

#include <algorithm>

#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

FieldMetadata CommentMetadata(const ContractProperty& p) {
  FieldMetadata md;
  if (!p.description.empty()) md = md.With("comment", JsonQuote(p.description));
  return md;
}

// The type of `p` rebuilt with nested properties (so nested fields carry ids too when
// `identities` is set).
Result<DataTypeRef> TypeOf(const ContractProperty& p, const std::string& path,
                           ContractIdentities* identities, bool after);

Result<std::vector<StructField>> Fields(const std::vector<ContractProperty>& props,
                                        const std::string& parent,
                                        ContractIdentities* identities, bool after) {
  std::vector<StructField> fields;
  for (const auto& p : props) {
    std::string path = parent.empty() ? p.name : parent + "." + p.name;
    DELTA_ASSIGN_OR_RETURN(DataTypeRef type, TypeOf(p, path, identities, after));
    FieldMetadata md = CommentMetadata(p);
    if (identities != nullptr) {
      md = md.With(kColumnMappingIdKey,
                   std::to_string(identities->IdFor(p, parent, after)));
    }
    fields.push_back({p.name, std::move(type), !p.required, std::move(md)});
  }
  return fields;
}

Result<DataTypeRef> TypeOf(const ContractProperty& p, const std::string& path,
                           ContractIdentities* identities, bool after) {
  if (!p.type) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "property '{}' has no type (give it a physicalType)", path);
  }
  // Declared nested properties rebuild the struct, with their own ids and comments.
  if (p.type->kind() == TypeKind::kStruct && !p.properties.empty()) {
    DELTA_ASSIGN_OR_RETURN(auto fields, Fields(p.properties, path, identities, after));
    return DataTypeRef(std::make_shared<StructType>(std::move(fields)));
  }
  if (p.type->kind() == TypeKind::kArray && !p.items.empty() &&
      !p.items[0].properties.empty()) {
    DELTA_ASSIGN_OR_RETURN(DataTypeRef element,
                           TypeOf(p.items[0], path + ".element", identities, after));
    return DataTypeRef(std::make_shared<ArrayType>(element, !p.items[0].required));
  }
  return p.type;
}

}  // namespace

Result<SchemaRef> ContractSchema(const ContractObject& object) {
  DELTA_ASSIGN_OR_RETURN(auto fields, Fields(object.properties, "", nullptr, false));
  return SchemaRef(std::make_shared<StructType>(std::move(fields)));
}

std::string ContractIdentities::KeyOf(const ContractProperty& p) {
  return p.id.empty() ? "name:" + AsciiToLower(p.name) : "id:" + p.id;
}

int64_t ContractIdentities::Intern(const std::string& key) {
  auto [it, fresh] = ids_.emplace(key, static_cast<int64_t>(ids_.size()) + 1);
  return it->second;
}

void ContractIdentities::AddBeforeAt(const std::vector<ContractProperty>& props,
                                     const std::string& path) {
  for (const auto& p : props) {
    std::string child =
        path.empty() ? AsciiToLower(p.name) : path + "." + AsciiToLower(p.name);
    by_old_path_[child] = KeyOf(p);
    Intern(KeyOf(p));
    AddBeforeAt(p.properties, child);
    for (const auto& item : p.items) AddBeforeAt(item.properties, child + ".element");
  }
}

void ContractIdentities::AddBefore(const std::vector<ContractProperty>& before) {
  AddBeforeAt(before, "");
}

int64_t ContractIdentities::IdFor(const ContractProperty& p, const std::string& parent,
                                  bool after) {
  std::string key = KeyOf(p);
  if (after && !ids_.count(key)) {
    // A new identity: an alias naming an old property of the same struct carries its.
    std::string prefix = parent.empty() ? "" : AsciiToLower(parent) + ".";
    for (const auto& alias : p.aliases) {
      auto it = by_old_path_.find(prefix + AsciiToLower(alias));
      if (it != by_old_path_.end()) return Intern(it->second);
    }
  }
  return Intern(key);
}

Result<DriftSide> ContractDriftSide(const ContractObject& object,
                                    ContractIdentities* identities, bool after) {
  DELTA_ASSIGN_OR_RETURN(auto fields, Fields(object.properties, "", identities, after));
  DriftSide side;
  side.schema = std::make_shared<StructType>(std::move(fields));
  side.column_mapping = true;
  std::vector<std::pair<int, std::string>> parts;
  for (const auto& p : object.properties) {
    if (p.partitioned) parts.emplace_back(p.partition_key_position, p.name);
  }
  std::stable_sort(parts.begin(), parts.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> partition_columns;
  for (auto& [pos, name] : parts) partition_columns.push_back(std::move(name));
  side.partition_columns = std::move(partition_columns);
  return side;
}

}  // namespace deltaguard
