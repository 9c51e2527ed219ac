// libFuzzer target for the schema text parsers: Delta schema JSON (schemaString) and the
// DDL type/column-list syntax. Beyond "no crash, no sanitizer report", it checks the
// round-trip invariants the log relies on:
//  1. a parsed schema serializes to JSON that parses back to an equal schema, and
//     serializing that again gives the same bytes (SchemaToJson is a fixed point);
//  2. every parsed schema passes ValidateFieldNames (parse already enforced it);
//  3. a DDL column list converts to schema JSON that parses back to an equal schema.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "deltaguard/schema/data_type.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/schema/schema_json.h"

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "schema_json_fuzz invariant failed: %s\n", what);
    std::abort();
  }
}

void CheckSchemaRoundTrip(const deltaguard::StructType& schema) {
  std::string json = deltaguard::SchemaToJson(schema);
  auto again = deltaguard::ParseSchemaJson(json);
  Check(again.has_value(), "serialized schema does not parse back");
  Check(**again == schema, "serialized schema parses back to a different schema");
  Check(deltaguard::SchemaToJson(**again) == json, "SchemaToJson is not a fixed point");
  Check(deltaguard::ValidateFieldNames(schema).has_value(),
        "parsed schema has duplicate field names");
  (void)schema.ToString();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);

  auto schema = deltaguard::ParseSchemaJson(input);
  if (schema) CheckSchemaRoundTrip(**schema);

  auto type = deltaguard::ParseDataTypeJson(input);
  if (type) {
    auto again = deltaguard::ParseDataTypeJson(deltaguard::DataTypeToJson(**type));
    Check(again.has_value() && **again == **type, "data type JSON does not round-trip");
  }

  auto ddl_type = deltaguard::ParseDdlType(input);
  if (ddl_type) (void)(*ddl_type)->ToString();

  auto ddl_schema = deltaguard::ParseDdlSchema(input);
  if (ddl_schema) CheckSchemaRoundTrip(**ddl_schema);
  return 0;
}
