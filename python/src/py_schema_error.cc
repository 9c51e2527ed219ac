#include "py_schema_error.h"

#include <nanobind/stl/string.h>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/table/table.h"

namespace deltaguard::python {

void RaiseWriteError(const Error& error, const std::string& path,
                     const std::shared_ptr<arrow::Schema>& input) {
  if (error.code != ErrorCode::kSchemaMismatch) RaiseError(error);
  nb::dict details;
  SchemaRef table_schema;
  if (auto snap = OpenSnapshot(path)) table_schema = (*snap)->schema();
  SchemaRef input_schema;
  if (input) {
    if (auto converted = FromArrowSchema(*input)) input_schema = *converted;
  }
  details["table_schema_json"] =
      table_schema ? nb::cast(SchemaToJson(*table_schema)) : nb::none();
  details["input_schema_json"] =
      input_schema ? nb::cast(SchemaToJson(*input_schema)) : nb::none();
  // The classified changes travel in error.details (drift/write_error.h).
  RaiseError(error, details);
}

}  // namespace deltaguard::python
