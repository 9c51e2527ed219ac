// libFuzzer target for the drift schema-text parser (drift/schema_input.h) and the
// classifier on what it parses. Beyond "no crash, no sanitizer report":
//  1. an accepted text gives a schema that compared with itself has no changes;
//  2. compared with the empty schema, every top-level column is one COLUMN_ADDED_* and
//     the other way round one COLUMN_REMOVED;
//  3. the report JSON of any comparison is valid JSON;
//  4. a refused text is kInvalidArgument or kParseError with a one-line message.

#include <rapidjson/document.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "deltaguard/drift/classify.h"
#include "deltaguard/drift/report.h"
#include "deltaguard/drift/schema_input.h"

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "schema_input_fuzz invariant failed: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace deltaguard;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto schema = ParseSchemaText(input, "fuzz");
  if (!schema) {
    Check(schema.error().code == ErrorCode::kInvalidArgument ||
              schema.error().code == ErrorCode::kParseError,
          "refused schema text has an unexpected error code");
    return 0;
  }
  DriftSide side;
  side.schema = *schema;
  Check(ClassifyDrift(side, side).empty(), "a schema differs from itself");
  DriftSide empty;
  empty.schema = std::make_shared<StructType>(std::vector<StructField>{});
  auto added = ClassifyDrift(empty, side);
  auto removed = ClassifyDrift(side, empty);
  Check(added.size() == (*schema)->num_fields(), "not one addition per column");
  Check(removed.size() == (*schema)->num_fields(), "not one removal per column");
  for (const auto& c : removed) {
    Check(c.cls == ChangeClass::kColumnRemoved, "removal of another class");
  }
  DriftReport report;
  report.before_schema = empty.schema;
  report.after_schema = side.schema;
  report.changes = added;
  std::string json = DriftReportJson(report);
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  Check(!doc.HasParseError() && doc.IsObject(), "report JSON does not parse");
  (void)DriftReportText(report);
  return 0;
}
