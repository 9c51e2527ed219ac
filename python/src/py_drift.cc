// Schema drift from Python (docs/drift.md "Python"): the sides of a comparison are
// resolved and the report built by the library calls the CLI makes
// (table/drift_sources.h), so `Table.drift` / `dg.diff` and `deltaguard drift` /
// `deltaguard diff` give the same changes, verdict and renderings.

#include <arrow/record_batch.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "deltaguard/arrow/status.h"
#include "deltaguard/drift/report.h"
#include "deltaguard/drift/schema_input.h"
#include "deltaguard/exec/input_source.h"
#include "deltaguard/table/drift_sources.h"
#include "py_arrow.h"
#include "py_common.h"
#include "py_table.h"

namespace deltaguard::python {
namespace {

struct NativeDriftSource {
  DriftSource source;
};

struct NativeDriftReport {
  DriftReport report;
};

/// CSV/JSON reading options for file sides, as the CLI's --input-format, --no-header
/// and --delimiter set them.
InputOptions FileOptions(const std::optional<std::string>& format, bool header,
                         const std::optional<std::string>& delimiter) {
  InputOptions options;
  if (format) options.format = Unwrap(ParseInputFormat(*format));
  options.csv_header = header;
  if (delimiter) {
    if (delimiter->size() != 1) {
      RaiseError(Error{ErrorCode::kInvalidArgument,
                       "delimiter must be one character, got '" + *delimiter + "'"});
    }
    options.csv_delimiter = (*delimiter)[0];
  }
  return options;
}

SchemaRef HintOf(const NativeDriftSource* hint) {
  return hint != nullptr ? hint->source.side.schema : nullptr;
}

NativeDriftSource TableSide(const NativeTable& t) {
  return {Unwrap(WithoutGil([&] { return TableDriftSource(t.fs, *t.snapshot); }))};
}

NativeDriftSource SpecSide(const std::string& spec, const NativeDriftSource* hint,
                           std::optional<std::string> format, bool header,
                           std::optional<std::string> delimiter) {
  InputOptions options = FileOptions(format, header, delimiter);
  SchemaRef h = HintOf(hint);
  return {Unwrap(WithoutGil(
      [&] { return ResolveDriftSource(MakeLocalFileSystem(), spec, options, h); }))};
}

NativeDriftSource FilesSide(const std::vector<std::string>& paths,
                            const NativeDriftSource* hint,
                            std::optional<std::string> format, bool header,
                            std::optional<std::string> delimiter) {
  InputOptions options = FileOptions(format, header, delimiter);
  SchemaRef h = HintOf(hint);
  return {Unwrap(WithoutGil([&] { return FileDriftSource(paths, options, h); }))};
}

/// Any Arrow producer: its schema and its first batch (the stream is not read further).
NativeDriftSource DataSide(nb::handle data, const std::string& label) {
  std::shared_ptr<arrow::RecordBatchReader> reader = ImportReader(data);
  auto side = WithoutGil([&]() -> Result<DriftSource> {
    std::shared_ptr<arrow::RecordBatch> batch;
    DELTA_ARROW_RETURN_NOT_OK(reader->ReadNext(&batch), ErrorCode::kIOError,
                              "the first rows of " + label);
    return ArrowBatchDriftSource(*reader->schema(), batch.get(), label);
  });
  return {Unwrap(std::move(side))};
}

/// Schema JSON (dg.Schema) or schema text (DDL or JSON).
NativeDriftSource SchemaSide(const std::string& text, const std::string& label) {
  SchemaRef schema = Unwrap(ParseSchemaText(text, label));
  return {Unwrap(SchemaDriftSource(schema, label))};
}

NativeDriftReport Report(const NativeDriftSource& before, const NativeDriftSource& after,
                         std::optional<std::string> mode,
                         std::optional<std::string> fail_on) {
  DriftReportOptions options;
  if (mode) options.mode = Unwrap(ParseCompatMode(*mode));
  if (fail_on) options.fail_on = Unwrap(ParseFailBar(*fail_on));
  return {Unwrap(WithoutGil(
      [&] { return BuildDriftReport(before.source, after.source, options); }))};
}

}  // namespace

void BindDrift(nb::module_& m) {
  nb::class_<NativeDriftSource>(m, "NativeDriftSource")
      .def_prop_ro("label", [](const NativeDriftSource& s) { return s.source.label; });
  nb::class_<NativeDriftReport>(m, "NativeDriftReport")
      .def(
          "render",
          [](const NativeDriftReport& r, const std::string& format) {
            return RenderDriftReport(r.report, Unwrap(ParseDriftReportFormat(format)));
          },
          nb::arg("format") = "text")
      .def_prop_ro("change_fails", [](const NativeDriftReport& r) {
        std::vector<bool> out;
        for (size_t i = 0; i < r.report.changes.size(); ++i) {
          out.push_back(ChangeFails(r.report, i));
        }
        return out;
      });

  m.def("drift_source_table", &TableSide, nb::arg("table"));
  m.def("drift_source_spec", &SpecSide, nb::arg("spec"), nb::arg("hint").none(),
        nb::arg("input_format") = nb::none(), nb::arg("header") = true,
        nb::arg("delimiter") = nb::none());
  m.def("drift_source_files", &FilesSide, nb::arg("paths"), nb::arg("hint").none(),
        nb::arg("input_format") = nb::none(), nb::arg("header") = true,
        nb::arg("delimiter") = nb::none());
  m.def("drift_source_data", &DataSide, nb::arg("data"), nb::arg("label"));
  m.def("drift_source_schema", &SchemaSide, nb::arg("text"), nb::arg("label"));
  m.def("drift_report", &Report, nb::arg("before"), nb::arg("after"),
        nb::arg("mode") = nb::none(), nb::arg("fail_on") = nb::none());
}

}  // namespace deltaguard::python
