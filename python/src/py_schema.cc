// Schemas cross the boundary as Delta schema JSON (the protocol's schemaString), the
// one lossless form: Python's deltaguard.Schema keeps that text and asks these
// functions for its other forms (DDL, tree, Arrow).

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/schema/schema_json.h"
#include "deltaguard/schema/schema_tree.h"
#include "py_arrow.h"
#include "py_common.h"

namespace deltaguard::python {
namespace {

SchemaRef ParseJson(const std::string& json) { return Unwrap(ParseSchemaJson(json)); }

}  // namespace

void BindSchema(nb::module_& m) {
  m.def("schema_normalize_json",
        [](const std::string& json) { return SchemaToJson(*ParseJson(json)); });
  m.def("schema_from_ddl", [](const std::string& ddl) {
    return SchemaToJson(*Unwrap(ParseDdlSchema(ddl)));
  });
  m.def("schema_to_ddl",
        [](const std::string& json) { return SchemaToDdl(*ParseJson(json)); });
  m.def("schema_tree",
        [](const std::string& json) { return FormatSchemaTree(*ParseJson(json)); });
  m.def("schema_to_arrow", [](const std::string& json) {
    auto schema = Unwrap(ToArrowSchema(*ParseJson(json)));
    return ExportSchemaCapsule(*schema);
  });
  m.def("schema_from_arrow", [](nb::handle arrow_schema) {
    auto schema = ImportSchema(arrow_schema);
    return SchemaToJson(*Unwrap(FromArrowSchema(*schema)));
  });
}

}  // namespace deltaguard::python
