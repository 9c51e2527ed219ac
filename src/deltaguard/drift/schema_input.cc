#include "deltaguard/drift/schema_input.h"

#include "deltaguard/schema/ddl.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {

Result<SchemaRef> ParseSchemaText(std::string_view text, std::string_view what) {
  std::string_view trimmed = Trim(text);
  std::string where = what.empty() ? "" : fmt::format(" in '{}'", what);
  if (trimmed.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "empty schema text{}: give a DDL column list "
                     "('id BIGINT, name STRING') or Delta schema JSON",
                     where);
  }
  bool json = trimmed.front() == '{';
  auto schema = json ? ParseSchemaJson(trimmed) : ParseDdlSchema(trimmed);
  if (!schema) {
    return MakeError(ErrorCode::kParseError, "schema text{} ({}) does not parse: {}",
                     where, json ? "Delta schema JSON" : "DDL", schema.error().message);
  }
  return schema;
}

Result<SchemaRef> ReadSchemaFile(const FileSystem& fs, const std::string& path) {
  DELTA_ASSIGN_OR_RETURN(FileInfo info, fs.Stat(path));
  if (info.size > kMaxSchemaFileBytes) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "schema file '{}' is {} bytes, more than the {} a schema may have",
                     path, info.size, kMaxSchemaFileBytes);
  }
  DELTA_ASSIGN_OR_RETURN(std::string content, fs.ReadFile(path));
  size_t bad = 0;
  if (!IsValidUtf8(content, &bad)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "schema file '{}' is not UTF-8 text (byte {})", path, bad);
  }
  return ParseSchemaText(content, path);
}

}  // namespace deltaguard
