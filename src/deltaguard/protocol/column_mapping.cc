#include "deltaguard/protocol/column_mapping.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "deltaguard/schema/column_path.h"
#include "deltaguard/util/string_util.h"
#include "deltaguard/util/uuid.h"

namespace deltaguard {
namespace {

void VisitType(const DataType& type, const std::string& path,
               const std::function<void(const std::string&, const StructField&)>& visit);

void VisitStruct(
    const StructType& st, const std::string& prefix,
    const std::function<void(const std::string&, const StructField&)>& visit) {
  for (const StructField& f : st.fields()) {
    std::string path = ChildColumnPath(prefix, f.name);
    visit(path, f);
    VisitType(*f.type, path, visit);
  }
}

void VisitType(const DataType& type, const std::string& path,
               const std::function<void(const std::string&, const StructField&)>& visit) {
  switch (type.kind()) {
    case TypeKind::kStruct:
      VisitStruct(static_cast<const StructType&>(type), path, visit);
      break;
    case TypeKind::kArray:
      VisitType(*static_cast<const ArrayType&>(type).element_type(),
                ChildColumnPath(path, "element"), visit);
      break;
    case TypeKind::kMap: {
      const auto& map = static_cast<const MapType&>(type);
      VisitType(*map.key_type(), ChildColumnPath(path, "key"), visit);
      VisitType(*map.value_type(), ChildColumnPath(path, "value"), visit);
      break;
    }
    default:
      break;
  }
}

// Read an existing id: absent ⇒ nullopt; present but not an integer ⇒ error.
Result<std::optional<int64_t>> ExistingId(const std::string& path, const StructField& f) {
  const std::string* raw = f.metadata.FindRaw(kColumnMappingIdKey);
  if (raw == nullptr) return std::optional<int64_t>();
  std::optional<int64_t> id = f.metadata.GetInt(kColumnMappingIdKey);
  if (!id) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "column '{}': {} must be an integer, found {}", path,
                     kColumnMappingIdKey, *raw);
  }
  return id;
}

struct AssignState {
  int64_t next_id;  // last id handed out
  bool keep_names_as_physical;
};

Result<DataTypeRef> AssignInType(const DataTypeRef& type, const std::string& path,
                                 AssignState* st);

Result<SchemaRef> AssignInStruct(const StructType& st, const std::string& prefix,
                                 AssignState* state) {
  std::vector<StructField> fields;
  fields.reserve(st.num_fields());
  for (const StructField& f : st.fields()) {
    std::string path = ChildColumnPath(prefix, f.name);
    StructField out = f;
    DELTA_ASSIGN_OR_RETURN(std::optional<int64_t> id, ExistingId(path, f));
    if (!id) {
      if (state->next_id == std::numeric_limits<int32_t>::max()) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "column '{}': no column mapping id left (maxColumnId {})", path,
                         state->next_id);
      }
      ++state->next_id;
      out.metadata =
          out.metadata.With(kColumnMappingIdKey, std::to_string(state->next_id));
    }
    std::optional<std::string> physical = f.physical_name();
    if (!physical || physical->empty()) {
      std::string name = state->keep_names_as_physical ? f.name : NewPhysicalColumnName();
      out.metadata = out.metadata.With(kColumnMappingPhysicalNameKey, JsonQuote(name));
    }
    DELTA_ASSIGN_OR_RETURN(out.type, AssignInType(f.type, path, state));
    fields.push_back(std::move(out));
  }
  return std::make_shared<const StructType>(std::move(fields));
}

Result<DataTypeRef> AssignInType(const DataTypeRef& type, const std::string& path,
                                 AssignState* state) {
  switch (type->kind()) {
    case TypeKind::kStruct: {
      DELTA_ASSIGN_OR_RETURN(
          SchemaRef st,
          AssignInStruct(static_cast<const StructType&>(*type), path, state));
      return DataTypeRef(std::move(st));
    }
    case TypeKind::kArray: {
      const auto& arr = static_cast<const ArrayType&>(*type);
      DELTA_ASSIGN_OR_RETURN(
          DataTypeRef element,
          AssignInType(arr.element_type(), ChildColumnPath(path, "element"), state));
      return DataTypeRef(
          std::make_shared<const ArrayType>(std::move(element), arr.contains_null()));
    }
    case TypeKind::kMap: {
      const auto& map = static_cast<const MapType&>(*type);
      DELTA_ASSIGN_OR_RETURN(
          DataTypeRef key,
          AssignInType(map.key_type(), ChildColumnPath(path, "key"), state));
      DELTA_ASSIGN_OR_RETURN(
          DataTypeRef value,
          AssignInType(map.value_type(), ChildColumnPath(path, "value"), state));
      return DataTypeRef(std::make_shared<const MapType>(std::move(key), std::move(value),
                                                         map.value_contains_null()));
    }
    default:
      return type;
  }
}

// Physical names of one struct level must be unique; recurse into nested structs.
Status CheckPhysicalNamesPerLevel(const DataType& type, const std::string& prefix) {
  switch (type.kind()) {
    case TypeKind::kStruct: {
      std::map<std::string, std::string> seen;  // lower-cased physical name → path
      for (const StructField& f : static_cast<const StructType&>(type).fields()) {
        std::string path = ChildColumnPath(prefix, f.name);
        std::optional<std::string> physical = f.physical_name();
        if (physical) {
          auto [it, inserted] = seen.emplace(AsciiToLower(*physical), path);
          if (!inserted) {
            return MakeError(ErrorCode::kCorruptLog,
                             "columns '{}' and '{}' have the same physical name '{}'",
                             it->second, path, *physical);
          }
        }
        DELTA_RETURN_IF_ERROR(CheckPhysicalNamesPerLevel(*f.type, path));
      }
      return OkStatus();
    }
    case TypeKind::kArray:
      return CheckPhysicalNamesPerLevel(
          *static_cast<const ArrayType&>(type).element_type(),
          ChildColumnPath(prefix, "element"));
    case TypeKind::kMap: {
      const auto& map = static_cast<const MapType&>(type);
      DELTA_RETURN_IF_ERROR(
          CheckPhysicalNamesPerLevel(*map.key_type(), ChildColumnPath(prefix, "key")));
      return CheckPhysicalNamesPerLevel(*map.value_type(),
                                        ChildColumnPath(prefix, "value"));
    }
    default:
      return OkStatus();
  }
}

}  // namespace

void ForEachField(
    const StructType& schema,
    const std::function<void(const std::string& path, const StructField& field)>& visit) {
  VisitStruct(schema, "", visit);
}

std::string NewPhysicalColumnName() { return "col-" + GenerateUuidV4(); }

Result<ColumnMappingAssignment> AssignColumnMapping(const StructType& schema,
                                                    int64_t current_max_id,
                                                    bool keep_names_as_physical) {
  if (current_max_id < 0) {
    return MakeError(ErrorCode::kInvalidArgument, "{} must not be negative, found {}",
                     kColumnMappingMaxColumnIdProperty, current_max_id);
  }
  // Start above every id already present, even when maxColumnId is stale.
  int64_t highest = current_max_id;
  Status bad = OkStatus();
  ForEachField(schema, [&](const std::string& path, const StructField& f) {
    if (!bad) return;
    auto id = ExistingId(path, f);
    if (!id) {
      bad = tl::unexpected(id.error());
    } else if (*id) {
      highest = std::max(highest, **id);
    }
  });
  DELTA_RETURN_IF_ERROR(bad);
  AssignState state{highest, keep_names_as_physical};
  DELTA_ASSIGN_OR_RETURN(SchemaRef out, AssignInStruct(schema, "", &state));
  return ColumnMappingAssignment{std::move(out), state.next_id};
}

Status ValidateColumnMapping(const StructType& schema, int64_t max_column_id) {
  std::map<int64_t, std::string> ids;  // id → path
  Status status = OkStatus();
  ForEachField(schema, [&](const std::string& path, const StructField& f) {
    if (!status) return;
    const std::string* raw_id = f.metadata.FindRaw(kColumnMappingIdKey);
    std::optional<int64_t> id = f.column_mapping_id();
    if (!id) {
      status =
          MakeError(ErrorCode::kCorruptLog, "column '{}' has {} column mapping id ({})",
                    path, raw_id ? "an invalid" : "no", raw_id ? *raw_id : "missing");
      return;
    }
    if (*id < 0 || *id > max_column_id) {
      status = MakeError(ErrorCode::kCorruptLog,
                         "column '{}' has column mapping id {} outside 0..{} ({})", path,
                         *id, max_column_id, kColumnMappingMaxColumnIdProperty);
      return;
    }
    auto [it, inserted] = ids.emplace(*id, path);
    if (!inserted) {
      status = MakeError(ErrorCode::kCorruptLog,
                         "columns '{}' and '{}' have the same column mapping id {}",
                         it->second, path, *id);
      return;
    }
    std::optional<std::string> physical = f.physical_name();
    if (!physical || physical->empty()) {
      status = MakeError(ErrorCode::kCorruptLog, "column '{}' has no physical name ({})",
                         path, kColumnMappingPhysicalNameKey);
    }
  });
  DELTA_RETURN_IF_ERROR(status);
  return CheckPhysicalNamesPerLevel(schema, "");
}

}  // namespace deltaguard
