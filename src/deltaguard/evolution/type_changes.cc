#include "deltaguard/evolution/type_changes.h"

#include "deltaguard/util/string_util.h"

namespace deltaguard {

std::string TypeChangeEntryJson(const DataType& from, const DataType& to,
                                std::string_view field_path) {
  std::string out = "{\"toType\":";
  AppendJsonString(&out, to.TypeName());
  out += ",\"fromType\":";
  AppendJsonString(&out, from.TypeName());
  if (!field_path.empty()) {
    out += ",\"fieldPath\":";
    AppendJsonString(&out, field_path);
  }
  out += "}";
  return out;
}

Result<FieldMetadata> AppendTypeChange(const FieldMetadata& metadata,
                                       const DataType& from, const DataType& to,
                                       std::string_view field_path,
                                       std::string_view column) {
  const std::string entry = TypeChangeEntryJson(from, to, field_path);
  const std::string* existing = metadata.FindRaw(kTypeChangesKey);
  if (existing == nullptr) return metadata.With(kTypeChangesKey, "[" + entry + "]");
  // The raw text is kept as found in the log; only the closing bracket is touched so
  // that earlier entries stay byte for byte.
  const std::string_view raw = Trim(*existing);
  if (raw.size() < 2 || raw.front() != '[' || raw.back() != ']') {
    return MakeError(ErrorCode::kCorruptLog,
                     "column '{}': field metadata '{}' is not a JSON array: {}", column,
                     kTypeChangesKey, *existing);
  }
  const std::string_view body = Trim(raw.substr(1, raw.size() - 2));
  std::string updated = "[";
  updated += body;
  if (!body.empty()) updated += ",";
  updated += entry;
  updated += "]";
  return metadata.With(kTypeChangesKey, std::move(updated));
}

}  // namespace deltaguard
