#include "py_arrow.h"

#include <Python.h>
#include <arrow/c/abi.h>
#include <arrow/c/bridge.h>
#include <nanobind/stl/string.h>

#include <string>

#include "deltaguard/arrow/status.h"

namespace deltaguard::python {
namespace {

// The capsule names of the Arrow PyCapsule interface, per C struct.
template <typename T>
constexpr const char* kCapsuleName = nullptr;
template <>
constexpr const char* kCapsuleName<ArrowArrayStream> = "arrow_array_stream";
template <>
constexpr const char* kCapsuleName<ArrowSchema> = "arrow_schema";

template <typename T>
T* CapsulePointer(nb::handle capsule, const char* name) {
  void* p = PyCapsule_GetPointer(capsule.ptr(), name);
  if (p == nullptr) throw nb::python_error();
  return static_cast<T*>(p);
}

[[noreturn]] void RaiseArrow(const arrow::Status& status, const std::string& what) {
  RaiseError(Error{ErrorCode::kInvalidArgument, what + ": " + status.ToString()});
}

// A capsule's destructor: releases the struct unless a consumer moved it out (its
// release is then null), and frees it.
template <typename T>
void ReleaseCapsule(PyObject* capsule) {
  auto* c = static_cast<T*>(PyCapsule_GetPointer(capsule, kCapsuleName<T>));
  if (c == nullptr) return;
  if (c->release != nullptr) c->release(c);
  delete c;
}

// `export_to` fills a fresh C struct; it goes into a capsule that owns it.
template <typename T, typename Export>
nb::object ExportCapsule(Export&& export_to, const char* what) {
  auto* c = new T();
  c->release = nullptr;
  arrow::Status st = export_to(c);
  if (!st.ok()) {
    delete c;
    RaiseArrow(st, what);
  }
  PyObject* capsule = PyCapsule_New(c, kCapsuleName<T>, ReleaseCapsule<T>);
  if (capsule == nullptr) {
    c->release(c);
    delete c;
    throw nb::python_error();
  }
  return nb::steal(capsule);
}

std::shared_ptr<arrow::RecordBatchReader> ReaderFromStreamCapsule(nb::handle capsule) {
  auto* stream =
      CapsulePointer<ArrowArrayStream>(capsule, kCapsuleName<ArrowArrayStream>);
  // Import moves the stream out (its release becomes null), so the capsule's own
  // destructor has nothing left to release.
  auto reader = arrow::ImportRecordBatchReader(stream);
  if (!reader.ok()) RaiseArrow(reader.status(), "cannot import the Arrow stream");
  return *reader;
}

}  // namespace

std::shared_ptr<arrow::RecordBatchReader> ImportReader(nb::handle data) {
  if (nb::hasattr(data, "__arrow_c_stream__")) {
    return ReaderFromStreamCapsule(data.attr("__arrow_c_stream__")());
  }
  if (nb::hasattr(data, "__arrow_c_array__")) {
    nb::tuple pair = nb::cast<nb::tuple>(data.attr("__arrow_c_array__")());
    auto* schema = CapsulePointer<ArrowSchema>(pair[0], kCapsuleName<ArrowSchema>);
    auto* array = CapsulePointer<ArrowArray>(pair[1], "arrow_array");
    auto batch = arrow::ImportRecordBatch(array, schema);
    if (!batch.ok()) {
      RaiseArrow(batch.status(),
                 "the Arrow array is not a record batch (a struct array)");
    }
    auto reader = arrow::RecordBatchReader::Make({*batch}, (*batch)->schema());
    if (!reader.ok()) RaiseArrow(reader.status(), "cannot read the record batch");
    return *reader;
  }
  nb::object pa = nb::module_::import_("pyarrow");
  nb::object table;
  try {
    table = pa.attr("table")(data);
  } catch (nb::python_error& e) {
    std::string type = nb::cast<std::string>(nb::str(data.type().attr("__name__")));
    RaiseError(Error{ErrorCode::kInvalidArgument,
                     "cannot read " + type +
                         " as Arrow data: pass an object with __arrow_c_stream__ "
                         "(pyarrow Table or RecordBatchReader, polars or pandas "
                         "DataFrame, DuckDB relation) or a dict of columns"});
  }
  return ReaderFromStreamCapsule(table.attr("__arrow_c_stream__")());
}

std::shared_ptr<arrow::Schema> ImportSchema(nb::handle schema) {
  if (!nb::hasattr(schema, "__arrow_c_schema__")) {
    RaiseError(Error{ErrorCode::kInvalidArgument,
                     "expected an Arrow schema (an object with __arrow_c_schema__)"});
  }
  nb::object capsule = schema.attr("__arrow_c_schema__")();
  auto* c_schema = CapsulePointer<ArrowSchema>(capsule, kCapsuleName<ArrowSchema>);
  auto imported = arrow::ImportSchema(c_schema);
  if (!imported.ok()) RaiseArrow(imported.status(), "cannot import the Arrow schema");
  return *imported;
}

nb::object ExportReaderCapsule(std::shared_ptr<arrow::RecordBatchReader> reader) {
  return ExportCapsule<ArrowArrayStream>(
      [&](ArrowArrayStream* out) {
        return arrow::ExportRecordBatchReader(std::move(reader), out);
      },
      "cannot export the Arrow stream");
}

nb::object ExportSchemaCapsule(const arrow::Schema& schema) {
  return ExportCapsule<ArrowSchema>(
      [&](ArrowSchema* out) { return arrow::ExportSchema(schema, out); },
      "cannot export the Arrow schema");
}

void BindArrow(nb::module_& m) {
  // Round trip of any Arrow producer through the C stream interface (tests use it to
  // check the import path on every producer they cover).
  m.def("_roundtrip_stream",
        [](nb::handle data) { return ExportReaderCapsule(ImportReader(data)); });
}

}  // namespace deltaguard::python
